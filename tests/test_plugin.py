"""The repository as a Claude Code plugin marketplace and a Gemini CLI extension: the committed
files are what agentstyle/install/plugin.py generates, their hooks are the portable commands,
and those commands, run as the client runs them, guard a lock-only project, do nothing where
there is no project, and say so where STYLE is missing
(docs/harnesses/index.md#plugins-and-extensions)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agentstyle.harnesses import adapter_for, claude_code, codex, gemini_cli, written
from agentstyle.harnesses.facts import SUPPORTED, spec_for
from agentstyle.install import plugin
from agentstyle.install.hookcommand import MISSING
from tests.support.environment import REPO, clean_env
from tests.support.hooks import FIXTURES, HookResult, encode, finish
from tests.support.packages import no_rm, package_text
from tests.support.project import Project

RM = package_text(
    "house",
    no_rm("PLUGIN-BLOCK no rm here"),
    description="no rm",
)


def committed(rel: str) -> dict[str, Any]:
    doc = json.loads((REPO / rel).read_text("utf-8"))
    assert isinstance(doc, dict)
    return doc


@pytest.mark.parametrize("rel", sorted(plugin.files()))
def test_committed_file_is_what_the_code_generates(rel: str) -> None:
    path = REPO / rel
    assert path.is_file(), f"{rel} is not committed: run python -m agentstyle.install.plugin"
    assert path.read_text("utf-8") == plugin.files()[rel], (
        f"{rel} differs from what agentstyle/install/plugin.py generates: "
        "run python -m agentstyle.install.plugin"
    )


def test_the_marketplace_names_the_plugin_folder() -> None:
    market = committed(claude_code.MARKETPLACE_FILE)
    [entry] = market["plugins"]
    assert entry["name"] == committed(claude_code.PLUGIN_MANIFEST)["name"] == plugin.PLUGIN_NAME
    source = REPO / entry["source"]
    assert (source / ".claude-plugin" / "plugin.json").is_file()
    assert (source / "hooks" / "hooks.json").is_file()
    assert f"{plugin.PLUGIN_NAME}@{market['name']}" == plugin.PLUGIN_ID
    # Codex reads the same plugin folder, through its own manifest and hooks file
    manifest = committed(codex.PLUGIN_MANIFEST)
    assert manifest["name"] == plugin.PLUGIN_NAME
    hooks = REPO / str(codex.ADAPTER.extension_hooks_file)
    assert (source / manifest["hooks"]).resolve() == hooks.resolve()


# Every harness whose client takes an extension from the repository, and its hooks file.
EXTENSIONS = [
    (h, hooks) for h in SUPPORTED if (hooks := adapter_for(h).extension_hooks_file) is not None
]


def test_the_clients_that_take_an_extension() -> None:
    assert [h for h, _rel in EXTENSIONS] == ["claude-code", "codex", "gemini-cli"]


@pytest.mark.parametrize(("harness", "rel"), EXTENSIONS)
def test_one_handler_per_event_every_tool_never_fail_closed(harness: str, rel: str) -> None:
    spec = spec_for(harness)
    hooks = committed(rel)["hooks"]
    assert list(hooks) == spec.native_events()
    for native, groups in hooks.items():
        [group] = groups
        [handler] = group["hooks"]
        assert handler["timeout"] == written(harness, native)
        command = handler["command"]
        # (`--plugin`: the hook knows a settings install may answer the same event)
        assert f"exec style-hook --harness {harness} --event {native} --plugin;" in command
        # fail-closed would make every folder of the machine a project (hook.py nothing_to_do)
        assert "--fail-closed" not in command and "onFailure" not in handler
        point = spec.spec_of(native)
        if point is not None and point.matcher == "tool":
            assert group["matcher"] == ("*" if spec.matcher_style == "list" else ".*")
        else:
            assert "matcher" not in group


def plugin_command(native: str, harness: str = "claude-code") -> str:
    rel = str(adapter_for(harness).extension_hooks_file)
    [group] = committed(rel)["hooks"][native]
    command = group["hooks"][0]["command"]
    assert isinstance(command, str)
    return command


def run_plugin_hook(
    cwd: Path, home: Path, native: str, payload: dict[str, Any], env: dict[str, str] | None = None
) -> HookResult:
    """The plugin's handler run as Claude Code runs it: `sh -c COMMAND`, the session's folder
    as cwd and CLAUDE_PROJECT_DIR, the payload on stdin."""
    proc = subprocess.Popen(
        ["/bin/sh", "-c", plugin_command(native)],
        cwd=cwd,
        env=clean_env(home, {"CLAUDE_PROJECT_DIR": str(cwd), **(env or {})}),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    return finish(proc, encode(payload))


def payload(fixture: str, cwd: Path, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / fixture).read_text("utf-8"))
    data.update(cwd=str(cwd), **overrides)
    return data


def test_plugin_hook_guards_a_lock_only_project(project: Project) -> None:
    """A teammate's clone: `style.lock.yaml` and its package, no `.style/`, no settings."""
    project.write_package(RM, "policy")
    project.install("policy", "--harness", "claude-code")
    shutil.rmtree(project.root / ".claude")
    shutil.rmtree(project.style)
    rm = {"tool_name": "Bash", "tool_input": {"command": "rm victim.txt"}}
    result = run_plugin_hook(
        project.root,
        project.home,
        "PreToolUse",
        payload("PreToolUse.bash-rm-rf.json", project.root, **rm),
    )
    result.check_clean()
    answer = result.json or {}
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny", result
    assert "PLUGIN-BLOCK" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert project.database.is_file(), "the first hook did not build the database from the lock"
    assert not (project.root / ".claude").exists()


