"""A rules database the session had and then lost is reported to the person as tampering."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

from agentstyle.runtime import client
from tests.support.engine import installed, shell_call, wait_engine
from tests.support.hooks import new_session
from tests.support.packages import NO_RM_RF, package_text
from tests.support.project import Project

PACKAGE = package_text("guard", NO_RM_RF, description="tamper tests")


def call(project: Project, session: str, command: str = "ls") -> dict[str, object]:
    return shell_call(project, command, session)


def test_a_deleted_style_folder_is_tampering_and_is_built_again(project: Project) -> None:
    project.install(str(project.write_package(PACKAGE)))
    session = new_session()
    first = project.hook("PreToolUse", call(project, session))
    assert "tamper" not in first.stdout
    shutil.rmtree(project.style)  # what `rm -rf .style` in the agent's shell does
    result = project.hook("PreToolUse", call(project, session, "rm -rf /"))
    message = str(result.json["systemMessage"])
    assert "was deleted during this session" in message and "tampered" in message
    assert "built again from style.lock.yaml" in message
    # and the guard holds again
    assert result.json["hookSpecificOutput"]["permissionDecision"] == "deny"
    # once per session
    again = project.hook("PreToolUse", call(project, session))
    assert "tamper" not in again.stdout


def test_a_damaged_database_is_tampering(project: Project) -> None:
    project.install(str(project.write_package(PACKAGE)))
    session = new_session()
    project.hook("PreToolUse", call(project, session))
    project.database.write_bytes(b"\0garbage" * 4096)
    result = project.hook("PreToolUse", call(project, session))
    message = str(result.json["systemMessage"])
    assert "was damaged during this session" in message
    assert "could not check this call" in message  # the fail-open notice too


def test_a_new_session_without_a_database_is_not_tampering(project: Project) -> None:
    """A fresh clone (no database ever seen in this session) is a first use, not tampering."""
    project.install(str(project.write_package(PACKAGE)))
    shutil.rmtree(project.style)
    result = project.hook("PreToolUse", call(project, new_session()))
    message = str(result.json.get("systemMessage", ""))
    assert "tamper" not in message and "built this machine's rules database" in message


def _markers(project: Project) -> set[str]:
    env = project.hook_env_for()
    state = Path(env.get("XDG_STATE_HOME") or Path(env["HOME"], ".local", "state"))
    folder = state / "agentstyle" / "sessions"
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def _marker(session: str) -> str:
    return hashlib.sha256(f"claude-code\0{session}".encode()).hexdigest()[:32]


def test_a_session_the_engine_answered_is_marked_and_its_warm_up_is_not(project: Project) -> None:
    """The resident engine marks a session once its answer is out (before it reads the next
    request), so a database deleted after calls the engine answered is tampering too; the
    call it answers to warm up, before its first request, marks nothing."""
    engine = {"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "60"}
    with installed(project, PACKAGE):
        first = new_session()
        project.hook("PreToolUse", call(project, first), env=engine)  # direct: starts one
        served = int(wait_engine(project)["served"])  # type: ignore[call-overload]
        session = new_session()
        project.hook("PreToolUse", call(project, session), env=engine)
        info = client.ping(str(project.style)) or {}
        assert int(info["served"]) == served + 1  # type: ignore[call-overload]
        assert client.stop_engine(str(project.style), wait_s=20)
        # the engine closes its database as it exits: delete the folder after, not during
        gone_by = time.monotonic() + 20
        while _alive(int(info["pid"])) and time.monotonic() < gone_by:  # type: ignore[call-overload]
            time.sleep(0.05)
    assert _markers(project) == {_marker(first), _marker(session)}
    shutil.rmtree(project.style)
    result = project.hook("PreToolUse", call(project, session, "rm -rf /"))
    assert "was deleted during this session" in str(result.json["systemMessage"])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
