"""`style explain`: one payload through the real evaluator, traced, with history rolled back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agentstyle.evaluator.decision import Wire
from agentstyle.evaluator.evaluate import decide
from agentstyle.evaluator.evaluation import Candidate, Evaluation
from agentstyle.evaluator.fixes import Fixing, apply_fix
from agentstyle.evaluator.records import RuleExceptionRow, RuleLayerRow
from agentstyle.evaluator.statements import read_rows
from agentstyle.evaluator.store import Connection, rolled_back


@dataclass(slots=True)
class Explained:
    evaluation: Evaluation
    wire: Wire
    lines: list[str]


def rule_layers(conn: Connection) -> dict[str, str]:
    """rule id → its layer, for the rules not of the project's own policy."""
    rows = read_rows(conn, "policy/rule_layers", RuleLayerRow)
    return {str(r.rule_id): str(r.layer) for r in rows}


def rule_exceptions(conn: Connection) -> dict[str, list[str]]:
    """rule id → where it is narrowed: `package: reason` (docs/packages.md#exceptions)."""
    out: dict[str, list[str]] = {}
    for r in read_rows(conn, "policy/rule_exceptions", RuleExceptionRow):
        out.setdefault(str(r.rule_id), []).append(f"{r.package}: {r.reason}")
    return out


def _model_lines(conn: Connection, event: Any) -> list[str]:
    """The command model of a shell call, a line per simple command (docs/design/commands.md)."""
    from agentstyle.commands.model import describe
    from agentstyle.evaluator.commandrows import commands_of, programs_in
    from agentstyle.evaluator.evaluate import catalog_of

    catalog = catalog_of(conn, programs_in([event]))
    return [f"#{n} {describe(c)}" for n, c in enumerate(commands_of(event, catalog), start=1)]


def _trace(cand: Candidate, point: str | None, layer: str | None = None) -> str:
    """One trace line (docs/commands.md#style-explain): `entry "pkg/rule@point" ... block=… repeat=…
    output=…`."""
    name = f'entry "{cand.rule_id}@{point}"'
    # a check rule whose event part held (`check-due`) matched: it starts its check
    matched = cand.matched or cand.outcome == "check-due"
    head = f"{name} status={cand.status} action={cand.action} match={str(matched).lower()}"
    if layer is not None:  # another layer's rule (a project's own say nothing: the common case)
        head += f" layer={layer}"
    if cand.tokens:
        head += f" tokens={cand.tokens}"
    if cand.outcome == "check-due":  # its event part held: its check starts, it says nothing
        return f"{head} block=none repeat=not-evaluated output=check-due"
    if not cand.matched:
        return f"{head} block=none repeat=not-evaluated output=not-matched"
    outcome = cand.outcome or "error"
    if outcome == "blocked":
        block, repeat, output = "blocked", "repeat-bypass", "blocked"
    elif outcome == "fixed":
        block, repeat, output = "fixed", "repeat-bypass", "fixed"
    elif outcome == "block-suppressed":
        block, repeat, output = "block-precedence", "not-evaluated", "not-evaluated"
    elif outcome in ("asked", "allowed"):
        block, repeat, output = "none", "repeat-bypass", outcome
    elif outcome == "loop-guard":
        block, repeat, output = "none", "loop-guard", "suppressed"
    elif outcome == "dedup-suppressed":
        block, repeat, output = "none", f"{cand.repeat}-duplicate", "suppressed"
    elif outcome == "error":
        block, repeat, output = "none", "not-evaluated", f"error({cand.error or 'unknown'})"
    else:
        block = "none"
        repeat = "every" if cand.repeat in (None, "every") else f"{cand.repeat}-claimed"
        output = {
            "emitted": "emitted",
            "budget-truncated": "truncated",
            "budget-dropped": "dropped",
        }.get(outcome, outcome)
    return f"{head} block={block} repeat={repeat} output={output}"


# A check's result as `explain` shows it (docs/commands.md#style-explain), in this order.
_CHECK_SHOWN = ("check.rule", "check.exit", "check.duration", "check.timed_out", "check.crashed")


def _check_line(event: Any) -> str:
    """`check rule="pkg/id" exit=1 duration=0.4 timed_out=false output_tail="…"`: the fields
    a check's result carries (crashed only where it did)."""
    parts = []
    for name in _CHECK_SHOWN:
        values = event.values(name)
        if values:
            parts.append(f"{name[6:]}={json.dumps(values[0], ensure_ascii=False)}")
    tail = (event.first("check.output_tail") or "")[-200:]
    parts.append(f"output_tail={json.dumps(tail, ensure_ascii=False)}")
    return "check " + " ".join(parts)


def explain_event(
    conn: Connection, event: Any, answer: Any, fixing: Fixing | None = None
) -> Explained:
    """Decide inside a transaction that is rolled back: history is never touched (the event is
    not recorded, and an allowance it would use is not used up). `fixing`: how a refused shell
    call is rebuilt for its rules' fixes."""
    with rolled_back(conn):
        [evaluation] = decide(conn, [event], trace=True)
        apply_fix(conn, evaluation, fixing)
    wire: Wire = answer(evaluation.decision, event.native_event, event)
    lines = [
        f"event {event.harness} {event.native_event} point={event.point} "
        f"tool={event.tool or '-'} session={event.session_id}"
    ]
    commands = event.values("shell.commands")
    incomplete = [n for n in event.notes if n.startswith("shell-incomplete")]
    if commands or event.values("shell.code") or incomplete:
        flag = f" ({incomplete[0]})" if incomplete else ""
        lines.append(f"shell commands={json.dumps(commands, ensure_ascii=False)}{flag}")
        for code in event.values("shell.code"):
            lines.append(f"shell code={json.dumps(code[:200], ensure_ascii=False)}")
        dynamic = event.values("shell.dynamic")
        if dynamic:
            lines.append(f"shell dynamic={json.dumps(dynamic, ensure_ascii=False)}")
        lines.extend(_model_lines(conn, event))
    if event.values("check.exit"):
        lines.append(_check_line(event))
    if not evaluation.candidates:
        lines.append("no candidate entries for this event")
    layers = rule_layers(conn) if evaluation.candidates else {}
    exceptions = rule_exceptions(conn) if any(c.excepted for c in evaluation.candidates) else {}
    for cand in evaluation.candidates:
        line = _trace(cand, event.point, layers.get(cand.rule_id))
        if cand.excepted:
            line += " excepted=" + json.dumps(
                "; ".join(exceptions.get(cand.rule_id, [])), ensure_ascii=False
            )
        lines.append(line)
    fix = evaluation.decision.fix
    if fix is not None:
        how = "rewritten" if fix.applied else "named in the refusal"
        lines.append(
            f"fix {how} by {','.join(fix.rules)}: "
            f"{json.dumps(fix.original, ensure_ascii=False)} -> "
            f"{json.dumps(fix.command, ensure_ascii=False)}"
        )
    lines.append(f"wire stdout={json.dumps(wire.stdout, ensure_ascii=False)}")
    lines.append(f"wire exit={wire.exit_code}")
    return Explained(evaluation, wire, lines)
