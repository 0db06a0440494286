"""The hook's part of the observer lane: due checks started, results that wait given.

It also reads a check's result as an event and stops a session's checks when it ends
(docs/observers.md)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.evaluator.checkresult import as_result as as_result  # hookrun reads results
from agentstyle.observe import accepted, deliveries, tickets
from agentstyle.observe.slots import Slot
from agentstyle.vocabulary import CHECK_KEY

if TYPE_CHECKING:
    from agentstyle.evaluator.decision import Decision
    from agentstyle.evaluator.event import Event
    from agentstyle.harnesses.facts import HarnessSpec
    from agentstyle.runtime.direct import Resident

RUNNER_MODULE = "agentstyle.observe.runner"
UNACCEPTED = (
    "STYLE: the check of rule `{rule}` did not run: it runs only after you allow it in your "
    "own terminal (`style allow --checks`)"
)


def result_answer(decision: Decision) -> tuple[str, str, int]:
    """What the runner reads back of a result's evaluation (observe/runner.py submit)."""
    said = {"contexts": decision.contexts, "messages": decision.messages}
    return json.dumps({CHECK_KEY: said}, ensure_ascii=False), "", 0


def start(
    home: Path,
    spec: HarnessSpec,
    event: Event,
    payload: dict[str, Any],
    stdin: bytes,
    decision: Decision,
    resident: Resident | None,
    via_plugin: bool = False,
) -> None:
    """Leave a ticket per due check the person allowed (the others: said once per session)
    and, where no background hook of the client runs them, start a runner after the answer.
    A client extension's handlers (`via_plugin`) come without one: install writes it into the
    settings only."""
    from agentstyle.evaluator.answered import identity_of
    from agentstyle.runtime import notified

    root = str(home.parent)
    identity = identity_of(event, stdin)
    paths: list[str] = []
    for check in decision.checks:
        if not accepted.is_accepted(root, check.rule_id, check.run):
            if notified.first_time(home, event.session_id, f"check-unaccepted\0{check.rule_id}"):
                decision.messages.append(UNACCEPTED.format(rule=check.rule_id))
            continue
        ticket = {
            "home": str(home),
            "root": root,
            "harness": event.harness,
            "session": event.session_id,
            "native_event": event.native_event,
            "check": check._asdict(),
            "at": time.time(),  # a run that starts later covers it (observe/slots.py)
            "payload": payload,
        }
        background = spec.background_hooks and not via_plugin
        if not background and Slot(home, event.harness, event.session_id, check.rule_id).offer(
            ticket
        ):
            continue  # a runner of this rule is on it: this is its next run
        paths.append(tickets.write(home, identity, check.rule_id, ticket))
    if not paths or (spec.background_hooks and not via_plugin):
        return  # the client's background hook for this event takes them
    argv = [sys.executable, "-I", "-m", RUNNER_MODULE, *paths]
    log = str(home / "logs" / "checks.log")

    def spawn(_keep: bool = True) -> None:
        from agentstyle.runtime.detached import spawn as detach

        detach(argv, log)

    if resident is not None:
        resident.later(spawn)
    else:
        spawn()


def give_waiting(home: Path, spec: HarnessSpec, event: Event, decision: Decision) -> None:
    """Add what a check said to this event's answer, where it can carry it: model text where
    the point takes context and no refusal stands, the person's notices where it shows them."""
    from agentstyle.harnesses.facts import Can

    ps = spec.points.get(event.point or "")
    if ps is None or decision.verdict in ("block", "ask") or Can.CONTEXT not in ps.capabilities:
        return
    if not deliveries.waiting(home, event.harness, event.session_id):
        return
    contexts, messages = deliveries.take(home, event.harness, event.session_id)
    decision.contexts += contexts
    if Can.MESSAGE in ps.capabilities:
        decision.messages += messages
    else:
        decision.contexts += messages


def end_session(home: Path, event: Event) -> None:
    from agentstyle.observe.slots import stop_session

    stop_session(home, event.harness, event.session_id)
