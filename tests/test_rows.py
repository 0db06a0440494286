"""Rows are bound by name: each row class's fields are its table's columns, or its statement's
parameters, and what is stored reads back field for field."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from agentstyle.evaluator import records
from agentstyle.evaluator.compiled import compile_checked
from agentstyle.evaluator.store import (
    Connection,
    DatabaseError,
    by_name,
    insert_rows,
    memory_store,
    replace_policy,
    sql,
)
from agentstyle.install.library import bundled
from agentstyle.policy.rows import POLICY_TABLES, ROW_TYPES, PolicyRows
from tests.support.packages import package_text


def columns(conn: Connection, table: str) -> list[str]:
    return [str(row[0]) for row in conn.execute(f"DESCRIBE {table}").fetchall()]


@pytest.fixture(scope="module")
def conn() -> Any:
    conn = memory_store()
    yield conn
    conn.close()


def test_every_policy_table_has_a_row_class() -> None:
    assert set(ROW_TYPES) == set(POLICY_TABLES)


@pytest.mark.parametrize("table", POLICY_TABLES)
def test_a_policy_row_class_names_its_table_columns_in_order(conn: Connection, table: str) -> None:
    assert list(ROW_TYPES[table]._fields) == columns(conn, table)


# The two-level rows of a command condition (policy/lowercommands.py lower_command) are for what
# cannot be inlined: a package beside the library has one, so that every table is exercised.
TWO_LEVEL = package_text(
    "two-level",
    """
- id: push-without-tests
  target: tool
  tool: shell
  action: ask
  when: 'command "git push" and not command ["pytest", "cargo test"]'
  text: Run the tests before you push.
- id: reads-nothing-secret
  target: tool
  tool: shell
  action: warn
  when: 'command "cat" where (not reads glob "**/.env*")'
  text: Fine.
""",
    description="a command condition under a not, and one of a role negated alone",
)


def test_the_bundled_packages_read_back_field_for_field(tmp_path: Path) -> None:
    """Every column of every policy table, stored by name from the rows of all the bundled
    packages (lists, NULLs, booleans and numbers among them), reads back as it was lowered."""
    (tmp_path / "two-level").mkdir()
    (tmp_path / "two-level" / "STYLE.yaml").write_text(TWO_LEVEL, encoding="utf-8")
    packages = [str(b.path) for b in bundled()] + [str(tmp_path / "two-level")]
    compiled = compile_checked(packages, ["claude-code", "codex"])
    conn = memory_store()
    try:
        replace_policy(conn, compiled.rows)
        for table, names, rows in compiled.rows.tables():
            assert rows, table  # the library exercises every table
            stored = conn.execute(f"SELECT {', '.join(names)} FROM {table}").fetchall()
            assert sorted(stored, key=repr) == sorted(map(tuple, rows), key=repr), table
    finally:
        conn.close()


def test_a_row_class_that_drifts_from_its_table_fails_to_store() -> None:
    """A field the table does not have is refused by name, not stored in another column."""
    from typing import NamedTuple

    class Drifted(NamedTuple):
        package: str
        name: str
        valu: str  # misspelt

    conn = memory_store()
    try:
        with pytest.raises(DatabaseError, match="valu"):
            insert_rows(conn, "settings", Drifted._fields, [Drifted("p", "n", "v")])
    finally:
        conn.close()


def test_by_name_keeps_every_field_of_no_rows() -> None:
    assert by_name(("a", "b"), []) == {"a": [], "b": []}
    assert by_name(("a", "b"), [(1, "x"), (2, "y")]) == {"a": [1, 2], "b": ["x", "y"]}


def test_policy_rows_list_the_tables_in_storing_order() -> None:
    assert [t for t, _c, _r in PolicyRows().tables()] == list(POLICY_TABLES)


# The history tables the evaluator's rows fill, column for field.
HISTORY_TABLES = {
    records.EventRow: "events",
    records.SessionRow: "sessions",
    records.HitRow: "hits",
    records.ClaimRow: "claims",
    records.FieldRow: "event_fields",
    records.FactRow: "session_facts",
    records.AllowanceUse: "allowance_uses",
}
_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def parameters(name: str) -> set[str]:
    """The `$name` parameters a statement binds (its header comment left out)."""
    code = "\n".join(line.split("--", 1)[0] for line in sql(name).splitlines())
    return set(_PARAMETER.findall(code))


@pytest.mark.parametrize("name", sorted(records.BOUND))
def test_a_statement_binds_its_row_class_fields_by_name(name: str) -> None:
    assert parameters(name) == set(records.BOUND[name]._fields)
    assert not re.search(r"\$[0-9]", sql(name))  # nothing bound by position


@pytest.mark.parametrize("row", list(HISTORY_TABLES), ids=lambda r: r.__name__)
def test_a_history_row_class_names_its_table_columns_in_order(
    conn: Connection, row: type[Any]
) -> None:
    assert list(row._fields) == columns(conn, HISTORY_TABLES[row])


def test_an_allowance_row_names_every_column_but_the_two_the_statement_fills(
    conn: Connection,
) -> None:
    table = columns(conn, "allowances")
    assert [c for c in table if c not in ("allowance_id", "uses")] == list(
        records.AllowanceRow._fields
    )
