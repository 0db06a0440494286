"""The rows the evaluator binds to its statements and reads from them, each by name.

One NamedTuple per statement's row."""

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


# -- what the evaluator reads ------------------------------------------------------------------
# Each class's fields are its statements' result columns, same names, same order: the rows are
# read through evaluator/statements.py `read_rows`, which checks that once per process.


class RuleIdRow(NamedTuple):
    """A rule (allow/coded_all.sql, allow/coded_rules.sql, allow/managed_rules.sql)."""

    rule_id: str


class SessionKeyRow(NamedTuple):
    """A session holding an allowance (allow/open_sessions.sql)."""

    harness: str
    session_id: str


class PointFlagRow(NamedTuple):
    """What a point's events need beyond match.sql (evaluate/point_flags.sql)."""

    harness: str
    point: str
    session_state: bool
    rule_state: bool
    wildcards: bool
    reads_model: bool
    lookup_keys: list[str]
    history: bool
    command_keys: list[str]


class EntryRow(NamedTuple):
    """A placed entry, what a candidate of match.sql is (evaluate/candidates.sql)."""

    harness: str
    point: str
    rule_order: int
    rule_id: str
    action: str
    repeat: str | None
    status: str
    fails_closed: bool


class BookedRow(NamedTuple):
    """An event's bookkeeping (evaluate/book.sql, evaluate/book_batch.sql, and
    evaluate/book_one.sql for a hook's one event)."""

    seq: int
    event_id: int
    generation: int
    compaction: int
    prompt_count: int
    model: str | None
    is_new: bool


class IndexRow(NamedTuple):
    """A row of the evaluation index as a resident engine holds it (evaluate/index_rows.sql)."""

    route: str
    clause_key: int
    rule_order: int
    shadow: bool
    negated: bool
    lookup_key: str | None
    literal: str | None
    any_literals: list[str] | None
    literal_ci: bool
    regex: str | None
    other: bool  # an equals, `in` or number test


class FieldValueRow(NamedTuple):
    """A field row a batch event gets from a statement (evaluate/session_state.sql,
    rule_state.sql, history_state.sql, wild_fields.sql)."""

    seq: int
    field: str
    value: str


class HoldsRow(NamedTuple):
    """A command condition that holds on a batch event (evaluate/commands.sql)."""

    seq: int
    lookup_key: str


class GrammarRow(NamedTuple):
    """A program grammar of the policy (evaluate/program_grammars.sql)."""

    program: str
    family: str
    grammar: str  # JSON


class MatchRow(NamedTuple):
    """A candidate of a batch event, or of one of its commands' events (evaluate/match.sql)."""

    seq: int
    rule_order: int
    matched: bool
    excepted: bool  # its condition as written held, and an exception took the event out


class DueCheck(NamedTuple):
    """A check whose rule's event part held: what the runner runs (evaluate/checks_due.sql)."""

    rule_id: str
    run: str
    timeout_s: float
    cooldown_s: float


class TemplateRow(NamedTuple):
    """A template segment of a matched rule, in rendering order (evaluate/templates.sql)."""

    rule_id: str
    part: str  # body | model_text
    pos: int
    kind: str
    text: str | None
    var: str | None
    default_value: str | None
    max_tokens: int
    action: str


class DecidedRow(NamedTuple):
    """A candidate's outcome (evaluate/outcomes.sql, evaluate/outcomes_blocked.sql)."""

    seq: int
    rule_id: str
    outcome: str
    claim_key: str | None
    closed_error: bool  # it failed under `fail: closed`


class FixRow(NamedTuple):
    """A rule's fix (evaluate/fixes.sql)."""

    rule_id: str
    fix_pattern: str
    fix_template: str


class RedactRow(NamedTuple):
    """A redact rule's pattern, replacement and `keep` (evaluate/redactions.sql)."""

    rule_id: str
    redact_pattern: str
    redact_with: str
    redact_keep: str | None  # None: every match goes


class RedactStep(NamedTuple):
    """An event's texts after one step of its redactions (evaluate/redact_apply.sql)."""

    step: int  # 0: the texts as given
    texts: list[str]


class FixedRow(NamedTuple):
    """A command's text with a fix applied (evaluate/fix_apply.sql)."""

    fixed: str


class AnsweredRow(NamedTuple):
    """The answer an earlier handler gave the same event (evaluate/answered_find.sql)."""

    verdict: str | None
    reasons: list[str] | None


class OfferedRow(NamedTuple):
    """An allowance that may let a refused call of the batch through (evaluate/allowances.sql)."""

    seq: int
    allowance_id: int
    rule_ids: list[str] | None
    scope: str


class FailClosedRow(NamedTuple):
    """Whether an installed entry of a native event fails closed (evaluate/fail_closed.sql)."""

    closed: bool


class GrantedRow(NamedTuple):
    """The allowance already granted for a refused event (allow/granted.sql)."""

    allowance_id: int
    scope: str
    uses: int


class AllowanceIdRow(NamedTuple):
    """A new allowance's id (allow/insert.sql)."""

    allowance_id: int


class RefusedRow(NamedTuple):
    """A recent refusal with what `style allow` needs (allow/refused.sql)."""

    event_id: int
    ts: dt.datetime
    harness: str
    native_event: str
    point: str | None
    session_id: str | None
    native_tool: str | None
    verdict: str
    call_key: str | None
    rules: list[str] | None  # those that blocked or asked
    command: str | None
    path: str | None
    said: str | None  # a refused prompt's text, or the last message of a refused stop


class RuleLayerRow(NamedTuple):
    """A rule of a layer other than the project's (policy/rule_layers.sql)."""

    rule_id: str
    layer: str


class RuleExceptionRow(NamedTuple):
    """Where a rule is narrowed (policy/rule_exceptions.sql)."""

    rule_id: str
    package: str
    reason: str
