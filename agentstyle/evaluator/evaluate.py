"""Evaluate events through the SQL evaluator: match in SQL, render in Python, decide in SQL.

One event costs a few small statements over the evaluation index (schema 005): `book`
(session bookkeeping and the point's flags), `match` (candidates by route key and their
conditions as one flat join), and only when something matched, `templates` and `outcomes`
(precedence, dedup against `claims`, budget). `state.*` and field paths with `*` segments are
statements of their own, run only for events at a point whose rules read them; the state over
what the session did (`state.commands_since_edit`, `state.files_edited`,
`state.commands_failed`) reads `session_facts`, which `record` fills only for a policy with
such a rule (`facts_of`). DuckDB's cost
per statement grows with the plan, hardly with the rows, so batches (replay) run the same
statements over many events at once.

`decide` reads (an allowance the person granted aside); `record` writes the events, the
session rows, the hits and the claims after the answer is known, so the resident engine can
answer before it records (runtime/direct.py); `evaluate` is both, in the caller's transaction.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from agentstyle.commands.catalog import Catalog
from agentstyle.evaluator.commandrows import command_events, commands_of, programs_in, rows_of
from agentstyle.evaluator.decision import Decision, Redaction
from agentstyle.evaluator.evaluation import EMITTING, Candidate, Evaluation
from agentstyle.evaluator.event import Event
from agentstyle.evaluator.heldindex import HeldIndex, held_index
from agentstyle.evaluator.recording import book, facts_of, record
from agentstyle.evaluator.records import (
    DecidedRow,
    DueCheck,
    EntryRow,
    FactRow,
    FieldValueRow,
    GrammarRow,
    HoldsRow,
    MatchRow,
    OutcomeRow,
    PointFlagRow,
    RuleIdRow,
    SessionKeyRow,
    TemplateRow,
)
from agentstyle.evaluator.render import SegmentRow, render_rule
from agentstyle.evaluator.statements import read_rows
from agentstyle.evaluator.store import Connection, by_name
from agentstyle.vocabulary import CHECK_ENTRY, COMMAND_FIELD, COMMAND_KEY_PREFIX


@dataclass(frozen=True, slots=True)
class Flags:
    """What a point's events need beyond `match` (the evaluation index's point_flags)."""

    session_state: bool = False
    rule_state: bool = False
    wildcards: bool = False
    reads_model: bool = False
    routed: bool = False
    keys: frozenset[str] = frozenset()  # the field rows its conditions read
    history: bool = False  # state over the session's facts (history_state.sql)
    # the event's fields a simple command's own events carry (evaluator/commandrows.py)
    command_keys: frozenset[str] = frozenset()

    def __or__(self, other: Flags) -> Flags:
        return Flags(
            session_state=self.session_state or other.session_state,
            rule_state=self.rule_state or other.rule_state,
            wildcards=self.wildcards or other.wildcards,
            reads_model=self.reads_model or other.reads_model,
            routed=self.routed or other.routed,
            keys=self.keys | other.keys,
            history=self.history or other.history,
            command_keys=self.command_keys | other.command_keys,
        )

    @property
    def two_level(self) -> bool:
        """A condition reads a command condition's result (sql/evaluate/commands.sql)."""
        return any(key.startswith(COMMAND_KEY_PREFIX) for key in self.keys)

    @property
    def inlined(self) -> bool:
        """A condition reads a simple command's own rows (docs/design/commands.md#evaluation)."""
        return any(key.startswith(COMMAND_FIELD) for key in self.keys)

    @property
    def book_first(self) -> bool:
        """Matching reads what the bookkeeping gives: event ids for state.*, the model."""
        return self.session_state or self.rule_state or self.reads_model or self.history


# (harness, point) → its flags; a point without a row has no rule placed.
PointFlags = dict[tuple[str, str], Flags]


