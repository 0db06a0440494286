"""The resident engine's life cycle, driven through real hook processes
(docs/design/storage.md#the-resident-engine)."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentstyle.runtime import client
from tests.support.engine import installed, shell_call
from tests.support.environment import clean_env
from tests.support.hooks import feed, finish, new_session
from tests.support.packages import NO_RM_RF, TIPS, package_text
from tests.support.project import Project
from tests.support.waiting import poll

PACKAGE = package_text("eng", NO_RM_RF, TIPS, description="engine tests")
ENGINE_ON = {"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "60"}


@pytest.fixture
def engine_project(project: Project) -> Iterator[Project]:
    with installed(project, PACKAGE):
        yield project


bash = shell_call


def hook(project: Project, command: str, session: str, env: dict[str, str] | None = None) -> str:
    result = project.hook("PreToolUse", bash(project, command, session), env=env or ENGINE_ON)
    return result.stdout


def wait_engine(project: Project, up: bool = True, timeout: float = 20.0) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = client.ping(str(project.style), 1.0)
        if (info is not None) == up:
            return info or {}
        time.sleep(0.05)
    raise AssertionError(f"engine {'did not start' if up else 'did not stop'}")


def test_first_hook_answers_directly_and_starts_an_engine_the_next_reuses(
    engine_project: Project,
) -> None:
    session = new_session()
    assert "deny" in hook(engine_project, "rm -rf /", session)
    info = wait_engine(engine_project)
    # the first event was answered directly, or handed to the engine if it won the lock
    first = int(info["served"])  # type: ignore[call-overload]
    assert first in (0, 1)
    assert "Prefer small commands." in hook(engine_project, "ls", session)
    assert "deny" in hook(engine_project, "sudo rm -rf /tmp/x", session)
    info = client.ping(str(engine_project.style)) or {}
    assert info["served"] == first + 2
    assert info["pid"] == wait_engine(engine_project)["pid"]
    # engine answers are recorded like direct ones: exactly three events, one inject claim
    client.stop_engine(str(engine_project.style))
    # (the engine's warm-up call before it serves is rolled back: no event, session or claim)
    assert engine_project.scalar("SELECT count(*) FROM events") == 3
    assert engine_project.scalar("SELECT count(*) FROM claims") == 1
    assert engine_project.scalar("SELECT count(*) FROM sessions") == 1


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(item.decode().partition("=")[::2] for item in raw.split(b"\0") if item)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_the_engine_keeps_its_allocators_pages_between_events(engine_project: Project) -> None:
    """An engine a hook starts runs with DuckDB's allocator told to keep the pages an
    evaluation used for a minute (client.ENGINE_ALLOCATOR), not to give them back within a
    second; a setting of the user's own is left as it is."""
    name, value = client.ENGINE_ALLOCATOR
    hook(engine_project, "ls", new_session())
    pid = int(wait_engine(engine_project)["pid"])  # type: ignore[call-overload]
    assert _environ(pid)[name] == value
    assert client.stop_engine(str(engine_project.style), wait_s=20)
    wait_engine(engine_project, up=False)
    own = "dirty_decay_ms:5000"
    hook(engine_project, "ls", new_session(), env={**ENGINE_ON, name: own})
    pid = int(wait_engine(engine_project)["pid"])  # type: ignore[call-overload]
    assert _environ(pid)[name] == own


def test_socket_is_private_and_stop_removes_it(engine_project: Project) -> None:
    hook(engine_project, "ls", new_session())
    wait_engine(engine_project)
    sock = engine_project.style / "engine.sock"
    assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
    out = engine_project.process("engine", "stop", env=ENGINE_ON)
    assert out.returncode == 0, out.stderr
    assert "stopped" in out.stdout
    assert not sock.exists()
    # the engine let go of the database before its socket went: it opens for writing at once
    import duckdb

    duckdb.connect(str(engine_project.style / "style.duckdb")).close()
    wait_engine(engine_project, up=False)


