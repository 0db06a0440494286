"""One hook request end to end without the engine: decode, evaluate, answer, fail policy.

`agentstyle.hook` (what the harness runs) sends the request to the resident engine when one
runs and comes here otherwise; the engine itself answers through `handle`. It reads the
event's JSON and answers with at most one JSON object on stdout and an
exit code (docs/design/runtime.md#answer). It never prints a traceback: every failure becomes the
documented fail-open / fail-closed answer, one line on stderr and a line in
`.style/logs/errors.log`.

The internal deadline is 90% of the timeout in force for the native event, capped at 55 s
(docs/design/runtime.md#internal-deadline). `STYLE_DEADLINE_S=<seconds>` replaces it (tests use a
small value to prove what a hook that cannot finish in time answers).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.engine.decision import Wire
from agentstyle.engine.locking import Handover
from agentstyle.runtime.errors import HandlerError

if TYPE_CHECKING:  # pragma: no cover - typing only; the hook path imports these lazily
    from agentstyle.engine.locking import Poll
    from agentstyle.engine.store import Connection
    from agentstyle.runtime.direct import Resident

MAX_STDIN = 16 * 1024 * 1024
DEADLINE_CAP_S = 55.0
DEADLINE_ENV = "STYLE_DEADLINE_S"
# After the deadline passed, recording the failure (and reading whether a `fail: closed` rule
# applies) may still wait for the lock: half the time left before the harness's own timeout,
# at most this long.
FAILURE_GRACE_S = 1.0
STRANGER_CAUSE = "the rules database lock is held by"  # runtime/peer.py StrangerCheck
SUPPORTED = ("claude-code", "codex", "cursor", "gemini-cli")
# Where each harness names the project folder in the hook's environment.
PROJECT_DIR_ENV = ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR")
# A `\uD800`–`\uDFFF` escape: JSON may carry lone surrogates, which no UTF-8 store accepts.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _args(argv: list[str]) -> dict[str, Any]:
    # argparse costs a few ms of import; the hook's arguments are fixed and few.
    out: dict[str, Any] = {"harness": None, "event": None, "fail_closed": False}
    it = iter(argv)
    for arg in it:
        if arg == "--harness":
            out["harness"] = next(it, None)
        elif arg == "--event":
            out["event"] = next(it, None)
        elif arg == "--fail-closed":
            out["fail_closed"] = True
    return out


def _override() -> float | None:
    text = os.environ.get(DEADLINE_ENV)
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value >= 0 else None


def deadline_seconds(timeout_s: float) -> float:
    """Seconds this hook may spend: 90% of the harness timeout, capped; env override for tests."""
    override = _override()
    return override if override is not None else min(0.9 * timeout_s, DEADLINE_CAP_S)


def grace_seconds(timeout_s: float) -> float:
    """Extra seconds a failed hook may wait for the lock to record its failure."""
    override = _override()
    spare = override if override is not None else 0.5 * (timeout_s - deadline_seconds(timeout_s))
    return max(0.0, min(FAILURE_GRACE_S, spare))


def _starts(payload_cwd: str | None) -> list[str]:
    starts = [*(os.environ.get(name) for name in PROJECT_DIR_ENV), payload_cwd]
    with contextlib.suppress(OSError):  # the working folder may be gone
        starts.append(os.getcwd())
    return [s for s in starts if s]


def find_database(payload_cwd: str | None) -> Path | None:
    """The `.style` folder this event belongs to: STYLE_HOME, else the project, else the user's."""
    override = os.environ.get("STYLE_HOME")
    if override:
        return Path(override)
    for start in _starts(payload_cwd):
        here = Path(start)
        for folder in (here, *here.parents):
            if (folder / ".style" / "style.duckdb").is_file():
                return folder / ".style"
    user = Path.home() / ".style"
    return user if (user / "style.duckdb").is_file() else None


