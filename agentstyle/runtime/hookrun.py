"""One hook request end to end without the engine: decode, evaluate, answer, fail policy.

`agentstyle.hook` (what the harness runs) sends the request to the resident engine when one
runs and comes here otherwise; the engine itself answers through `handle`. It reads the
event's JSON and answers with at most one JSON object on stdout and an
exit code (docs/design/runtime.md#answer). It never prints a traceback: every failure becomes the
documented fail-open / fail-closed answer, one line on stderr and a line in
`.style/logs/errors.log`.

The call's harness, event and deadline come from its `HookCall` (runtime/hookcall.py); every
failure is a `HandlerError` carrying its `Cause` (runtime/causes.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.evaluator.decision import Wire
from agentstyle.evaluator.locking import Handover
from agentstyle.folders import ANSWER_ONCE_NAME, DATABASE_NAME, mark_answer_once, user_home
from agentstyle.harnesses import (
    HARNESSES,
    ROOTS_KEYS,
    SESSION_KEYS,
    SUPPORTED,
    refusal_exit,
    visitors,
)
from agentstyle.limits import MAX_STDIN, PAYLOAD_HEAD
from agentstyle.runtime.causes import (
    Cause,
    HandlerError,
    NoDatabase,
    Oversized,
    Planted,
    failure_of,
    one_line,
)
from agentstyle.runtime.hookcall import HookCall
from agentstyle.runtime.payloadin import first_root
from agentstyle.vocabulary import CHECK_KEY

if TYPE_CHECKING:  # pragma: no cover - typing only; the hook path imports these lazily
    from agentstyle.evaluator.decision import Decision
    from agentstyle.evaluator.event import Event
    from agentstyle.evaluator.locking import Poll
    from agentstyle.evaluator.store import Connection
    from agentstyle.harnesses.protocol import HarnessAdapter
    from agentstyle.runtime.direct import Resident

Answer = tuple[str, str, int]
NESTED = "malformed JSON on stdin (nested too deeply)"
# A `\uD800`–`\uDFFF` escape: JSON may carry lone surrogates, which no UTF-8 store accepts.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def log_error(home: Path, call: HookCall, failure: HandlerError, outcome: str) -> None:
    """One line in `.style/logs/errors.log` (format: `agentstyle.runtime.errorlog`)."""
    from agentstyle.runtime import budget, errorlog

    # The watchdog may be answering this call already (runtime/budget.py): one line per call.
    if budget.claim():
        errorlog.write(home, call.harness, call.event, outcome, failure.text)


# Where a payload that could not be decoded still names its session (each harness's
# `HookFacts.session_key`), so its notice is given once per session.
_SESSION_FIELD = re.compile(
    rb'"(?:'
    + b"|".join(re.escape(key.encode()) for key in SESSION_KEYS)
    + rb')"\s*:\s*"((?:[^"\\]|\\.){1,256})"'
)
SESSION_ENV = tuple(h.session_env for h in HARNESSES.values() if h.session_env)


def session_of(payload: dict[str, Any], stdin: bytes) -> str | None:
    """The session an event belongs to, read from the decoded payload, else from the first
    bytes of the raw input, else from the harness's environment; None when none names it."""
    for key in SESSION_KEYS:
        value = payload.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
            return str(value)
    m = _SESSION_FIELD.search(stdin[:PAYLOAD_HEAD])
    if m:
        return m.group(1).decode("utf-8", errors="replace")
    for name in SESSION_ENV:
        if os.environ.get(name):
            return os.environ[name]
    return None


def decode(stdin: bytes) -> dict[str, Any]:
    """docs/design/runtime.md#decode: UTF-8 with invalid bytes replaced, at most MAX_STDIN, one
    object."""
    if len(stdin) > MAX_STDIN:
        raise Oversized()
    text = stdin.decode("utf-8", errors="replace")
    if not text.strip():
        raise HandlerError(Cause.PAYLOAD, "empty stdin")
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise HandlerError(
            Cause.PAYLOAD, f"malformed JSON on stdin ({exc.msg} at line {exc.lineno})"
        ) from None
    except RecursionError:
        raise HandlerError(Cause.PAYLOAD, NESTED) from None
    if not isinstance(parsed, dict):
        raise HandlerError(Cause.PAYLOAD, "stdin is not a JSON object")
    if _SURROGATE_ESCAPE.search(text):
        try:
            cleaned: dict[str, Any] = _replace_surrogates(parsed)
        except RecursionError:
            raise HandlerError(Cause.PAYLOAD, NESTED) from None
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


