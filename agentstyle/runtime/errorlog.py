"""Handler errors in `.style/logs/errors.log`, and what the person is told of an unchecked call.

See docs/design/runtime.md#handler-failure; the causes themselves are runtime/causes.py.

A line of errors.log is `<UTC time> <harness> <native event> <outcome> <cause>`, the outcome
`fail-open` (STYLE answered allow because it could not evaluate), `refused` (`fail: closed`
or `--fail-closed`) or `rebuilt` (the rules database this session used was gone, and was built
again from `style.lock.yaml` in time to evaluate the call). Lines written before the outcome
was recorded read `<time> <harness> <event> <cause>`; they are read with outcome `unknown`.
Standard library only: the hook writes this file on paths where nothing else works.
"""

from __future__ import annotations

import calendar
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from agentstyle.runtime.causes import Cause, HandlerError, one_line

FAIL_OPEN = "fail-open"
REFUSED = "refused"
REBUILT = "rebuilt"
UNKNOWN = "unknown"
OUTCOMES = (FAIL_OPEN, REFUSED, REBUILT)
STAMP = "%Y-%m-%dT%H:%M:%SZ"
# `style doctor` reads at most this much of the log's end: it is never rotated by STYLE.
READ_TAIL = 8 << 20


def fail_open_notice(failure: HandlerError, point: str | None) -> str:
    """The one line the person sees when a call ran unchecked (at most once per session and
    cause), naming the cause and `style doctor`."""
    why = failure.cause.notice_text
    if failure.cause.counted is Cause.INTERNAL:
        why = f"{why}: {failure.text}"
    if point == "tool.pre":
        return f"STYLE could not check this call ({why}); it was allowed. Run `style doctor`."
    if point == "prompt.submitted":
        return f"STYLE could not check this prompt ({why}); it was allowed. Run `style doctor`."
    return f"STYLE could not check this event ({why}); its rules did not run. Run `style doctor`."


def write(home: Path, harness: str, event: str, outcome: str, cause: str) -> None:
    """Append one line; a log that cannot be written never changes the answer, and never holds
    it: the file is opened without blocking and written only when it is a regular file (a
    FIFO planted as errors.log would otherwise wait for a reader)."""
    try:
        (home / "logs").mkdir(parents=True, exist_ok=True)
        stamp = time.strftime(STAMP, time.gmtime())
        line = f"{stamp} {one_line(harness) or '-'} {one_line(event) or '-'} {outcome} "
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
        fd = os.open(home / "logs" / "errors.log", flags, 0o600)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                os.write(fd, (line + one_line(cause) + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


@dataclass(frozen=True, slots=True)
class Entry:
    when: float  # seconds since the epoch
    harness: str
    event: str
    outcome: str  # fail-open | refused | rebuilt | unknown (a line older than outcomes)
    cause: str

    @property
    def counted(self) -> Cause:
        """The cause this line is counted as (`style doctor`)."""
        return Cause.of_text(self.cause).counted


def parse(line: str) -> Entry | None:
    parts = line.rstrip("\n").split(" ", 4)
    if len(parts) < 4:
        return None
    try:
        when = float(calendar.timegm(time.strptime(parts[0], STAMP)))
    except ValueError:
        return None
    if len(parts) == 5 and parts[3] in OUTCOMES:
        return Entry(when, parts[1], parts[2], parts[3], parts[4])
    return Entry(when, parts[1], parts[2], UNKNOWN, " ".join(parts[3:]))


def read(path: Path, since: float) -> list[Entry]:
    """The entries of `path` at or after `since` (the log's last READ_TAIL bytes)."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - READ_TAIL))
            data = fh.read()
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    if len(data) >= READ_TAIL and lines:
        lines = lines[1:]  # the first line may be cut
    entries = [e for e in map(parse, lines) if e is not None]
    return [e for e in entries if e.when >= since]