def find_log_home(payload_cwd: str | None) -> Path:
    """Where errors.log goes when no database was found: the nearest `.style/`, else `~/.style`."""
    override = os.environ.get("STYLE_HOME")
    if override:
        return Path(override)
    for start in _starts(payload_cwd):
        here = Path(start)
        for folder in (here, *here.parents):
            if (folder / ".style").is_dir():
                return folder / ".style"
    return Path.home() / ".style"


def log_error(home: Path, harness: str, event: str, cause: str, outcome: str) -> None:
    """One line in `.style/logs/errors.log` (format: `agentstyle.runtime.errorlog`)."""
    from agentstyle.runtime import errorlog

    errorlog.write(home, harness, event, outcome, cause)


# Where a payload that could not be decoded still names its session (Claude Code, Codex,
# Gemini CLI: `session_id`; Cursor: `conversation_id`), so its notice is given once per session.
_SESSION_FIELD = re.compile(rb'"(?:session_id|conversation_id)"\s*:\s*"((?:[^"\\]|\\.){1,256})"')
SESSION_HEAD = 64 * 1024
SESSION_ENV = ("GEMINI_SESSION_ID",)


def session_of(payload: dict[str, Any], stdin: bytes) -> str | None:
    """The session an event belongs to, read from the decoded payload, else from the first
    bytes of the raw input, else from the harness's environment; None when none names it."""
    for key in ("session_id", "conversation_id"):
        value = payload.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    m = _SESSION_FIELD.search(stdin[:SESSION_HEAD])
    if m:
        return m.group(1).decode("utf-8", errors="replace")
    for name in SESSION_ENV:
        if os.environ.get(name):
            return os.environ[name]
    return None


