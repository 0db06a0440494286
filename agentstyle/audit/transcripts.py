"""Read recorded sessions back into hook payloads, in order: what `style replay` evaluates.

Sources (docs/audit.md#replay):

- **Transcripts**: a JSONL file that holds no hook payloads, read by the one harness whose
  transcripts `style replay` reads (`TranscriptFormat.replayable`: Claude Code's, whose module
  `harnesses/transcripts/claude_code.py` says what is read and which hook events it rebuilds).

- **Hook payload files**: a folder of `*.json`, each one payload with `hook_event_name`, in
  the order of a `timestamp`/`ts`/`time` field when every file has one, else of their names
  (numbers compared as numbers); or a `*.jsonl` file of such payloads, one per line.

- **A STYLE events export** (`style audit export --out DIR`): a folder of Parquet files. The
  recorded normalized events are replayed as they are (their field values as stored: cut to
  4 KiB, secrets redacted, and only for events that had a hit unless `log: full` — an event
  stored without fields can only match conditions that need none; a Stop's
  `stop_hook_active` is stored with the event, so the loop guard holds on replay).

Sessions are merged into one stream by time, each session's own order kept.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.event import Event
from agentstyle.folders import open_regular, read_regular_text
from agentstyle.harnesses import adapters
from agentstyle.harnesses.transcripts import (
    Recorded,
    Records,
    Sources,
    ToolCall,
    inside,
    json_lines,
    merge,
    mtime,
    parse_time,
    payload_streams,
    payload_time,
)

if TYPE_CHECKING:
    from agentstyle.harnesses.transcripts import TranscriptFormat

__all__ = [
    "Recorded",
    "Sources",
    "ToolCall",
    "call_answers",
    "merge",
    "read_sources",
    "short",
    "stored_events",
    "tool_calls",
    "transcript_harness",
]

SHORT = 160  # characters of a value kept in a one-line description
# Transcript files read but not yet turned into events: (path, [(line number, record)]).
Transcripts = list[tuple[Path, Records]]


def formats() -> list[TranscriptFormat]:
    """The transcript format of every harness whose client keeps transcripts."""
    return [f for f in (a.transcripts() for a in adapters()) if f is not None]


def replayed_format() -> TranscriptFormat:
    """The one format `style replay` reads as hook events (`TranscriptFormat.replayable`)."""
    [replayed] = [f for f in formats() if f.replayable]
    return replayed


def read_sources(paths: Iterable[Path]) -> Sources:
    """Every source named (files or folders) as one ordered stream of recorded events."""
    out = Sources()
    streams: list[list[Recorded]] = []
    transcripts: Transcripts = []
    for path in paths:
        if not path.exists():
            raise StyleError(f"{path}: no such file or folder")
        if path.is_dir():
            streams.extend(_read_folder(path, out, transcripts))
        else:
            streams.extend(_read_file(path, out, transcripts))
    # A resumed session's later file repeats the earlier one's history: read files in the order
    # they were written, so the first of a session starts it and the next ones resume it.
    transcripts.sort(key=lambda pr: (*_span(pr[1]), str(pr[0])))
    seen: dict[str, set[str]] = {}
    if transcripts:
        replayed = replayed_format()
        for path, records in transcripts:
            streams.extend(replayed.replay(path, records, seen))
    out.events = merge(streams)
    return out


def _span(records: list[tuple[int, dict[str, Any]]]) -> tuple[float, float]:
    times = [t for _n, r in records if (t := parse_time(r.get("timestamp"))) is not None]
    return (min(times), max(times)) if times else (0.0, 0.0)


def _read_folder(folder: Path, out: Sources, transcripts: Transcripts) -> list[list[Recorded]]:
    parquet = sorted(folder.rglob("*.parquet"))
    if parquet:
        return _read_export(folder, out)
    streams: list[list[Recorded]] = []
    lines = sorted(folder.glob("*.jsonl"), key=_natural)
    for path in lines:
        streams.extend(_read_file(path, out, transcripts))
    payloads = sorted(folder.glob("*.json"), key=_natural)
    if payloads:
        streams.extend(_read_payload_files(payloads, out))
    if not lines and not payloads:
        out.notes.append(f"{folder}: no *.jsonl transcripts, *.json payloads or Parquet exports")
    return streams


def _read_file(path: Path, out: Sources, transcripts: Transcripts) -> list[list[Recorded]]:
    """A payload file, an export, or a JSONL file: payloads are read now, a transcript is kept
    in `transcripts` to be read in order with the others."""
    if path.suffix == ".json":
        return _read_payload_files([path], out)
    if path.suffix == ".parquet":
        return _read_export(path, out)
    records = list(json_lines(path, out))
    out.files += 1
    if not records:
        out.notes.append(f"{path}: no JSON records")
        return []
    if any("hook_event_name" in rec for _n, rec in records[:5]):
        return payload_streams([(f"{path}:{n}", rec, None) for n, rec in records])
    transcripts.append((path, records))
    return []


# -- hook payloads ---------------------------------------------------------------------------------


def _natural(path: Path) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", path.name)]


def _read_payload_files(paths: list[Path], out: Sources) -> list[list[Recorded]]:
    found: list[tuple[str, dict[str, Any]]] = []
    for path in paths:
        out.files += 1
        try:
            data = json.loads(read_regular_text(path) or "")
        except ValueError:
            out.notes.append(f"{path}: not a JSON payload; skipped")
            continue
        if not isinstance(data, dict) or "hook_event_name" not in data:
            out.notes.append(f"{path}: no `hook_event_name`; skipped")
            continue
        found.append((str(path), data))
    times = [payload_time(p) for _o, p in found]
    if found and all(t is not None for t in times):
        order = sorted(range(len(found)), key=lambda i: times[i] or 0.0)  # stable: names next
        return payload_streams([(*found[i], None) for i in order])
    # in name order; a file's time, when the payload has none, is when it was written
    return payload_streams([(o, p, mtime(Path(o))) for o, p in found])


# -- STYLE exports ---------------------------------------------------------------------------------


def _read_export(path: Path, out: Sources) -> list[list[Recorded]]:
    from agentstyle.audit.export import load_exports

    conn = load_exports(str(path))
    try:
        streams, bare = stored_events(conn, str(path))
    finally:
        conn.close()
    out.files += 1
    if bare:
        out.notes.append(
            f"{path}: {bare} exported event(s) were stored without their fields (no hit at the "
            "time, `log: hits`); only conditions that read no event content can match them"
        )
    return streams


def stored_events(conn: Any, label: str) -> tuple[list[list[Recorded]], int]:
    """The events of a STYLE history (a project's database or loaded exports) as recorded
    events, one stream per session, and how many were stored without their fields."""
    from agentstyle.audit.rows import ExportedEventRow
    from agentstyle.evaluator.statements import read_rows

    streams: dict[str, list[Recorded]] = {}
    bare = 0
    for row in read_rows(conn, "replay/exported_events", ExportedEventRow):
        point, native_tool = row.point, row.native_tool
        ev = Event(
            harness=str(row.harness),
            native_event=str(row.native_event),
            point=point,
            session_id=str(row.session_id or "unknown"),
            cwd=str(row.cwd or ""),
            turn_id=row.turn_id,
            tool=row.tool,
            native_tool=native_tool,
            call_id=row.call_id,
            failed=bool(row.failed),
            stop_active=bool(row.stop_active),
        )
        ev.ts = row.ts.replace(tzinfo=dt.UTC).timestamp() if row.ts is not None else 0.0
        stored = row.fields or []
        if not stored:
            bare += 1
        for item in stored:
            name, idx, value = item["field"], item["idx"], item["value"]
            # model and provider are added again by the evaluator
            if name in ("model", "provider"):
                if name == "model" and point == "session.start" and value != "unknown":
                    ev.model = value
                continue
            ev.fields.append((str(name), int(idx), "" if value is None else str(value)))
        command = ev.first("tool.input.command") if row.tool == "shell" else None
        if command is not None:
            # The stored shell fields are the event's; the command model (command conditions)
            # reads the parse itself, which no row keeps: parse the command again.
            from agentstyle.shell import parse_shell

            ev.shell = parse_shell(command, ev.cwd or None)
        ev.session_source = ev.first("session.source")
        ev.mcp_server = ev.first("mcp.server")
        ev.skill = ev.first("skill.name")
        if ev.mcp_server is None and native_tool and str(native_tool).startswith("mcp__"):
            ev.mcp_server = str(native_tool)[5:].partition("__")[0] or None
        origin = f"{label}#event {row.event_id}"
        streams.setdefault(ev.session_id, []).append(
            Recorded(ev.native_event, {}, ev.ts, origin, ev.session_id, ev, "export")
        )
    return list(streams.values()), bare


def short(value: Any, limit: int = SHORT) -> str:
    """One line of at most `limit` characters, for examples and messages."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# -- the clients' own transcripts ------------------------------------------------------------------


def transcript_harness(path: Path) -> str | None:
    """Which client wrote a transcript file, from its first records (None: not one of them)."""
    known = formats()
    if path.suffix == ".db":
        return next((f.harness for f in known if f.owns_database(path)), None)
    fh = open_regular(path)
    if fh is None:
        return None
    try:
        with fh:
            head = fh.read(1 << 16)
    except OSError:
        return None
    if path.suffix == ".json":
        return next((f.harness for f in known if f.owns_document(head)), None)
    for line in head.splitlines()[:20]:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        owner = next((f.harness for f in known if f.owns_record(rec)), None)
        if owner is not None:
            return owner
        if "hook_event_name" in rec:
            return None
    return None


def tool_calls(path: Path, root: Path, harness: str | None = None) -> list[ToolCall]:
    """The tool calls of one transcript file of any client that keeps them, in order; of a file
    that holds every project's sessions, those of the sessions run in the project `root`.
    `harness`: the client that wrote it, where the caller already told it
    (`transcript_harness`); otherwise it is told here."""
    harness = harness or transcript_harness(path)
    fmt = next((f for f in formats() if f.harness == harness), None)
    if fmt is None:
        return []
    calls = fmt.tool_calls(path)
    return [c for c in calls if inside(c.cwd, root)] if fmt.shared else calls


def call_answers(path: Path) -> dict[str, str]:
    """How each tool call of one transcript of the replayed format ended, by its call id
    (`TranscriptFormat.call_answers`). Raises StyleError when the file cannot be read."""
    return replayed_format().call_answers(path)
