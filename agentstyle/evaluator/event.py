"""The normalized event: what every adapter turns its payload into (standard library only)."""

from __future__ import annotations

import json
import os
import posixpath
import re
import stat
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

MAX_FIELD_CHARS = 1 << 20  # matching bound per value; storage cuts to 4 KiB separately
MAX_FIELD_ROWS = 20_000
MAX_TREE_DEPTH = 9  # levels of a tool's input/output kept as their own rows
# The field that names one call (native tool + whole input): what `style allow` lets through.
CALL_KEY_FIELD = "style.call_key"


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
    """One hook event, normalized (docs/design/runtime.md#normalize): identity, routing and field
    rows."""

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
    # the harness's own record of the session (`transcript_path`): where `style suggest` sees
    # whether an asked call was approved (docs/audit.md#suggest)
    transcript: str | None = None
    model: str | None = None
    ts: float = 0.0
    fields: list[tuple[str, int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. shell-incomplete: deadline
    # The same for every STYLE handler of this event, where more than one may fire (the
    # database's `answer-once` marker): evaluator/answered.py. None: not looked up.
    identity: str | None = None
    # A shell call's analysis (shell.ShellParse): its simple commands as the command model
    # reads them (evaluator/commandrows.py). None for other calls.
    shell: Any = None
    # A finished call's output as the client sent it (its own shape), where a `redact` rule
    # may replace what the model reads (evaluator/redaction.py). None: not kept.
    output: Any = None

    def add(self, name: str, value: Any, idx: int = 0) -> None:
        if value is None or len(self.fields) >= MAX_FIELD_ROWS:
            return
        self.fields.append((name, idx, scalar_text(value)[:MAX_FIELD_CHARS]))

    def add_list(self, name: str, values: list[Any] | tuple[Any, ...]) -> None:
        for i, v in enumerate(values):
            self.add(name, v, i)

    def add_tree(self, prefix: str, value: Any) -> None:
        """`prefix` = the whole value as compact JSON, then one row per nested path.

        Breadth first, so that the top-level keys (`tool.input.command`, `tool.input.file_path`)
        are always recorded before the row cap can be reached by deep or wide content.
        """
        queue: deque[tuple[str, Any, int]] = deque([(prefix, value, 0)])
        while queue and len(self.fields) < MAX_FIELD_ROWS:
            path, item, depth = queue.popleft()
            self.add(path, item)
            if depth >= MAX_TREE_DEPTH:
                continue
            if isinstance(item, dict):
                queue.extend((f"{path}.{k}", v, depth + 1) for k, v in item.items())
            elif isinstance(item, list):
                queue.extend((f"{path}.{i}", v, depth + 1) for i, v in enumerate(item[:1000]))

    def first(self, name: str) -> str | None:
        for f, _, v in self.fields:
            if f == name:
                return v
        return None

    def values(self, name: str) -> list[str]:
        return [v for f, _, v in self.fields if f == name]


_BACKSLASH_SEPARATES = os.sep == "\\"
_WINDOWS_PATH = re.compile(r"[A-Za-z]:\\|\\\\")


def normalized(path: str) -> str:
    """`/`-separated with `.`, `..` and repeated separators resolved as text, the way the
    kernel reads a path with no symbolic link on it: `.claude/./settings.json`,
    `.claude//settings.json` and `src/../.claude/settings.json` all name `.claude/settings.json`
    (a guard must not be passed by spelling a path differently). A link on the way is
    `resolved_path`'s job. A backslash separates only where the file system reads it so (on
    Windows, or a path that starts like a Windows one, `C:\\…`, `\\\\host\\…`); on POSIX it
    is part of a name: `fix\\.env` is one file, not `fix/.env`."""
    p = path.replace("\\", "/") if _BACKSLASH_SEPARATES or _WINDOWS_PATH.match(path) else path
    if not p:
        return p
    # POSIX keeps a leading `//` apart; Linux and macOS read it as `/`.
    return posixpath.normpath(re.sub(r"^/+", "/", p))


def relative_path(path: str, cwd: str) -> str:
    """Normalized, relative to cwd when inside it (docs/conditions.md#fields `file.path`)."""
    p = normalized(path)
    base = normalized(cwd).rstrip("/") if cwd else ""
    if base and (p == base or p.startswith(base + "/")):
        return p[len(base) + 1 :] or "."
    return p


def resolved_path(path: str, cwd: str) -> str | None:
    """Where `path` really leads when a symlink is on the way (relative to cwd when inside
    it), else None. A guard on `.env` must also see a Read of `notes.txt -> .env`."""
    full = path if os.path.isabs(path) or not cwd else os.path.join(cwd, path)
    try:
        real = os.path.realpath(full)
        base = os.path.realpath(cwd) if cwd else cwd
    except (OSError, ValueError):
        return None
    target = relative_path(real, base)
    return None if target == relative_path(os.path.normpath(full), cwd) else target


TRANSCRIPT_TAIL_BYTES = 256 * 1024


def transcript_entries_from_end(
    path: str, limit: int = TRANSCRIPT_TAIL_BYTES
) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL transcript's last `limit` bytes, newest first.

    Bounded: at most `limit` bytes are read, from a regular file only (never a FIFO or a
    device, and never a blocking open). A line cut by the window or still being written is
    skipped, as is anything that is not a JSON object.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError, TypeError):
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return
        os.lseek(fd, max(0, st.st_size - limit), os.SEEK_SET)
        chunks: list[bytes] = []
        remaining = limit
        while remaining > 0:
            chunk = os.read(fd, remaining)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        tail = b"".join(chunks).decode("utf-8", errors="replace")
    except OSError:
        return
    finally:
        os.close(fd)
    for line in reversed(tail.splitlines()):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            yield entry


def last_in_transcript(
    path: str, pick: Callable[[dict[str, Any]], str | None], limit: int = TRANSCRIPT_TAIL_BYTES
) -> str | None:
    """The first non-None `pick(entry)`, newest entry first, within the bounded tail."""
    for entry in transcript_entries_from_end(path, limit):
        found = pick(entry)
        if found is not None:
            return found
    return None


def _assistant_text(entry: dict[str, Any]) -> str | None:
    message = entry.get("message")
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


def read_transcript_tail(path: str, limit: int = TRANSCRIPT_TAIL_BYTES) -> str | None:
    """The last assistant message of a JSONL transcript, reading at most `limit` bytes."""
    return last_in_transcript(path, _assistant_text, limit)
