"""Self-protection (docs/design/cli.md#self-protection): the agent cannot switch STYLE off from
inside its session.

Built-in gate rules (package `style`, rules `style/self-protect…`) go with every install unless
`style.lock.yaml` says `protect: false`. They refuse the agent's tool calls that run
STYLE's own state-changing commands, or that write the hook configs, the policy, `.style/`
or STYLE's code, in every harness's payload shapes (tests/test_redteam.py tries every
chain of the red-team report through the installed hook). The person's
own terminal runs no hook: the same commands work there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from agentstyle.harnesses import HARNESSES as HOOK_FACTS
from agentstyle.runtime import client
from tests.support.harness import HARNESSES, HarnessProject, cross_project
from tests.support.harness import shell_payload as harness_shell_payload
from tests.support.hooks import new_session

REFUSE_COMMANDS = "STYLE self-protect: `style allow`, install, sync, uninstall"
YOURS = "The user can do it from their own terminal."

AGENT_COMMANDS = [
    "style allow --last",
    "style allow 42 --session",
    "cd sub && style uninstall --harness codex",
    "/home/dev/.venv/bin/style engine stop",
    "python3 -m agentstyle allow --last",
    "bash -lc 'style allow --last'",
    "env STYLE_ENGINE=off style uninstall",
    "uvx --from agentstyle style allow --last",
    "python3 - <<'EOF'\nimport os\nos.system('style allow --last')\nEOF",
    "echo '{}' > .claude/settings.json",
    "rm -f .style/style.duckdb",
    "sed -i 's/true/false/' .gemini/settings.json",
    "cp /tmp/mine.json .codex/hooks.json",
    "echo 'protect: false' >> style.lock.yaml",
]
HARMLESS_COMMANDS = [
    "style plan xh --harness codex",
    "style audit rules",
    "cat .claude/settings.json",
    "git commit -m 'style allow list in docs'",
    "cp .claude/settings.json /tmp/backup.json",
    "grep -r uninstall docs/",
]


def shell_payload(p: HarnessProject, harness: str, command: str) -> tuple[str, dict[str, Any]]:
    """The agent's shell tool running `command` in a session of its own."""
    return harness_shell_payload(harness, command, p.root, new_session())


def _patch(path: str) -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n-a\n+b\n*** End Patch\n"


# each harness's file tool: its fixture, and its input writing a file (its full path, its path
# relative to the project)
EDITS: dict[str, tuple[str, Callable[[str, str], dict[str, Any]]]] = {
    "claude-code": (
        "PreToolUse.edit-rs.json",
        lambda full, _: {"file_path": full, "old_string": "a", "new_string": "b"},
    ),
    "codex": ("PreToolUse.apply_patch-rs.json", lambda _, path: {"command": _patch(path)}),
    "cursor": ("preToolUse.write-rs.json", lambda full, _: {"file_path": full, "contents": "{}"}),
    "copilot-cli": (
        "PreToolUse.edit-rs.json",
        lambda full, _: {"path": full, "old_str": "a", "new_str": "b"},
    ),
    "qwen-code": (
        "PreToolUse.write_file-env.json",
        lambda full, _: {"file_path": full, "content": "{}"},
    ),
    "opencode": (
        "tool.execute.before.write-env.json",
        lambda full, _: {"filePath": full, "content": "{}"},
    ),
    "gemini-cli": (
        "BeforeTool.write_file-env.json",
        lambda full, _: {"file_path": full, "content": "{}"},
    ),
}


def edit_payload(p: HarnessProject, harness: str, path: str) -> tuple[str, dict[str, Any]]:
    """The agent's file tool writing `path` (relative to the project)."""
    name, tool_input = EDITS[harness]
    payload = p.fixture(harness, name, tool_input=tool_input(f"{p.root.as_posix()}/{path}", path))
    payload[HOOK_FACTS[harness].session_key] = new_session()
    return str(payload["hook_event_name"]), payload


def refusal_text(harness: str, stdout: str) -> str | None:
    """The reason of a refusal in any harness's answer (None: not refused)."""
    doc = json.loads(stdout) if stdout.strip() else {}
    specific = doc.get("hookSpecificOutput") or {}
    if specific.get("permissionDecision") == "deny":
        return str(specific["permissionDecisionReason"])
    if doc.get("permission") == "deny":
        return str(doc.get("agent_message") or doc.get("user_message"))
    if doc.get("decision") in ("deny", "block"):
        return str(doc.get("reason"))
    if doc.get("permissionDecision") == "deny":  # Copilot CLI's flat form
        return str(doc["permissionDecisionReason"])
    return None


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HarnessProject]:
    """xh installed for every harness, its hooks handing their events to a resident engine
    (these tests are about the answers and the records; the direct path runs in the tests
    below that build their own project, and in tests/test_redteam.py)."""
    base = tmp_path_factory.mktemp("guarded")
    p = cross_project(base, *HARNESSES)
    with p.engine():
        yield p


