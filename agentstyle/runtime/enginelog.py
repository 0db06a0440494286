"""`.style/logs/engine.log`: why a resident engine did not start (or stopped), for the person.

The engine runs detached with no terminal, so it writes here what `style engine start` then
prints: one line per start failure, `<UTC time> pid=<pid> could not start: <reason>`. Its stderr
is appended too (a crash before the engine's own error handling, e.g. a broken installation).
The file is kept small: past MAX_BYTES only its newer half is kept. Standard library only.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

NAME = ("logs", "engine.log")
MAX_BYTES = 256 * 1024
FAILED = "could not start:"


def path(home: str | Path) -> Path:
    return Path(home).joinpath(*NAME)


def size(home: str | Path) -> int:
    """Where the log ends now (what a starter reads from afterwards)."""
    try:
        return path(home).stat().st_size
    except OSError:
        return 0


def write(home: str | Path, text: str) -> None:
    """Append one line (never raises: the log is for the person, not for the engine)."""
    target = path(home)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if size(home) > MAX_BYTES:
            data = target.read_bytes()[-MAX_BYTES // 2 :]
            target.write_bytes(data[data.find(b"\n") + 1 :])
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        line = " ".join(text.split())
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(f"{stamp} pid={os.getpid()} {line}\n")
    except OSError:
        pass


def start_failure(home: str | Path, since: int) -> str | None:
    """The reason an engine gave for not starting, written after offset `since`; else the last
    line it printed there (a traceback's last line); None when it wrote nothing."""
    try:
        with open(path(home), "rb") as fh:
            fh.seek(since)
            text = fh.read(MAX_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if FAILED in line:
            return line.split(FAILED, 1)[1].strip()
    return lines[-1] if lines else None
