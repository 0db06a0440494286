"""Every bypass class of the shell analysis (docs/design/shell.md), as the element a guard's rule
sees (and the false blocks).

Each case is a command an agent could write to slip a refused call past a rule anchored at the
command name, and the normalized element the analysis must produce for it (or the dynamic
kind it must report): the tables are data, tests/data/cases/shell_bypass.yaml. The guard
packages' own corpus tests the verdicts; this file tests that the analysis gives them something
to match.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import agentstyle.shell as shell
from agentstyle.shell import MAX_ELEMENTS, parse_shell
from tests.support.cases import cases

FILE = "shell_bypass"


def _check(command: str, element: str, cwd: str | None = None) -> None:
    result = parse_shell(command, cwd)
    assert element in result.commands, result.commands


# -- anything the parser cannot take -----------------------------------------------------------


@cases(FILE, "parser", "command", "element")
def test_parser_takes_what_bash_runs(command: str, element: str) -> None:
    result = parse_shell(command)
    assert element in result.commands, result.commands
    assert not result.incomplete, result.issues


def test_nested_substitutions_at_any_depth() -> None:
    for depth in (200, 500):
        result = parse_shell("echo " + "$(" * depth + "rm -rf /" + ")" * depth)
        assert "rm -rf /" in result.commands
        assert result.incomplete  # past the parser's depth, the rest was split lexically


def test_bash_c_nested_deep() -> None:
    command = "git reset --hard"
    for _ in range(9):
        command = "bash -c " + "'" + command.replace("'", "'\\''") + "'"
    result = parse_shell(command)
    assert "git reset --hard" in result.commands
    assert not result.incomplete


def test_more_commands_than_the_limit_still_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    # the element cap is under test, not the time budget (a busy machine may spend its 2 s)
    monkeypatch.setattr(shell, "MAX_PARSE_SECONDS", 60.0)
    command = "\n".join(f"touch f{i}" for i in range(MAX_ELEMENTS + 10)) + "\nrm -rf /"
    result = parse_shell(command)
    assert "element-limit" in result.issues


# -- a redirection inside a command ------------------------------------------------------------


@cases(FILE, "redirections", "command", "element")
def test_redirections_are_removed_wherever_they_stand(command: str, element: str) -> None:
    _check(command, element)


# -- unwrapping --------------------------------------------------------------------------------


@cases(FILE, "wrappers", "command", "element")
def test_wrappers_are_peeled(command: str, element: str) -> None:
    _check(command, element)


# -- words -------------------------------------------------------------------------------------


@cases(FILE, "words", "command", "element")
def test_words_expand_as_bash_expands_them(command: str, element: str) -> None:
    _check(command, element)


# -- text that becomes code ----------------------------------------------------------------------


@cases(FILE, "code", "command", "element", "kind")
def test_text_that_becomes_code(command: str, element: str, kind: str) -> None:
    result = parse_shell(command)
    if element:
        assert element in result.commands, result.commands
    if kind:
        assert kind in result.dynamic, result.dynamic


# -- interpreters ------------------------------------------------------------------------------


@cases(FILE, "interpreters", "command", "element")
def test_interpreter_code_is_routed_into_commands(command: str, element: str) -> None:
    _check(command, element)


@pytest.fixture
def scripts(tmp_path: Path) -> str:
    """A folder of scripts the `scripts_run` commands run."""
    (tmp_path / "clean.py").write_text("import os\nos.system('rm -rf /')\n", "utf-8")
    (tmp_path / "deploy.sh").write_text("#!/bin/sh\ngit push -f origin main\n", "utf-8")
    (tmp_path / "tool.js").write_text(
        "const {execSync} = require('child_process');\nexecSync('git reset --hard');\n", "utf-8"
    )
    (tmp_path / "noext").write_text("#!/usr/bin/env python3\nimport os\nos.system('ls')\n")
    return str(tmp_path)


@cases(FILE, "scripts_run", "command", "element")
def test_scripts_the_command_runs_are_read_and_their_commands_routed(
    scripts: str, command: str, element: str
) -> None:
    result = parse_shell(command, scripts)
    assert element in result.commands, result.commands
    assert result.code


# -- code handed over in other ways: options, settings, files written first ----------------------


@cases(FILE, "handed_over", "command", "element")
def test_code_handed_over_by_options_settings_and_files(command: str, element: str) -> None:
    _check(command, element)


def test_decoded_code_is_flagged_even_when_its_text_is_known() -> None:
    result = parse_shell('bash -c "$(echo cm0gLXJmIC8= | base64 -d)"')
    assert "rm -rf /" in result.commands
    assert "decoded-code" in result.dynamic


# -- context: the working directory, find, xargs ---------------------------------------------------


@cases(FILE, "context", "command", "element", "cwd")
def test_context_is_followed(command: str, element: str, cwd: str | None) -> None:
    _check(command, element, cwd)


def test_an_absolute_cd_elsewhere_stays_absolute() -> None:
    """`cd /tmp && rm -rf build` names /tmp/build, scratch space, however the project sits."""
    for project in ("/home/dev/acme", "/tmp/w/acme"):
        commands = parse_shell("cd /tmp && rm -rf build", project).commands
        assert "rm -rf /tmp/build" in commands
        assert not any(".." in c for c in commands), commands


def test_subshell_cd_does_not_leak() -> None:
    result = parse_shell("(cd /) && rm -rf *", "/home/dev/acme")
    assert "rm -rf /*" not in result.commands


# -- git, secrets: the element the guards match ----------------------------------------------------


@cases(FILE, "git_and_secrets", "command", "element", "cwd")
def test_git_and_secret_forms_reach_the_guards(command: str, element: str, cwd: str | None) -> None:
    _check(command, element, cwd)


@pytest.fixture
def env_files(tmp_path: Path) -> str:
    """A project with a .env at its root and one in conf/."""
    (tmp_path / ".env").write_text("KEY=1\n")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / ".env.prod").write_text("KEY=2\n")
    return str(tmp_path)


@cases(FILE, "globs", "command", "element")
def test_globs_are_matched_against_the_project(env_files: str, command: str, element: str) -> None:
    _check(command, element, env_files)


def test_a_quoted_glob_or_one_outside_the_project_is_not_listed(env_files: str) -> None:
    assert parse_shell('cat ".e*"', env_files).commands == ("cat .e*",)  # quoted: no glob
    assert parse_shell("cat ../*", env_files).commands == ("cat ../*",)  # outside: not listed


# -- false blocks ----------------------------------------------------------------------------------


@cases(FILE, "false_blocks", "command", "element")
def test_false_blocks_stay_out(command: str, element: str) -> None:
    result = parse_shell(command)
    assert element not in result.commands, result.commands


def test_search_pattern_keeps_its_position() -> None:
    """`rg id_rsa docs/`: the pattern is the first operand, the path the second, as written."""
    assert parse_shell("rg id_rsa docs/").commands == ("rg id_rsa docs/",)
    assert parse_shell("grep -r KEY .").commands == ("grep -r KEY .",)
    # After a cd the path is resolved, the pattern is not.
    assert "rg id_rsa sub/docs/" in parse_shell("cd sub && rg id_rsa docs/").commands
