"""The rows the engine binds to its statements by name: one NamedTuple per statement's row."""

from __future__ import annotations

import datetime as dt
from typing import NamedTuple

# Each class's fields are its statement's `$parameters` (each a list, a row per element; the
# single-row statements, update_session.sql and allow/*.sql, bind the fields themselves), and,
# where the statement stores a table's rows, that table's columns: BOUND below says which
# statement binds which class, and tests/test_rows.py holds that the names agree. Times of the
# history are epoch seconds, made TIMESTAMPs in SQL.


class EventRow(NamedTuple):
    """An event with its answer (history/record_events.sql: the `events` table)."""

    event_id: int
    ts: float
    harness: str
    native_event: str
    point: str | None
    session_id: str
    turn_id: str | None
    generation: int
    compaction: int
    prompt_count: int
    tool: str | None
    native_tool: str | None
    call_id: str | None
    failed: bool
    cwd: str | None
    verdict: str
    latency_us: int | None  # None: not answered live
    error: str | None  # the event's notes
    stop_active: bool  # the loop guard's input
    transcript: str | None  # the harness's transcript file, as the payload named it


class SessionRow(NamedTuple):
    """A session the batch opened (history/insert_sessions.sql: the `sessions` table)."""

    harness: str
    session_id: str
    generation: int
    compaction: int
    prompt_count: int
    model: str | None
    first_seen: float
    last_seen: float


class SessionUpdate(NamedTuple):
    """A stored session's state after the batch (history/update_session(s).sql)."""

    harness: str
    session_id: str
    generation: int
    compaction: int
    prompt_count: int
    model: str | None  # None keeps the stored one
    last_seen: float


class HitRow(NamedTuple):
    """A candidate's outcome (history/insert_hits.sql: the `hits` table)."""

    event_id: int
    rule_id: str
    point: str | None
    outcome: str
    tokens: int
    detail: str | None  # the rendering's error


class ClaimRow(NamedTuple):
    """A dedup key claimed by an emitted rule (history/insert_claims.sql: `claims`)."""

    claim_key: str
    harness: str
    session_id: str
    rule_id: str
    event_id: int
    prompt_count: int


class FieldRow(NamedTuple):
    """A stored field value (history/insert_fields.sql: `event_fields`)."""

    event_id: int
    field: str
    idx: int
    value: str  # already cut and redacted


class FactRow(NamedTuple):
    """A session fact an event leaves (history/insert_facts.sql: `session_facts`; the batch's
    own are read by evaluate/history_state.sql as its `$fact_*` lists)."""

    harness: str
    session_id: str
    event_id: int
    kind: str  # command | edit
    value: str  # already cut and redacted
    failed: bool


class OutcomeRow(NamedTuple):
    """A rendered candidate and its event, whose outcome evaluate/outcomes.sql decides."""

    seq: int
    rule_id: str
    hash: str
    tokens: int
    truncated: bool
    failed: bool  # rendering raised
    harness: str
    point: str | None
    session_id: str
    generation: int
    compaction: int
    prompt_count: int
    turn_key: str
    stop_active: bool


class AllowanceRow(NamedTuple):
    """An allowance `style allow` grants (allow/insert.sql: `allowances`, but its id and uses)."""

    created: dt.datetime  # UTC
    harness: str
    session_id: str
    event_id: int  # the refused event the person answered
    rule_ids: list[str]  # the rules that refused it
    native_tool: str | None
    call_key: str | None
    scope: str  # once | session


class AllowanceUse(NamedTuple):
    """One use of an allowance (allow/record_use.sql: `allowance_uses`)."""

    allowance_id: int
    event_id: int
    rule_id: str


# statement → the class of the rows it binds, by name
BOUND: dict[str, type[NamedTuple]] = {
    "history/record_events": EventRow,
    "history/insert_sessions": SessionRow,
    "history/update_session": SessionUpdate,
    "history/update_sessions": SessionUpdate,
    "history/insert_hits": HitRow,
    "history/insert_claims": ClaimRow,
    "history/insert_fields": FieldRow,
    "history/insert_facts": FactRow,
    "evaluate/outcomes": OutcomeRow,
    "allow/insert": AllowanceRow,
    "allow/record_use": AllowanceUse,
}