def engine_stopped(p: HarnessProject) -> None:
    """The engine holds the database while it runs: stop it before reading the history (a later
    hook of this module starts it again)."""
    client.stop_engine(str(p.style), wait_s=20)


@pytest.mark.parametrize("harness", HARNESSES)
def test_agent_shell_calls_that_switch_style_off_are_refused(
    guarded: HarnessProject, harness: str
) -> None:
    for command in AGENT_COMMANDS:
        event, payload = shell_payload(guarded, harness, command)
        result = guarded.hook_as(harness, event, payload)
        reason = refusal_text(harness, result.stdout)
        assert reason is not None, (harness, command, result.stdout)
        assert reason.startswith(("STYLE self-protect", "STYLE no-rm-rf")), (command, reason)
        assert "STYLE self-protect" in reason and YOURS in reason, (command, reason)


@pytest.mark.parametrize("harness", HARNESSES)
def test_the_agent_may_still_read_and_mention(guarded: HarnessProject, harness: str) -> None:
    for command in HARMLESS_COMMANDS:
        event, payload = shell_payload(guarded, harness, command)
        result = guarded.hook_as(harness, event, payload)
        assert refusal_text(harness, result.stdout) is None, (harness, command, result.stdout)


@pytest.mark.parametrize("harness", HARNESSES)
def test_agent_edits_of_styles_own_files_are_refused(guarded: HarnessProject, harness: str) -> None:
    paths = [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".cursor/hooks.json",
        ".gemini/settings.json",
        ".opencode/plugins/style.js",
        ".style/style.duckdb",
        ".style/builtin/style/STYLE.yaml",
        "style.lock.yaml",
    ]
    for path in paths:
        event, payload = edit_payload(guarded, harness, path)
        result = guarded.hook_as(harness, event, payload)
        reason = refusal_text(harness, result.stdout)
        assert reason is not None, (harness, path, result.stdout)
        assert reason.startswith("STYLE self-protect") and YOURS in reason, (path, reason)
    event, payload = edit_payload(guarded, harness, "docs/settings.json")
    assert refusal_text(harness, guarded.hook_as(harness, event, payload).stdout) is None


def test_refusals_are_audited_like_any_rule(guarded: HarnessProject) -> None:
    engine_stopped(guarded)
    rows = guarded.query(
        "SELECT DISTINCT rule_id FROM hits WHERE outcome = 'blocked' AND rule_id LIKE 'style/%'"
    )
    assert {r for (r,) in rows} >= {
        "style/self-protect/commands",
        "style/self-protect/hook-configs",
        "style/self-protect/policy",
        "style/self-protect/state",
    }


def test_the_terminal_is_not_affected(tmp_path: Any) -> None:
    """The agent's `style allow --last` is refused; the person's works."""
    p = cross_project(tmp_path, "codex")
    ask = p.fixture("codex", "PreToolUse.bash-git-push-force.json", session_id=new_session())
    refused = p.hook_as("codex", "PreToolUse", ask)
    assert "style allow --last" in (refusal_text("codex", refused.stdout) or "")
    event, agent = shell_payload(p, "codex", "style allow --last")
    assert REFUSE_COMMANDS in (refusal_text("codex", p.hook_as("codex", event, agent).stdout) or "")
    person = p.cli("allow", "--last")
    assert person.returncode == 0, person.stderr
    assert "allowed once: bash -lc 'git push --force-with-lease origin main'" in person.stdout
    bye = p.cli("uninstall", "--harness", "codex")
    assert bye.returncode == 0 and "removed .codex/hooks.json" in bye.stdout


def test_plan_shows_the_built_in_rules(guarded: HarnessProject) -> None:
    plan = guarded.cli("plan", "xh", "--harness", "gemini-cli")
    lines = [line for line in plan.stdout.splitlines() if line.startswith("style/")]
    assert [line.split()[0] for line in lines] == [
        "style/self-protect/commands",
        "style/self-protect/hook-configs",
        "style/self-protect/policy",
        "style/self-protect/state",
        "style/self-protect/code",
        "style/self-protect/folders",
        "style/self-protect/config-change",
    ]
    # a client without a settings-change event skips that one
    assert all(" native " in line for line in lines[:-1])
    assert " skipped " in lines[-1] and "point-unavailable" in lines[-1]


def test_protect_false_leaves_them_out(tmp_path: Any) -> None:
    p = cross_project(tmp_path)
    (p.root / "style.lock.yaml").write_text("protect: false\n", encoding="utf-8")
    assert p.cli("install", "xh", "--harness", "claude-code").returncode == 0
    assert p.scalar("SELECT count(*) FROM rules WHERE rule_id LIKE 'style/%'") == 0
    assert "style/self-protect" not in p.cli("plan", "xh", "--harness", "claude-code").stdout
    event, payload = shell_payload(p, "claude-code", "style allow --last")
    assert p.hook_as("claude-code", event, payload).stdout == ""
    assert "protect: false" in (p.root / "style.lock.yaml").read_text("utf-8")
