"""The hook's side of the resident engine: standard library only, every failure means None.

A hook's request costs its process no `json` and no `socket` import (with `re`, `enum` and
`selectors` behind them, they are a third of a warm hook's start): its header is written as
JSON here, its payload follows as raw bytes, and the answer comes back as raw bytes
(`send_hook`, `recv_answer`). Control messages (ping, stop) and the engine's refusals stay
JSON. The few binary fields are 4-byte big-endian integers, read and written with `int`'s own
methods (`struct` and `select` are modules a warm hook would load for nothing).
"""

from __future__ import annotations

# `_socket` is the C module (`socket.socket` derives from its class), for the same reason.
import _socket
import os
import stat
import sys
import time

ENGINE_ENV = "STYLE_ENGINE"
# Every message: its length (a 4-byte big-endian unsigned integer), then its JSON.
HEADER_SIZE = 4
# A hook's answer: this magic (no JSON message is that long: MAX_MESSAGE), the exit code (signed)
# and the lengths of stdout and stderr (4-byte big-endian integers), then their UTF-8 bytes.
ANSWER_MAGIC = b"\xffSTY"
ANSWER_SIZE = 16
MAX_MESSAGE = 64 * 1024 * 1024
SOCKET_NAME = "engine.sock"
STARTING_NAME = "engine.starting"
ENGINE_LOG = ("logs", "engine.log")
# A start marker older than this belongs to an engine that never came up: start another.
STARTING_FRESH_S = 10.0
# While waiting for the engine's answer, look this often whether it was stopped (SIGSTOP).
WATCH_EVERY_S = 0.1
# `sun_path` of `struct sockaddr_un`, its terminating NUL included: 104 bytes on macOS and the
# BSDs, 108 on Linux. A longer path cannot be bound.
SUN_PATH_MAX = 104 if sys.platform.startswith(("darwin", "freebsd", "openbsd", "netbsd")) else 108
RUNTIME_FOLDER = "agentstyle"
# DuckDB's allocator (its own jemalloc, configured by this variable) gives the pages an
# evaluation used back to the system within a second (`dirty_decay_ms:1000`), so an engine
# whose events come seconds apart faulted some 2 MiB back in on every one (about 500 page
# faults). The engine keeps them for a minute: a session's pauses between calls.
# (docs/performance.md#how-an-event-is-answered-in-a-few-milliseconds)
ENGINE_ALLOCATOR = ("DUCKDB_JE_MALLOC_CONF", "dirty_decay_ms:60000")


def sockets() -> bool:
    """Unix sockets exist here (whether or not this hook may use the engine)."""
    return hasattr(_socket, "AF_UNIX")


def available() -> bool:
    """Unix sockets exist here and the user did not turn the engine off."""
    return sockets() and os.environ.get(ENGINE_ENV, "on") != "off"


class SocketPlaceError(OSError):
    """No safe place for the engine's socket (the short folder is not this user's own)."""


def socket_path(home: str, *, create: bool = False) -> str:
    """Where the engine of `home` listens; the one answer for client and engine.

    `<home>/engine.sock` when it fits a Unix socket address; else (a deep project folder) a
    short path in this user's folder `/tmp/agentstyle-<uid>/`, named by a digest of the
    `.style` folder's real path. That folder must be a real folder owned by this user and closed
    to everyone else (`create`: made 0700 when missing); otherwise SocketPlaceError says why,
    and no engine is used. The place depends on nothing in the environment (not
    XDG_RUNTIME_DIR, not TMPDIR): a hook, `style engine` and an engine started by either, in
    whatever environment, always meet.
    """
    real = os.path.realpath(home)
    path = os.path.join(real, SOCKET_NAME)
    if len(os.fsencode(path)) < SUN_PATH_MAX:
        return path
    import hashlib

    folder = runtime_folder(create=create)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:24]
    return os.path.join(folder, f"{digest}.sock")


