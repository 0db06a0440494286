"""A rules database the session had and then lost is reported to the person as tampering."""

from __future__ import annotations

import shutil

from tests.conftest import Project, new_session

PACKAGE = """
spec: style/v0.3
name: guard
version: 1.0.0
description: tamper tests
rules:
  - id: no-rm
    target: tool
    tool: shell
    action: block
    when: 'tool.input.command shell_regex "^rm .*-rf"'
    text: No recursive deletes.
"""


def call(project: Project, session: str, command: str = "ls") -> dict[str, object]:
    payload = project.payload("PreToolUse.bash-rm-rf.json", session_id=session)
    payload["tool_input"] = {"command": command}
    return payload


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
