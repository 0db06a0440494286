"""STYLE as a Claude Code plugin (`claude --plugin-dir plugins/style`), in the real client: a
project that carries only a committed `style.lock.yaml` (no `.claude/settings.json`, no
`.style/`) is guarded, its rules database built from the lock on first use; a folder without a
lock costs nothing (docs/harnesses/claude-code.md#as-a-plugin)."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
import time

from e2e.clients import REPO, Session, binary
from e2e.mockapi import Say, Script
from e2e.scenarios import BLOCK_PACKAGE, assert_blocked, shell

PLUGIN_DIR = REPO / "plugins" / "style"
PLUGIN_ID = "style@agentstyle"
WARM_UP = "E2E-WARM-UP say hello"
BUILD_WAIT_S = 90.0


def plugin_args() -> list[str]:
    return ["--plugin-dir", str(PLUGIN_DIR)]


def plugin_runs(run_debug: str) -> int:
    """How many hook runs of the plugin's `style-hook` command the debug log records."""
    return run_debug.count("exec style-hook --harness claude-code")


def lock_only(s: Session) -> None:
    """A teammate's clone: the lock and the package it names committed, nothing else of STYLE."""
    policy = s.project / "policy"
    policy.mkdir()
    (policy / "STYLE.yaml").write_text(textwrap.dedent(BLOCK_PACKAGE).lstrip())
    s.style("install", "policy", "--harness", "claude-code")
    s.style("engine", "stop", check=False)
    shutil.rmtree(s.project / ".claude")
    shutil.rmtree(s.project / ".style")
    left = sorted(p.name for p in s.project.iterdir() if p.name != ".git")
    assert left == ["README.md", "policy", "style.lock.yaml", "victim.txt"], left


def script() -> Script:
    def warm_up(req):  # the first session only starts the first-use build
        return [Say("hello")] if WARM_UP in req.text and req.step == 0 else None

    return Script([[Say("Deleting it."), shell("claude-code", "rm victim.txt")]], pick=warm_up)


def test_plugin_guards_a_lock_only_project(session) -> None:
    s: Session = session("claude-code", script())
    lock_only(s)
    first = s.run(WARM_UP, extra=plugin_args())
    assert plugin_runs(first.debug) >= 1, "the plugin's hooks never ran"
    database = s.project / ".style" / "style.duckdb"
    deadline = time.monotonic() + BUILD_WAIT_S
    while not (database.exists() and not (s.project / ".style" / "building").exists()):
        assert time.monotonic() < deadline, "the first hook did not build the rules database"
        time.sleep(0.5)
    assert not (s.project / ".claude").exists(), "the plugin install edited the project"

    run = s.run("delete victim.txt", extra=plugin_args())
    assert_blocked(s)
    assert plugin_runs(run.debug) >= 2
    assert not (s.project / ".claude").exists()


def test_plugin_does_nothing_in_a_folder_without_a_lock(session) -> None:
    s: Session = session("claude-code", script())
    run = s.run("delete victim.txt", extra=plugin_args())
    assert not (s.project / "victim.txt").exists(), "the call did not run without a policy"
    assert not (s.project / ".style").exists(), "the plugin's hooks made a .style folder"
    assert plugin_runs(run.debug) >= 2, "the plugin's hooks never ran"
    # the hooks answered nothing: no hook error, no STYLE text anywhere the model reads
    assert "finished with status 0" in run.debug
    assert all("STYLE" not in r.text for r in s.requests()), "a STYLE answer reached the model"


def claude_plugin(s: Session, *args: str) -> str:
    """`claude plugin ARGS` of the pinned client, in the session's HOME and project."""
    done = subprocess.run(
        [str(binary("claude-code")), "plugin", *args],
        cwd=s.project,
        env={**s.env(), "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"claude plugin {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def test_marketplace_install_guards_and_doctor_sees_it(session) -> None:
    """`claude plugin marketplace add` + `claude plugin install style@agentstyle` (what
    `/plugin …` does in a session): no --plugin-dir, no settings hooks; `style doctor` reports
    the plugin, and warns once a settings install of STYLE runs beside it."""
    s: Session = session("claude-code", script())
    lock_only(s)
    claude_plugin(s, "marketplace", "add", str(REPO))
    claude_plugin(s, "install", PLUGIN_ID)
    settings = json.loads((s.home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {PLUGIN_ID: True}
    assert "hooks" not in settings and not (s.project / ".claude").exists()

    s.run(WARM_UP)
    database = s.project / ".style" / "style.duckdb"
    deadline = time.monotonic() + BUILD_WAIT_S
    while not (database.exists() and not (s.project / ".style" / "building").exists()):
        assert time.monotonic() < deadline, "the first hook did not build the rules database"
        time.sleep(0.5)
    s.run("delete victim.txt")
    assert_blocked(s)

    doctor = s.style("doctor", "--no-fire", check=False)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert f"ok: claude-code: STYLE plugin enabled ({PLUGIN_ID}, in ~/.claude/settings.json" in (
        doctor.stdout
    )
    assert "twice" not in doctor.stdout and ".claude/settings.json is missing" not in doctor.stdout

    s.style("install", "policy", "--harness", "claude-code")
    doctor = s.style("doctor", "--no-fire", check=False)
    assert "warning: claude-code: STYLE is installed twice here" in doctor.stdout, doctor.stdout

    claude_plugin(s, "disable", PLUGIN_ID)
    doctor = s.style("doctor", "--no-fire", check=False)
    assert "STYLE plugin enabled" not in doctor.stdout and "twice" not in doctor.stdout
