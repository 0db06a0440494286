"""The red-team suite (docs/design/cli.md#self-protection): every chain an agent
used to switch STYLE off is refused at its first step, through the hook command `style install`
wrote, run as Claude Code runs it (`sh -c`, its JSON on stdin), in a real project with a package
holding a `fail: closed` rule. The cases are data (tests/data/redteam/chains.yaml); ordinary
work next to STYLE's files (reading them) is let through.

Then the `fail: closed` set: the database deleted or corrupted, the lock held by another
program, the engine stopped with SIGSTOP, an impostor on the engine's socket: each gated call
is still refused (how fast is a figure of bench/stall_bench.py, not an assert here).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import agentstyle
from agentstyle.runtime import client
from tests.support.engine import IMPOSTOR, wait_engine
from tests.support.environment import clean_env
from tests.support.hooks import HookResult, lock_held, new_session
from tests.support.packages import package_text
from tests.support.project import Project

CASES = yaml.safe_load(
    (Path(__file__).resolve().parent / "data" / "redteam" / "chains.yaml").read_text("utf-8")
)
# What each kind of refusal names (install/selfprotect.py TEXTS).
NAMES = {
    "hook-configs": "the harness configs (.claude/",
    "policy": "style.lock.yaml and the installed packages",
    "state": ".style/ and the engine",
    "code": "the installed agentstyle code",
    "commands": "`style allow`, install, sync, uninstall, audit prune",
    "folders": "a folder holding STYLE's hooks, policy or database",
}
YOURS = "The user can do it from their own terminal."
# The call the agent wanted through: refused by the package, `fail: closed`.
PACKAGE = package_text(
    "pkg",
    """
- id: no-reset-hard
  target: tool
  tool: shell
  action: block
  fail: closed
  when: 'tool.input.command shell_regex "^git reset --hard"'
  text: "STYLE no-reset-hard: keep the work tree; use git stash."
