"""`style allow`: the person lets one refused tool call through, once or for the session.

See docs/design/cli.md#allowances.

An allowance names the refused event, the rules that refused it, and the call's key (harness
native tool plus the whole input: `harnesses/payload.py` `call_key`). One refusal gets one
allowance: asking again says it is granted (or widens it to the session), it never adds a
pass. When the same call comes again in the same session, `apply_allowances` (run by
`evaluate` inside the event's transaction) lifts exactly those rules' refusals: their hits
become `user-allowed`, the use is recorded, and the event's answer is decided again without
them. A call that another rule still blocks stays blocked and uses nothing up. Only tool calls
can be allowed: a refused prompt is the person's own to send again, and a refused stop sends the
agent back until the rule's condition (or the loop guard) lets it finish.

Allow codes: a package with `allow_code: true` has its refusals end with a short code
(`style allow k7f3`) the person types instead of an event id. The code is derived from the
refused event (harness, session, event id, call key), so nothing more is stored and
`style allow CODE` finds it among the recent refusals. It need not be secret: the agent sees
it in the reason anyway, and the agent's own `style allow`, in whatever form, is refused by
self-protection; the code only names one refusal exactly, where `--last` may find another
session's. It always starts with a letter, so it never reads as an event id.

Approvals come from the person (docs/design/cli.md#self-protection): the built-in self-protection
rules refuse an agent's shell call of `style allow`; the person's own terminal runs no hook.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any

from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.decision import Decision
from agentstyle.evaluator.event import CALL_KEY_FIELD
from agentstyle.evaluator.records import (
    AllowanceIdRow,
    AllowanceRow,
    AllowanceUse,
    GrantedRow,
    OfferedRow,
    RefusedRow,
    RuleIdRow,
)
from agentstyle.evaluator.statements import execute, read_row, read_rows
from agentstyle.evaluator.store import Connection
from agentstyle.harnesses.facts import Can

REFUSING = ("blocked", "asked")
LIFTED = "user-allowed"
SELF_PROTECT_PREFIX = "style/self-protect"
# Allow codes: a letter, then letters or digits; no i, l, o, 0 or 1 (misread, mistyped).
CODE_LETTERS = "abcdefghjkmnpqrstuvwxyz"
CODE_CHARS = CODE_LETTERS + "23456789"
CODE_LENGTH = 4
TOOL_CALL_POINTS = frozenset({"tool.pre"})  # where a refused call can be let through
_KINDS = {"prompt.submitted": "prompt", "stop": "stop", "subagent.stop": "subagent stop"}


def allow_code(harness: str, session_id: str, event_id: int, call_key: str) -> str:
    """The short code of one refused call (the same inputs give the same code)."""
    digest = hashlib.sha256(f"{harness}\0{session_id}\0{event_id}\0{call_key}".encode()).digest()
    chars = [CODE_LETTERS[digest[0] % len(CODE_LETTERS)]]
    chars += [CODE_CHARS[b % len(CODE_CHARS)] for b in digest[1:CODE_LENGTH]]
    return "".join(chars)


def looks_like_code(text: str) -> bool:
    t = text.strip().lower()
    return len(t) == CODE_LENGTH and t[0] in CODE_LETTERS and all(c in CODE_CHARS for c in t)


def code_sentence(code: str) -> str:
    """What a refusal carrying an allow code ends with (the agent relays it to the person)."""
    return f"To let this call through once, the user runs `style allow {code}` in their terminal."


@dataclass(frozen=True, slots=True)
class Refusal:
    event_id: int
    ts: Any
    harness: str
    native_event: str
    point: str | None
    session_id: str
    native_tool: str | None
    verdict: str
    call_key: str | None
    rules: list[str]
    command: str | None
    path: str | None
    said: str | None = None

    @property
    def tool_call(self) -> bool:
        """Whether it refused a tool call: the only refusals `style allow` lets through."""
        return self.point in TOOL_CALL_POINTS

    @property
    def kind(self) -> str:
        """What was refused: `tool call`, `prompt`, `stop`, `subagent stop`."""
        if self.tool_call:
            return "tool call"
        return _KINDS.get(self.point or "", self.native_event or "event")

    @property
    def what(self) -> str:
        """The refusal in a few words: the command, the file, or what the agent said."""
        if self.tool_call:
            if self.command:
                return " ".join(self.command.split())[:120]
            if self.path:
                return self.path
            return self.native_tool or "call"
        said = " ".join((self.said or "").split())
        said = said if len(said) <= 80 else said[:79] + "…"
        return f"{self.kind}: {said}" if said else self.kind

    @property
    def code(self) -> str | None:
        if not (self.tool_call and self.call_key):
            return None
        return allow_code(self.harness, self.session_id, self.event_id, self.call_key)

    @property
    def self_protect(self) -> bool:
        return bool(self.rules) and all(r.startswith(SELF_PROTECT_PREFIX) for r in self.rules)


def asks_natively(harness: str, native_event: str) -> bool:
    """Whether the harness put an `ask` to the person itself at this native event (then the
    person already answered it there); otherwise STYLE's ask was delivered as a refusal."""
    from agentstyle.harnesses import visitors
    from agentstyle.harnesses.facts import spec_for

    # (another harness's payload may come through this one's config: Cursor's, Claude Code's)
    for name in (harness, *visitors(harness)):
        spec = spec_for(name).spec_of(native_event)
        if spec is not None:
            return Can.ASK in spec.capabilities and not spec_for(name).ask_may_refuse
    return False


