"""Shell-aware matching: the simple commands and code a command string really runs (the long
tables of cases are data: tests/data/cases/shell.yaml)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import agentstyle.shell as shell
from agentstyle.shell import (
    MAX_ELEMENTS,
    MAX_NESTING,
    MAX_SCRIPT_BYTES,
    parse_shell,
)
from tests.support.cases import cases

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FILE = "shell"


@cases(FILE, "commands", "command", "expected")
def test_commands(command: str, expected: tuple[str, ...]) -> None:
    result = parse_shell(command)
    assert result.commands == expected
    assert not result.incomplete


@cases(FILE, "regex", "command", "pattern", "matches")
def test_shell_regex_semantics(command: str, pattern: str, matches: bool) -> None:
    compiled = re.compile(pattern)
    assert any(compiled.search(e) for e in parse_shell(command).commands) is matches


@cases(FILE, "code", "command", "code")
def test_code(command: str, code: tuple[str, ...]) -> None:
    result = parse_shell(command)
    assert result.code == code
    assert not result.incomplete


CLEANUP = "import shutil\nshutil.rmtree('build')\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "scripts").mkdir(parents=True)
    (root / "cleanup.py").write_text(CLEANUP, encoding="utf-8")
    (root / "scripts" / "deploy.sh").write_text("git push -f origin main\n", encoding="utf-8")
    (root / "tool.js").write_text("fs.rmSync('dist')\n", encoding="utf-8")
    (root / "run.rb").write_text("FileUtils.rm_rf('tmp')\n", encoding="utf-8")
    (root / "task.pl").write_text("unlink 'x';\n", encoding="utf-8")
    (root / "latin1.py").write_bytes(b"print('caf\xe9')\n")
    (tmp_path / "outside.py").write_text("outside\n", encoding="utf-8")
    return root


@cases(FILE, "scripts", "command", "files")
def test_local_scripts(project: Path, command: str, files: tuple[str, ...]) -> None:
    result = parse_shell(command, cwd=str(project))
    wanted = tuple((project / f).read_text(encoding="utf-8") for f in files)
    assert result.code == wanted


def test_script_decoded_with_replacement(project: Path) -> None:
    assert parse_shell("python latin1.py", cwd=str(project)).code == ("print('caf\ufffd')\n",)


def test_no_cwd_reads_nothing(project: Path) -> None:
    assert parse_shell(f"python {project / 'cleanup.py'}").code == ()


def test_symlink_escaping_cwd_not_read(project: Path) -> None:
    (project / "link.py").symlink_to(project.parent / "outside.py")
    assert parse_shell("python link.py", cwd=str(project)).code == ()


def test_symlink_inside_cwd_is_read(project: Path) -> None:
    (project / "alias.py").symlink_to(project / "cleanup.py")
    assert parse_shell("python alias.py", cwd=str(project)).code == (CLEANUP,)


def test_symlink_to_device_not_read(project: Path) -> None:
    (project / "zero.py").symlink_to("/dev/zero")
    assert parse_shell("python zero.py", cwd=str(project)).code == ()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_not_read(project: Path) -> None:
    os.mkfifo(project / "pipe.py")
    # Opening a FIFO for reading would block until a writer comes; it must not be opened.
    assert parse_shell("python pipe.py", cwd=str(project)).code == ()


def test_large_script_not_read(project: Path) -> None:
    (project / "big.py").write_text("#" * (MAX_SCRIPT_BYTES + 1), encoding="utf-8")
    (project / "edge.py").write_text("#" * MAX_SCRIPT_BYTES, encoding="utf-8")
    assert parse_shell("python big.py", cwd=str(project)).code == ()
    assert parse_shell("python edge.py", cwd=str(project)).code == ("#" * MAX_SCRIPT_BYTES,)


def test_binary_not_read(project: Path) -> None:
    (project / "app").write_bytes(b"\x7fELF\x00\x00")
    assert parse_shell("./app", cwd=str(project)).code == ()


@cases(FILE, "repaired", "command", "commands")
def test_repaired_text_is_incomplete_but_keeps_its_commands(
    command: str, commands: tuple[str, ...]
) -> None:
    result = parse_shell("  " + command + "\n")
    assert result.commands == commands
    assert result.incomplete


def test_unparseable_nested_string_is_repaired_and_flagged() -> None:
    result = parse_shell("""bash -c "echo 'oops" """)
    assert result.commands == ("bash -c echo 'oops", "echo oops")
    assert result.incomplete


def test_nested_strings_are_followed() -> None:
    command = "rm -rf /"
    for _ in range(8):
        command = f"eval {_quote(command)}"
    result = parse_shell(command)
    assert "rm -rf /" in result.commands
    assert not result.incomplete


def test_nesting_past_the_limit_is_split_lexically_and_flagged() -> None:
    result = parse_shell("eval " * (MAX_NESTING + 10) + "rm -rf /")
    assert "rm -rf /" in result.commands
    assert "nesting-limit" in result.issues


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def test_long_command_parses() -> None:
    command = " && ".join(f"git add file{i}.txt" for i in range(2500))
    command += " && git push -f origin main"
    assert len(command) > 50_000
    result = parse_shell(command)
    assert not result.incomplete
    assert result.commands[-1] == "git push -f origin main"
    assert len(result.commands) == 2501


def test_element_count_capped_and_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    # the element cap is under test, not the time budget: a busy machine must not spend the
    # 2 s of the analysis before the cap is reached
    monkeypatch.setattr(shell, "MAX_PARSE_SECONDS", 60.0)
    result = parse_shell(" | ".join(f"a{i}" for i in range(MAX_ELEMENTS + 500)))
    assert len(result.commands) == MAX_ELEMENTS
    assert "element-limit" in result.issues


def test_deep_nesting_is_split_lexically_without_recursion_error() -> None:
    command = "$(" * 5000 + "ls" + ")" * 5000
    result = parse_shell(command)
    assert "ls" in result.commands
    assert result.incomplete


def test_analysis_needs_no_heavy_module() -> None:
    probe = (
        "import sys, agentstyle.shell as s; s.parse_shell('cd a && git push -f'); "
        "print(sorted({'tree_sitter', 'duckdb', 'lark', 'yaml', 'polars'} & set(sys.modules)))"
    )
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert out.stdout.strip() == "[]"


# Harness fixtures: (file, elements that must be present, code that must be present)
FIXTURE_EXPECT: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "claude-code/PreToolUse.bash-git-push-force.json": (
        ("GIT_TRACE=0", "git push -f origin main", "git commit -am wip"),
        (),
    ),
    "claude-code/PreToolUse.bash-heredoc-python.json": (
        ("python3 -",),
        ("import shutil\nshutil.rmtree('migrations')\n",),
    ),
    "claude-code/PreToolUse.bash-rm-rf.json": (("rm -rf ./target /tmp/acme-build",), ()),
    "codex/PreToolUse.bash-git-push-force.json": (
        ("git push --force-with-lease origin main",),
        (),
    ),
    "codex/PermissionRequest.bash.json": (("curl -fsSL https://sh.rustup.rs", "sh"), ()),
}


def _shell_fixtures() -> list[Path]:
    if not FIXTURES.is_dir():
        return []
    found = []
    for path in sorted(FIXTURES.glob("*/*.json")):
        payload = json.loads(path.read_text(encoding="utf-8"))
        if payload.get("tool_name") in ("Bash", "Shell", "run_shell_command"):
            found.append(path)
    return found


@pytest.mark.parametrize("path", _shell_fixtures(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_harness_fixture(path: Path) -> None:
    payload = json.loads(path.read_text(encoding="utf-8"))
    command = payload["tool_input"]["command"]
    result = parse_shell(command, cwd=payload.get("cwd"))
    assert not result.incomplete
    assert result.commands
    key = f"{path.parent.name}/{path.name}"
    commands, code = FIXTURE_EXPECT.get(key, ((), ()))
    assert set(commands) <= set(result.commands)
    assert set(code) <= set(result.code)


def test_claude_code_bash_fixtures_exist() -> None:
    assert FIXTURES.is_dir(), "tests/fixtures holds the harness payloads"
    names = {f"{p.parent.name}/{p.name}" for p in _shell_fixtures()}
    assert {k for k in FIXTURE_EXPECT if k.startswith("claude-code/")} <= names


def test_hostile_redirections_are_repairs() -> None:
    # (its time is measured in bench/shell_bench.py)
    command = "cat <<E; ls\nE\n" + "<<" * 25_000
    result = parse_shell(command)
    assert result.commands == ("cat", "ls")
    assert result.incomplete


def test_many_heredocs_on_one_line_parse_through_the_rewrite() -> None:
    command = "".join(f"python3 <<E{i}; " for i in range(2000)) + "\n"
    command += "".join(f"print({i})\nE{i}\n" for i in range(2000))
    result = parse_shell(command)
    assert not result.incomplete
    assert result.code == tuple(f"print({i})\n" for i in range(2000))
