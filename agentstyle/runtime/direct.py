"""One hook event end to end against the project's database: lock, evaluate, record, answer."""

from __future__ import annotations

import contextlib
import math
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.evaluator import answered
from agentstyle.evaluator.decision import Decision
from agentstyle.evaluator.evaluate import Held, decide
from agentstyle.evaluator.evaluation import Evaluation
from agentstyle.evaluator.event import Event
from agentstyle.evaluator.fixes import Fixing, apply_fix
from agentstyle.evaluator.locking import FileLock, LockTimeout, Poll
from agentstyle.evaluator.paths import StylePaths
from agentstyle.evaluator.recording import record
from agentstyle.evaluator.store import Connection, begin, commit, connect, migrate, rollback
from agentstyle.folders import DATABASE_NAME
from agentstyle.runtime.causes import DeadlineExceeded, NoDatabase, Planted
from agentstyle.runtime.hookcall import HookCall

LOCK_FILE = "style.lock"  # in `.style/` (evaluator/paths.py `StylePaths.lock`)
# While another program holds DuckDB's own file lock, retry opening at this interval.
DUCKDB_RETRY_S = 0.02
# A transaction the engine began ahead of an event (`Resident.ahead`) is the event's own when
# begun at most this long before it (a hook sends its request right after it connects).
BEGUN_FOR_S = 0.5


@dataclass(slots=True)
class Resident:
    """What the resident engine keeps beside its open database: what it read once of the
    policy (`Held`: its policy cannot change while it holds the lock) and what is left to do
    once the answer is out (each answered event's record, the session's marker), each step
    told whether to keep what it does."""

    held: Held
    pending: list[Callable[[bool], None]] = field(default_factory=list)
    begun: float | None = None  # when the transaction begun ahead of an event was (`ahead`)

    def later(self, step: Callable[[bool], None]) -> None:
        """Do `step` once the answer is out (`finish`), before the next request is read."""
        self.pending.append(step)

    @classmethod
    def of(cls, conn: Connection) -> Resident:
        return cls(Held.of(conn))

    def ahead(self, conn: Connection) -> None:
        """Begin the next event's transaction now, while its hook is still sending the request
        (the engine calls this when a client connects): a first statement after a pause costs
        several times a later one, and the hook proving who it talks to takes as long. Nothing
        but the engine writes while it holds the lock, so the event reads what it would have
        read; a transaction begun longer ago than BEGUN_FOR_S is not taken (`begun_for`), as
        `now()` in it is its start."""
        if self.begun is None and not self.pending:
            try:
                begin(conn)
            except Exception:  # the event begins its own
                return
            self.begun = time.monotonic()

    def begun_for(self, conn: Connection) -> bool:
        """Whether a transaction begun `ahead` is the event's now (else it begins its own)."""
        if self.begun is None:
            return False
        recent = time.monotonic() - self.begun < BEGUN_FOR_S
        self.begun = None
        if not recent:
            _rollback(conn)
        return recent

    def discard(self, conn: Connection) -> None:
        """Forget the events evaluated but not answered (their answer failed)."""
        if self.pending or self.begun is not None:
            self.pending.clear()
            self.begun = None
            _rollback(conn)

    def finish(self) -> list[BaseException]:
        """Record the answered events, in order; what failed (each answer stands)."""
        failed: list[BaseException] = []
        steps, self.pending[:] = list(self.pending), []
        for step in steps:
            try:
                step(True)
            except Exception as exc:
                failed.append(exc)
        return failed

    def rehearse(self, conn: Connection) -> None:
        """Record the evaluated events and roll them back: the engine's warm-up runs the
        record's statements once (a fresh process's first run of them costs milliseconds)
        and keeps nothing."""
        steps, self.pending[:] = list(self.pending), []
        try:
            for step in steps:
                step(False)
        finally:
            _rollback(conn)


class Watchdog:
    """One thread per process that interrupts the connection of the event in flight when its
    deadline passes. Arming and disarming take a lock each; a timer thread per event cost a
    thread start, which a loaded machine can delay by milliseconds.

    Nor does arming wake the thread where it need not: unarmed, the thread looks again every
    IDLE_LOOK_S, so an event whose deadline is later than the thread's next look (a hook's, in
    the resident engine) is armed without a wake-up, which would pass the interpreter's lock
    to the thread and back in the middle of the evaluation."""

    IDLE_LOOK_S = 1.0

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: tuple[Connection, float, threading.Event] | None = None
        self._thread: threading.Thread | None = None
        self._looks_at = math.inf  # when the thread looks at `_armed` next

    def arm(self, conn: Connection, deadline: float) -> threading.Event:
        """Watch `conn` until `disarm`; the event is set when it was interrupted."""
        fired = threading.Event()
        with self._cond:
            self._armed = (conn, deadline, fired)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._watch, name="style-deadline", daemon=True
                )
                self._thread.start()
            elif deadline < self._looks_at:
                self._cond.notify()
        return fired

    def disarm(self) -> None:
        with self._cond:
            self._armed = None

    def _watch(self) -> None:
        with self._cond:
            while True:
                job = self._armed
                now = time.monotonic()
                if job is None:
                    self._looks_at = now + self.IDLE_LOOK_S
                    self._cond.wait(self.IDLE_LOOK_S)
                    continue
                conn, deadline, fired = job
                if deadline > now:
                    self._looks_at = deadline
                    self._cond.wait(deadline - now)
                    continue
                self._armed = None
                fired.set()
                conn.interrupt()


