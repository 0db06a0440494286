"""Whether this machine's rules database was built from the committed `style.lock.yaml`.

A teammate who clones a project has the lock (committed) and no `.style/` (never committed).
The first hook there, or the first after a pull that changed the lock, must build the
database from the lock before it evaluates, or every call would run unguarded. Standard
library only: this runs on every hook, so the common case is two `stat` calls, and one more
for each other layer's lock (docs/design/storage.md#layers): a database compiled from the managed
and the user policies too is rebuilt when either lock changes, appears or goes.
"""

from __future__ import annotations

import os

from agentstyle.folders import (
    DATABASE_NAME,
    HOME_NAME,
    LOCK_NAME,
    STYLE_HOME_ENV,
    find_each_upwards,
    has_database,
    layer_locks,
    managed_root,
    not_regular,
    read_regular,
)

BUILT_FROM = "built-from"  # in `.style/`: "sha256 size mtime_ns" of the lock it was built from
MAX_LOCK = 1 << 20
NO_DATABASE = "no rules database on this machine"


def find_root_and_home(starts: list[str | None], home: str | None) -> tuple[str | None, str | None]:
    """(root, home) for a hook, found in one walk upwards from `starts` (the harness's project
    folders, the payload's `cwd`, the working folder):

    - root: the nearest folder that holds `style.lock.yaml` (or a database built from the
      layers above it), whose database is built from it; with `home` (STYLE_HOME) the folder
      above it, when it holds the lock;
    - home: the `.style` folder that holds the rules database, as `folders.find_home` finds it
      (`home` itself when given)."""
    if home:
        root = os.path.dirname(os.path.abspath(home))
        return (root if os.path.isfile(os.path.join(root, LOCK_NAME)) else None), home
    found, database = find_each_upwards(starts, (_built_here, _holds_database))
    if found is None and os.path.isfile(os.path.join(managed_root(), LOCK_NAME)):
        # No project or user policy: the organisation's is evaluated in the user's `~/.style`
        # (the managed folder is the administrator's, never written by a hook).
        found = os.path.expanduser("~")
    return found, (os.path.join(database, HOME_NAME) if database is not None else None)


def _built_here(folder: str) -> bool:
    """A folder with a lock, or whose database was built from the layers above it alone (a
    project whose own install is gone while the managed or the user policy stays)."""
    return os.path.isfile(os.path.join(folder, LOCK_NAME)) or os.path.isfile(
        os.path.join(folder, HOME_NAME, BUILT_FROM)
    )


def _holds_database(folder: str) -> bool:
    return has_database(os.path.join(folder, HOME_NAME))


def _home(root: str) -> str:
    return os.environ.get(STYLE_HOME_ENV) or os.path.join(root, HOME_NAME)


def _stamp(root: str) -> tuple[str, int, int] | None:
    """(sha256, size, mtime_ns) of the lock file, None when it cannot be read."""
    return _stamp_of(os.path.join(root, LOCK_NAME))


def _stamp_of(path: str) -> tuple[str, int, int] | None:
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
    """Why the database must be (re)built from the locks, or None when it is current."""
    home = _home(root)
    database = os.path.join(home, DATABASE_NAME)
    if not_regular(database) is not None:
        return None  # something planted in its place: refused as unreadable, never built over
    if not os.path.isfile(os.path.join(root, LOCK_NAME)) and not any(
        os.path.isfile(path) for _layer, path in layer_locks(root)
    ):
        return None  # no lock here nor above: nothing to build from
    if not os.path.isfile(database):
        return NO_DATABASE
    raw = read_regular(os.path.join(home, BUILT_FROM), 4096)
    try:
        if raw is None:
            raise ValueError
        first, *others = raw.decode("ascii", "replace").splitlines()
        own = None if first.strip() == "-" else first.split()
        if own is not None:
            digest, size, mtime = own
            st = os.stat(os.path.join(root, LOCK_NAME))
    except (OSError, ValueError):
        return None  # built before this record existed, or by hand: not ours to second-guess
    if own is not None and (st.st_size, st.st_mtime_ns) != (int(size), int(mtime)):
        now = _stamp(root)
        if now is not None and now[0] != digest:
            return "style.lock.yaml changed since the rules database was built"
        if now is not None:
            record(root)  # the same bytes, touched (a checkout): not hashed again next time
    return _layers_stale(root, others)


def _layers_stale(root: str, lines: list[str]) -> str | None:
    """Why another layer's lock no longer matches the one the database was built with."""
    built: dict[str, list[str]] = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 4:
            built[parts[0]] = parts[1:]
    touched = False
    for layer, path in layer_locks(root):
        try:
            st = os.stat(path)
        except OSError:
            st = None
        was = built.get(layer)
        if st is None:
            if was is not None:
                return f"the {layer} policy was removed since the rules database was built"
            continue
        if was is None:
            return f"a {layer} policy was installed since the rules database was built"
        if (st.st_size, st.st_mtime_ns) == (int(was[1]), int(was[2])):
            continue
        now = _stamp_of(path)
        if now is None:
            continue
        if now[0] != was[0]:
            return f"the {layer} policy changed since the rules database was built"
        touched = True
    if touched:
        record(root)
    return None


def record(root: str) -> None:
    """Note that the database now matches the locks (install, sync, a first-use build)."""
    stamp = _stamp(root)
    if stamp is None and os.path.isfile(os.path.join(root, LOCK_NAME)):
        return
    lines = [f"{stamp[0]} {stamp[1]} {stamp[2]}" if stamp else "-"]
    for layer, path in layer_locks(root):
        other = _stamp_of(path)
        if other is not None:
            lines.append(f"{layer} {other[0]} {other[1]} {other[2]}")
    home = _home(root)
    tmp = os.path.join(home, f".{BUILT_FROM}.{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write("".join(line + "\n" for line in lines))
        os.replace(tmp, os.path.join(home, BUILT_FROM))
    except OSError:
        import contextlib  # record() runs after a build, not on every hook

        with contextlib.suppress(OSError):
            os.unlink(tmp)
