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
from cli_support import Run, style, style_many, style_on_a_terminal

from agentstyle.cli.app import app

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


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], tuple[Run, Run]]:
    """`style PATH -h` and `style PATH --help` of every command, run side by side."""
    cwd = tmp_path_factory.mktemp("help")
    runs = style_many([(*p, flag) for p in PATHS for flag in ("-h", "--help")], cwd=cwd)
    return {p: (runs[2 * i], runs[2 * i + 1]) for i, p in enumerate(PATHS)}


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_every_command_has_h_and_help(
    path: tuple[str, ...], pages: dict[tuple[str, ...], tuple[Run, Run]]
) -> None:
    short, long = pages[path]
    assert short.code == 0 and short.stderr == "", short
    assert short.stdout == long.stdout and long.code == 0
    assert short.stdout.startswith(f"usage: {' '.join(('style', *path))} ")
    assert not PLACEHOLDER.search(short.stdout), PLACEHOLDER.findall(short.stdout)
    assert not ANSI.search(short.stdout)
    assert max(len(line) for line in short.stdout.splitlines()) <= 80
    assert "  -h, --help  " in short.stdout or "  -h, --help\n" in short.stdout


@pytest.mark.parametrize(("path", "command"), command_paths(), ids=IDS)
def test_every_option_has_a_metavar_and_help(
    path: tuple[str, ...], command: Any, pages: dict[tuple[str, ...], tuple[Run, Run]]
) -> None:
    page = pages[path][0].stdout
    for param in command.params:
        names = param.opts if param.param_type_name == "option" else [param.metavar]
        assert param.help, f"style {' '.join(path)}: `{names[0]}` has no help"
        assert all(name and name in page for name in names), (names, page)
        takes_value = param.param_type_name == "argument" or not (
            param.is_flag or getattr(param, "count", False)
        )
        if takes_value:  # a value named by its role, written in capitals: PKG, HARNESS, K=V
            assert param.metavar and param.metavar == param.metavar.upper(), param.metavar
        if takes_value and param.param_type_name == "option":
            assert f"{max(param.opts, key=len)} {param.metavar}" in page


def golden(name: str, run: Run) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(run.stdout, encoding="utf-8")
    assert path.is_file(), f"no golden file {path}; run with UPDATE_GOLDEN=1 and read it"
    assert run.stdout == path.read_text("utf-8")


def test_style_help_golden(pages: dict[tuple[str, ...], tuple[Run, Run]]) -> None:
    golden("style.help.txt", pages[()][1])


def test_install_help_golden(pages: dict[tuple[str, ...], tuple[Run, Run]]) -> None:
    golden("style-install.help.txt", pages[("install",)][1])


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
