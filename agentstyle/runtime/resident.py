"""The resident engine: holds the lock and the open database, serves hooks over a Unix socket."""

from __future__ import annotations

import contextlib
import json
import os
import select
import selectors
import socket
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path

from agentstyle.evaluator.locking import FileLock, LockTimeout
from agentstyle.evaluator.paths import StylePaths
from agentstyle.evaluator.store import Connection, connect, migrate, tune_for_events
from agentstyle.limits import ENGINE_BUDGET_SHARE, MAX_STDIN
from agentstyle.runtime import enginelog
from agentstyle.runtime.client import (
    HEADER_SIZE,
    MAX_MESSAGE,
    STARTING_NAME,
    engine_version,
    read_digest,
    send_answer,
    send_message,
    socket_path,
)
from agentstyle.runtime.direct import Resident

IDLE_EXIT_S = float(os.environ.get("STYLE_ENGINE_IDLE_S", "600"))
START_LOCK_WAIT_S = 5.0
RECEIVE_S = 5.0  # a hook sends its request at once; a silent client is dropped after this
ACCEPT_POLL_S = 0.5
MAX_CLIENTS = 64  # connections whose request is still coming in; more are closed
READ_SIZE = 1 << 20
HOOK_FIELDS = {"harness": str, "event": str, "stdin": str}


class Incoming:
    """A connection whose request is still coming in: read as it arrives, never waited for,
    so a client that sends nothing (or dribbles) holds nobody up (`loop`)."""

    __slots__ = ("data", "need", "sock", "until")

    def __init__(self, sock: socket.socket, until: float) -> None:
        self.sock = sock
        self.data = bytearray()
        self.need = HEADER_SIZE  # bytes the request takes, as far as it is known yet
        self.until = until  # dropped when it has not come in whole by then

    def feed(self, chunk: bytes) -> tuple[object, bytes | None] | None:
        """(message, raw payload) once the request has come in whole, else None: a message
        (client.send_message), or a hook request and the payload that follows it raw
        (client.send_hook: the message names `stdin_bytes`, at most the hook's own limit).
        ValueError for a request no client sends."""
        self.data += chunk
        if len(self.data) < self.need:
            return None
        size = int.from_bytes(self.data[:HEADER_SIZE], "big")
        if size > MAX_MESSAGE:
            raise ValueError("message too large")
        end = HEADER_SIZE + size
        if len(self.data) < end:
            self.need = end
            return None
        message = json.loads(self.data[HEADER_SIZE:end].decode("utf-8"))
        if not isinstance(message, dict) or "stdin_bytes" not in message:
            return message, None
        raw = message.pop("stdin_bytes")
        if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= MAX_STDIN:
            raise ValueError("bad stdin_bytes")
        if len(self.data) < end + raw:
            self.need = end + raw
            return None
        payload = bytes(self.data[end : end + raw])
        message["stdin"], message["stdin_raw"] = "", payload
        return message, payload


