"""History leaving the database: Parquet export by day, loading exports back, pruning."""

from __future__ import annotations

import datetime as dt
import getpass
import os
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.audit.rows import CountRow, DatabaseSizeRow, ExportDayRow, FileRow
from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.statements import read_row, read_rows
from agentstyle.evaluator.store import (
    Connection,
    DatabaseError,
    memory_store,
    query_rows,
    sql,
    transaction,
)

# (done, total, label) after each step; the CLI draws a progress bar from it.
Progress = Callable[[int, int, str], None]

# History tables, one Parquet file per day each (hits, fields and claims by their event's day,
# sessions by the day they were last seen).
DAY_TABLES = ("events", "hits", "event_fields", "claims", "sessions")
# The day tables that are their events' rows and nothing more: one statement exports each
# (audit/export_by_event.sql); every other table has its own (audit/export_<table>.sql).
BY_EVENT = ("hits", "claims")
# The policy as installed at export time: what the `rules` report needs to find candidates.
POLICY_TABLES = ("packages", "rules", "entries", "rule_tools")
TABLES = DAY_TABLES + POLICY_TABLES
PRUNED = ("claims", "hits", "event_fields", "session_facts", "events", "sessions")


def machine_name() -> str:
    """`user@host`: who recorded the history, kept in every exported row."""
    try:
        user = getpass.getuser()
    except (OSError, KeyError):  # no login name (containers without a passwd entry)
        user = "unknown"
    return f"{user}@{socket.gethostname() or 'unknown'}"


def machine_slug(machine: str) -> str:
    """The machine as exports name it, in the folder and in every row alike (a Parquet engine
    reading the folders as hive partitions then agrees with the rows): `user@host` as it is,
    other characters as `_`."""
    return re.sub(r"[^A-Za-z0-9._@]+", "_", machine).strip("_") or "unknown"


def export_file(out: Path, machine: str, day: dt.date, table: str) -> Path:
    """`OUT/machine=<slug>/date=YYYY-MM-DD/<table>.parquet`: hive partitions by machine and day
    that any Parquet engine reads as columns, one file per table; re-exporting rewrites it."""
    return out / f"machine={machine_slug(machine)}" / f"date={day.isoformat()}" / f"{table}.parquet"


@dataclass(slots=True)
class ExportResult:
    out: Path
    machine: str
    days: list[dt.date] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)


def _day_span(
    day: dt.date, since: dt.datetime | None, until: dt.datetime | None
) -> tuple[dt.datetime, dt.datetime]:
    """A UTC day within the window asked for, as the half-open time span its files hold."""
    start = dt.datetime.combine(day, dt.time())
    end = start + dt.timedelta(days=1)
    return (max(start, since) if since else start), (min(end, until) if until else end)


def export_history(
    conn: Connection,
    out: Path,
    *,
    machine: str | None = None,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    now: dt.datetime | None = None,
    progress: Progress | None = None,
) -> ExportResult:
    """Write the history (and the policy it was recorded under) as Parquet partitioned by
    `machine=<slug>/date=YYYY-MM-DD/`, every row tagged with the machine. Each day's files are
    read through the time and id span of that day alone, so exporting a day costs about the
    same whatever the size of the history (docs/performance.md#a-history-that-stays-fast)."""
    machine = machine_slug(machine or machine_name())
    now = now or dt.datetime.now(dt.UTC).replace(tzinfo=None)
    window = {"since": since, "until": until}
    day_rows = read_rows(conn, "audit/export_days", ExportDayRow, window)
    days: list[dt.date] = [row.day for row in day_rows]
    result = ExportResult(out, machine, days, [], dict.fromkeys(TABLES, 0))
    steps: list[tuple[str, dt.date, dict[str, Any]]] = []
    for row in day_rows:
        start, end = _day_span(row.day, since, until)
        span = {"machine": machine, "start": start, "end": end}
        span |= {"first_id": row.first_id, "last_id": row.last_id}
        day = row.day
        steps += [(table, day, span) for table in DAY_TABLES]
    steps += [
        (table, now.date(), {"machine": machine, "exported_at": now}) for table in POLICY_TABLES
    ]
    for done, (table, day, params) in enumerate(steps, start=1):
        path = export_file(out, machine, day, table)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.partial")
        params = {**params, "path": str(partial)}
        if table in BY_EVENT:
            counted = read_rows(conn, "audit/export_by_event", CountRow, {**params, "table": table})
        else:
            counted = read_rows(conn, f"audit/export_{table}", CountRow, params)
        os.replace(partial, path)
        result.files.append(path)
        result.rows[table] += int(counted[0].Count) if counted else 0
        if progress is not None:
            progress(done, len(steps), f"{table} {day.isoformat()}")
    return result


# An exported file's table: `<table>.parquet` under `machine=…/date=…/`, or, as exports were
# written before the machine partition, `date=…/<table>-<machine>.parquet`; both are read.
_EXPORTED = re.compile(r"^(?P<table>[a-z_]+)(?:-[^\\/]+)?\.parquet$")
_MACHINE_FOLDER = re.compile(r"(?:^|[\\/])machine=([^\\/]+)[\\/]")
_DAY_FOLDER = re.compile(r"(?:^|[\\/])date=(\d{4}-\d{2}-\d{2})[\\/]")