""",
    description="red-team target",
)
GATED = "git reset --hard HEAD~3"
ENGINE_ON = {"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "60"}


def case_id(case: dict[str, Any]) -> str:
    return str(case.get("shell") or "write " + case["write"])[:60]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """The red-team project. Its hooks hand their events to one resident engine, as a user's
    do: each chain is about the answer, not the direct path (the `fail: closed` set below
    breaks the guard itself, directly and through the engine)."""
    base = tmp_path_factory.mktemp("redteam")
    p = Project(base / "proj", base / "home")
    subprocess.run(["git", "init", "-q", str(p.root)], check=True)
    p.install(str(p.write_package(PACKAGE)))
    (p.root / "src").mkdir()
    (p.root / "src" / "main.rs").write_text("fn main() {}\n", "utf-8")
    assert "--fail-closed" in p.installed_command("PreToolUse")
    with p.engine():
        yield p


def payload(p: Project, case: dict[str, Any]) -> dict[str, Any]:
    cwd = (p.root / case["cwd"]).as_posix() if "cwd" in case else p.root.as_posix()
    if "shell" in case:
        return p.payload(
            "PreToolUse.bash-rm-rf.json",
            session_id=new_session(),
            cwd=cwd,
            tool_input={"command": case["shell"]},
        )
    path = str(case["write"])
    path = path.replace("$ROOT", p.root.as_posix())
    path = path.replace("$CODE", Path(agentstyle.__file__).parent.as_posix())
    if path.startswith("~/"):
        path = (p.home / path[2:]).as_posix()
    elif not path.startswith("/"):
        path = (p.root / path).as_posix()
    return p.payload(
        "PreToolUse.bash-rm-rf.json",
        session_id=new_session(),
        cwd=cwd,
        tool_name="Write",
        tool_input={"file_path": path, "content": "{}"},
    )


def refusal(result: HookResult) -> str | None:
    specific = (result.json or {}).get("hookSpecificOutput") or {}
    if specific.get("permissionDecision") == "deny":
        return str(specific["permissionDecisionReason"])
    return None


def setup(p: Project, case: dict[str, Any]) -> None:
    if "setup" not in case:
        return
    op, name, to = str(case["setup"]).split()
    assert op == "link"
    link = p.root / name
    if not link.is_symlink():
        link.symlink_to(to)


@pytest.mark.parametrize("case", CASES["chains"], ids=case_id)
def test_every_chain_is_refused_at_its_first_step(target: Project, case: dict[str, Any]) -> None:
    setup(target, case)
    result = target.run_installed("PreToolUse", payload(target, case))
    reason = refusal(result)
    assert reason is not None, (case, result.stdout, result.stderr)
    assert reason.startswith("STYLE self-protect: ") and YOURS in reason, reason
    assert NAMES[case["refused"]] in reason, (case, reason)


@pytest.mark.parametrize("command", CASES["harmless"])
def test_ordinary_work_next_to_styles_files_passes(target: Project, command: str) -> None:
    result = target.run_installed("PreToolUse", payload(target, {"shell": command}))
    assert refusal(result) is None, (command, result.stdout)


def test_reading_from_inside_a_guarded_folder_passes(target: Project) -> None:
    case = {"shell": "cat settings.json", "cwd": ".claude"}
    result = target.run_installed("PreToolUse", payload(target, case))
    assert refusal(result) is None, result.stdout


@pytest.mark.parametrize("path", CASES["harmless_writes"])
def test_ordinary_writes_pass(target: Project, path: str) -> None:
    result = target.run_installed("PreToolUse", payload(target, {"write": path}))
    assert refusal(result) is None, (path, result.stdout)


def test_the_chains_left_nothing_behind(target: Project) -> None:
    """The refused steps were only payloads: the guard still refuses the call it guards."""
    result = target.run_installed("PreToolUse", payload(target, {"shell": GATED}))
    assert refusal(result) == "STYLE no-reset-hard: keep the work tree; use git stash."


# ---------------------------------------------------------------------------------------------
# `fail: closed` holds when the guard itself is broken.


@pytest.fixture
def closed(project: Project) -> Iterator[Project]:
    project.install(str(project.write_package(PACKAGE)))
    yield project
    client.stop_engine(str(project.style), wait_s=5)


def gated(p: Project, session: str | None = None) -> dict[str, Any]:
    return p.payload(
        "PreToolUse.bash-rm-rf.json",
        session_id=session or new_session(),
        tool_input={"command": GATED},
    )


def test_a_deleted_database_refuses_and_says_so(closed: Project) -> None:
    session = new_session()
    assert refusal(closed.run_installed("PreToolUse", gated(closed, session))) is not None
    closed.database.unlink()  # `rm -f .style/style.duckdb`, done outside the guard
    result = closed.run_installed("PreToolUse", gated(closed, session))
    assert refusal(result) is not None, result.stdout
    assert "tampered" in str((result.json or {}).get("systemMessage")), result.stdout


def test_a_corrupted_database_refuses_and_says_so(closed: Project) -> None:
    session = new_session()
    assert refusal(closed.run_installed("PreToolUse", gated(closed, session))) is not None
    closed.database.write_bytes(os.urandom(64 << 10))  # `dd if=/dev/urandom of=…`
    result = closed.run_installed("PreToolUse", gated(closed, session))
    reason = refusal(result)
    assert reason is not None and "the call is refused because" in reason, result.stdout
    assert "damaged during this session" in str((result.json or {}).get("systemMessage"))


def test_a_lock_held_by_another_program_refuses(closed: Project) -> None:
    closed.run_installed("PreToolUse", gated(closed))
    with lock_held(closed.style / "style.lock", as_style=False):  # `flock … sleep 300 &`
        result = closed.run_installed("PreToolUse", gated(closed))
    reason = refusal(result)
    assert reason is not None and "the call is refused because" in reason, result.stdout


def test_a_lock_replaced_by_a_folder_refuses(closed: Project) -> None:
    closed.run_installed("PreToolUse", gated(closed))
    lock = closed.style / "style.lock"
    lock.unlink()
    lock.mkdir()
    try:
        result = closed.run_installed("PreToolUse", gated(closed))
    finally:
        lock.rmdir()
    assert refusal(result) is not None, result.stdout + result.stderr


def test_a_stopped_engine_refuses(closed: Project) -> None:
    closed.hook("PreToolUse", gated(closed), env=ENGINE_ON)
    pid = int(wait_engine(closed)["pid"])  # type: ignore[call-overload]
    os.kill(pid, signal.SIGSTOP)  # `kill -STOP <engine>`
    try:
        result = closed.hook("PreToolUse", gated(closed), env=ENGINE_ON, extra=("--fail-closed",))
        installed = closed.run_installed("PreToolUse", gated(closed))
    finally:
        os.kill(pid, signal.SIGCONT)
    assert refusal(result) is not None, result.stdout + result.stderr
    assert refusal(installed) is not None, installed.stdout + installed.stderr


def test_an_impostor_on_the_socket_is_not_believed(closed: Project) -> None:
    home = str(closed.style)
    closed.hook("PreToolUse", gated(closed), env=ENGINE_ON)
    wait_engine(closed)
    assert client.stop_engine(home, wait_s=10)
    fake = subprocess.Popen(
        [sys.executable, "-c", IMPOSTOR, client.socket_path(home)],
        stdout=subprocess.PIPE,
        text=True,
        env=clean_env(closed.home),
    )
    try:
        assert fake.stdout is not None and fake.stdout.readline().strip() == "ready"
        result = closed.hook("PreToolUse", gated(closed), env=ENGINE_ON)
    finally:
        fake.kill()
        fake.wait()
    assert refusal(result) == "STYLE no-reset-hard: keep the work tree; use git stash."


def test_the_folder_gone_is_rebuilt_and_reported(closed: Project) -> None:
    """`rm -rf .style` done outside the guard: the next gated event rebuilds the rules from
    style.lock.yaml, refuses, and tells the user."""
    session = new_session()
    closed.run_installed("PreToolUse", gated(closed, session))
    shutil.rmtree(closed.style)
    result = closed.run_installed("PreToolUse", gated(closed, session))
    assert refusal(result) is not None
    assert "tampered" in json.dumps(result.json)
