"""Secrets taken out of a finished call's output by its `redact` rules, before anyone keeps it.

See docs/actions.md#redact. Imported only once a `redact` rule fired on an event, so a call no
redact rule matches costs what it did before. The rules' RE2 patterns run in DuckDB, the RE2
that `style validate` checked them with and that matched the rule's condition.

Two things are replaced: the output the client gets back in its own shape (every text in it,
the keys and the shape left as they are), and every field of the event STYLE keeps, so that
neither the model nor STYLE's history (the database, `style audit export`) holds the secret.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentstyle.evaluator.evaluation import Evaluation
from agentstyle.evaluator.records import RedactedRow, RedactRow
from agentstyle.evaluator.statements import read_row, read_rows
from agentstyle.evaluator.store import Connection
from agentstyle.vocabulary import REDACT_SEPARATOR

Replace = Callable[[list[str]], list[str]]
OUTPUT_FIELD = "tool.output"
NOTHING_REDACTED = "nothing-redacted"


def _of_output(field: str) -> bool:
    return field == OUTPUT_FIELD or field.startswith(OUTPUT_FIELD + ".")


def apply_redactions(conn: Connection, evaluations: list[Evaluation]) -> None:
    """For each event a redact rule fired on: its output rebuilt with the matches replaced
    (`decision.redaction.output`) and its field rows replaced alike. A rule whose patterns
    took nothing out tells nothing: its condition held on the output's JSON text, but there
    was nothing to take out of the texts the model reads, or `keep` left every match."""
    fired = [e for e in evaluations if e.decision.redaction is not None]
    wanted = sorted({r for e in fired for r in e.decision.redaction.rules})  # type: ignore[union-attr]
    rows = read_rows(conn, "evaluate/redactions", RedactRow, {"rule_ids": wanted})
    patterns = {r.rule_id: (r.redact_pattern, r.redact_with, r.redact_keep) for r in rows}
    for e in fired:
        redaction = e.decision.redaction
        assert redaction is not None
        rules = [r for r in redaction.rules if r in patterns]
        found: set[str] = set()
        replace = _replacer(conn, [(r, *patterns[r]) for r in rules], found)
        if e.event.output is not None:
            try:
                redaction.output = replaced(e.event.output, replace)
            except RecursionError:  # nested past what can be rebuilt: the notice alone
                redaction.output = None
        ev = e.event
        if redaction.output is not None:
            # the output's rows anew from the replaced output (a pattern run over its JSON
            # text could reach across an escaped newline or quote); the others replaced
            ev.fields = [row for row in ev.fields if not _of_output(row[0])]
        values = replace([v for _f, _i, v in ev.fields])
        ev.fields = [(f, i, v) for (f, i, _old), v in zip(ev.fields, values, strict=True)]
        if redaction.output is not None:
            ev.add_tree(OUTPUT_FIELD, redaction.output)
        _said_nothing(e, [r for r in redaction.rules if r not in found])
        kept = [(r, t) for r, t in zip(redaction.rules, redaction.texts, strict=True) if r in found]
        redaction.rules, redaction.texts = [r for r, _t in kept], [t for _r, t in kept]
        if not kept:
            e.decision.redaction = None


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


def _replacer(
    conn: Connection, rules: list[tuple[str, str, str, str | None]], found: set[str]
) -> Replace:
    """Texts with every rule's pattern replaced (but the matches its `keep` finds in), the
    rules in output order, one statement each; the rules that changed a text are added to
    `found`."""

    def replace(texts: list[str]) -> list[str]:
        for rule_id, patterns, replacement, keep in rules:
            if not texts:
                break
            # `redact.patterns`: each in turn, in the order written (docs/actions.md#redact)
            listed = patterns.split(REDACT_SEPARATOR)
            params = {"texts": texts, "patterns": listed, "replacement": replacement, "keep": keep}
            row = read_row(conn, "evaluate/redact_apply", RedactedRow, params)
            new = [str(t) for t in row.texts] if row is not None else texts
            if new != texts:
                found.add(rule_id)
            texts = new
        return texts

    return replace


def replaced(output: Any, replace: Replace) -> Any:
    """`output` with each text in it replaced, in its own shape: the same keys, list lengths,
    numbers and booleans (what Claude Code needs to take it:
    docs/harnesses/claude-code.md#redact)."""
    texts: list[str] = []
    _collect(output, texts)
    if not texts:
        return output
    new = iter(replace(texts))
    return _rebuild(output, new)


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
    if isinstance(value, str):
        return next(new)
    if isinstance(value, dict):
        return {k: _rebuild(v, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebuild(v, new) for v in value]
    return value
