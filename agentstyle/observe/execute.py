"""Run one check's command: in the project, in a process group of its own, bounded.

Its output (stdout and stderr together) is kept as its last MAX_OUTPUT bytes; past its timeout
the whole group is ended (TERM, then KILL) and the result says `timed_out`. A command that could
not start, or that a signal ended (not the timeout's), `crashed`: its rule says nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_OUTPUT = 16 * 1024
TIMED_OUT_EXIT = 124  # as timeout(1) says it
_GRACE_S = 2.0


@dataclass(frozen=True, slots=True)
class CheckResult:
    exit: int
    output: str
    duration_s: float
    timed_out: bool = False
    crashed: str | None = None  # why, when it did


def run(
    command: str, cwd: str, timeout_s: float, started: Callable[[int], None] | None = None
) -> CheckResult:
    """Run `command` with `sh -c` in `cwd`; `started` is told its process group."""
    begun = time.monotonic()
    env = {**os.environ, "STYLE_CHECK": "1"}
    try:
        proc = subprocess.Popen(
            ["/bin/sh", "-c", command],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
        )
    except OSError as exc:
        return CheckResult(-1, "", 0.0, crashed=f"could not start: {exc.strerror or exc}")
    if started is not None:
        started(proc.pid)
    tail = bytearray()

    stream = proc.stdout
    assert stream is not None

    def read() -> None:
        for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
            tail.extend(chunk)
            if len(tail) > 2 * MAX_OUTPUT:
                del tail[: len(tail) - MAX_OUTPUT]

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    timed_out = False
    try:
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        code = _end_group(proc)
    reader.join(timeout=_GRACE_S)
    duration = time.monotonic() - begun
    output = bytes(tail[-MAX_OUTPUT:]).decode("utf-8", "replace")
    if timed_out:
        return CheckResult(TIMED_OUT_EXIT, output, duration, timed_out=True)
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
        return CheckResult(code, output, duration, crashed=f"ended by {name}")
    return CheckResult(code, output, duration)


def _end_group(proc: subprocess.Popen[bytes]) -> int:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            break
        try:
            return proc.wait(timeout=_GRACE_S)
        except subprocess.TimeoutExpired:
            continue
    return proc.wait()
