"""`style install`, `uninstall`, `sync` end to end: real files, `python -m agentstyle` subprocesses.

Each test works in a scratch project under tmp_path with its own HOME, so nothing reaches the
developer's own Claude Code settings.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.locking import FileLock
from agentstyle.evaluator.paths import StylePaths
from agentstyle.harnesses.install import is_style_command
from agentstyle.install.filechanges import relative
from agentstyle.install.hookcommand import hook_command, quoted
from agentstyle.install.install import _created, engine_free_store, install, uninstall
from agentstyle.install.lockfile import HarnessInstall
from tests.support.cli import style_in_process
from tests.support.environment import clean_env

DATA = Path(__file__).resolve().parent / "data" / "install"
PYTHON = Path(sys.executable).absolute().as_posix()
SETTINGS_VARIANTS = sorted(p.name for p in (DATA / "settings").glob("*.json"))


def command_for(event: str, *extra: str) -> str:
    """The portable command a project-scope install writes (its text: test_hook_fixtures)."""
    return hook_command("claude-code", event, "--fail-closed" in extra, "project")


class Scratch:
    """A project folder, a home folder and the `style` command run in the project."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path / "proj"
        self.home = tmp_path / "home"
        self.bin = tmp_path / "bin"  # first on PATH: where a fake `claude` goes
        for folder in (self.root, self.home, self.bin):
            folder.mkdir()

    def package(self, name: str) -> str:
        shutil.copytree(DATA / name, self.root / name)
        return name

    def env(self) -> dict[str, str]:
        # a fake `claude` first, then STYLE's scripts as an installed STYLE puts them on PATH
        path = os.pathsep.join([str(self.bin), str(Path(sys.executable).parent)])
        return clean_env(self.home, {"PATH": path})

    def style(self, *args: str, code: int | None = 0) -> subprocess.CompletedProcess[str]:
        # install is about the files it writes and what it says: its real code runs in this
        # process, with this environment (the hooks it writes run as subprocesses)
        proc = style_in_process(self.root, self.home, *args, env=self.env())
        assert "Traceback" not in proc.stderr, proc.stderr
        if code is not None:
            assert proc.returncode == code, f"{args}\n{proc.stdout}\n{proc.stderr}"
        return proc

    def fake_claude(self, version: str) -> None:
        script = self.bin / "claude"
        script.write_text(f'#!/bin/sh\necho "{version} (Claude Code)"\n', encoding="utf-8")
        script.chmod(0o755)

    @property
    def settings(self) -> Path:
        return self.root / ".claude" / "settings.json"

    def lock(self) -> dict[str, Any]:
        doc = yaml.safe_load((self.root / "style.lock.yaml").read_text("utf-8"))
        assert isinstance(doc, dict)
        return doc

    def snapshot(self) -> dict[str, bytes]:
        """Every file of the project except STYLE's own folder."""
        return {
            p.relative_to(self.root).as_posix(): p.read_bytes()
            for p in sorted(self.root.rglob("*"))
            if p.is_file() and ".style" not in p.relative_to(self.root).parts
        }


@pytest.fixture
def scratch(tmp_path: Path) -> Scratch:
    return Scratch(tmp_path)


def hooks_of(path: Path) -> dict[str, list[dict[str, Any]]]:
    hooks = json.loads(path.read_text("utf-8"))["hooks"]
    assert isinstance(hooks, dict)
    return hooks