def run(call: HookCall, stdin: bytes, poll: Poll | None = None) -> Answer:
    """(stdout, stderr, exit code) for one hook invocation; never raises.

    `poll` (from `agentstyle.hook`) asks the resident engine while this waits for the lock.
    """
    try:
        return handle(call, stdin, poll=poll)
    except Handover as handed:
        return handed.answer  # type: ignore[return-value]
    except Exception as exc:  # the last net: even a broken installation answers in one line
        failure = failure_of(exc)
        if call.fail_closed:
            # No JSON can be trusted here: the harness's bare refusal (`HookFacts.refusal_exit`).
            code = refusal_exit(call.harness)
            return "", f"STYLE: {failure.text}; refused (--fail-closed)\n", code
        return "", f"STYLE: {failure.text}; allowed (fail open)\n", 0


def fail(call: HookCall, stdin: bytes, failure: HandlerError) -> Answer:
    """The fail answer for a call that failed before it could be evaluated (its stdin did not
    end by the deadline, its database is still being built): logged, not recorded in the
    database (its deadline has passed, or a build holds it)."""
    try:
        seen = _reading(call, stdin)
        return _failure(
            call, seen, failure, session_of(seen.payload, stdin), None, None, record=False
        )
    except Handover as handed:
        return handed.answer  # type: ignore[return-value]
    except Exception:
        return run(call, b"\0")  # the last net's answer (no payload is that)


def out_of_time(call: HookCall, stdin: bytes, stage: str) -> Answer:
    """The watchdog's answer when the budget ran out (runtime/budget.py): per the command's
    fail mode, logged, with the fail-open notice; the database is not touched (it may be
    what blocks), so a `fail: closed` rule counts through the `--fail-closed` that install
    writes on every handler where one runs."""
    seen = _reading(call, stdin)
    failure = HandlerError(Cause.DEADLINE, f"internal deadline passed ({stage})")
    try:
        log_home = Path(call.find_home(_cwd(seen.payload), database=False) or user_home())
    except Exception:
        log_home = Path(user_home())
    return _failure_answer(call, seen, failure, log_home, None, session_of(seen.payload, stdin))


def prepare_failure(call: HookCall) -> None:
    """Load what a fail answer for the call takes (its adapter, the notice's modules), so the
    watchdog's answer costs no imports when it is due."""
    if call.harness in SUPPORTED:
        from agentstyle.harnesses import adapter_for
        from agentstyle.runtime import errorlog, notified  # noqa: F401

        adapter_for(call.harness)


def _reading(call: HookCall, stdin: bytes) -> Reading:
    """What can be read of a call without its database: its adapter, and its payload when
    that decodes (else empty)."""
    if call.harness not in SUPPORTED:
        raise HandlerError(Cause.UNKNOWN_HARNESS, f"unknown harness `{call.harness}`")
    from agentstyle.harnesses import adapter_for

    adapter = adapter_for(call.harness)
    seen = Reading(adapter, call.event, adapter.spec.point_of(call.event))
    with contextlib.suppress(HandlerError):
        seen.payload = decode(stdin)
    return seen


@dataclass(slots=True)
class Reading:
    """What is known of an event so far: a failure is recorded and answered from it."""

    adapter: HarnessAdapter  # who reads and answers it: the payload's dialect decides
    event: str  # its native event, as `adapter` names it
    point: str | None  # the point of the call's own native event
    payload: dict[str, Any] = field(default_factory=dict)
    home: Path | None = None