def point_flags(conn: Connection) -> PointFlags:
    """The policy's point flags, for a connection that evaluates many events of one policy
    (the resident engine: the policy cannot change while it holds the lock)."""
    flags: PointFlags = {}
    for row in read_rows(conn, "evaluate/point_flags", PointFlagRow):
        flags[(row.harness, row.point)] = Flags(
            session_state=bool(row.session_state),
            rule_state=bool(row.rule_state),
            wildcards=bool(row.wildcards),
            reads_model=bool(row.reads_model),
            routed=True,
            keys=frozenset(row.lookup_keys),
            history=bool(row.history),
            command_keys=frozenset(row.command_keys),
        )
    return flags


# (harness, point, rule order) → the entry's rule id, action, repeat, status and whether it
# fails closed.
Entries = dict[tuple[str, str, int], tuple[str, str, str | None, str, bool]]


@dataclass(slots=True)
class Held:
    """What a connection that evaluates many events of one policy reads once instead of per
    event (the resident engine): its policy cannot change while it holds the lock, and no
    allowance is granted meanwhile (`style allow` stops the engine first)."""

    flags: PointFlags
    coded: frozenset[str] = frozenset()  # rules whose package offers allow codes
    allowed: frozenset[tuple[str, str]] = frozenset()  # (harness, session) holding an allowance
    # (harness, point, rule order) → the entry a candidate of match.sql is (candidates.sql)
    entries: Entries = field(default_factory=dict)
    # rule id → its template segments by part and its token limit, read at its first match
    templates: dict[str, tuple[dict[str, list[SegmentRow]], int]] = field(default_factory=dict)
    # rule id → its fix (pattern, replacement), read at the first refused shell call (fixes.py)
    fixes: dict[str, tuple[str, str]] | None = None
    # the policy's program grammars, read at the first shell call a command condition reads
    catalog: Catalog | None = None
    # the index's text tests of the route keys seen so far, run here (heldindex.py)
    index: HeldIndex | None = None

    @classmethod
    def of(cls, conn: Connection) -> Held:
        return cls(
            point_flags(conn),
            frozenset(str(r.rule_id) for r in read_rows(conn, "allow/coded_all", RuleIdRow)),
            frozenset(
                (str(r.harness), str(r.session_id))
                for r in read_rows(conn, "allow/open_sessions", SessionKeyRow)
            ),
            entries_of(conn, None),
            index=held_index(),
        )


def entries_of(conn: Connection, orders: list[int] | None) -> Entries:
    """The placed entries of these rule orders (every one for None): candidates.sql."""
    return {
        (str(e.harness), str(e.point), int(e.rule_order)): (
            str(e.rule_id),
            str(e.action),
            e.repeat,
            str(e.status),
            bool(e.fails_closed),
        )
        for e in read_rows(conn, "evaluate/candidates", EntryRow, {"orders": orders})
    }


def _timestamp(ts: float) -> Any:
    import datetime as dt

    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).replace(tzinfo=None)


def route_keys(ev: Event) -> list[tuple[str, str | None]]:
    """(route, name) rows by which the event reaches its candidates in `match_rows`: part of
    normalizing the event, so that no tool glob runs per event (sql/policy/index_match_rows).

    `*` (every event at the point but a session start) or `source=S`; the normalized tool for a
    call that is neither an MCP nor a skill call; `mcp` and `skill` with the server or skill
    name that the rule's glob is tested on; the native tool name.
    """
    base = f"{ev.harness}|{ev.point}|"
    keys: list[tuple[str, str | None]] = []
    if ev.point != "session.start":
        keys.append((base + "*", None))
    elif ev.session_source is not None:
        keys.append((base + "source=" + ev.session_source, None))
    if ev.mcp_server is not None:
        keys.append((base + "mcp", ev.mcp_server))
        if ev.native_tool is not None:
            keys.append((base + "mcp-native=" + ev.native_tool, None))
    elif ev.skill is not None:
        keys.append((base + "skill", ev.skill))
    elif ev.tool is not None:
        keys.append((base + "tool=" + ev.tool, None))
    if ev.native_tool is not None:
        keys.append((base + "native=" + ev.native_tool, None))
    return keys


