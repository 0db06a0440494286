"""Usage errors: every kind is one `style:` line on stderr, naming the problem and where to
read the command's help, exit 2, nothing on stdout, nothing done."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import Run, style_in_process, style_many
from tests.support.environment import WIDTH

HARNESSES = "claude-code, codex, cursor, gemini-cli, opencode"
# (what is wrong, the arguments, the one line on stderr)
CASES = [
    (
        "unknown option",
        ("install", "--bogus"),
        "style: no such option `--bogus` (see `style install --help`)",
    ),
    (
        "misspelt option",
        ("install", "--harnes", "codex"),
        "style: no such option `--harnes` (did you mean `--harness`?) (see `style install --help`)",
    ),
    (
        "unknown command",
        ("instal",),
        "style: no such command `instal` (did you mean `install`?) (see `style --help`)",
    ),
    (
        "unknown subcommand",
        ("engine", "bogus"),
        "style: no such command `bogus` (see `style engine --help`)",
    ),
    (
        "missing argument",
        ("import", "csv"),
        "style: missing argument `SRC...` (see `style import --help`)",
    ),
    (
        "missing option",
        ("import", "csv", "rules.csv"),
        "style: missing option `--into DIR` (see `style import --help`)",
    ),
    (
        "option without its value",
        ("validate", "--explain"),
        "style: option `--explain` needs a value",
    ),
    (
        "extra argument",
        ("init", "one", "two"),
        "style: unexpected argument `two` (see `style init --help`)",
    ),
    (
        "unknown harness",
        ("install", "--harness", "vim"),
        f"style: invalid value for `--harness`: `vim` is not one of {HARNESSES} "
        "(see `style install --help`)",
    ),
    (
        "unknown harness of a filter",
        ("audit", "--harness", "vscode"),
        f"style: invalid value for `--harness`: `vscode` is not one of {HARNESSES} "
        "(see `style audit --help`)",
    ),
    (
        "unknown scope",
        ("uninstall", "--scope", "global"),
        "style: invalid value for `--scope`: `global` is not one of project, local, user, "
        "managed (see `style uninstall --help`)",
    ),
    (
        "unknown format",
        ("doctor", "--format", "yaml"),
        "style: invalid value for `--format`: `yaml` is not one of text, json "
        "(see `style doctor --help`)",
    ),
    (
        "unknown import format",
        ("import", "xml", "a.xml", "--into", "pkg"),
        "style: invalid value for `FORMAT`: `xml` is not one of csv, tsv, jsonl, parquet, "
        "markdown, oh-my-pi, cursor, claude-permissions, hookify (see `style import --help`)",
    ),
    (
        "bad --set syntax",
        ("install", "--set", "strict"),
        "style: invalid value for `--set`: `strict` is not NAME=VALUE (see `style install --help`)",
    ),
    (
        "not a number",
        ("allow", "seven"),
        None,  # the number parser's words differ between Typer releases; the frame does not
    ),
    (
        "conflicting options",
        ("allow", "--last", "7"),
        "style: give --last, an EVENT_ID or a CODE, not both (see `style allow --help`)",
    ),
    (
        "a scope the harness lacks",
        ("install", "--harness", "cursor", "--scope", "local"),
        "style: cursor has no `local` scope (use: project, user, managed) (see `style install "
        "--help`)",
    ),
    (
        "bad date",
        ("audit", "--since", "yesterday"),
        "style: invalid value for `--since`: `yesterday` is neither a date (2024-05-01), a "
        "date-time nor a duration (7d, 12h) (see `style audit --help`)",
    ),
    (
        "impossible date",
        ("audit", "rules", "--until", "2024-13-45"),
        "style: invalid value for `--until`: `2024-13-45`: month must be in 1..12 "
        "(see `style audit rules --help`)",
    ),
    (
        "empty window",
        ("audit", "--since", "2024-05-03", "--until", "2024-05-01"),
        "style: --since must be before --until (see `style audit --help`)",
    ),
    (
        "a format that needs a file",
        ("audit", "--format", "parquet"),
        "style: --format parquet needs --out FILE (see `style audit --help`)",
    ),
    (
        "an option of the wrong command",
        ("audit", "--format", "json", "prune", "--older-than", "30d"),
        "style: give the options of `prune` after its name (see `style audit --help`)",
    ),
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """Every case by the command line's own code in this process (`style_in_process`: the
    usage errors are StyleGroup.main's, the same in a process); the tests below run the real
    `python -m agentstyle`, a usage error among them."""
    cwd = tmp_path_factory.mktemp("usage")
    env = {"COLUMNS": WIDTH, "NO_COLOR": ""}  # support.cli.style's terminal
    found = {}
    for name, args, _ in CASES:
        done = style_in_process(cwd, cwd, *args, env=env)
        found[name] = Run(args, done.returncode, done.stdout, done.stderr)
    return found


@pytest.mark.parametrize(("name", "args", "line"), CASES, ids=[c[0] for c in CASES])
def test_usage_error_is_one_line_and_exit_2(
    name: str, args: tuple[str, ...], line: str | None, runs: dict[str, Run]
) -> None:
    run = runs[name]
    assert run.code == 2, run
    assert run.stdout == ""
    assert len(run.stderr.splitlines()) == 1, run.stderr
    if line is None:
        assert run.stderr.startswith("style: invalid value for `EVENT_ID|CODE`: "), run.stderr
        assert run.stderr.endswith(" (see `style allow --help`)\n")
    else:
        assert run.stderr == line + "\n"


def test_a_usage_error_does_nothing(tmp_path: Path) -> None:
    """A bad option after good ones: nothing is installed or written."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "STYLE.yaml").write_text(
        "spec: style/v0.3\nname: pkg\nversion: 1.0.0\ndescription: d\n"
        "rules:\n  - id: a\n    text: A.\n",
        encoding="utf-8",
    )
    [run] = style_many([("install", "pkg", "--scope", "everywhere")], cwd=tmp_path)
    assert run.code == 2
    assert run.stdout == "" and len(run.stderr.splitlines()) == 1, run
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


@pytest.mark.parametrize("args", [("--harness", "claude-code"), ("--bogus",), ()])
def test_the_hook_is_never_a_usage_error(tmp_path: Path, args: tuple[str, ...]) -> None:
    """`style hook` reads its options as the installed `python -m agentstyle.hook` does: a bad
    one is allowed and told (exit 2 would refuse the call in Claude Code)."""
    [run] = style_many([("hook", *args)], cwd=tmp_path)
    assert run.code == 0 and run.stdout == ""
    # the cause, then (where the event has no field for it) the notice for the person
    assert run.stderr.splitlines()[0].endswith("; allowed (fail open)"), run.stderr