class Connections:
    """The engine's socket and the connections whose request is still coming in: accepted and
    read as their bytes arrive, so that one thread serves every client; a connection that has
    not sent its request whole within RECEIVE_S is dropped, and more than MAX_CLIENTS at once
    are closed (those hooks evaluate directly)."""

    def __init__(self, server: socket.socket, connected: Callable[[], None]) -> None:
        self.server = server
        self.connected = connected  # called when clients connected (their requests to come)
        self.incoming: dict[int, Incoming] = {}
        self.selector = selectors.DefaultSelector()
        server.setblocking(False)
        self.selector.register(server, selectors.EVENT_READ)

    def __enter__(self) -> Connections:
        return self

    def __exit__(self, *exc: object) -> None:
        for client in list(self.incoming.values()):
            self._drop(client)
        self.selector.close()

    def requests(self, wait: float) -> list[tuple[socket.socket, object, bytes | None]]:
        """The requests that came in whole within `wait` seconds: (connection, message, raw
        payload), each connection left to the caller to answer and close."""
        now = time.monotonic()
        for late in [c for c in self.incoming.values() if c.until <= now]:
            self._drop(late)
        wait = min([wait, *(c.until - now for c in self.incoming.values())])
        whole = []
        for key, _events in self.selector.select(max(wait, 0.0)):
            if key.fileobj is self.server:
                self._accept()
                continue
            client = self.incoming.get(key.fd)
            request = self._read(client) if client is not None else None
            if client is not None and request is not None:
                self.incoming.pop(key.fd)
                self.selector.unregister(client.sock)
                whole.append((client.sock, *request))
        return whole

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.server.accept()
            except OSError:  # none left (BlockingIOError), or one that went away meanwhile
                if self.incoming:
                    self.connected()
                return
            if len(self.incoming) >= MAX_CLIENTS:
                sock.close()  # too many at once: those hooks evaluate directly
                continue
            sock.setblocking(False)
            self.incoming[sock.fileno()] = Incoming(sock, time.monotonic() + RECEIVE_S)
            self.selector.register(sock, selectors.EVENT_READ)

    def _read(self, client: Incoming) -> tuple[object, bytes | None] | None:
        """Read what `client` sent: its request once whole; a client that closed, failed or
        sent what no client sends is dropped."""
        try:
            chunk = client.sock.recv(READ_SIZE)
            request = client.feed(chunk) if chunk else None
        except (BlockingIOError, InterruptedError):
            return None
        except (OSError, ValueError, RecursionError):  # (UnicodeDecodeError is a ValueError)
            chunk = b""
        if not chunk:
            self._drop(client)
            return None
        return request

    def _drop(self, client: Incoming) -> None:
        self.incoming.pop(client.sock.fileno(), None)
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(client.sock)
        client.sock.close()


def _stdin_of(message: dict[str, object]) -> bytes:
    raw = message.get("stdin_raw")
    if isinstance(raw, bytes):
        return raw
    return str(message.get("stdin", "")).encode("utf-8", errors="replace")


def malformed(message: dict[str, object]) -> str | None:
    """Why a hook request cannot be served (a wrong type anywhere), or None."""
    for key, kind in HOOK_FIELDS.items():
        if not isinstance(message.get(key), kind):
            return f"`{key}` must be a {kind.__name__}"
    budget = message.get("budget_s")
    if isinstance(budget, bool) or not isinstance(budget, (int, float)):
        return "`budget_s` must be a number"
    if not 0 <= budget <= 600:
        return "`budget_s` is out of range"
    for key in ("fail_closed", "oversized", "plugin"):
        if not isinstance(message.get(key, False), bool):
            return f"`{key}` must be true or false"
    return None


class StartError(Exception):
    """Why this engine cannot serve (written to engine.log for `style engine start`)."""


