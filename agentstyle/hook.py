"""The tiny entry a harness runs per event: `python -m agentstyle.hook --harness H --event E`.

The fast path imports only the standard library: when a resident engine runs for the project
(docs/design/storage.md#the-resident-engine), the raw payload goes to it over its socket and its
answer is printed. Otherwise (no engine, a stale socket, a version or policy mismatch, an engine
that died) the event is evaluated here directly (`agentstyle.runtime.hookrun`), and the first hook
that finds no engine starts one in the background. `STYLE_ENGINE=off` means "do not evaluate through
the engine".

A direct evaluation never waits for an engine's lifetime (the engine holds the database lock
while it lives): a payload over MAX_STDIN is handed to the engine as a flagged request, which
it answers per `fail` with its open database; while waiting for the lock, the hook hands its
event over to an engine that came up, or, under `STYLE_ENGINE=off`, asks it to step aside.
The command line and the environment are read once, into a `HookCall` (runtime/hookcall.py)
that every step below reads its harness, event and deadline from.
"""

from __future__ import annotations

import os
import sys
import time

from agentstyle.limits import (
    BUDGET_S,
    ENGINE_SHARE,
    MAX_DRAIN,
    MAX_STDIN,
    PAYLOAD_HEAD,
    STDIN_MIN_S,
)
from agentstyle.runtime.hookcall import HookCall

TYPE_CHECKING = False  # mypy reads this name as typing's (`typing` costs the fast path)
if TYPE_CHECKING:
    from typing import NoReturn

    from agentstyle.runtime.causes import HandlerError

Answer = tuple[str, str, int]


def via_engine(
    call: HookCall, stdin: bytes, home: str | None, *, start: bool = True
) -> Answer | None:
    """The engine's answer, or None to evaluate directly (`start`: launch one if none runs).

    The engine is the one of `home`, the `.style` folder where the direct path would find the
    database, the payload's `cwd` included: a hook started in another folder still reaches the
    engine that holds the lock, instead of waiting for it."""
    from agentstyle.runtime import client

    if not client.available():
        return None
    if home is None:
        return None
    budget = call.left()
    # Too large to evaluate, but the engine holds the database that says whether a
    # `fail: closed` rule refuses it: the engine answers the failure.
    oversized = len(stdin) > MAX_STDIN
    message: dict[str, object] = {
        "op": "hook",
        "version": client.engine_version(),
        "digest": client.read_digest(home),
        "harness": call.harness,
        "event": call.event,
        "fail_closed": call.fail_closed,
        "plugin": call.via_plugin,
        "oversized": oversized,
        "budget_s": budget,
    }
    payload = stdin[:PAYLOAD_HEAD] if oversized else stdin
    answer, reason = client.request(home, message, budget * ENGINE_SHARE, stdin=payload)
    if answer is None or answer.get("restart"):
        restart = answer is not None and bool(answer.get("restart"))
        if start and (reason in ("absent", "refused") or restart):
            client.start_engine(home)
        return None
    stdout, stderr, code = answer.get("stdout"), answer.get("stderr"), answer.get("exit")
    if not isinstance(stdout, str) or not isinstance(stderr, str) or not isinstance(code, int):
        return None
    return stdout, stderr, code


def ensure_built(call: HookCall, stdin: bytes) -> tuple[list[str], str, bool, str | None]:
    """(notices, failure, ready, home) after building the rules database from
    `style.lock.yaml` where this machine has none or an older one (a teammate's clone, a pull
    that changed the lock); `home` is the `.style` folder that holds the database then
    (`HookCall.find_home`), found in the same walk as the lock (the payload's `cwd` read once).

    Two `stat` calls when the database is current. The build runs in a process of its own
    (runtime/firstbuild.py), waited for until the deadline; `ready` is False while it still
    runs, and the event is then answered per `fail`."""
    from agentstyle.runtime import freshness, payloadin

    cwd = payloadin.payload_cwd(stdin)
    root, home = freshness.find_root_and_home(call.starts(cwd), call.home)
    if root is None:
        return [], "", True, home
    why = freshness.stale(root)
    if why is None:
        return [], "", True, home
    from agentstyle.runtime import budget, firstbuild

    budget.note("building the rules database from style.lock.yaml")
    firstbuild.start(root)
    if not firstbuild.wait(root, call.deadline):
        return [], "", False, None
    home = call.find_home(cwd)  # (the build may have made a nearer one)
    notes, failure = firstbuild.outcome(root)
    if failure:
        return (
            [],
            (f"STYLE: could not build the rules database from style.lock.yaml: {failure}"),
            True,
            home,
        )
    built = f"STYLE built this machine's rules database from style.lock.yaml ({why})"
    tampered = _tampered(call.harness, stdin, root) if why == freshness.NO_DATABASE else None
    if tampered:
        # Evaluated after all, but a deleted database is tampering: `style doctor` shows it.
        from pathlib import Path

        from agentstyle.runtime import errorlog

        text = "no rules database: deleted while this session used it; built again"
        errorlog.write(Path(root) / ".style", call.harness, call.event, errorlog.REBUILT, text)
    return (
        [
            tampered + " It was built again from style.lock.yaml." if tampered else built,
            *notes,
        ],
        "",
        True,
        home,
    )


