"""The project's database opened with its resident engine stopped first, under the OS lock.

How every command that writes or reads it opens it (docs/design/storage.md#who-stops-the-engine).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.locking import LockTimeout
from agentstyle.evaluator.paths import StylePaths
from agentstyle.evaluator.store import Connection, open_store, open_store_read_only

LOCK_WAIT_S = 30.0


def _stop_engine(paths: StylePaths) -> None:
    """A resident engine holds the lock and the open database; ask it to exit."""
    try:
        from agentstyle.runtime.client import stop_engine
    except ImportError:  # pragma: no cover - builds without the resident engine
        return
    stop_engine(str(paths.home))


@contextlib.contextmanager
def engine_free_store(
    paths: StylePaths, *, create: bool = True, wait_s: float = LOCK_WAIT_S, read_only: bool = False
) -> Iterator[Connection]:
    """The database under the OS lock (`read_only`: opened for reading), a running engine
    asked to stop first.

    A hook may start a new engine between the request and our lock, so the lock is tried in
    short rounds, each after another stop request, until `wait_s` passes.
    """
    deadline = time.monotonic() + wait_s
    with contextlib.ExitStack() as stack:
        while True:
            _stop_engine(paths)
            round_end = min(deadline, time.monotonic() + 2.0)
            opener = (
                open_store_read_only(paths, deadline=round_end)
                if read_only
                else open_store(paths, deadline=round_end, create=create)
            )
            try:
                conn = stack.enter_context(opener)
                break
            except LockTimeout:
                if time.monotonic() >= deadline:
                    raise StyleError(
                        f"the rules database stayed locked by another process for "
                        f"{wait_s:.0f} s; try again"
                    ) from None
        yield conn
