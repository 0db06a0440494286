"""OpenCode's sessions database: where it is and its tool calls, for `style audit coverage`.

OpenCode keeps every session of every project in one SQLite database: `$OPENCODE_DB` (a path
relative to its data folder, or absolute), else `opencode.db` (`opencode-<channel>.db` for a
build of another channel) in its data folder, `$XDG_DATA_HOME/opencode`, by default
`~/.local/share/opencode` (docs/audit.md#coverage). So one file holds the sessions of every
project (`TranscriptFormat.shared`): the calls read are those of the sessions that ran in it.

Read as seen in the pinned client (tests/e2e/test_coverage.py): table `session` (`id`,
`directory`: the folder the session ran in) and table `part` (`session_id`, `time_created` in
milliseconds, `data`: JSON). A part whose data has `"type": "tool"` is a tool call: `tool` (the
name its plugin hooks are given), `callID` (which STYLE's plugin hands its hooks as
`tool_use_id`), `state.status` (`completed` where the tool returned, which is when
`tool.execute.after` fires; `error` where it was refused or threw; `pending` or `running`) and
`state.time.start`. The database is opened read-only; OpenCode writes it in WAL mode, which lets
a reader in while it runs.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import quote

from agentstyle.diagnostics import StyleError
from agentstyle.folders import not_regular
from agentstyle.harnesses.facts.opencode import NAME
from agentstyle.harnesses.transcripts import ToolCall, TranscriptFormat, written
from agentstyle.sql import statement

SQLITE_MAGIC = b"SQLite format 3\x00"
WAIT_S = 2.0  # how long a read waits for OpenCode's own write to end


def data_home(home: Path) -> Path:
    """OpenCode's data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`."""
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else home / ".local" / "share") / "opencode"


def databases(home: Path) -> list[Path]:
    """The sessions databases OpenCode writes for this user (one per release channel)."""
    named = os.environ.get("OPENCODE_DB")
    if named and named != ":memory:":
        return [data_home(home) / named]  # an absolute path stands for itself
    return sorted(data_home(home).glob("opencode*.db"))


class OpenCodeTranscripts(TranscriptFormat):
    harness = NAME
    shared = True

    def files(self, home: Path, root: Path, since: float) -> list[Path]:
        return [p for p in databases(home) if p.is_file() and written(p) >= since]

    def of_session(self, home: Path, session: str, cwd: str | None) -> Path | None:
        found = [p for p in databases(home) if p.is_file()]
        return found[0] if len(found) == 1 else None

    def owns_database(self, path: Path) -> bool:
        try:
            with closing(_connect(path)) as db:
                tables = {r[0] for r in db.execute(statement("transcripts/sqlite_tables"))}
        except sqlite3.Error:
            return False
        return {"session", "part"} <= tables

    def tool_calls(self, path: Path) -> list[ToolCall]:
        try:
            with closing(_connect(path)) as db:
                rows = db.execute(statement("transcripts/opencode_tool_parts")).fetchall()
        except sqlite3.Error as exc:
            raise StyleError(f"{path}: cannot read OpenCode's sessions: {exc}") from None
        calls = []
        for session_id, directory, created, data in rows:
            try:
                part = json.loads(data)
            except ValueError:
                continue
            if not isinstance(part, dict) or part.get("type") != "tool":
                continue
            state = _object(part.get("state"))
            start = _object(state.get("time")).get("start")
            ms = start if isinstance(start, (int, float)) and not isinstance(start, bool) else None
            ts = (ms if ms is not None else created or 0) / 1000.0
            call_id = str(part.get("callID") or "") or None
            finished = state.get("status") == "completed"
            tool = str(part.get("tool") or "")
            cwd = str(directory or "")
            calls.append(
                ToolCall(NAME, str(session_id), str(path), tool, call_id, ts, cwd, finished)
            )
        return calls


FORMAT = OpenCodeTranscripts()


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _connect(path: Path) -> sqlite3.Connection:
    """The database opened read-only (never created, never written). sqlite3.Error where it is
    no regular file (a FIFO would wait for a writer) or no SQLite database."""
    kind = not_regular(str(path))
    if kind is not None:
        raise sqlite3.OperationalError(f"{kind}, not a file")
    try:
        with path.open("rb") as fh:
            magic = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise sqlite3.OperationalError(exc.strerror or str(exc)) from None
    if magic != SQLITE_MAGIC:
        raise sqlite3.DatabaseError("not a SQLite database")
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=WAIT_S)
