"""Golden output of `style validate` and `style plan` for every example package.

Each package of `datasets/packages/` (a folder with STYLE.yaml, or a NAME.md single-file
package) is run through the command line's own code (in the test process; a few through
`python -m agentstyle` as well), from the repository root so that paths are stable; stdout,
stderr and the exit code are compared with `tests/golden/<package>.<command>.txt`. New
packages are picked up on their own and need a golden file: write it with
`UPDATE_GOLDEN=1 pytest tests/test_golden_packages.py`, then read it line by line before
committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.cli import style_in_process, style_process
from tests.support.environment import SCRATCH_HOME

REPO = Path(__file__).resolve().parents[1]
# the seeds' examples and the bundled library
PACKAGE_FOLDERS = (REPO / "datasets" / "packages", REPO / "agentstyle" / "library")
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
HARNESS = "claude-code"


def discover() -> list[str]:
    """Package paths relative to the repository, as a user would type them."""
    found = []
    for entry in sorted(e for folder in PACKAGE_FOLDERS for e in folder.iterdir()):
        if (entry.is_dir() and (entry / "STYLE.yaml").is_file()) or is_single_file(entry):
            found.append(entry.relative_to(REPO).as_posix())
    return found


def is_single_file(path: Path) -> bool:
    """A NAME.md with front matter (a README next to the packages is not one)."""
    if not (path.is_file() and path.suffix == ".md"):
        return False
    with path.open("rb") as fh:
        return fh.read(4) in (b"---\n", b"---\r")


def argv(command: str, package: str) -> list[str]:
    if command == "plan":
        return ["plan", package, "--harness", HARNESS]
    return [command, package]


def run(args: list[str], *, process: bool = False) -> str:
    """One CLI run rendered as a golden file: the command, exit code, stdout and stderr.

    The command's own code in the test process (`style_in_process`) unless `process`: what it
    prints is under test here; `test_the_real_command_line_prints_the_golden_output` runs a few
    as `python -m agentstyle` against the same files."""
    env = {"NO_COLOR": "1", "COLUMNS": "200"}
    if process:
        proc = style_process(REPO, SCRATCH_HOME, *args, env=env)
    else:
        proc = style_in_process(REPO, SCRATCH_HOME, *args, env=env)
    return (
        f"$ style {' '.join(args)}\n"
        f"exit {proc.returncode}\n"
        f"--- stdout\n{proc.stdout}"
        f"--- stderr\n{proc.stderr}"
    )


CASES = [(command, package) for package in discover() for command in ("validate", "plan")]


@pytest.fixture(scope="module")
def outputs() -> dict[tuple[str, str], str]:
    """Every run, one after another in this process."""
    return {case: run(argv(*case)) for case in CASES}


def golden_path(command: str, package: str) -> Path:
    return GOLDEN / f"{Path(package).name}.{command}.txt"


def test_the_seed_packages_are_discovered() -> None:
    names = {Path(p).name for p in discover()}
    assert {"ac-min", "ac-all", "ac-block", "rules-min", "rules-from", "rules-template"} <= names


@pytest.mark.parametrize(("command", "package"), CASES, ids=[f"{p}:{c}" for c, p in CASES])
def test_output_matches_golden(
    command: str, package: str, outputs: dict[tuple[str, str], str]
) -> None:
    got = outputs[(command, package)]
    path = golden_path(command, package)
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
        return
    assert path.is_file(), f"no golden file {path.name}; run with UPDATE_GOLDEN=1 and review it"
    assert got == path.read_text(encoding="utf-8")
    assert "Traceback" not in got


# validate with a warning, and plan (two of the golden runs) as a user runs them
PROCESS_CASES = [("validate", "datasets/packages/ac-all"), ("plan", "datasets/packages/ac-all")]


@pytest.mark.parametrize(("command", "package"), PROCESS_CASES)
def test_the_real_command_line_prints_the_golden_output(
    command: str, package: str, outputs: dict[tuple[str, str], str]
) -> None:
    got = run(argv(command, package), process=True)
    assert got == outputs[(command, package)]
    assert got == golden_path(command, package).read_text(encoding="utf-8")


def test_no_golden_file_without_its_package() -> None:
    expected = {golden_path(c, p).name for c, p in CASES}
    present = {p.name for p in GOLDEN.glob("*.txt")}
    assert sorted(present - expected) == []


def test_ac_all_refresh_lines_are_exact(outputs: dict[tuple[str, str], str]) -> None:
    """`style plan ac-all --harness claude-code` prints the refresh strategy
    (docs/actions.md#refresh) as is."""
    plan = outputs[("plan", "datasets/packages/ac-all")]
    lines = plan.splitlines()
    expected = [
        "  refresh: every 10 submitted turns since last emission; first match immediately; "
        "matched points only; full per-emission budget",
        "     prompt-count-fallback without native turn IDs",
        "     no child cadence without child prompt callbacks",
        "     due output waits for its original matching point",
    ]
    start = lines.index(expected[0])
    assert lines[start : start + 4] == expected
    assert lines[start - 1].startswith("ac-all/plan-reminder ")
    assert "exit 0" in lines


def test_seed_packages_validate_clean(outputs: dict[tuple[str, str], str]) -> None:
    """The seeds' examples have no errors; the one warning they may carry is a harness fact
    (their `when.model` rules at session.start meet an `unknown` model on Claude Code)."""
    for command, package in CASES:
        if command == "validate" and Path(package).name.startswith(("ac-", "rules-")):
            out = outputs[(command, package)]
            assert "exit 0\n--- stdout\n" in out, out
            stdout, stderr = out.split("--- stdout\n", 1)[1].split("--- stderr\n", 1)
            assert stderr.startswith("0 error(s), "), out
            assert all("warning model-unknown-at-start:" in x for x in stdout.splitlines()), out
