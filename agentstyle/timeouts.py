"""The timeout in force for each harness's hook events (harnesses.md): plain data, no imports,
so the hook's fast path can read it."""

# The harness's documented default for an event; where a later issue writes its own timeout
# into the config, it is listed here too so the hook's deadline follows it.
DEFAULT_S = {"claude-code": 600.0}
EVENT_S = {
    ("claude-code", "UserPromptSubmit"): 30.0,
    ("claude-code", "SessionEnd"): 1.5,
}


def timeout_for(harness: str, native_event: str) -> float:
    return EVENT_S.get((harness, native_event), DEFAULT_S.get(harness, 600.0))