def handle(
    call: HookCall,
    stdin: bytes,
    *,
    conn: Connection | None = None,
    poll: Poll | None = None,
    oversized: bool = False,
    resident: Resident | None = None,
) -> Answer:
    """Decode, evaluate and answer one event; every failure becomes the documented answer
    (a harness STYLE does not support: allowed, and said so).

    With `conn` (the resident engine's open database, `call.home` its folder) nothing is
    opened; otherwise the project's database is found and opened under the OS lock.
    `oversized`: the hook read more than MAX_STDIN and sent only the payload's head (the
    engine's path). `resident` keeps what the engine does once the answer is sent
    (runtime/direct.py evaluate_on).
    """
    if call.harness not in SUPPORTED:
        unknown = HandlerError(Cause.UNKNOWN_HARNESS, f"unknown harness `{call.harness}`")
        return "", f"STYLE: {unknown.text}; allowed (fail open)\n", 0
    from agentstyle.harnesses import adapter_for

    adapter = adapter_for(call.harness)
    seen = Reading(adapter, call.event, adapter.spec.point_of(call.event))
    try:
        home = _located(call, seen, stdin, conn is None, oversized)
        seen.adapter, seen.event = dialect(call.harness, adapter, seen.payload, call.event)
        reader = seen.adapter
        elsewhere = _answered_elsewhere(adapter, seen, home)
        if elsewhere is not None:
            return elsewhere.stdout, elsewhere.stderr, elsewhere.exit_code
        event = reader.normalize(seen.payload, seen.event)
        if event.point is None:
            raise HandlerError(Cause.UNKNOWN_EVENT, _unknown_event(seen.event))
        event.harness = call.harness  # the entries installed for the config that ran this hook
        check = seen.payload.get(CHECK_KEY)
        if check is not None:
            # a check's result, handed back by its runner (observe/runner.py submit)
            from agentstyle.runtime import observers as observe

            observe.as_result(event, check if isinstance(check, dict) else {})
        if _answers_once(call, adapter, home):
            from agentstyle.evaluator.answered import identity_of

            event.identity = identity_of(event, stdin)
        from agentstyle.runtime import direct as runtime

        fixing = reader.fixing(seen.payload, seen.event, event)
        if conn is not None:
            decision = runtime.evaluate_on(
                conn, event, call, home=home, resident=resident, fixing=fixing
            )
        else:
            decision = runtime.evaluate_hook(home, event, call, poll, fixing)
        if check is not None:
            return observe.result_answer(decision)
        wire = _answer(call, seen, event, home, stdin, decision, resident)
        return wire.stdout, wire.stderr, wire.exit_code
    except Handover:
        raise  # the engine answered the whole event
    except Exception as exc:  # every failure becomes the documented fail answer, no traceback
        if resident is not None and conn is not None:
            resident.discard(conn)  # an evaluated event whose answer failed: not recorded
        return _failure(call, seen, failure_of(exc), session_of(seen.payload, stdin), conn, poll)


def _located(call: HookCall, seen: Reading, stdin: bytes, opens: bool, oversized: bool) -> Path:
    """The event's payload decoded into `seen` and its `.style` folder, which holds the
    database (`opens`: the hook opens it itself; else the engine has it open)."""
    if oversized:
        raise Oversized()
    seen.payload = decode(stdin)
    seen.home = _found(call.find_home(_cwd(seen.payload), user=True))
    if seen.point is None:
        raise HandlerError(Cause.UNKNOWN_EVENT, _unknown_event(call.event))
    home = seen.home
    if opens and home is not None:
        from agentstyle.runtime.direct import planted

        planted(home)
    if home is None or (opens and not (home / DATABASE_NAME).is_file()):
        raise NoDatabase()
    return home


def _answered_elsewhere(adapter: HarnessAdapter, seen: Reading, home: Path) -> Wire | None:
    """The no-opinion answer where another of STYLE's handlers evaluates this call (None: this
    one does)."""
    reader = seen.adapter
    if reader is not adapter and reader.installed_here(home.parent):
        # STYLE answers this harness through its own config: the same call is not
        # evaluated a second time through another harness's (docs/design/harnesses.md#dialect).
        return reader.no_opinion(seen.event)
    if reader is adapter and adapter.duplicate(seen.payload, seen.event):
        # Another gate STYLE installed for this harness owns this tool class (Cursor: shell
        # calls go through beforeShellExecution); that one evaluates the call.
        return adapter.no_opinion(seen.event)
    return None


def _answers_once(call: HookCall, adapter: HarnessAdapter, home: Path) -> bool:
    """Whether each event is answered once in this project
    (docs/design/runtime.md#answered-once)."""
    if (home / ANSWER_ONCE_NAME).exists():
        return True
    if call.via_plugin and adapter.installed_here(home.parent):
        # A plugin's handler beside a settings install of STYLE for this harness: both fire
        # for every event, so from now on each event is answered once. (`style install` marks
        # it too where it sees the plugin enabled.) A marker that cannot be written leaves this
        # event answered once all the same, never failed.
        with contextlib.suppress(OSError):
            mark_answer_once(home, "plugin", True)
        return True
    return False