def ours(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [g for g in groups if any(is_style_command(h["command"]) for h in g["hooks"])]


def test_install_twice_then_uninstall_gives_the_users_bytes_back(scratch: Scratch) -> None:
    original = (DATA / "settings" / "pretty4.json").read_bytes()
    claude_md = (DATA / "CLAUDE.md").read_bytes()
    scratch.settings.parent.mkdir()
    scratch.settings.write_bytes(original)
    (scratch.root / "CLAUDE.md").write_bytes(claude_md)
    pkg = scratch.package("guards")

    first = scratch.style("install", pkg, "--set", "team=core")
    assert "wrote .claude/settings.json" in first.stdout
    installed = scratch.settings.read_bytes()
    user = json.loads(original)
    now = json.loads(installed)
    # Every key and hook of the user's is still there, unchanged.
    for key, value in user.items():
        if key != "hooks":
            assert now[key] == value
    for event, groups in user.get("hooks", {}).items():
        assert now["hooks"][event][: len(groups)] == groups
    # The package's shell guard, plus the tools self-protection watches
    # (docs/design/cli.md#self-protection).
    assert ours(now["hooks"]["PreToolUse"]) == [
        {
            "matcher": "Bash|PowerShell|Edit|MultiEdit|Write|NotebookEdit",
            "hooks": [{"type": "command", "command": command_for("PreToolUse"), "timeout": 4}],
        }
    ]
    assert {"matcher": "Write", "hooks": [{"type": "command", "command": "echo formatted"}]} in (
        now["hooks"]["PostToolUse"]
    )
    placed = (scratch.root / "CLAUDE.md").read_bytes()
    assert placed.startswith(claude_md)
    assert b"<!-- style:begin guards/house -->\nTeam core writes a test for every fix.\n" in placed

    backups = sorted((scratch.root / ".style" / "backups").iterdir())
    assert sorted(b.read_bytes() for b in backups) == sorted([original, claude_md])

    again = scratch.style("install", pkg)  # the lock file remembers --set team=core
    assert "wrote" not in again.stdout
    assert scratch.settings.read_bytes() == installed
    assert (scratch.root / "CLAUDE.md").read_bytes() == placed

    scratch.style("uninstall")
    assert scratch.settings.read_bytes() == original
    assert (scratch.root / "CLAUDE.md").read_bytes() == claude_md
    assert not (scratch.root / "style.lock.yaml").exists()
    assert len(list((scratch.root / ".style" / "backups").iterdir())) == 4


@pytest.mark.parametrize("variant", SETTINGS_VARIANTS)
def test_every_formatting_survives_a_round_trip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    """The same round trip through the library, over each settings file's own formatting."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("STYLE_HOME", raising=False)
    root = tmp_path / "proj"
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = (DATA / "settings" / variant).read_bytes()
    settings.write_bytes(original)
    shutil.copytree(DATA / "guards", root / "guards")
    monkeypatch.chdir(root)
    first = install(root, ["guards"], "claude-code", sets=["team=core"])
    assert first.ok and first.changes
    installed = settings.read_bytes()
    assert installed != original
    hooks = json.loads(installed)["hooks"]
    assert [g["matcher"] for g in ours(hooks["PostToolUse"])] == ["Edit|MultiEdit"]
    assert [g["matcher"] for g in ours(hooks["PreToolUse"])] == [
        "Bash|PowerShell|Edit|MultiEdit|Write|NotebookEdit"
    ]
    second = install(root, [], "claude-code")
    assert all(c.before == c.after for c in second.changes)
    assert settings.read_bytes() == installed
    uninstall(root, "claude-code")
    assert settings.read_bytes() == original
    assert not (root / "CLAUDE.md").exists()


def test_handlers_are_narrowed_and_run_the_absolute_interpreter(scratch: Scratch) -> None:
    scratch.package("guards")
    scratch.package("mcp")
    scratch.style("install", "mcp")
    hooks = hooks_of(scratch.settings)
    assert hooks["PostToolUse"] == [
        {
            "matcher": "^(mcp__github__.*)$",
            "hooks": [{"type": "command", "command": command_for("PostToolUse"), "timeout": 4}],
        }
    ]
    # The session clock runs on every session start and prompt: no matcher there.
    for event in ("SessionStart", "UserPromptSubmit"):
        assert hooks[event] == [
            {"hooks": [{"type": "command", "command": command_for(event), "timeout": 4}]}
        ]
    # Only self-protection (docs/design/cli.md#self-protection) gates tool calls here: shell and
    # file writes.
    assert [g.get("matcher") for g in hooks["PreToolUse"]] == [
        "Bash|PowerShell|Edit|MultiEdit|Write|NotebookEdit"
    ]

    scratch.style("install", "guards", "--set", "team=core")
    hooks = hooks_of(scratch.settings)
    assert [g.get("matcher") for g in hooks["PreToolUse"]] == [
        "Bash|PowerShell|Edit|MultiEdit|Write|NotebookEdit"
    ]
    assert [g.get("matcher") for g in hooks["PostToolUse"]] == [
        "^(Edit|MultiEdit|mcp__github__.*)$",
        "Write",  # the native hook, as the package wrote it
    ]
    for event, groups in hooks.items():
        for group in ours(groups):
            [handler] = group["hooks"]
            assert handler == {"type": "command", "command": command_for(event), "timeout": 4}
            # (seconds: a little above the hook's 2 s budget, docs/design/harnesses.md#timeouts)
            # a committed file: no path of this machine
            assert PYTHON not in handler["command"] and str(scratch.root) not in handler["command"]

    # The command as written is what the harness runs: it answers through the shell.
    payload = {
        "session_id": "s1",
        "cwd": str(scratch.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
    }
    [group] = hooks["PreToolUse"]
    proc = subprocess.run(
        ["/bin/sh", "-c", group["hooks"][0]["command"]],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=scratch.root,
        env=scratch.env(),
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert answer["permissionDecisionReason"] == "Do not run rm -rf."


def test_static_rule_goes_to_claude_md_only_and_leaves_with_its_files(scratch: Scratch) -> None:
    pkg = scratch.package("static-only")
    before = scratch.snapshot()
    scratch.style("install", pkg)
    assert (scratch.root / "CLAUDE.md").read_text("utf-8") == (
        "<!-- style:begin static-only/tone -->\n"
        "Answer in short sentences.\n"
        "<!-- style:end static-only/tone -->\n"
    )
    # A static rule needs no hook; self-protection (docs/design/cli.md#self-protection) still gates
    # the agent's tools.
    hooks = hooks_of(scratch.settings)
    hooked = ["ConfigChange", "PermissionDenied", "PreToolUse", "SessionStart", "UserPromptSubmit"]
    assert sorted(hooks) == hooked  # PermissionDenied: the audit reads it
    assert sorted(scratch.lock()["harnesses"]["claude-code"]["created"]) == [
        ".claude/",
        ".claude/settings.json",
        "CLAUDE.md",
    ]
    scratch.style("uninstall")
    assert scratch.snapshot() == before


def test_lock_file_names_created_files_relative_to_the_root(scratch: Scratch) -> None:
    pkg = scratch.package("guards")
    scratch.style("install", pkg, "--set", "team=core")
    lock = scratch.lock()
    [guards] = lock["packages"]
    assert guards["name"] == "guards" and guards["path"] == "guards"
    assert guards["digest"].startswith("sha256:") and len(guards["digest"]) == 7 + 64
    assert lock["harnesses"]["claude-code"] == {
        "scope": "project",
        "fail_closed": False,
        "created": [".claude/", ".claude/settings.json", "CLAUDE.md"],
        "native": ["echo formatted"],
    }
    digest = scratch.root / ".style" / "policy.digest"
    assert len(digest.read_text("utf-8").strip()) == 64  # handed to the resident engine
    scratch.style("uninstall")
    assert not digest.exists()
    assert not (scratch.root / ".claude").exists()
    assert not (scratch.root / "CLAUDE.md").exists()


def test_older_lock_files_with_absolute_created_paths_still_work(tmp_path: Path) -> None:
    old = HarnessInstall(created=[str(tmp_path / ".claude" / "settings.json"), "CLAUDE.md"])
    assert _created(tmp_path, old) == [".claude/settings.json", "CLAUDE.md"]
    assert relative(tmp_path, tmp_path / ".claude") == ".claude"
    assert relative(tmp_path, Path("/elsewhere/x.json")) == "/elsewhere/x.json"


def test_scopes_local_and_user(scratch: Scratch) -> None:
    pkg = scratch.package("mcp")
    scratch.style("install", pkg, "--scope", "local")
    local = scratch.root / ".claude" / "settings.local.json"
    assert ours(hooks_of(local)["PostToolUse"])
    assert not scratch.settings.exists()
    # Switching scope moves the handlers: none are left behind in the other file.
    scratch.style("install", "--scope", "project")
    assert ours(hooks_of(scratch.settings)["PostToolUse"])
    assert not local.exists()
    scratch.style("uninstall")
    assert not (scratch.root / ".claude").exists()
    shutil.rmtree(scratch.root / ".style")  # history and backups stay after uninstall

    scratch.style("install", pkg, "--scope", "user")
    user_settings = scratch.home / ".claude" / "settings.json"
    assert ours(hooks_of(user_settings)["PostToolUse"])
    assert (scratch.home / ".style" / "style.duckdb").is_file()
    assert not (scratch.root / ".claude").exists()
    assert not (scratch.root / ".style").exists()
    lock = yaml.safe_load((scratch.home / "style.lock.yaml").read_text("utf-8"))
    assert lock["harnesses"]["claude-code"]["scope"] == "user"
    assert lock["harnesses"]["claude-code"]["created"] == [".claude/", ".claude/settings.json"]
    # outside the home root: an absolute path (a user-scope lock is never committed)
    assert [p["path"] for p in lock["packages"]] == [(scratch.root / "mcp").as_posix()]
    # A personal scope runs this environment's `style-hook` by its absolute path (no PATH, and
    # no `runpy` start-up in every folder's every call), and the command as written answers.
    [group] = ours(hooks_of(user_settings)["PreToolUse"])
    command = group["hooks"][0]["command"]
    assert command.startswith(quoted(str(Path(PYTHON).parent / "style-hook")) + " --harness ")
    assert is_style_command(command)
    payload = {
        "session_id": "s-user",
        "cwd": str(scratch.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(scratch.home / ".style" / "style.duckdb"), "content": ""},
    }
    env = {**scratch.env(), "PATH": "/usr/bin:/bin"}  # not found through PATH
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=scratch.root,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    scratch.style("uninstall", "--scope", "user")
    assert not (scratch.home / ".claude").exists()
    assert not (scratch.home / "style.lock.yaml").exists()


def test_set_is_recorded_and_reused_by_sync(scratch: Scratch) -> None:
    pkg = scratch.package("guards")
    refused = scratch.style("install", pkg, code=1)
    assert "error setting-missing" in refused.stderr
    assert "--set team=VALUE" in refused.stderr
    assert scratch.snapshot() == {"guards/STYLE.yaml": (DATA / "guards/STYLE.yaml").read_bytes()}
    assert not (scratch.root / ".style").exists()

    unknown = scratch.style("install", pkg, "--set", "tema=core", code=1)
    assert unknown.stderr.strip().splitlines() == [
        "style: --set tema: no package being installed declares setting `tema`"
    ]

    scratch.style("install", pkg, "--set", "team=core")
    assert scratch.lock()["settings"] == {"guards": {"team": "core"}}
    manifest = scratch.root / "guards" / "STYLE.yaml"
    manifest.write_text(
        manifest.read_text("utf-8").replace("every fix", "every bug fix"), encoding="utf-8"
    )
    synced = scratch.style("sync")
    assert "wrote CLAUDE.md" in synced.stdout
    assert "Team core writes a test for every bug fix." in (scratch.root / "CLAUDE.md").read_text(
        "utf-8"
    )
    scratch.style("install", "--set", "guards.team=platform")
    assert scratch.lock()["settings"] == {"guards": {"team": "platform"}}


def test_dry_run_prints_the_diff_and_writes_nothing(scratch: Scratch) -> None:
    scratch.settings.parent.mkdir()
    shutil.copy(DATA / "settings" / "compact.json", scratch.settings)
    pkg = scratch.package("guards")
    before = scratch.snapshot()
    proc = scratch.style("install", pkg, "--set", "team=core", "--dry-run")
    assert "--- a/.claude/settings.json\n+++ b/.claude/settings.json\n" in proc.stdout
    assert json.dumps(command_for("PreToolUse")) in proc.stdout
    assert (
        "--- /dev/null\n+++ b/CLAUDE.md\n@@ -0,0 +1,3 @@\n+<!-- style:begin guards/house"
        in proc.stdout
    )
    assert "nothing written (--dry-run)" in proc.stdout
    assert scratch.snapshot() == before
    assert not (scratch.root / ".style").exists()


def test_invalid_settings_json_is_refused_and_left_alone(scratch: Scratch) -> None:
    scratch.settings.parent.mkdir()
    broken = b'{\n  "permissions": {"allow": ["Bash(ls)"],},\n}\n'
    scratch.settings.write_bytes(broken)
    pkg = scratch.package("mcp")
    proc = scratch.style("install", pkg, code=1)
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"style: refusing to touch {scratch.settings}: invalid JSON: ")
    assert "trailing comma" in line and "line 2" in line
    assert scratch.settings.read_bytes() == broken
    assert not (scratch.root / "style.lock.yaml").exists()


def test_fail_closed_needs_a_new_enough_client(scratch: Scratch) -> None:
    pkg = scratch.package("mcp")
    scratch.package("guards")
    scratch.fake_claude("2.1.200")
    old = scratch.style("install", pkg, "--fail-closed", code=1)
    assert old.stderr.strip().splitlines() == [
        "style: --fail-closed needs Claude Code 2.1.295+ (onFailure); "
        "`claude --version` says 2.1.200"
    ]
    assert not scratch.settings.exists()

    scratch.fake_claude("2.1.300")
    new = scratch.style("install", "guards", "--set", "team=a", "--fail-closed")
    assert "note:" not in new.stderr
    hooks = hooks_of(scratch.settings)
    [gate] = ours(hooks["PreToolUse"])
    assert gate["hooks"] == [
        {
            "type": "command",
            "command": command_for("PreToolUse", "--fail-closed"),
            "timeout": 4,
            "onFailure": "block",
        }
    ]
    # Only gate handlers: a failing SessionStart or PostToolUse handler refuses nothing.
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse"):
        for group in ours(hooks[event]):
            assert group["hooks"] == [
                {"type": "command", "command": command_for(event), "timeout": 4}
            ]
    assert scratch.lock()["harnesses"]["claude-code"]["fail_closed"] is True

    (scratch.bin / "claude").unlink()
    missing = scratch.style("sync")  # the lock file keeps --fail-closed
    assert "could not run `claude --version`" in missing.stderr
    assert ours(hooks_of(scratch.settings)["PreToolUse"])[0]["hooks"][0]["onFailure"] == "block"

    scratch.style("install", "--no-fail-closed")
    [gate] = ours(hooks_of(scratch.settings)["PreToolUse"])
    assert gate["hooks"] == [
        {"type": "command", "command": command_for("PreToolUse"), "timeout": 4}
    ]
    assert scratch.lock()["harnesses"]["claude-code"]["fail_closed"] is False


def test_a_package_with_an_install_error_is_refused(scratch: Scratch) -> None:
    pkg = scratch.package("unplaceable")
    before = scratch.snapshot()
    proc = scratch.style("install", pkg, code=1)
    assert (
        "unplaceable/confirm-prompt: install-error on claude-code at prompt.submitted: "
        "capability-missing" in proc.stderr
    )
    assert "install refused" in proc.stderr
    assert scratch.snapshot() == before
    assert not (scratch.root / ".style").exists()


def test_a_symlinked_settings_file_stays_a_link(scratch: Scratch) -> None:
    dotfiles = scratch.home / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    original = (DATA / "settings" / "pretty4.json").read_bytes()
    dotfiles.write_bytes(original)
    scratch.settings.parent.mkdir()
    scratch.settings.symlink_to(dotfiles)
    pkg = scratch.package("mcp")
    scratch.style("install", pkg)
    assert scratch.settings.is_symlink()
    assert ours(hooks_of(dotfiles)["PostToolUse"])
    scratch.style("uninstall")
    assert scratch.settings.is_symlink()
    assert dotfiles.read_bytes() == original


def test_install_waits_for_a_held_database_lock(tmp_path: Path) -> None:
    """A hook (or an engine) holding the lock delays the policy swap; it does not break it."""
    paths = StylePaths(tmp_path)
    release = threading.Event()

    def hold() -> None:
        with FileLock(paths.lock, time.monotonic() + 5):
            held.set()
            release.wait(5)

    held = threading.Event()
    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    threading.Timer(0.3, release.set).start()
    t0 = time.monotonic()
    with engine_free_store(paths, wait_s=10) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert time.monotonic() - t0 >= 0.25
    holder.join()
    # flock is per open file description: a second open in this process conflicts.
    with (
        pytest.raises(StyleError, match="stayed locked"),
        FileLock(paths.lock, time.monotonic() + 5),
        engine_free_store(paths, wait_s=0.2),
    ):
        pass


def test_a_personal_scope_without_the_script_beside_its_interpreter_runs_the_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An environment whose scripts are elsewhere (a `pip install --user` beside the system
    interpreter), or whose `style-hook` belongs to another interpreter: `python -m`."""
    bin_folder = tmp_path / "my env" / "bin"
    bin_folder.mkdir(parents=True)
    python = bin_folder / "python3"
    python.symlink_to(sys.executable)
    monkeypatch.setattr(sys, "executable", str(python))
    module_form = f"{quoted(str(python))} -m agentstyle.hook --harness claude-code --event Stop"
    assert hook_command("claude-code", "Stop", False, "user") == module_form
    script = bin_folder / "style-hook"
    script.write_text("#!/usr/bin/other-python\nimport sys\n", encoding="utf-8")
    script.chmod(0o755)
    assert hook_command("claude-code", "Stop", False, "user") == module_form
    script.write_text(f"#!{python}\nimport sys\n", encoding="utf-8")
    assert hook_command("claude-code", "Stop", True, "local") == (
        f"{quoted(str(script))} --harness claude-code --event Stop --fail-closed"
    )
    script.chmod(0o644)  # not runnable: the module again
    assert hook_command("claude-code", "Stop", False, "user") == module_form


@pytest.mark.parametrize("path", ["/opt/my env/bin/python", '/x/$HOME/`id`/"q"/back\\slash'])
def test_the_interpreter_path_is_quoted_for_the_shell(path: str) -> None:
    out = subprocess.run(
        ["/bin/sh", "-c", f"printf %s {quoted(path)}"], capture_output=True, text=True, check=True
    )
    assert out.stdout == path


def test_uninstall_one_package_keeps_the_others_in_step(scratch: Scratch) -> None:
    """`style uninstall PKG`: the package leaves the lock, the database and the handlers;
    the other package stays installed and guarding."""
    scratch.package("guards")
    scratch.style("install", "guards", "guard-destructive", "--set", "guards.team=core")
    lock = scratch.lock()
    assert [p.get("library") or p.get("path") for p in lock["packages"]] == [
        "guards",
        "guard-destructive",
    ]
    proc = scratch.style("uninstall", "guards")
    assert "took out guards" in proc.stdout
    lock = scratch.lock()
    assert [p.get("library") for p in lock["packages"]] == ["guard-destructive"]
    assert "guards" not in lock["settings"]
    rules = {r for (r,) in _query(scratch, "SELECT rule_id FROM rules")}
    assert not any(r.startswith("guards/") for r in rules)
    assert "guard-destructive/force-push-protected" in rules
    # its native hook and its PostToolUse handler went with it
    hooks = hooks_of(scratch.settings)
    assert "Write" not in [g.get("matcher") for g in hooks.get("PostToolUse", [])]
    # taking out the last one uninstalls everything
    scratch.style("uninstall", "guard-destructive")
    assert not (scratch.root / "style.lock.yaml").exists()
    assert not scratch.settings.exists()


def test_the_same_package_from_another_place_is_a_clear_refusal(scratch: Scratch) -> None:
    scratch.package("guards")
    scratch.style("install", "guards", "--set", "team=core")
    other = scratch.root / "vendor" / "guards"
    shutil.copytree(scratch.root / "guards", other)
    proc = scratch.style("install", "vendor/guards", code=1)
    assert proc.stderr.strip() == (
        "style: package `guards` is already installed from `guards`; to use the one at "
        "`vendor/guards` instead, run `style uninstall guards` first"
    )
    assert "dup-id" not in proc.stderr


def test_uninstall_of_a_package_not_installed_names_the_installed_ones(scratch: Scratch) -> None:
    scratch.package("guards")
    scratch.style("install", "guards", "--set", "team=core")
    proc = scratch.style("uninstall", "guard-secrets", code=1)
    assert proc.stderr.strip() == "style: `guard-secrets` is not installed here (installed: guards)"


def _query(scratch: Scratch, statement: str) -> list[tuple[Any, ...]]:
    import duckdb

    conn = duckdb.connect(str(scratch.root / ".style" / "style.duckdb"), read_only=True)
    try:
        return conn.execute(statement).fetchall()
    finally:
        conn.close()
