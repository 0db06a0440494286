"""The command line on broken input: one clear line or diagnostic, exit 1, never a traceback.

Every case runs in a scratch folder, for `validate` (the command line's own code in the test
process) and for a few, `plan` (the real `python -m agentstyle`). Problems inside a package are
diagnostics (`path:line:col: error code: message`); a path that is not a package at all is one
`style: …` line on stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentstyle.cli.app import app
from agentstyle.codes import CODES, explain
from tests.support.cli import Run as CliRun
from tests.support.cli import style_in_process, style_process
from tests.support.environment import WIDTH, clean_env

MANIFEST = "spec: style/v0.3\nname: pkg\nversion: 1.0.0\ndescription: d\n"
RULES_FROM = MANIFEST + "rules:\n  - from: rules/*.md\n"
INLINE = MANIFEST + "rules:\n  - id: house-style\n    text: Answer in English.\n"


@dataclass(frozen=True, slots=True)
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines() + self.stderr.splitlines()


def style_here(cwd: Path, *args: str) -> Run:
    """The same run by the command line's own code in this process (`style_in_process`)."""
    done = style_in_process(cwd, cwd, *args, env={"NO_COLOR": "1"})
    return Run(done.returncode, done.stdout, done.stderr)


def style(cwd: Path, *args: str) -> Run:
    proc = style_process(cwd, cwd, *args, env={"NO_COLOR": "1"})
    return Run(proc.returncode, proc.stdout, proc.stderr)


def write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


# Each case builds its package under `root` and returns the argument to pass, plus what
# the one line must say: a rendered diagnostic (for problems inside a package) or the
# `style:` line (for a path that is no package).
Setup = Callable[[Path], str]


def malformed_yaml(root: Path) -> str:
    write(root / "pkg" / "STYLE.yaml", MANIFEST + "rules:\n  - id: a\n    text: [oops\n")
    return "pkg"


def no_manifest(root: Path) -> str:
    write(root / "pkg" / "README.md", "Not a package.\n")
    return "pkg"


def binary_manifest(root: Path) -> str:
    write(root / "pkg" / "STYLE.yaml", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    return "pkg"


def binary_rule_file(root: Path) -> str:
    write(root / "pkg" / "STYLE.yaml", RULES_FROM)
    write(root / "pkg" / "rules" / "logo.md", b"\x00\x01\x02\xff")
    return "pkg"


def latin1_rule_file(root: Path) -> str:
    write(root / "pkg" / "STYLE.yaml", RULES_FROM)
    write(root / "pkg" / "rules" / "cafe.md", "Caf\xe9 au lait.\n".encode("latin-1"))
    return "pkg"


def manifest_is_a_directory(root: Path) -> str:
    (root / "pkg" / "STYLE.yaml").mkdir(parents=True)
    return "pkg"


def missing_path(root: Path) -> str:
    root.mkdir(parents=True, exist_ok=True)
    return "no-such-package"


def not_a_package_file(root: Path) -> str:
    write(root / "notes.txt", "hello\n")
    return "notes.txt"


def empty_manifest(root: Path) -> str:
    write(root / "pkg" / "STYLE.yaml", "")
    return "pkg"


def control_character(root: Path) -> str:
    write(root / "pkg" / "STYLE.yaml", MANIFEST.replace("description: d", "description: d\x07"))
    return "pkg"


CASES: dict[str, tuple[Setup, str]] = {
    "malformed-yaml": (
        malformed_yaml,
        "pkg/STYLE.yaml:8:1: error invalid-package: invalid YAML: expected `,` or `]`: "
        "the `[` at line 7 is not closed",
    ),
    "no-manifest": (no_manifest, "style: pkg: not a STYLE package (no STYLE.yaml in this folder)"),
    "binary-manifest": (
        binary_manifest,
        "pkg/STYLE.yaml:3:1: error bad-encoding: `STYLE.yaml` is binary (NUL byte); package "
        "files are UTF-8 text",
    ),
    "binary-rule-file": (
        binary_rule_file,
        "pkg/rules/logo.md:1:1: error bad-encoding: `rules/logo.md` is binary (NUL byte); "
        "package files are UTF-8 text",
    ),
    "latin1-rule-file": (
        latin1_rule_file,
        "pkg/rules/cafe.md:1:4: error bad-encoding: `rules/cafe.md` is not valid UTF-8 (byte 0xe9)",
    ),
    "manifest-is-a-directory": (
        manifest_is_a_directory,
        "pkg/STYLE.yaml:1:1: error file-too-large: `STYLE.yaml` is not a regular file",
    ),
    "missing-path": (
        missing_path,
        "style: no-such-package: no such package (not a file or directory)",
    ),
    "not-a-package-file": (
        not_a_package_file,
        "style: notes.txt: not a STYLE package (expected a folder with STYLE.yaml or a "
        "NAME.md single-file package)",
    ),
    "empty-manifest": (
        empty_manifest,
        "pkg/STYLE.yaml:1:1: error invalid-package: `STYLE.yaml` is empty",
    ),
    "control-character": (
        control_character,
        "pkg/STYLE.yaml:4:15: error invalid-package: invalid YAML: character U+0007 is not "
        "allowed (not printable)",
    ),
}
COMMANDS = {"validate": ("validate",), "plan": ("plan", "--harness", "claude-code")}
# `plan` goes through the same loader: a few cases show it reports the same way (each run
# is a whole interpreter start, so the rest are left to `validate`).
PLAN_CASES = ("malformed-yaml", "no-manifest", "binary-rule-file", "missing-path")
RUNS = [(name, command) for name in CASES for command in COMMANDS]
RUNS = [(n, c) for n, c in RUNS if c == "validate" or n in PLAN_CASES]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Run]:
    """Every run of RUNS: `validate` by the command line's code in this process, `plan` as the
    real `python -m agentstyle` (side by side, each its own interpreter), so the same loader's
    errors are checked both ways."""
    jobs = []
    for name, (setup, _) in CASES.items():
        root = tmp_path_factory.mktemp(name)
        arg = setup(root)
        for command, argv in COMMANDS.items():
            if (name, command) in RUNS:
                jobs.append(((name, command), root, [argv[0], arg, *argv[1:]]))
    found = {job[0]: style_here(job[1], *job[2]) for job in jobs if job[0][1] == "validate"}
    processes = [job for job in jobs if job[0][1] != "validate"]
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = pool.map(lambda job: style(job[1], *job[2]), processes)
        found.update({job[0]: run for job, run in zip(processes, done, strict=True)})
    return found


