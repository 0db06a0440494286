"""A check's result as the event it is evaluated as: the triggering event at `check.done`.

The hook reads a result its runner hands back this way (runtime/observers.py), and `style
test` a case's `check:` (docs/observers.md#what-a-check-gives)."""

from __future__ import annotations

from typing import Any

from agentstyle.evaluator.event import Event
from agentstyle.vocabulary import CHECK_OUTPUT_TAIL_CHARS, CHECK_POINT

RULE_FIELD = "check.rule"  # policy/checks.py RULE_FIELD: only a result carries it
CRASHED_FIELD = "check.crashed"  # policy/checks.py CRASHED_FIELD: a check that crashed, why


def as_result(event: Event, check: dict[str, Any]) -> None:
    """The event a check's result is evaluated as: the triggering event at `check.done`, with
    the result's fields. Every result names its rule (`check.rule`: the audit counts each
    rule's runs); one that crashed also carries `check.crashed`, so its rule stays silent
    (policy/checks.py placed_condition), and the reason in its notes."""
    event.point = CHECK_POINT
    output = str(check.get("output") or "")
    event.add(RULE_FIELD, str(check.get("rule") or ""))
    crashed = check.get("crashed")
    if crashed:
        event.notes.append(f"check crashed: {crashed}")
        event.add(CRASHED_FIELD, str(crashed))
    event.add("check.exit", int(check.get("exit") or 0))
    event.add("check.output", output)
    event.add("check.output_tail", output[-CHECK_OUTPUT_TAIL_CHARS:])
    event.add("check.duration", f"{float(check.get('duration_s') or 0.0):.1f}")
    event.add("check.timed_out", bool(check.get("timed_out")))
