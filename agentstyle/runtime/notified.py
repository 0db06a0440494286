"""Which notices a session was already given: marker files outside the database.

A notice (STYLE could not check a call, the database is being built, …) is shown at most once
per session and kind. The memory of that must survive exactly the failures the notices report
(a missing, corrupt or locked database), so it lives in plain files under
`<.style>/logs/notified/`, one per (session, kind), created with O_EXCL: of thirty hooks of one
session failing at once, one gives the notice. Growth is bounded: each new marker prunes the
markers older than a week, and the oldest beyond a cap. Standard library only.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from agentstyle.folders import new_marker

FOLDER = ("logs", "notified")
KEEP_S = 7 * 24 * 3600.0
MAX_MARKERS = 2000
# A hook that cannot name its session (its input was unreadable) counts as a session of its
# own per hour: it tells the person again after an hour, not on every call.
UNKNOWN_SESSION_S = 3600


def marker_name(session: str | None, kind: str, now: float | None = None) -> str:
    """The marker file of one (session, kind): a digest, so no session id is written out."""
    if not session:
        bucket = int((time.time() if now is None else now) // UNKNOWN_SESSION_S)
        session = f"\0unknown-session\0{bucket}"
    return hashlib.sha256(f"{session}\0{kind}".encode("utf-8", "replace")).hexdigest()[:32]


def first_time(home: Path, session: str | None, kind: str) -> bool:
    """True once per (session, kind): the caller gives the notice. When the marker cannot be
    written at all (a read-only folder) this says True: better repeated than never told."""
    folder = home.joinpath(*FOLDER)
    path = folder / marker_name(session, kind)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file where the folder should be
        return False
    except OSError:
        return True
    made = new_marker(path)
    if made:
        prune(folder)
    return made is not False


def prune(folder: Path, now: float | None = None) -> None:
    """Drop markers older than KEEP_S, then the oldest beyond MAX_MARKERS (sessions end
    without telling hooks, so age is the only sign a marker is no longer needed)."""
    now = time.time() if now is None else now
    kept: list[tuple[float, str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    mtime = entry.stat(follow_symlinks=False).st_mtime
                except OSError:
                    continue
                if now - mtime > KEEP_S:
                    _unlink(entry.path)
                else:
                    kept.append((mtime, entry.path))
    except OSError:
        return
    if len(kept) > MAX_MARKERS:
        kept.sort()
        for _mtime, path in kept[: len(kept) - MAX_MARKERS]:
            _unlink(path)


def _unlink(path: str) -> None:
    try:  # noqa: SIM105 - contextlib is one import more on the hook path
        os.unlink(path)
    except OSError:
        pass
