"""Settings in conditions: `--set` changes what a rule blocks, checked through real hooks.

The package (tests/data/settings-when/branch-guard) blocks force pushes to the branches of a
`list` setting, filled into a `shell_regex` at install. Each hook call is a subprocess against
the project's own database, as Claude Code would run it; `style install` and `sync` run their
own code in the test process (what they build is under test, not their process).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentstyle.diagnostics import render_text
from agentstyle.policy.compile import compile_policy, load_and_validate
from agentstyle.policy.rows import ConditionRow
from tests.support.cli import style_in_process
from tests.support.project import Project

DATA = Path(__file__).resolve().parent / "data" / "settings-when"
PUSH = "PreToolUse.bash-git-push-force.json"


def setup(project: Project) -> None:
    shutil.copytree(DATA / "branch-guard", project.root / "branch-guard")


def style(project: Project, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    proc = style_in_process(project.root, project.home, *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == code, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc


def push(project: Project, command: str) -> dict[str, Any]:
    """The answer of the installed PreToolUse hook to a Bash call running `command`."""
    payload = project.payload(PUSH, tool_input={"command": command})
    result = project.run_installed("PreToolUse", payload)
    return result.json or {}


def denied(answer: dict[str, Any]) -> bool:
    return (answer.get("hookSpecificOutput") or {}).get("permissionDecision") == "deny"


def test_set_changes_what_is_blocked(project: Project) -> None:
    setup(project)
    style(project, "install", "branch-guard", "--set", "protected_branches=trunk")
    trunk = push(project, "git push -f origin trunk")
    assert denied(trunk), trunk
    reason = trunk["hookSpecificOutput"]["permissionDecisionReason"]
    assert "protected branch (trunk)" in reason  # the same value reached the body
    assert not denied(push(project, "git push -f origin main"))
    assert not denied(push(project, "git push origin trunk"))  # not forced


def test_the_default_blocks_main_and_release_branches(project: Project) -> None:
    setup(project)
    style(project, "install", "branch-guard")
    for command in (
        "git push -f origin main",
        "git push --force origin master",
        "git push -f origin release/2.1",
        "cd repo && git push -f origin HEAD:main",
    ):
        assert denied(push(project, command)), command
    assert not denied(push(project, "git push -f origin trunk"))
    assert not denied(push(project, "git push -f origin my-feature"))


def test_sync_keeps_the_chosen_setting(project: Project) -> None:
    setup(project)
    style(project, "install", "branch-guard", "--set", "protected_branches=trunk,develop")
    lock = yaml.safe_load((project.root / "style.lock.yaml").read_text("utf-8"))
    assert lock["settings"] == {"branch-guard": {"protected_branches": "trunk,develop"}}
    (project.root / ".style" / "style.duckdb").unlink()  # sync rebuilds it from the lock
    style(project, "sync")
    assert denied(push(project, "git push -f origin trunk"))
    assert denied(push(project, "git push -f origin develop"))
    assert not denied(push(project, "git push -f origin main"))


def test_a_value_that_breaks_the_regex_stops_the_install(project: Project) -> None:
    """`[main` is no regex: install names the pattern, the value and the place, and writes
    nothing (no hook config, no database)."""
    setup(project)
    proc = style(project, "install", "branch-guard", "--set", "protected_branches=[main", code=1)
    lines = [line for line in proc.stdout.splitlines() + proc.stderr.splitlines() if line]
    [line] = [line for line in lines if "bad-pattern" in line]
    assert line.startswith("branch-guard/STYLE.yaml:24:87: error bad-pattern: regex `^git push")
    assert "(?:[main)" in line and "(with `settings.protected_branches` = `[main`)" in line
    assert "missing ]" in line
    assert not (project.root / ".claude" / "settings.json").exists()
    assert not (project.root / "style.lock.yaml").exists()


# -- what lowering fills in, operator by operator ----------------------------------------------

PACKAGE = """\
spec: style/v0.3
name: pkg
version: 1.0.0
description: settings in conditions
settings:
  - {name: branches, type: list, default: [main, "release/.*"]}
  - {name: dirs, type: list, default: [src, lib]}
  - {name: word, default: "a.b"}
  - {name: limit, type: int, default: 3}
  - {name: remote, type: pattern, default: "(origin|upstream) {{settings.branches}}"}
  - {name: push, type: pattern, default: "git push {{settings.remote}}"}
