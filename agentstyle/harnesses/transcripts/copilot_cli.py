"""Copilot CLI's session logs: where they are and their tool calls, for `style audit coverage`.

They are `$COPILOT_HOME/session-state/<session>/events.jsonl`, by default under `~/.copilot`
(docs/audit.md#coverage).

Read as seen in the pinned client (tests/e2e/test_copilot_cli.py): a log starts with a
`session.start` record (`data.sessionId`, `data.context.cwd`); each `tool.execution_start`
record is a call (`data.toolCallId`, `data.toolName`, the client's own tool name, which its
hooks are given by its Claude name: facts/copilot_cli.py CLAUDE_NAMES), and
`tool.execution_complete` with the same id its end. A subagent's calls name their parent call
(`parentToolCallId`): its hooks run under its own session id, so they are not this session's.
The hooks carry no call id: calls are matched by tool and order.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentstyle.harnesses.facts.copilot_cli import CLAUDE_NAMES, NAME
from agentstyle.harnesses.transcripts import (
    Sources,
    ToolCall,
    TranscriptFormat,
    first_record,
    inside,
    json_lines,
    mtime,
    parse_time,
)

LOG_NAME = "events.jsonl"


def copilot_home(home: Path) -> Path:
    """Copilot CLI's own folder: `$COPILOT_HOME`, else `.copilot` in the home folder."""
    return Path(os.environ.get("COPILOT_HOME") or home / ".copilot")


class CopilotCliTranscripts(TranscriptFormat):
    harness = NAME

    def files(self, home: Path, root: Path, since: float) -> list[Path]:
        logs = sorted((copilot_home(home) / "session-state").glob(f"*/{LOG_NAME}"))
        return [p for p in logs if mtime(p) >= since and _cwd_in(p, root)]

    def of_session(self, home: Path, session: str, cwd: str | None) -> Path | None:
        if not session or "/" in session or session.startswith("."):
            return None
        path = copilot_home(home) / "session-state" / session / LOG_NAME
        return path if path.is_file() else None

    def owns_record(self, record: dict[str, Any]) -> bool:
        data = record.get("data")
        return (
            record.get("type") == "session.start"
            and isinstance(data, dict)
            and data.get("producer") == "copilot-agent"
        )

    def tool_calls(self, path: Path) -> list[ToolCall]:
        sid, cwd = "", ""
        calls: list[ToolCall] = []
        done: set[str] = set()
        for _n, rec in json_lines(path, Sources()):
            data = rec.get("data")
            if not isinstance(data, dict):
                continue
            kind = rec.get("type")
            if kind == "session.start":
                sid = str(data.get("sessionId") or sid)
                context = data.get("context")
                if isinstance(context, dict):
                    cwd = str(context.get("cwd") or cwd)
                continue
            call_id = str(data.get("toolCallId") or "") or None
            if kind == "tool.execution_complete":
                if call_id:
                    done.add(call_id)
                continue
            if kind != "tool.execution_start" or data.get("parentToolCallId"):
                continue
            own = str(data.get("toolName") or "")
            ts = parse_time(rec.get("timestamp")) or 0.0
            tool = CLAUDE_NAMES.get(own, own)
            calls.append(ToolCall(NAME, sid, str(path), tool, call_id, ts, cwd, False))
        # the hooks carry no call id: the id is kept to tell the finished calls, then dropped
        return [replace(c, finished=c.call_id in done, call_id=None) for c in calls]


FORMAT = CopilotCliTranscripts()


def _cwd_in(path: Path, root: Path) -> bool:
    """A log whose session ran inside `root` (its `session.start` record's `context.cwd`)."""
    first = first_record(path)
    data = first.get("data") if isinstance(first, dict) else None
    context = data.get("context") if isinstance(data, dict) else None
    cwd = context.get("cwd") if isinstance(context, dict) else None
    return isinstance(cwd, str) and inside(cwd, root)