def refused(row: RefusedRow) -> Refusal:
    return Refusal(
        int(row.event_id),
        row.ts,
        str(row.harness),
        str(row.native_event),
        row.point,
        str(row.session_id or ""),
        row.native_tool,
        str(row.verdict),
        row.call_key,
        list(row.rules or []),
        row.command,
        row.path,
        row.said,
    )


def is_refusal(r: Refusal) -> bool:
    return r.verdict == "block" or (
        r.verdict == "ask" and not asks_natively(r.harness, r.native_event)
    )


def refusals(conn: Connection, event_id: int | None = None) -> list[Refusal]:
    """Recent refusals, newest first (or the one event asked for, when it was refused)."""
    rows = read_rows(conn, "allow/refused", RefusedRow, {"event_id": event_id})
    return [r for r in map(refused, rows) if is_refusal(r)]


def _not_allowable(r: Refusal) -> StyleError:
    why = {
        "prompt": "send it again once the rule allows it",
        "stop": "the agent finishes once the rule's condition no longer holds (or the loop "
        "guard lets it)",
        "subagent stop": "the subagent finishes once the rule's condition no longer holds",
    }.get(r.kind, "")
    return StyleError(
        f"event {r.event_id} refused a {r.kind} ({r.harness} {r.native_event}), not a tool call: "
        "only a refused tool call can be allowed" + (f"; {why}" if why else "")
    )


def managed_rules(conn: Connection) -> frozenset[str]:
    """The rules of the organisation's layer, which no allowance lifts."""
    return frozenset(str(r.rule_id) for r in read_rows(conn, "allow/managed_rules", RuleIdRow))


def _managed_refusal(r: Refusal, managed: frozenset[str]) -> StyleError | None:
    held = [rule for rule in r.rules if rule in managed]
    if not held:
        return None
    return StyleError(
        f"event {r.event_id} was refused by `{held[0]}`, a rule of the organisation's managed "
        "policy: `style allow` cannot let it through (ask whoever manages the policy)"
    )


def pick(conn: Connection, target: int | str | None) -> Refusal:
    """The refusal `style allow` answers: the event id or allow code named, else the last
    refused tool call that is not a self-protection refusal (nor a managed rule's)."""
    chosen = _pick(conn, target)
    problem = _managed_refusal(chosen, managed_rules(conn))
    if problem is not None:
        raise problem
    return chosen