rules:
  - id: rx
    target: tool
    tool: shell
    when: 'tool.input.command regex "^git push origin {{settings.branches}}$"'
    text: x
  - id: composed
    target: tool
    tool: shell
    when: 'tool.input.command regex "^{{settings.push}}$"'
    text: x
  - id: literal-in-regex
    target: tool
    tool: shell
    when: 'tool.input.command regex r"^echo \\Q{{settings.word}}\\E \\Q{{settings.dirs}}\\E$"'
    text: x
  - id: glob
    target: tool
    tool: file.edit
    when: 'file.path glob "{{settings.dirs}}/**"'
    text: x
  - id: contains
    target: tool
    tool: shell
    when: 'tool.input.command contains "{{settings.word}}"'
    text: x
  - id: in-list
    target: tool
    tool: "*"
    when: 'tool.name in settings.dirs'
    text: x
  - id: number
    target: tool
    tool: shell
    when: 'state.tool_calls >= settings.limit'
    text: x
"""


def conditions(tmp_path: Path, chosen: dict[str, str] | None = None) -> dict[str, ConditionRow]:
    pkg = tmp_path / "pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "STYLE.yaml").write_text(PACKAGE, encoding="utf-8")
    compiled = compile_policy(load_and_validate([str(pkg)]), ["claude-code"], {"pkg": chosen or {}})
    assert compiled.ok, render_text(compiled.diagnostics)
    return {
        row.rule_id.split("/", 1)[1]: row for row in compiled.rows.conditions if row.kind == "pred"
    }


def _all_conditions(tmp_path: Path) -> list[ConditionRow]:
    compiled = compile_policy(load_and_validate([str(tmp_path / "pkg")]), ["claude-code"], {})
    return [row for row in compiled.rows.conditions if row.kind == "pred"]


def test_each_operator_gets_the_value_in_its_own_language(tmp_path: Path) -> None:
    rows = conditions(tmp_path)
    assert rows["rx"].pattern == rows["rx"].regex == "^git push origin (?:main|release/.*)$"
    # Inside RE2's \Q…\E the value is literal; a list becomes literal alternatives.
    assert rows["literal-in-regex"].regex == r"^echo \Qa.b\E \Q\E(?:\Qsrc\E|\Qlib\E)\Q\E$"
    # a glob holding a list setting is one predicate per item (each with its own literal)
    globs = [r for r in _all_conditions(tmp_path) if r.rule_id.endswith("/glob")]
    assert sorted(r.pattern for r in globs) == ["lib/**", "src/**"]
    assert all(r.regex is not None for r in globs)
    assert rows["contains"].pattern == "a.b"  # literal text, nothing escaped
    assert rows["in-list"].list_values == ["src", "lib"]
    assert rows["number"].num == 3.0


def test_a_pattern_setting_is_composed_of_others(tmp_path: Path) -> None:
    """A `pattern` setting names a fragment many conditions share; the settings it uses are
    filled in as a regex condition fills them, at install, whatever was chosen."""
    rows = conditions(tmp_path)
    assert rows["composed"].regex == ("^(?:git push (?:(origin|upstream) (?:main|release/.*)))$")
    rows = conditions(tmp_path, {"branches": "trunk"})
    assert rows["composed"].regex == "^(?:git push (?:(origin|upstream) (?:trunk)))$"
    rows = conditions(tmp_path, {"remote": "fork {{settings.branches}}"})
    assert rows["composed"].regex == "^(?:git push (?:fork (?:main|release/.*)))$"


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        (
            '{name: p, type: pattern, default: "a{{settings.nope}}"}',
            "pattern setting `p` uses undeclared setting `nope`",
        ),
        (
            '{name: p, type: pattern, default: "a{{settings.q}}"}\n'
            '  - {name: q, type: pattern, default: "b{{settings.p}}"}',
            "pattern setting `p` uses itself: p → q → p",
        ),
        ("{name: p, type: pattern, default: [a, b]}", "default of setting `p` must be a string"),
    ],
)
def test_a_pattern_setting_that_cannot_be_composed_is_an_error(
    tmp_path: Path, declared: str, message: str
) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    text = (
        "spec: style/v0.3\nname: pkg\nversion: 1.0.0\ndescription: x\n"
        f"settings:\n  - {declared}\nrules:\n  - id: r\n    target: tool\n    tool: shell\n"
        "    when: 'tool.input.command regex \"{{settings.p}}\"'\n    text: x\n"
    )
    (pkg / "STYLE.yaml").write_text(text, encoding="utf-8")
    diags = load_and_validate([str(pkg)]).diagnostics
    assert diags and diags[0].code == "invalid-schema", render_text(diags)
    assert diags[0].message.startswith(message), diags[0].message
    assert diags[0].span.line == 6  # at the setting


def test_chosen_values_replace_the_defaults(tmp_path: Path) -> None:
    rows = conditions(tmp_path, {"branches": "trunk", "dirs": "app", "limit": "10"})
    assert rows["rx"].regex == "^git push origin (?:trunk)$"
    assert rows["glob"].pattern == "app/**"
    assert rows["in-list"].list_values == ["app"]
    assert rows["number"].num == 10.0


def test_an_empty_list_matches_nothing(tmp_path: Path) -> None:
    rows = conditions(tmp_path, {"branches": ""})
    assert rows["rx"].regex == r"^git push origin (?:\b\B)$"
    assert rows["in-list"].list_values == ["src", "lib"]


@pytest.mark.parametrize(
    ("when", "message"),
    [
        (
            "'tool.input.command contains \"{{settings.dirs}}\"'",
            "list setting `dirs` can only be the whole value of `in` or part of a pattern, "
            "not a value of `contains`",
        ),
        (
            "'tool.input.command contains \"{{settings.push}}\"'",
            "pattern setting `push` can only go into a regex, not a value of `contains`",
        ),
        (
            "'tool.name in settings.word'",
            "operator `in` needs a list; setting `word` is a string (declare it `type: list`)",
        ),
        ("'state.turns > settings.word'", "operator `gt` needs a number; setting `word` is a"),
        (
            "'tool.input.command contains \"{{harness.cwd}}\"'",
            "`{{harness.cwd}}` is known only when the hook runs",
        ),
    ],
)
def test_a_setting_that_cannot_go_there_is_one_error(
    tmp_path: Path, when: str, message: str
) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    text = PACKAGE.split("rules:\n")[0] + (
        f"rules:\n  - id: bad\n    target: tool\n    tool: shell\n    when: {when}\n    text: x\n"
    )
    (pkg / "STYLE.yaml").write_text(text, encoding="utf-8")
    diags = load_and_validate([str(pkg)]).diagnostics
    assert [d.code for d in diags] == ["invalid-condition"], render_text(diags)
    assert diags[0].message.startswith(message), diags[0].message


def test_the_bundled_guard_blocks_the_branches_it_is_told(project: Project) -> None:
    """`guard-destructive` by name: `--set protected_branches=trunk` moves its force-push
    refusal from main to trunk; the default install refuses main."""
    style(project, "install", "guard-destructive", "--set", "protected_branches=trunk")
    assert denied(push(project, "git push -f origin trunk"))
    assert denied(push(project, "git -C . push --force origin HEAD:trunk"))
    assert not denied(push(project, "git push -f origin main"))
    assert not denied(push(project, "git push -f origin my-feature-fix"))
    style(project, "install", "guard-destructive", "--set", "protected_branches=main,trunk")
    assert denied(push(project, "git push -f origin main"))
    assert denied(push(project, "git push -f origin trunk"))
    assert not denied(push(project, "git push origin main"))  # not a force push
