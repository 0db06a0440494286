"""Whether the process at the other end of the engine socket is STYLE's engine (stdlib only).

Any process of the user can bind a Unix socket: an agent could end the engine, bind its path
and answer "allow" to everything. So a hook believes the socket's peer only when the kernel
says (SO_PEERCRED) it is a process of this user that holds the project's lock file (the lock
the real engine keeps for its lifetime) and that was started as STYLE's engine: this very
interpreter, in isolated mode (`-I`: no PYTHONPATH, no working folder on sys.path, so the code
it runs is the installed `agentstyle`), `-m agentstyle.runtime.resident <this .style>`.
Otherwise the hook evaluates directly. Linux only (/proc); elsewhere the engine is not trusted.
"""

from __future__ import annotations

# `_socket` is the C module (`socket.socket` derives from its class): `socket` would cost
# every hook its `enum` and `selectors` imports.
import _socket
import os
import sys

ENGINE_MODULE = "agentstyle.runtime.resident"
# `struct ucred`: pid, uid, gid, each a native 4-byte int (read with `int`, not `struct`: one
# module less for every hook)
_CRED_SIZE = 12


def engine_argv(home: str) -> list[str]:
    """How the engine is started, and so what its command line must be."""
    return _engine_argv(os.path.realpath(home))


def _engine_argv(real_home: str) -> list[str]:
    return [sys.executable, "-I", "-m", ENGINE_MODULE, real_home]


def peer_pid(sock: _socket.socket) -> int | None:
    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        cred = sock.getsockopt(_socket.SOL_SOCKET, option, _CRED_SIZE)
    except OSError:
        return None
    if len(cred) != _CRED_SIZE:
        return None
    pid, uid = (int.from_bytes(cred[i : i + 4], sys.byteorder, signed=True) for i in (0, 4))
    if hasattr(os, "getuid") and uid != os.getuid():
        return None
    return int(pid)


def lock_holders(lock_path: str) -> set[int]:
    """The pids /proc/locks names as holding an advisory lock on `lock_path`."""
    try:
        st = os.stat(lock_path)
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read(1 << 20).splitlines()
    except OSError:
        return set()
    want = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    out = set()
    for line in lines:
        parts = line.split()
        # `1: FLOCK  ADVISORY  WRITE 4711 fd:01:123456 0 EOF` (a `->` marks a waiter)
        if len(parts) < 6 or parts[1] == "->":
            continue
        try:
            major, minor, inode = parts[5].split(":")
            if (int(major, 16), int(minor, 16), int(inode)) == want:
                out.add(int(parts[4]))
        except ValueError:
            continue
    return out


def holds_lock(pid: int, lock_path: str) -> bool:
    """Whether process `pid` holds an advisory lock on `lock_path` (a real path: no link in
    it) through one of its own file descriptors (its /proc fdinfo `lock:` lines). Reading
    /proc/locks instead costs the kernel a grace period of its global lock (milliseconds on
    every hook); fdinfo is per file. A descriptor's /proc link names its file's real path
    without touching the file itself."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") != lock_path:
                continue
            with open(f"/proc/{pid}/fdinfo/{fd}", encoding="utf-8", errors="replace") as fh:
                info = fh.read(1 << 16)
        except OSError:
            continue
        for line in info.splitlines():
            # `lock:	1: FLOCK  ADVISORY  WRITE 4711 fd:01:123456 0 EOF`
            parts = line.split()
            if len(parts) >= 7 and parts[0] == "lock:" and parts[5] == str(pid):
                return True
    return False


def _cmdline(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            raw = fh.read(1 << 16)
    except OSError:
        return None
    return [part.decode("utf-8", "surrogateescape") for part in raw.split(b"\0") if part]


def _started_as(argv: list[str] | None, want: list[str]) -> bool:
    """Whether `argv` is the engine command `want`, its interpreter named by any name in the
    same folder: a project install's `style-hook` script runs `bin/python3`, a personal
    install's `python -m agentstyle.hook` runs `bin/python`, and either may have started the
    engine the other talks to (that both are the same binary, `untrusted` checks by /proc)."""
    if argv is None or len(argv) != len(want) or argv[1:] != want[1:]:
        return False
    return os.path.dirname(os.path.abspath(argv[0])) == os.path.dirname(os.path.abspath(want[0]))


def untrusted(sock: _socket.socket, home: str) -> str | None:
    """Why the peer of `sock` is not the project's engine, or None when it is."""
    pid = peer_pid(sock)
    if pid is None:
        return "the socket's peer cannot be identified"
    real = os.path.realpath(home)
    # (the folder's real path, found once: the engine's command line names it so, and the lock
    # in it is a file STYLE creates, never a link)
    if not holds_lock(pid, os.path.join(real, "style.lock")):
        return "the socket's peer does not hold the project's lock"
    if not _started_as(_cmdline(pid), _engine_argv(real)):
        return "the socket's peer was not started as STYLE's engine"
    try:
        # Each link names the binary the kernel runs, every link resolved: no path walked here.
        same = os.readlink(f"/proc/{pid}/exe") == os.readlink("/proc/self/exe")
    except OSError:
        return "the socket's peer cannot be identified"
    if not same:
        return "the socket's peer runs another interpreter"
    return None