@pytest.mark.parametrize(("name", "command"), RUNS, ids=[f"{n}-{c}" for n, c in RUNS])
def test_one_clear_line_and_exit_1(
    name: str, command: str, runs: dict[tuple[str, str], Run]
) -> None:
    run = runs[(name, command)]
    expected = CASES[name][1]
    assert run.code == 1, run
    assert "Traceback" not in run.stdout + run.stderr
    if expected.startswith("style: "):
        assert run.stdout == ""
        assert run.stderr == expected + "\n"
    elif command == "validate":
        assert run.stdout == expected + "\n"
        assert run.stderr.startswith("1 error(s), 0 warning(s) in ")
        assert len(run.stderr.splitlines()) == 1
    else:
        assert run.stdout == ""
        assert run.stderr == expected + "\n"


def test_unreadable_manifest(tmp_path: Path) -> None:
    """chmod 000: `file-not-found` saying why; as root the file is still read, so then the
    package simply validates."""
    manifest = tmp_path / "pkg" / "STYLE.yaml"
    write(manifest, INLINE)
    manifest.chmod(0)
    try:
        readable = os.access(manifest, os.R_OK)
        run = style(tmp_path, "validate", "pkg")
    finally:
        manifest.chmod(0o644)
    assert "Traceback" not in run.stdout + run.stderr
    if readable:
        assert run.code == 0 and run.stdout == ""
    else:
        assert run.code == 1
        assert run.stdout == (
            "pkg/STYLE.yaml:1:1: error file-not-found: cannot read `STYLE.yaml`: "
            "permission denied\n"
        )


def test_plan_refuses_an_invalid_package_before_lowering_it(tmp_path: Path) -> None:
    """A malformed tool glob is a diagnostic, not an internal error of the plan pass."""
    write(
        tmp_path / "pkg" / "STYLE.yaml",
        MANIFEST + 'rules:\n  - id: a\n    target: tool\n    tool: "file.[x"\n    text: A.\n',
    )
    run = style(tmp_path, "plan", "pkg", "--harness", "claude-code")
    assert run.code == 1
    assert run.stderr == (
        "pkg/STYLE.yaml:8:11: error bad-pattern: tool glob `file.[x`: unclosed `[` in glob\n"
    )
    assert "internal error" not in run.stderr


# -- style validate --explain ---------------------------------------------------------------


@pytest.mark.parametrize("code", list(CODES))
def test_explain_prints_the_doc(code: str) -> None:
    result = CliRunner().invoke(app, ["validate", "--explain", code])
    assert result.exit_code == 0, result.output
    assert result.output == explain(code)


def test_explain_runs_as_a_command(tmp_path: Path) -> None:
    known = style(tmp_path, "validate", "--explain", "T007")
    assert known.code == 0 and known.stdout == explain("T007") and known.stderr == ""
    unknown = style(tmp_path, "validate", "--explain", "no-such-code")
    assert unknown.code == 1 and unknown.stdout == ""
    assert unknown.stderr == "style: unknown diagnostic code `no-such-code`\n"


# -- mistakes of every command: one line, exit 1, nothing half done ---------------------------


def _with(*files: str | tuple[str, str]) -> Callable[[Path], None]:
    """A setup writing these files (a name alone: a small text file)."""

    def setup(root: Path) -> None:
        for item in files:
            rel, text = (item, "x\n") if isinstance(item, str) else item
            write(root / rel, text)

    return setup


