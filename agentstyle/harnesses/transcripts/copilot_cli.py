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
    LogFormat,
    LogRecord,
    ToolCall,
    first_record,
    inside,
    mtime,
)

LOG_NAME = "events.jsonl"


def copilot_home(home: Path) -> Path:
    """Copilot CLI's own folder: `$COPILOT_HOME`, else `.copilot` in the home folder."""
    return Path(os.environ.get("COPILOT_HOME") or home / ".copilot")


class CopilotCliTranscripts(LogFormat):
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
        # the hooks carry no call id: the id is kept to tell the finished calls, then dropped
        return [replace(c, call_id=None) for c in super().tool_calls(path)]

    def log_record(self, record: dict[str, Any]) -> LogRecord | None:
        """A log's `session.start` record, or a record that starts a call of this session (not a
        subagent's) or ends a call."""
        data = record.get("data")
        if not isinstance(data, dict):
            return None
        kind = record.get("type")
        if kind == "session.start":
            context = data.get("context")
            cwd = context.get("cwd") if isinstance(context, dict) else None
            return LogRecord("session", str(data.get("sessionId") or ""), str(cwd or ""))
        call_id = str(data.get("toolCallId") or "") or None
        if kind == "tool.execution_complete":
            return LogRecord("end", call_id=call_id)
        if kind != "tool.execution_start" or data.get("parentToolCallId"):
            return None
        own = str(data.get("toolName") or "")
        return LogRecord("call", tool=CLAUDE_NAMES.get(own, own), call_id=call_id)


FORMAT = CopilotCliTranscripts()


def _cwd_in(path: Path, root: Path) -> bool:
    """A log whose session ran inside `root` (its `session.start` record's `context.cwd`)."""
    first = first_record(path)
    data = first.get("data") if isinstance(first, dict) else None
    context = data.get("context") if isinstance(data, dict) else None
    cwd = context.get("cwd") if isinstance(context, dict) else None
    return isinstance(cwd, str) and inside(cwd, root)
