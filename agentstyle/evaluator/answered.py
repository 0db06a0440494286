"""One answer per event when more than one STYLE handler fires for it.

See docs/design/runtime.md#answered-once.

A user install and a project install (or a plugin beside a settings install) each put a STYLE
handler on the same native event; the client runs both and merges their answers. Both reach
the same database (the nearest `.style/`, which holds every layer's rules), and the database
lock orders them: the first evaluates, records the event and keeps its verdict under the
event's identity; a later handler with the same identity records nothing and answers so that
the client's merge is exactly the first answer: a refusal (block, ask) is repeated, so it
stands even where the first process died after deciding, and everything else (context, a
warning, an allow) is not given twice: no opinion.
"""

from __future__ import annotations

from agentstyle.evaluator.decision import Decision
from agentstyle.evaluator.event import Event
from agentstyle.evaluator.records import AnsweredRow
from agentstyle.evaluator.statements import execute, read_row
from agentstyle.evaluator.store import Connection

# The handlers of one event start together; a later one waits at most its deadline for the
# lock. An identical payload after this long is a new event (a prompt sent again).
WINDOW_S = 10.0
# (`.style/answer-once`, folders.ANSWER_ONCE_NAME: written by install when another layer's
# handlers may fire beside this root's; without it no identity is looked up.)
REFUSALS = ("block", "ask")


def identity_of(event: Event, stdin: bytes) -> str:
    """What every STYLE handler of one event computes alike: harness, session, native event,
    and the call's id, else the digest of the payload the client sent them all."""
    import hashlib

    which = event.call_id or "sha256:" + hashlib.sha256(stdin).hexdigest()
    return "\0".join((event.harness, event.session_id, event.native_event, which))


def earlier(conn: Connection, identity: str) -> Decision | None:
    """The answer for a handler that comes second: None when this one is the first."""
    row = read_row(conn, "evaluate/answered_find", AnsweredRow, _window(identity))
    if row is None:
        return None
    if row.verdict in REFUSALS:
        return Decision(verdict=str(row.verdict), reasons=[str(r) for r in row.reasons or []])
    return Decision()


def keep(conn: Connection, identity: str, event_id: int | None, decision: Decision) -> None:
    """Note the first handler's verdict, inside the transaction that records its event."""
    execute(conn, "evaluate/answered_prune", _window(identity))
    kept = {"verdict": decision.verdict, "reasons": decision.reasons}
    execute(conn, "evaluate/answered_keep", {"identity": identity, "event_id": event_id, **kept})


def _window(identity: str) -> dict[str, object]:
    return {"identity": identity, "window_s": WINDOW_S}