def _tampered(harness: str, stdin: bytes, root: str) -> str | None:
    """The tampering notice when this session's hooks had a working database before."""
    from pathlib import Path

    from agentstyle.runtime import payloadin, tamper

    # (read as the hook reads the payload's other top-level strings: no second `json` parse)
    session = payloadin.top_string(stdin, "session_id")
    return tamper.notice(harness, session, Path(root) / ".style", "deleted")


def run(argv: list[str], stdin: bytes, started: float | None = None) -> Answer:
    """(stdout, stderr, exit code) for one hook invocation; never raises."""
    return respond(HookCall.from_argv(argv, started), stdin)


def respond(call: HookCall, stdin: bytes, stdin_ended: bool = True) -> Answer:
    """(stdout, stderr, exit code) for one hook call and its input; never raises.

    `stdin_ended`: False when the deadline passed before the payload was read whole."""
    from agentstyle.runtime import budget

    # (the causes, and `enum` behind them, load only for a call that fails: runtime/causes.py)
    if not stdin_ended:
        from agentstyle.runtime.causes import StdinOpen

        return _failed(call, stdin, StdinOpen())
    notices, failure, ready, home = ensure_built(call, stdin)
    if not ready:
        from agentstyle.runtime.causes import StillBuilding

        return _failed(call, stdin, StillBuilding())
    budget.note("evaluating")
    out, err, code = _answer(call, stdin, home)
    if failure:
        err = f"{failure}\n{err}" if err else failure
    if notices:
        out, code = _with_notices(call, out, code, notices)
        err = "\n".join(notices) + ("\n" + err if err else "")
    return out, err, code


def _failed(call: HookCall, stdin: bytes, failure: HandlerError) -> Answer:
    """The fail answer of a call that cannot be evaluated at all (runtime/hookrun.py `fail`)."""
    from agentstyle.runtime.hookrun import fail

    return fail(call, stdin, failure)


def _out_of_time(call: HookCall, stdin: bytes, stage: str, prepare: bool) -> Answer:
    """The watchdog's answer (runtime/budget.py), built where the adapters are known
    (`prepare`: only load them)."""
    from agentstyle.runtime.hookrun import out_of_time, prepare_failure

    if prepare:
        prepare_failure(call)
        return "", "", 0
    return out_of_time(call, stdin, stage)


def _with_notices(call: HookCall, stdout: str, code: int, notices: list[str]) -> tuple[str, int]:
    """The answer with the notices shown to the user, in the field the harness shows (and the
    exit code that shows them, where a harness shows a hook's stderr on one)."""
    try:
        from agentstyle.evaluator.decision import Wire
        from agentstyle.harnesses import adapter_for

        # The answer's stdout and exit code are taken: the notices are on stderr already
        # (where the event has no field for them).
        notice = "\n".join(notices)
        wire = adapter_for(call.harness).with_notice(Wire(stdout, code), call.event, notice)
        return wire.stdout, wire.exit_code
    except Exception:
        return stdout, code


def _answer(call: HookCall, stdin: bytes, home: str | None) -> Answer:
    try:
        answer = via_engine(call, stdin, home)
    except Exception:  # the engine is an optimisation: any trouble means direct evaluation
        answer = None
    if answer is not None:
        return answer
    from agentstyle.runtime.hookrun import run as run_direct

    def poll() -> Answer | None:
        # An engine holds the lock for its lifetime: hand the event over to it, or, where this
        # hook may not evaluate through it (STYLE_ENGINE=off), ask it to step aside.
        try:
            from agentstyle.runtime import client

            if client.available():
                return via_engine(call, stdin, home, start=False)
            found = call.find_home()
            if found is not None and client.sockets():
                client.ask_to_stop(found)
        except Exception:
            pass
        return None

    return run_direct(call, stdin, poll)


