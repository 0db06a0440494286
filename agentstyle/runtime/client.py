"""The hook's side of the resident engine: standard library only, every failure means None."""

from __future__ import annotations

import json
import os
import socket
import stat
import struct
import sys
import time

ENGINE_ENV = "STYLE_ENGINE"
HEADER = struct.Struct("!I")
MAX_MESSAGE = 64 * 1024 * 1024
SOCKET_NAME = "engine.sock"
STARTING_NAME = "engine.starting"
# A start marker older than this belongs to an engine that never came up: start another.
STARTING_FRESH_S = 10.0


def available() -> bool:
    """Unix sockets exist here and the user did not turn the engine off."""
    return hasattr(socket, "AF_UNIX") and os.environ.get(ENGINE_ENV, "on") != "off"


def engine_version() -> str:
    """What client and engine must share: the package version and the environment it is
    installed in (`python` and `python3` of one venv are the same, two venvs are not)."""
    from agentstyle import __version__

    return f"{__version__}:{sys.prefix}"


def locate_home() -> str | None:
    """The `.style` folder of this project: STYLE_HOME, else the nearest upwards from the
    harness's project folder or the working folder that holds a rules database."""
    override = os.environ.get("STYLE_HOME")
    if override:
        return override
    starts = [
        os.environ.get(name)
        for name in ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR")
    ]
    try:  # noqa: SIM105 - contextlib is one import more on the latency-critical path
        starts.append(os.getcwd())
    except OSError:
        pass
    for start in starts:
        if not start:
            continue
        folder = os.path.abspath(start)
        while True:
            candidate = os.path.join(folder, ".style")
            if os.path.isfile(os.path.join(candidate, "style.duckdb")):
                return candidate
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return None


def send_message(sock: socket.socket, obj: object) -> None:
    data = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    sock.sendall(HEADER.pack(len(data)) + data)


def recv_message(sock: socket.socket) -> object:
    head = _recv_exact(sock, HEADER.size)
    (size,) = HEADER.unpack(head)
    if size > MAX_MESSAGE:
        raise ValueError("message too large")
    return json.loads(_recv_exact(sock, size).decode("utf-8"))


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("engine closed the connection")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def socket_is_ours(path: str) -> bool:
    """A real socket owned by this user: never talk to a foreign or planted file."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    owner_ok = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISSOCK(st.st_mode) and owner_ok


def read_digest(home: str) -> str:
    try:
        with open(os.path.join(home, "policy.digest"), encoding="utf-8") as fh:
            return fh.read().strip()
    except OSError:
        return ""


def request(
    home: str, message: dict[str, object], timeout: float
) -> tuple[dict[str, object] | None, str]:
    """(answer, why not) for one request: why is `absent` (no usable socket), `refused`
    (a stale socket: its engine is gone), `timeout` or `error`."""
    path = os.path.join(home, SOCKET_NAME)
    if not socket_is_ours(path):
        return None, "absent"
    if timeout <= 0:
        return None, "timeout"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        send_message(sock, message)
        answer = recv_message(sock)
    except (ConnectionRefusedError, FileNotFoundError):
        return None, "refused"
    except TimeoutError:
        return None, "timeout"
    except (OSError, ValueError):
        return None, "error"
    finally:
        sock.close()
    return (answer, "") if isinstance(answer, dict) else (None, "error")


def start_engine(home: str) -> bool:
    """Start an engine in the background, detached (it outlives this hook). A marker made with
    O_EXCL keeps thirty hooks that all find no engine from starting thirty."""
    marker = os.path.join(home, STARTING_NAME)
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        try:
            if time.time() - os.stat(marker).st_mtime < STARTING_FRESH_S:
                return False
            os.unlink(marker)
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except OSError:
            return False
    except OSError:
        return False
    os.close(fd)
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-m", "agentstyle.runtime.resident", home],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    return True


def ping(home: str, timeout: float = 2.0) -> dict[str, object] | None:
    answer, _ = request(home, {"op": "ping"}, timeout)
    return answer


def stop_engine(home: str, wait_s: float = 5.0) -> bool:
    """Ask a running engine to exit and wait for it to let go; True when one answered."""
    answer, _ = request(home, {"op": "stop"}, wait_s)
    if answer is None:
        return False
    path = os.path.join(home, SOCKET_NAME)
    deadline = time.monotonic() + wait_s
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    return True