def _state(pid: int) -> str | None:
    """The process state letter of /proc/PID/stat (`T`: stopped), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read(4096)
    except OSError:
        return None
    end = raw.rfind(b")")  # the command name may hold spaces and parentheses
    return raw[end + 2 : end + 3].decode("ascii", "replace") if end > 0 else None


def stopped(pid: int) -> bool:
    return _state(pid) in ("T", "t")


def _has_open(pid: int, paths: set[str]) -> bool:
    """Whether process `pid` has one of `paths` open (its /proc fd links)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return True  # cannot look (another user's, or gone): not a reason to give up
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") in paths:
                return True
        except OSError:
            continue
    return False


def _style_process(argv: list[str]) -> bool:
    """Whether `argv` is a STYLE command (`style-hook`, `style`, `python -m agentstyle…`). Such
    a holder is waited for until the deadline even before it opens the database: starved on a
    loaded machine, a hook can hold the lock for seconds while it imports DuckDB, and a call
    told "another program" would be let through unchecked. A program merely named so gains
    nothing by it: the deadline still bounds the wait and the answer follows `fail`."""
    script = os.path.basename(argv[1]) if len(argv) > 1 else ""
    if script in ("style", "style-hook"):
        return True
    # `python -m agentstyle.hook`, `python -I -m agentstyle.runtime.resident HOME`
    at = argv.index("-m", 1, 3) + 1 if "-m" in argv[1:3] else len(argv)
    module = argv[at] if at < len(argv) else ""
    return module == "agentstyle" or module.startswith("agentstyle.")


# A STYLE process opens the database right after it takes the lock, but on a loaded machine
# importing and opening DuckDB can take a while: a holder is a stranger only after this long.
STRANGER_GRACE_S = 1.5


class StrangerCheck:
    """Why waiting for the lock is pointless, or None to keep waiting (called as it waits).

    Every STYLE process that holds the lock opens the rules database while it does (it takes
    the lock to open it). A holder that is stopped (`kill -STOP`), or that keeps neither the
    database nor its WAL open for STRANGER_GRACE_S (`flock .style/style.lock sleep 300`), will
    not let go in time: the hook answers at once, per `fail`, naming it.
    """

    def __init__(self, lock_path: str) -> None:
        self.lock_path = lock_path
        database = os.path.join(os.path.dirname(os.path.realpath(lock_path)), "style.duckdb")
        self.files = {database, database + ".wal"}
        self.since: dict[int, float] = {}  # pid → when it was first seen without the database

    def __call__(self) -> str | None:
        import time

        now = time.monotonic()
        for pid in sorted(lock_holders(self.lock_path)):
            if pid == os.getpid():
                continue
            argv = _cmdline(pid)
            if argv is None:
                continue  # gone meanwhile: the lock is about to be free
            name = os.path.basename(argv[0]) if argv else "?"
            if stopped(pid):
                return f"the rules database lock is held by a stopped process (pid {pid}: {name})"
            if _has_open(pid, self.files) or _style_process(argv):
                self.since.pop(pid, None)
            elif now - self.since.setdefault(pid, now) >= STRANGER_GRACE_S:
                return f"the rules database lock is held by another program (pid {pid}: {name})"
        return None
