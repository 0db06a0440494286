"""Secrets taken out of a finished call's output by its `redact` rules, before anyone keeps it.

See docs/actions.md#redact. Imported only once a `redact` rule fired on an event, so a call no
redact rule matches costs what it did before. The rules' RE2 patterns run in DuckDB, the RE2
that `style validate` checked them with and that matched the rule's condition.

Two things are replaced: the output the client gets back in its own shape (every text in it,
the keys and the shape left as they are), and every field of the event STYLE keeps, so that
neither the model nor STYLE's history (the database, `style audit export`) holds the secret.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from agentstyle.evaluator.evaluation import Evaluation
from agentstyle.evaluator.records import RedactRow, RedactStep
from agentstyle.evaluator.statements import read_rows
from agentstyle.evaluator.store import Connection
from agentstyle.vocabulary import REDACT_SEPARATOR

OUTPUT_FIELD = "tool.output"
NOTHING_REDACTED = "nothing-redacted"


def _of_output(field: str) -> bool:
    return field == OUTPUT_FIELD or field.startswith(OUTPUT_FIELD + ".")


def apply_redactions(conn: Connection, evaluations: list[Evaluation]) -> None:
    """For each event a redact rule fired on: its output rebuilt with the matches replaced
    (`decision.redaction.output`) and its field rows replaced alike, in one statement. A rule
    whose patterns took nothing out tells nothing: its condition held on the output's JSON
    text, but there was nothing to take out of the texts the model reads, or `keep` left every
    match."""
    fired = [e for e in evaluations if e.decision.redaction is not None]
    wanted = sorted({r for e in fired for r in e.decision.redaction.rules})  # type: ignore[union-attr]
    by_rule = {
        r.rule_id: r
        for r in read_rows(conn, "evaluate/redactions", RedactRow, {"rule_ids": wanted})
    }
    for e in fired:
        redaction = e.decision.redaction
        assert redaction is not None
        ev = e.event
        output_texts = _texts_of(ev.output)
        # the output's rows anew from the replaced output (a pattern run over its JSON text
        # could reach across an escaped newline or quote); the other rows replaced
        rows = ev.fields if output_texts is None else [f for f in ev.fields if not _of_output(f[0])]
        own = len(output_texts or [])
        rules = [by_rule[r] for r in redaction.rules if r in by_rule]
        texts, found = _redacted(conn, rules, [*(output_texts or []), *(v for _f, _i, v in rows)])
        ev.fields = [(f, i, v) for (f, i, _old), v in zip(rows, texts[own:], strict=True)]
        if output_texts is not None:
            redaction.output = _rebuild(ev.output, iter(texts[:own]))
            ev.add_tree(OUTPUT_FIELD, redaction.output)
        _said_nothing(e, [r for r in redaction.rules if r not in found])
        kept = [(r, t) for r, t in zip(redaction.rules, redaction.texts, strict=True) if r in found]
        redaction.rules, redaction.texts = [r for r, _t in kept], [t for _r, t in kept]
        if not kept:
            e.decision.redaction = None


def _texts_of(output: Any) -> list[str] | None:
    """Every text in the call's output, in order; None where there is no output or it is
    nested past what can be rebuilt (the client then gets the notice alone)."""
    if output is None:
        return None
    texts: list[str] = []
    try:
        _collect(output, texts)
    except RecursionError:
        return None
    return texts


def _redacted(
    conn: Connection, rules: list[RedactRow], texts: list[str]
) -> tuple[list[str], set[str]]:
    """`texts` with every rule's patterns replaced (but the matches its `keep` finds in), the
    rules in the order they fired and each one's patterns as written (`redact.patterns`), and
    the rules that changed a text."""
    owners: list[str] = []
    params: dict[str, list[Any]] = {"texts": texts, "patterns": [], "replacements": [], "keeps": []}
    for rule in rules:
        for pattern in rule.redact_pattern.split(REDACT_SEPARATOR):
            owners.append(rule.rule_id)
            params["patterns"].append(pattern)
            params["replacements"].append(rule.redact_with)
            params["keeps"].append(rule.redact_keep)
    if not texts or not owners:
        return texts, set()
    steps = read_rows(conn, "evaluate/redact_apply", RedactStep, params)
    found = {owners[now.step - 1] for before, now in pairwise(steps) if now.texts != before.texts}
    return [str(t) for t in steps[-1].texts], found


def _said_nothing(evaluation: Evaluation, rule_ids: list[str]) -> None:
    """Rules whose condition held but whose patterns took nothing out (every match kept by
    `keep`, or the match in the output's JSON text alone): not among the rules that produced
    the answer, and recorded as `nothing-redacted`, not as a firing (docs/actions.md#outcomes)."""
    if not rule_ids:
        return
    evaluation.decision.rules = [r for r in evaluation.decision.rules if r not in rule_ids]
    for cand in evaluation.candidates:
        if cand.rule_id in rule_ids and cand.action == "redact":
            cand.outcome = NOTHING_REDACTED


def _collect(value: Any, into: list[str]) -> None:
    if isinstance(value, str):
        into.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, into)
    elif isinstance(value, list):
        for item in value:
            _collect(item, into)


def _rebuild(value: Any, new: Any) -> Any:
    """`value` with each text taken in turn from `new`, in its own shape: the same keys, list
    lengths, numbers and booleans (what Claude Code needs to take it:
    docs/harnesses/claude-code.md#redact)."""
    if isinstance(value, str):
        return next(new)
    if isinstance(value, dict):
        return {k: _rebuild(v, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebuild(v, new) for v in value]
    return value
