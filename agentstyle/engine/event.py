"""The normalized event: what every adapter turns its payload into (standard library only)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

MAX_FIELD_CHARS = 1 << 20  # matching bound per value; storage cuts to 4 KiB separately
MAX_FIELD_ROWS = 20_000


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)


def scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return compact(value)
    return str(value)


@dataclass(slots=True)
class Event:
    """One hook event, normalized (rules.md, when.md): identity, routing and field rows."""

    harness: str
    native_event: str
    point: str | None
    session_id: str
    cwd: str
    turn_id: str | None = None
    tool: str | None = None
    native_tool: str | None = None
    call_id: str | None = None
    failed: bool = False
    session_source: str | None = None
    mcp_server: str | None = None
    skill: str | None = None
    stop_active: bool = False
    model: str | None = None
    ts: float = 0.0
    fields: list[tuple[str, int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. shell-parse-fallback

    def add(self, name: str, value: Any, idx: int = 0) -> None:
        if value is None or len(self.fields) >= MAX_FIELD_ROWS:
            return
        self.fields.append((name, idx, scalar_text(value)[:MAX_FIELD_CHARS]))

    def add_list(self, name: str, values: list[Any] | tuple[Any, ...]) -> None:
        for i, v in enumerate(values):
            self.add(name, v, i)

    def add_tree(self, prefix: str, value: Any, depth: int = 0) -> None:
        """`prefix` = the whole value as compact JSON, then one row per nested path."""
        self.add(prefix, value)
        if depth > 8:
            return
        if isinstance(value, dict):
            for k, v in value.items():
                self.add_tree(f"{prefix}.{k}", v, depth + 1)
        elif isinstance(value, list):
            for i, v in enumerate(value[:1000]):
                self.add_tree(f"{prefix}.{i}", v, depth + 1)

    def first(self, name: str) -> str | None:
        for f, _, v in self.fields:
            if f == name:
                return v
        return None

    def values(self, name: str) -> list[str]:
        return [v for f, _, v in self.fields if f == name]


def relative_path(path: str, cwd: str) -> str:
    """`/`-separated, relative to cwd when inside it (when.md `file.path`)."""
    p = path.replace("\\", "/")
    base = cwd.replace("\\", "/").rstrip("/")
    if base and (p == base or p.startswith(base + "/")):
        return p[len(base) + 1 :] or "."
    return p


def read_transcript_tail(path: str, limit: int = 256 * 1024) -> str | None:
    """The last assistant message of a JSONL transcript, reading at most `limit` bytes."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            tail = fh.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                texts = [
                    c.get("text", "")
                    for c in content
                    if isinstance(c, dict) and c.get("type") == "text"
                ]
                if texts:
                    return "\n".join(texts)
    return None