def _project_with_a_broken_database(root: Path) -> None:
    write(root / ".style" / "style.duckdb", b"this is not a DuckDB file\n" * 100)
    write(root / ".style" / "style.lock", "")  # the OS lock every installed project has


BROKEN_DB = (
    "style: the rules database could not be read (IOException); move {root}/.style/style.duckdb "
    "away (its history goes with it) and run `style sync`"
)
# (name, setup, arguments, the one line on stderr; `{root}` is the scratch folder)
MISTAKES: list[tuple[str, Callable[[Path], None], tuple[str, ...], str]] = [
    (
        "init into a file",
        _with("notes.txt"),
        ("init", "notes.txt"),
        "style: `notes.txt` is a file; init creates a package in a folder",
    ),
    (
        "init below a file",
        _with("notes.txt"),
        ("init", "notes.txt/pkg"),
        "style: cannot create the package in `notes.txt/pkg`: `notes.txt` is a file",
    ),
    (
        "init over a package",
        _with(("pkg/STYLE.yaml", INLINE)),
        ("init", "pkg"),
        "style: pkg/STYLE.yaml already exists; init writes only new files",
    ),
    (
        "init where nothing can be created",
        _with(),
        ("init", "/proc/style-cannot-be-here"),
        "style: cannot create the package in `/proc/style-cannot-be-here`: "
        "`/proc/style-cannot-be-here`: no such file or directory",
    ),
    (
        "test a missing folder",
        _with(),
        ("test", "missing"),
        "style: missing: no such package (not a file or directory)",
    ),
    (
        "test a file that is no package",
        _with("notes.txt"),
        ("test", "notes.txt"),
        "style: notes.txt: not a STYLE package (expected a folder with STYLE.yaml or a NAME.md "
        "single-file package)",
    ),
    (
        "a report into a file's folder",
        _with("notes.txt"),
        ("audit", "--format", "csv", "--out", "notes.txt/report.csv"),
        "style: cannot write `notes.txt/report.csv`: `notes.txt` is a file, not a folder",
    ),
    (
        "a report into a folder",
        lambda r: (r / "out").mkdir(),
        ("audit", "--format", "html", "--out", "out"),
        "style: cannot write `out`: it is a folder",
    ),
    (
        "an export into a file",
        _with("notes.txt"),
        ("audit", "export", "--out", "notes.txt"),
        "style: `notes.txt` is a file; --out names the folder to export into",
    ),
    (
        "a report over a broken database",
        _project_with_a_broken_database,
        ("audit", "rules"),
        BROKEN_DB,
    ),
    (
        "allow over a broken database",
        _project_with_a_broken_database,
        ("allow", "--last"),
        BROKEN_DB,
    ),
    (
        "suggest over a broken database",
        _project_with_a_broken_database,
        ("suggest",),
        BROKEN_DB,
    ),
    (
        "install where a folder is a file",
        _with(".claude", ("pkg/STYLE.yaml", INLINE)),
        ("install", "pkg"),
        "style: cannot write .claude/settings.json: `{root}/.claude` is a file, not a folder",
    ),
    (
        "install where .style is a file",
        _with(".style", ("pkg/STYLE.yaml", INLINE)),
        ("install", "pkg"),
        "style: `{root}/.style` is a file where a folder is needed",
    ),
    (
        "import into a package below a file",
        _with("notes.txt", ("rules.md", "# Rules\n\nBe kind.\n")),
        ("import", "markdown", "rules.md", "--into", "notes.txt/pkg"),
        "style: `notes.txt` is a file where a folder is needed",
    ),
    (
        "a payload that is a folder",
        lambda r: (r / "payload.json").mkdir(),
        ("explain", "--payload", "payload.json"),
        "style: payload.json: cannot read payload: Is a directory",
    ),
]


@pytest.mark.parametrize(("name", "setup", "args", "line"), MISTAKES, ids=[m[0] for m in MISTAKES])
def test_a_mistake_is_one_clear_line(
    tmp_path: Path,
    name: str,
    setup: Callable[[Path], None],
    args: tuple[str, ...],
    line: str,
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    setup(root)
    before = sorted(str(p.relative_to(root)) for p in root.rglob("*"))
    # the command's own code in this process: its error handling is under test (the real
    # process's, on the same kind of mistakes: `runs` above, and the tests below)
    done = style_in_process(root, tmp_path, *args, env={"COLUMNS": WIDTH, "NO_COLOR": ""})
    run = CliRun(args, done.returncode, done.stdout, done.stderr)
    assert run.code == 1, run
    assert run.stdout == ""
    assert run.stderr == line.format(root=root.resolve()) + "\n"
    assert sorted(str(p.relative_to(root)) for p in root.rglob("*")) == before  # nothing written


def test_a_full_disk_is_one_line(tmp_path: Path) -> None:
    """stdout that cannot be written (here /dev/full) is the machine's failure, said plainly."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "agentstyle", "schema"],
            cwd=tmp_path,
            env=clean_env(tmp_path),
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert proc.returncode == 1
    assert proc.stderr == "style: cannot write: no space left on device\n"
