"""The `timeout` STYLE writes on each installed handler, and so the timeout in force for each
harness's hook events (docs/design/harnesses.md#timeouts): plain data and the harness registry
(itself plain data), so the hook's fast path can read it.

The hook answers within its 2 s budget by itself (limits.BUDGET_S); the written timeout is the
second line of defence, a little above that budget, so that even a STYLE bug cannot hold a
session for the harness's own default (minutes). With the harness's fail-closed switch
(`HarnessSpec.fail_closed_switch`, under `--fail-closed`) the client then refuses the call.
"""

from __future__ import annotations

from agentstyle.harnesses.registry import HARNESSES

# Seconds: the budget, and room for an interpreter's start on a loaded machine. A harness that
# caps an event lower has its own value there (`HookFacts.event_timeouts`).
HANDLER_TIMEOUT_S = 4


def written(harness: str, native_event: str) -> int:
    """The `timeout` STYLE writes on its handler for the event, in the harness's unit
    (`HookFacts.per_second`)."""
    facts = HARNESSES.get(harness)
    if facts is None:
        return HANDLER_TIMEOUT_S
    return facts.event_timeouts.get(native_event, HANDLER_TIMEOUT_S) * facts.per_second


def timeout_for(harness: str, native_event: str) -> float:
    """The timeout in force for the event, in seconds: the one STYLE writes."""
    facts = HARNESSES.get(harness)
    return written(harness, native_event) / (facts.per_second if facts is not None else 1)
