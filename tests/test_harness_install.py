"""`style install` / `uninstall` for Codex, Cursor and Gemini CLI, end to end.

Each harness's own config, with the user's own entries in it: install merges STYLE's handlers in
the harness's layout (Codex: groups, fixed 10 s timeout; Cursor: flat, `version: 1`; Gemini CLI:
groups, millisecond timeouts, `tools.enableHooks`), a second install changes nothing, and
uninstall gives back the user's bytes exactly. Static rules go to the harness's instruction file.

The commands are about the files they write and what they say: their real code runs in the test
process (`HarnessProject.cli`); the hooks they install run as the harness runs them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentstyle.harnesses.install import is_style_command
from agentstyle.install.hookcommand import hook_command
from tests.support.harness import CONFIG, DATA, HARNESSES, HarnessProject, config_doc, cross_project
from tests.support.packages import package_text

CONFIGS = DATA / "configs"
PYTHON = Path(sys.executable).absolute().as_posix()
INSTALL_DATA = Path(__file__).resolve().parent / "data" / "install"

# (harness, user config file) → the user's config before install
CASES = [
    ("codex", "codex.hooks.json"),
    ("codex", "codex.crlf-tabs.json"),
    ("codex", None),
    ("cursor", "cursor.hooks.json"),
    ("cursor", "cursor.no-version.json"),
    ("cursor", None),
    ("gemini-cli", "gemini.settings.json"),
    ("gemini-cli", "gemini.disabled.json"),
    ("gemini-cli", "gemini.empty.json"),
    ("gemini-cli", "gemini.empty-tools.json"),
    ("gemini-cli", None),
    ("claude-code", "claude.settings.json"),
    ("claude-code", None),
    ("copilot-cli", "copilot.hooks.json"),
    ("copilot-cli", "copilot.pascal-no-version.json"),
    ("copilot-cli", None),
    ("qwen-code", "qwen.settings.json"),
    ("qwen-code", "qwen.no-version.json"),
    ("qwen-code", None),
    ("opencode", None),
]


def command(harness: str, event: str, *extra: str) -> str:
    """The portable command a project-scope install writes (its text: test_hook_fixtures)."""
    return hook_command(harness, event, "--fail-closed" in extra, "project")


@pytest.fixture
def project(tmp_path: Path) -> HarnessProject:
    return cross_project(tmp_path)


def _ours(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for entry in entries:
        handlers = entry.get("hooks", [entry])
        if any(is_style_command(h["command"]) for h in handlers):
            out.append(entry)
    return out


def test_every_harness_has_its_install_cases() -> None:
    """A harness added to SUPPORTED fails here until CASES installs into its config, with
    none there before (`None`) and the user's own."""
    for harness in HARNESSES:
        users = [user for h, user in CASES if h == harness]
        assert None in users, f"add {harness}'s configs to CASES"
        if CONFIG[harness].endswith(".js"):
            continue  # a plugin file STYLE writes whole holds nothing of the user's (below)
        assert len(users) > 1, f"add {harness}'s configs to CASES"


@pytest.mark.parametrize(("harness", "user"), CASES)
def test_install_twice_then_uninstall_gives_the_users_bytes_back(
    project: HarnessProject, harness: str, user: str | None
) -> None:
    config = project.config(harness)
    original = (CONFIGS / user).read_bytes() if user else None
    if original is not None:
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_bytes(original)
    first = project.cli("install", "xh", "--harness", harness)
    assert first.returncode == 0, first.stderr
    assert f"wrote {CONFIG[harness]}" in first.stdout
    installed = config.read_bytes()
    doc = config_doc(harness, installed.decode("utf-8"))
    if original is not None:
        user_doc = json.loads(original)
        for key, value in user_doc.items():
            if key not in ("hooks", "tools", "version"):
                assert doc[key] == value  # every other key of the user's stays
        for event, entries in (user_doc.get("hooks") or {}).items():
            assert doc["hooks"][event][: len(entries)] == entries  # theirs first, unchanged
    second = project.cli("install", "xh", "--harness", harness)
    assert second.returncode == 0 and "wrote" not in second.stdout
    assert config.read_bytes() == installed
    gone = project.cli("uninstall", "--harness", harness)
    assert gone.returncode == 0, gone.stderr
    if original is None:
        assert not config.exists() and not config.parent.exists()
    else:
        assert config.read_bytes() == original


