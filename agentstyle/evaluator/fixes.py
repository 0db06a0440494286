"""A refused shell command rewritten by its rules' `fix`, when the policy lets it through.

The whole policy decides the rewritten command (docs/design/runtime.md#fixes).

The fix is applied to the simple commands the refusing rule matched, not to the line: each
simple command written in the line is evaluated as a call of its own to learn which ones the
rule refuses, the rule's replacement (RE2, the first match) is applied to those, and the line
with every other byte as written is evaluated again. Probes decide without writing anything
and without using a `style allow`: only the real event is recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agentstyle.evaluator.decision import Decision, Fix
from agentstyle.evaluator.evaluate import Held, decide
from agentstyle.evaluator.evaluation import Evaluation
from agentstyle.evaluator.event import Event
from agentstyle.evaluator.records import FixedRow, FixRow
from agentstyle.evaluator.statements import read_row, read_rows
from agentstyle.evaluator.store import Connection

# The normalized event of the same call with another command, and the tool input it carries.
Rebuild = Callable[[str], tuple[Event, dict[str, Any]]]
# A line with more simple commands than this is not probed one by one: no fix is offered.
MAX_PROBED = 16
REFUSING = ("block", "ask")


@dataclass(frozen=True, slots=True)
class Fixing:
    """What fixing one call needs from its harness: the call rebuilt with another command, and
    whether the harness runs a rewritten call (`HarnessAdapter.rewrite_events`)."""

    rebuild: Rebuild
    rewrites: bool


def fixed_by(
    conn: Connection, fixings: Sequence[Fixing | None], held: Held | None = None
) -> Callable[[list[Evaluation]], None]:
    """`evaluate(…, decided=)` that applies the fixes of a batch, one `Fixing` per event."""
    return lambda evaluations: apply_fixes(conn, evaluations, fixings, held)


def apply_fixes(
    conn: Connection,
    evaluations: Sequence[Evaluation],
    fixings: Sequence[Fixing | None],
    held: Held | None = None,
) -> None:
    """`apply_fix` for each call of a decided batch, one `Fixing` (or None) per call."""
    for evaluation, fixing in zip(evaluations, fixings, strict=True):
        apply_fix(conn, evaluation, fixing, held)


def fix_rows(conn: Connection, held: Held | None) -> dict[str, tuple[str, str]]:
    """rule id → (pattern, replacement) of every rule with a fix; a resident engine reads
    them once."""
    if held is not None and held.fixes is not None:
        return held.fixes
    rows = {
        str(f.rule_id): (str(f.fix_pattern), str(f.fix_template))
        for f in read_rows(conn, "evaluate/fixes", FixRow)
    }
    if held is not None:
        held.fixes = rows
    return rows


def apply_fix(
    conn: Connection, evaluation: Evaluation, fixing: Fixing | None, held: Held | None = None
) -> None:
    """A refused shell call that a fix turns into one the policy allows gets its new decision,
    and the fixing rules the outcome `fixed`; otherwise (no `fixing`, no refusal, no fix
    applies, or the fixed command is refused too) nothing changes. Where the harness runs a
    rewritten call (`Fixing.rewrites`) the decision allows it with the new tool input;
    otherwise the refusal stays and names the command to run instead."""
    if fixing is None or evaluation.decision.verdict != "block":
        return
    fixed = fixed_decision(conn, evaluation, fixing.rebuild, fixing.rewrites, held)
    if fixed is None or fixed.fix is None:
        return
    evaluation.decision = fixed
    if fixed.fix.applied:
        for cand in evaluation.candidates:
            if cand.rule_id in fixed.fix.rules and cand.outcome == "blocked":
                cand.outcome = "fixed"


def fixed_decision(
    conn: Connection,
    evaluation: Evaluation,
    rebuild: Rebuild,
    rewrites: bool,
    held: Held | None = None,
) -> Decision | None:
    """The decision `apply_fix` gives a refused call, or None."""
    decision = evaluation.decision
    event = evaluation.event
    if event.point != "tool.pre" or event.tool != "shell":
        return None
    fixes = fix_rows(conn, held)
    fixers = [r for r in decision.rules if r in fixes]
    commands = event.values("tool.input.command")
    if not fixers or len(commands) != 1:
        return None
    original = commands[0]
    from agentstyle.shell.spans import simple_command_spans

    spans = simple_command_spans(original)
    if not spans or len(spans) > MAX_PROBED:
        return None
    matched: dict[tuple[int, int], list[str]] = {}
    for span in spans:
        probe = _probe(conn, rebuild(original[span[0] : span[1]])[0], held)
        hit = [r for r in fixers if r in probe.rules]
        if hit:
            matched[span] = hit
    # Where a command inside another (`$(…)`) is what the rule refuses, only that one is fixed.
    inner = [
        s for s in matched if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in matched)
    ]
    fixed = original
    for start, end in sorted(inner, reverse=True):
        text = original[start:end]
        for rule in matched[(start, end)]:
            pattern, template = fixes[rule]
            text = _replace(conn, text, pattern, template)
        fixed = fixed[:start] + text + fixed[end:]
    if fixed == original:
        return None
    event_fixed, tool_input = rebuild(fixed)
    if _probe(conn, event_fixed, held).verdict in REFUSING:
        return None
    used = [r for r in fixers if any(r in matched[span] for span in inner)]
    event.add("fix.command", fixed)
    if rewrites:
        why = " ".join(decision.reasons)
        return Decision(
            verdict="allow",
            reasons=[
                f"STYLE fixed the command: `{fixed}` runs instead of `{original}`. {why}".strip()
            ],
            contexts=[
                f"STYLE rewrote your command to `{fixed}` (rule {', '.join(used)}); that is "
                f"what runs. {why}".strip()
            ],
            rules=used,
            fix=Fix(original, fixed, used, dict(tool_input)),
        )
    return replace(
        decision,
        reasons=[*decision.reasons, f"Run this instead: `{fixed}`"],
        fix=Fix(original, fixed, used),
    )


def _probe(conn: Connection, event: Event, held: Held | None) -> Decision:
    [probe] = decide(conn, [event], held=held, allowances=False)
    return probe.decision


def _replace(conn: Connection, text: str, pattern: str, template: str) -> str:
    """`text` with the first match of the RE2 `pattern` replaced, as validation checked it."""
    params = {"text": text, "pattern": pattern, "template": template}
    row = read_row(conn, "evaluate/fix_apply", FixedRow, params)
    return str(row.fixed) if row is not None else text
