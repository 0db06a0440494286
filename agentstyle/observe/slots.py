"""One run at a time per rule and session, at most one per cooldown; events between coalesce.

A slot is a small JSON file per (harness, session, rule) under `<.style>/checks/slots/`, read
and written under an exclusive `flock`: the runner that holds it (`pid`) runs the check; a
ticket that arrives meanwhile becomes the slot's pending one (a newer one replaces it), run
next, once the cooldown since the last start has passed. The process group of a running check
is kept, so that the session's end can stop it (`stop_session`). Standard library only."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agentstyle import folders

FOLDER = ("checks", "slots")


def _session_folder(home: Path, harness: str, session: str) -> Path:
    return home.joinpath(*FOLDER, folders.digest_of(f"{harness}\0{session}"))


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Slot:
    def __init__(self, home: Path, harness: str, session: str, rule_id: str) -> None:
        where = _session_folder(home, harness, session)
        where.mkdir(parents=True, exist_ok=True)
        self.path = where / (folders.digest_of(rule_id) + ".json")

    @contextlib.contextmanager
    def _held(self) -> Iterator[dict[str, Any]]:
        fd = os.open(f"{self.path}.lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            state = _read(self.path)
            yield state
            tmp = f"{self.path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(state, fh)
            os.replace(tmp, self.path)
        finally:
            os.close(fd)

    @property
    def _pending(self) -> str:
        return f"{self.path}.pending"

    def enter(self, ticket: dict[str, Any]) -> bool:
        """True: this process runs the rule's check now (after `wait`). False: another runs
        it, and `ticket` is its next run (replacing one that waited)."""
        with self._held() as state:
            holder = int(state.get("pid") or 0)
            if holder != os.getpid() and _alive(holder):
                self._keep_pending(ticket)
                return False
            state.update(pid=os.getpid(), pgid=0)
            return True

    def offer(self, ticket: dict[str, Any]) -> bool:
        """Hand `ticket` to the runner that holds the slot as its next run; False when none
        holds it (the caller starts one). Ten edits in a second start one runner, not ten."""
        with self._held() as state:
            holder = int(state.get("pid") or 0)
            if not _alive(holder):
                return False
            self._keep_pending(ticket)
            return True

    def _keep_pending(self, ticket: dict[str, Any]) -> None:
        tmp = f"{self._pending}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(ticket, fh, ensure_ascii=False)
        os.replace(tmp, self._pending)

    def wait(self, cooldown_s: float) -> None:
        """Sleep out what is left of the cooldown since the last run started."""
        with self._held() as state:
            last = float(state.get("started") or 0.0)
        left = last + cooldown_s - time.time()
        if left > 0:
            time.sleep(left)

    def started(self, pgid: int) -> None:
        with self._held() as state:
            state.update(started=time.time(), pgid=pgid)

    def next(self) -> dict[str, Any] | None:
        """The ticket that arrived while this run went on, now this process's; None: the slot
        is free again. A ticket of an event from before the last run began is covered by that
        run (its runner was only slow to start)."""
        with self._held() as state:
            pending = _read(Path(self._pending)) or None
            with contextlib.suppress(OSError):
                os.unlink(self._pending)
            if pending is not None and float(pending.get("at") or 0) < float(
                state.get("started") or 0
            ):
                pending = None  # its event came before the run that just ended began
            state.update(pgid=0)
            if pending is None:
                state.update(pid=0)
            return pending


def _read(path: Path) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def stop_session(home: Path, harness: str, session: str) -> int:
    """Stop the checks of a session that ended (their process groups and their runners); how
    many were running."""
    where = _session_folder(home, harness, session)
    stopped = 0
    try:
        names = [n for n in os.listdir(where) if n.endswith(".json")]
    except OSError:
        return 0
    for name in names:
        state = _read(where / name)
        pgid, pid = int(state.get("pgid") or 0), int(state.get("pid") or 0)
        if pgid > 0:
            with contextlib.suppress(OSError):
                os.killpg(pgid, signal.SIGKILL)
                stopped += 1
        if pid > 0 and pid != os.getpid() and _alive(pid):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGTERM)
    return stopped