# The process's watchdog (a hook process evaluates one event; the engine one after another).
WATCHDOG = Watchdog()


class _HomePaths(StylePaths):
    """StylePaths for an explicit `.style` folder (STYLE_HOME, the resident engine's home)."""

    def __init__(self, home: Path) -> None:
        object.__setattr__(self, "root", home.parent)
        object.__setattr__(self, "_home", home)

    @property
    def home(self) -> Path:
        return self._home  # type: ignore[no-any-return, attr-defined]


def _paths(home: Path) -> StylePaths:
    return _HomePaths(home)


def is_duckdb_error(exc: BaseException) -> bool:
    """An error raised by DuckDB (duckdb is imported by store.py alone: test_architecture)."""
    return (type(exc).__module__ or "").startswith(("duckdb", "_duckdb"))


def _is_lock_conflict(exc: BaseException) -> bool:
    return (
        is_duckdb_error(exc) and type(exc).__name__ == "IOException" and "lock" in str(exc).lower()
    )


def connect_until(database: Path, deadline: float) -> Connection:
    """Open the file, retrying while another program holds DuckDB's lock, until `deadline`.

    DuckDB's own lock error never leaves this function: past the deadline it becomes
    `LockTimeout` (docs/design/storage.md#concurrency-protocol).
    """
    while True:
        try:
            return connect(database)
        except Exception as exc:
            if not _is_lock_conflict(exc):
                raise
            if time.monotonic() >= deadline:
                raise LockTimeout(f"{database} is held by another program") from None
            time.sleep(DUCKDB_RETRY_S)


def planted(home: Path) -> None:
    """Refuse, as unreadable, a database, WAL or lock file that is no regular file: opening a
    FIFO waits for a writer that never comes (docs/design/runtime.md#hook-budget)."""
    from agentstyle.folders import not_regular

    for name in (DATABASE_NAME, DATABASE_NAME + ".wal", LOCK_FILE):
        what = not_regular(str(home / name))
        if what is not None:
            raise Planted(f".style/{name} is {what}, not a file")


@contextmanager
def open_for_hook(home: Path, deadline: float, poll: Poll | None = None) -> Iterator[Connection]:
    """The installed database under the OS lock; never created here (a hook needs a policy).

    `poll` is tried while waiting: a resident engine that came up meanwhile answers instead.
    """
    paths = _paths(home)
    planted(home)  # a FIFO in the database's or the lock's place is never opened
    if not paths.database.is_file():
        raise NoDatabase()
    from agentstyle.runtime.peer import StrangerCheck

    with FileLock(paths.lock, deadline, poll, give_up=StrangerCheck(str(paths.lock))):
        conn = connect_until(paths.database, deadline)
        try:
            migrate(conn)
            yield conn
        finally:
            conn.close()


_LOG_LINE = re.compile(r"^log:[ \t]*['\"]?(hits|full|off)['\"]?[ \t]*(?:#.*)?$", re.MULTILINE)
# lock file path → (its stat as `_stamp` gives it, its `log` mode): the resident engine reads
# the mode of every event, and the file only when it changed (as runtime/freshness.py tells a
# changed lock: its size or its modification time)
_LOG_MODES: dict[str, tuple[tuple[int, int, int, int], str]] = {}


def log_mode(home: Path | None) -> str:
    """The lock file's `log` (docs/audit.md#privacy-and-pruning): `hits` (default), `full` or `off`.

    Read with one bounded regex instead of a YAML parser: the hook imports nothing heavy, and
    `style install` writes the key as a plain top-level line.
    """
    if home is None:
        return "hits"
    path = str(home.parent / "style.lock.yaml")
    try:
        st = os.stat(path)
    except OSError:
        return "hits"
    stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    known = _LOG_MODES.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    from agentstyle.folders import read_regular

    raw = read_regular(path, 1 << 20)
    if raw is None:
        return "hits"
    m = _LOG_LINE.search(raw.decode("utf-8", "replace"))
    mode = m.group(1) if m else "hits"
    _LOG_MODES[path] = (stamp, mode)
    return mode


