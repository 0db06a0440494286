"""The `timeout` STYLE writes on each installed handler, and so the timeout in force for each
harness's hook events (docs/design/harnesses.md#timeouts): plain data, no imports, so the hook's
fast path can read it.

The hook answers within its 2 s budget by itself (limits.BUDGET_S); the written timeout is the
second line of defence, a little above that budget, so that even a STYLE bug cannot hold a
session for the harness's own default (minutes). With `onFailure: "block"` (Claude Code,
`--fail-closed`) or `failClosed` (Cursor) the client then refuses the call.
"""

# Seconds: the budget, and room for an interpreter's start on a loaded machine.
HANDLER_TIMEOUT_S = 4
# Codex caps SessionEnd at 3 s (docs/design/harnesses.md#timeouts).
CODEX_SESSION_END_S = 3

# The value written per harness, in its own unit: seconds for Claude Code, Codex and Cursor,
# milliseconds for Gemini CLI.
WRITTEN = {
    "claude-code": HANDLER_TIMEOUT_S,
    "codex": HANDLER_TIMEOUT_S,
    "cursor": HANDLER_TIMEOUT_S,
    "gemini-cli": HANDLER_TIMEOUT_S * 1000,
}
WRITTEN_EVENT = {("codex", "SessionEnd"): CODEX_SESSION_END_S}
# Units per second of each harness's `timeout`.
PER_SECOND = {"gemini-cli": 1000}


def written(harness: str, native_event: str) -> int:
    """The `timeout` STYLE writes on its handler for the event, in the harness's unit."""
    return WRITTEN_EVENT.get((harness, native_event), WRITTEN.get(harness, HANDLER_TIMEOUT_S))


def timeout_for(harness: str, native_event: str) -> float:
    """The timeout in force for the event, in seconds: the one STYLE writes."""
    return written(harness, native_event) / PER_SECOND.get(harness, 1)
