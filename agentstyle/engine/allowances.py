"""`style allow` (cli.md): the person lets one refused call through, once or for the session.

An allowance names the refused event, the rules that refused it, and the call's key (harness
native tool, or `prompt`, plus the whole input: `harnesses/common.py` `call_key`). When the
same call comes again in the same session, `apply_allowances` (run by `evaluate` inside the
event's transaction) lifts exactly those rules' refusals: their hits become `user-allowed`, the
use is recorded, and the event's answer is decided again without them. A call that another rule
still blocks stays blocked and uses nothing up.

Approvals come from the person (seed 003): the built-in self-protection rules refuse an agent's
shell call of `style allow`; the person's own terminal runs no hook.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from agentstyle.diagnostics import StyleError
from agentstyle.engine.decision import Decision
from agentstyle.engine.event import CALL_KEY_FIELD
from agentstyle.engine.store import Connection, sql
from agentstyle.harnesses.base import ASK

REFUSING = ("blocked", "asked")
LIFTED = "user-allowed"
SELF_PROTECT_PREFIX = "style/self-protect"


@dataclass(frozen=True, slots=True)
class Refusal:
    event_id: int
    ts: Any
    harness: str
    native_event: str
    session_id: str
    native_tool: str | None
    verdict: str
    call_key: str | None
    rules: list[str]
    command: str | None
    path: str | None

    @property
    def what(self) -> str:
        """The call in a few words."""
        if self.command:
            return " ".join(self.command.split())[:120]
        if self.path:
            return self.path
        return self.native_tool or ("prompt" if self.native_event else "call")

    @property
    def self_protect(self) -> bool:
        return bool(self.rules) and all(r.startswith(SELF_PROTECT_PREFIX) for r in self.rules)


def asks_natively(harness: str, native_event: str) -> bool:
    """Whether the harness put an `ask` to the person itself at this native event (then the
    person already answered it there); otherwise STYLE's ask was delivered as a refusal."""
    from agentstyle.harnesses import spec_for

    for name in (harness, "cursor"):  # a Cursor payload may arrive through a Claude config
        spec = spec_for(name).spec_of(native_event)
        if spec is not None:
            return ASK in spec.capabilities and not spec_for(name).ask_may_refuse
    return False


def refused(row: tuple[Any, ...]) -> Refusal:
    (event_id, ts, harness, native, session, tool, verdict, key, rules, command, path) = row
    return Refusal(
        int(event_id),
        ts,
        str(harness),
        str(native),
        str(session or ""),
        tool,
        str(verdict),
        key,
        list(rules or []),
        command,
        path,
    )


def is_refusal(r: Refusal) -> bool:
    return r.verdict == "block" or (
        r.verdict == "ask" and not asks_natively(r.harness, r.native_event)
    )


def refusals(conn: Connection, event_id: int | None = None) -> list[Refusal]:
    """Recent refused calls, newest first (or the one event asked for, when it was refused)."""
    rows = conn.execute(sql("allow/refused"), [event_id]).fetchall()
    return [r for r in map(refused, rows) if is_refusal(r)]


def pick(conn: Connection, event_id: int | None) -> Refusal:
    """The refusal `style allow` answers: the event named, else the last one that is not a
    self-protection refusal."""
    found = refusals(conn, event_id)
    if event_id is not None:
        if not found:
            raise StyleError(f"event {event_id} is not a call STYLE refused")
        return found[0]
    for r in found:
        if not r.self_protect:
            return r
    raise StyleError("no refused call in this project's history")


def grant(conn: Connection, refusal: Refusal, *, session: bool) -> int:
    """Record an allowance for a refused call; its id."""
    if not refusal.call_key:
        raise StyleError(
            f"event {refusal.event_id}: the history has no record of that call's input "
            "(is `log: off` set in style.lock.yaml?); nothing allowed"
        )
    if not refusal.rules:
        raise StyleError(f"event {refusal.event_id}: no rule refused it; nothing to allow")
    created = dt.datetime.now(tz=dt.UTC).replace(tzinfo=None)
    row = conn.execute(
        sql("allow/insert"),
        [
            created,
            refusal.harness,
            refusal.session_id,
            refusal.event_id,
            refusal.rules,
            refusal.native_tool,
            refusal.call_key,
            "session" if session else "once",
        ],
    ).fetchone()
    assert row is not None
    return int(row[0])


