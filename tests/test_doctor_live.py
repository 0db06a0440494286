"""`style doctor --live`: a canary through each installed tool gate, as the harness runs it.

Installed by the real `style install`; the canary is run by the real command through the hook
config as written (and as broken here by hand), `sh -c COMMAND` with the harness's payload.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentstyle.harnesses import adapter_for
from agentstyle.harnesses.facts import SUPPORTED, spec_for
from tests.support.cli import style_in_process
from tests.support.packages import no_rm, package_text
from tests.support.project import Project


def _shell_gate(harness: str) -> str:
    gate = spec_for(harness).route_of("tool.pre", "shell")
    assert gate is not None
    return gate.native_event


PACKAGE = package_text("live", no_rm("no rm here"), description="doctor --live scenario")
# Each harness's project config, and the native event that gates its shell calls.
CONFIG = {h: adapter_for(h).config_file for h in SUPPORTED}
GATE = {h: _shell_gate(h) for h in SUPPORTED}


def install(project: Project, harness: str) -> Project:
    project.write_package(PACKAGE)
    project.install("pkg", "--harness", harness)
    return project


def live(project: Project, *extra: str) -> tuple[int, list[dict[str, Any]]]:
    proc = style_in_process(
        project.root, project.home, "doctor", "--live", "--no-fire", "--format", "json", *extra
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, [f for f in json.loads(proc.stdout) if "live:" in f["message"]]


def edit_config(project: Project, harness: str, change: Any) -> None:
    path = project.root / CONFIG[harness]
    config = json.loads(path.read_text())
    change(config["hooks"])
    path.write_text(json.dumps(config, indent=2))


def style_handlers(hooks: dict[str, Any], event: str) -> list[dict[str, Any]]:
    out = []
    for group in hooks[event]:
        for h in group.get("hooks", [group]):
            if "style-hook" in h.get("command", ""):
                out.append(h)
    return out


@pytest.mark.parametrize("harness", SUPPORTED)
def test_every_installed_gate_refuses_the_canary(make_project: Any, harness: str) -> None:
    project = install(make_project(harness), harness)
    code, found = live(project)
    assert code == 0, found
    gates = [f for f in found if f"live: {GATE[harness]} " in f["message"]]
    assert gates and all(f["level"] == "ok" for f in found), found
    assert "refused the canary" in gates[0]["message"]
    assert "self-protect" in gates[0]["message"]
    # the call was never run, and the canary left nothing in the history
    assert not (project.style / "style-canary").exists()
    rows = project.query("SELECT count(*) FROM events WHERE session_id LIKE 'style-canary-%'")
    assert rows == [(0,)]


def test_a_matcher_that_leaves_the_shell_out(project: Project) -> None:
    install(project, "claude-code")

    def drop_bash(hooks: dict[str, Any]) -> None:
        for group in hooks["PreToolUse"]:
            group["matcher"] = "Edit|Write"

    edit_config(project, "claude-code", drop_bash)
    code, found = live(project)
    assert code == 1
    [gate] = found
    assert gate["level"] == "error"
    assert (
        "PreToolUse (Bash): no STYLE handler in .claude/settings.json has `Bash` in its matcher"
        in (gate["message"])
    )


def test_no_handler_for_the_gate(project: Project) -> None:
    install(project, "claude-code")
    edit_config(project, "claude-code", lambda hooks: hooks.pop("PreToolUse"))
    code, found = live(project)
    assert code == 1
    assert any(
        "PreToolUse (Bash): .claude/settings.json has no STYLE handler for it" in f["message"]
        for f in found
    ), found


@pytest.mark.parametrize(
    ("command", "said"),
    [
        # still STYLE's by its look, but answers allow whatever it is asked
        ("cat >/dev/null; echo '{}'; : style-hook --harness claude-code", "answered allow"),
        (
            "/nonexistent/bin/style-hook --harness claude-code --event PreToolUse",
            "command not found",
        ),
        ("sleep 30; : style-hook --harness claude-code", "timed out"),
        (
            "cat >/dev/null; echo 'hello'; echo '{}'; : style-hook --harness claude-code",
            "cannot read",
        ),
    ],
)
def test_a_gate_that_does_not_refuse(project: Project, command: str, said: str) -> None:
    install(project, "claude-code")

    def replace(hooks: dict[str, Any]) -> None:
        for h in style_handlers(hooks, "PreToolUse"):
            h["command"] = command
            h["timeout"] = 2

    edit_config(project, "claude-code", replace)
    code, found = live(project)
    assert code == 1
    [gate] = found
    assert gate["level"] == "error" and said in gate["message"], gate


def test_style_hook_not_on_path(project: Project, tmp_path: Path) -> None:
    install(project, "claude-code")
    # the portable handler finds no `style-hook`: it answers its not-installed notice
    proc = style_in_process(
        project.root,
        project.home,
        "doctor",
        "--live",
        "--no-fire",
        env={"PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 1
    assert "live: PreToolUse (Bash): command not found: the handler found no `style-hook`" in (
        proc.stdout
    ), proc.stdout


def test_without_self_protection_nothing_can_be_proven(project: Project) -> None:
    (project.root / "style.lock.yaml").parent.mkdir(parents=True, exist_ok=True)
    (project.root / "style.lock.yaml").write_text("protect: false\n")
    install(project, "claude-code")
    code, found = live(project)
    assert code == 1
    assert [f["level"] for f in found] == ["error"]
    assert "self-protection is off" in found[0]["message"]
