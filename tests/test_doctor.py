"""`style doctor`: the installation checked end to end, each broken install one line, exit 1.

A project with the cross package installed for all four harnesses is healthy: every harness's
exact installed command answers a synthetic event of that harness correctly and in time. Then
each kind of breakage is made for real (an interpreter that moved, a config edited by hand, a
database that cannot be read) and doctor must name it in one `error:` line and exit 1.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from tests.support.environment import BIN
from tests.support.harness import HARNESSES, HarnessProject, cross_project, saved_cross_install
from tests.support.packages import package_text
from tests.support.project import Saved


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Saved:
    """The cross package installed for every harness once; each test breaks its own copy."""
    return saved_cross_install(tmp_path_factory, "doctor", *HARNESSES)


@pytest.fixture
def project(installed: Saved) -> HarnessProject:
    return installed.project(HarnessProject)


def errors(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("error:")]


def the_one_error(p: HarnessProject) -> str:
    """`style doctor` fails, and says so in exactly one error line: that line."""
    proc = p.cli("doctor")
    assert proc.returncode == 1
    [line] = errors(proc.stdout)
    return line


def test_a_healthy_install_answers_everywhere(project: HarnessProject) -> None:
    proc = project.cli("doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert errors(proc.stdout) == []
    fired = re.findall(
        r"^ok: ([a-z-]+): ([\w.]+): the installed command answered in (\d+) ms", proc.stdout, re.M
    )
    assert {h for h, _e, _ms in fired} == set(HARNESSES)
    assert ("codex", "PreToolUse") in {(h, e) for h, e, _ms in fired}
    assert ("cursor", "sessionStart") in {(h, e) for h, e, _ms in fired}
    # The synthetic events leave no trace in the history the audits read.
    assert project.scalar("SELECT count(*) FROM events WHERE session_id LIKE 'style-doctor-%'") == 0
    assert (
        project.scalar("SELECT count(*) FROM sessions WHERE session_id LIKE 'style-doctor-%'") == 0
    )


def test_json_report(project: HarnessProject) -> None:
    proc = project.cli("doctor", "--format", "json")
    doc = json.loads(proc.stdout)
    assert {f["level"] for f in doc} == {"ok"}
    assert {f["harness"] for f in doc} == set(HARNESSES)


def test_style_hook_missing_from_path_is_one_line_per_harness(project: HarnessProject) -> None:
    """The committed configs run `style-hook` from PATH; a PATH without it is named, with
    what to install (the harness itself would show the "not installed" line)."""
    path = ":".join(p for p in os.environ.get("PATH", "").split(":") if p and p != BIN)
    proc = project.cli("doctor", env={"PATH": path})
    assert proc.returncode == 1
    lines = errors(proc.stdout)
    assert len(lines) == len(HARNESSES)
    codex = next(line for line in lines if line.startswith("error: codex:"))
    assert codex.startswith("error: codex: 6 handler(s) in .codex/hooks.json run `style-hook`")
    assert "pipx install agentstyle" in codex and BIN in codex


def installed_locally(tmp_path: Path) -> tuple[HarnessProject, Path, str]:
    """The cross package installed for Claude Code in the personal (local) scope: the project,
    its config, and the `style-hook` program the config runs."""
    p = cross_project(tmp_path)
    assert p.cli("install", "xh", "--harness", "claude-code", "--scope", "local").returncode == 0
    config = p.root / ".claude" / "settings.local.json"
    doc = json.loads(config.read_text("utf-8"))
    program: str = doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"].split('"')[1]
    return p, config, program


def test_an_interpreter_that_moved_is_one_line(tmp_path: Path) -> None:
    """A personal-scope config keeps the absolute path of this environment's `style-hook`; when
    the environment moves, one line."""
    p, config, program = installed_locally(tmp_path)
    text = config.read_text("utf-8")
    assert program == str(Path(sys.executable).parent / "style-hook")
    config.write_text(text.replace(program, "/gone/venv/bin/style-hook"), encoding="utf-8")
    line = the_one_error(p)
    assert line.startswith("error: claude-code: ")
    assert "/gone/venv/bin/style-hook, which is missing (STYLE's environment moved?)" in line


def test_the_same_program_spelled_otherwise_is_not_a_change(tmp_path: Path) -> None:
    """A personal scope's `style-hook` written by another path to the same environment's folder
    is the same program."""
    p, config, program = installed_locally(tmp_path)
    text = config.read_text("utf-8")
    bin_folder = Path(program).parent
    other = f"{bin_folder}/../{bin_folder.name}/style-hook"
    assert Path(other).resolve() == Path(program).resolve()
    config.write_text(text.replace(program, other), encoding="utf-8")
    proc = p.cli("doctor")
    assert proc.returncode == 0, proc.stdout


def test_matcher_names_in_another_order_are_not_a_change(project: HarnessProject) -> None:
    config = project.config("claude-code")
    doc = json.loads(config.read_text("utf-8"))
    group = doc["hooks"]["PreToolUse"][0]
    group["matcher"] = "|".join(reversed(group["matcher"].split("|")))
    config.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    proc = project.cli("doctor")
    assert proc.returncode == 0, proc.stdout


def test_a_config_edited_by_hand_is_one_line(project: HarnessProject) -> None:
    config = project.config("claude-code")
    doc = json.loads(config.read_text("utf-8"))
    doc["hooks"]["PreToolUse"][0]["matcher"] = "Bash"  # the file gate no longer runs
    del doc["hooks"]["Stop"]
    config.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    broken = project.config("gemini-cli")
    broken.write_text('{"hooks": ', encoding="utf-8")
    proc = project.cli("doctor")
    assert proc.returncode == 1
    assert errors(proc.stdout) == [
        "error: claude-code: .claude/settings.json differs from what STYLE installed "
        "(PreToolUse handler changed; Stop handler missing: edited by hand?); run `style sync`",
        "error: gemini-cli: .gemini/settings.json is not valid JSON at line 1, column 11 "
        "(edited by hand?); fix it, then run `style sync`",
    ]


def test_hooks_switched_off_in_gemini_is_one_line(project: HarnessProject) -> None:
    config = project.config("gemini-cli")
    config.write_text(
        config.read_text("utf-8").replace('"enableHooks": true', '"enableHooks": false'),
        encoding="utf-8",
    )
    [line] = errors(project.cli("doctor").stdout)
    assert "the hooks system is off (tools.enableHooks is not true)" in line


def test_a_missing_config_is_one_line(project: HarnessProject) -> None:
    project.config("cursor").unlink()
    proc = project.cli("doctor")
    assert errors(proc.stdout) == ["error: cursor: .cursor/hooks.json is missing; run `style sync`"]


def test_an_unreadable_database_is_one_line(project: HarnessProject) -> None:
    project.database.write_bytes(b"this is not a DuckDB file\n" * 100)
    line = the_one_error(project)
    assert line.startswith("error: the rules database .style/style.duckdb ")
    assert "move it away (its history goes with it) and run `style sync`" in line


def test_rules_that_can_never_fire_are_listed(tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    pkg = p.write_package(
        package_text(
            "odd",
            """
- id: gemini-only
  when:
    harness: [gemini-cli]
  text: Hello Gemini.
- id: everywhere
  text: Hello.
""",
            description="one rule for Gemini only, one for Claude Code",
            version="0.1.0",
        )
    )
    assert p.cli("install", pkg.name, "--harness", "claude-code").returncode == 0
    proc = p.cli("doctor")
    assert proc.returncode == 0
    assert (
        "warning: rule odd/gemini-only can never fire: claude-code skipped "
        "(when.harness excludes claude-code)"
    ) in proc.stdout.splitlines()
    assert "odd/everywhere" not in proc.stdout


def test_nothing_installed(tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    proc = p.cli("doctor")
    assert proc.returncode == 1
    assert proc.stdout == "error: nothing installed here: no harness in style.lock.yaml\n"