def _install(
    project: HarnessProject, harness: str, events: list[str]
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """xh installed for `harness`: the install's run and the config it wrote, which must hold a
    handler entry for exactly `events` (sorted)."""
    proc = project.cli("install", "xh", "--harness", harness)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(project.config(harness).read_text("utf-8"))
    assert sorted(doc["hooks"]) == events
    return proc, doc


def test_codex_handlers_have_the_budgets_timeout_and_a_trust_note(
    project: HarnessProject,
) -> None:
    events = ["PostToolUse", "PreCompact", "PreToolUse", "SessionStart", "Stop", "UserPromptSubmit"]
    proc, doc = _install(project, "codex", events)
    assert "note: Codex runs new or changed hooks only after they are trusted" in proc.stderr
    hooks = doc["hooks"]
    for event, [group] in hooks.items():
        assert group["hooks"] == [
            {"type": "command", "command": command("codex", event), "timeout": 4}
        ]
    # Codex matchers are unanchored regexes: anchored here.
    assert hooks["PreToolUse"][0]["matcher"] == "^(Bash|apply_patch)$"
    assert hooks["PostToolUse"][0]["matcher"] == "^(apply_patch)$"
    assert "matcher" not in hooks["SessionStart"][0]  # the session clock sees every source
    again = project.cli("install", "xh", "--harness", "codex")
    assert "trusted" not in again.stderr  # nothing changed: nothing to trust again


def test_cursor_is_flat_versioned_and_routes_shell_calls(project: HarnessProject) -> None:
    events = [
        "beforeShellExecution",
        "beforeSubmitPrompt",
        "postToolUse",
        "preToolUse",
        "sessionStart",
        "stop",
    ]
    _, doc = _install(project, "cursor", events)
    assert doc["version"] == 1
    hooks = doc["hooks"]
    for event, [handler] in hooks.items():
        assert handler["command"] == command("cursor", event)
        assert handler["timeout"] == 4  # seconds: a little above the hook's 2 s budget
    # One gate per tool class: shell calls at beforeShellExecution (no matcher: it would filter
    # the command text), file writes at preToolUse.
    assert "matcher" not in hooks["beforeShellExecution"][0]
    assert hooks["preToolUse"][0]["matcher"] == "Edit|StrReplace|Delete|Write"


def test_gemini_counts_milliseconds_and_turns_hooks_on(project: HarnessProject) -> None:
    config = project.config("gemini-cli")
    config.parent.mkdir(parents=True)
    config.write_bytes((CONFIGS / "gemini.disabled.json").read_bytes())
    project.cli("install", "xh", "--harness", "gemini-cli")
    doc = json.loads(config.read_text("utf-8"))
    assert doc["tools"] == {"enableHooks": True}
    assert doc["general"] == {"vimMode": True}
    for event, groups in doc["hooks"].items():
        [group] = groups
        assert group["hooks"] == [
            {
                "type": "command",
                "command": command("gemini-cli", event),
                "name": "style",
                "timeout": 4000,
            }
        ]
    lock = project.root / "style.lock.yaml"
    assert ".gemini/settings.json#=tools.enableHooks=false" in lock.read_text("utf-8")
    project.cli("uninstall", "--harness", "gemini-cli")
    assert json.loads(config.read_text("utf-8"))["tools"] == {"enableHooks": False}


def test_fail_closed_is_a_cursor_switch_and_only_a_note_elsewhere(project: HarnessProject) -> None:
    cursor = project.cli("install", "xh", "--harness", "cursor", "--fail-closed")
    hooks = json.loads(project.config("cursor").read_text("utf-8"))["hooks"]
    assert hooks["beforeShellExecution"] == [
        {
            "command": command("cursor", "beforeShellExecution", "--fail-closed"),
            "timeout": 4,
            "failClosed": True,
        }
    ]
    assert "failClosed" not in hooks["stop"][0]  # only the gates
    assert "note:" not in cursor.stderr
    for harness in ("codex", "gemini-cli"):
        proc = project.cli("install", "xh", "--harness", harness, "--fail-closed")
        assert "have no fail-closed switch" in proc.stderr, harness
        doc = json.loads(project.config(harness).read_text("utf-8"))
        [gate] = _ours(doc["hooks"]["PreToolUse" if harness == "codex" else "BeforeTool"])
        [handler] = gate["hooks"]
        assert " --fail-closed; " in handler["command"]
        assert "onFailure" not in handler and "failClosed" not in handler


def test_fail_closed_refusal_is_a_deny_the_harness_honours(project: HarnessProject) -> None:
    """A handler error under --fail-closed: Codex and Gemini get their deny JSON with exit 0
    (any other exit lets the call run there), Claude Code exit 1 for onFailure."""
    for harness in ("codex", "gemini-cli", "cursor"):
        project.cli("install", "xh", "--harness", harness, "--fail-closed")
    (project.style / "style.duckdb").write_bytes(b"not a database")
    expected = {
        "codex": ("PreToolUse", "codex", "PreToolUse.bash-rm-rf.json"),
        "gemini-cli": ("BeforeTool", "gemini-cli", "BeforeTool.run_shell_command-rm-rf.json"),
        "cursor": ("beforeShellExecution", "cursor", "beforeShellExecution.rm-rf.json"),
    }
    for harness, (event, _h, fixture) in expected.items():
        result = project.run_installed_as(harness, event, project.fixture(harness, fixture))
        assert result.code == 0, harness
        doc = result.json or {}
        text = json.dumps(doc)
        assert "installed to refuse when it cannot check (--fail-closed" in text, (harness, doc)
        assert "refused (--fail-closed)" in result.stderr


def test_static_rules_go_to_each_harness_instruction_file(tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    shutil.copytree(INSTALL_DATA / "static-only", p.root / "static-only")
    block = (
        "<!-- style:begin static-only/tone -->\n"
        "Answer in short sentences.\n"
        "<!-- style:end static-only/tone -->\n"
    )
    files = {"codex": "AGENTS.md", "gemini-cli": "GEMINI.md", "cursor": ".cursor/rules/style.mdc"}
    for harness, name in files.items():
        proc = p.cli("install", "static-only", "--harness", harness)
        assert proc.returncode == 0, proc.stderr
        assert "1 static" in proc.stdout
        text = (p.root / name).read_text("utf-8")
        if harness == "cursor":
            assert text.startswith("---\n") and "\nalwaysApply: true\n---\n" in text
            assert text.endswith(block)
        else:
            assert text == block
    for harness, name in files.items():
        p.cli("uninstall", "--harness", harness)
        assert not (p.root / name).exists(), name
    assert not (p.root / ".cursor").exists()


def test_instruction_file_text_outside_the_markers_is_kept(tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    shutil.copytree(INSTALL_DATA / "static-only", p.root / "static-only")
    mine = "# Agents\n\nUse the Makefile.\n"
    (p.root / "AGENTS.md").write_text(mine, encoding="utf-8")
    p.cli("install", "static-only", "--harness", "codex")
    assert (p.root / "AGENTS.md").read_text("utf-8").startswith(mine)
    p.cli("uninstall", "--harness", "codex")
    assert (p.root / "AGENTS.md").read_text("utf-8") == mine


def test_a_config_that_is_not_json_is_refused_and_untouched(project: HarnessProject) -> None:
    for harness in HARNESSES:
        config = project.config(harness)
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('{"hooks": {,}}\n', encoding="utf-8")
        proc = project.cli("install", "xh", "--harness", harness)
        assert proc.returncode == 1
        assert f"refusing to touch {config}" in proc.stderr
        assert config.read_text("utf-8") == '{"hooks": {,}}\n'


def test_scopes_each_harness_has(project: HarnessProject) -> None:
    proc = project.cli("install", "xh", "--harness", "codex", "--scope", "local")
    assert proc.returncode == 2  # a usage error: the two options do not go together
    assert "codex has no `local` scope (use: project, user)" in proc.stderr
    user = project.cli("install", "xh", "--harness", "gemini-cli", "--scope", "user")
    assert user.returncode == 0, user.stderr
    assert (project.home / ".gemini" / "settings.json").is_file()


def test_requires_harnesses_refuses_an_older_client(tmp_path: Path) -> None:
    """`requires.harnesses` against the client's `--version` (a fake codex on PATH)."""
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    pkg = p.write_package(
        package_text(
            "needs-new",
            """
- id: brief
  text: Hello.
""",
            description="needs codex 0.145",
            version="0.1.0",
            head="""
requires:
  harnesses:
    codex: ">=0.145.0"
""",
        )
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "codex"
    fake.write_text("#!/bin/sh\necho 'codex-cli 0.120.0'\n", encoding="utf-8")
    fake.chmod(0o755)
    path = f"{bin_dir}:/usr/bin:/bin"
    old = p.cli("install", pkg.name, "--harness", "codex", env={"PATH": path})
    assert old.returncode == 1
    assert (
        "needs-new/brief: install-error on codex at session.start: harness-too-old: codex "
        "0.120.0 is not >=0.145.0" in old.stderr
    )
    fake.write_text("#!/bin/sh\necho 'codex-cli 0.150.2'\n", encoding="utf-8")
    new = p.cli("install", pkg.name, "--harness", "codex", env={"PATH": path})
    assert new.returncode == 0, new.stderr


def test_every_harness_config_is_one_compact_valid_document(project: HarnessProject) -> None:
    for harness in HARNESSES:
        project.cli("install", "xh", "--harness", harness)
        config_doc(harness, project.config(harness).read_text("utf-8"))


def test_sync_reinstalls_every_harness_after_a_package_edit(project: HarnessProject) -> None:
    for harness in ("codex", "cursor", "gemini-cli"):
        assert project.cli("install", "xh", "--harness", harness).returncode == 0
    manifest = project.root / "xh" / "STYLE.yaml"
    text = manifest.read_text("utf-8")
    start = text.index("  - id: clippy-after-edit")
    end = text.index("  - id: tests-before-done")
    manifest.write_text(text[:start] + text[end:], encoding="utf-8")  # no tool.post rule left
    proc = project.cli("sync")
    assert proc.returncode == 0, proc.stderr
    assert "PostToolUse" not in json.loads(project.config("codex").read_text("utf-8"))["hooks"]
    cursor_hooks = json.loads(project.config("cursor").read_text("utf-8"))["hooks"]
    assert "postToolUse" in cursor_hooks  # the warn degraded to postToolUse still runs there
    gemini_hooks = json.loads(project.config("gemini-cli").read_text("utf-8"))["hooks"]
    assert "AfterTool" not in gemini_hooks


@pytest.mark.parametrize("user", ["gemini.comments.json", "gemini.comments-crlf.json"])
def test_gemini_settings_with_comments_come_back_byte_for_byte(
    project: HarnessProject, user: str
) -> None:
    """Gemini CLI reads `settings.json` with its comments: install keeps every one, and
    uninstall gives the file back exactly."""
    from tests.support.jsondocs import comment_texts, gemini_reads

    config = project.config("gemini-cli")
    config.parent.mkdir(parents=True)
    original = (CONFIGS / user).read_bytes()
    config.write_bytes(original)
    first = project.cli("install", "xh", "--harness", "gemini-cli")
    assert first.returncode == 0, first.stderr
    installed = config.read_bytes()
    text, before = installed.decode("utf-8"), original.decode("utf-8")
    assert comment_texts(text) == comment_texts(before)
    newline = "\r\n" if "\r\n" in before else "\n"
    assert text.count("\n") == text.count(newline)  # the file's own line ends throughout
    read, theirs = gemini_reads(text), gemini_reads(before)  # what Gemini CLI itself loads
    assert read["theme"] == theirs["theme"] and read["docs"] == theirs["docs"]
    assert read["tools"] == {**theirs["tools"], "enableHooks": True}
    [lint] = theirs["hooks"]["BeforeTool"]
    assert read["hooks"]["BeforeTool"][0] == lint
    assert {h["command"] for g in read["hooks"]["BeforeTool"][1:] for h in g["hooks"]} == {
        command("gemini-cli", "BeforeTool")
    }
    assert set(read["hooks"]) > {"BeforeTool", "SessionStart"}
    doctor = project.cli("doctor")
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "ok: gemini-cli: BeforeTool: the installed command answered" in doctor.stdout
    again = project.cli("install", "xh", "--harness", "gemini-cli")
    assert again.returncode == 0 and "wrote" not in again.stdout
    assert config.read_bytes() == installed
    gone = project.cli("uninstall", "--harness", "gemini-cli")
    assert gone.returncode == 0, gone.stderr
    assert config.read_bytes() == original


def test_where_the_client_refuses_comments_install_refuses_them(
    project: HarnessProject,
) -> None:
    """Codex reads `hooks.json` as strict JSON (and skips the whole file if it cannot): a
    commented one is refused, named with its position, and left untouched."""
    config = project.config("codex")
    config.parent.mkdir(parents=True)
    text = '{\n  "hooks": {\n    // mine\n  }\n}\n'
    config.write_text(text, encoding="utf-8")
    proc = project.cli("install", "xh", "--harness", "codex")
    assert proc.returncode == 1
    [line] = proc.stderr.strip().splitlines()
    assert line == (
        f"style: refusing to touch {config}: invalid JSON: comments are not allowed in a file "
        "codex reads as strict JSON (line 3, column 5); fix the file and retry"
    )
    assert config.read_text("utf-8") == text
