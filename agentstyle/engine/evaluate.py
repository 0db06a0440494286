"""Evaluate events through the SQL evaluator: match in SQL, render in Python, decide in SQL."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentstyle.engine.decision import Decision
from agentstyle.engine.event import Event
from agentstyle.engine.privacy import stored_value
from agentstyle.engine.render import Rendered, SegmentRow, render_rule
from agentstyle.engine.store import Connection, sql

EMITTING = ("emitted", "budget-truncated")


@dataclass(slots=True)
class Candidate:
    """One candidate entry of one event and what happened to it (the trace of `explain`)."""

    rule_id: str
    action: str
    repeat: str | None
    status: str
    matched: bool
    outcome: str | None = None  # None: conditions did not hold
    rendered: Rendered | None = None
    error: str | None = None
    tokens: int = 0


@dataclass(slots=True)
class Evaluation:
    event: Event
    event_id: int
    decision: Decision
    candidates: list[Candidate] = field(default_factory=list)
    generation: int = 0
    compaction: int = 0
    prompt_count: int = 0


def _bulk(conn: Connection, name: str, rows: list[tuple[Any, ...]]) -> None:
    if rows:
        conn.execute(sql(name), [list(col) for col in zip(*rows, strict=True)])


def _timestamp(ts: float) -> Any:
    import datetime as dt

    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).replace(tzinfo=None)


def _provider(model: str) -> str:
    if model.startswith("claude"):
        return "anthropic"
    if model.startswith(("gpt", "o1", "o3", "o4", "codex")):
        return "openai"
    if model.startswith("gemini"):
        return "google"
    return "unknown"


def evaluate(
    conn: Connection, events: list[Event], log: str = "hits", *, trace: bool = False
) -> list[Evaluation]:
    """Evaluate a batch of events in order, inside the caller's transaction.

    Records the events, their session bookkeeping, the hits and the claims; the caller commits
    (a hook) or rolls back (explain, test). `log` is the lock file's mode (audit.md): field
    values are stored for events with a hit (`hits`), for every event (`full`) or never (`off`).
    """
    conn.execute(sql("evaluate/batch_tables"))
    conn.execute(sql("evaluate/clear_batch"))
    _bulk(
        conn,
        "evaluate/insert_batch_events",
        [
            (
                seq,
                ev.harness,
                ev.native_event,
                ev.point,
                ev.session_id,
                ev.turn_id,
                ev.tool,
                ev.native_tool,
                ev.mcp_server,
                ev.skill,
                ev.session_source,
                ev.stop_active,
                ev.ts,
                ev.call_id,
                ev.failed,
                ev.model,
                ev.cwd or None,
            )
            for seq, ev in enumerate(events)
        ],
    )
    # Session bookkeeping and event ids for the whole batch in SQL, then the events recorded
    # before matching (state.* counts "this one included").
    conn.execute(sql("evaluate/book_batch"))
    booked = conn.execute(sql("evaluate/booked")).fetchall()
    conn.execute(sql("history/record_batch_events"))
    conn.execute(sql("history/update_sessions"))
    evaluations: list[Evaluation] = []
    field_rows: list[tuple[Any, ...]] = []
    for (seq, event_id, generation, compaction, prompts, model), ev in zip(
        booked, events, strict=True
    ):
        model = model or "unknown"
        ev.add("model", model)
        ev.add("provider", _provider(model))
        evaluations.append(
            Evaluation(
                ev,
                int(event_id),
                Decision(),
                generation=int(generation),
                compaction=int(compaction),
                prompt_count=int(prompts),
            )
        )
        field_rows.extend((seq, f, i, v) for f, i, v in ev.fields)
    _bulk(conn, "evaluate/insert_batch_fields", field_rows)

    # Candidates whose conditions failed are only wanted for a trace (explain).
    matches = conn.execute(sql("evaluate/match"), [trace]).fetchall()
    by_seq: dict[int, list[Candidate]] = defaultdict(list)
    matched_ids: set[str] = set()
    for seq, rule_id, _order, action, repeat, status, matched in matches:
        by_seq[seq].append(Candidate(rule_id, action, repeat, status, bool(matched)))
        if matched:
            matched_ids.add(rule_id)
    for seq, cands in by_seq.items():
        evaluations[seq].candidates = cands

    rendered_rows = _render(conn, evaluations, matched_ids)
    _bulk(conn, "evaluate/insert_batch_rendered", rendered_rows)
    outcomes = conn.execute(sql("evaluate/outcomes")).fetchall()
    _decide(conn, evaluations, outcomes, log)
    # `style allow`: a refused call the person let through passes once (or for the session).
    from agentstyle.engine.allowances import apply_allowances

    apply_allowances(conn, evaluations)
    return evaluations


def _render(
    conn: Connection, evaluations: list[Evaluation], rule_ids: set[str]
) -> list[tuple[Any, ...]]:
    if not rule_ids:
        return []
    templates: dict[str, dict[str, list[SegmentRow]]] = defaultdict(lambda: defaultdict(list))
    limits: dict[str, int] = {}
    for rule_id, part, _pos, kind, text, var, default, max_tokens, _action in conn.execute(
        sql("evaluate/templates"), [sorted(rule_ids)]
    ).fetchall():
        templates[rule_id][part].append((kind, text, var, default))
        limits[rule_id] = int(max_tokens)
    rows: list[tuple[Any, ...]] = []
    for seq, evaluation in enumerate(evaluations):
        values: dict[str, list[str]] = defaultdict(list)
        for f, _i, v in evaluation.event.fields:
            values[f].append(v)
        for cand in evaluation.candidates:
            if not cand.matched:
                continue
            parts = templates.get(cand.rule_id, {})
            try:
                r = render_rule(
                    cand.action,
                    parts.get("body", []),
                    parts.get("model_text"),
                    limits.get(cand.rule_id, 400),
                    _lookup(values),
                )
                cand.rendered = r
                rows.append(
                    (seq, cand.rule_id, r.text, r.model_text, r.hash, r.tokens, r.truncated, None)
                )
            except Exception as exc:  # a rule that fails alone is recorded, the rest proceed
                cand.error = f"render failed: {exc}"
                rows.append((seq, cand.rule_id, "", None, "", 0, False, cand.error))
    return rows


def _lookup(values: dict[str, list[str]]) -> Callable[[str], list[str]]:
    return lambda name: values.get(name) or []


def _decide(
    conn: Connection,
    evaluations: list[Evaluation],
    outcomes: list[tuple[Any, ...]],
    log: str = "hits",
) -> None:
    hits: list[tuple[Any, ...]] = []
    claims: list[tuple[Any, ...]] = []
    per_seq: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in outcomes:
        per_seq[row[0]].append(row)
    for seq, evaluation in enumerate(evaluations):
        ev = evaluation.event
        cands = {c.rule_id: c for c in evaluation.candidates}
        order = {c.rule_id: i for i, c in enumerate(evaluation.candidates)}
        rows = per_seq.get(seq, [])
        for _seq, rule_id, _action, outcome, claim_key, tokens, _text, _mt, _closed in rows:
            cand = cands[rule_id]
            cand.outcome, cand.tokens = outcome, int(tokens or 0)
            hits.append((evaluation.event_id, rule_id, ev.point, outcome, cand.tokens, cand.error))
            if outcome in EMITTING and claim_key is not None:
                claims.append(
                    (
                        claim_key,
                        ev.harness,
                        ev.session_id,
                        rule_id,
                        evaluation.event_id,
                        evaluation.prompt_count,
                    )
                )
        evaluation.decision = decision_of(rows, order)
        if (rows and log == "hits") or log == "full":
            stored = [(evaluation.event_id, f, i, stored_value(v)) for f, i, v in ev.fields]
            _bulk(conn, "history/insert_fields", stored)
    _bulk(conn, "history/insert_hits", hits)
    _bulk(conn, "history/insert_claims", claims)


def decision_of(rows: list[tuple[Any, ...]], rule_order: dict[str, int]) -> Decision:
    """The answer from outcome rows (already in output order); reasons go in rule order."""
    d = Decision()
    verdict_rows: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for _seq, rule_id, action, outcome, _key, _tokens, text, model_text, closed_error in rows:
        if closed_error:
            # runtime.md: a failing `fail: closed` rule turns the verdict to deny.
            reason = (
                f"STYLE could not evaluate policy (rule {rule_id} failed); the call is refused "
                "because a rule requires it."
            )
            verdict_rows["block"].append((rule_order[rule_id], rule_id, reason))
        elif outcome == "blocked":
            verdict_rows["block"].append((rule_order[rule_id], rule_id, text))
        elif outcome == "asked":
            verdict_rows["ask"].append((rule_order[rule_id], rule_id, text))
        elif outcome == "allowed":
            verdict_rows["allow"].append((rule_order[rule_id], rule_id, text))
        elif outcome in EMITTING:
            d.rules.append(rule_id)
            if action == "inject":
                d.contexts.append(text)
            elif action == "warn":
                d.messages.append(text)
                if model_text:
                    d.contexts.append(model_text)
    for verdict in ("block", "ask", "allow"):
        if verdict_rows[verdict]:
            d.verdict = verdict
            chosen = sorted(verdict_rows[verdict])
            d.reasons = [text for _o, _r, text in chosen if text]
            d.rules = [r for _o, r, _t in chosen] + d.rules
            if verdict == "block":
                d.contexts, d.messages = [], []
            break
    return d
