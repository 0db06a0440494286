"""The statements of `sql/` as the code runs them: parsed once, bound and read by name.

Parsed once per process, their parameters bound by name, their rows read as a named type
(docs/design/storage.md#sql-files).

A statement that returns rows is read through `read_rows` (or `read_row` for one row) with
the NamedTuple its rows are: the fields are the statement's result columns, same names, same
order. The first read of a statement as a type in a process compares the cursor's column
names with the type's fields, and a mismatch is a `ColumnMismatch` that names both; later reads
only build the tuples. So a SELECT whose columns are reordered or renamed fails loudly instead
of handing values to the wrong fields, and a row costs what unpacking it cost before: one
C-level tuple per row, no per-row check (the resident engine reads statements on every event).
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import repeat
from typing import Any, NamedTuple, TypeVar

from agentstyle.duck import duckdb
from agentstyle.sql import statement

Connection = duckdb.DuckDBPyConnection
Row = TypeVar("Row", bound=NamedTuple)
Params = Mapping[str, Any] | None

_PARSED: dict[str, duckdb.Statement] = {}
_PARAMETERS: dict[str, frozenset[str]] = {}  # each parsed statement's `$names`
_CHECKED: set[tuple[str, type]] = set()  # (statement, row type) whose columns agree
_NEW = tuple.__new__  # a NamedTuple from a fetched tuple, with no Python frame per row


class ColumnMismatch(Exception):
    """A statement's result columns are not the fields of the type its rows are read as."""

    def __init__(self, name: str, row: type, columns: tuple[str, ...]) -> None:
        fields: tuple[str, ...] = getattr(row, "_fields", ())
        super().__init__(
            f"sql/{name}.sql returns the columns ({', '.join(columns)}), but its rows are read "
            f"as {row.__name__} ({', '.join(fields)}): the statement's result columns and the "
            "type's fields must be the same names in the same order"
        )
        self.statement = name
        self.columns = columns
        self.fields = fields


def parsed(conn: Connection, name: str) -> duckdb.Statement:
    """The statement of `sql/<area>/<name>.sql` parsed once per process: parsing is a good part
    of a small query's cost, and a parsed statement runs on any connection."""
    found = _PARSED.get(name)
    if found is None:
        [found] = conn.extract_statements(statement(name))
        _PARAMETERS[name] = frozenset(found.named_parameters)
        _PARSED[name] = found
    return found


def execute(conn: Connection, name: str, params: Params = None) -> Connection:
    """Run statement `name` with its `$parameters` bound by name from `params`; a key the
    statement does not name is left out (a report's filters serve many statements)."""
    query = parsed(conn, name)
    if not params:
        return conn.execute(query)
    wanted = _PARAMETERS[name]
    if not params.keys() <= wanted:
        params = {k: v for k, v in params.items() if k in wanted}
    return conn.execute(query, params)


def read_rows(conn: Connection, name: str, row: type[Row], params: Params = None) -> list[Row]:
    """The rows of statement `name`, each a `row`; its columns checked once per process."""
    cursor = execute(conn, name, params)
    if (name, row) not in _CHECKED:
        _check(name, row, cursor)
    return list(map(_NEW, repeat(row), cursor.fetchall()))


def read_row(conn: Connection, name: str, row: type[Row], params: Params = None) -> Row | None:
    """The first row of statement `name` as a `row`, None when it returns none."""
    cursor = execute(conn, name, params)
    if (name, row) not in _CHECKED:
        _check(name, row, cursor)
    found = cursor.fetchone()
    return None if found is None else _NEW(row, found)


def _check(name: str, row: type, cursor: Connection) -> None:
    columns = tuple(str(d[0]) for d in cursor.description or ())
    if columns != getattr(row, "_fields", None):
        raise ColumnMismatch(name, row, columns)
    _CHECKED.add((name, row))
