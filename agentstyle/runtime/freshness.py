"""Whether this machine's rules database was built from the committed `style.lock.yaml`.

A teammate who clones a project has the lock (committed) and no `.style/` (never committed).
The first hook there, or the first after a pull that changed the lock, must build the
database from the lock before it evaluates, or every call would run unguarded. Standard
library only: this runs on every hook, so the common case is two `stat` calls.
"""

from __future__ import annotations

import os

LOCK_NAME = "style.lock.yaml"
BUILT_FROM = "built-from"  # in `.style/`: "sha256 size mtime_ns" of the lock it was built from
PROJECT_ENV = ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR")
MAX_LOCK = 1 << 20
NO_DATABASE = "no rules database on this machine"


def find_locked_root(starts: list[str | None]) -> str | None:
    """The nearest folder upwards from the harness's project folder or the working folder
    that holds `style.lock.yaml` (STYLE_HOME: the folder above it)."""
    override = os.environ.get("STYLE_HOME")
    if override:
        root = os.path.dirname(os.path.abspath(override))
        return root if os.path.isfile(os.path.join(root, LOCK_NAME)) else None
    for start in starts:
        if not start:
            continue
        folder = os.path.abspath(start)
        while True:
            if os.path.isfile(os.path.join(folder, LOCK_NAME)):
                return folder
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return None


def hook_starts() -> list[str | None]:
    starts: list[str | None] = [os.environ.get(name) for name in PROJECT_ENV]
    try:  # noqa: SIM105 - contextlib is one import more on the latency-critical path
        starts.append(os.getcwd())
    except OSError:
        pass
    return starts


def _home(root: str) -> str:
    return os.environ.get("STYLE_HOME") or os.path.join(root, ".style")


def _stamp(root: str) -> tuple[str, int, int] | None:
    """(sha256, size, mtime_ns) of the lock file, None when it cannot be read."""
    path = os.path.join(root, LOCK_NAME)
    try:
        st = os.stat(path)
        with open(path, "rb") as fh:
            data = fh.read(MAX_LOCK)
    except OSError:
        return None
    import hashlib  # only when the lock changed: every hook reads this module

    return hashlib.sha256(data).hexdigest(), st.st_size, st.st_mtime_ns


def stale(root: str) -> str | None:
    """Why the database must be (re)built from the lock, or None when it is current."""
    home = _home(root)
    if not os.path.isfile(os.path.join(home, "style.duckdb")):
        return NO_DATABASE
    try:
        with open(os.path.join(home, BUILT_FROM), encoding="utf-8") as fh:
            digest, size, mtime = fh.read(256).split()
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