def evaluate_hook(
    home: Path,
    event: Event,
    call: HookCall,
    poll: Poll | None = None,
    fixing: Fixing | None = None,
) -> Decision:
    """Open the project's database, then evaluate and record one event (`evaluate_on`)."""
    with open_for_hook(home, call.deadline, poll) as conn:
        return evaluate_on(conn, event, call, home=home, fixing=fixing)


def evaluate_on(
    conn: Connection,
    event: Event,
    call: HookCall,
    *,
    home: Path | None = None,
    resident: Resident | None = None,
    fixing: Fixing | None = None,
) -> Decision:
    """Decide and record one event in one transaction; interrupted at the internal deadline.

    Past the deadline nothing of the event is committed and `DeadlineExceeded` is raised, so
    the caller answers per `fail` (docs/design/runtime.md#fail-modes). For the `resident` engine,
    recording and committing are left to a step of `resident.later`, which the engine runs
    once the answer is sent and before it reads the next request: the next event sees this one's
    claims, and a kill before the commit loses this event only, whole. `fixing`: how a refused
    shell call is rebuilt for its rules' fixes (evaluator/fixes.py).
    """
    log = log_mode(home)
    deadline = call.deadline
    if time.monotonic() >= deadline:
        raise DeadlineExceeded()
    timed_out = WATCHDOG.arm(conn, deadline)
    try:
        if resident is None or not resident.begun_for(conn):
            begin(conn)
        try:
            if event.identity is not None:
                repeated = answered.earlier(conn, event.identity)
                if repeated is not None:
                    # Another STYLE handler answered this event: nothing is recorded twice.
                    WATCHDOG.disarm()
                    _rollback(conn)
                    return repeated
            held = resident.held if resident else None
            [result] = decide(conn, [event], held=held, log=log)
            apply_fix(conn, result, fixing, held)
            if event.identity is not None:
                answered.keep(conn, event.identity, result.event_id, result.decision)
            latency = int((time.monotonic() - call.started) * 1_000_000)
            if resident is None:
                record(conn, [result], log, [latency])
            if time.monotonic() >= deadline:
                raise DeadlineExceeded()
            if resident is None:
                commit(conn)
        except BaseException:
            WATCHDOG.disarm()
            _rollback(conn)
            raise
    except DeadlineExceeded:
        raise
    except Exception as exc:
        if timed_out.is_set():
            raise DeadlineExceeded() from exc
        raise
    finally:
        WATCHDOG.disarm()
    if resident is not None:
        resident.later(lambda keep: _record_and_commit(conn, result, log, latency, keep))
    return result.decision


def _record_and_commit(
    conn: Connection, result: Evaluation, log: str, latency: int, keep: bool
) -> None:
    """The engine's second half of an event, after its answer went out, committed where
    `keep` (else left for the caller to roll back); on failure nothing of the event stays
    (the answer stands, the engine logs the loss)."""
    try:
        record(conn, [result], log, [latency])
        if keep:
            commit(conn)
    except BaseException:
        _rollback(conn)
        raise


def _rollback(conn: Connection) -> None:
    with contextlib.suppress(Exception):  # an interrupted transaction may already be gone
        rollback(conn)


def record_failure(
    home: Path,
    call: HookCall,
    point: str | None,
    payload: dict[str, Any],
    cause: str,
    until: float,
    *,
    refused: bool = False,
    conn: Connection | None = None,
    poll: Poll | None = None,
) -> bool:
    """Record a handler error (`cause`: its text) of the call's native event, waiting for the
    lock until `until`; True when a `fail: closed` entry exists for that event.

    `refused`: the hook refuses the event whatever the entries say (`style install
    --fail-closed`), so it is recorded as a block, not as failing open. `poll` is tried while
    waiting for the lock (a resident engine holding it answers instead).
    """
    if conn is not None:
        return _record_failure_on(conn, call, point, payload, cause, refused)
    with open_for_hook(home, until, poll) as opened:
        return _record_failure_on(opened, call, point, payload, cause, refused)


def _record_failure_on(
    conn: Connection,
    call: HookCall,
    point: str | None,
    payload: dict[str, Any],
    cause: str,
    refused: bool,
) -> bool:
    harness, native_event = call.harness, call.event
    from agentstyle.evaluator.evaluate import _timestamp
    from agentstyle.evaluator.records import FailClosedRow
    from agentstyle.evaluator.statements import execute, read_row

    event = {"harness": harness, "native_event": native_event}
    row = read_row(conn, "evaluate/fail_closed", FailClosedRow, event)
    closed = bool(row and row.closed)
    session = payload.get("session_id")
    execute(
        conn,
        "history/log_error",
        {
            **event,
            "ts": _timestamp(time.time()),
            "point": point,
            "session_id": session if isinstance(session, str) else None,
            "verdict": "block" if closed or refused else "none",
            "error": cause[:500],
        },
    )
    return closed
