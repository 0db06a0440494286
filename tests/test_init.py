"""`style init`: a package that validates clean and whose own tests pass; never overwrites."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.cli import style_process


def style(cwd: Path, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    proc = style_process(cwd, None, *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == code, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.mark.parametrize(
    ("args", "target", "files"),
    [
        # Into a new folder named on the command line: the package takes its name.
        (
            ("Team Rules",),
            "Team Rules",
            [
                "Team Rules/STYLE.yaml",
                "Team Rules/rules/example.md",
                "Team Rules/tests/example.yaml",
            ],
        ),
        # Into the current folder, as one file.
        (("--single-file",), "proj.md", ["proj.md", "tests/proj.yaml"]),
        # As one file named on the command line: the file, not a folder of that name.
        (
            ("--single-file", "Guard Rails.md"),
            "Guard Rails.md",
            ["Guard Rails.md", "tests/Guard Rails.yaml"],
        ),
    ],
)
def test_init_validates_clean_and_its_tests_pass(
    tmp_path: Path, args: tuple[str, ...], target: str, files: list[str]
) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    out = style(folder, "init", *args).stdout
    assert out.splitlines() == [f"created {f}" for f in files]
    if not args[0].startswith("-"):
        assert "name: team-rules\n" in (folder / files[0]).read_text("utf-8")
    if args[-1].endswith(".md"):
        assert "name: guard-rails\n" in (folder / files[0]).read_text("utf-8")
    check = style(folder, "validate", "--strict", target)
    assert "0 error(s), 0 warning(s)" in check.stdout + check.stderr
    tested = style(folder, "test", target).stdout
    assert "FAIL" not in tested
    assert tested.splitlines()[-1].endswith("passed, 0 failed")
    assert not tested.splitlines()[-1].startswith("0 passed")

    before = {f: (folder / f).read_bytes() for f in files}
    refused = style(folder, "init", *args, code=1)
    [line] = refused.stderr.strip().splitlines()
    assert line == f"style: {files[0]} already exists; init writes only new files"
    assert {f: (folder / f).read_bytes() for f in files} == before
