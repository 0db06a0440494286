"""Small read-only looks at the history (the full reports are `style audit`)."""

from __future__ import annotations

from pathlib import Path

from agentstyle.audit.rows import OutcomeCountRow
from agentstyle.evaluator.paths import StylePaths
from agentstyle.evaluator.statements import read_rows
from agentstyle.evaluator.store import open_store
from agentstyle.runtime.client import stop_engine


def outcomes_by_rule(root: Path) -> list[OutcomeCountRow]:
    paths = StylePaths(root)
    # A resident engine holds the database for its lifetime: ask it to go first
    # (docs/design/storage.md#who-stops-the-engine).
    stop_engine(str(paths.home))
    with open_store(paths, create=False) as conn:
        return read_rows(conn, "audit/outcomes_by_rule", OutcomeCountRow)
