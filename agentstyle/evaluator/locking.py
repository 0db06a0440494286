"""The OS file lock every process takes before it opens the rules database.

See docs/design/runtime.md#lock-order."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks; direct use stays correct
    fcntl = None  # type: ignore[assignment]


class LockTimeout(Exception):
    """The lock stayed held by another process past our deadline."""


class LockHeldByStranger(LockTimeout):
    """The lock is held by something that will not let go (a stopped process, a program that
    is not STYLE): waiting longer only delays the answer; the message names it."""


class Handover(Exception):
    """While waiting, `poll` found someone else to answer (the resident engine holds the lock
    for its lifetime, so a hook waiting for it hands its event over instead)."""

    def __init__(self, answer: object) -> None:
        super().__init__("handed over")
        self.answer = answer


Poll = Callable[[], object]
GiveUp = Callable[[], "str | None"]
POLL_EVERY_S = 0.05
# A holder that is just exiting is not a stranger: look at who holds the lock after this long.
STRANGER_AFTER_S = 0.2


class FileLock:
    """An exclusive advisory lock on `path`, waited for until `deadline` (time.monotonic())."""

    def __init__(
        self,
        path: Path,
        deadline: float,
        poll: Poll | None = None,
        give_up: GiveUp | None = None,
    ) -> None:
        self.path = path
        self.deadline = deadline
        self.poll = poll
        self.give_up = give_up  # why waiting is pointless (runtime/peer.py), checked as we wait
        self.fd: int | None = None

    def __enter__(self) -> FileLock:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        if fcntl is None:
            self.fd = fd
            return self
        delay = 0.001
        next_poll = time.monotonic()  # at the first refusal: the holder may be an engine
        next_look = next_poll + STRANGER_AFTER_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.fd = fd
                return self
            except BlockingIOError:
                now = time.monotonic()
                if now >= self.deadline:
                    os.close(fd)
                    raise LockTimeout(f"{self.path} is held by another process") from None
                if self.poll is not None and now >= next_poll:
                    next_poll = now + POLL_EVERY_S
                    answer = self.poll()
                    if answer is not None:
                        os.close(fd)
                        raise Handover(answer) from None
                if self.give_up is not None and now >= next_look:
                    next_look = now + POLL_EVERY_S
                    why = self.give_up()
                    if why:
                        os.close(fd)
                        raise LockHeldByStranger(why) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.02)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.fd is not None:
            if fcntl is not None:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None
