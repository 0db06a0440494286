"""The clients' own transcripts: what the adapters share to read them.

See docs/audit.md#coverage and docs/audit.md#replay.

A client that keeps a transcript of each session gives its adapter a `TranscriptFormat`
(`HarnessAdapter.transcripts`), one module per client in this package: where the files are, how
to tell one from its records, and the tool calls it shows, which `style audit coverage` joins
with the hook events STYLE recorded. The one format `style replay` reads as hook events
(`replayable`) also rebuilds those events. Standard library only; loaded by the audit alone.
"""

from __future__ import annotations

import datetime as dt
import heapq
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple

from agentstyle.diagnostics import StyleError
from agentstyle.folders import not_regular, regular_lines

if TYPE_CHECKING:
    from agentstyle.evaluator.event import Event

# Transcript records with their line numbers, as `json_lines` reads them.
Records = list[tuple[int, dict[str, Any]]]
# Where a hook payload may say when it was sent.
TIME_KEYS = ("timestamp", "ts", "time")


@dataclass(slots=True)
class Recorded:
    """One hook event as it happened: a native payload (or an already normalized event)."""

    native_event: str
    payload: dict[str, Any]
    ts: float  # seconds since the epoch; 0 when the source had no time
    origin: str  # `file:line` it was read from
    session_id: str = ""
    event: Event | None = None  # set for STYLE exports: replayed without normalizing again
    kind: str = "payload"  # payload | transcript (`TranscriptFormat.replayable`'s) | export


@dataclass(slots=True)
class Sources:
    """Everything read from the sources, merged in order, and what could not be read."""

    events: list[Recorded] = field(default_factory=list)
    files: int = 0
    skipped_lines: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def sessions(self) -> int:
        return len({r.session_id for r in self.events})


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call a client's own transcript shows."""

    harness: str
    session_id: str
    transcript: str
    tool: str  # the native name the client's hooks are given
    call_id: str | None  # the id hooks carry (`tool_use_id`), where the client has one
    ts: float
    cwd: str
    finished: bool  # the call ran to a result (a post-tool hook was due)


class TranscriptFormat:
    """How one client keeps its transcripts. Every part has a default: a format overrides what
    its client has."""

    harness: ClassVar[str]
    # `style replay` reads these transcripts as hook events (`replay`, `call_answers`): JSONL
    # files that hold no hook payloads are taken to be this format's
    replayable: ClassVar[bool] = False
    # one file (a database) holds the sessions of every project: of its calls, those of the
    # sessions that ran in the project are read (their `ToolCall.cwd`)
    shared: ClassVar[bool] = False

    def files(self, home: Path, root: Path, since: float) -> list[Path]:
        """The transcripts of sessions run in the project `root` (`home`: the home folder),
        written at or after `since` (a file last written before holds no call after)."""
        return []

    def of_session(self, home: Path, session: str, cwd: str | None) -> Path | None:
        """Where a recorded session's transcript is, by the client's conventions."""
        return None

    def sessions_glob(self, cwd: str) -> str | None:
        """The transcripts of sessions run in `cwd`, as a glob the person types (`~/…`)."""
        return None

    def owns_document(self, head: str) -> bool:
        """Whether a `.json` file (its first characters) is one of these transcripts."""
        return False

    def owns_record(self, record: dict[str, Any]) -> bool:
        """Whether a JSONL record is one only these transcripts hold."""
        return False

    def owns_database(self, path: Path) -> bool:
        """Whether a `.db` file is where this client keeps its sessions."""
        return False

    def tool_calls(self, path: Path) -> list[ToolCall]:
        """The tool calls of one transcript, in order."""
        return []

    def replay(
        self, path: Path, records: Records, seen: dict[str, set[str]]
    ) -> list[list[Recorded]]:
        """One transcript's records as hook events, one stream per session (`seen`: record ids
        already read per session, shared by the files of one replay)."""
        return []

    def call_answers(self, path: Path) -> dict[str, str]:
        """How each tool call of one transcript ended, by its call id (docs/audit.md#suggest)."""
        return {}


class LogRecord(NamedTuple):
    """What one record of a session log does (`LogFormat`): it starts the session
    (`session`: its id and folder), starts a call (`call`: its tool and id) or ends one (`end`:
    its id)."""

    kind: Literal["session", "call", "end"]
    session_id: str = ""
    cwd: str = ""
    tool: str = ""
    call_id: str | None = None


