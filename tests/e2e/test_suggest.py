"""`style suggest` on a history a real Claude Code session made: an ask the person approved
becomes an allow proposal.

Headless Claude Code has no person to answer its permission prompt; `--permission-prompt-tool`
names an MCP tool that answers it instead (tests/e2e/approver.py, which says yes and logs the
question). The call runs, its PostToolUse reaches STYLE (the package has a rule after shell
calls, so the handler is installed), and that post event is the approval `suggest` reads.
The proposal's diff is then applied to the package with `patch` and installed again: in a
third session the call runs on STYLE's `allow` and the prompt tool is not asked for it, while
a control call STYLE has no opinion on is put to the prompt tool in every session.

A plain guard package (the ask only, nothing after tool calls) gets no PostToolUse handler:
there the approval is the call's result in the transcript Claude Code itself wrote, the file
each hook payload named (`transcript_path`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from e2e.clients import Session
from e2e.mockapi import Script
from e2e.scenarios import shell

APPROVER = Path(__file__).with_name("approver.py")
PACKAGE = """
spec: style/v0.3
name: e2e
version: 1.0.0
description: an ask the person approves
rules:
  - id: confirm-mark
    target: tool
    tool: shell
    action: ask
    when: 'tool.input.command shell_regex "^touch marked"'
    text: "E2E-ASK this marks the project: confirm"
  - id: after-shell
    target: tool
    tool: shell
    action: warn
    at: after
    when: 'tool.output contains "E2E-NEVER-PRINTED"'
    text: "E2E-AFTER never said"
"""


def _approving(s: Session) -> list[str]:
    config = s.root / "mcp.json"
    log = s.root / "approver.jsonl"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "approver": {"command": sys.executable, "args": [str(APPROVER), str(log)]}
                }
            }
        )
    )
    return [
        "--mcp-config",
        str(config),
        "--permission-prompt-tool",
        "mcp__approver__approve",
        "--allowedTools",
        "Read",
    ]


def test_an_approved_ask_becomes_an_allow_proposal(session) -> None:
    # each session: the call STYLE asks about, and one it has no opinion on (the control)
    calls = [shell("claude-code", "touch marked.txt"), shell("claude-code", "touch other.txt")]
    s: Session = session("claude-code", Script([calls]))
    s.install(PACKAGE)
    extra = _approving(s)
    for n in (1, 2):  # two sessions, the same call approved in each
        s.run(f"mark it ({n})", extra=extra)
        assert (s.project / "marked.txt").exists(), f"run {n}: the approved call did not run"
        (s.project / "marked.txt").unlink()
    asked = [json.loads(line) for line in (s.root / "approver.jsonl").read_text().splitlines()]
    assert sorted(a["input"]["command"] for a in asked) == sorted(
        ["touch marked.txt", "touch other.txt"] * 2
    ), asked
    # STYLE asked both times, and both calls ran: their PostToolUse came with the same call id
    verdicts = s.style(
        "audit",
        "sql",
        "SELECT native_event, call_id, verdict FROM events WHERE call_id IN "
        "(SELECT call_id FROM events WHERE verdict = 'ask') ORDER BY event_id",
        "--format",
        "json",
    )
    found = json.loads(verdicts.stdout)["rows"]
    rows = [(r["native_event"], r["verdict"]) for r in found]
    assert rows == [("PreToolUse", "ask"), ("PostToolUse", "none")] * 2, rows
    calls = [r["call_id"] for r in found]
    assert calls[0] == calls[1] != calls[2] == calls[3], calls
    done = s.style("suggest", "--format", "json")
    doc = json.loads(done.stdout)
    [proposal] = [p for p in doc["proposals"] if p["rule"] == "e2e/confirm-mark"]
    assert proposal["kind"] == "allow"
    assert proposal["condition"] == 'tool.input.command == "touch marked.txt"'
    assert proposal["evidence"]["approved"] == 2 and proposal["evidence"]["sessions"] == 2
    assert proposal["backtest"]["changes"] == {"ask->allow": 2}
    assert "+    action: allow" in proposal["diff"]
    # the person applies the diff to the package and installs it again: the same call now
    # runs without a question (STYLE answers allow, so the prompt tool is not asked)
    # as `patch -p1` would (nothing installs `patch` here): git apply outside any repository
    subprocess.run(
        ["git", "apply", "-p1", "-"],
        cwd=s.root / "pkg",
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(s.root)},
        input=proposal["diff"],
        text=True,
        check=True,
        capture_output=True,
    )
    s.style("install", str(s.root / "pkg"), "--harness", "claude-code")
    s.run("mark it (3)", extra=extra)
    assert (s.project / "marked.txt").exists(), "the allowed call did not run"
    again = [json.loads(line) for line in (s.root / "approver.jsonl").read_text().splitlines()]
    # the control call was put to the prompt tool again; the allowed one was not
    assert [a["input"]["command"] for a in again[4:]] == ["touch other.txt"], again


ASK_ONLY = PACKAGE.split("  - id: after-shell")[0]


def test_an_approved_ask_is_seen_in_the_transcript_without_a_post_handler(session) -> None:
    calls = [shell("claude-code", "touch marked.txt"), shell("claude-code", "touch other.txt")]
    s: Session = session("claude-code", Script([calls]))
    s.install(ASK_ONLY)
    hooks = json.loads(s.config.read_text())["hooks"]
    assert "PreToolUse" in hooks and "PostToolUse" not in hooks, sorted(hooks)
    extra = _approving(s)
    for n in (1, 2):
        s.run(f"mark it ({n})", extra=extra)
        assert (s.project / "marked.txt").exists(), f"run {n}: the approved call did not run"
        (s.project / "marked.txt").unlink()
    # STYLE asked both times and heard nothing after: the approvals are only in the transcripts
    found = json.loads(
        s.style(
            "audit",
            "sql",
            "SELECT native_event, verdict, transcript FROM events "
            "WHERE tool IS NOT NULL ORDER BY event_id",
            "--format",
            "json",
        ).stdout
    )["rows"]
    assert {r["native_event"] for r in found} == {"PreToolUse"}, found
    asked = [r for r in found if r["verdict"] == "ask"]
    assert len(asked) == 2, found
    transcripts = {r["transcript"] for r in asked}
    assert len(transcripts) == 2, transcripts  # one file per session, written by the client
    assert all(Path(t).is_file() and Path(t).is_relative_to(s.home) for t in transcripts)
    doc = json.loads(s.style("suggest", "--format", "json").stdout)
    [proposal] = [p for p in doc["proposals"] if p["rule"] == "e2e/confirm-mark"]
    assert proposal["kind"] == "allow"
    assert proposal["condition"] == 'tool.input.command == "touch marked.txt"'
    assert (proposal["evidence"]["approved"], proposal["evidence"]["sessions"]) == (2, 2)
    assert proposal["evidence"]["seen"] == {"transcript": 2}
    assert proposal["backtest"]["changes"] == {"ask->allow": 2}
    assert not [n for n in doc["notes"] if "evidence of approval" in n], doc["notes"]