def runtime_folder(base: str = "/tmp", *, create: bool = False) -> str:
    """This user's private folder for sockets under `base`, checked: a real folder (not a
    link), owned by the user, no access for group or others."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = os.path.join(base, f"{RUNTIME_FOLDER}-{uid}")
    if create:
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise SocketPlaceError(f"cannot make {folder} ({exc.strerror})") from None
    try:
        st = os.lstat(folder)
    except OSError:
        raise SocketPlaceError(f"{folder} does not exist") from None
    if not stat.S_ISDIR(st.st_mode):
        raise SocketPlaceError(f"{folder} is not a folder")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise SocketPlaceError(f"{folder} belongs to another user")
    if st.st_mode & 0o077:
        mode = oct(stat.S_IMODE(st.st_mode))
        raise SocketPlaceError(f"{folder} is open to other users (mode {mode}); make it 0700")
    return folder


def engine_version() -> str:
    """What client and engine must share: the package version and the environment it is
    installed in (`python` and `python3` of one venv are the same, two venvs are not)."""
    from agentstyle import __version__

    return f"{__version__}:{sys.prefix}"


def _u32(value: int) -> bytes:
    return value.to_bytes(4, "big")


def send_message(sock: _socket.socket, obj: object) -> None:
    import json

    data = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    sock.sendall(_u32(len(data)) + data)


def recv_message(sock: _socket.socket, head: bytes | None = None) -> object:
    """One message (`head`: its first HEADER_SIZE bytes, when already read)."""
    import json

    size = int.from_bytes(head if head is not None else _recv_exact(sock, HEADER_SIZE), "big")
    if size > MAX_MESSAGE:
        raise ValueError("message too large")
    return json.loads(_recv_exact(sock, size).decode("utf-8"))


def json_text(value: object) -> str:
    """A header value as JSON (RFC 8259: `"`, `\\` and control characters escaped, the rest
    as it is), so the hook writes its small header without importing `json`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if -1e300 < value < 1e300 else "null"  # NaN fails both
    if not isinstance(value, str):
        raise TypeError(f"a hook header holds text, numbers and booleans, not {type(value)}")
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    if any(c < " " for c in escaped):
        escaped = "".join(f"\\u{ord(c):04x}" if c < " " else c for c in escaped)
    return f'"{escaped}"'


def send_hook(sock: _socket.socket, header: dict[str, object], stdin: bytes) -> None:
    """A hook request: a JSON message naming `stdin_bytes`, then that many raw bytes."""
    fields = {**header, "stdin_bytes": len(stdin)}
    text = "{" + ",".join(f"{json_text(k)}:{json_text(v)}" for k, v in fields.items()) + "}"
    data = text.encode("utf-8", errors="replace")
    sock.sendall(_u32(len(data)) + data + stdin)


def send_answer(sock: _socket.socket, stdout: str, stderr: str, code: int) -> None:
    """A hook's answer as raw bytes (the engine's side of `hook_request`)."""
    out, err = stdout.encode("utf-8"), stderr.encode("utf-8")
    head = ANSWER_MAGIC + code.to_bytes(4, "big", signed=True) + _u32(len(out)) + _u32(len(err))
    sock.sendall(head + out + err)


def recv_answer(sock: _socket.socket) -> dict[str, object]:
    """The engine's answer to a hook request: raw bytes, or a JSON message (a refusal, or an
    engine older than this client)."""
    head = _recv_exact(sock, HEADER_SIZE)
    if head != ANSWER_MAGIC:
        message = recv_message(sock, head)
        if not isinstance(message, dict):
            raise ValueError("not an answer")
        return message
    rest = _recv_exact(sock, ANSWER_SIZE - len(head))
    code = int.from_bytes(rest[:4], "big", signed=True)
    n_out, n_err = int.from_bytes(rest[4:8], "big"), int.from_bytes(rest[8:], "big")
    if n_out + n_err > MAX_MESSAGE:
        raise ValueError("message too large")
    body = _recv_exact(sock, n_out + n_err)
    return {
        "stdout": body[:n_out].decode("utf-8", "replace"),
        "stderr": body[n_out:].decode("utf-8", "replace"),
        "exit": code,
    }


def _recv_exact(sock: _socket.socket, n: int) -> bytes:
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
    from agentstyle.folders import read_regular

    raw = read_regular(os.path.join(home, "policy.digest"), 4096)
    return raw.decode("utf-8", "replace").strip() if raw is not None else ""


