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

import sys

from agentstyle.limits import (
    BUILD_MIN_S,
    BUILD_SHARE,
    ENGINE_SHARE,
    MAX_DRAIN,
    MAX_STDIN,
    PAYLOAD_HEAD,
)
from agentstyle.runtime.hookcall import HookCall

Answer = tuple[str, str, int]


def via_engine(call: HookCall, stdin: bytes, *, start: bool = True) -> Answer | None:
    """The engine's answer, or None to evaluate directly (`start`: launch one if none runs)."""
    from agentstyle.runtime import client

    if not client.available():
        return None
    home = call.find_home()
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


def ensure_built(call: HookCall, stdin: bytes) -> tuple[list[str], str]:
    """(notices, failure) after building the rules database from `style.lock.yaml` where this
    machine has none or an older one (a teammate's clone, a pull that changed the lock).

    Two `stat` calls when the database is current; the build itself imports the compiler.
    """
    from agentstyle.runtime import freshness

    root = freshness.find_locked_root(call.starts(), call.home)
    if root is None:
        return [], ""
    why = freshness.stale(root)
    if why is None:
        return [], ""
    wait = max(BUILD_MIN_S, call.until(BUILD_SHARE))
    try:
        from pathlib import Path

        from agentstyle.install.install import build_from_lock

        notes = build_from_lock(Path(root), wait)
    except Exception as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        return [], f"STYLE: could not build the rules database from style.lock.yaml: {text}"
    built = f"STYLE built this machine's rules database from style.lock.yaml ({why})"
    tampered = _tampered(call.harness, stdin, root) if why == freshness.NO_DATABASE else None
    return [
        tampered + " It was built again from style.lock.yaml." if tampered else built,
        *notes,
    ], ""


def _tampered(harness: str, stdin: bytes, root: str) -> str | None:
    """The tampering notice when this session's hooks had a working database before."""
    import json

    try:
        session = json.loads(stdin[: 1 << 20]).get("session_id")
    except (ValueError, AttributeError):
        return None
    from pathlib import Path

    from agentstyle.runtime import tamper

    return tamper.notice(
        harness, session if isinstance(session, str) else None, Path(root) / ".style", "deleted"
    )


def run(argv: list[str], stdin: bytes, started: float | None = None) -> Answer:
    """(stdout, stderr, exit code) for one hook invocation; never raises."""
    return respond(HookCall.from_argv(argv, started), stdin)


def respond(call: HookCall, stdin: bytes) -> Answer:
    """(stdout, stderr, exit code) for one hook call and its input; never raises."""
    notices, failure = ensure_built(call, stdin)
    out, err, code = _answer(call, stdin)
    if failure:
        err = f"{failure}\n{err}" if err else failure
    if notices:
        out = _with_notices(call, out, notices)
        err = "\n".join(notices) + ("\n" + err if err else "")
    return out, err, code


def _with_notices(call: HookCall, stdout: str, notices: list[str]) -> str:
    """The answer with the notices shown to the user, in the field the harness shows."""
    try:
        from agentstyle.engine.decision import Wire
        from agentstyle.harnesses import adapter_for

        # Only the answer's stdout is taken: the notices are on stderr already (where the
        # event has no field for them).
        notice = "\n".join(notices)
        return adapter_for(call.harness).with_notice(Wire(stdout), call.event, notice).stdout
    except Exception:
        return stdout


def _answer(call: HookCall, stdin: bytes) -> Answer:
    try:
        answer = via_engine(call, stdin)
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
                return via_engine(call, stdin, start=False)
            home = call.find_home()
            if home is not None and client.sockets():
                client.ask_to_stop(home)
        except Exception:
            pass
        return None

    return run_direct(call, stdin, poll)


def main() -> None:
    # The call first: its deadline runs from the start, reading the input included.
    call = HookCall.from_argv(sys.argv[1:])
    try:
        stdin = sys.stdin.buffer.read(MAX_STDIN + 1)
    except Exception:  # no or closed stdin: answered as empty input
        stdin = b""
    out, err, code = respond(call, stdin)
    try:
        if out:
            sys.stdout.write(out + "\n")
        sys.stdout.flush()
    except OSError:
        pass
    try:
        if err:
            sys.stderr.write(err if err.endswith("\n") else err + "\n")
        sys.stderr.flush()
    except OSError:
        pass
    if len(stdin) > MAX_STDIN:
        _drain_stdin()
    raise SystemExit(code)


def _drain_stdin() -> None:
    """Read the rest of an oversized payload, answered already, to its end (at most
    MAX_DRAIN): a hook that exits with the harness still writing leaves it a broken pipe,
    which a harness may report as the hook failing instead of reading its answer."""
    left = MAX_DRAIN
    try:
        while left > 0:
            chunk = sys.stdin.buffer.read(min(left, 1 << 20))
            if not chunk:
                return
            left -= len(chunk)
    except Exception:
        return


if __name__ == "__main__":
    main()
