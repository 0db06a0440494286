"""The rows the audit reads from its statements by name: one NamedTuple per row.

Its fields are the statement's result columns in order (evaluator/statements.py `read_rows` checks
that once per process). The reports themselves are read as frames, by column name."""

from __future__ import annotations

import datetime as dt
from typing import Any, NamedTuple


class CoverageEventRow(NamedTuple):
    """What STYLE recorded of a transcript's session (audit/coverage_events.sql)."""

    harness: str
    session: str
    native_event: str
    point: str | None
    native_tool: str | None
    call_id: str | None
    ts: dt.datetime | None
    verdict: str | None
    error: str | None


class FirstEventRow(NamedTuple):
    """The first recorded event's time (audit/coverage_since.sql)."""

    first_event: dt.datetime | None


class CoverageSessionRow(NamedTuple):
    """A session of the window (audit/coverage_sessions.sql)."""

    harness: str
    session: str
    cwd: str | None
    events: int
    first_seen: dt.datetime
    last_seen: dt.datetime


class RuleFactRow(NamedTuple):
    """What replay keeps of each rule (replay/rule_facts.sql)."""

    rule_id: str
    refresh: int
    uses_rule_state: bool


class WindowIdsRow(NamedTuple):
    """The first and last event id of a window (audit/window_ids.sql)."""

    first_id: int | None
    last_id: int | None


class RuleSourceRow(NamedTuple):
    """Where a rule's package came from (audit/rule_sources.sql)."""

    rule_id: str
    package: str
    source: str | None


class SessionFolderRow(NamedTuple):
    """A folder a harness's sessions of the window ran in (audit/session_folders.sql)."""

    harness: str
    cwd: str | None
    events: int


class WindowRow(NamedTuple):
    """What a report's window covers (audit/window.sql)."""

    first_ts: dt.datetime | None
    last_ts: dt.datetime | None
    events: int | None
    latency_p50_us: float | None
    latency_p95_us: float | None


class OutcomeCountRow(NamedTuple):
    """How often a rule had an outcome (audit/outcomes_by_rule.sql)."""

    rule_id: str
    outcome: str
    n: int


class ExportedEventRow(NamedTuple):
    """A recorded event with its stored fields (replay/exported_events.sql)."""

    event_id: int
    ts: dt.datetime | None
    harness: str
    native_event: str
    point: str | None
    session_id: str | None
    turn_id: str | None
    tool: str | None
    native_tool: str | None
    call_id: str | None
    failed: bool | None
    cwd: str | None
    stop_active: bool
    fields: list[dict[str, Any]] | None  # {field, idx, value}, by field then index


class ExportDayRow(NamedTuple):
    """A day of history to export, with its events' id span (audit/export_days.sql)."""

    day: dt.date
    first_id: int | None
    last_id: int | None


class FileRow(NamedTuple):
    """A file a glob names (audit/from_glob.sql)."""

    file: str


class DatabaseSizeRow(NamedTuple):
    """The database file and its blocks (store/database_size.sql)."""

    path: str | None
    block_size: int
    free_blocks: int


class CountRow(NamedTuple):
    """The rows a COPY wrote or a DELETE removed, under DuckDB's own column name
    (audit/export_*.sql, audit/prune_*.sql)."""

    Count: int


class ConfigChangeRow(NamedTuple):
    """A settings file that changed during the window's sessions (audit/config_changes.sql)."""

    harness: str
    file: str
    guarded: bool
    changes: int
    kept_out: int
    sessions: int
    last_seen: dt.datetime | None
