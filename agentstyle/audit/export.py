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

from agentstyle.diagnostics import StyleError
from agentstyle.engine.store import (
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


def _slug(machine: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@]+", "_", machine).strip("_") or "unknown"


def export_file(out: Path, day: dt.date, table: str, machine: str) -> Path:
    """`OUT/date=YYYY-MM-DD/<table>-<machine>.parquet`: re-exporting rewrites the same file."""
    return out / f"date={day.isoformat()}" / f"{table}-{_slug(machine)}.parquet"


@dataclass(slots=True)
class ExportResult:
    out: Path
    machine: str
    days: list[dt.date] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)


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
    `date=YYYY-MM-DD/`, every row tagged with the machine."""
    machine = machine or machine_name()
    now = now or dt.datetime.now(dt.UTC).replace(tzinfo=None)
    window = {"since": since, "until": until}
    _, _, day_rows = query_rows(conn, sql("audit/export_days"), window)
    days: list[dt.date] = [row[0] for row in day_rows]
    result = ExportResult(out, machine, days, [], dict.fromkeys(TABLES, 0))
    steps: list[tuple[str, dt.date, dict[str, Any]]] = [
        (table, day, {**window, "machine": machine, "day": day})
        for day in days
        for table in DAY_TABLES
    ]
    steps += [
        (table, now.date(), {"machine": machine, "exported_at": now}) for table in POLICY_TABLES
    ]
    for done, (table, day, params) in enumerate(steps, start=1):
        path = export_file(out, day, table, machine)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.partial")
        _, _, counted = query_rows(
            conn, sql(f"audit/export_{table}"), {**params, "path": str(partial)}
        )
        os.replace(partial, path)
        result.files.append(path)
        result.rows[table] += int(counted[0][0]) if counted else 0
        if progress is not None:
            progress(done, len(steps), f"{table} {day.isoformat()}")
    return result


def export_files(pattern: str) -> dict[str, list[str]]:
    """The exported Parquet files a glob names, by table (a folder stands for all below it)."""
    if "://" not in pattern and Path(pattern).is_dir():
        pattern = str(Path(pattern) / "**" / "*.parquet")
    probe = memory_store()
    try:
        _, _, rows = query_rows(probe, sql("audit/from_glob"), {"pattern": pattern})
    except DatabaseError as exc:
        raise StyleError(f"cannot list `{pattern}`: {_first_line(exc)}") from None
    finally:
        probe.close()
    by_table: dict[str, list[str]] = {}
    for (name,) in rows:
        base = re.split(r"[\\/]", str(name))[-1]
        table, sep, _ = base.partition("-")
        if sep and base.endswith(".parquet") and table in TABLES:
            by_table.setdefault(table, []).append(str(name))
    return by_table


def load_exports(pattern: str, *, progress: Progress | None = None) -> Connection:
    """An in-memory database holding the exports matching `pattern` under the tables' own
    names, so the audit SQL runs over them unchanged. Event ids are renumbered (they repeat
    across machines); a file exported twice counts once."""
    files = export_files(pattern)
    if "events" not in files and "rules" not in files:
        raise StyleError(f"no STYLE exports match `{pattern}` (run `style audit export` first)")
    steps: list[tuple[str, dict[str, Any]]] = []
    if "events" in files:
        steps += [
            ("raw_events", {"files": files["events"]}),
            ("event_map", {}),
            ("machine_column", {}),
            ("events", {}),
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
class PruneResult:
    cutoff: dt.datetime
    deleted: dict[str, int]
    dry_run: bool


def prune_history(conn: Connection, cutoff: dt.datetime, *, dry_run: bool = False) -> PruneResult:
    """Delete the events older than `cutoff` with their fields, hits and claims, and the
    sessions left without events, in one transaction (rolled back for a dry run)."""
    deleted: dict[str, int] = {}
    with transaction(conn) as tx:
        for table in PRUNED:
            _, _, rows = query_rows(conn, sql(f"audit/prune_{table}"), {"cutoff": cutoff})
            deleted[table] = int(rows[0][0]) if rows else 0
        if dry_run:
            tx.rollback()
    return PruneResult(cutoff, deleted, dry_run)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
