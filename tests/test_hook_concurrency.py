"""Parallel hooks against one project, and hooks killed with SIGKILL mid-write
(docs/design/storage.md#concurrency-protocol)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.support.environment import CROWD_ENV, CROWD_TIMEOUT_S
from tests.support.hooks import feed, finish, new_session
from tests.support.packages import package_text
from tests.support.project import Project

PKG = package_text(
    "busy",
    """
- id: tips
  target: tool
  tool: shell
  at: before
  text: "Prefer rg over grep."
- id: no-rm
  target: tool
  tool: shell
  action: block
  when: 'tool.input.command shell_regex "^rm .*-[a-zA-Z]*r[a-zA-Z]*f"'
  text: "Do not run rm -rf."
""",
    description="parallel tool calls",
    version="0.1.0",
)

TIPS = (
    '{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
    '"additionalContext":"Prefer rg over grep."}}\n'
)
DENY = (
    '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
    '"permissionDecisionReason":"Do not run rm -rf."}}\n'
)


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> list[Project]:
    """Two projects with the same package (one per test), installed at once."""

    def install(name: str) -> Project:
        base = tmp_path_factory.mktemp(name)
        project = Project(base / "proj", base / "home")
        project.write_package(PKG, "busy")
        project.install("busy")
        return project

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(install, ["parallel", "killed"]))


@pytest.fixture
def busy(projects: list[Project], request: pytest.FixtureRequest) -> Project:
    return projects[0] if "parallel" in request.node.name else projects[1]


def bash_payload(project: Project, session: str, command: str, n: int) -> dict[str, object]:
    return project.payload(
        "PreToolUse.bash-rm-rf.json",
        session_id=session,
        tool_input={"command": command},
        tool_use_id=f"toolu_{n:04d}",
    )


def test_thirty_parallel_hooks_answer_and_claim_once(busy: Project) -> None:
    session = new_session()
    # every 5th call is a blocked rm -rf: its inject is suppressed and claims nothing
    commands = ["rm -rf build" if n % 5 == 0 else f"ls dir{n}" for n in range(30)]
    started = [
        busy.start_hook("PreToolUse", bash_payload(busy, session, cmd, n), env=CROWD_ENV)
        for n, cmd in enumerate(commands)
    ]
    # every payload at once: a hook's deadline runs from its start, so feeding each only after
    # the ones before it answered made the last wait out the other 29 (and miss its deadline
    # on a busy machine) instead of all of them contending for the database together
    for proc, data in started:
        feed(proc, data)
    results = [finish(proc, b"", timeout=CROWD_TIMEOUT_S) for proc, _ in started]
    for cmd, result in zip(commands, results, strict=True):
        assert result.code == 0, result.stderr
        assert result.stderr == ""
        if cmd.startswith("rm"):
            assert result.stdout == DENY
        else:
            assert result.stdout in ("", TIPS)
    allowed = [r for c, r in zip(commands, results, strict=True) if not c.startswith("rm")]
    assert sum(r.stdout == TIPS for r in allowed) == 1  # the session inject emitted once

    assert busy.scalar("SELECT count(*) FROM events") == 30
    assert busy.scalar("SELECT count(DISTINCT call_id) FROM events") == 30
    assert busy.scalar("SELECT count(*) FROM events WHERE error IS NOT NULL") == 0
    outcomes = dict(
        busy.query(
            "SELECT outcome, count(*) FROM hits WHERE rule_id = 'busy/tips' GROUP BY outcome"
        )
    )
    assert outcomes == {"emitted": 1, "dedup-suppressed": 23, "block-suppressed": 6}
    assert busy.scalar("SELECT count(*) FROM claims WHERE rule_id = 'busy/tips'") == 1
    assert busy.scalar("SELECT count(*) FROM hits WHERE outcome = 'blocked'") == 6
    assert not busy.error_log.exists()


def wait_for_lock_holder(path: Path, proc: subprocess.Popen[bytes]) -> bool:
    """True once another process holds the lock on `path` (False if `proc` ended first)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        give_up = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < give_up:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(fd, fcntl.LOCK_UN)
            time.sleep(0.002)
        return False
    finally:
        os.close(fd)


def test_sigkill_mid_write_keeps_committed_events(busy: Project) -> None:
    session = new_session()
    for n in range(3):
        assert busy.hook("PreToolUse", bash_payload(busy, session, f"ls {n}", n)).code == 0
    before = busy.query("SELECT event_id, call_id, verdict FROM events ORDER BY event_id")
    assert len(before) == 3
    hits_before = busy.query("SELECT event_id, rule_id, outcome FROM hits ORDER BY ALL")

    rng = random.Random(20261130)
    lock_path = busy.style / "style.lock"
    mid_write = 0
    for n in range(3, 9):
        proc, data = busy.start_hook("PreToolUse", bash_payload(busy, session, f"ls {n}", n))
        feed(proc, data)
        # wait until the hook holds STYLE's lock (it has the database open), then kill it a
        # random moment into its write
        if wait_for_lock_holder(lock_path, proc):
            time.sleep(rng.uniform(0.0, 0.08))
            mid_write += proc.poll() is None
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        proc.stderr.close()
    assert mid_write >= 3, "too few hooks were killed while holding the database"

    # the database opens, and every event committed before the kills is intact
    after = busy.query("SELECT event_id, call_id, verdict FROM events ORDER BY event_id")
    assert after[:3] == before
    assert len(after) <= 3 + 6
    hits_after = busy.query(
        "SELECT event_id, rule_id, outcome FROM hits WHERE event_id <= ? ORDER BY ALL",
        [before[-1][0]],
    )
    assert hits_after == hits_before
    # every recorded event is whole: a finished verdict, and its hits
    assert busy.scalar("SELECT count(*) FROM events WHERE verdict IS NULL") == 0
    assert (
        busy.scalar(
            "SELECT count(*) FROM events e WHERE NOT EXISTS "
            "(SELECT 1 FROM hits h WHERE h.event_id = e.event_id)"
        )
        == 0
    )
    # and hooks keep working on it
    last = busy.hook("PreToolUse", bash_payload(busy, session, "rm -rf /tmp/x", 99))
    assert last.stdout == DENY
    assert busy.scalar("SELECT count(*) FROM events") == len(after) + 1