def test_plugin_hook_does_nothing_where_there_is_no_project(tmp_path: Path) -> None:
    folder, home = tmp_path / "plain", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    for native, fixture in (
        ("SessionStart", "SessionStart.startup.json"),
        ("PreToolUse", "PreToolUse.bash-rm-rf.json"),
        ("Stop", "Stop.json"),
    ):
        result = run_plugin_hook(folder, home, native, payload(fixture, folder))
        result.check_clean()
        assert (result.stdout, result.code) == ("", 0), (native, result)
    assert sorted(os.listdir(folder)) == []
    assert not (home / ".style").exists()


def test_plugin_hook_without_style_installed_says_what_to_install(tmp_path: Path) -> None:
    folder, home = tmp_path / "proj", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    bare = {"PATH": "/usr/bin:/bin"}  # no style-hook on it
    assert shutil.which("style-hook", path=bare["PATH"]) is None
    result = run_plugin_hook(
        folder, home, "PreToolUse", payload("PreToolUse.bash-rm-rf.json", folder), env=bare
    )
    result.check_clean()
    assert result.code == 0
    assert (result.json or {}).get("systemMessage") == MISSING


def test_gemini_hooks_refuse_to_run_outside_gemini_cli(tmp_path: Path) -> None:
    """`claude --plugin-dir <repository root>` reads the root `hooks/hooks.json` (the Gemini CLI
    extension's) as Claude Code hooks: there they say which folder is the plugin instead."""
    folder, home = tmp_path / "plain", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    for env, expected in (
        ({}, ("", gemini_cli.NOT_HERE, 1)),
        ({"GEMINI_PROJECT_DIR": str(folder)}, ("", "", 0)),  # no project: nothing to say
    ):
        proc = subprocess.Popen(
            ["/bin/sh", "-c", plugin_command("SessionStart", "gemini-cli")],
            cwd=folder,
            env=clean_env(home, env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        result = finish(proc, encode(payload("SessionStart.startup.json", folder)))
        assert (result.stdout, result.stderr.strip(), result.code) == expected


BRIEF = package_text(
    "house",
    no_rm("PLUGIN-BLOCK no rm here"),
    """
- id: brief
  target: event
  event: prompt.submitted
  text: PLUGIN-BRIEF the project brief
""",
    description="no rm, and a brief per prompt",
)


@pytest.mark.parametrize("plugin_first", [True, False], ids=["plugin-first", "settings-first"])
def test_a_plugin_beside_a_settings_install_answers_each_event_once(
    project: Project, plugin_first: bool
) -> None:
    """The plugin's handler and the settings install's both fire for every event: the first
    to run evaluates and records; the second repeats a refusal and gives no second context.
    The plugin's handler marks it on its first event, where install did not see the plugin."""
    project.write_package(BRIEF, "policy")
    project.install("policy", "--harness", "claude-code")
    assert not (project.style / "answer-once").exists()  # no plugin enabled at install
    session = "plugin-beside-settings"

    def both(native: str, data: dict[str, Any]) -> list[HookResult]:
        def by_plugin() -> HookResult:
            return run_plugin_hook(project.root, project.home, native, data)

        def by_settings() -> HookResult:
            return project.run_installed(native, data)

        order = (by_plugin, by_settings) if plugin_first else (by_settings, by_plugin)
        return [run() for run in order]

    start = payload("SessionStart.startup.json", project.root, session_id=session)
    both("SessionStart", start)
    prompt = payload("UserPromptSubmit.json", project.root, session_id=session, prompt="go on")
    briefs = [r.context or "" for r in both("UserPromptSubmit", prompt)]
    rm = payload(
        "PreToolUse.bash-rm-rf.json",
        project.root,
        session_id=session,
        tool_use_id="toolu_plugin_1",
        tool_input={"command": "rm victim.txt"},
    )
    refusals = both("PreToolUse", rm)
    assert (project.style / "answer-once").read_text() == "plugin\n"
    for result in refusals:  # whichever comes second repeats the refusal: it stands
        result.check_clean()
        assert (result.json or {})["hookSpecificOutput"]["permissionDecision"] == "deny"
    # From the plugin's first event on: once per event. Before it, with the plugin second,
    # the settings handler had already answered the session start unmarked.
    counted = project.query(
        "SELECT native_event, count(*) FROM events WHERE session_id = ? GROUP BY 1 ORDER BY 1",
        [session],
    )
    assert dict(counted)["PreToolUse"] == 1
    assert dict(counted)["UserPromptSubmit"] == 1
    assert sum("PLUGIN-BRIEF" in b for b in briefs) == 1, briefs


def test_install_marks_answer_once_where_the_plugin_is_enabled(project: Project) -> None:
    """Installed after the plugin was enabled: install sees it and marks the project, so even
    the first event is answered once."""
    from tests.support.plugin import install_plugin

    install_plugin(project.home)
    project.write_package(RM, "policy")
    project.install("policy", "--harness", "claude-code")
    assert (project.style / "answer-once").read_text() == "plugin\n"