def _answer(
    call: HookCall,
    seen: Reading,
    event: Event,
    home: Path,
    stdin: bytes,
    decision: Decision,
    resident: Resident | None,
) -> Wire:
    """The decided event's answer, after its observer lane's part, with the config-change
    notice where the harness has that point; the session is marked seen."""
    reader = seen.adapter
    checks = home / "checks"
    ending = event.point == "session.end"
    if decision.checks or (checks / ("slots" if ending else "deliver")).is_dir():
        # (the observer lane loads only where a check is due, a result waits for this
        # session's next event, or a session with checks ends: runtime/observers.py)
        _observe(home, reader, event, seen.payload, stdin, decision, resident, call.via_plugin)
    wire = reader.answer(decision, seen.event, event)
    from agentstyle.runtime import tamper

    if "config.changed" in reader.spec.points:
        wire = _config_notice(reader, seen.event, event, home, wire)
    if resident is not None:  # the engine marks the session once the answer is out
        resident.later(lambda keep: tamper.mark_seen(call.harness, event.session_id, keep))
    else:
        tamper.mark_seen(call.harness, event.session_id)
    return wire


def _observe(
    home: Path,
    reader: HarnessAdapter,
    event: Event,
    payload: dict[str, Any],
    stdin: bytes,
    decision: Decision,
    resident: Resident | None,
    via_plugin: bool,
) -> None:
    """The observer lane's part of an event (docs/observers.md): its due checks started, what
    earlier checks said given, a session's checks stopped when it ends."""
    from agentstyle.runtime import observers as observe

    if decision.checks:
        observe.start(home, reader.spec, event, payload, stdin, decision, resident, via_plugin)
    if event.point == "session.end":
        observe.end_session(home, event)
    else:
        observe.give_waiting(home, reader.spec, event, decision)


def _config_notice(
    reader: HarnessAdapter, native_event: str, event: Event, home: Path, wire: Wire
) -> Wire:
    """A settings file self-protection guards changed during the session: tamper evidence,
    told with the session's next answer that reaches the person (Claude Code shows nothing of
    the answer to the change itself: docs/design/runtime.md#tampering-notice)."""
    from agentstyle.runtime import tamper

    if event.point == "config.changed":
        if event.first("config.guarded"):
            tamper.config_changed(home, event.session_id, event.first("config.file") or "")
        return wire
    if native_event not in reader.notice_events:
        return wire
    told = tamper.pending_notice(home, event.session_id)
    return reader.with_notice(wire, native_event, told) if told else wire


def _found(home: str | None) -> Path | None:
    return Path(home) if home is not None else None


def _unknown_event(event: str) -> str:
    return f"unknown event `{one_line(event)[:64]}`"


def dialect(
    harness: str, adapter: HarnessAdapter, payload: dict[str, Any], native_event: str
) -> tuple[HarnessAdapter, str]:
    """(reader adapter, native event) for a payload: the payload decides the dialect.

    A client may run the hooks of another harness's config too (Cursor runs Claude Code's:
    docs/design/harnesses.md#cursor-claude-hooks): a payload of its shape arriving through that
    config is read, and answered, as its own (`HookFacts.runs_other_configs`).
    """
    from agentstyle.harnesses import adapter_for

    for name in visitors(harness):
        visitor = adapter_for(name)
        if visitor.looks_like(payload):
            return visitor, visitor.native_event_of(payload, native_event)
    return adapter, native_event


def _cwd(payload: dict[str, Any]) -> str | None:
    cwd = payload.get("cwd")
    if isinstance(cwd, str):
        return cwd
    return first_root(payload, ROOTS_KEYS)  # where a harness names the project otherwise