def test_idle_engine_exits(engine_project: Project) -> None:
    hook(
        engine_project, "ls", new_session(), env={"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "1"}
    )
    wait_engine(engine_project)
    wait_engine(engine_project, up=False, timeout=15)
    # its socket goes once the database is closed (a moment after it stops answering)
    sock = engine_project.style / "engine.sock"
    poll("the idle engine's socket removed", lambda: not sock.exists(), 5.0)


def test_policy_change_restarts_the_engine(engine_project: Project) -> None:
    session = new_session()
    hook(engine_project, "ls", session)
    first = wait_engine(engine_project)
    changed = PACKAGE.replace("Prefer small commands.", "Prefer tiny commands.")
    engine_project.install(str(engine_project.write_package(changed)))  # stops the engine
    out = hook(engine_project, "ls", session)
    assert "Prefer tiny commands." in out
    second = wait_engine(engine_project)
    assert second["pid"] != first["pid"]
    assert second["digest"] != first["digest"]


def test_digest_mismatch_is_never_answered_by_the_stale_engine(engine_project: Project) -> None:
    session = new_session()
    hook(engine_project, "ls", session)
    old = wait_engine(engine_project)
    # a policy swapped behind the engine's back (e.g. by an older STYLE): only the digest
    (engine_project.style / "policy.digest").write_text("another-policy\n", "utf-8")
    assert "deny" in hook(engine_project, "rm -rf /", session)  # answered directly
    new = wait_engine(engine_project)
    assert new["pid"] != old["pid"] and new["digest"] == "another-policy"


def test_version_mismatch_restarts(engine_project: Project) -> None:
    hook(engine_project, "ls", new_session())
    wait_engine(engine_project)
    answer, _ = client.request(
        str(engine_project.style), {"op": "hook", "version": "0.0.1:/elsewhere", "digest": ""}, 5
    )
    assert answer == {"restart": True}
    wait_engine(engine_project, up=False)


def test_killed_engine_mid_request_costs_nothing(engine_project: Project) -> None:
    session = new_session()
    hook(engine_project, "ls", session)
    pid = int(wait_engine(engine_project)["pid"])  # type: ignore[call-overload]
    os.kill(pid, signal.SIGSTOP)  # the engine accepts nothing while stopped
    proc, data = engine_project.start_hook(
        "PreToolUse", bash(engine_project, "rm -rf /", session), env=ENGINE_ON
    )
    time.sleep(0.5)  # the hook is connected and waiting for its answer
    os.kill(pid, signal.SIGKILL)
    os.kill(pid, signal.SIGCONT)
    result = finish(proc, data)
    assert "deny" in result.stdout  # evaluated directly after the engine died
    assert "Traceback" not in result.stderr


def test_stale_socket_file_is_replaced(engine_project: Project) -> None:
    path = engine_project.style / "engine.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))
    dead.close()  # a socket file nobody listens on: an engine that died
    assert "deny" in hook(engine_project, "rm -rf /", new_session())
    wait_engine(engine_project)  # a new engine replaced the dead socket
    assert client.socket_is_ours(str(path))


def test_planted_regular_file_is_not_spoken_to(engine_project: Project) -> None:
    path = engine_project.style / "engine.sock"
    path.write_text("not a socket", "utf-8")
    assert not client.socket_is_ours(str(path))
    assert "deny" in hook(engine_project, "rm -rf /", new_session())
    wait_engine(engine_project)  # the engine replaced the planted file with its socket
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_thirty_concurrent_hooks_through_one_engine(engine_project: Project) -> None:
    hook(engine_project, "ls", new_session())
    wait_engine(engine_project)
    session = new_session()
    calls = [
        engine_project.start_hook(
            "PreToolUse", bash(engine_project, "ls -la", session), env=ENGINE_ON
        )
        for _ in range(30)
    ]
    for proc, data in calls:  # every payload now: a hook's deadline runs from its start
        feed(proc, data)
    results = [finish(proc, b"") for proc, _ in calls]
    outs = [r.stdout for r in results]
    assert sum("Prefer small commands." in o for o in outs) == 1  # one session inject
    assert all(o in ("",) or "Prefer small commands." in o for o in outs)
    info = client.ping(str(engine_project.style)) or {}
    client.stop_engine(str(engine_project.style))
    assert (
        engine_project.scalar("SELECT count(*) FROM events WHERE session_id = ?", [session]) == 30
    )
    assert (
        engine_project.scalar(
            "SELECT count(*) FROM hits h JOIN events e USING (event_id) "
            "WHERE e.session_id = ? AND h.outcome = 'emitted'",
            [session],
        )
        == 1
    )
    assert int(info["served"]) >= 25  # type: ignore[call-overload]


def test_engine_off_means_direct_only(engine_project: Project) -> None:
    hook(engine_project, "ls", new_session(), env={"STYLE_ENGINE": "off"})
    time.sleep(0.5)
    assert client.ping(str(engine_project.style), 0.5) is None


def test_hook_client_imports_only_the_standard_library(engine_project: Project) -> None:
    hook(engine_project, "ls", new_session())
    wait_engine(engine_project)
    code = (
        "import sys, json\n"
        "from agentstyle import hook\n"
        f"payload = json.dumps({{'session_id': 's', 'cwd': {str(engine_project.root)!r}, "
        "'hook_event_name': 'PreToolUse', 'tool_name': 'Bash', "
        "'tool_input': {'command': 'rm -rf /'}}).encode()\n"
        "out = hook.run(['--harness', 'claude-code', '--event', 'PreToolUse'], payload)\n"
        "heavy = {'duckdb', 'polars', 'lark', 'typer', 'yaml', 'tree_sitter', 're2'}\n"
        "heavy &= set(sys.modules)\n"
        "print(sorted(heavy), 'deny' in out[0])\n"
    )
    env = clean_env(engine_project.home, ENGINE_ON)
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=engine_project.root,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[] True"


def test_no_engine_without_unix_sockets_still_answers(
    engine_project: Project, tmp_path: Path
) -> None:
    """Where AF_UNIX is missing the client reports no engine; direct evaluation answers."""
    code = (
        # the client reads the C module `_socket` (what `socket` re-exports): a platform
        # without AF_UNIX has it in neither
        "import _socket, socket, sys\n"
        "del socket.AF_UNIX, _socket.AF_UNIX\n"
        "from agentstyle.runtime import client\n"
        "print(client.available())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=clean_env(tmp_path, ENGINE_ON),
    )
    assert out.stdout.strip() == "False"


def _style(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    return project.process(*args, env=ENGINE_ON, timeout=60)


def _served(project: Project) -> int:
    return int((client.ping(str(project.style)) or {})["served"])  # type: ignore[call-overload]


def test_allow_codes_and_allowances_through_the_engine(project: Project) -> None:
    """The engine reads the policy's allow-code rules and the sessions holding an allowance
    once (evaluate.Held): a refusal it answers carries its code, `style allow` (which stops
    it) lets the retry through the next engine once, and another session has no pass."""
    coded = PACKAGE.replace("description: engine tests\n", "description: t\nallow_code: true\n")
    project.install(str(project.write_package(coded)))
    session, other = new_session(), new_session()
    try:
        hook(project, "ls", session)
        wait_engine(project)
        served = _served(project)
        refused = hook(project, "rm -rf build", session)
        assert _served(project) == served + 1  # the engine answered it
        assert "deny" in refused and "No recursive deletes." in refused
        code = refused.split("`style allow ")[1][:4]
        proc = _style(project, "allow", code)
        assert proc.returncode == 0, proc.stderr
        wait_engine(project, up=False)  # `style allow` stopped it
        hook(project, "ls", other)  # a new engine, which finds the allowance
        wait_engine(project)
        served = _served(project)
        assert "deny" in hook(project, "rm -rf build", other)  # not that session's pass
        assert "deny" not in hook(project, "rm -rf build", session)  # the retry passes, once
        again = hook(project, "rm -rf build", session)
        assert "deny" in again and f"`style allow {code}`" not in again
        assert _served(project) == served + 3
    finally:
        client.stop_engine(str(project.style), wait_s=5)
    assert project.scalar("SELECT uses FROM allowances") == 1
    blocked = "SELECT count(*) FROM events WHERE verdict = 'block' AND session_id = ?"
    assert project.scalar(blocked, [session]) == 2
    assert project.scalar(blocked, [other]) == 1


def test_stop_waits_for_an_engine_still_starting(engine_project: Project) -> None:
    """An engine holds the database's lock before its socket listens. Asked to stop in that
    window (a hook started it a moment ago: `make demo` right after its hooks), it is waited
    for and stopped, instead of being missed and keeping the lock until it is idle."""
    home = str(engine_project.style)
    assert client.start_engine(home)  # detached: it is starting, not yet listening
    assert os.path.exists(os.path.join(home, client.STARTING_NAME))
    assert client.stop_engine(home, wait_s=30.0)
    wait_engine(engine_project, up=False)
    assert engine_project.scalar("SELECT count(*) FROM events") == 0  # the lock is free again