def _pick(conn: Connection, target: int | str | None) -> Refusal:
    found = refusals(conn, target if isinstance(target, int) else None)
    if isinstance(target, int):
        if not found:
            raise StyleError(f"event {target} is not a call STYLE refused")
        if not found[0].tool_call:
            raise _not_allowable(found[0])
        return found[0]
    if isinstance(target, str):
        code = target.strip().lower()
        matches = [r for r in found if r.code == code]
        if not matches:
            raise StyleError(
                f"no recent refusal has the allow code `{target}` (run `style allow` to list "
                "the recent refusals with their ids)"
            )
        if len(matches) > 1:
            ids = ", ".join(str(r.event_id) for r in matches)
            raise StyleError(f"the allow code `{target}` names {len(matches)} refusals "
                             f"(events {ids}); give the event id")  # fmt: skip
        return matches[0]
    managed = managed_rules(conn)
    for r in found:
        if r.tool_call and not r.self_protect and not any(x in managed for x in r.rules):
            return r
    for r in found:
        problem = _managed_refusal(r, managed) if r.tool_call else None
        if problem is not None:
            raise problem  # the last refused tool call was the organisation's rule's
    others = [r for r in found if not r.tool_call]
    if others:
        raise StyleError(
            f"no refused tool call in this project's history (the last refusal, event "
            f"{others[0].event_id}, was a {others[0].kind}: only tool calls can be allowed)"
        )
    raise StyleError("no refused call in this project's history")


@dataclass(frozen=True, slots=True)
class Grant:
    allowance: int
    status: str  # granted | already | widened
    scope: str  # once | session
    uses: int = 0


def grant(conn: Connection, refusal: Refusal, *, session: bool) -> Grant:
    """Record the allowance of a refused tool call; one per refusal (see the module doc)."""
    if not refusal.tool_call:
        raise _not_allowable(refusal)
    if not refusal.call_key:
        raise StyleError(
            f"event {refusal.event_id}: the history has no record of that call's input "
            "(is `log: off` set in style.lock.yaml?); nothing allowed"
        )
    if not refusal.rules:
        raise StyleError(f"event {refusal.event_id}: no rule refused it; nothing to allow")
    row = read_row(conn, "allow/granted", GrantedRow, {"event_id": refusal.event_id})
    if row is not None:
        allowance, scope, uses = int(row.allowance_id), str(row.scope), int(row.uses)
        if session and scope == "once":
            execute(conn, "allow/widen", {"allowance_id": allowance})
            return Grant(allowance, "widened", "session", uses)
        if scope == "once" and uses > 0:
            raise StyleError(
                f"event {refusal.event_id} was allowed once (allowance {allowance}) and that pass "
                "was used; allow the call's new refusal, or give --session"
            )
        return Grant(allowance, "already", scope, uses)
    created = dt.datetime.now(tz=dt.UTC).replace(tzinfo=None)
    granted = AllowanceRow(
        created=created,
        harness=refusal.harness,
        session_id=refusal.session_id,
        event_id=refusal.event_id,
        rule_ids=refusal.rules,
        native_tool=refusal.native_tool,
        call_key=refusal.call_key,
        scope="session" if session else "once",
    )
    inserted = read_row(conn, "allow/insert", AllowanceIdRow, granted._asdict())
    assert inserted is not None
    return Grant(int(inserted.allowance_id), "granted", "session" if session else "once")