class Engine:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.sock_path = home / "engine.sock"
        self.digest = read_digest(str(home))
        self.conn: Connection | None = None
        self.resident: Resident | None = None
        self.served = 0
        self.last_work = time.monotonic()
        self.done = False

    def bind(self) -> socket.socket:
        try:
            self.sock_path = Path(socket_path(str(self.home), create=True))
        except OSError as exc:
            raise StartError(f"no safe place for its socket: {exc}") from None
        if os.path.lexists(self.sock_path):
            # We hold the lock, so no live engine owns it: a stale socket, or a file planted
            # there. Replace what this user owns; never touch another user's file.
            st = os.lstat(self.sock_path)
            if hasattr(os, "getuid") and st.st_uid != os.getuid():
                raise StartError(f"{self.sock_path} belongs to another user")
            if stat.S_ISDIR(st.st_mode):
                raise StartError(f"{self.sock_path} is a folder")
            self.sock_path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is created 0600: only this user may talk to it
        try:
            sock.bind(str(self.sock_path))
        except OSError as exc:
            sock.close()
            raise StartError(f"cannot listen on {self.sock_path} ({exc.strerror or exc})") from None
        finally:
            os.umask(old)
        os.chmod(self.sock_path, 0o600)
        sock.listen(64)
        return sock

    def serve(self) -> int:
        paths = StylePaths(self.home.parent) if self.home.name == ".style" else None
        lock_path = paths.lock if paths else self.home / "style.lock"
        try:
            lock = FileLock(lock_path, time.monotonic() + START_LOCK_WAIT_S).__enter__()
        except LockTimeout:
            # Another engine or a long install holds it: nothing to do, but say so. (The start
            # marker stays: hooks try again in a while, not at once.)
            enginelog.write(
                self.home, f"{enginelog.FAILED} another process holds the rules database lock"
            )
            return 0
        try:
            db = self.home / "style.duckdb"
            if not db.exists():
                raise StartError(f"no rules database at {db}")
            self.conn = connect(db)
            migrate(self.conn)
            tune_for_events(self.conn)
            self.resident = Resident.of(self.conn)
            server = self.bind()
            ino = os.stat(self.sock_path).st_ino
            self._clear_marker()  # up: a failed start leaves it, hooks retry later
            if not select.select([server], [], [], 0)[0]:
                # No hook waiting yet (a session's next event mostly comes seconds later):
                # warm up now. A hook that arrives meanwhile waits in the backlog for a few
                # milliseconds, instead of for the lock as it would before the bind.
                self._warm_up()
            try:
                self.loop(server)
            finally:
                server.close()
                # The database is let go before the socket goes: `style engine stop` waits for
                # the socket alone, and its caller may open the database at once.
                self.conn.close()
                self.conn = None
                try:
                    if os.stat(self.sock_path).st_ino == ino:
                        self.sock_path.unlink()
                except OSError:
                    pass
        finally:
            if self.conn is not None:
                self.conn.close()
            lock.__exit__(None, None, None)
        return 0

    def _warm_up(self) -> None:
        """Answer one harmless call as a hook's request is answered (`handle`), record it and
        roll it all back, before the first request: a fresh engine's first answer otherwise
        pays for all that a request runs for the first time in a process (its modules, the
        adapters of the harnesses that may send another's payload, the statements), about
        twice a later one, and its record after it as much again; that answer is the first
        hook of a session, and the record holds up the second. Nothing is kept (nor is the
        warm-up's session marked: runtime/tamper.py); a failure here only means the first
        answer is the slower one."""
        assert self.conn is not None and self.resident is not None
        try:
            import json

            from agentstyle.harnesses import DEFAULT, adapter_for

            adapter = adapter_for(DEFAULT)  # any harness's shell call warms the same engine
            native = adapter.spec.points["tool.pre"].native_event
            session = "style-engine-warm-up"
            payload = adapter.synthetic_payload(native, str(self.home.parent), session)
            payload, _input = adapter.with_command(payload, native, "git status && ls -la")
            request: dict[str, object] = {
                "harness": adapter.name,
                "event": native,
                "budget_s": 5.0,
                "stdin_raw": json.dumps(payload).encode("utf-8"),
            }
            self.handle(request)
            self.resident.rehearse(self.conn)
        except Exception as exc:
            enginelog.write(self.home, f"warm-up skipped: {type(exc).__name__}: {exc}")
        finally:
            self.resident.discard(self.conn)

    def _clear_marker(self) -> None:
        with contextlib.suppress(OSError):
            (self.home / STARTING_NAME).unlink()

    def loop(self, server: socket.socket) -> None:
        """Accept connections and serve each request in this one thread once it has come in
        whole, one at a time (each answered, then recorded, before the next is read).

        No thread per connection: a hook's request would wait for a thread to start and for
        the interpreter's lock to pass to it, which on a loaded machine can cost more than the
        evaluation (docs/performance.md#how-an-event-is-answered-in-a-few-milliseconds). A
        request is read as it arrives, from every connection at once (`Connections`): a client
        that connects and sends nothing (or dribbles) holds nobody up.
        """
        # Idle means no hook served: a status ping does not keep the engine alive.
        self.last_work = time.monotonic()
        with Connections(server, self._expect_request) as connections:
            while not self.done:
                if time.monotonic() - self.last_work >= IDLE_EXIT_S:
                    return  # idle: exit and free the database
                for client, message, raw in connections.requests(ACCEPT_POLL_S):
                    with client:
                        client.settimeout(RECEIVE_S)  # the answer is small: it goes out at once
                        try:
                            self._serve(client, message, raw)
                        except Exception as exc:  # an engine never dies of one request
                            enginelog.write(
                                self.home, f"request failed: {type(exc).__name__}: {exc}"
                            )

    def _expect_request(self) -> None:
        """A client connected: its request comes once its hook has checked that this is the
        engine, time in which the engine begins the event's transaction (`Resident.ahead`)."""
        if self.resident is not None and self.conn is not None:
            self.resident.ahead(self.conn)

    def _serve(self, client: socket.socket, message: object, raw: bytes | None) -> None:
        def reply(answer: dict[str, object]) -> None:
            # The hook may have given up waiting (it then answers by itself).
            with contextlib.suppress(OSError):
                if raw is not None and "exit" in answer:
                    send_answer(
                        client,
                        str(answer["stdout"]),
                        str(answer["stderr"]),
                        int(answer["exit"]),  # type: ignore[call-overload]
                    )
                else:
                    send_message(client, answer)

        answer = self._answer(message, reply)
        if answer is not None:
            reply(answer)

    def _answer(
        self, message: object, reply: Callable[[dict[str, object]], None]
    ) -> dict[str, object] | None:
        """The answer to send, or None once `reply` sent it: a hook's answer goes out before
        its event is recorded, and the next evaluation waits for that record."""
        if not isinstance(message, dict):
            return {"error": "malformed request"}
        op = message.get("op")
        if op == "stop":
            self.done = True
            return {"stopped": True}
        if op == "ping":
            return {
                "version": engine_version(),
                "digest": self.digest,
                "pid": os.getpid(),
                "served": self.served,
            }
        if message.get("version") != engine_version() or message.get("digest") != self.digest:
            # A new install or an upgrade: never answer with a stale policy.
            self.done = True
            return {"restart": True}
        problem = malformed(message)
        if problem is not None:
            return {"error": problem}  # the hook evaluates by itself
        if self.done:
            return {"error": "engine stopping"}  # (asked to stop by a request read before it)
        try:
            answer = self.handle(message)
        except Exception as exc:  # an engine never dies of one request
            if self.resident is not None and self.conn is not None:
                self.resident.discard(self.conn)  # the hook evaluates by itself
            return {"error": type(exc).__name__}
        self.served += 1
        self.last_work = time.monotonic()
        reply(answer)
        self.finish(message)
        return None

    def finish(self, message: dict[str, object]) -> None:
        """Record the answered event (runtime/direct.py evaluate_on) before the next one."""
        if self.resident is None:
            return
        for exc in self.resident.finish():  # the answer stands; the history misses the event
            from agentstyle.runtime.causes import failure_of

            what = f"{message.get('harness')} {message.get('event')}"
            why = failure_of(exc).text
            enginelog.write(self.home, f"answered {what} but could not record it: {why}")

    def handle(self, message: dict[str, object]) -> dict[str, object]:
        from agentstyle.runtime.hookcall import HookCall
        from agentstyle.runtime.hookrun import handle

        assert self.conn is not None
        call = HookCall.served(
            str(message.get("harness", "")),
            str(message.get("event", "")),
            bool(message.get("fail_closed")),
            ENGINE_BUDGET_SHARE * float(message["budget_s"]),  # type: ignore[arg-type]
            str(self.home),
            via_plugin=bool(message.get("plugin")),
        )
        stdout, stderr, code = handle(
            call,
            _stdin_of(message),
            conn=self.conn,
            oversized=bool(message.get("oversized")),
            resident=self.resident,
        )
        return {"stdout": stdout, "stderr": stderr, "exit": code}


def main() -> int:
    if len(sys.argv) != 2:
        sys.stderr.write("usage: python -m agentstyle.runtime.resident STYLE_HOME\n")
        return 2
    home = Path(sys.argv[1])
    try:
        return Engine(home).serve()
    except StartError as exc:
        enginelog.write(home, f"{enginelog.FAILED} {exc}")
        return 1
    except Exception as exc:  # the engine is optional: a failure only means direct evaluation
        enginelog.write(home, f"{enginelog.FAILED} {type(exc).__name__}: {exc}")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
