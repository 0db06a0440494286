"""`style doctor` and STYLE as a Claude Code plugin: the enabled state read from the files the
pinned client writes (`enabledPlugins` in its settings files, the copy's path in
`~/.claude/plugins/installed_plugins.json`, as `claude plugin install` wrote them in
tests/e2e/test_plugin.py), the plugin reported instead of a missing settings install, and a
double install warned about (docs/harnesses/claude-code.md#as-a-plugin)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentstyle.install import plugin
from tests.support.cli import style_in_process
from tests.support.environment import REPO
from tests.support.packages import no_rm, package_text
from tests.support.plugin import enable, install_plugin, write_json
from tests.support.project import Project

RM = package_text(
    "house",
    no_rm("no rm here"),
    description="no rm",
)


def doctor(
    p: Project, path: str | None = None, *, fire: bool = False
) -> subprocess.CompletedProcess[str]:
    env = {"PATH": path} if path is not None else None
    return style_in_process(p.root, p.home, "doctor", "--fire" if fire else "--no-fire", env=env)


def healthy(p: Project, *lines: str, fire: bool = False) -> str:
    """Doctor's report on `p`, which must pass and hold each of `lines`."""
    proc = doctor(p, fire=fire)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for line in lines:
        assert line in proc.stdout, proc.stdout
    return proc.stdout


def installed(p: Project, harness: str) -> Project:
    """`p` with a policy installed for `harness` through its settings."""
    p.write_package(RM, "policy")
    p.install("policy", "--harness", harness)
    return p


@pytest.fixture
def lock_only(project: Project) -> Project:
    """A project installed for Claude Code whose settings install is gone: the lock and the
    database, no `.claude/`."""
    installed(project, "claude-code")
    shutil.rmtree(project.root / ".claude")
    return project


def test_without_the_plugin_the_missing_settings_are_an_error(lock_only: Project) -> None:
    proc = doctor(lock_only)
    assert proc.returncode == 1
    assert "error: claude-code: .claude/settings.json is missing" in proc.stdout


def test_an_enabled_plugin_serves_claude_code(lock_only: Project) -> None:
    install_plugin(lock_only.home)
    out = healthy(
        lock_only,
        "ok: claude-code: STYLE plugin enabled (style@agentstyle, in ~/.claude/settings.json; "
        "hooks from ~/.claude/plugins/cache/agentstyle/style/0.3.0)",
    )
    assert "is missing" not in out and "twice" not in out


def test_doctor_fires_the_plugins_own_commands(lock_only: Project) -> None:
    install_plugin(lock_only.home)
    out = healthy(lock_only, fire=True)
    fired = re.findall(r"^ok: claude-code: (\w+): the installed command answered", out, re.M)
    assert fired == ["SessionStart", "PreToolUse"], out


def test_a_broken_plugin_copy_fails_its_fire(lock_only: Project) -> None:
    """The copy's commands are what doctor runs: one that exits 3 is an error."""
    copy = install_plugin(lock_only.home)
    hooks = copy / "hooks" / "hooks.json"
    doc = json.loads(hooks.read_text())
    [group] = doc["hooks"]["PreToolUse"]
    group["hooks"][0]["command"] = "exit 3; style-hook --harness claude-code --event PreToolUse"
    write_json(hooks, doc)
    proc = doctor(lock_only, fire=True)
    assert proc.returncode == 1
    assert "error: claude-code: PreToolUse: the installed command failed (exit 3)" in proc.stdout


def test_plugin_and_settings_install_are_a_double_install(project: Project) -> None:
    install_plugin(installed(project, "claude-code").home)
    healthy(
        project,
        "warning: claude-code: STYLE is installed twice here: the plugin style@agentstyle and "
        "the handlers in .claude/settings.json both run on every event",
        # the settings install is still checked as installed
        "ok: claude-code: .claude/settings.json: ",
    )


def test_a_project_that_disables_the_plugin_overrides_the_user(lock_only: Project) -> None:
    install_plugin(lock_only.home)
    enable(lock_only.root / ".claude" / "settings.local.json", plugin.PLUGIN_ID, False)
    proc = doctor(lock_only)
    assert "STYLE plugin enabled" not in proc.stdout
    assert "error: claude-code: .claude/settings.json is missing" in proc.stdout


