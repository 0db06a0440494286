"""`style audit coverage` and `style doctor --live` against the real clients: sessions whose
hooks never ran are found from the clients' own transcripts, and the canary's verdict is the
client's.

Each scenario runs the client twice in one project: once as installed (the `rm` is refused:
the hooks ran), once with its hooks skipped (the `rm` runs). The report must tell the second
session apart as wholly unseen, and count the first one's call as seen.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from e2e.clients import HARNESSES, Session
from e2e.mockapi import Say, Script
from e2e.scenarios import BLOCK_PACKAGE, assert_blocked, block_script, shell


def coverage(s: Session) -> dict[str, dict[str, Any]]:
    done = s.style("audit", "coverage", "--format", "json")
    doc = json.loads(done.stdout)
    return {row["session"]: row for row in doc["rows"]}


def check(s: Session, harness: str, tool: str, transcripts: str) -> None:
    rows = coverage(s)
    mine = [r for r in rows.values() if r["harness"] == harness]
    assert len(mine) == 2, rows
    covered = [r for r in mine if not r["wholly_unseen"]]
    skipped = [r for r in mine if r["wholly_unseen"]]
    assert len(covered) == 1 and len(skipped) == 1, mine
    [c], [u] = covered, skipped
    assert c["tool_calls"] == c["seen"] and c["tool_calls"] >= 1 and c["unseen"] == [], c
    assert u["seen"] == 0 and u["tool_calls"] >= 1, u
    assert {x["tool"] for x in u["unseen"]} == {tool}, u
    assert {x["cause"] for x in u["unseen"]} == {"hooks-skipped"}, u
    assert u["transcript"].startswith(str(s.home / transcripts)), u
    text = s.style("audit", "coverage").stdout
    assert "STYLE never saw (1 wholly unseen)" in text, text
    doctor = s.style("doctor", "--no-fire", check=False).stdout
    assert "1 session(s) with" in doctor and "style audit coverage --since 7d" in doctor, doctor


def test_claude_bare_session_is_wholly_unseen(session) -> None:
    s: Session = session("claude-code", block_script("claude-code"))
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert_blocked(s)
    # `--bare` runs no hook at all: the same call now runs
    s.run("delete victim.txt", extra=["--bare"])
    assert not (s.project / "victim.txt").exists(), "the hooks ran under --bare"
    check(s, "claude-code", "Bash", ".claude/projects/")


def test_codex_exec_without_hook_trust_is_wholly_unseen(session) -> None:
    s: Session = session("codex", block_script("codex"))
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert_blocked(s)
    # without hook trust `codex exec` skips the project's hooks without a word
    s.hook_trust = False
    s.run("delete victim.txt")
    assert not (s.project / "victim.txt").exists(), "the hooks ran without hook trust"
    check(s, "codex", "Bash", ".codex/sessions/")


def test_opencode_pure_session_is_wholly_unseen(session) -> None:
    """OpenCode keeps every project's sessions in one SQLite database: the calls read are
    this project's, matched by the call id STYLE's plugin hands its hooks."""
    s: Session = session("opencode", block_script("opencode"))
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert_blocked(s)
    # `--pure` loads no plugin, STYLE's included: the same call now runs
    s.run("delete victim.txt", extra=["--pure"])
    assert not (s.project / "victim.txt").exists(), "the plugin ran under --pure"
    check(s, "opencode", "bash", ".local/share/opencode/opencode")


def test_claude_session_without_style_on_path(session) -> None:
    """A teammate's machine without STYLE: the handler answers its not-installed notice, the
    call runs, and the report names the cause from what Claude Code kept of the hook's run."""
    s: Session = session("claude-code", block_script("claude-code"))
    s.install(BLOCK_PACKAGE)
    s.style_on_path = False
    s.run("delete victim.txt")
    s.style_on_path = True
    assert not (s.project / "victim.txt").exists(), "the call was refused without STYLE"
    [row] = [r for r in coverage(s).values() if r["harness"] == "claude-code"]
    assert row["wholly_unseen"] is True and row["tool_calls"] >= 1, row
    assert {x["cause"] for x in row["unseen"]} == {"style-not-on-path"}, row


def test_gemini_session_with_its_hooks_is_covered(session) -> None:
    """Gemini CLI gives hooks no call id: its chat file's calls are matched by tool and order."""
    s: Session = session("gemini-cli", block_script("gemini-cli"))
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert_blocked(s)
    [row] = [r for r in coverage(s).values() if r["harness"] == "gemini-cli"]
    assert row["tool_calls"] >= 1 and row["seen"] == row["tool_calls"], row
    assert row["unseen"] == [] and row["wholly_unseen"] is False, row
    assert row["transcript"].startswith(str(s.home / ".gemini" / "tmp")), row


# -- style doctor --live against what the client does --------------------------------------------

CANARY = "echo style-canary > .style/style-canary"
GATE = {
    "claude-code": "PreToolUse",
    "codex": "PreToolUse",
    "gemini-cli": "BeforeTool",
    "copilot-cli": "PreToolUse",
}
NO_SHELL = {
    "claude-code": "Edit|Write",
    "codex": "^(apply_patch)$",
    "gemini-cli": "^(write_file)$",
    "copilot-cli": "Edit|Write",
}


@pytest.mark.parametrize("harness", HARNESSES)
def test_doctor_live_agrees_with_the_client(session, harness: str) -> None:
    """The canary `style doctor --live` fires is refused by the client too, through the same
    config; with the shell left out of the gate's matcher, doctor fails and the client runs it."""
    s: Session = session(
        harness, Script([[Say("Checking."), shell(harness, CANARY)]], last=[Say("Done.")])
    )
    s.install(BLOCK_PACKAGE)
    live = s.style("doctor", "--live", "--no-fire", check=False)
    assert live.returncode == 0, live.stdout + live.stderr
    assert f"live: {GATE[harness]} " in live.stdout and "refused the canary" in live.stdout
    s.run("check the canary")
    assert not (s.project / ".style" / "style-canary").exists(), "the client ran the canary"

    config = json.loads(s.config.read_text())
    for group in config["hooks"][GATE[harness]]:
        group["matcher"] = NO_SHELL[harness]
    s.config.write_text(json.dumps(config, indent=2))
    live = s.style("doctor", "--live", "--no-fire", check=False)
    assert live.returncode == 1, live.stdout
    assert "in its matcher" in live.stdout, live.stdout
    s.run("check the canary")
    assert (s.project / ".style" / "style-canary").exists(), "the client did not run the canary"