def decode(stdin: bytes) -> dict[str, Any]:
    """docs/design/runtime.md#decode: UTF-8 with invalid bytes replaced, at most 16 MiB, one
    object."""
    if len(stdin) > MAX_STDIN:
        raise HandlerError("payload over 16 MiB")
    text = stdin.decode("utf-8", errors="replace")
    if not text.strip():
        raise HandlerError("empty stdin")
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HandlerError(f"malformed JSON on stdin ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise HandlerError("malformed JSON on stdin (nested too deeply)") from None
    if not isinstance(parsed, dict):
        raise HandlerError("stdin is not a JSON object")
    if _SURROGATE_ESCAPE.search(text):
        try:
            cleaned: dict[str, Any] = _replace_surrogates(parsed)
        except RecursionError:
            raise HandlerError("malformed JSON on stdin (nested too deeply)") from None
        return cleaned
    return parsed


def _replace_surrogates(value: Any) -> Any:
    """Lone surrogates (legal in JSON escapes, not in UTF-8) become U+FFFD, like invalid bytes."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_surrogates(v) for v in value]
    return value


def run(
    argv: list[str], stdin: bytes, started: float | None = None, poll: Poll | None = None
) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) for one hook invocation; never raises.

    `poll` (from `agentstyle.hook`) asks the resident engine while this waits for the lock.
    """
    args = _args(argv)
    try:
        return _run(args, stdin, time.monotonic() if started is None else started, poll)
    except Handover as handed:
        return handed.answer  # type: ignore[return-value]
    except Exception as exc:  # the last net: even a broken installation answers in one line
        cause = cause_of(exc)
        if args["fail_closed"]:
            # No JSON can be trusted here. Claude Code refuses exit 1 under `onFailure: block`;
            # elsewhere exit 2 with the reason on stderr is the documented refusal.
            code = 1 if args["harness"] == "claude-code" else 2
            return "", f"STYLE: {cause}; refused (--fail-closed)\n", code
        return "", f"STYLE: {cause}; allowed (fail open)\n", 0


def _run(
    args: dict[str, Any], stdin: bytes, started: float, poll: Poll | None = None
) -> tuple[str, str, int]:
    harness, native_event = args["harness"] or "", args["event"] or ""
    if harness not in SUPPORTED:
        return "", f"STYLE: unknown harness `{_one_line(harness)}`; allowed (fail open)\n", 0
    from agentstyle.harnesses import spec_for
    from agentstyle.timeouts import timeout_for

    # The timeout in force for this native event (a route's, an extra event's point's).
    ps = spec_for(harness).spec_of(native_event)
    timeout = ps.timeout_s if ps is not None else timeout_for(harness, native_event)
    deadline = started + deadline_seconds(timeout)
    return handle(
        harness,
        native_event,
        stdin,
        bool(args["fail_closed"]),
        deadline,
        started,
        grace=grace_seconds(timeout),
        poll=poll,
    )


def handle(
    harness: str,
    native_event: str,
    stdin: bytes,
    install_fail_closed: bool,
    deadline: float,
    started: float,
    *,
    grace: float = FAILURE_GRACE_S,
    conn: Connection | None = None,
    home: Path | None = None,
    poll: Poll | None = None,
    oversized: bool = False,
    resident: Resident | None = None,
) -> tuple[str, str, int]:
    """Decode, evaluate and answer one event; every failure becomes the documented answer.

    With `conn` (the resident engine's open database, `home` its folder) nothing is opened;
    otherwise the project's database is found and opened under the OS lock. `oversized`: the
    hook read more than MAX_STDIN and sent only the payload's head (the engine's path).
    `resident` keeps what the engine does once the answer is sent (runtime/direct.py
    evaluate_on).
    """
    from agentstyle.harnesses import adapter_for, spec_for

    adapter = reader = adapter_for(harness)
    point = spec_for(harness).point_of(native_event)
    read_event = native_event
    payload: dict[str, Any] = {}
    try:
        if oversized:
            raise HandlerError("payload over 16 MiB")
        payload = decode(stdin)
        if home is None:
            home = find_database(_cwd(payload))
        if point is None:
            raise HandlerError(f"unknown event `{_one_line(native_event)[:64]}`")
        if home is None or (conn is None and not (home / "style.duckdb").is_file()):
            raise HandlerError("no rules database (run `style install`)")
        reader, read_event = dialect(harness, adapter, payload, native_event)
        if reader is not adapter and _installed_natively(reader, home):
            # STYLE answers this harness through its own config: the same call is not
            # evaluated a second time through another harness's (docs/design/harnesses.md#dialect).
            wire = reader.no_opinion(read_event)
            return wire.stdout, wire.stderr, wire.exit_code
        owned = getattr(adapter, "duplicate", None)
        if reader is adapter and owned is not None and owned(payload, read_event):
            # Another gate STYLE installed for this harness owns this tool class (Cursor: shell
            # calls go through beforeShellExecution); that one evaluates the call.
            wire = adapter.no_opinion(read_event)
            return wire.stdout, wire.stderr, wire.exit_code
        event = reader.normalize(payload, read_event)
        if event.point is None:
            raise HandlerError(f"unknown event `{_one_line(read_event)[:64]}`")
        event.harness = harness  # the entries installed for the config that ran this hook
        from agentstyle.runtime import direct as runtime

        if conn is not None:
            decision = runtime.evaluate_on(
                conn, event, deadline, started, home=home, resident=resident
            )
        else:
            decision = runtime.evaluate_hook(home, event, deadline, started, poll)
        wire = reader.answer(decision, read_event, event)
        from agentstyle.runtime import tamper

        tamper.mark_seen(harness, event.session_id)
        return wire.stdout, wire.stderr, wire.exit_code
    except Handover:
        raise  # the engine answered the whole event
    except Exception as exc:  # every failure becomes the documented fail answer, no traceback
        if resident is not None and conn is not None:
            resident.discard(conn)  # an evaluated event whose answer failed: not recorded
        if home is None:
            with contextlib.suppress(Exception):
                home = find_database(_cwd(payload))
        return _failure(
            reader,
            harness,
            native_event,
            read_event,
            point,
            payload,
            home,
            cause_of(exc),
            install_fail_closed,
            deadline,
            grace,
            conn,
            session_of(payload, stdin),
            poll,
        )


def dialect(harness: str, adapter: Any, payload: dict[str, Any], native_event: str) -> Any:
    """(reader adapter, native event) for a payload: the payload decides the dialect.

    Cursor runs the hooks of a Claude Code config too
    (docs/design/harnesses.md#cursor-claude-hooks): a Cursor-shaped payload arriving through that
    config is read, and answered, as Cursor's.
    """
    if harness != "cursor":
        from agentstyle.harnesses import cursor

        if cursor.looks_like(payload):
            return cursor, cursor.native_event_of(payload, native_event)
    return adapter, native_event


def _installed_natively(reader: Any, home: Path) -> bool:
    check = getattr(reader, "installed_here", None)
    return bool(check and check(home.parent))


def _cwd(payload: dict[str, Any]) -> str | None:
    cwd = payload.get("cwd")
    if isinstance(cwd, str):
        return cwd
    roots = payload.get("workspace_roots")  # Cursor names the project only here on some events
    return roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def cause_of(exc: BaseException) -> str:
    """A short, one-line cause that never repeats DuckDB's own error text
    (docs/design/storage.md#concurrency-protocol)."""
    if isinstance(exc, HandlerError):
        return _one_line(str(exc))[:300]
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    if name == "LockHeldByStranger":
        return _one_line(str(exc))[:300]
    if name == "LockTimeout":
        return "the rules database stayed locked past the deadline"
    if name in ("InterruptException", "DeadlineExceeded"):
        return "internal deadline passed"
    if module.startswith(("duckdb", "_duckdb")):
        text = str(exc)
        if "lock" in text.lower():
            return "the rules database is locked by another program"
        if name in ("IOException", "SerializationException", "InternalException"):
            return f"the rules database could not be read ({name})"
        return f"database error ({name})"
    if name == "StyleError":
        return _one_line(str(exc))[:300]
    text = _one_line(str(exc))
    return f"{name}: {text}"[:200] if text else name


def _failure(
    adapter: Any,
    harness: str,
    native_event: str,
    read_event: str,
    point: str | None,
    payload: dict[str, Any],
    home: Path | None,
    cause: str,
    install_fail_closed: bool,
    deadline: float,
    grace: float,
    conn: Connection | None,
    session: str | None = None,
    poll: Poll | None = None,
) -> tuple[str, str, int]:
    """docs/design/runtime.md#handler-failure: record, then deny or allow per `fail`, then log. A
    call allowed because STYLE could not evaluate is never silent: the person is told, once per
    session and cause (`errorlog.fail_open_notice`, `notified.first_time`).

    `poll` is tried while waiting for the lock to record the failure: a resident engine that
    holds it answers the whole event instead (Handover), or steps aside.
    """

    try:
        log_home = home or find_log_home(_cwd(payload))
    except Exception:
        log_home = Path.home() / ".style"
    closed: bool | None = None  # None: the rules database could not be read
    # A lock held by a stranger (a stopped process, a program that is not STYLE) will not be
    # free to record the failure either: no second wait.
    stranger = cause.startswith(STRANGER_CAUSE)
    if (
        home is not None
        and not stranger
        and (conn is not None or (home / "style.duckdb").is_file())
    ):
        try:
            from agentstyle.runtime import direct as runtime

            until = max(deadline, time.monotonic() + grace)
            closed = runtime.record_failure(
                home,
                harness,
                native_event,
                point,
                payload,
                cause,
                until,
                refused=install_fail_closed and adapter.can_refuse(read_event),
                conn=conn,
                poll=poll,
            )
        except Handover:
            raise  # the engine answered (and recorded) the whole event
        except Exception:
            closed = None
    refusable = adapter.can_refuse(read_event)
    wire: Wire
    tampered = _tamper_notice(harness, session, log_home, cause)
    if tampered:
        answer = _failure_answer(
            adapter,
            harness,
            native_event,
            read_event,
            point,
            log_home,
            cause,
            closed,
            install_fail_closed,
            refusable,
            session,
        )
        stdout, stderr, code = answer
        wire = adapter.with_notice(Wire(stdout, code, ""), read_event, tampered)
        return wire.stdout, stderr + wire.stderr, code
    return _failure_answer(
        adapter,
        harness,
        native_event,
        read_event,
        point,
        log_home,
        cause,
        closed,
        install_fail_closed,
        refusable,
        session,
    )


def _tamper_notice(harness: str, session: str | None, log_home: Path, cause: str) -> str | None:
    """A database this session saw working is now gone or unreadable: say so, once."""
    from agentstyle.runtime import errorlog, tamper

    what = {"no-database": "deleted", "database": "damaged"}.get(errorlog.cause_class(cause))
    return tamper.notice(harness, session, log_home, what) if what else None


def _failure_answer(
    adapter: Any,
    harness: str,
    native_event: str,
    read_event: str,
    point: str | None,
    log_home: Path,
    cause: str,
    closed: bool | None,
    install_fail_closed: bool,
    refusable: bool,
    session: str | None,
) -> tuple[str, str, int]:
    """deny or allow per `fail` (docs/design/runtime.md#fail-modes), logged; a fail-open answer
    tells the person."""
    from agentstyle.runtime import errorlog, notified

    wire: Wire
    if closed:
        reason = (
            f"STYLE could not evaluate policy ({cause}); the call is refused because a "
            "rule requires it."
        )
        wire = adapter.deny_answer(read_event, reason)
        log_error(log_home, harness, native_event, cause, errorlog.REFUSED)
        return wire.stdout, f"STYLE: {cause}; refused (fail: closed)\n", 0
    if install_fail_closed and refusable:
        # docs/design/runtime.md#fail-modes: `style install --fail-closed` refuses on any handler
        # error; Claude Code exits 1 (with `onFailure: block` it blocks even if the JSON were
        # unreadable), the others answer with their deny JSON and exit 0 (FAIL_CLOSED_EXIT of the
        # adapter).
        reason = (
            f"STYLE could not evaluate policy ({cause}); the call is refused because STYLE "
            "was installed to refuse when it cannot check (--fail-closed, or a `fail: closed` "
            "rule at this event)."
        )
        wire = adapter.deny_answer(read_event, reason)
        code = int(getattr(adapter, "FAIL_CLOSED_EXIT", 1))
        log_error(log_home, harness, native_event, cause, errorlog.REFUSED)
        return wire.stdout, f"STYLE: {cause}; refused (--fail-closed)\n", code
    # Fail open: where the harness needs an explicit answer (Cursor permission hooks, Gemini's
    # JSON-only stdout) the adapter's "no opinion" is given, with the notice merged in.
    log_error(log_home, harness, native_event, cause, errorlog.FAIL_OPEN)
    wire = adapter.no_opinion(read_event) if point is not None else Wire("")
    kind = f"fail-open:{errorlog.cause_class(cause)}"
    if notified.first_time(log_home, session, kind):
        wire = adapter.with_notice(wire, read_event, errorlog.fail_open_notice(cause, point))
    return wire.stdout, f"STYLE: {cause}; allowed (fail open)\n" + wire.stderr, 0


def handle_with_connection(
    conn: Connection,
    harness: str,
    native_event: str,
    stdin: bytes,
    fail_closed: bool,
    budget_s: float,
    home: Path,
    oversized: bool = False,
    resident: Resident | None = None,
) -> tuple[str, str, int]:
    """One hook request served on an already open database (the resident engine's path);
    `oversized`: `stdin` is only the head of a payload over MAX_STDIN (answered per `fail`)."""
    started = time.monotonic()
    if harness not in SUPPORTED:
        return "", f"STYLE: unknown harness `{harness}`; allowed (fail open)\n", 0
    return handle(
        harness,
        native_event,
        stdin,
        fail_closed,
        started + max(0.0, budget_s),
        started,
        conn=conn,
        home=home,
        oversized=oversized,
        resident=resident,
    )