def evaluate(
    conn: Connection,
    events: list[Event],
    log: str = "hits",
    *,
    trace: bool = False,
    decided: Callable[[list[Evaluation]], None] | None = None,
) -> list[Evaluation]:
    """Decide a batch of events in order and record it, inside the caller's transaction.

    The caller commits (a hook, replay) or rolls back (explain). `log` is the lock file's mode
    (docs/audit.md#privacy-and-pruning): field values are stored for events with a hit (`hits`), for
    every event (`full`) or never (`off`). `decided` sees the decided batch before it is
    recorded (replay applies the rules' fixes there: evaluator/fixes.py).
    """
    with _no_collector_passes():
        evaluations = decide(conn, events, trace=trace, log=log)
        if decided is not None:
            decided(evaluations)
        record(conn, evaluations, log)
    return evaluations


@contextmanager
def _no_collector_passes() -> Iterator[None]:
    """No cyclic garbage collection while a batch is evaluated. A batch allocates enough to
    trigger full collections, and each one walks every object the process holds (replay's
    normalized events, the caller's too): 40% of the batch path's time (bench/batch_bench.py).
    Its objects form no cycles, so memory is freed by reference counting as before; the
    collector runs again once the batch is done."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def decide(
    conn: Connection,
    events: list[Event],
    *,
    trace: bool = False,
    held: Held | None = None,
    log: str = "hits",
    allowances: bool = True,
) -> list[Evaluation]:
    """The steps of docs/design/runtime.md#one-hook-event for a batch: bookkeeping, candidates,
    conditions, rendering and outcomes. Nothing of the events is written (`record` does that); a
    `style allow` the person granted is used up here, inside the caller's transaction.

    `trace` keeps the candidates whose conditions failed (explain); `log` is the mode `record`
    will use (an allow code is offered only where the history keeps the call). `held` is what
    a resident engine keeps of the policy (`Held`); without it the point flags are read here.
    Without `allowances` none is used, and nothing at all is written (a fix's probes, fixes.py).
    An event that nothing matches costs the one `match` statement: its bookkeeping waits for
    `record`, after the answer.
    """
    if not events:
        return []
    evaluations = [Evaluation(ev, 0, Decision()) for ev in events]
    flags = held.flags if held is not None else point_flags(conn)
    need = Flags()
    for point in {(ev.harness, ev.point or "") for ev in events}:
        need = need | flags.get(point, Flags())
    keeps_facts = {harness for (harness, _point), f in flags.items() if f.history}
    if keeps_facts:
        for e in evaluations:
            e.facts = e.event.harness in keeps_facts
    if need.book_first:
        book(conn, evaluations)
    extra: list[tuple[int, str, str]] = []  # state.* and wildcard field rows
    if need.session_state:
        extra += _session_state(conn, evaluations)
    if need.rule_state:
        extra += _rule_state(conn, evaluations)
    if need.history:
        _history_state(conn, evaluations, flags)
    if need.wildcards:
        extra += _wild_fields(conn, evaluations)
    if need.two_level:
        extra += _command_conditions(conn, evaluations, held)
    if need.routed:
        _match(conn, evaluations, need, extra, trace, held)
    matched = [c for e in evaluations for c in e.candidates if c.matched]
    if any(c.action == CHECK_ENTRY for c in matched):
        matched = _checks_due(conn, evaluations)
    # A resident engine's refused call books after its answer too, unless the answer reads
    # what the bookkeeping gives: the model in a template, the session's counters in
    # outcomes.sql (no block stands), the event id in an allow code or an allowance's use.
    defer = held is not None and len(evaluations) == 1
    if matched:
        found = _templates(conn, {c.rule_id for c in matched}, held)
        if not evaluations[0].event_id and (not defer or _reads_booked(matched, found)):
            book(conn, evaluations)
        _render(evaluations, found)
        if not evaluations[0].event_id and not _block_stands(evaluations[0]):
            book(conn, evaluations)  # claim keys and refreshes read the session's counters
        _outcomes(conn, evaluations)
    if not evaluations[0].event_id and _may_read_event_id(evaluations[0], held):
        book(conn, evaluations)
    if allowances:
        # `style allow`: a refused call the person let through passes once (or for the session).
        from agentstyle.evaluator.allowances import apply_allowances

        apply_allowances(conn, evaluations, log, held)
    if matched and any(e.decision.redaction is not None for e in evaluations):
        # A secret in the output: replaced before the answer and before anything is recorded.
        from agentstyle.evaluator.redaction import apply_redactions

        apply_redactions(conn, evaluations)
    return evaluations


def _checks_due(conn: Connection, evaluations: list[Evaluation]) -> list[Candidate]:
    """A check rule whose event part held starts its check (docs/observers.md#checks): it says
    nothing now, so it is taken out of rendering and precedence; the caller starts the checks
    the decision names. The matched candidates that remain."""
    due: dict[str, list[Evaluation]] = defaultdict(list)
    for e in evaluations:
        for c in e.candidates:
            if c.matched and c.action == CHECK_ENTRY:
                c.matched, c.outcome = False, "check-due"
                due[c.rule_id].append(e)
    for check in read_rows(conn, "evaluate/checks_due", DueCheck, {"rule_ids": sorted(due)}):
        for e in due[check.rule_id]:
            e.decision.checks.append(check)
    return [c for e in evaluations for c in e.candidates if c.matched]


# The event fields the bookkeeping adds (`book`), as a template names them.
_BOOKED_VARS = frozenset({"model", "provider", "event.model", "event.provider"})


def _reads_booked(
    matched: list[Candidate], found: dict[str, tuple[dict[str, list[SegmentRow]], int]]
) -> bool:
    return any(
        var in _BOOKED_VARS
        for c in matched
        for segments in found.get(c.rule_id, ({}, 0))[0].values()
        for _kind, _text, var, _default in segments
    )


def _may_read_event_id(e: Evaluation, held: Held | None) -> bool:
    """Whether `apply_allowances` may read the event id: a refused call in a session holding
    an allowance, or refused only by rules offering allow codes (with `held`; else always)."""
    if e.decision.verdict not in ("block", "ask"):
        return False
    if held is None:
        return True
    refusing = {c.rule_id for c in e.candidates if c.outcome in ("blocked", "asked")}
    return (e.event.harness, e.event.session_id) in held.allowed or bool(refusing & held.coded)


def _state_columns(evaluations: list[Evaluation]) -> dict[str, list[Any]]:
    """What each state statement reads of every batch event, a list per name."""
    return {
        "seq": list(range(len(evaluations))),
        "event_id": [e.event_id for e in evaluations],
        "harness": [e.event.harness for e in evaluations],
        "session_id": [e.event.session_id for e in evaluations],
        "point": [e.event.point for e in evaluations],
    }


def _session_state(conn: Connection, evaluations: list[Evaluation]) -> list[tuple[int, str, str]]:
    evs = [e.event for e in evaluations]
    rows = read_rows(
        conn,
        "evaluate/session_state",
        FieldValueRow,
        {
            **_state_columns(evaluations),
            "native_tool": [ev.native_tool for ev in evs],
            "failed": [ev.failed for ev in evs],
            "call_id": [ev.call_id for ev in evs],
        },
    )
    return [(int(r.seq), str(r.field), str(r.value)) for r in rows]


def _rule_state(conn: Connection, evaluations: list[Evaluation]) -> list[tuple[int, str, str]]:
    params = {**_state_columns(evaluations), "ts": [e.event.ts for e in evaluations]}
    rows = read_rows(conn, "evaluate/rule_state", FieldValueRow, params)
    return [(int(r.seq), str(r.field), str(r.value)) for r in rows]


def _history_state(conn: Connection, evaluations: list[Evaluation], flags: PointFlags) -> None:
    """The state over the session's facts, as field rows of the events at a point that reads
    it (so templates can show them, `{{event.state.files_edited}}`, and a hit stores them)."""
    wanted = [
        (seq, e)
        for seq, e in enumerate(evaluations)
        if flags.get((e.event.harness, e.event.point or ""), Flags()).history
    ]
    batch = [fact for e in evaluations if e.facts for fact in facts_of(e)]
    rows = read_rows(
        conn,
        "evaluate/history_state",
        FieldValueRow,
        {
            "seq": [seq for seq, _e in wanted],
            "event_id": [e.event_id for _seq, e in wanted],
            "harness": [e.event.harness for _seq, e in wanted],
            "session_id": [e.event.session_id for _seq, e in wanted],
            # the batch's own facts, beside the stored ones (named apart from the events')
            **{f"fact_{n}": values for n, values in by_name(FactRow._fields, batch).items()},
        },
    )
    counts: dict[tuple[int, str], int] = defaultdict(int)
    for r in rows:
        evaluations[r.seq].event.add(r.field, r.value, counts[(r.seq, r.field)])
        counts[(r.seq, r.field)] += 1


def _field_rows(
    evaluations: list[Evaluation], keys: frozenset[str] | None = None
) -> dict[str, list[Any]]:
    """The events' field rows as seq, field and value lists by name; with `keys`, only those
    fields (the rest no condition reads)."""
    seqs: list[int] = []
    names: list[str] = []
    values: list[str] = []
    for seq, e in enumerate(evaluations):
        for f, _i, v in e.event.fields:
            if keys is None or f in keys:
                seqs.append(seq)
                names.append(f)
                values.append(v)
    return {"seq": seqs, "field": names, "value": values}


def _wild_fields(conn: Connection, evaluations: list[Evaluation]) -> list[tuple[int, str, str]]:
    rows = read_rows(conn, "evaluate/wild_fields", FieldValueRow, _field_rows(evaluations))
    return [(int(r.seq), str(r.field), str(r.value)) for r in rows]


def _command_conditions(
    conn: Connection, evaluations: list[Evaluation], held: Held | None
) -> list[tuple[int, str, str]]:
    """The command conditions that hold on the batch's shell calls, as field rows
    (sql/evaluate/commands.sql)."""
    events = [e.event for e in evaluations]
    if not any(ev.shell is not None and ev.shell.runs for ev in events):
        return []
    catalog = _catalog(conn, evaluations, held)
    rows = rows_of([commands_of(ev, catalog) for ev in events])
    if not rows["c_seq"]:
        return []
    held_rows = read_rows(conn, "evaluate/commands", HoldsRow, rows)
    return [(int(r.seq), str(r.lookup_key), "true") for r in held_rows]


def catalog_of(conn: Connection, programs: list[str] | None) -> Catalog:
    """The policy's grammars of these programs (every one for None)."""
    rows = read_rows(conn, "evaluate/program_grammars", GrammarRow, {"programs": programs})
    grammars = {str(r.program): (str(r.family), str(r.grammar)) for r in rows}
    if programs is None:
        return Catalog(grammars)

    def fetch(program: str) -> tuple[str, str] | None:
        found = read_rows(conn, "evaluate/program_grammars", GrammarRow, {"programs": [program]})
        return (str(found[0].family), str(found[0].grammar)) if found else None

    return Catalog(grammars, fetch)


def _match(
    conn: Connection,
    evaluations: list[Evaluation],
    need: Flags,
    extra: list[tuple[int, str, str]],
    trace: bool,
    held: Held | None,
) -> None:
    routes = [
        (seq, route, name)
        for seq, e in enumerate(evaluations)
        for route, name in route_keys(e.event)
    ]
    fields = _field_rows(evaluations, need.keys)
    for seq, name, value in extra:
        fields["seq"].append(seq)
        fields["field"].append(name)
        fields["value"].append(value)
    # Each simple command of a shell call (and each path it names) is an event of its own for
    # the conditions inlined on it, decided by the same statement (docs/design/commands.md).
    real = list(range(len(evaluations)))  # the batch event of each event the statement sees
    if need.inlined:
        for own in command_events(
            [e.event for e in evaluations], _catalog(conn, evaluations, held), need
        ):
            pseq = len(real)
            real.append(own.seq)
            prefix = f"{own.event.harness}|{own.event.point}|"
            routes.extend((pseq, prefix + route, None) for route in own.routes)
            for name, value in own.rows:
                fields["seq"].append(pseq)
                fields["field"].append(name)
                fields["value"].append(value)
    hits: list[list[str] | None] = [None] * len(fields["seq"])
    orders: list[int] | None = None
    if held is not None and held.index is not None:
        # The engine runs the text tests itself: match.sql reads only the rules that may hold,
        # and none at all when nothing can (docs/design/runtime.md#tests-held).
        by_seq: dict[int, list[str]] = defaultdict(list)
        for seq, route, _name in routes:
            by_seq[seq].append(route)
        hits, may_hold = held.index.test(conn, by_seq, fields)
        if not trace:
            if not may_hold:
                return
            orders = sorted(may_hold)
    params = {
        **by_name(("route_seq", "route", "route_name"), routes),
        **fields,
        "hits": hits,
        "orders": orders,
        "trace": trace,
    }
    rows = read_rows(conn, "evaluate/match", MatchRow, params)
    if not rows:
        return
    # A rule holds on a batch event when it holds on the event or one of its commands' events;
    # an exception took it out where its condition as written held on one and nothing held.
    merged: dict[tuple[int, int], list[bool]] = {}
    for r in rows:
        seen = merged.setdefault((real[r.seq], int(r.rule_order)), [False, False])
        seen[0] = seen[0] or bool(r.matched)
        seen[1] = seen[1] or bool(r.excepted)
    if held is not None:
        entries = held.entries
    else:
        entries = entries_of(conn, sorted({order for _seq, order in merged}))
    # Candidates whose conditions failed come only with a trace (explain), or when an
    # exception took the event out of a rule (they are recorded as `excepted`).
    for (seq, order), (matched, shadowed) in merged.items():
        ev = evaluations[seq].event
        rule_id, action, repeat, status, closed = entries[(ev.harness, ev.point or "", order)]
        excepted = shadowed and not matched
        evaluations[seq].candidates.append(
            Candidate(
                rule_id,
                action,
                repeat,
                status,
                matched,
                order=order,
                fails_closed=closed,
                excepted=excepted,
                outcome="excepted" if excepted else None,
            )
        )
    for e in evaluations:
        e.candidates.sort(key=lambda c: c.order)


def _catalog(conn: Connection, evaluations: list[Evaluation], held: Held | None) -> Catalog:
    """The policy's program grammars the batch's shell calls need (a resident engine reads them
    all once)."""
    if held is not None:
        if held.catalog is None:
            held.catalog = catalog_of(conn, None)
        return held.catalog
    return catalog_of(conn, programs_in([e.event for e in evaluations]))


def _templates(
    conn: Connection, rule_ids: set[str], held: Held | None
) -> dict[str, tuple[dict[str, list[SegmentRow]], int]]:
    """Each rule's template segments by part and its token limit (400 for a rule without a
    template row); a resident engine reads each rule's once."""
    known = held.templates if held is not None else {}
    missing = sorted(r for r in rule_ids if r not in known)
    if missing:
        read: dict[str, tuple[dict[str, list[SegmentRow]], int]] = {r: ({}, 400) for r in missing}
        for t in read_rows(conn, "evaluate/templates", TemplateRow, {"rule_ids": missing}):
            parts = read[t.rule_id][0]
            parts.setdefault(t.part, []).append((t.kind, t.text, t.var, t.default_value))
            read[t.rule_id] = (parts, int(t.max_tokens))
        known.update(read)
    return known


def _render(
    evaluations: list[Evaluation], found: dict[str, tuple[dict[str, list[SegmentRow]], int]]
) -> None:
    for evaluation in evaluations:
        if not any(c.matched for c in evaluation.candidates):
            continue
        values: dict[str, list[str]] = defaultdict(list)
        for f, _i, v in evaluation.event.fields:
            values[f].append(v)
        for cand in evaluation.candidates:
            if not cand.matched:
                continue
            parts, limit = found.get(cand.rule_id, ({}, 400))
            try:
                cand.rendered = render_rule(
                    cand.action,
                    parts.get("body", []),
                    parts.get("model_text"),
                    limit,
                    _lookup(values),
                )
                cand.tokens = cand.rendered.tokens
            except Exception as exc:  # a rule that fails alone is recorded, the rest proceed
                cand.error = f"render failed: {exc}"


def _lookup(values: dict[str, list[str]]) -> Callable[[str], list[str]]:
    return lambda name: values.get(name) or []


def _outcomes(conn: Connection, evaluations: list[Evaluation]) -> None:
    rows: list[OutcomeRow] = []
    for seq, e in enumerate(evaluations):
        ev = e.event
        turn_key = ev.turn_id if ev.turn_id is not None else f"prompt-{e.prompt_count}"
        for c in e.candidates:
            if not c.matched:
                continue
            r = c.rendered
            rows.append(
                OutcomeRow(
                    seq=seq,
                    rule_id=c.rule_id,
                    hash=r.hash if r is not None else "",
                    tokens=r.tokens if r is not None else 0,
                    truncated=r.truncated if r is not None else False,
                    failed=r is None,
                    harness=ev.harness,
                    point=ev.point,
                    session_id=ev.session_id,
                    generation=e.generation,
                    compaction=e.compaction,
                    prompt_count=e.prompt_count,
                    turn_key=turn_key,
                    stop_active=ev.stop_active,
                )
            )
    per_seq: dict[int, list[tuple[Candidate, bool]]] = defaultdict(list)
    by_rule = [{c.rule_id: c for c in e.candidates} if e.candidates else {} for e in evaluations]
    if len(evaluations) == 1 and _block_stands(evaluations[0]):
        # A hook's refused call: precedence is settled, nothing emits (outcomes_blocked.sql).
        params: dict[str, list[Any]] = {
            "rule_id": [r.rule_id for r in rows],
            "failed": [r.failed for r in rows],
            "action": [by_rule[0][r.rule_id].action for r in rows],
            "closed": [by_rule[0][r.rule_id].fails_closed for r in rows],
        }
        name = "evaluate/outcomes_blocked"
    else:
        name, params = "evaluate/outcomes", by_name(OutcomeRow._fields, rows)
    for d in read_rows(conn, name, DecidedRow, params):
        cand = by_rule[d.seq][d.rule_id]
        cand.outcome, cand.claim_key = d.outcome, d.claim_key
        per_seq[d.seq].append((cand, bool(d.closed_error)))
    for seq, decided in per_seq.items():
        evaluation = evaluations[seq]
        order = {c.rule_id: i for i, c in enumerate(evaluation.candidates)}
        evaluation.decision = decision_of(decided, order)


def _block_stands(e: Evaluation) -> bool:
    """Whether a block decides the event whatever else matched: a `block` candidate rendered
    and the loop guard does not apply (a stop that already continues because of a stop hook)."""
    ev = e.event
    if ev.stop_active and ev.point in ("stop", "subagent.stop"):
        return False
    return any(c.matched and c.action == "block" and c.rendered is not None for c in e.candidates)


def decision_of(rows: list[tuple[Candidate, bool]], rule_order: dict[str, int]) -> Decision:
    """The answer from the decided candidates, each with whether it failed under
    `fail: closed`, in output order; reasons go in rule order."""
    d = Decision()
    verdict_rows: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    for cand, closed_error in rows:
        rule_id, outcome = cand.rule_id, cand.outcome
        text = cand.rendered.text if cand.rendered is not None else ""
        if closed_error:
            # docs/design/runtime.md#a-rule-that-fails: a failing `fail: closed` rule turns the
            # verdict to deny.
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
            if cand.action == "inject":
                d.contexts.append(text)
            elif cand.action == "warn":
                d.messages.append(text)
                model_text = cand.rendered.model_text if cand.rendered is not None else None
                if model_text:
                    d.contexts.append(model_text)
            elif cand.action == "redact":
                # the output is replaced after the decision (redaction.py); the text is told
                # where the client takes the replacement (harnesses/answer.py deliverable)
                if d.redaction is None:
                    d.redaction = Redaction([], [])
                d.redaction.rules.append(rule_id)
                d.redaction.texts.append(text)
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
