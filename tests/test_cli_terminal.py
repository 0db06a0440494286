"""What depends on the user's terminal: colour only on a terminal and without NO_COLOR, and
shell completion installed into the user's shell startup (a throwaway HOME here)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import style, style_on_a_terminal
from tests.support.environment import terminal_env

ESC = "\x1b["


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("colour")
    assert style("init", "pkg", cwd=root).code == 0
    assert style("install", "pkg", cwd=root).code == 0
    return root


def test_reports_are_coloured_on_a_terminal(project: Path) -> None:
    code, screen = style_on_a_terminal("audit", "summary", cwd=project, home=project)
    assert code == 0 and "audit summary" in screen
    assert f"{ESC}1maudit summary" in screen  # the title in bold


def test_no_colour_with_no_color(project: Path) -> None:
    code, screen = style_on_a_terminal(
        "audit", "summary", cwd=project, home=project, env={"NO_COLOR": "1"}
    )
    assert code == 0 and "audit summary" in screen
    assert ESC not in screen


def test_no_colour_into_a_pipe(project: Path) -> None:
    run = style("audit", "summary", cwd=project)
    assert run.code == 0 and "\naudit summary\n" in run.stdout  # after "needs attention"
    assert ESC not in run.stdout + run.stderr


def test_errors_have_no_colour_on_a_terminal(project: Path) -> None:
    code, screen = style_on_a_terminal("install", "--bogus", cwd=project, home=project)
    assert code == 2 and ESC not in screen


@pytest.mark.parametrize("no_color", ["", "1"])
def test_completion_install_is_coloured_only_without_no_color(
    tmp_path: Path, no_color: str
) -> None:
    env = {"NO_COLOR": no_color} if no_color else None
    code, screen = style_on_a_terminal(
        "--install-completion", cwd=tmp_path, home=tmp_path, env=env, bash=True
    )
    assert code == 0 and "bash completion installed in" in screen
    assert (ESC in screen) is (not no_color)


def in_bash(home: Path, *args: str, extra: dict[str, str] | None = None) -> str:
    """`style ARGS` started by bash, as from the user's shell (completion looks at its parent)."""
    command = " ".join(shlex.quote(a) for a in (sys.executable, "-m", "agentstyle", *args))
    proc = subprocess.run(
        ["bash", "-c", f"{command}; exit $?"],  # two commands: bash stays the parent
        cwd=home,
        env=terminal_env(home, extra),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "Traceback" not in proc.stderr
    return proc.stdout


def test_completion_installs_into_a_throwaway_home(tmp_path: Path) -> None:
    out = in_bash(tmp_path, "--install-completion")
    script = tmp_path / ".bash_completions" / "style.sh"
    assert f"bash completion installed in {script}" in out
    assert f"source '{script}'" in (tmp_path / ".bashrc").read_text("utf-8")
    text = script.read_text("utf-8")
    assert "_STYLE_COMPLETE=complete_bash" in text and "complete -o default -F" in text
    assert in_bash(tmp_path, "--show-completion").strip() == text.strip()


@pytest.mark.parametrize(
    ("words", "cword", "expected"),
    [
        ("style ins", 1, ["install"]),
        ("style install --harness c", 3, ["claude-code", "codex", "cursor", "copilot-cli"]),
        ("style audit --format p", 3, ["parquet"]),
        ("style install --d", 2, ["--dry-run"]),
    ],
)
def test_completion_completes(tmp_path: Path, words: str, cword: int, expected: list[str]) -> None:
    """What the installed script asks `style` for at each TAB, answered."""
    env = {"COMP_WORDS": words, "COMP_CWORD": str(cword), "_STYLE_COMPLETE": "complete_bash"}
    out = subprocess.run(
        [sys.executable, "-m", "agentstyle"],
        cwd=tmp_path,
        env=terminal_env(tmp_path, env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == expected
