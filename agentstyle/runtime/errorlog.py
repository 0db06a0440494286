"""Handler errors (docs/design/runtime.md#handler-failure): their causes, `.style/logs/errors.log`,
and what the person is told when a call ran unchecked.

A line of errors.log is `<UTC time> <harness> <native event> <outcome> <cause>`, the outcome
`fail-open` (STYLE answered allow because it could not evaluate) or `refused` (`fail: closed`
or `--fail-closed`). Lines written before the outcome was recorded read
`<time> <harness> <event> <cause>`; they are read with outcome `unknown`. Standard library only:
the hook writes this file on paths where nothing else works.
"""

from __future__ import annotations

import calendar
import os
import time
from dataclasses import dataclass
from pathlib import Path

FAIL_OPEN = "fail-open"
REFUSED = "refused"
UNKNOWN = "unknown"
OUTCOMES = (FAIL_OPEN, REFUSED)
STAMP = "%Y-%m-%dT%H:%M:%SZ"
# `style doctor` reads at most this much of the log's end: it is never rotated by STYLE.
READ_TAIL = 8 << 20

# cause class → (what `style doctor` counts it as, what the notice says in its parentheses).
CAUSES: dict[str, tuple[str, str]] = {
    "no-database": ("no rules database", "no rules database is installed here"),
    "locked": (
        "the rules database was locked past the deadline",
        "the rules database is locked by another process",
    ),
    "database": ("the rules database could not be read", "the rules database could not be read"),
    "oversized": ("input over 16 MiB", "its input is over 16 MiB"),
    "payload": ("input that could not be read", "the harness sent input STYLE could not read"),
    "deadline": ("the internal deadline passed", "it ran out of time"),
    "unknown-event": (
        "an event STYLE does not know",
        "the hook is installed for an event STYLE does not know",
    ),
    "internal": ("an internal error", "an internal error"),
}
# How each cause text of `hookrun.cause_of` and `HandlerError` begins, by class.
_PREFIXES = (
    ("no rules database", "no-database"),
    ("the rules database stayed locked", "locked"),
    ("the rules database is locked", "locked"),
    ("the rules database lock is held by", "locked"),
    ("the rules database could not be read", "database"),
    ("database error", "database"),
    ("payload over", "oversized"),
    ("malformed JSON", "payload"),
    ("empty stdin", "payload"),
    ("stdin is not a JSON object", "payload"),
    ("internal deadline passed", "deadline"),
    ("unknown event", "unknown-event"),
)


def cause_class(cause: str) -> str:
    """The class of a cause text: what "once per session per cause" and doctor count by."""
    for prefix, cls in _PREFIXES:
        if cause.startswith(prefix):
            return cls
    return "internal"


def fail_open_notice(cause: str, point: str | None) -> str:
    """The one line the person sees when a call ran unchecked (at most once per session and
    cause class), naming the cause and `style doctor`."""
    cls = cause_class(cause)
    why = CAUSES[cls][1]
    if cls == "internal":
        why = f"{why}: {cause}"
    if point == "tool.pre":
        return f"STYLE could not check this call ({why}); it was allowed. Run `style doctor`."
    if point == "prompt.submitted":
        return f"STYLE could not check this prompt ({why}); it was allowed. Run `style doctor`."
    return f"STYLE could not check this event ({why}); its rules did not run. Run `style doctor`."


def _one_line(text: str) -> str:
    return " ".join(text.split())


def write(home: Path, harness: str, event: str, outcome: str, cause: str) -> None:
    """Append one line; a log that cannot be written never changes the answer."""
    try:
        (home / "logs").mkdir(parents=True, exist_ok=True)
        stamp = time.strftime(STAMP, time.gmtime())
        line = f"{stamp} {_one_line(harness) or '-'} {_one_line(event) or '-'} {outcome} "
        with open(home / "logs" / "errors.log", "a", encoding="utf-8") as fh:
            fh.write(line + _one_line(cause) + "\n")
    except OSError:
        pass


@dataclass(frozen=True, slots=True)
class Entry:
    when: float  # seconds since the epoch
    harness: str
    event: str
    outcome: str  # fail-open | refused | unknown (a line from before outcomes were written)
    cause: str

    @property
    def cause_class(self) -> str:
        return cause_class(self.cause)


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
