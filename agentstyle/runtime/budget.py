"""The last resort that keeps a hook's promise: an answer within its budget, whatever blocks.

See docs/design/runtime.md#hook-budget.

Every waiting step ends at the call's deadline by itself; this is for what no step foresaw (a
blocking call inside DuckDB's C code, a file system that hangs). `arm` starts two watchers:

- a thread that, at `HookCall.watchdog_at`, gives the fail-mode answer itself (one stderr line,
  one errors.log line) and ends the process with `os._exit`. It needs the interpreter, which a C
  call that keeps the GIL would hold; DuckDB releases it while it opens a file
  (tests/test_budget.py proves the thread fires while `duckdb.connect` blocks on a FIFO);
- `faulthandler`'s own C thread, WATCHDOG_EXIT_S later, which needs no interpreter at all: it
  ends the process with exit 1 and no answer (a client with `onFailure: block` refuses that).

Whoever gives the answer first owns it (`claim`): the hook's own failure path claims before it
writes errors.log, so a call is never answered or logged twice. Standard library only, and
`_thread` rather than `threading` (whose import costs the fast path milliseconds).
"""

from __future__ import annotations

import _thread
import os
import time

from agentstyle.limits import WATCHDOG_EXIT_S, WATCHDOG_PREPARE_S

TYPE_CHECKING = False  # mypy reads this name as typing's (`typing` costs the fast path)
if TYPE_CHECKING:
    from collections.abc import Callable

    from agentstyle.runtime.hookcall import HookCall

    # (call, the payload as far as it was read, what the hook was doing) → the fail answer;
    # called once with `prepare` True ahead of time (load what answering needs, answer nothing)
    Answerer = Callable[[HookCall, bytes, str, bool], tuple[str, str, int]]

_lock = _thread.allocate_lock()
_armed = False  # a hook process watched by `arm` (the engine's process never is)
_owner: int | None = None  # the thread that gives this process's answer, once one claimed it
_stage = "starting"  # what the hook was doing, for the watchdog's errors.log line
_stdin = b""  # the payload as far as it was read


def note(stage: str, stdin: bytes | None = None) -> None:
    """What the hook is doing now (and the payload, once read): named when the budget ends."""
    global _stage, _stdin
    _stage = stage
    if stdin is not None:
        _stdin = stdin


def claim() -> bool:
    """True when the calling thread may give the answer (and write its errors.log line): no
    other thread claimed it. A process whose watchdog was never armed always may."""
    global _owner
    if not _armed:
        return True
    me = _thread.get_ident()
    with _lock:
        if _owner is None:
            _owner = me
        return _owner == me


def arm(call: HookCall, answer: Answerer) -> None:
    """Watch the call: past `call.watchdog_at` the fail answer `answer` gives is given from
    here (the hook's entry passes runtime/hookrun.py `out_of_time`)."""
    global _armed
    _armed = True
    _thread.start_new_thread(_watch, (call, answer))
    try:
        import faulthandler

        # The traceback it would dump goes nowhere: only its `_exit(1)` is wanted.
        devnull = os.open(os.devnull, os.O_WRONLY)
        left = call.watchdog_at + WATCHDOG_EXIT_S - time.monotonic()
        faulthandler.dump_traceback_later(max(left, 0.01), exit=True, file=devnull)
    except (OSError, ValueError, RuntimeError):
        pass


def disarm() -> None:
    """The answer is out: what follows (draining an oversized payload) may take its time."""
    try:
        import faulthandler

        faulthandler.cancel_dump_traceback_later()
    except (ImportError, RuntimeError):
        pass


def _watch(call: HookCall, answer: Answerer) -> None:
    left = call.watchdog_at - WATCHDOG_PREPARE_S - time.monotonic()
    if left > 0:
        time.sleep(left)
    import contextlib  # late, in this thread: never on the fast path

    with contextlib.suppress(BaseException):
        answer(call, b"", "", True)
    left = call.watchdog_at - time.monotonic()
    if left > 0:
        time.sleep(left)
    global _owner
    with _lock:
        if _owner is not None:
            return  # the hook answers by itself
        _owner = _thread.get_ident()
    fire(call, answer, _stage, _stdin)


def fire(call: HookCall, answer: Answerer, stage: str, stdin: bytes) -> None:
    """Give the fail answer for a call whose budget ran out, and end the process."""
    try:
        stdout, stderr, code = answer(call, stdin, stage, False)
    except BaseException:  # the answer must go out even if building the proper one fails
        stdout, stderr, code = _bare(call, stage)
    try:
        if stdout:
            os.write(1, (stdout + "\n").encode("utf-8", "replace"))
        if stderr:
            os.write(2, (stderr if stderr.endswith("\n") else stderr + "\n").encode("utf-8"))
    except OSError:
        pass
    os._exit(code)


def _bare(call: HookCall, stage: str) -> tuple[str, str, int]:
    """The answer without any adapter (the last net's: runtime/hookrun.py `run`)."""
    text = f"internal deadline passed ({stage})"
    try:
        from pathlib import Path

        from agentstyle.folders import user_home
        from agentstyle.runtime import errorlog

        outcome = errorlog.REFUSED if call.fail_closed else errorlog.FAIL_OPEN
        home = call.find_home(database=False) or user_home()
        errorlog.write(Path(home), call.harness, call.event, outcome, text)
    except BaseException:
        pass
    if call.fail_closed:
        from agentstyle.harnesses import refusal_exit

        return "", f"STYLE: {text}; refused (--fail-closed)\n", refusal_exit(call.harness)
    return "", f"STYLE: {text}; allowed (fail open)\n", 0
