"""Run due checks and hand their results back to the hook pipeline.

Two ways in: detached, started by the hook of a client without background hooks
(`python -I -m agentstyle.observe.runner TICKET…`: results wait for the session's next event),
or as the client's own background hook (`style-hook … --checks`, Claude Code's `asyncRewake`:
a result that speaks wakes the model, exit 2 with the text on stderr). Either way a result is
evaluated as an event at `check.done` by a hook call like the client's own (the resident engine
or the database under its lock), so it is recorded like any event and its rule's whole
condition, dedup and budget decide what is said."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agentstyle import folders
from agentstyle.observe import accepted, deliveries, execute, tickets
from agentstyle.observe.slots import Slot
from agentstyle.vocabulary import CHECK_KEY

# How long a result's evaluation may take (a hook answers within seconds; a first-use build of
# the database is the slow case).
SUBMIT_TIMEOUT_S = 60.0
# How long the background hook waits for the tickets of the hook that decides its event.
WAIT_FOR_TICKETS_S = 20.0
LOG = ("logs", "checks.log")


def run_tickets(paths: list[str], *, wake: bool) -> tuple[list[str], list[str]]:
    """Run the checks of these tickets; with `wake`, what their rules said is returned (the
    background hook says it), else it waits for the session's next event."""
    contexts: list[str] = []
    messages: list[str] = []
    for path in paths:
        ticket = tickets.take(path)
        if ticket is None:
            continue
        said = _run_rule(ticket, wake=wake)
        contexts += said[0]
        messages += said[1]
    return contexts, messages


def _run_rule(ticket: dict[str, Any], *, wake: bool) -> tuple[list[str], list[str]]:
    home = Path(ticket["home"])
    check = ticket["check"]
    if not accepted.is_accepted(ticket["root"], check["rule_id"], check["run"]):
        return [], []  # the hook told the person; nothing runs that they did not allow
    slot = Slot(home, ticket["harness"], ticket["session"], check["rule_id"])
    if not slot.enter(ticket):
        return [], []  # coalesced: the run going on takes this one next
    said: tuple[list[str], list[str]] = ([], [])
    current: dict[str, Any] | None = ticket
    while current is not None:
        slot.wait(float(check["cooldown_s"]))
        result = execute.run(check["run"], current["root"], float(check["timeout_s"]), slot.started)
        said = submit(current, result)
        if not wake and (said[0] or said[1]):
            deliveries.put(home, current["harness"], current["session"], check["rule_id"], said)
        current = slot.next()
    # The background hook says the last result only: an earlier one is stale by then.
    return said if wake else ([], [])


def submit(ticket: dict[str, Any], result: execute.CheckResult) -> tuple[list[str], list[str]]:
    """Evaluate a check's result as an event at `check.done`, by a hook call as the client
    makes one (this interpreter's `agentstyle.hook`, the payload on its stdin): what its rule
    says (model texts, notices for the person)."""
    check = ticket["check"]
    payload = dict(ticket["payload"])
    payload[CHECK_KEY] = {
        "rule": check["rule_id"],
        "exit": result.exit,
        "output": result.output,
        "duration_s": round(result.duration_s, 3),
        "timed_out": result.timed_out,
        "crashed": result.crashed,
    }
    argv = [sys.executable, "-m", "agentstyle.hook"]
    argv += ["--harness", ticket["harness"], "--event", ticket["native_event"]]
    env = {**os.environ, folders.STYLE_HOME_ENV: ticket["home"]}
    try:
        done = subprocess.run(
            argv,
            input=json.dumps(payload, ensure_ascii=False).encode(),
            capture_output=True,
            env=env,
            timeout=SUBMIT_TIMEOUT_S,
            check=False,
        )
        answer = json.loads(done.stdout).get(CHECK_KEY) if done.stdout.strip() else None
        why = done.stderr.decode("utf-8", "replace").strip() or "no answer"
    except (OSError, ValueError, AttributeError, subprocess.TimeoutExpired) as exc:
        answer, why = None, str(exc)
    if not isinstance(answer, dict):
        _log(Path(ticket["home"]), f"{check['rule_id']}: its result was not evaluated: {why}")
        return [], []
    return list(answer.get("contexts") or []), list(answer.get("messages") or [])


def _log(home: Path, line: str) -> None:
    try:
        path = home.joinpath(*LOG)
        path.parent.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{stamp} {line}\n")
    except OSError:
        pass


def background(argv: list[str], stdin: bytes) -> tuple[str, int]:
    """The client's background hook for an event (`--checks`): the checks the deciding hook
    found due for this very event, run; (what to say, exit code): 2 wakes the model."""
    from agentstyle.evaluator.answered import identity_of
    from agentstyle.harnesses import adapter_for
    from agentstyle.runtime.hookcall import HookCall
    from agentstyle.runtime.hookrun import decode

    call = HookCall.from_argv(argv)
    try:
        payload = decode(stdin)
        cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
        found = call.find_home(cwd, user=False)
        if found is None:
            return "", 0
        event = adapter_for(call.harness).normalize(payload, call.event)
        event.harness = call.harness
    except Exception:  # not an event this hook can read: the deciding hook says so
        return "", 0
    paths = tickets.wait_for(Path(found), identity_of(event, stdin), WAIT_FOR_TICKETS_S)
    contexts, messages = run_tickets(paths, wake=True)
    text = "\n\n".join([*contexts, *messages])
    return (text, 2) if text else ("", 0)


def background_main(argv: list[str]) -> None:
    stdin = sys.stdin.buffer.read()
    text, code = background(argv, stdin)
    if text:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    sys.exit(code)


def main() -> None:
    run_tickets(sys.argv[1:], wake=False)


if __name__ == "__main__":
    main()
