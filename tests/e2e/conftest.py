"""Fixtures of the end-to-end suite: scratch sessions, no stray process, hook durations printed.

`make e2e` runs this folder (`make test` does not: `norecursedirs` in pyproject.toml).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import statistics
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from e2e.clients import DURATIONS, Session
from e2e.install_clients import cache_root
from e2e.mockapi import Script


@pytest.fixture(scope="session")
def e2e_root() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="style-e2e-"))
    yield root
    strays = processes_under(root)
    for pid, _cmd in strays:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not strays, f"processes left running after the suite (ended now): {strays}"


def processes_under(root: Path) -> list[tuple[int, str]]:
    """Processes whose working folder is inside `root` (the clients, hooks and engines)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd == str(root) or cwd.startswith(str(root) + "/"):
            found.append((int(entry.name), cmd.strip()[:200]))
    return found


@pytest.fixture
def session(e2e_root: Path, request: pytest.FixtureRequest) -> Iterator[Callable[..., Session]]:
    """`session(harness, script)`: a fresh scratch session, closed after the test."""
    made: list[Session] = []

    def make(harness: str, script: Script) -> Session:
        name = request.node.name.replace("/", "_").replace("[", "-").replace("]", "")
        s = Session(harness, Path(tempfile.mkdtemp(prefix=f"{name[:60]}-", dir=e2e_root)), script)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The hook durations the clients logged (printed, never asserted)."""
    if not DURATIONS:
        return
    by: dict[tuple[str, str], list[float]] = {}
    for harness, event, ms in DURATIONS:
        by.setdefault((harness, event), []).append(ms)
    tr = terminalreporter
    tr.section("hook durations the clients logged (ms)")
    tr.write_line(f"{'harness':<12} {'event':<18} {'n':>4} {'median':>8} {'min':>6} {'max':>6}")
    for (harness, event), values in sorted(by.items()):
        tr.write_line(
            f"{harness:<12} {event:<18} {len(values):>4} {statistics.median(values):>8.0f} "
            f"{min(values):>6.0f} {max(values):>6.0f}"
        )
    out = cache_root() / "hook-durations.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps([list(d) for d in DURATIONS]))
    tr.write_line(f"raw values: {out}")