def request(
    home: str,
    message: dict[str, object],
    timeout: float,
    *,
    trust: bool = True,
    stdin: bytes | None = None,
) -> tuple[dict[str, object] | None, str]:
    """(answer, why not) for one request: why is `absent` (no usable socket), `refused`
    (a stale socket: its engine is gone), `untrusted` (the peer is not STYLE's engine),
    `timeout` or `error`. With `stdin`, a hook request (`send_hook`): the header `message`
    holds text, numbers and booleans only."""
    try:
        path = socket_path(home)
    except OSError:
        return None, "absent"
    if not socket_is_ours(path):
        return None, "absent"
    if timeout <= 0:
        return None, "timeout"
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
        from agentstyle.runtime import peer

        if trust and peer.untrusted(sock, home) is not None:
            # Not the engine (an impersonator on the socket): never believed, and never
            # handed the payload; the hook evaluates directly.
            return None, "untrusted"
        if stdin is None:
            send_message(sock, message)
        else:
            send_hook(sock, message, stdin)
        if not _answer_coming(sock, peer.peer_pid(sock), time.monotonic() + timeout):
            return None, "stopped"  # a stopped engine (SIGSTOP) never answers: do not wait
        sock.settimeout(timeout)
        answer = recv_message(sock) if stdin is None else recv_answer(sock)
    except (ConnectionRefusedError, FileNotFoundError):
        return None, "refused"
    except TimeoutError:
        return None, "timeout"
    except (OSError, ValueError):
        return None, "error"
    finally:
        sock.close()
    return (answer, "") if isinstance(answer, dict) else (None, "error")


def _answer_coming(sock: _socket.socket, pid: int | None, deadline: float) -> bool:
    """Wait for the answer while the engine is running; False as soon as it is stopped.

    Waited for by the socket's own timeout, peeking at the answer's first byte (or its end):
    no `select` to load."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(min(left, WATCH_EVERY_S))
        try:
            sock.recv(1, _socket.MSG_PEEK)
            return True
        except TimeoutError:
            pass
        if pid is not None:
            from agentstyle.runtime.peer import stopped

            if stopped(pid):
                return False


def start_engine(home: str, *, force: bool = False) -> bool:
    """Start an engine in the background, detached (it outlives this hook). A marker made with
    O_EXCL keeps thirty hooks that all find no engine from starting thirty; an engine that
    could not start leaves it, so hooks retry at most every STARTING_FRESH_S (`force`: the
    person asked, start now)."""
    from agentstyle.runtime import detached

    if not detached.claim(os.path.join(home, STARTING_NAME), STARTING_FRESH_S, force=force):
        return False
    from agentstyle.runtime.peer import engine_argv

    name, value = ENGINE_ALLOCATOR
    env = {name: value, **os.environ}  # (a setting of the user's own wins)
    # (engine_argv: what a hook checks its peer against, runtime/peer.py)
    return detached.spawn(engine_argv(home), os.path.join(home, *ENGINE_LOG), env)


def ping(home: str, timeout: float = 2.0) -> dict[str, object] | None:
    answer, _ = request(home, {"op": "ping"}, timeout)
    return answer


def ask_to_stop(home: str, timeout: float = 1.0) -> bool:
    """Ask a running engine to exit, without waiting for it to let go; True when it agreed."""
    # Sent to whoever listens: asking an impostor to stop gives it nothing, and an engine
    # started by hand (tests, a debugger) must still let go of the database.
    answer, _ = request(home, {"op": "stop"}, timeout, trust=False)
    return answer is not None


def _starting(home: str) -> bool:
    """Whether an engine is starting: its marker is fresh (the engine removes it once its
    socket listens; a start that died leaves it to go stale)."""
    try:
        return time.time() - os.lstat(os.path.join(home, STARTING_NAME)).st_mtime < STARTING_FRESH_S
    except OSError:
        return False


def stop_engine(home: str, wait_s: float = 5.0) -> bool:
    """Ask a running engine to exit and wait for it to let go; True when one answered. An
    engine still starting holds the database's lock before its socket listens: it is waited
    for (at most `wait_s`) and then asked, so the caller does not wait for the lock of an
    engine that will only leave when idle."""
    deadline = time.monotonic() + wait_s
    while not ask_to_stop(home, wait_s):
        if not _starting(home) or time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    try:
        path = socket_path(home)
    except OSError:
        return True
    deadline = time.monotonic() + wait_s
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    return True