def test_a_renamed_copy_is_known_by_its_hooks(lock_only: Project, tmp_path: Path) -> None:
    other = tmp_path / "other-plugin"
    (other / "hooks").mkdir(parents=True)
    write_json(other / "hooks" / "hooks.json", {"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}})
    install_plugin(lock_only.home, "lint@elsewhere", source=other)
    assert "STYLE plugin enabled" not in doctor(lock_only).stdout
    install_plugin(lock_only.home, "guard@corp")
    proc = doctor(lock_only)
    assert "ok: claude-code: STYLE plugin enabled (guard@corp, " in proc.stdout, proc.stdout


def test_a_lock_without_claude_code_is_no_policy_for_the_plugin(project: Project) -> None:
    install_plugin(installed(project, "codex").home)
    proc = doctor(project)
    assert "ok: claude-code: STYLE plugin enabled" in proc.stdout
    assert (
        "warning: claude-code: style.lock.yaml installs nothing for claude-code, so the "
        "plugin's hooks find no rule to apply here"
    ) in proc.stdout


def test_a_plugin_without_style_hook_on_path_is_an_error(lock_only: Project) -> None:
    install_plugin(lock_only.home)
    proc = doctor(lock_only, path="/usr/bin:/bin")
    assert proc.returncode == 1
    assert "error: claude-code: the plugin's hooks run `style-hook`, which is not on PATH" in (
        proc.stdout
    )


def test_a_fifo_or_broken_settings_file_is_passed_over(lock_only: Project) -> None:
    """The client's files are read as it reads them: one that is no JSON counts for nothing,
    and a FIFO in a settings file's place never holds doctor."""
    install_plugin(lock_only.home)
    (lock_only.root / ".claude").mkdir()
    os.mkfifo(lock_only.root / ".claude" / "settings.json")
    (lock_only.root / ".claude" / "settings.local.json").write_text("{not json", encoding="utf-8")
    proc = doctor(lock_only)
    assert (
        "ok: claude-code: STYLE plugin enabled (style@agentstyle, in ~/.claude/settings.json"
        in (proc.stdout)
    ), proc.stdout


def test_a_codex_plugin_serves_codex(project: Project) -> None:
    """As `codex plugin add style@agentstyle` leaves it: `[plugins."style@agentstyle"]` in
    `~/.codex/config.toml`, the plugin folder copied into the cache."""
    installed(project, "codex")
    config = project.root / ".codex" / "hooks.json"
    codex = project.home / ".codex"
    copy = codex / "plugins" / "cache" / "agentstyle" / "style" / "0.3.0"
    shutil.copytree(REPO / plugin.PLUGIN_DIR, copy)
    (codex / "config.toml").write_text(
        '[plugins."style@agentstyle"]\nenabled = true\n', encoding="utf-8"
    )
    proc = doctor(project)
    assert (
        "ok: codex: STYLE plugin enabled (style@agentstyle, in ~/.codex/config.toml; hooks from "
        "~/.codex/plugins/cache/agentstyle/style/0.3.0)"
    ) in proc.stdout, proc.stdout
    assert (
        "warning: codex: STYLE is installed twice here: the plugin style@agentstyle and the "
        "handlers in .codex/hooks.json both run on every event"
    ) in proc.stdout
    config.unlink()
    out = healthy(project, "ok: codex: PreToolUse: the installed command answered", fire=True)
    assert "twice" not in out and "hooks.json is missing" not in out
    (codex / "config.toml").write_text(
        '[plugins."style@agentstyle"]\nenabled = false\n', encoding="utf-8"
    )
    assert "STYLE plugin enabled" not in doctor(project).stdout


def test_a_gemini_extension_serves_gemini_cli(project: Project) -> None:
    installed(project, "gemini-cli")
    (project.root / ".gemini" / "settings.json").unlink()
    copy = project.home / ".gemini" / "extensions" / "style"
    (copy / "hooks").mkdir(parents=True)
    for rel in plugin.extension_paths("gemini-cli"):
        shutil.copyfile(REPO / rel, copy / rel)
    healthy(
        project,
        "ok: gemini-cli: STYLE extension enabled (style, in ~/.gemini/extensions; hooks from "
        "~/.gemini/extensions/style)",
        "ok: gemini-cli: BeforeTool: the installed command answered",
        fire=True,
    )
    # `gemini extensions disable style --scope workspace`, run in the project
    write_json(
        project.home / ".gemini" / "extensions" / "extension-enablement.json",
        {"style": {"overrides": [f"{project.home}/*", f"!{project.root}/*"]}},
    )
    assert "STYLE extension enabled" not in doctor(project).stdout


@pytest.mark.parametrize(
    ("rules", "folder", "enabled"),
    [
        (None, "/w/p", True),
        (["/home/u/*"], "/w/p", True),  # no rule matches: enabled
        (["!/home/u/*"], "/home/u/src/p", False),
        (["!/home/u/*"], "/home/u", False),
        (["!/home/u/*"], "/home/uv/p", True),
        (["/home/u/*", "!/home/u/src/p/*"], "/home/u/src/p/sub", False),
        (["!/home/u/*", "/home/u/src/p/*"], "/home/u/src/p", True),  # the last match decides
        (["!/home/u/src/p"], "/home/u/src/p/sub", True),  # no `*`: that folder only
        (["!/home/u/src/p"], "/home/u/src/p", False),
    ],
)
def test_gemini_enablement_rules(rules: Any, folder: str, enabled: bool) -> None:
    from agentstyle.harnesses.gemini_cli import extension_enabled

    assert extension_enabled(rules, Path(folder)) is enabled
