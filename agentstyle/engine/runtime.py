"""One hook event end to end against the project's database: lock, evaluate, record, answer."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from agentstyle.engine.decision import Decision
from agentstyle.engine.evaluate import evaluate
from agentstyle.engine.event import Event
from agentstyle.engine.paths import StylePaths
from agentstyle.engine.store import open_store, sql


class DeadlineExceeded(Exception):
    pass


def _paths(home: Path) -> StylePaths:
    return StylePaths(home.parent) if home.name == ".style" else _HomePaths(home)


class _HomePaths(StylePaths):
    def __init__(self, home: Path) -> None:
        object.__setattr__(self, "root", home.parent)
        object.__setattr__(self, "_home", home)

    @property
    def home(self) -> Path:
        return self._home  # type: ignore[no-any-return, attr-defined]


def evaluate_hook(home: Path, event: Event, deadline: float, started: float) -> Decision:
    """Evaluate and record one event in one transaction; interrupted at the internal deadline."""
    paths = _paths(home)
    with open_store(paths, deadline=deadline, create=False) as conn:
        timed_out = threading.Event()

        def stop() -> None:
            timed_out.set()
            conn.interrupt()

        timer = threading.Timer(max(0.0, deadline - time.monotonic()), stop)
        timer.daemon = True
        timer.start()
        try:
            conn.execute("BEGIN TRANSACTION")
            try:
                [result] = evaluate(conn, [event])
                latency = int((time.monotonic() - started) * 1_000_000)
                error = ",".join(event.notes) or None
                conn.execute(
                    sql("history/finish_event"),
                    [result.decision.verdict or "none", latency, error, result.event_id],
                )
                conn.execute("COMMIT")
            except Exception:
                conn.execute("ROLLBACK")
                raise
        except Exception as exc:
            if timed_out.is_set():
                raise DeadlineExceeded("internal deadline passed") from exc
            raise
        finally:
            timer.cancel()
        return result.decision


def record_failure(
    home: Path,
    harness: str,
    native_event: str,
    point: str | None,
    payload: dict[str, Any],
    cause: str,
    deadline: float,
) -> bool:
    """Record a handler error; True when a `fail: closed` entry exists for the native event."""
    paths = _paths(home)
    with open_store(paths, deadline=deadline, create=False) as conn:
        row = conn.execute(sql("evaluate/fail_closed"), [harness, native_event]).fetchone()
        closed = bool(row and row[0])
        session = payload.get("session_id") if isinstance(payload.get("session_id"), str) else None
        from agentstyle.engine.evaluate import _timestamp

        conn.execute(
            sql("history/log_error"),
            [
                _timestamp(time.time()),
                harness,
                native_event,
                point,
                session,
                "block" if closed else "none",
                cause[:500],
            ],
        )
        return closed