def nothing_to_do(call: HookCall, stdin: bytes) -> bool:
    """No STYLE project anywhere this call could belong to (upwards of the harness's project
    folder, the payload's `cwd` and the working folder, nor the user's own policy), and nothing
    that says there was one: the hook answers nothing, at once. A `--fail-closed` handler, or a
    session that saw a working database (a deleted `.style/`: tampering), is never nothing."""
    if call.fail_closed or call.home:
        return False
    from agentstyle import folders
    from agentstyle.runtime import payloadin

    if folders.any_project(call.starts(payloadin.payload_cwd(stdin))):
        return False
    from agentstyle.harnesses import SESSION_KEYS  # loaded already: the deadline's

    session = next(filter(None, (payloadin.top_string(stdin, k) for k in SESSION_KEYS)), None)
    # (no sessions folder: no marker to hash for, and `hashlib` stays unloaded)
    return not (
        session
        and os.path.isdir(folders.state_folder())
        and os.path.lexists(folders.session_marker(call.harness, session))
    )


def main() -> None:
    if "--checks" in sys.argv:
        # the client's background hook: it runs the event's due checks, off the agent's path
        # (docs/observers.md#delivery)
        from agentstyle.observe.runner import background_main

        background_main(sys.argv[1:])
    # The call first: its deadline runs from the start, reading the input included.
    call = HookCall.from_argv(sys.argv[1:])
    from agentstyle import folders

    # Where a project is in sight before the payload is read, the watchdog watches from the
    # start (stdin included); otherwise it is armed once the payload names a project.
    armed = bool(call.home or call.fail_closed or folders.any_project(call.starts()))
    if armed:
        from agentstyle.runtime import budget

        budget.arm(call, _out_of_time)
        budget.note("reading stdin")
    from agentstyle.runtime import payloadin

    try:
        until = max(call.deadline, call.started + STDIN_MIN_S)
        stdin, timed_out = payloadin.read(0, until, MAX_STDIN)
    except Exception:  # no or closed stdin: answered as empty input
        stdin, timed_out = b"", False
    if not armed and not timed_out and len(stdin) <= MAX_STDIN and nothing_to_do(call, stdin):
        _end(0, written=True)
    # (the watchdog's module is loaded only where there is something to watch)
    from agentstyle.runtime import budget

    if not armed:
        budget.arm(call, _out_of_time)
    # (the stage named as the fail answer names it, whoever gives that answer)
    budget.note("stdin did not end" if timed_out else "reading stdin", stdin)
    out, err, code = respond(call, stdin, not timed_out)
    if not budget.claim():  # the watchdog is answering: it ends the process
        while True:
            time.sleep(1)
    written = True
    try:
        if out:
            sys.stdout.write(out + "\n")
        sys.stdout.flush()
    except OSError:
        written = False
    try:
        if err:
            sys.stderr.write(err if err.endswith("\n") else err + "\n")
        sys.stderr.flush()
    except OSError:
        written = False
    budget.disarm()
    if len(stdin) > MAX_STDIN:
        # as long as the budget would have allowed, and a little more
        _drain_stdin(call.started + 2 * BUDGET_S)
    _end(code, written)


def _end(code: int, written: bool) -> NoReturn:
    """End the hook process with exit `code`.

    Where the answer is `written` (both streams flushed) and the process never loaded DuckDB
    (`agentstyle.duck`: the engine answered, or there was nothing to do), the interpreter's
    teardown has nothing left to close or flush, and costs a call a millisecond or more of
    CPU (docs/performance.md#how-an-event-is-answered-in-a-few-milliseconds): the process ends
    at once. Otherwise as any program ends (a stream that could not be written is reported as
    the interpreter reports it)."""
    if written and "agentstyle.duck" not in sys.modules:
        os._exit(code)
    raise SystemExit(code)


def _drain_stdin(until: float) -> None:
    """Read the rest of an oversized payload, answered already, to its end (at most
    MAX_DRAIN, until `until`): a hook that exits with the harness still writing leaves it a
    broken pipe, which a harness may report as the hook failing instead of reading its answer;
    one that never ends would hold the harness."""
    import select

    left = MAX_DRAIN
    try:
        while left > 0:
            wait = until - time.monotonic()
            if wait <= 0 or not select.select([0], [], [], wait)[0]:
                return
            chunk = os.read(0, min(left, 1 << 20))
            if not chunk:
                return
            left -= len(chunk)
    except Exception:
        return


if __name__ == "__main__":
    main()
