"""How a file tool's path is read before rules see it (`file.path`): spelled differently, the
same file; a backslash is a separator only where the file system reads it as one."""

from __future__ import annotations

import os

import pytest

from agentstyle.evaluator.event import normalized, relative_path


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (".claude/./settings.json", ".claude/settings.json"),
        (".claude//settings.json", ".claude/settings.json"),
        ("src/../.claude/settings.json", ".claude/settings.json"),
        ("//etc/passwd", "/etc/passwd"),
        # Windows paths, whatever machine reads them: the backslashes separate.
        ("C:\\Users\\dev\\app\\.env", "C:/Users/dev/app/.env"),
        ("\\\\host\\share\\.env", "/host/share/.env"),
    ],
)
def test_paths_spelled_differently_name_the_same_file(path: str, expected: str) -> None:
    assert normalized(path) == expected


def test_a_posix_backslash_is_part_of_the_name() -> None:
    """On POSIX `fix\\.env` is one file in the project, not `.env` in `fix/` (on Windows it
    is that)."""
    windows = os.sep == "\\"
    assert normalized("fix\\.env") == ("fix/.env" if windows else "fix\\.env")
    if not windows:
        assert relative_path("/work/app/process\\.env", "/work/app") == "process\\.env"
    assert relative_path("/work/app/sub/../.env", "/work/app") == ".env"
