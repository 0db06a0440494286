"""A rules database the session had and then lost is reported to the person as tampering."""

from __future__ import annotations

import shutil

from tests.support.engine import shell_call
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