def export_files(
    pattern: str,
    *,
    machine: str | None = None,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
) -> dict[str, list[str]]:
    """The exported Parquet files a glob names, by table (a folder stands for all below it);
    with `machine`, only the files under that machine's folder (or, in the older layout,
    named for it); with `since`/`until`, only the days that can hold the window's history."""
    if "://" not in pattern and Path(pattern).is_dir():
        pattern = str(Path(pattern) / "**" / "*.parquet")
    probe = memory_store()
    try:
        rows = read_rows(probe, "audit/from_glob", FileRow, {"pattern": pattern})
    except DatabaseError as exc:
        raise StyleError(f"cannot list `{pattern}`: {_first_line(exc)}") from None
    finally:
        probe.close()
    wanted = machine_slug(machine) if machine is not None else None
    by_table: dict[str, list[str]] = {}
    for row in rows:
        name = row.file
        base = re.split(r"[\\/]", str(name))[-1]
        m = _EXPORTED.match(base)
        if not m or m.group("table") not in TABLES:
            continue
        if wanted is not None and _machine_of(str(name), base, m.group("table")) != wanted:
            continue
        if not _in_window(str(name), m.group("table"), since, until):
            continue
        by_table.setdefault(m.group("table"), []).append(str(name))
    return by_table


def _in_window(name: str, table: str, since: dt.datetime | None, until: dt.datetime | None) -> bool:
    """Whether a day's file can hold history of the window: an event's rows are in the file of
    its day, a session's in the file of the day it was last seen (on or after any of its
    events); the policy tables, written on the day of the export, are always read."""
    day_folder = _DAY_FOLDER.search(name)
    if table in POLICY_TABLES or day_folder is None:
        return True
    day = dt.date.fromisoformat(day_folder.group(1))
    if since is not None and day < since.date():
        return False
    return table == "sessions" or until is None or dt.datetime.combine(day, dt.time()) < until


def _machine_of(name: str, base: str, table: str) -> str:
    folder = _MACHINE_FOLDER.search(name)
    if folder:
        return folder.group(1)
    return base[len(table) + 1 : -len(".parquet")]  # the older `<table>-<machine>.parquet`


def load_exports(
    pattern: str,
    *,
    machine: str | None = None,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    progress: Progress | None = None,
) -> Connection:
    """An in-memory database holding the exports matching `pattern` (only `machine`'s, and only
    the days of the `since`/`until` window, when given) under the tables' own names, so the
    audit SQL runs over them unchanged: a report over a week of a year of exports loads that
    week. Event ids are renumbered (they repeat across machines); a file exported twice counts
    once."""
    files = export_files(pattern, machine=machine, since=since, until=until)
    if "events" not in files and "rules" not in files:
        which = f" for machine `{machine}`" if machine is not None else ""
        raise StyleError(
            f"no STYLE exports match `{pattern}`{which} (run `style audit export` first)"
        )
    steps: list[tuple[str, dict[str, Any]]] = []
    if "events" in files:
        steps += [
            ("unindexed", {}),
            ("raw_events", {"files": files["events"]}),
            ("event_map", {}),
            ("machine_column", {}),
            ("events", {}),
            ("event_counter", {}),
        ]
        steps += [
            (t, {"files": files[t]}) for t in ("hits", "event_fields", "claims") if t in files
        ]
    if "sessions" in files:
        steps.append(("sessions", {"files": files["sessions"]}))
    if "packages" in files:
        steps.append(("packages", {"files": files["packages"]}))
    if "rules" in files:
        steps += [("raw_rules", {"files": files["rules"]}), ("policy_choice", {}), ("rules", {})]
        steps += [(t, {"files": files[t]}) for t in ("entries", "rule_tools") if t in files]
    conn = memory_store()
    try:
        for done, (step, params) in enumerate(steps, start=1):
            query_rows(conn, sql(f"audit/from_{step}"), params)
            if progress is not None:
                progress(done, len(steps), step)
    except DatabaseError as exc:
        conn.close()
        raise StyleError(f"cannot read the exports `{pattern}`: {_first_line(exc)}") from None
    except BaseException:
        conn.close()
        raise
    return conn


@dataclass(frozen=True, slots=True)
class DatabaseSize:
    """The database file as DuckDB counts it: bytes in the file, and how many of them are free
    for new rows (blocks a prune freed, reused before the file grows again)."""

    file_bytes: int
    free_bytes: int


@dataclass(frozen=True, slots=True)
class PruneResult:
    cutoff: dt.datetime
    deleted: dict[str, int]
    dry_run: bool
    size: DatabaseSize | None = None  # after the prune and its checkpoint (not for a dry run)


def database_size(conn: Connection) -> DatabaseSize:
    row = read_row(conn, "store/database_size", DatabaseSizeRow)
    if row is None or row.path is None:  # an in-memory database has no file
        return DatabaseSize(0, 0)
    return DatabaseSize(Path(row.path).stat().st_size, int(row.block_size) * int(row.free_blocks))


def prune_history(conn: Connection, cutoff: dt.datetime, *, dry_run: bool = False) -> PruneResult:
    """Delete the events older than `cutoff` with their fields, hits and claims, and the
    sessions left without events, in one transaction (rolled back for a dry run); then a
    checkpoint, so the freed blocks take the next rows: pruned regularly, the file stays
    about the size of the history kept (it does not shrink;
    docs/audit.md#pruning-and-the-size-of-the-database)."""
    deleted: dict[str, int] = {}
    with transaction(conn) as tx:
        for table in PRUNED:
            counted = read_rows(conn, f"audit/prune_{table}", CountRow, {"cutoff": cutoff})
            deleted[table] = int(counted[0].Count) if counted else 0
        if dry_run:
            tx.rollback()
    if dry_run:
        return PruneResult(cutoff, deleted, dry_run)
    conn.execute(sql("store/checkpoint"))
    return PruneResult(cutoff, deleted, dry_run, database_size(conn))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
