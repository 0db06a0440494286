"""OpenCode's room beyond what the harness-generic tests check: STYLE's plugin file, written and
removed whole, its handler table, and what `style doctor` says of a changed copy
(docs/design/harnesses.md#opencode). The plugin itself runs in the real client:
tests/e2e/test_opencode.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentstyle.harnesses import opencode
from agentstyle.harnesses.opencode import plugin_handlers, plugin_template, plugin_text
from agentstyle.harnesses.protocol import HarnessAdapter
from agentstyle.install.hookcommand import hook_command
from tests.support.harness import HarnessProject, cross_project

PLUGIN = ".opencode/plugins/style.js"


@pytest.fixture
def project(tmp_path: Path) -> HarnessProject:
    return cross_project(tmp_path)


def test_the_plugin_is_the_template_with_the_handler_table_written_in(
    project: HarnessProject,
) -> None:
    proc = project.cli("install", "xh", "--harness", "opencode")
    assert proc.returncode == 0, proc.stderr
    text = (project.root / PLUGIN).read_text("utf-8")
    groups = plugin_handlers(text, PLUGIN)
    assert text == plugin_text(groups)
    head, tail = plugin_template().split(opencode.HANDLERS_START + "{}" + opencode.HANDLERS_END)
    assert text.startswith(head) and text.endswith(tail)
    assert sorted(groups) == [
        "chat.message",
        "session.created",
        "tool.execute.after",
        "tool.execute.before",
    ]
    [gate] = groups["tool.execute.before"]
    assert gate["matcher"] == "^(bash|edit|apply_patch|write)$"
    assert gate["hooks"] == [
        {
            "type": "command",
            "command": hook_command("opencode", "tool.execute.before", False, "project"),
            "timeout": 4,
        }
    ]


def test_fail_closed_is_the_plugins_switch_on_the_gates(project: HarnessProject) -> None:
    proc = project.cli("install", "xh", "--harness", "opencode", "--fail-closed")
    assert proc.returncode == 0, proc.stderr
    assert "note:" not in proc.stderr  # the plugin has the switch: nothing to warn about
    groups = plugin_handlers((project.root / PLUGIN).read_text("utf-8"), PLUGIN)
    [gate] = groups["tool.execute.before"][0]["hooks"]
    assert gate["failClosed"] is True
    assert " --fail-closed; " in gate["command"]
    assert "failClosed" not in groups["tool.execute.after"][0]["hooks"][0]
    assert "failClosed" not in groups["session.created"][0]["hooks"][0]


def test_install_again_then_uninstall_leaves_the_users_plugins(project: HarnessProject) -> None:
    mine = project.root / ".opencode/plugins/mine.js"
    mine.parent.mkdir(parents=True)
    mine.write_text("export const Mine = async () => ({})\n", encoding="utf-8")
    first = project.cli("install", "xh", "--harness", "opencode")
    assert f"wrote {PLUGIN}" in first.stdout
    written = (project.root / PLUGIN).read_bytes()
    again = project.cli("install", "xh", "--harness", "opencode")
    assert again.returncode == 0 and "wrote" not in again.stdout
    assert (project.root / PLUGIN).read_bytes() == written
    gone = project.cli("uninstall", "--harness", "opencode")
    assert gone.returncode == 0, gone.stderr
    assert not (project.root / PLUGIN).exists()
    assert mine.read_text("utf-8") == "export const Mine = async () => ({})\n"


def test_uninstall_removes_the_folders_install_made(project: HarnessProject) -> None:
    project.cli("install", "xh", "--harness", "opencode")
    project.cli("uninstall", "--harness", "opencode")
    assert not (project.root / ".opencode").exists()


def test_a_plugin_of_another_author_in_its_place_is_refused(project: HarnessProject) -> None:
    theirs = "// my own style.js\nexport const Style = async () => ({})\n"
    path = project.root / PLUGIN
    path.parent.mkdir(parents=True)
    path.write_text(theirs, encoding="utf-8")
    proc = project.cli("install", "xh", "--harness", "opencode")
    assert proc.returncode == 1
    assert f"refusing to touch {path}: {path} is not STYLE's plugin" in proc.stderr
    assert path.read_text("utf-8") == theirs


def test_the_user_scope_is_opencodes_config_folder(project: HarnessProject) -> None:
    xdg = project.home / "xdg"
    proc = project.cli(
        "install",
        "xh",
        "--harness",
        "opencode",
        "--scope",
        "user",
        env={"XDG_CONFIG_HOME": str(xdg)},
    )
    assert proc.returncode == 0, proc.stderr
    assert (xdg / "opencode/plugins/style.js").is_file()
    assert not (project.root / ".opencode").exists()


def test_doctor_reports_a_changed_plugin(project: HarnessProject) -> None:
    project.cli("install", "xh", "--harness", "opencode")
    clean = project.cli("doctor", "--no-fire")
    assert clean.returncode == 0, clean.stdout
    path = project.root / PLUGIN
    text = path.read_text("utf-8")
    path.write_text(text.replace("if (said.refuse) throw", "if (false) throw"), encoding="utf-8")
    broken = project.cli("doctor", "--no-fire")
    assert broken.returncode == 1
    assert "the plugin's code was changed" in broken.stdout
    assert "run `style sync`" in broken.stdout
    assert project.cli("sync").returncode == 0
    assert path.read_text("utf-8") == text


def test_doctor_fires_the_plugins_handlers(project: HarnessProject) -> None:
    project.cli("install", "xh", "--harness", "opencode")
    proc = project.cli("doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok: opencode: session.created: the installed command answered" in proc.stdout
    assert "ok: opencode: tool.execute.before: the installed command answered" in proc.stdout


def test_the_plugin_reads_every_key_an_answer_may_carry() -> None:
    """Each key the adapter writes is one the plugin's code reads."""
    code = plugin_template()
    keys = {k for ks in opencode.ANSWER_KEYS.values() for k in ks}
    for key in keys:
        assert f"answer.{key}" in code, key
    assert isinstance(opencode.ADAPTER, HarnessAdapter)


def test_doctor_says_what_a_failing_hook_does(project: HarnessProject) -> None:
    project.cli("install", "xh", "--harness", "opencode")
    project.cli("install", "xh", "--harness", "codex")
    said = project.cli("doctor", "--no-fire").stdout
    assert (
        "ok: opencode: hook failures: OpenCode lets the call run when the hook process crashes or "
        "times out (`style install --fail-closed`: it refuses)"
    ) in said
    assert (
        "ok: codex: hook failures: Codex lets the call run when the hook process crashes or times "
        "out (no setting changes that)"
    ) in said
    project.cli("install", "xh", "--harness", "opencode", "--fail-closed")
    said = project.cli("doctor", "--no-fire").stdout
    assert (
        "ok: opencode: hook failures: OpenCode refuses the call when the hook process crashes or "
        "times out;"
    ) in said
