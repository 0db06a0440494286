"""Qwen Code's chats: where they are and their tool calls, for `style audit coverage`.

They are `~/.qwen/projects/<the project path, every other character as ->/chats/<session>.jsonl`
(docs/audit.md#coverage).

Read as seen in the pinned client (tests/e2e/test_qwen_code.py): every record names `uuid`,
`sessionId`, `timestamp`, `type` (`user`, `assistant`, `tool_result`, `system`), `provenance`
and `cwd`; an `assistant` record's `message.parts` (Gemini-shaped) hold its `functionCall`s
(`id`: the model's call id, which hooks carry as `tool_call_id`; `name`: the name hooks are
given), and a `tool_result` record's `toolCallResult` (`callId`, `executionStatus`) ends one:
`success` or `error` where the call ran (a post-tool hook was due), `not_started` where it was
refused before it ran.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from agentstyle.harnesses.facts.qwen_code import NAME
from agentstyle.harnesses.transcripts import (
    Sources,
    ToolCall,
    TranscriptFormat,
    json_lines,
    mtime,
    parse_time,
    project_slug,
)

# The record types of a chat; a Claude Code transcript has no `tool_result` records and no
# `provenance`.
RECORD_TYPES = ("user", "assistant", "tool_result", "system")
# The `executionStatus` of a call that ran.
RAN = ("success", "error")


def runtime_home(home: Path) -> Path:
    """Where the client keeps its chats: `$QWEN_RUNTIME_DIR`, else its own folder
    (`$QWEN_HOME`, else `.qwen` in the home folder)."""
    return Path(os.environ.get("QWEN_RUNTIME_DIR") or os.environ.get("QWEN_HOME") or home / ".qwen")


def chats_folder(home: Path, cwd: str) -> Path:
    return runtime_home(home) / "projects" / project_slug(cwd) / "chats"


class QwenCodeTranscripts(TranscriptFormat):
    harness = NAME

    def files(self, home: Path, root: Path, since: float) -> list[Path]:
        out: list[Path] = []
        for folder in {chats_folder(home, str(root)), chats_folder(home, str(root.resolve()))}:
            out.extend(p for p in sorted(folder.glob("*.jsonl")) if mtime(p) >= since)
        return out

    def of_session(self, home: Path, session: str, cwd: str | None) -> Path | None:
        if not cwd or not re.fullmatch(r"[A-Za-z0-9-]+", session):
            return None
        path = chats_folder(home, cwd) / f"{session}.jsonl"
        return path if path.exists() else None

    def sessions_glob(self, cwd: str) -> str:
        return "~/.qwen/projects/" + project_slug(cwd) + "/chats/*.jsonl"

    def owns_record(self, record: dict[str, Any]) -> bool:
        return (
            "sessionId" in record and "provenance" in record and record.get("type") in RECORD_TYPES
        )

    def tool_calls(self, path: Path) -> list[ToolCall]:
        calls: list[ToolCall] = []
        ended: dict[str, bool] = {}
        for _n, rec in json_lines(path, Sources()):
            sid, cwd = str(rec.get("sessionId") or ""), str(rec.get("cwd") or "")
            kind = rec.get("type")
            if kind == "tool_result":
                result = rec.get("toolCallResult")
                if isinstance(result, dict) and isinstance(result.get("callId"), str):
                    ended[result["callId"]] = result.get("executionStatus") in RAN
                continue
            message = rec.get("message")
            parts = message.get("parts") if isinstance(message, dict) else None
            if kind != "assistant" or not isinstance(parts, list):
                continue
            ts = parse_time(rec.get("timestamp")) or 0.0
            for part in parts:
                call = part.get("functionCall") if isinstance(part, dict) else None
                if not isinstance(call, dict):
                    continue
                call_id = str(call.get("id") or "") or None
                name = str(call.get("name") or "")
                calls.append(ToolCall(NAME, sid, str(path), name, call_id, ts, cwd, False))
        return [
            ToolCall(c.harness, c.session_id, c.transcript, c.tool, c.call_id, c.ts, c.cwd, True)
            if c.call_id is not None and ended.get(c.call_id)
            else c
            for c in calls
        ]


FORMAT = QwenCodeTranscripts()
