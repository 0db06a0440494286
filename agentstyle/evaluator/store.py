"""The DuckDB rules database: opened under the OS lock, migrated, SQL loaded from `.sql` files."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from agentstyle.diagnostics import StyleError
from agentstyle.duck import duckdb
from agentstyle.evaluator.locking import FileLock
from agentstyle.evaluator.paths import StylePaths, ensure_home, tighten
from agentstyle.evaluator.statements import execute, read_row
from agentstyle.sql import statement
from agentstyle.vocabulary import TOOLS

if TYPE_CHECKING:
    from agentstyle.policy.rows import PolicyRows

Connection = duckdb.DuckDBPyConnection
_MIGRATION = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


sql = statement  # the loader every query module uses, re-exported beside the connection


class SchemaVersion(NamedTuple):
    """store/schema_version.sql"""

    version: int | None


@cache
def migrations() -> tuple[tuple[int, str], ...]:
    folder = resources.files("agentstyle.sql").joinpath("schema")
    found = []
    for entry in folder.iterdir():
        m = _MIGRATION.match(entry.name)
        if m:
            found.append((int(m.group(1)), entry.read_text("utf-8")))
    return tuple(sorted(found))


@cache
def latest_version() -> int:
    """The newest migration's number, from the file names alone (every direct hook asks)."""
    folder = resources.files("agentstyle.sql").joinpath("schema")
    return max(int(m.group(1)) for e in folder.iterdir() if (m := _MIGRATION.match(e.name)))


def version_of(conn: Connection) -> int:
    """The version the database is at, 0 for a file never migrated. One read of the table:
    every direct hook checks it, and asking the catalog whether the table exists cost four
    times as much (11-14 ms of a hook's CPU)."""
    try:
        row = read_row(conn, "store/schema_version", SchemaVersion)
    except (duckdb.CatalogException, duckdb.InvalidInputException):
        # no such table (a new file); the second is DuckDB looking for a Python object of
        # the table's name among the callers' variables instead
        return 0
    return int(row.version) if row is not None and row.version is not None else 0


def migrate(conn: Connection) -> None:
    """Bring the schema to the latest version; a newer file is refused, not touched."""
    current = version_of(conn)
    latest = latest_version()
    if current > latest:
        raise StyleError(
            f"the rules database has schema version {current}, newer than this STYLE "
            f"understands ({latest}); upgrade agentstyle"
        )
    if current == latest:
        return
    with transaction(conn):
        for version, text in migrations():
            if version > current:
                conn.execute(text)
                execute(conn, "store/record_migration", {"version": version})
        if 0 < current < INDEX_VERSION:
            # a policy installed before the index existed gets one now (a new database has no
            # policy to index: every in-memory store and first install is one)
            index_policy(conn)


def connect(path: Path | str, *, read_only: bool = False) -> Connection:
    """The database at `path`; a FIFO, a folder or a device in its (or its WAL's) place is an
    IOException before DuckDB opens it, never a wait for a writer."""
    from agentstyle.folders import not_regular

    for name in (str(path), f"{path}.wal"):
        what = not_regular(name)
        if what is not None:
            raise duckdb.IOException(f"{name} is {what}, not a database file")
    return duckdb.connect(str(path), read_only=read_only)


def tune_for_events(conn: Connection) -> None:
    """Settings for a connection that evaluates hook events: one thread, as an event's plans
    are too small to share (it saves the workers' start and hand-offs; bench/RESULTS.md), and
    without two optimizer passes that cost more than they save on them (small_plans.sql)."""
    conn.execute(sql("store/one_thread"))
    conn.execute(sql("store/small_plans"))


def _connect_store(paths: StylePaths, *, read_only: bool = False) -> Connection:
    """The project's database for a command: one that cannot be opened is a clear error."""
    try:
        return connect(paths.database, read_only=read_only)
    except (duckdb.IOException, duckdb.SerializationException, duckdb.InternalException) as exc:
        # the cause as the hooks report it, never DuckDB's own text
        # (docs/design/storage.md#concurrency-protocol)
        raise StyleError(
            f"the rules database could not be read ({type(exc).__name__})",
            hint=f"move {paths.database} away (its history goes with it) and run `style sync`",
        ) from None


@contextmanager
def open_store(
    paths: StylePaths, *, deadline: float | None = None, create: bool = True
) -> Iterator[Connection]:
    """The database under the OS lock; closed before the lock is released
    (docs/design/runtime.md#lock-order)."""
    if deadline is None:
        deadline = time.monotonic() + 30.0
    if not create and not paths.database.exists():
        raise StyleError(f"no rules database at {paths.database}; run `style install` first")
    if create:  # a command that only reads or edits history writes nothing new into .style/
        ensure_home(paths)
    with FileLock(paths.lock, deadline):
        conn = _connect_store(paths)
        for path in (paths.database, paths.database.with_name(paths.database.name + ".wal")):
            tighten(path)
        try:
            migrate(conn)
            yield conn
        finally:
            conn.close()


def memory_store() -> Connection:
    """A migrated in-memory database (explain, test and replay never touch the project's)."""
    conn = duckdb.connect(":memory:")
    migrate(conn)
    return conn


