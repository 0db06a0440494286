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
from agentstyle.engine.store import Connection, connect, migrate, tune_for_events
from agentstyle.runtime.client import (
    STARTING_NAME,
    engine_version,
    read_digest,
    recv_message,
    send_message,
)
from agentstyle.runtime.direct import Resident

IDLE_EXIT_S = float(os.environ.get("STYLE_ENGINE_IDLE_S", "600"))
START_LOCK_WAIT_S = 5.0


class Engine:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.sock_path = home / "engine.sock"
        self.digest = read_digest(str(home))
        self.conn: Connection | None = None
        self.resident: Resident | None = None
        self.served = 0

    def bind(self) -> socket.socket:
        if os.path.lexists(self.sock_path):
            # We hold the lock, so no live engine owns it: a stale socket, or a file planted
            # there. Replace what this user owns; never touch another user's file.
            st = os.lstat(self.sock_path)
            if hasattr(os, "getuid") and st.st_uid != os.getuid():
                raise RuntimeError(f"{self.sock_path} belongs to another user")
            if stat.S_ISDIR(st.st_mode):
                raise RuntimeError(f"{self.sock_path} is a directory")
            self.sock_path.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is created 0600: only this user may talk to it
        try:
            sock.bind(str(self.sock_path))
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
            self._clear_marker()
            return 0  # another engine or a long install holds it; nothing to do
        try:
            db = self.home / "style.duckdb"
            if not db.exists():
                return 1
            self.conn = connect(db)
            migrate(self.conn)
            tune_for_events(self.conn)
            self.resident = Resident.of(self.conn)
            server = self.bind()
            ino = os.stat(self.sock_path).st_ino
            self._clear_marker()
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
            self._clear_marker()
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
                self.finish(message)
                self.served += 1
                last_work = time.monotonic()

    def finish(self, message: dict[str, object]) -> None:
        """Record the answered event (runtime/direct.py evaluate_on) before the next request."""
        if self.resident is None:
            return
        for exc in self.resident.finish():  # the answer stands; the history misses the event
            from agentstyle.runtime.hookrun import cause_of, log_error

            cause = f"event answered but not recorded: {cause_of(exc)}"
            log_error(self.home, str(message.get("harness")), str(message.get("event")), cause)

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
            self.resident,
        )
        return {"stdout": stdout, "stderr": stderr, "exit": code}


def main() -> int:
    if len(sys.argv) != 2:
        sys.stderr.write("usage: python -m agentstyle.runtime.resident STYLE_HOME\n")
        return 2
    try:
        return Engine(Path(sys.argv[1])).serve()
    except Exception as exc:  # the engine is optional: a failure only means direct evaluation
        sys.stderr.write(f"STYLE engine: {type(exc).__name__}: {exc}\n")
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
