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

Replace = Callable[[list[str]], list[str]]


def apply_redactions(conn: Connection, evaluations: list[Evaluation]) -> None:
    """For each event a redact rule fired on: its output rebuilt with the matches replaced
    (`decision.redaction.output`) and its field rows replaced alike."""
    fired = [e for e in evaluations if e.decision.redaction is not None]
    wanted = sorted({r for e in fired for r in e.decision.redaction.rules})  # type: ignore[union-attr]
    rows = read_rows(conn, "evaluate/redactions", RedactRow, {"rule_ids": wanted})
    patterns = {str(r.rule_id): (str(r.redact_pattern), str(r.redact_with)) for r in rows}
    for e in fired:
        redaction = e.decision.redaction
        assert redaction is not None
        pairs = [patterns[r] for r in redaction.rules if r in patterns]
        replace = _replacer(conn, pairs)
        if e.event.output is not None:
            try:
                redaction.output = replaced(e.event.output, replace)
            except RecursionError:  # nested past what can be rebuilt: the notice alone
                redaction.output = None
        ev = e.event
        values = replace([v for _f, _i, v in ev.fields])
        ev.fields = [(f, i, v) for (f, i, _old), v in zip(ev.fields, values, strict=True)]


def _replacer(conn: Connection, pairs: list[tuple[str, str]]) -> Replace:
    """Texts with every rule's pattern replaced, the rules in output order, one statement each."""

    def replace(texts: list[str]) -> list[str]:
        for pattern, replacement in pairs:
            if not texts:
                break
            params = {"texts": texts, "pattern": pattern, "replacement": replacement}
            row = read_row(conn, "evaluate/redact_apply", RedactedRow, params)
            texts = [str(t) for t in row.texts] if row is not None else texts
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