def by_name(fields: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> dict[str, list[Any]]:
    """Rows (NamedTuples with these `fields`) as one list per field, keyed by the field's name:
    what a statement binds by name, as its `$field` parameters or one struct (its columns)."""
    if not rows:
        return {name: [] for name in fields}
    return dict(zip(fields, map(list, zip(*rows, strict=True)), strict=True))


def insert_rows(
    conn: Connection, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]
) -> None:
    """Store a policy table's rows (policy/rows.py) through `policy/insert_<table>.sql`, which
    matches their fields to its `columns` by name."""
    if rows:
        execute(conn, f"policy/insert_{table}", {"rows": by_name(columns, rows)})


# The evaluation index (schema 005) is derived from the policy tables by these statements, in
# order, inside the transaction that stores a policy; a database older than INDEX_VERSION
# (006 added point_flags.history; 008 the second prefilter, found when a policy is lowered,
# so only a policy installed again has it) has it derived again when migrated.
INDEX_VERSION = 6
INDEX_STATEMENTS = (
    "policy/clear_index",
    "policy/index_placed",
    "policy/index_match_rows",
    "policy/index_point_flags",
    "policy/index_field_patterns",
    "policy/index_command_rows",
)


def index_policy(conn: Connection) -> None:
    """Derive the evaluation index from the policy tables again, inside the caller's
    transaction (after a policy is stored or part of it dropped)."""
    for name in INDEX_STATEMENTS:
        if name == "policy/index_match_rows":
            execute(conn, name, {"tools": list(TOOLS)})
        else:
            conn.execute(sql(name))


def replace_policy(conn: Connection, rows: PolicyRows) -> None:
    """Swap the whole installed policy in one transaction: hooks see old or new, never a mix."""
    with transaction(conn):
        conn.execute(sql("policy/clear"))
        for table, columns, table_rows in rows.tables():
            insert_rows(conn, table, columns, table_rows)
        index_policy(conn)


# -- audit: read-only opening, named-parameter queries, statement kinds ------------------------

DatabaseError = duckdb.Error
_NAMED_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@contextmanager
def open_store_read_only(
    paths: StylePaths, *, deadline: float | None = None
) -> Iterator[Connection]:
    """The database opened read-only under the OS lock (audit); an older schema is migrated
    first through a short read-write open, a newer one refused."""
    if deadline is None:
        deadline = time.monotonic() + 30.0
    if not paths.database.exists():
        raise StyleError(f"no rules database at {paths.database}; run `style install` first")
    with FileLock(paths.lock, deadline):
        conn = _connect_store(paths, read_only=True)
        try:
            try:
                migrate(conn)
            except duckdb.Error:  # an older schema: migrating needs a writable open
                conn.close()
                writable = connect(paths.database)
                try:
                    migrate(writable)
                finally:
                    writable.close()
                conn = connect(paths.database, read_only=True)
            yield conn
        finally:
            conn.close()


def query_rows(
    conn: Connection, query: str, params: dict[str, Any] | None = None
) -> tuple[list[str], list[str], list[tuple[Any, ...]]]:
    """Run one statement with named `$parameters` bound from `params` (keys the statement does
    not name are left out); return column names, DuckDB type names and the rows."""
    named = set(_NAMED_PARAM.findall(query))
    bound = {k: v for k, v in (params or {}).items() if k in named}
    cur = conn.execute(query, bound) if bound else conn.execute(query)
    description = cur.description or []
    names = [str(d[0]) for d in description]
    types = [str(d[1]) for d in description]
    rows: list[tuple[Any, ...]] = cur.fetchall() if description else []
    return names, types, rows


def statement_kinds(conn: Connection, query: str) -> list[str]:
    """The kind of each statement in `query` (`SELECT`, `INSERT`, `PRAGMA`, …), parsed only."""
    return [str(s.type.name) for s in conn.extract_statements(query)]


# -- transactions: every BEGIN, COMMIT and ROLLBACK of the package is here -------------------


def begin(conn: Connection) -> None:
    """Begin a transaction that no block of code spans: the resident engine's event, begun
    before its answer and committed after the answer went out (runtime/direct.py). Elsewhere
    a `with` block says where it ends: `transaction`, `rolled_back`."""
    conn.execute("BEGIN TRANSACTION")


def commit(conn: Connection) -> None:
    conn.execute("COMMIT")


def rollback(conn: Connection) -> None:
    conn.execute("ROLLBACK")


class Transaction:
    """The transaction of a `transaction` block: ended by the block, or once before it ends by
    `rollback()` (what the block did is then undone, and the block's end commits nothing)."""

    __slots__ = ("conn", "open")

    def __init__(self, conn: Connection) -> None:
        begin(conn)
        self.conn = conn
        self.open = True

    def commit(self) -> None:
        if self.open:
            self.open = False
            commit(self.conn)

    def rollback(self) -> None:
        if self.open:
            self.open = False
            rollback(self.conn)


@contextmanager
def transaction(conn: Connection) -> Iterator[Transaction]:
    """One transaction: committed when the block ends, rolled back when it raises (or when the
    block calls its `rollback()`)."""
    tx = Transaction(conn)
    try:
        yield tx
    except BaseException:
        tx.rollback()
        raise
    tx.commit()


@contextmanager
def rolled_back(conn: Connection) -> Iterator[Connection]:
    """A transaction always rolled back: what runs in it leaves nothing behind (explain reads
    an event's outcome without recording it or using up an allowance)."""
    begin(conn)
    try:
        yield conn
    finally:
        rollback(conn)