def apply_allowances(
    conn: Connection, evaluations: list[Any], log: str = "hits", held: Any = None
) -> None:
    """Lift the refusals the person allowed, then offer allow codes on what stays refused;
    inside the caller's transaction.

    Called by `evaluate.decide` once the outcomes are known, before they are recorded; an
    evaluation without a refusal costs nothing (no query). A block is lifted only when every
    rule that blocked is allowed (else nothing is used up); an ask that the block had
    suppressed then stands on its own. `held` (evaluate.Held, a resident engine's) names the
    sessions that hold an allowance and the rules that offer allow codes, so those are not
    queried per refused call.
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
    if held is not None and not any(
        (e.event.harness, e.event.session_id) in held.allowed for e, *_ in refused
    ):
        _offer_codes(conn, [evaluation for evaluation, *_ in refused], log, held)
        return  # no allowance in these sessions: nothing to look up
    # One query for the batch's refused calls; a `once` allowance an earlier call of the batch
    # used up is not offered again.
    offered: dict[int, list[tuple[int, list[str], str]]] = {}
    calls = {
        "seq": list(range(len(refused))),
        "harness": [e.event.harness for e, *_ in refused],
        "session_id": [e.event.session_id for e, *_ in refused],
        "call_key": [key for _e, key, *_ in refused],
    }
    for o in read_rows(conn, "evaluate/allowances", OfferedRow, calls):
        offered.setdefault(int(o.seq), []).append(
            (int(o.allowance_id), list(o.rule_ids or []), o.scope)
        )
    used: set[int] = set()
    # An allowance never names a managed rule (`pick` refuses it), but one written by other
    # means still does not lift the organisation's rule.
    managed = managed_rules(conn) if offered else frozenset()
    for seq, (evaluation, _key, blocked, asked) in enumerate(refused):
        decision: Decision = evaluation.decision
        lifted: dict[str, int] = {}
        for allowance_id, rule_ids, scope in offered.get(seq, []):
            if scope != "session" and allowance_id in used:
                continue
            for cand in blocked + asked:
                if cand.rule_id in managed:
                    continue
                if cand.rule_id in rule_ids and cand.rule_id not in lifted:
                    lifted[cand.rule_id] = allowance_id
        if not lifted or any(c.rule_id not in lifted for c in blocked):
            continue  # still refused by a rule the person did not allow: nothing used up
        if decision.verdict == "ask" and not any(c.rule_id in lifted for c in asked):
            continue
        # The event's hits are recorded after this (evaluate.record), with these outcomes.
        for rule_id, allowance_id in lifted.items():
            use = AllowanceUse(
                allowance_id=allowance_id, event_id=evaluation.event_id, rule_id=rule_id
            )
            execute(conn, "allow/record_use", use._asdict())
        for allowance_id in dict.fromkeys(lifted.values()):
            execute(conn, "allow/count_use", {"allowance_id": allowance_id})
            used.add(allowance_id)
        standing = [c for c in asked if c.rule_id not in lifted]
        for cand in standing:
            if cand.outcome == "block-suppressed":
                cand.outcome = "asked"
        for cand in evaluation.candidates:
            if cand.rule_id in lifted:
                cand.outcome = LIFTED
        evaluation.decision = _decided_again(decision, blocked + asked, standing)
    _offer_codes(conn, [evaluation for evaluation, *_ in refused], log, held)


def _offer_codes(conn: Connection, evaluations: list[Any], log: str, held: Any = None) -> None:
    """End each refused tool call's reason with its allow code, when every rule that refused it
    belongs to a package with `allow_code: true` and `style allow` could find it again. One
    query for the batch (replay refuses thousands of calls)."""
    if log == "off":
        return  # the history keeps no call key: `style allow` could not find the call again
    offers: list[tuple[Any, str, list[str]]] = []
    for evaluation in evaluations:
        decision: Decision = evaluation.decision
        ev = evaluation.event
        if decision.verdict not in ("block", "ask") or ev.point not in TOOL_CALL_POINTS:
            continue
        if decision.verdict == "ask" and asks_natively(ev.harness, ev.native_event):
            continue  # the harness asks the person itself
        key = ev.first(CALL_KEY_FIELD)
        refusing = [c.rule_id for c in evaluation.candidates if c.outcome in REFUSING]
        if key is not None and refusing:
            offers.append((evaluation, key, refusing))
    if not offers:
        return
    if held is not None:
        coded: set[str] | frozenset[str] = held.coded
    else:
        asked = sorted({r for *_, refusing in offers for r in refusing})
        rows = read_rows(conn, "allow/coded_rules", RuleIdRow, {"rule_ids": asked})
        coded = {r.rule_id for r in rows}
    for evaluation, key, refusing in offers:
        if not set(refusing) <= coded:
            continue
        ev = evaluation.event
        code = allow_code(ev.harness, ev.session_id, int(evaluation.event_id), key)
        evaluation.decision.reasons = [*evaluation.decision.reasons, code_sentence(code)]


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
