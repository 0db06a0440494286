"""A settings change during a Claude Code session that would switch STYLE's hooks off is kept
out of the session (`style/self-protect/config-change` at `config.changed`), and recorded.

Claude Code fires `ConfigChange` when a settings file changes while a session runs; a
`decision: block` answer keeps the change out of that session (seen on the real client:
tests/e2e/test_config_change.py). The hook reads the settings files as they now are.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.hooks import run_handler
from tests.support.packages import NO_RM, package_text
from tests.support.project import Project

LOCAL = ".claude/settings.local.json"


@pytest.fixture
def installed(project: Project) -> Project:
    project.install(str(project.write_package(package_text("p", NO_RM, description="no rm"))))
    return project


def change(project: Project, rel: str, doc: dict[str, object]) -> dict[str, object]:
    """Write the settings file `rel` and the payload Claude Code then sends."""
    path = project.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return project.payload("ConfigChange.local.json", file_path=str(path))


def answer(
    project: Project, payload: dict[str, object], command: str | None = None
) -> dict[str, object] | None:
    """The installed ConfigChange handler's answer (`command`: as read before the change)."""
    command = command or project.installed_command("ConfigChange")
    env = project.hook_env_for({"CLAUDE_PROJECT_DIR": str(project.root)})
    result = run_handler(command, payload, cwd=project.root, env=env)
    assert result.code == 0, result.stderr
    return result.json


def test_install_writes_a_config_change_handler(installed: Project) -> None:
    config = json.loads((installed.root / ".claude/settings.json").read_text())
    assert "ConfigChange" in config["hooks"]
    plan = installed.cli("plan", str(installed.root / "pkg"))
    [line] = [ln for ln in plan.stdout.splitlines() if ln.startswith("style/self-protect/config")]
    assert "config.changed  ConfigChange" in line and "native" in line


def test_disabling_every_hook_is_kept_out_of_the_session(installed: Project) -> None:
    got = answer(installed, change(installed, LOCAL, {"disableAllHooks": True}))
    assert got is not None and got["decision"] == "block"
    assert "switch STYLE's hooks off" in str(got["reason"])
    rows = installed.query(
        "SELECT e.point, h.rule_id, h.outcome FROM events e JOIN hits h USING (event_id)"
        " WHERE e.point = 'config.changed'"
    )
    assert rows == [("config.changed", "style/self-protect/config-change", "blocked")]


def test_removing_styles_handlers_is_kept_out(installed: Project) -> None:
    command = installed.installed_command("ConfigChange")
    settings = installed.root / ".claude/settings.json"
    doc = json.loads(settings.read_text())
    doc["hooks"] = {}
    settings.write_text(json.dumps(doc))
    payload = installed.payload("ConfigChange.local.json", file_path=str(settings))
    got = answer(installed, payload, command)
    assert got is not None and got["decision"] == "block"


def test_other_changes_pass_and_are_recorded(installed: Project) -> None:
    assert answer(installed, change(installed, LOCAL, {"env": {"X": "1"}})) is None
    # the user's own hooks beside STYLE's are no concern either
    own = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    assert answer(installed, change(installed, LOCAL, own)) is None
    events = installed.query("SELECT native_event, point FROM events ORDER BY event_id")
    assert events == [("ConfigChange", "config.changed")] * 2
    assert installed.query("SELECT * FROM hits") == []


def test_other_harnesses_skip_the_rule(project: Project) -> None:
    plan = project.cli(
        "plan",
        str(project.write_package(package_text("p", NO_RM, description="no rm"))),
        "--harness",
        "codex",
    )
    [line] = [ln for ln in plan.stdout.splitlines() if ln.startswith("style/self-protect/config")]
    assert "skipped" in line and "point-unavailable" in line


def test_the_fields_are_read_from_the_files_as_they_are(tmp_path: Path) -> None:
    from agentstyle.harnesses.claude_code import ADAPTER, hooks_switched_off

    assert hooks_switched_off(ADAPTER, tmp_path)  # nothing installed: no STYLE hook runs
    (tmp_path / ".claude").mkdir()
    hook = {"type": "command", "command": "style-hook --harness claude-code --event Stop"}
    (tmp_path / ".claude/settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}})
    )
    assert not hooks_switched_off(ADAPTER, tmp_path)
    (tmp_path / LOCAL).write_text("{not json")  # unreadable: the client keeps the last good one
    assert not hooks_switched_off(ADAPTER, tmp_path)
