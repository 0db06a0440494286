"""Help pages: `-h` and `--help` on every command, readable metavars, no Typer type
placeholders (`<bool>`, `<list[str]>`), help for every option, the width of the terminal.

`style --help` and `style install --help` are golden files (tests/golden/cli/), read by eye
when written: `UPDATE_GOLDEN=1 pytest tests/test_cli_help.py`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import typer.main

from agentstyle.cli.app import app
from tests.support.cli import Run, style, style_in_process, style_many, style_on_a_terminal
from tests.support.environment import WIDTH

GOLDEN = Path(__file__).resolve().parent / "golden" / "cli"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
PLACEHOLDER = re.compile(r"<[\w|\[\], .]+>")
ANSI = re.compile(r"\x1b\[")


def command_paths() -> list[tuple[tuple[str, ...], Any]]:
    """Every group and command of `style`, with its Click object."""
    found: list[tuple[tuple[str, ...], Any]] = []

    def walk(path: tuple[str, ...], command: Any) -> None:
        found.append((path, command))
        for name, sub in getattr(command, "commands", {}).items():
            walk((*path, name), sub)

    walk((), typer.main.get_command(app))
    return found


PATHS = [path for path, _ in command_paths()]
IDS = [" ".join(p) or "style" for p in PATHS]


# `--help` is the same option as `-h`: compared on a group, a command, a subgroup's command
LONG = [(), ("install",), ("audit",), ("audit", "sql")]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], Run]:
    """`style PATH -h` of every command, by the command line's own code in this process (the
    terminal width and colour settings of `support.cli.style`; NO_COLOR empty is unset). The
    `--help` pages below are real processes, and `test_help_is_h` finds them the same."""
    cwd = tmp_path_factory.mktemp("help")
    env = {"COLUMNS": WIDTH, "NO_COLOR": ""}
    found = {}
    for path in PATHS:
        done = style_in_process(cwd, cwd, *path, "-h", env=env)
        found[path] = Run((*path, "-h"), done.returncode, done.stdout, done.stderr)
    return found


@pytest.fixture(scope="module")
def long_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], Run]:
    cwd = tmp_path_factory.mktemp("help")
    return dict(zip(LONG, style_many([(*p, "--help") for p in LONG], cwd=cwd), strict=True))


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_every_command_has_h(path: tuple[str, ...], pages: dict[tuple[str, ...], Run]) -> None:
    page = pages[path]
    assert page.code == 0 and page.stderr == "", page
    assert page.stdout.startswith(f"usage: {' '.join(('style', *path))} ")
    assert not PLACEHOLDER.search(page.stdout), PLACEHOLDER.findall(page.stdout)
    assert not ANSI.search(page.stdout)
    assert max(len(line) for line in page.stdout.splitlines()) <= 80
    assert "\n  -h, --help  " in page.stdout


@pytest.mark.parametrize("path", LONG, ids=[" ".join(p) or "style" for p in LONG])
def test_help_is_h(
    path: tuple[str, ...],
    pages: dict[tuple[str, ...], Run],
    long_pages: dict[tuple[str, ...], Run],
) -> None:
    assert long_pages[path].code == 0
    assert long_pages[path].stdout == pages[path].stdout


def rows(page: str, section: str) -> dict[str, str]:
    """The rows of a section of a help page: names (and metavar) → the help beside them."""
    found: dict[str, str] = {}
    lines = page.split(f"\n{section}:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    left = ""
    for line in lines:
        if not line.startswith("   "):  # a new row: names, two spaces, the help
            left, _, text = line.strip().partition("  ")
            found[left] = text.strip()
        else:  # the help continued, or below names too long for the column
            found[left] = f"{found[left]} {line.strip()}".strip()
    return found


@pytest.mark.parametrize(("path", "command"), command_paths(), ids=IDS)
def test_every_option_has_a_metavar_and_help(
    path: tuple[str, ...], command: Any, pages: dict[tuple[str, ...], Run]
) -> None:
    page = pages[path].stdout
    shown = {**rows(page, "options")}
    if any(p.param_type_name == "argument" for p in command.params):
        shown.update(rows(page, "arguments"))
    for left, text in shown.items():
        words = re.sub(r"\[[^]]*\]$", "", text).strip()  # the help, not just [default: x]
        assert words, f"style {' '.join(path)}: `{left}` has no help"
    for param in command.params:
        takes_value = param.param_type_name == "argument" or not (
            param.is_flag or getattr(param, "count", False)
        )
        if param.param_type_name == "argument":
            assert param.metavar in shown, (param.metavar, shown)
        else:
            assert any(max(param.opts, key=len) in left for left in shown), (param.opts, shown)
        if takes_value:  # a value named by its role, in capitals: PKG, HARNESS, NAME=VALUE
            assert param.metavar and param.metavar == param.metavar.upper(), param.metavar
        if takes_value and param.param_type_name == "option":
            assert any(
                left.endswith(f"{max(param.opts, key=len)} {param.metavar}") for left in shown
            )


def golden(name: str, run: Run) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(run.stdout, encoding="utf-8")
    assert path.is_file(), f"no golden file {path}; run with UPDATE_GOLDEN=1 and read it"
    assert run.stdout == path.read_text("utf-8")


def test_style_help_golden(long_pages: dict[tuple[str, ...], Run]) -> None:
    golden("style.help.txt", long_pages[()])


def test_install_help_golden(long_pages: dict[tuple[str, ...], Run]) -> None:
    golden("style-install.help.txt", long_pages[("install",)])


def test_the_page_follows_the_terminal_width(tmp_path: Path) -> None:
    narrow = style("install", "--help", cwd=tmp_path, env={"COLUMNS": "60"})
    wide = style("install", "--help", cwd=tmp_path, env={"COLUMNS": "200"})
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 60
    # wider terminals keep lines of a readable length
    assert 60 < max(len(line) for line in wide.stdout.splitlines()) <= 80
    assert narrow.stdout.split() == wide.stdout.split()  # the same words, wrapped otherwise


def test_a_bare_group_is_a_usage_error_showing_its_help(tmp_path: Path) -> None:
    run = style("engine", cwd=tmp_path)
    assert run.code == 2 and run.stdout == ""
    assert run.stderr.startswith("usage: style engine [OPTIONS] COMMAND [ARGS]...\n")
    assert "  status  " in run.stderr


def test_help_on_a_terminal_has_no_colour(tmp_path: Path) -> None:
    code, screen = style_on_a_terminal("install", "--help", cwd=tmp_path, home=tmp_path)
    assert code == 0 and "usage: style install" in screen
    assert not ANSI.search(screen)


def test_version(tmp_path: Path) -> None:
    from agentstyle import __version__

    run = style("--version", cwd=tmp_path)
    assert (run.code, run.stdout, run.stderr) == (0, f"style {__version__}\n", "")
