"""Replay recorded sessions through the SQL evaluator into a private in-memory database.

`style replay` (docs/audit.md#replay) answers "what would this policy have done in the
sessions we already had?". The policy is compiled into an in-memory DuckDB; the recorded
events (audit/transcripts.py) are normalized by the harness adapter and evaluated by the one
evaluator, `evaluate()`, many events per call; the `rules` report is the same SQL
(`sql/audit/rules.sql`) run over that database. The project's own database is not even
opened: nothing reaches its history.

Which events: only those the installed hooks would have received — a native event with a
STYLE handler in the harness config `style install` writes for this policy, and for tool
events a tool name its matcher accepts. Other events never reach STYLE in a live session,
so they are not in its history and do not count in `state.*`. Each event keeps its recorded
time, so `state.since_last_s` and the report's times follow the session as it happened.
Field values are stored as a hook with `log: hits` stores them (the examples need them).
The command (cli/replay.py) adds the built-in self-protection package, as install does.

Checks are not run (docs/design/replay.md#checks): a check rule whose event part holds gets
its outcome `check-due`, counted as a check that would have started, and a recorded check's
result (an exported `check.done` event, a payload carrying `style_check`) is not a harness
event: it is left out, so the replayed policy's rules are not decided on another policy's
check results.

Batches and exactness
---------------------

`evaluate()` decides a whole batch in SQL. Session bookkeeping (generation, compaction round,
prompt count), event ids, `state.turns`, `state.tool_calls` and `state.failures` are window
functions over the batch in order, the lists over what the session did
(`state.commands_since_edit`, `state.files_edited`, `state.commands_failed`) read the stored
session facts and those of the batch's own earlier events (evaluate/history_state.sql), and
dedup inside the batch is `row_number()` over the claim key: the first row of a key is decided
against the stored claims, later rows of the same key are suppressed. Outcomes of a batch are
*prefix-closed*: an event's outcome depends only on the history before the batch and on the
events before it in the batch, so evaluating the first j events of a batch alone gives them the
same outcomes.

Evaluating one event at a time (what the hooks do) differs from that only where a later event
depends on an earlier event's *outcome*, which the batch query cannot see:

1. a later row of a claim key is suppressed because an earlier row of the key is in the batch,
   but that earlier row registered no claim (it was `block-suppressed`, `budget-dropped` or
   an `error`), so one at a time the later row would emit;
2. a rule with `refresh: N` is suppressed by an earlier row of its key in the batch, but one at
   a time N prompts would have passed since its last claim, so it would emit again;
3. a rule reading `state.rule_hits` or `state.since_last_s` counts the rule's hits before the
   event, and the hits of the batch's own earlier events are not stored yet.

So every batch is evaluated speculatively inside a transaction and then checked, event by
event in order, for those three dependencies (`first_dependent`). The check only looks at the
evaluator's results (candidates, outcomes, rendered hashes, bookkeeping); it never decides an
outcome itself. Keys are compared conservatively: (session, rule, rendered hash) stands for
the claim key when looking for an earlier row that could be the cause, and a finer key
(adding generation and compaction round, or the turn) when ruling one out, so a dependency is
never missed, at worst a batch is cut early. When an event j depends on an undecided earlier
one, the transaction is rolled back, the events before j are evaluated again as their own
batch (by prefix-closure they get exactly the outcomes they had) and committed, and the next
batch starts at j, where nothing undecided precedes it in its batch. Candidates that did not
match are only needed for case 3, so the trace is asked for only when the policy reads
per-rule state. The batch size adapts: it halves down after a cut and doubles back to the
maximum after a clean batch, so rare dependencies cost little and frequent ones (a `refresh`
rule at every prompt) do not make every batch be evaluated twice.

`tests/test_replay.py` holds each case against the same events evaluated one at a time and
against the real hook command.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import polars as pl

from agentstyle.audit.report import Filters, Frame, run_report
from agentstyle.audit.rows import RuleFactRow
from agentstyle.audit.transcripts import Recorded, short
from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.compiled import PolicyErrors
from agentstyle.evaluator.evaluate import evaluate
from agentstyle.evaluator.evaluation import EMITTING, Evaluation
from agentstyle.evaluator.event import Event
from agentstyle.evaluator.fixes import Fixing, fixed_by
from agentstyle.evaluator.paths import StylePaths
from agentstyle.evaluator.statements import read_rows
from agentstyle.evaluator.store import Connection, memory_store, replace_policy, transaction
from agentstyle.harnesses import adapter_for
from agentstyle.harnesses.facts import spec_for
from agentstyle.install.handlers import handler_groups
from agentstyle.install.lockfile import read_lock
from agentstyle.policy.compile import Compiled, compile_policy, load_and_validate
from agentstyle.policy.plan import matcher_accepts
from agentstyle.vocabulary import CHECK_KEY, CHECK_POINT

DEFAULT_BATCH = 2000
MIN_BATCH = 16
EXAMPLES = 3
# The outcomes `state.rule_hits` / `state.since_last_s` count (sql/evaluate/match.sql).
COUNTED = frozenset({"emitted", "blocked", "asked", "allowed", "budget-truncated", "fixed"})
# Outcomes of an inject/warn row that register no claim although the row had a claim key.
UNCLAIMED = frozenset({"block-suppressed", "budget-dropped", "error"})
# Outcomes an example should show first: what the rule did to the session.
EFFECTIVE = ("fixed", "blocked", "asked", "allowed", "emitted", "budget-truncated")
# Fields that say best what an event was about, for examples.
INPUT_FIELDS = (
    "tool.input.command",
    "file.path",
    "tool.input.url",
    "tool.input.query",
    "tool.input.pattern",
    "tool.input.prompt",
    "prompt",
    "response.text",
    "session.source",
)
Progress = Callable[[int, int], None]


# -- the policy ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Policy:
    """A compiled policy in its own in-memory database, and the hooks it would install."""

    conn: Connection
    compiled: Compiled
    harness: str
    packages: list[str]  # package names, evaluation order
    # native event → the tool matcher of its handler (None: every call)
    handlers: dict[str, str | None]
    refresh: dict[str, int] = field(default_factory=dict)
    reads_rule_state: frozenset[str] = frozenset()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


def installed_packages(root: Path) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """The packages `style.lock.yaml` names (absolute paths) and the settings chosen for them."""
    paths = StylePaths(root)
    lock = read_lock(paths.lockfile)
    if not lock.packages:
        raise StyleError(
            f"no installed packages in {paths.lockfile}; name the packages with --package"
        )
    from agentstyle.install.library import ref_path

    packages = [ref_path(root, ref) for ref in lock.packages]
    return packages, dict(lock.settings)


def load_policy(
    packages: list[str],
    harness: str,
    settings: dict[str, dict[str, Any]] | None = None,
    *,
    layered: Path | None = None,
) -> Policy:
    """Compile `packages` for `harness` (settings as the lock file chose them) into memory;
    `layered`: with the managed and user policies that apply in that install root, as its
    hooks evaluate them (docs/harnesses/index.md#layers)."""
    loaded = load_and_validate(packages)
    chosen = dict(settings or {})
    taken = None
    if layered is not None and loaded.ok:
        from agentstyle.install import layers

        taken = layers.take_in(layered, loaded)
        chosen = {**taken.settings, **chosen}
    compiled = compile_policy(loaded, [harness], chosen)
    if not compiled.ok:
        raise PolicyErrors(compiled)
    if taken is not None and layered is not None:
        from agentstyle.install import layers

        layers.stamp(compiled.rows, taken.layer_of, layers.own_layer(layered))
    conn = memory_store()
    try:
        replace_policy(conn, compiled.rows)
        facts = read_rows(conn, "replay/rule_facts", RuleFactRow)
    except BaseException:
        conn.close()
        raise
    groups = handler_groups(compiled.plan, harness, False)
    handlers = {event: gs[0].get("matcher") if gs else None for event, gs in groups.items()}
    return Policy(
        conn,
        compiled,
        harness,
        [row.name for row in compiled.rows.packages],
        handlers,
        {str(f.rule_id): int(f.refresh) for f in facts},
        frozenset(str(f.rule_id) for f in facts if f.uses_rule_state),
    )


def delivered(policy: Policy, rec: Recorded) -> bool:
    """Whether the installed hooks would have handed this event to STYLE."""
    if rec.event is not None and rec.event.harness != policy.harness:
        return False  # an export of another harness's events
    if rec.native_event not in policy.handlers:
        return False
    matcher = policy.handlers[rec.native_event]
    if matcher is None:
        return True
    name = rec.payload.get("tool_name") if rec.event is None else rec.event.native_tool
    return matcher_accepts(matcher, str(name or ""))


# -- evaluation ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Example:
    """One event a rule had an outcome on, as the replay report shows it."""

    rule: str
    outcome: str
    event: str  # native event
    tool: str  # native tool name, or the point for events without a tool
    input: str
    output: str
    session: str
    origin: str  # `file:line` of the source

    def as_dict(self) -> dict[str, str]:
        """Every field but the rule (the report lists the examples under their rule)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "rule"}


@dataclass(slots=True)
class Replayed:
    """A replay's database (history of the replayed events) and what was seen on the way."""

    policy: Policy
    recorded: int  # events read from the sources
    evaluated: int  # events delivered to STYLE and evaluated
    unknown: int  # events of a native event the harness adapter does not know
    batches: int = 0
    cuts: int = 0  # batches cut short at an event depending on an undecided one
    check_results: int = 0  # recorded results of checks, left out (not harness events)
    checks_due: int = 0  # checks the replayed events would have started (none is run)
    seconds: float = 0.0
    # per recorded event: the verdict ("none" for no opinion), None when not delivered
    verdicts: list[str | None] = field(default_factory=list)
    # per recorded event: rule → outcome, for the events delivered
    outcomes: list[dict[str, str]] = field(default_factory=list)
    examples: dict[str, list[Example]] = field(default_factory=dict)

    @property
    def conn(self) -> Connection:
        return self.policy.conn


def normalized(policy: Policy, rec: Recorded) -> Event | None:
    """The recorded event as the harness adapter normalizes it, at its recorded time."""
    if rec.event is not None:
        return _copy(rec.event)
    ev: Event = adapter_for(policy.harness).normalize(rec.payload, rec.native_event)
    if ev.point is None:
        return None
    if rec.ts:
        ev.ts = rec.ts
    return ev


def _copy(ev: Event) -> Event:
    """A fresh copy: the evaluator adds `model`/`provider` rows to the events it is given."""
    return replace(ev, fields=list(ev.fields), notes=list(ev.notes))


def replay(
    policy: Policy,
    recorded: list[Recorded],
    *,
    batch_size: int = DEFAULT_BATCH,
    examples: int = EXAMPLES,
    progress: Progress | None = None,
) -> Replayed:
    """Evaluate the recorded events in order through `evaluate()` into the policy's database."""
    started = time.perf_counter()
    index: list[int] = []  # position in `recorded` of each event to evaluate
    events: list[Event] = []
    fixings: list[Fixing | None] = []  # how each refused shell call is fixed (evaluator/fixes.py)
    adapter = adapter_for(policy.harness)
    unknown = 0
    results = 0
    spec = spec_for(policy.harness)
    for i, rec in enumerate(recorded):
        if is_check_result(rec):
            results += 1
            continue
        if rec.event is None and spec.point_of(rec.native_event) is None:
            unknown += 1
            continue
        if not delivered(policy, rec):
            continue
        ev = normalized(policy, rec)
        if ev is None:
            unknown += 1
            continue
        index.append(i)
        events.append(ev)
        # An event recorded already normalized has no payload to rebuild it from.
        fixings.append(
            adapter.fixing(rec.payload, rec.native_event, ev) if rec.event is None else None
        )
    # The recorded events live until the end: frozen, the collector stops walking them after
    # every batch's garbage (a third of a large replay's time, bench/RESULTS.md).
    gc.freeze()
    try:
        result = _evaluated(
            policy, recorded, index, events, fixings, unknown, batch_size, examples, progress
        )
    finally:
        gc.unfreeze()
    result.check_results = results
    result.seconds = time.perf_counter() - started
    return result


def is_check_result(rec: Recorded) -> bool:
    """A check's result as recorded (a `check.done` event, or the payload its runner handed
    to the hook): not something the harness sent, so never replayed."""
    if rec.event is not None:
        return rec.event.point == CHECK_POINT
    return CHECK_KEY in rec.payload


def _evaluated(
    policy: Policy,
    recorded: list[Recorded],
    index: list[int],
    events: list[Event],
    fixings: list[Fixing | None],
    unknown: int,
    batch_size: int,
    examples: int,
    progress: Progress | None,
) -> Replayed:
    result = Replayed(policy, len(recorded), len(events), unknown)
    result.verdicts = [None] * len(recorded)
    result.outcomes = [{} for _ in recorded]
    collector = _Examples(examples)
    trace = bool(policy.reads_rule_state)
    size = max(1, batch_size)
    start = 0
    while start < len(events):
        chunk = events[start : start + size]
        fixes = fixings[start : start + size]
        evaluations, cut = _speculate(policy, chunk, fixes, trace)
        if cut is not None:
            result.cuts += 1
            chunk = chunk[: max(1, cut)]
            evaluations = _commit(policy, chunk, fixes[: len(chunk)], trace)
            size = max(min(MIN_BATCH, batch_size), size // 2)
        else:
            size = min(batch_size, size * 2) if size < batch_size else size
        result.batches += 1
        for k, evaluation in enumerate(evaluations):
            i = index[start + k]
            result.verdicts[i] = evaluation.decision.verdict or "none"
            result.outcomes[i] = {
                c.rule_id: c.outcome for c in evaluation.candidates if c.outcome is not None
            }
            result.checks_due += len(evaluation.decision.checks)
            collector.add(evaluation, recorded[i])
        start += len(chunk)
        if progress is not None:
            progress(start, len(events))
    result.examples = collector.result()
    return result


def _speculate(
    policy: Policy, events: list[Event], fixings: list[Fixing | None], trace: bool
) -> tuple[list[Evaluation], int | None]:
    """Evaluate a batch; committed when no event depends on an undecided one, else rolled
    back and the position of the first such event returned."""
    with transaction(policy.conn) as tx:
        evaluations = _evaluate(policy, events, fixings, trace)
        cut = first_dependent(evaluations, policy.refresh, policy.reads_rule_state)
        if cut is not None:
            tx.rollback()
            return [], cut
    return evaluations, None


def _commit(
    policy: Policy, events: list[Event], fixings: list[Fixing | None], trace: bool
) -> list[Evaluation]:
    with transaction(policy.conn):
        return _evaluate(policy, events, fixings, trace)


def _evaluate(
    policy: Policy, events: list[Event], fixings: list[Fixing | None], trace: bool
) -> list[Evaluation]:
    """A batch through `evaluate()`, its refused shell calls fixed where a rule says how."""
    fix = fixed_by(policy.conn, fixings) if any(f is not None for f in fixings) else None
    return evaluate(policy.conn, [_copy(e) for e in events], "hits", trace=trace, decided=fix)


def first_dependent(
    evaluations: list[Evaluation], refresh: dict[str, int], reads_rule_state: frozenset[str]
) -> int | None:
    """The position of the first event of a batch whose outcome the batch query could not
    decide exactly (the module docstring's cases 1–3), or None when every outcome is exact.

    Only the evaluator's results are read; the position is where the batch is cut.
    """
    # (session, rule, hash) → an earlier row of the batch registered no claim (case 1)
    unclaimed: dict[tuple[str, str, str], bool] = {}
    # fine key → prompt count of the last row of the batch that claimed it
    claimed: dict[tuple[Any, ...], int] = {}
    # (session, rule) of rules reading their own state that counted a hit in the batch
    counted: set[tuple[str, str]] = set()
    for pos, evaluation in enumerate(evaluations):
        sid = evaluation.event.session_id
        pc = evaluation.prompt_count
        for c in evaluation.candidates:
            if c.rule_id in reads_rule_state and (sid, c.rule_id) in counted:
                return pos  # case 3: its state counts a hit the batch has not stored
            if (
                c.outcome == "dedup-suppressed"
                and c.action in ("inject", "warn")
                and c.repeat in ("session", "turn")
            ):
                coarse = (sid, c.rule_id, _hash(c))
                if coarse in unclaimed:
                    last = claimed.get(_fine(evaluation, c))
                    every = refresh.get(c.rule_id, 0)
                    if last is not None and (every == 0 or pc - last < every):
                        continue  # an earlier claim of the very key covers it, one at a time too
                    if unclaimed[coarse] or every > 0:
                        return pos  # cases 1 and 2
        for c in evaluation.candidates:
            if c.outcome is None:
                continue
            coarse = (sid, c.rule_id, _hash(c))
            unclaimed[coarse] = unclaimed.get(coarse, False) or c.outcome in UNCLAIMED
            if c.outcome in EMITTING:
                claimed[_fine(evaluation, c)] = pc
            if c.rule_id in reads_rule_state and c.outcome in COUNTED:
                counted.add((sid, c.rule_id))
    return None


def _hash(c: Any) -> str:
    return c.rendered.hash if c.rendered is not None else ""


def _fine(evaluation: Evaluation, c: Any) -> tuple[Any, ...]:
    """At least as fine as the claim key (sql/evaluate/outcomes.sql) of the row."""
    ev = evaluation.event
    if c.repeat == "turn":
        return (
            ev.session_id,
            evaluation.generation,
            "turn",
            ev.turn_id,
            evaluation.prompt_count,
            c.rule_id,
            _hash(c),
        )
    return (ev.session_id, evaluation.generation, evaluation.compaction, c.rule_id, _hash(c))


class _Examples:
    """Up to n events per rule: those where the rule acted first, then any other outcome."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.first: dict[str, list[Example]] = {}
        self.rest: dict[str, list[Example]] = {}

    def add(self, evaluation: Evaluation, rec: Recorded) -> None:
        if self.n <= 0:
            return
        ev = evaluation.event
        for c in evaluation.candidates:
            if c.outcome is None:
                continue
            bucket = self.first if c.outcome in EFFECTIVE else self.rest
            found = bucket.setdefault(c.rule_id, [])
            if len(found) >= self.n:
                continue
            text = c.rendered.text if c.rendered is not None else (c.error or "")
            fix = evaluation.decision.fix
            if fix is not None and c.rule_id in fix.rules:  # both commands: what ran instead
                how = "ran" if fix.applied else "offered"
                text = f"{how} `{short(fix.command, 60)}`: {text}"
            found.append(
                Example(
                    c.rule_id,
                    c.outcome,
                    ev.native_event,
                    ev.native_tool or ev.point or ev.native_event,
                    _input_of(ev),
                    short(text, 100),
                    ev.session_id,
                    rec.origin,
                )
            )

    def result(self) -> dict[str, list[Example]]:
        out: dict[str, list[Example]] = {}
        for rule in dict.fromkeys([*self.first, *self.rest]):
            chosen = self.first.get(rule, [])[: self.n]
            chosen += self.rest.get(rule, [])[: self.n - len(chosen)]
            out[rule] = chosen
        return out


def _input_of(ev: Event) -> str:
    for name in INPUT_FIELDS:
        value = ev.first(name)
        if value:
            return short(value, 80)
    return short(ev.first("tool.input") or ev.point or "", 80)


# -- the report ------------------------------------------------------------------------------------


def rules_frame(result: Replayed) -> Frame:
    """The `rules` report of `style audit`, over the replay's database."""
    return run_report(result.conn, "rules", Filters())


DIFF_COUNTS = ("fired", "emitted", "blocked", "asked", "fixed", "dedup_suppressed", "excepted")


def baseline_diff(baseline: Frame, candidate: Frame) -> Frame:
    """Per rule, what changes from the baseline policy to the replayed one: rules added or
    removed, newly blocking, no longer blocking, and count changes; unchanged rules left out."""
    keep = ["rule", *DIFF_COUNTS]
    before = baseline.select(keep).rename({c: f"{c}_before" for c in DIFF_COUNTS})
    after = candidate.select(keep).rename({c: f"{c}_after" for c in DIFF_COUNTS})
    joined = before.join(after, on="rule", how="full", coalesce=True)
    rows: list[dict[str, Any]] = []
    for row in joined.iter_rows(named=True):
        change = _change(row)
        if change is None:
            continue
        out: dict[str, Any] = {"rule": row["rule"], "change": change}
        for c in DIFF_COUNTS:
            b, a = row[f"{c}_before"], row[f"{c}_after"]
            out[f"{c}_before"] = b
            out[f"{c}_after"] = a
        rows.append(out)
    schema: dict[str, Any] = {"rule": pl.String, "change": pl.String}
    for c in DIFF_COUNTS:
        schema[f"{c}_before"] = pl.Int64
        schema[f"{c}_after"] = pl.Int64
    return pl.DataFrame(rows, schema=schema, orient="row")


def _change(row: dict[str, Any]) -> str | None:
    if row["fired_before"] is None:
        return "added"
    if row["fired_after"] is None:
        return "removed"
    blocked_b, blocked_a = row["blocked_before"], row["blocked_after"]
    if blocked_b == 0 and blocked_a > 0:
        return "newly blocking"
    if blocked_b > 0 and blocked_a == 0:
        return "no longer blocking"
    if any(row[f"{c}_before"] != row[f"{c}_after"] for c in DIFF_COUNTS):
        return "counts changed"
    return None


def verdict_changes(baseline: Replayed, candidate: Replayed) -> dict[str, int]:
    """How many recorded events change verdict, `before → after` (`none`: no opinion)."""
    changes: dict[str, int] = {}
    for b, a in zip(baseline.verdicts, candidate.verdicts, strict=True):
        before, after = b or "none", a or "none"
        if before != after:
            key = f"{before} → {after}"
            changes[key] = changes.get(key, 0) + 1
    return dict(sorted(changes.items(), key=lambda kv: (-kv[1], kv[0])))


def examples_document(result: Replayed) -> dict[str, list[dict[str, str]]]:
    return {rule: [e.as_dict() for e in found] for rule, found in result.examples.items()}