def _failure(
    call: HookCall,
    seen: Reading,
    failure: HandlerError,
    session: str | None,
    conn: Connection | None,
    poll: Poll | None,
    *,
    record: bool = True,
) -> Answer:
    """docs/design/runtime.md#handler-failure: record, then deny or allow per `fail`, then log. A
    call allowed because STYLE could not evaluate is never silent: the person is told, once per
    session and cause (`errorlog.fail_open_notice`, `notified.first_time`).

    `poll` is tried while waiting for the lock to record the failure: a resident engine that
    holds it answers the whole event instead (Handover), or steps aside.
    """
    home = seen.home
    if home is None:  # the payload was never read this far: look for it now
        try:
            home = _found(call.find_home(_cwd(seen.payload), user=True))
        except Exception:
            home = None
    try:
        log_home = home or Path(call.find_home(_cwd(seen.payload), database=False) or user_home())
    except Exception:
        log_home = Path(user_home())
    closed: bool | None = None  # None: the rules database could not be read
    # A lock held by a stranger (a stopped process, a program that is not STYLE) will not be
    # free to record the failure either: no second wait.
    stranger = failure.cause is Cause.STRANGER
    refusable = seen.adapter.can_refuse(seen.event)
    if (
        record
        and home is not None
        and not stranger
        and (conn is not None or (home / DATABASE_NAME).is_file())
        and not isinstance(failure, Planted)
    ):
        try:
            from agentstyle.runtime import direct as runtime

            closed = runtime.record_failure(
                home,
                call,
                seen.point,
                seen.payload,
                failure.text,
                max(call.deadline, time.monotonic() + call.grace),
                refused=call.fail_closed and refusable,
                conn=conn,
                poll=poll,
            )
        except Handover:
            raise  # the engine answered (and recorded) the whole event
        except Exception:
            closed = None
    tampered = _tamper_notice(call.harness, session, log_home, failure)
    stdout, stderr, code = _failure_answer(call, seen, failure, log_home, closed, session)
    if tampered:
        wire = seen.adapter.with_notice(Wire(stdout, code, ""), seen.event, tampered)
        return wire.stdout, stderr + wire.stderr, wire.exit_code
    return stdout, stderr, code


def _tamper_notice(
    harness: str, session: str | None, log_home: Path, failure: HandlerError
) -> str | None:
    """A database this session saw working is now gone or unreadable: say so, once."""
    from agentstyle.runtime import tamper

    what = {Cause.NO_DATABASE: "deleted", Cause.DATABASE: "damaged"}.get(failure.cause)
    if failure.cause is Cause.BUILDING and not (log_home / DATABASE_NAME).exists():
        what = "deleted"  # being built again because it is gone
    return tamper.notice(harness, session, log_home, what) if what else None


def _failure_answer(
    call: HookCall,
    seen: Reading,
    failure: HandlerError,
    log_home: Path,
    closed: bool | None,
    session: str | None,
) -> Answer:
    """deny or allow per `fail` (docs/design/runtime.md#fail-modes), logged; a fail-open answer
    tells the person."""
    from agentstyle.runtime import errorlog, notified

    adapter, cause = seen.adapter, failure.text
    wire: Wire
    if closed:
        reason = (
            f"STYLE could not evaluate policy ({cause}); the call is refused because a "
            "rule requires it."
        )
        wire = adapter.deny_answer(seen.event, reason)
        log_error(log_home, call, failure, errorlog.REFUSED)
        return wire.stdout, f"STYLE: {cause}; refused (fail: closed)\n", 0
    if call.fail_closed and adapter.can_refuse(seen.event):
        # docs/design/runtime.md#fail-modes: `style install --fail-closed` refuses on any handler
        # error with the deny JSON, and the exit code the harness's refusal needs beside it
        # (the adapter's `fail_closed_exit`, from `HookFacts.refusal_exit`).
        reason = (
            f"STYLE could not evaluate policy ({cause}); the call is refused because STYLE "
            "was installed to refuse when it cannot check (--fail-closed, or a `fail: closed` "
            "rule at this event)."
        )
        wire = adapter.deny_answer(seen.event, reason)
        log_error(log_home, call, failure, errorlog.REFUSED)
        return wire.stdout, f"STYLE: {cause}; refused (--fail-closed)\n", adapter.fail_closed_exit
    # Fail open: where the harness needs an explicit answer (Cursor permission hooks, Gemini's
    # JSON-only stdout) the adapter's "no opinion" is given, with the notice merged in.
    log_error(log_home, call, failure, errorlog.FAIL_OPEN)
    wire = adapter.no_opinion(seen.event) if seen.point is not None else Wire("")
    if notified.first_time(log_home, session, f"fail-open:{failure.cause.counted.value}"):
        notice = errorlog.fail_open_notice(failure, seen.point)
        wire = adapter.with_notice(wire, seen.event, notice)
    # (the notice's exit code: 0, or the one that shows a warning where that is the channel)
    return wire.stdout, f"STYLE: {cause}; allowed (fail open)\n" + wire.stderr, wire.exit_code
