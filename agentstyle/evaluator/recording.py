"""Record a decided batch: its events and answers, sessions, outcomes and claims.

The events with their answers, the session rows, the session facts, every candidate's outcome and
the claims (docs/design/runtime.md#record). The resident engine answers first and records after
(runtime/direct.py); `evaluate` does both in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agentstyle.evaluator.evaluation import EMITTING, Evaluation
from agentstyle.evaluator.privacy import stored_value
from agentstyle.evaluator.records import (
    BOUND,
    BookedRow,
    ClaimRow,
    EventRow,
    FactRow,
    FieldRow,
    HitRow,
    SessionRow,
    SessionUpdate,
)
from agentstyle.evaluator.statements import execute, read_rows
from agentstyle.evaluator.store import Connection, by_name
from agentstyle.vocabulary import ADDING_TOOLS, CHECK_POINT

# Points whose events are evidence in themselves, kept with their fields like an event a rule
# fired on (`log: hits`; `log: off` keeps no field): a call the client refused by itself, a
# settings file that changed during the session (docs/audit.md#the-clients-own-refusals).
EVIDENCE_POINTS = frozenset({"tool.denied", "config.changed"})


def _store(conn: Connection, name: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """Rows (evaluator/records.py) bound by name to the statement that stores them."""
    if rows:
        execute(conn, name, by_name(BOUND[name]._fields, rows))


def _provider(model: str) -> str:
    if model.startswith("claude"):
        return "anthropic"
    if model.startswith(("gpt", "o1", "o3", "o4", "codex")):
        return "openai"
    if model.startswith("gemini"):
        return "google"
    return "unknown"


def book(conn: Connection, evaluations: list[Evaluation]) -> None:
    """Session bookkeeping and event ids into the evaluations
    (docs/design/runtime.md#session-bookkeeping)."""
    events = [e.event for e in evaluations]
    sessions = {(ev.harness, ev.session_id) for ev in events}
    if len(events) == 1:  # a hook's event: the statement without lists is the cheaper one
        ev = events[0]
        one = {
            "harness": ev.harness,
            "session_id": ev.session_id,
            "point": ev.point,
            "source": ev.session_source,
            "model": ev.model,
        }
        rows = read_rows(conn, "evaluate/book_one", BookedRow, one)
    else:
        # Without repeated sessions the bookkeeping needs no window over the batch.
        name = "evaluate/book" if len(sessions) == len(events) else "evaluate/book_batch"
        rows = read_rows(
            conn,
            name,
            BookedRow,
            {
                "seq": list(range(len(events))),
                "harness": [ev.harness for ev in events],
                "session_id": [ev.session_id for ev in events],
                "point": [ev.point for ev in events],
                "source": [ev.session_source for ev in events],
                "model": [ev.model for ev in events],
            },
        )
    for row, e in zip(rows, evaluations, strict=True):
        e.event_id, e.generation = int(row.event_id), int(row.generation)
        e.compaction, e.prompt_count = int(row.compaction), int(row.prompt_count)
        e.model, e.new_session = row.model, bool(row.is_new)
        model = row.model or "unknown"
        e.event.add("model", model)
        e.event.add("provider", _provider(model))


def facts_of(e: Evaluation) -> list[FactRow]:
    """The session facts an event leaves (schema 006): each simple command a shell call ran,
    with whether the call failed, and each file a write or edit that did not fail touched.
    Values are stored as field values are (redacted, cut), and the batch's own facts are read
    the same way, so a batch and one event at a time see the same text."""
    ev = e.event
    if ev.point not in ("tool.post", "tool.failed"):
        return []
    if ev.tool == "shell":
        kind, values = "command", ev.values("shell.commands")
    elif ev.tool in ADDING_TOOLS and not ev.failed:
        kind, values = "edit", ev.values("file.path")
    else:
        return []
    return [
        FactRow(
            harness=ev.harness,
            session_id=ev.session_id,
            event_id=e.event_id,
            kind=kind,
            value=stored_value(v),
            failed=ev.failed,
        )
        for v in dict.fromkeys(values)
        if v
    ]


def record(
    conn: Connection,
    evaluations: list[Evaluation],
    log: str = "hits",
    latency_us: Sequence[int | None] | None = None,
) -> None:
    """Write the decided batch (docs/design/runtime.md#record): the events with their answers, each
    session's state after the batch, every candidate's outcome and the claims — inside the
    caller's transaction. `latency_us`: per event, the time to its answer (hooks only)."""
    if not evaluations:
        return
    if not evaluations[0].event_id:
        book(conn, evaluations)  # nothing matched: the answer did not need it
    latencies = list(latency_us) if latency_us is not None else [None] * len(evaluations)
    _store(
        conn,
        "history/record_events",
        [
            EventRow(
                event_id=e.event_id,
                ts=e.event.ts,
                harness=e.event.harness,
                native_event=e.event.native_event,
                point=e.event.point,
                session_id=e.event.session_id,
                turn_id=e.event.turn_id,
                generation=e.generation,
                compaction=e.compaction,
                prompt_count=e.prompt_count,
                tool=e.event.tool,
                native_tool=e.event.native_tool,
                call_id=e.event.call_id,
                failed=e.event.failed,
                cwd=e.event.cwd or None,
                verdict=e.decision.verdict or "none",
                latency_us=latency,
                error=",".join(e.event.notes) or None,
                stop_active=e.event.stop_active,
                transcript=e.event.transcript,
            )
            for e, latency in zip(evaluations, latencies, strict=True)
        ],
    )
    _record_sessions(conn, evaluations)
    hits: list[HitRow] = []
    claims: list[ClaimRow] = []
    kept: list[FieldRow] = []
    for evaluation in evaluations:
        ev = evaluation.event
        decided = False
        for c in evaluation.candidates:
            if c.outcome is None:
                continue  # its conditions did not hold: no hit
            decided = True
            hits.append(
                HitRow(
                    event_id=evaluation.event_id,
                    rule_id=c.rule_id,
                    point=ev.point,
                    outcome=c.outcome,
                    tokens=c.tokens,
                    detail=c.error,
                )
            )
            if c.outcome in EMITTING and c.claim_key is not None:
                claims.append(
                    ClaimRow(
                        claim_key=c.claim_key,
                        harness=ev.harness,
                        session_id=ev.session_id,
                        rule_id=c.rule_id,
                        event_id=evaluation.event_id,
                        prompt_count=evaluation.prompt_count,
                    )
                )
        if log == "full" or (log == "hits" and (decided or ev.point in EVIDENCE_POINTS)):
            kept += _field_rows(evaluation)
        elif log == "hits" and ev.point == CHECK_POINT:
            # A check's result its rule said nothing about keeps its own fields (which rule,
            # exit, timed out, crashed), not the event's: the audit counts each rule's runs
            # from them (sql/audit/rules.sql, docs/audit.md#checks).
            kept += _field_rows(evaluation, "check.")
    _store(conn, "history/insert_fields", kept)
    # The session facts are the rules' input, kept whatever the log mode (docs/conditions.md).
    _store(conn, "history/insert_facts", [f for e in evaluations if e.facts for f in facts_of(e)])
    _store(conn, "history/insert_hits", hits)
    _store(conn, "history/insert_claims", claims)


def _field_rows(evaluation: Evaluation, prefix: str = "") -> list[FieldRow]:
    """The stored rows of the event's fields (those whose name starts with `prefix`)."""
    return [
        FieldRow(event_id=evaluation.event_id, field=f, idx=i, value=stored_value(v))
        for f, i, v in evaluation.event.fields
        if f.startswith(prefix)
    ]


def _record_sessions(conn: Connection, evaluations: list[Evaluation]) -> None:
    """Each session's row after the batch: the new ones inserted, the others updated."""
    # Each session's state is its last event's; a new one's first time is its first event's.
    last: dict[tuple[str, str], tuple[Evaluation, float]] = {}
    for e in evaluations:
        key = (e.event.harness, e.event.session_id)
        last[key] = (e, last[key][1] if key in last else e.event.ts)
    opened: list[SessionRow] = []
    stored: list[SessionUpdate] = []
    for (harness, session), (e, first) in last.items():
        state = SessionUpdate(
            harness=harness,
            session_id=session,
            generation=e.generation,
            compaction=e.compaction,
            prompt_count=e.prompt_count,
            model=e.model,
            last_seen=e.event.ts,
        )
        if e.new_session:
            opened.append(SessionRow(**state._asdict(), first_seen=first))
        else:
            stored.append(state)
    if len(stored) == 1:  # a hook's event: the statement without lists is the cheaper one
        execute(conn, "history/update_session", stored[0]._asdict())
    else:
        _store(conn, "history/update_sessions", stored)
    _store(conn, "history/insert_sessions", opened)