class LogFormat(TranscriptFormat):
    """A transcript that is a log of records which start the session, start a call and end one
    (Codex's rollouts, Copilot CLI's session logs): a format says what each record does
    (`log_record`), and a call is finished where a record with its id ends it."""

    def log_record(self, record: dict[str, Any]) -> LogRecord | None:
        """What one record does (None: none of those)."""
        return None

    def tool_calls(self, path: Path) -> list[ToolCall]:
        session_id, cwd = "", ""
        calls: list[ToolCall] = []
        ended: set[str] = set()
        for _n, rec in json_lines(path, Sources()):
            seen = self.log_record(rec)
            if seen is None:
                continue
            if seen.kind == "session":
                session_id, cwd = seen.session_id or session_id, seen.cwd or cwd
            elif seen.kind == "end":
                if seen.call_id:
                    ended.add(seen.call_id)
            else:
                ts = parse_time(rec.get("timestamp")) or 0.0
                call = ToolCall(
                    self.harness, session_id, str(path), seen.tool, seen.call_id, ts, cwd, False
                )
                calls.append(call)
        return [replace(c, finished=c.call_id in ended) for c in calls]


def parse_time(value: Any) -> float | None:
    """Seconds since the epoch from an ISO 8601 string (naive = UTC) or a number."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) / 1000.0 if value > 1e11 else float(value)  # ms or s
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def json_lines(path: Path, out: Sources) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON object on each line of a file, with its line number; a line that is none is
    counted in `out.skipped_lines`. StyleError where the file cannot be read."""
    kind = not_regular(str(path))
    if kind is not None:  # opening a FIFO would wait for a writer
        raise StyleError(f"{path}: cannot read: {kind}, not a file")
    try:
        fh = path.open(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise StyleError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                out.skipped_lines += 1
                continue
            if isinstance(rec, dict):
                yield n, rec
            else:
                out.skipped_lines += 1


def first_record(path: Path) -> Any:
    """The JSON value on the first line of a file (None where it has none, or is no regular
    file: a FIFO would wait for a writer)."""
    for line in regular_lines(path):
        try:
            return json.loads(line)
        except ValueError:
            return None
    return None


def payload_time(payload: dict[str, Any]) -> float | None:
    """When a hook payload says it was sent (None: it does not)."""
    for key in TIME_KEYS:
        t = parse_time(payload.get(key))
        if t is not None:
            return t
    return None


def payload_streams(
    found: list[tuple[str, dict[str, Any], float | None]],
) -> list[list[Recorded]]:
    """Payloads (origin, payload, fallback time) in their order, one stream per session."""
    streams: dict[str, list[Recorded]] = {}
    last = 0.0
    for origin, payload, fallback in found:
        ts = payload_time(payload)
        if ts is None:
            ts = fallback if fallback is not None else last
        last = ts
        native = str(payload.get("hook_event_name") or "")
        sid = str(payload.get("session_id") or "unknown")
        streams.setdefault(sid, []).append(Recorded(native, payload, ts, origin, sid))
    return list(streams.values())


def merge(streams: list[list[Recorded]]) -> list[Recorded]:
    """One stream ordered by time; every input keeps its own order (a session is one input).

    Sessions of one id read from several files (a resumed session) are joined first, in the
    order of their first event.
    """
    by_session: dict[str, list[list[Recorded]]] = {}
    for stream in streams:
        if stream:
            by_session.setdefault(stream[0].session_id, []).append(stream)
    joined: list[list[Recorded]] = []
    for parts in by_session.values():
        parts.sort(key=lambda s: s[0].ts)
        joined.append([r for part in parts for r in part])
    iters = [[((r.ts, n, i), r) for i, r in enumerate(s)] for n, s in enumerate(joined)]
    return [r for _key, r in heapq.merge(*iters, key=lambda kr: kr[0])]


def project_slug(cwd: str) -> str:
    """A project's folder as Claude Code names the folder of its transcripts, and Qwen Code the
    folder of its chats: the path with every character but a letter or a digit a `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def mtime(path: Path) -> float:
    """When a file was last written (0: it cannot be read)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def written(path: Path) -> float:
    """When a transcript was last written: a SQLite database's last writes may be in its
    write-ahead log (`<name>-wal`) alone."""
    return max(mtime(path), mtime(path.with_name(path.name + "-wal")))


def inside(cwd: str, root: Path) -> bool:
    """Whether a session's folder is `root` or under it."""
    try:
        Path(cwd).resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError):
        return False