def apply_allowances(conn: Connection, evaluations: list[Any]) -> None:
    """Lift the refusals the person allowed, inside the caller's transaction.

    Called by `evaluate.decide` once the outcomes are known, before they are recorded; an
    evaluation without a refusal costs nothing (no query). A block is lifted only when every
    rule that blocked is allowed (else nothing is used up); an ask that the block had
    suppressed then stands on its own.
    """
    refused: list[tuple[Any, str, list[Any], list[Any]]] = []
    for evaluation in evaluations:
        if evaluation.decision.verdict not in ("block", "ask"):
            continue
        key = evaluation.event.first(CALL_KEY_FIELD)
        cands = evaluation.candidates
        blocked = [c for c in cands if c.outcome == "blocked"]
        asked = [
            c
            for c in cands
            if c.outcome == "asked" or (c.outcome == "block-suppressed" and c.action == "ask")
        ]
        if key is not None and (blocked or asked):
            refused.append((evaluation, key, blocked, asked))
    if not refused:
        return
    # One query for the batch's refused calls; a `once` allowance an earlier call of the batch
    # used up is not offered again.
    offered: dict[int, list[tuple[int, list[str], str]]] = {}
    for seq, allowance_id, rule_ids, scope in conn.execute(
        sql("evaluate/allowances"),
        [
            list(range(len(refused))),
            [e.event.harness for e, *_ in refused],
            [e.event.session_id for e, *_ in refused],
            [key for _e, key, *_ in refused],
        ],
    ).fetchall():
        offered.setdefault(int(seq), []).append((int(allowance_id), list(rule_ids or []), scope))
    used: set[int] = set()
    for seq, (evaluation, _key, blocked, asked) in enumerate(refused):
        decision: Decision = evaluation.decision
        lifted: dict[str, int] = {}
        for allowance_id, rule_ids, scope in offered.get(seq, []):
            if scope != "session" and allowance_id in used:
                continue
            for cand in blocked + asked:
                if cand.rule_id in rule_ids and cand.rule_id not in lifted:
                    lifted[cand.rule_id] = allowance_id
        if not lifted or any(c.rule_id not in lifted for c in blocked):
            continue  # still refused by a rule the person did not allow: nothing used up
        if decision.verdict == "ask" and not any(c.rule_id in lifted for c in asked):
            continue
        # The event's hits are recorded after this (evaluate.record), with these outcomes.
        for rule_id, allowance_id in lifted.items():
            conn.execute(sql("allow/record_use"), [allowance_id, evaluation.event_id, rule_id])
        for allowance_id in dict.fromkeys(lifted.values()):
            conn.execute(sql("allow/count_use"), [allowance_id])
            used.add(allowance_id)
        standing = [c for c in asked if c.rule_id not in lifted]
        for cand in standing:
            if cand.outcome == "block-suppressed":
                cand.outcome = "asked"
        for cand in evaluation.candidates:
            if cand.rule_id in lifted:
                cand.outcome = LIFTED
        evaluation.decision = _decided_again(decision, blocked + asked, standing)


def _decided_again(before: Decision, refusing: list[Any], standing: list[Any]) -> Decision:
    """The answer once the allowed refusals are gone: the asks still standing, and the outputs
    that were emitted alongside an ask (under a block nothing else was emitted)."""
    after = Decision()
    if before.verdict == "ask":
        after.contexts, after.messages = list(before.contexts), list(before.messages)
        refusers = {c.rule_id for c in refusing}
        after.rules = [r for r in before.rules if r not in refusers]
    if standing:
        after.verdict = "ask"
        after.reasons = [c.rendered.text for c in standing if c.rendered and c.rendered.text]
        after.rules = [c.rule_id for c in standing] + after.rules
    return after
