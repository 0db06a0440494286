"""The timeout in force for each harness's hook events (docs/design/harnesses.md#timeouts): plain
data, no imports, so the hook's fast path can read it."""

# Cursor documents no default hook timeout ("platform default"): UNCONFIRMED. STYLE writes no
# timeout for Cursor (docs/design/harnesses.md#timeouts), so its internal deadline assumes this
# short one.
CURSOR_ASSUMED_DEFAULT_S = 10.0

# Codex: STYLE writes a fixed 10 s into every handler (docs/design/harnesses.md#timeouts), except
# SessionEnd, whose timeout Codex caps at 3 s (docs/design/harnesses.md#timeouts).
CODEX_WRITTEN_S = 10.0
CODEX_SESSION_END_S = 3.0

# Gemini CLI: STYLE writes the documented default, 60 000 ms (docs/design/harnesses.md#timeouts).
GEMINI_WRITTEN_MS = 60_000

# The timeout in force for an event: the one STYLE writes, else the harness's documented default.
DEFAULT_S = {
    "claude-code": 600.0,
    "codex": CODEX_WRITTEN_S,
    "cursor": CURSOR_ASSUMED_DEFAULT_S,
    "gemini-cli": GEMINI_WRITTEN_MS / 1000.0,
}
EVENT_S = {
    ("claude-code", "UserPromptSubmit"): 30.0,
    ("claude-code", "SessionEnd"): 1.5,
    ("codex", "SessionEnd"): CODEX_SESSION_END_S,
}


def timeout_for(harness: str, native_event: str) -> float:
    return EVENT_S.get((harness, native_event), DEFAULT_S.get(harness, 600.0))
