"""The payload decides the dialect (docs/design/harnesses.md#dialect): Cursor runs the hooks of a
Claude Code config too (docs/design/harnesses.md#cursor-claude-hooks). A Cursor-shaped payload
arriving through STYLE's Claude Code handler is read and answered as Cursor's; and when STYLE is
installed for Cursor as well, that copy is not evaluated a second time for the same call."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.harness import HarnessProject, cross_project
from tests.support.hooks import new_session

RM = "STYLE no-rm-rf: recursive deletes are blocked; use 'cargo clean'."


def _project(tmp_path: Path, *harnesses: str) -> HarnessProject:
    return cross_project(tmp_path, *harnesses)


def test_a_cursor_payload_through_the_claude_config_is_answered_as_cursor(tmp_path: Path) -> None:
    p = _project(tmp_path, "claude-code")
    payload = p.fixture("cursor", "beforeShellExecution.rm-rf.json", conversation_id=new_session())
    result = p.run_installed_as("claude-code", "PreToolUse", payload)
    assert json.loads(result.stdout) == {
        "permission": "deny",
        "user_message": "STYLE no-rm-rf blocked: rm -rf ./target /tmp/acme-build",
        "agent_message": RM,
    }
    # Claude Code's plan applies (its entries, an ask is an ask where Cursor can ask there).
    push = p.fixture(
        "cursor", "beforeShellExecution.git-push-force.json", conversation_id=new_session()
    )
    assert (
        json.loads(p.run_installed_as("claude-code", "PreToolUse", push).stdout)["permission"]
        == "ask"
    )
    rows = p.query("SELECT harness, native_event, verdict FROM events ORDER BY event_id")
    assert rows == [
        ("claude-code", "beforeShellExecution", "block"),
        ("claude-code", "beforeShellExecution", "ask"),
    ]


def test_the_same_call_is_not_evaluated_twice_when_cursor_is_installed_too(
    tmp_path: Path,
) -> None:
    p = _project(tmp_path, "claude-code", "cursor")
    payload = p.fixture("cursor", "beforeShellExecution.rm-rf.json", conversation_id=new_session())
    native = p.run_installed_as("cursor", "beforeShellExecution", payload)
    assert json.loads(native.stdout)["permission"] == "deny"
    copy = p.run_installed_as("claude-code", "PreToolUse", payload)
    assert copy.stdout == '{"permission":"allow"}\n'  # Cursor merges: deny beats allow
    assert p.scalar("SELECT count(*) FROM events") == 1
    assert p.scalar("SELECT harness FROM events") == "cursor"


def test_a_claude_payload_stays_claudes(tmp_path: Path) -> None:
    p = _project(tmp_path, "claude-code", "cursor")
    payload = p.fixture("claude-code", "PreToolUse.bash-rm-rf.json", session_id=new_session())
    answer = json.loads(p.run_installed_as("claude-code", "PreToolUse", payload).stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_cursor_gates_each_tool_class_once(tmp_path: Path) -> None:
    """STYLE gates Cursor's shell calls at beforeShellExecution; a preToolUse copy of a shell
    call (if Cursor sends one despite the matcher) is not evaluated again."""
    p = _project(tmp_path, "cursor")
    shell = p.fixture("cursor", "preToolUse.shell.json", conversation_id=new_session())
    assert p.hook_as("cursor", "preToolUse", shell).stdout == '{"permission":"allow"}\n'
    assert p.scalar("SELECT count(*) FROM events") == 0
    write = p.fixture("cursor", "preToolUse.write-rs.json", conversation_id=new_session())
    p.hook_as("cursor", "preToolUse", write)
    assert p.scalar("SELECT count(*) FROM events") == 1  # other tools are preToolUse's
