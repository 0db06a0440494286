"""The hook's side of the resident engine: standard library only, every failure returns None."""

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


def available() -> bool:
    return hasattr(socket, "AF_UNIX") and os.environ.get(ENGINE_ENV, "on") != "off"


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


def request(home: str, message: dict[str, object], timeout: float) -> dict[str, object] | None:
    """One request to the engine in `home`, or None (no engine, stale socket, timeout, error)."""
    path = os.path.join(home, "engine.sock")
    if timeout <= 0 or not socket_is_ours(path):
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        send_message(sock, message)
        answer = recv_message(sock)
    except (OSError, ValueError):
        return None
    finally:
        sock.close()
    return answer if isinstance(answer, dict) else None


def start_engine(home: str) -> None:
    """Start an engine in the background, detached from the hook (it outlives this process)."""
    import subprocess

    try:
        subprocess.Popen(
            [sys.executable, "-m", "agentstyle.engine.resident", home],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True,
        )
    except OSError:
        pass


def stop_engine(home: str, wait_s: float = 5.0) -> bool:
    """Ask a running engine to exit; True when one answered."""
    answer = request(home, {"op": "stop"}, wait_s)
    if answer is None:
        return False
    path = os.path.join(home, "engine.sock")
    deadline = time.monotonic() + wait_s
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    return True
