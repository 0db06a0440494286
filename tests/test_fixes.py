"""A rule's `fix`: the refused shell command rewritten, re-evaluated, and answered per harness.

Real hook processes with the harnesses' payloads on stdin, against a real installed project
(docs/design/runtime.md#fixes): Claude Code gets the rewritten call to run (`updatedInput`
with `permissionDecision: allow`), Codex and Gemini CLI a refusal that names the command to
run instead; only the simple command the rule refused is changed, every other byte of the
line stays; a fixed command that the policy still refuses is not offered.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.environment import clean_env
from tests.support.hooks import new_session
from tests.support.project import Project

PACKAGE = r"""
spec: style/v0.3
name: fixes
version: 1.0.0
description: fixes under test
rules:
  - id: lease
    target: tool
    tool: shell
    action: block
    when: 'tool.input.command shell_regex "^git push( \\S+)* (-f|--force)( |$)"'
    fix: {replace: '(-f|--force)( |$)', with: '--force-with-lease\2'}
    text: Force-push with a lease.
  - id: never-main-lease
    target: tool
    tool: shell
    action: block
    when: 'tool.input.command shell_regex "^git push .*--force-with-lease.* main( |$)"'
    text: Not even with a lease on main.
"""


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("fixes")
    project = Project(root / "repo", root / "home")
    project.write_package(PACKAGE)
    for harness in ("claude-code", "codex", "gemini-cli"):
        project.install("pkg", "--harness", harness)
    return project


def hook(project: Project, harness: str, event: str, payload: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "agentstyle.hook", "--harness", harness, "--event", event],
        cwd=project.root,
        env=clean_env(project.home),
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 1, proc.stdout
    answer: dict[str, Any] = json.loads(lines[0])
    return answer


def shell_call(
    project: Project, harness: str, event: str, tool: str, tool_input: Any, **fields: str
) -> dict[str, Any]:
    """The hook's answer to `harness`'s shell tool call in a new session (`fields`: the
    payload's other fields of that harness)."""
    payload = {
        "session_id": new_session(),
        "hook_event_name": event,
        "cwd": str(project.root),
        **fields,
        "tool_name": tool,
        "tool_input": tool_input,
    }
    return hook(project, harness, event, payload)


def claude(project: Project, command: str) -> dict[str, Any]:
    tool_input = {"command": command, "description": "push", "timeout": 60000}
    answer = shell_call(project, "claude-code", "PreToolUse", "Bash", tool_input)
    specific: dict[str, Any] = answer["hookSpecificOutput"]
    return specific


def test_claude_code_runs_the_fixed_command_with_the_rest_of_the_line_as_written(
    fixed: Project,
) -> None:
    command = "cd 'my repo' && git push -f origin feature/x 2>&1 | tee \"push log.txt\""
    answer = claude(fixed, command)
    assert answer["permissionDecision"] == "allow"
    want = (
        "cd 'my repo' && git push --force-with-lease origin feature/x 2>&1 | tee \"push log.txt\""
    )
    # The whole tool input comes back, with only the command changed.
    assert answer["updatedInput"] == {"command": want, "description": "push", "timeout": 60000}
    assert want in answer["additionalContext"] and "fixes/lease" in answer["additionalContext"]
    assert want in answer["permissionDecisionReason"]


def test_only_the_refused_simple_command_is_rewritten(fixed: Project) -> None:
    answer = claude(fixed, "rm --force old.txt; git push --force origin topic; echo --force")
    want = "rm --force old.txt; git push --force-with-lease origin topic; echo --force"
    assert answer["updatedInput"]["command"] == want


def test_a_command_inside_a_substitution_is_fixed_in_place(fixed: Project) -> None:
    answer = claude(fixed, 'out="$(git push --force origin topic)"; echo "$out"')
    want = 'out="$(git push --force-with-lease origin topic)"; echo "$out"'
    assert answer["updatedInput"]["command"] == want


def test_a_fixed_command_the_policy_still_refuses_is_not_offered(fixed: Project) -> None:
    answer = claude(fixed, "git push --force origin main")
    assert answer["permissionDecision"] == "deny"
    assert "updatedInput" not in answer
    assert "Run this instead" not in answer["permissionDecisionReason"]
    assert "Force-push with a lease." in answer["permissionDecisionReason"]


def test_codex_refusal_names_the_command_to_run(fixed: Project) -> None:
    push = {"command": "git push --force origin topic"}
    answer = shell_call(fixed, "codex", "PreToolUse", "Bash", push, model="gpt-5")
    specific = answer["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"].endswith(
        "Run this instead: `git push --force-with-lease origin topic`"
    )


def test_gemini_cli_refusal_names_the_command_to_run(fixed: Project) -> None:
    push = {"command": "git push -f origin topic"}
    at = "2026-12-02T00:00:00Z"
    answer = shell_call(fixed, "gemini-cli", "BeforeTool", "run_shell_command", push, timestamp=at)
    assert answer["decision"] == "deny"
    assert "Run this instead: `git push --force-with-lease origin topic`" in answer["reason"]


def test_the_history_keeps_both_commands_and_the_outcome_fixed(fixed: Project) -> None:
    claude(fixed, "git push --force origin audit-me")
    rows = fixed.query(
        "SELECT h.outcome, f.value FROM hits h JOIN event_fields f ON f.event_id = h.event_id"
        " AND f.field = 'fix.command' JOIN event_fields c ON c.event_id = h.event_id"
        " AND c.field = 'tool.input.command' WHERE c.value = 'git push --force origin audit-me'"
    )
    assert rows == [("fixed", "git push --force-with-lease origin audit-me")]


def style_json(project: Project, *args: str) -> dict[str, Any]:
    proc = project.process(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def push_payload(project: Project, command: str) -> dict[str, Any]:
    return {
        "session_id": "replayed",
        "hook_event_name": "PreToolUse",
        "cwd": str(project.root),
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


def test_explain_shows_the_fix_and_records_nothing(fixed: Project, tmp_path: Path) -> None:
    payload = tmp_path / "push.json"
    payload.write_text(json.dumps(push_payload(fixed, "git push -f origin topic")))
    before = fixed.scalar("SELECT count(*) FROM events")
    doc = style_json(fixed, "explain", "--payload", str(payload), "--harness", "claude-code")
    assert doc["verdict"] == "allow"
    assert doc["fix"] == {
        "original": "git push -f origin topic",
        "command": "git push --force-with-lease origin topic",
        "rules": ["fixes/lease"],
        "rewritten": True,
    }
    assert any("block=fixed" in line for line in doc["trace"]), doc["trace"]
    assert json.loads(doc["stdout"])["hookSpecificOutput"]["updatedInput"] == {
        "command": "git push --force-with-lease origin topic"
    }
    assert fixed.scalar("SELECT count(*) FROM events") == before


def test_replay_counts_fixed_calls_and_shows_both_commands(fixed: Project, tmp_path: Path) -> None:
    folder = tmp_path / "payloads"
    folder.mkdir()
    for i, command in enumerate(["git push --force origin a", "git push --force origin main"]):
        (folder / f"{i:03d}-PreToolUse.json").write_text(json.dumps(push_payload(fixed, command)))
    doc = style_json(fixed, "replay", str(folder), "-p", str(fixed.root / "pkg"))
    [lease] = [r for r in doc["rules"]["rows"] if r["rule"] == "fixes/lease"]
    assert (lease["fixed"], lease["blocked"]) == (1, 1)  # main: the fixed command is refused too
    outputs = [e["output"] for e in doc["examples"]["fixes/lease"]]
    assert any("ran `git push --force-with-lease origin a`" in o for o in outputs), outputs
