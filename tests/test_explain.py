"""`style explain`: the ac-block example (datasets/packages/ac-block), the installed policy, and bad
payloads."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from agentstyle.install.selfprotect import FOLDERS, TEXTS
from tests.support.cli import style_in_process, style_process
from tests.support.environment import clean_env

REPO = Path(__file__).resolve().parent.parent
AC_BLOCK = REPO / "datasets" / "packages" / "ac-block"
HISTORY = ("sessions", "events", "event_fields", "hits", "claims")

# A block and an inject matching one call (ac-block): the exact wire line for `rm -rf /`.
AC_BLOCK_WIRE = (
    'wire stdout="{\\"hookSpecificOutput\\":{\\"hookEventName\\":\\"PreToolUse\\",'
    '\\"permissionDecision\\":\\"deny\\",\\"permissionDecisionReason\\":'
    '\\"Do not run rm -rf.\\\\nDo not touch the filesystem root.\\"}}"'
)


def env(home: Path) -> dict[str, str]:
    return clean_env(home)


def style(
    cwd: Path, *args: str, code: int = 0, stdin: str | None = None, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """`style ARGS` by the command line's own code in this process (what explain says is under
    test); the real `python -m agentstyle` with `process`, or a payload on its stdin."""
    if stdin is None and not process:
        proc = style_in_process(cwd, cwd.parent / "home", *args)
        assert proc.returncode == code, f"{args}\n{proc.stdout}\n{proc.stderr}"
        return proc
    proc = style_process(cwd, cwd.parent / "home", *args, stdin=stdin)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == code, f"{args}\n{proc.stdout}\n{proc.stderr}"
    return proc


def payload(root: Path, command: str, session: str = "explain-session") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(root / "t.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    project = tmp_path / "proj"
    project.mkdir()
    shutil.copytree(AC_BLOCK, project / "ac-block")
    (project / "rm.json").write_text(json.dumps(payload(project, "rm -rf /")), "utf-8")
    (project / "ls.json").write_text(json.dumps(payload(project, "ls")), "utf-8")
    return project


def entry(lines: list[str], rule: str) -> str:
    [line] = [x for x in lines if x.startswith(f'entry "ac-block/{rule}@tool.pre" ')]
    return line


def test_block_precedence_trace_of_ac_block(root: Path) -> None:
    out = style(
        root, "explain", "--harness", "claude-code", "--payload", "rm.json", "ac-block"
    ).stdout
    lines = out.splitlines()
    assert AC_BLOCK_WIRE in lines
    assert "wire exit=0" in lines
    for rule in ("no-rm", "no-root"):
        assert entry(lines, rule).endswith("block=blocked repeat=repeat-bypass output=blocked")
    tips = entry(lines, "shell-tips")
    assert tips.endswith("block=block-precedence repeat=not-evaluated output=not-evaluated")

    out = style(root, "explain", "--payload", "ls.json", "ac-block").stdout
    lines = out.splitlines()
    assert "output=emitted" in entry(lines, "shell-tips")
    for rule in ("no-rm", "no-root"):
        assert "match=false" in entry(lines, rule) and "output=not-matched" in entry(lines, rule)
    wire = json.dumps(
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
        '"additionalContext":"Prefer trash over rm."}}'
    )
    assert f"wire stdout={wire}" in lines


def counts(root: Path) -> dict[str, int]:
    conn = duckdb.connect(str(root / ".style" / "style.duckdb"), read_only=True)
    try:
        found = {}
        for table in HISTORY:
            row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
            assert row is not None
            found[table] = int(row[0])
        return found
    finally:
        conn.close()


def test_explain_against_the_installed_policy_leaves_history_alone(root: Path) -> None:
    style(root, "install", "ac-block")
    # One real hook call: shell-tips is said and claimed for the session.
    argv = ["-m", "agentstyle.hook", "--harness", "claude-code", "--event", "PreToolUse"]
    hook = subprocess.run(
        [sys.executable, *argv],
        input=(root / "ls.json").read_text("utf-8"),
        cwd=root,
        env=env(root.parent / "home"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Prefer trash over rm." in hook.stdout, hook.stderr
    before = counts(root)
    assert before["events"] == 1 and before["claims"] == 1

    lines = style(root, "explain", "--payload", "rm.json").stdout.splitlines()
    # installed, self-protection refuses it too (`/` holds the project), first by priority
    reason = 'permissionDecisionReason\\":\\"'
    assert AC_BLOCK_WIRE.replace(reason, reason + TEXTS[FOLDERS] + "\\\\n") in lines
    # The same session's history is read: the tip was already said.
    lines = style(root, "explain", "--payload", "ls.json").stdout.splitlines()
    assert "repeat=session-duplicate output=suppressed" in entry(lines, "shell-tips")
    assert 'wire stdout=""' in lines
    # From stdin, as JSON: the same evaluation.
    doc = json.loads(
        style(
            root, "explain", "--format", "json", stdin=(root / "rm.json").read_text("utf-8")
        ).stdout
    )
    assert doc["verdict"] == "block"
    assert doc["rules"] == ["style/self-protect/folders", "ac-block/no-rm", "ac-block/no-root"]
    assert counts(root) == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "rm-missing.json: cannot read payload: No such file or directory"),
        ('{"session_id": "s",', "bad.json: invalid JSON payload: "),
        ("[1, 2]", "bad.json: the payload must be a JSON object"),
        ('{"tool_name": "Bash"}', "unknown claude-code event ``"),
    ],
)
def test_bad_payload_is_one_error_line(root: Path, content: str | None, message: str) -> None:
    name = "rm-missing.json" if content is None else "bad.json"
    if content is not None:
        (root / name).write_text(content, "utf-8")
    proc = style(root, "explain", "--payload", name, "ac-block", code=1, process=True)
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"style: {message}")
    assert proc.stdout == ""


def test_explain_shows_what_the_shell_would_run(root: Path) -> None:
    """The parsed elements are printed, so a user sees why a shell rule did or did not match."""
    command = "cd repo && FOO=1 bash -c 'git push -f origin main' && echo \"rm -rf /\""
    (root / "push.json").write_text(json.dumps(payload(root, command)), "utf-8")
    guard = REPO / "datasets" / "packages" / "ac-min"
    lines = style(root, "explain", "--payload", "push.json", str(guard)).stdout.splitlines()
    [shell] = [x for x in lines if x.startswith("shell commands=")]
    commands = json.loads(shell[len("shell commands=") :])
    assert "git push -f origin main" in commands  # unwrapped from bash -c, past FOO=1
    assert "FOO=1" in commands
    assert "echo rm -rf /" in commands and "rm -rf /" not in commands  # data, not a command
    assert any(
        x.startswith('entry "ac-min/force-push-guard@tool.pre"') and "match=true" in x
        for x in lines
    )

    (root / "fallback.json").write_text(json.dumps(payload(root, "echo 'unterminated")), "utf-8")
    lines = style(root, "explain", "--payload", "fallback.json", str(guard)).stdout.splitlines()
    incomplete = "(shell-incomplete: unterminated-quote"
    assert any(x.startswith("shell commands=") and incomplete in x for x in lines)
