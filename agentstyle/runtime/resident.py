"""The resident engine: holds the lock and the open database, serves hooks over a Unix socket."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import sys
import time
from pathlib import Path

from agentstyle.engine.locking import FileLock, LockTimeout
from agentstyle.engine.paths import StylePaths
from agentstyle.engine.store import Connection, connect, migrate
from agentstyle.runtime import enginelog
from agentstyle.runtime.client import (
    STARTING_NAME,
    engine_version,
    read_digest,
    recv_message,
    send_message,
    socket_path,
)

IDLE_EXIT_S = float(os.environ.get("STYLE_ENGINE_IDLE_S", "600"))
START_LOCK_WAIT_S = 5.0


class StartError(Exception):
    """Why this engine cannot serve (written to engine.log for `style engine start`)."""


class Engine:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.sock_path = home / "engine.sock"
        self.digest = read_digest(str(home))
        self.conn: Connection | None = None
        self.served = 0

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
            server = self.bind()
            ino = os.stat(self.sock_path).st_ino
            self._clear_marker()  # up: a failed start leaves it, hooks retry later
            try:
                self.loop(server)
            finally:
                server.close()
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

    def _clear_marker(self) -> None:
        with contextlib.suppress(OSError):
            (self.home / STARTING_NAME).unlink()

    def loop(self, server: socket.socket) -> None:
        # Idle means no hook served: a status ping does not keep the engine alive.
        last_work = time.monotonic()
        while True:
            remaining = IDLE_EXIT_S - (time.monotonic() - last_work)
            if remaining <= 0:
                return  # idle: exit and free the database
            server.settimeout(remaining)
            try:
                client, _ = server.accept()
            except TimeoutError:
                continue
            with client:
                client.settimeout(60)
                try:
                    message = recv_message(client)
                except (OSError, ValueError):
                    continue
                if not isinstance(message, dict):
                    continue
                if message.get("op") == "stop":
                    send_message(client, {"stopped": True})
                    return
                if message.get("op") == "ping":
                    send_message(
                        client,
                        {
                            "version": engine_version(),
                            "digest": self.digest,
                            "pid": os.getpid(),
                            "served": self.served,
                        },
                    )
                    continue
                if (
                    message.get("version") != engine_version()
                    or message.get("digest") != self.digest
                ):
                    # A new install or an upgrade: never answer with a stale policy.
                    send_message(client, {"restart": True})
                    return
                answer = self.handle(message)
                # The hook may have given up waiting (it then answers by itself).
                with contextlib.suppress(OSError):
                    send_message(client, answer)
                self.served += 1
                last_work = time.monotonic()

    def handle(self, message: dict[str, object]) -> dict[str, object]:
        from agentstyle.runtime.hookrun import handle_with_connection

        assert self.conn is not None
        stdout, stderr, code = handle_with_connection(
            self.conn,
            str(message.get("harness", "")),
            str(message.get("event", "")),
            str(message.get("stdin", "")).encode("utf-8", errors="replace"),
            bool(message.get("fail_closed")),
            0.8 * float(message.get("budget_s", 10.0)),  # type: ignore[arg-type]
            self.home,
            oversized=bool(message.get("oversized")),
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
