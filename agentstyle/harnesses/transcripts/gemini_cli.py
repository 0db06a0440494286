"""Gemini CLI's chats: where they are and their tool calls, for `style audit coverage`.

They are `~/.gemini/tmp/<project>/chats/session-*.jsonl`, in older versions one `.json` object
with `messages` (docs/audit.md#coverage).

Read as seen in the pinned client (tests/e2e/test_coverage.py): a chat names `sessionId` first;
its `gemini` messages carry `toolCalls` (`id`, `name`, `args`, `status`, `timestamp`), a message
rewritten as it grows.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from agentstyle.folders import read_regular_text
from agentstyle.harnesses.facts.gemini_cli import NAME
from agentstyle.harnesses.transcripts import (
    Sources,
    ToolCall,
    TranscriptFormat,
    json_lines,
    parse_time,
)


def chat_folders(home: Path, root: Path) -> list[Path]:
    """The chat folders of a project: `~/.gemini/tmp/<name>/` whose `.project_root` names it,
    or (older versions) `~/.gemini/tmp/<sha256 of the path>/`."""
    base = home / ".gemini" / "tmp"
    found = [base / hashlib.sha256(str(root).encode()).hexdigest() / "chats"]
    for marker in base.glob("*/.project_root"):
        text = read_regular_text(marker)
        try:
            if text is not None and Path(text.strip()).resolve() == root.resolve():
                found.append(marker.parent / "chats")
        except OSError:
            continue
    return [f for f in found if f.is_dir()]


class GeminiCliTranscripts(TranscriptFormat):
    harness = NAME

    def files(self, home: Path, root: Path, since: float) -> list[Path]:
        out: list[Path] = []
        for folder in chat_folders(home, root):
            out.extend(sorted([*folder.glob("*.jsonl"), *folder.glob("*.json")]))
        return out

    def owns_document(self, head: str) -> bool:
        return '"messages"' in head and '"sessionId"' in head

    def owns_record(self, record: dict[str, Any]) -> bool:
        return "projectHash" in record and "sessionId" in record

    def tool_calls(self, path: Path) -> list[ToolCall]:
        sid = ""
        by_id: dict[str, ToolCall] = {}
        for rec in _records(path):
            if not sid and isinstance(rec.get("sessionId"), str):
                sid = rec["sessionId"]
            if rec.get("type") != "gemini" or not isinstance(rec.get("toolCalls"), list):
                continue
            for n, call in enumerate(rec["toolCalls"]):
                if not isinstance(call, dict):
                    continue
                # a message is written again as it grows: its last copy of a call is whole
                key = str(call.get("id") or f"{rec.get('id')}:{n}")
                ts = parse_time(call.get("timestamp")) or parse_time(rec.get("timestamp")) or 0.0
                first = by_id.get(key)
                by_id[key] = ToolCall(
                    NAME,
                    sid,
                    str(path),
                    str(call.get("name") or ""),
                    None,  # Gemini CLI's hooks carry no call id: matched by order
                    first.ts if first is not None else ts,
                    "",
                    call.get("status") == "success",
                )
        return sorted(by_id.values(), key=lambda c: c.ts)


FORMAT = GeminiCliTranscripts()


def _records(path: Path) -> list[dict[str, Any]]:
    if path.suffix == ".json":
        try:
            data = json.loads(read_regular_text(path) or "")
        except ValueError:
            return []
        if not isinstance(data, dict):
            return []
        messages = data.get("messages")
        head = {k: v for k, v in data.items() if k != "messages"}
        return (
            [head, *(m for m in messages if isinstance(m, dict))]
            if isinstance(messages, list)
            else [head]
        )
    out: list[dict[str, Any]] = []
    for _n, rec in json_lines(path, Sources()):
        update = rec.get("$set")
        if isinstance(update, dict) and isinstance(update.get("messages"), list):
            out.extend(m for m in update["messages"] if isinstance(m, dict))
        else:
            out.append(rec)
    return out
