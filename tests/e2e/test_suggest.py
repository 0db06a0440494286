"""`style suggest` on a history a real Claude Code session made: an ask the person approved
becomes an allow proposal.

Headless Claude Code has no person to answer its permission prompt; `--permission-prompt-tool`
names an MCP tool that answers it instead (tests/e2e/approver.py, which says yes and logs the
question). The call runs, its PostToolUse reaches STYLE (the package has a rule after shell
calls, so the handler is installed), and that post event is the approval `suggest` reads.
"""

from __future__ import annotations

import json
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
    s: Session = session("claude-code", Script([[shell("claude-code", "touch marked.txt")]]))
    s.install(PACKAGE)
    extra = _approving(s)
    for n in (1, 2):  # two sessions, the same call approved in each
        s.run(f"mark it ({n})", extra=extra)
        assert (s.project / "marked.txt").exists(), f"run {n}: the approved call did not run"
        (s.project / "marked.txt").unlink()
    asked = [json.loads(line) for line in (s.root / "approver.jsonl").read_text().splitlines()]
    assert [a["input"]["command"] for a in asked] == ["touch marked.txt"] * 2, asked
    # STYLE asked both times, and both calls ran: their PostToolUse came with the same call id
    verdicts = s.style(
        "audit",
        "sql",
        "SELECT native_event, call_id, verdict FROM events "
        "WHERE native_tool = 'Bash' ORDER BY event_id",
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
