"""Whether this machine's rules database was built from the committed `style.lock.yaml`.

A teammate who clones a project has the lock (committed) and no `.style/` (never committed).
The first hook there, or the first after a pull that changed the lock, must build the
database from the lock before it evaluates, or every call would run unguarded. Standard
library only: this runs on every hook, so the common case is two `stat` calls.
"""

from __future__ import annotations

import os

from agentstyle.folders import (
    DATABASE_NAME,
    HOME_NAME,
    LOCK_NAME,
    STYLE_HOME_ENV,
    find_upwards,
    not_regular,
    read_regular,
)

BUILT_FROM = "built-from"  # in `.style/`: "sha256 size mtime_ns" of the lock it was built from
MAX_LOCK = 1 << 20
NO_DATABASE = "no rules database on this machine"


def find_locked_root(starts: list[str | None], home: str | None) -> str | None:
    """The nearest folder upwards from `starts` (a hook's: the harness's project folder, the
    working folder) that holds `style.lock.yaml`; with `home` (STYLE_HOME) the folder above it,
    when it does."""
    if home:
        root = os.path.dirname(os.path.abspath(home))
        return root if os.path.isfile(os.path.join(root, LOCK_NAME)) else None
    return find_upwards(starts, lambda folder: os.path.isfile(os.path.join(folder, LOCK_NAME)))


def _home(root: str) -> str:
    return os.environ.get(STYLE_HOME_ENV) or os.path.join(root, HOME_NAME)


def _stamp(root: str) -> tuple[str, int, int] | None:
    """(sha256, size, mtime_ns) of the lock file, None when it cannot be read."""
    path = os.path.join(root, LOCK_NAME)
    try:
        st = os.stat(path)
    except OSError:
        return None
    data = read_regular(path, MAX_LOCK)
    if data is None:
        return None
    import hashlib  # only when the lock changed: every hook reads this module

    return hashlib.sha256(data).hexdigest(), st.st_size, st.st_mtime_ns


def stale(root: str) -> str | None:
    """Why the database must be (re)built from the lock, or None when it is current."""
    home = _home(root)
    database = os.path.join(home, DATABASE_NAME)
    if not_regular(database) is not None:
        return None  # something planted in its place: refused as unreadable, never built over
    if not os.path.isfile(database):
        return NO_DATABASE
    raw = read_regular(os.path.join(home, BUILT_FROM), 256)
    try:
        if raw is None:
            raise ValueError
        digest, size, mtime = raw.decode("ascii", "replace").split()
        st = os.stat(os.path.join(root, LOCK_NAME))
    except (OSError, ValueError):
        return None  # built before this record existed, or by hand: not ours to second-guess
    if (st.st_size, st.st_mtime_ns) == (int(size), int(mtime)):
        return None
    now = _stamp(root)
    if now is None:
        return None
    if now[0] == digest:
        record(root)  # the same bytes, touched (a checkout): not hashed again next time
        return None
    return "style.lock.yaml changed since the rules database was built"


def record(root: str) -> None:
    """Note that the database now matches the lock (install, sync, a first-use build)."""
    stamp = _stamp(root)
    if stamp is None:
        return
    home = _home(root)
    tmp = os.path.join(home, f".{BUILT_FROM}.{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(f"{stamp[0]} {stamp[1]} {stamp[2]}\n")
        os.replace(tmp, os.path.join(home, BUILT_FROM))
    except OSError:
        import contextlib  # record() runs after a build, not on every hook

        with contextlib.suppress(OSError):
            os.unlink(tmp)
