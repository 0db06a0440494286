"""Codex's rollouts: where they are and their tool calls, for `style audit coverage`.

They are `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl` (docs/audit.md#coverage).

Read as seen in the pinned client (tests/e2e/test_coverage.py): a rollout starts with a
`session_meta` record (`payload.id`, `payload.cwd`); its `response_item` records of payload type
`function_call` / `custom_tool_call` / `local_shell_call` are the calls (`name`, `call_id`, the
hook's `tool_use_id`), and `*_output` items with the same `call_id` their results.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from agentstyle.harnesses.facts.codex import NAME
from agentstyle.harnesses.transcripts import (
    LogFormat,
    LogRecord,
    first_record,
    inside,
    mtime,
)

# Codex runs its shell tools under these names and gives hooks `Bash` for all of them.
SHELL_TOOLS = ("exec_command", "shell", "shell_command", "local_shell_call", "container.exec")
CALL_ITEMS = ("function_call", "custom_tool_call", "local_shell_call")


def codex_home(home: Path) -> Path:
    """Codex's own folder: `$CODEX_HOME`, else `.codex` in the home folder."""
    return Path(os.environ.get("CODEX_HOME") or home / ".codex")


class CodexTranscripts(LogFormat):
    harness = NAME

    def files(self, home: Path, root: Path, since: float) -> list[Path]:
        rollouts = sorted((codex_home(home) / "sessions").glob("*/*/*/rollout-*.jsonl"))
        return [p for p in rollouts if mtime(p) >= since and _cwd_in(p, root)]

    def of_session(self, home: Path, session: str, cwd: str | None) -> Path | None:
        if not re.fullmatch(r"[A-Za-z0-9-]+", session):
            return None
        found = sorted((codex_home(home) / "sessions").glob(f"*/*/*/rollout-*{session}.jsonl"))
        return found[-1] if found else None

    def owns_record(self, record: dict[str, Any]) -> bool:
        return record.get("type") == "session_meta"

    def log_record(self, record: dict[str, Any]) -> LogRecord | None:
        """A rollout's `session_meta` record, or a `response_item` that starts or ends a call."""
        item = record.get("payload")
        if not isinstance(item, dict):
            return None
        if record.get("type") == "session_meta":
            session_id = item.get("id") or item.get("session_id")
            return LogRecord("session", str(session_id or ""), str(item.get("cwd") or ""))
        if record.get("type") != "response_item":
            return None
        kind = str(item.get("type") or "")
        call_id = str(item.get("call_id") or "") or None
        if kind.endswith("_output"):
            return LogRecord("end", call_id=call_id)
        if kind not in CALL_ITEMS:
            return None
        name = "local_shell_call" if kind == "local_shell_call" else str(item.get("name") or "")
        return LogRecord("call", tool="Bash" if name in SHELL_TOOLS else name, call_id=call_id)


FORMAT = CodexTranscripts()


def _cwd_in(path: Path, root: Path) -> bool:
    """A rollout whose session ran inside `root` (its `session_meta` record's `cwd`)."""
    first = first_record(path)
    meta = first.get("payload") if isinstance(first, dict) else None
    cwd = meta.get("cwd") if isinstance(meta, dict) else None
    return isinstance(cwd, str) and inside(cwd, root)
