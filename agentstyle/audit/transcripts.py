"""Read recorded sessions back into hook payloads, in order: what `style replay` evaluates.

Sources (docs/audit.md#replay):

- **Claude Code transcripts** (`*.jsonl`, `~/.claude/projects/<project>/<session>.jsonl`).
  Each line is one record. What is read (the format is undocumented; this follows what
  public tools that parse these files agree on, see `datasets/transcripts/README.md`):

  - `type: "user"` with `message.content` a string or a list of blocks: `text` blocks (or the
    string) are a prompt; `tool_result` blocks `{tool_use_id, content, is_error}` end a tool
    call. The record's `toolUseResult` is the structured result the hook receives as
    `tool_response` (Bash `{stdout, stderr, interrupted, isImage}`, Edit `{filePath, …}`);
    without it the block's text is used.
  - `type: "assistant"` with `message.content` blocks: `text` (the assistant's words; the
    last ones of a turn become Stop's `last_assistant_message`), `tool_use` `{id, name,
    input}`; `message.model` is the session's model. Claude Code writes one line per content
    block, several lines sharing one `message.id`.
  - `type: "system", subtype: "compact_boundary"` (`compactMetadata.trigger` manual/auto):
    a compaction. The `isCompactSummary` user record after it is the summary, not a prompt.
  - Every record carries `sessionId`, `cwd`, `timestamp` (ISO 8601) and `uuid`; user records
    may carry `permissionMode`.
  - Not prompts: `isMeta` records (caveats, hook feedback — `Stop hook feedback:` marks a Stop
    hook that continued the agent), local command echoes (`<command-name>`,
    `<local-command-stdout>`, `<local-command-caveat>`), `[Request interrupted by user…]`
    markers (the turn was interrupted: Claude Code fires no Stop for it). A tool call the user
    refused at the permission prompt (`The user doesn't want to proceed…`) gets no
    PostToolUse/PostToolUseFailure, as in Claude Code, and ends its turn without a Stop.
  - `isSidechain` records are a subagent's (older versions wrote them into the parent's file):
    their tool calls are replayed with the subagent's `agent_id`; their prompts and stops are
    not the main agent's and are skipped.
  - Every other record type (`summary`, `file-history-snapshot`, `queue-operation`, other
    `system` subtypes, …) is skipped. A record whose `uuid` was already read for the session
    (a resumed session's file repeats its history) is skipped.

  Hook events are rebuilt per session in order: `SessionStart` (`startup` the first time a
  session is seen, `resume` for a later file of the same session), `UserPromptSubmit` per
  prompt, `PreToolUse` per `tool_use`, `PostToolUse` (`PostToolUseFailure` when `is_error`)
  per `tool_result`, `PreCompact` + `SessionStart(compact)` per compaction, and `Stop` when a
  turn ends with the turn's last assistant text (its last message's text blocks). A turn has
  ended when its last record is assistant text with no tool call pending: the Stop goes before
  the next prompt, before a compaction between turns (a manual one always is; an automatic
  one while a tool call is pending happens mid-turn), and at the end of the file. Payloads
  carry what the hooks get: `prompt_id` (the prompt record's `uuid`), `permission_mode`, the
  session's model on `SessionStart`, `tool_use_id`, `transcript_path` (the source file).
  Nothing marks a session's end in a transcript, so no `SessionEnd` is made.

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
import heapq
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agentstyle.diagnostics import StyleError
from agentstyle.engine.event import Event
from agentstyle.folders import not_regular, open_regular, read_regular_text

# Texts Claude Code writes as user content that are not prompts.
NOT_PROMPTS = ("<command-name>", "<command-message>", "<local-command-", "<bash-")
INTERRUPTED = "[Request interrupted by user"
REFUSED = ("The user doesn't want to proceed", "The user doesn't want to take this action")
STOP_FEEDBACK = "Stop hook feedback"
TIME_KEYS = ("timestamp", "ts", "time")
SHORT = 160  # characters of a value kept in a one-line description
# Transcript files read but not yet turned into events: (path, [(line number, record)]).
Transcripts = list[tuple[Path, list[tuple[int, dict[str, Any]]]]]


@dataclass(slots=True)
class Recorded:
    """One hook event as it happened: a native payload (or an already normalized event)."""

    native_event: str
    payload: dict[str, Any]
    ts: float  # seconds since the epoch; 0 when the source had no time
    origin: str  # `file:line` it was read from
    session_id: str = ""
    event: Event | None = None  # set for STYLE exports: replayed without normalizing again
    kind: str = "payload"  # payload | transcript (Claude Code's) | export


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
    for path, records in transcripts:
        streams.extend(_Transcript(path, seen).read(records))
    out.events = merge(streams)
    return out


def _span(records: list[tuple[int, dict[str, Any]]]) -> tuple[float, float]:
    times = [t for _n, r in records if (t := parse_time(r.get("timestamp"))) is not None]
    return (min(times), max(times)) if times else (0.0, 0.0)


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
    records = list(_json_lines(path, out))
    out.files += 1
    if not records:
        out.notes.append(f"{path}: no JSON records")
        return []
    if any("hook_event_name" in rec for _n, rec in records[:5]):
        return _payload_streams([(f"{path}:{n}", rec, None) for n, rec in records])
    transcripts.append((path, records))
    return []


def _json_lines(path: Path, out: Sources) -> Iterator[tuple[int, dict[str, Any]]]:
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
    times = [_payload_time(p) for _o, p in found]
    if found and all(t is not None for t in times):
        order = sorted(range(len(found)), key=lambda i: times[i] or 0.0)  # stable: names next
        return _payload_streams([(*found[i], None) for i in order])
    # in name order; a file's time, when the payload has none, is when it was written
    return _payload_streams([(o, p, _mtime(Path(o))) for o, p in found])


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _payload_time(payload: dict[str, Any]) -> float | None:
    for key in TIME_KEYS:
        t = parse_time(payload.get(key))
        if t is not None:
            return t
    return None


def _payload_streams(
    found: list[tuple[str, dict[str, Any], float | None]],
) -> list[list[Recorded]]:
    """Payloads (origin, payload, fallback time) in their order, one stream per session."""
    streams: dict[str, list[Recorded]] = {}
    last = 0.0
    for origin, payload, fallback in found:
        ts = _payload_time(payload)
        if ts is None:
            ts = fallback if fallback is not None else last
        last = ts
        native = str(payload.get("hook_event_name") or "")
        sid = str(payload.get("session_id") or "unknown")
        streams.setdefault(sid, []).append(Recorded(native, payload, ts, origin, sid))
    return list(streams.values())


# -- Claude Code transcripts -----------------------------------------------------------------------


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


def _text_of(content: Any) -> str:
    """The text of a tool_result's content or a message (text blocks joined)."""
    if isinstance(content, str):
        return content
    parts = [str(b.get("text", "")) for b in _blocks(content) if b.get("type") == "text"]
    return "\n".join(parts)


@dataclass(slots=True)
class _Session:
    """What is known of one session while its records are read in order."""

    sid: str
    cwd: str = ""
    permission_mode: str | None = None
    prompt_id: str | None = None
    announced: bool = False  # its SessionStart was made
    resumed: bool = False  # an earlier file started it
    in_turn: bool = False
    idle: bool = False  # the turn's last record is the assistant's, no tool call pending
    interrupted: bool = False
    stop_active: bool = False
    last_text: str = ""
    last_message_id: str | None = None
    last_ts: float = 0.0
    turn_ts: float = 0.0  # when the assistant last wrote: the moment a turn ends
    turn_line: int = 0
    pending: dict[str, tuple[str, dict[str, Any], str | None]] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    events: list[Recorded] = field(default_factory=list)


class _Transcript:
    """One transcript file read into per-session streams of hook payloads."""

    def __init__(self, path: Path, seen: dict[str, set[str]]) -> None:
        self.path = path
        # record uuids already read, per session: a session in `seen` was started by an
        # earlier file, which this one resumes
        self.seen = seen
        self.sessions: dict[str, _Session] = {}
        self.models: dict[str, str] = {}
        # tool_use_id → `refused` (at the permission prompt) or `interrupted`: the calls that
        # make no event, which `call_answers` reports beside the ones that ran
        self.unanswered: dict[str, str] = {}

    def read(self, records: list[tuple[int, dict[str, Any]]]) -> list[list[Recorded]]:
        for _n, rec in records:
            sid = rec.get("sessionId")
            message = rec.get("message")
            if isinstance(sid, str) and rec.get("type") == "assistant" and sid not in self.models:
                model = message.get("model") if isinstance(message, dict) else None
                if isinstance(model, str) and model and not model.startswith("<"):
                    self.models[sid] = model
        for n, rec in records:
            self._record(n, rec)
        for s in self.sessions.values():
            self._end_turn(s)
        return [s.events for s in self.sessions.values()]

    # -- emitting ----------------------------------------------------------------------------------
    def _emit(self, s: _Session, native: str, ts: float, line: int, **fields: Any) -> None:
        payload: dict[str, Any] = {
            "session_id": s.sid,
            "transcript_path": str(self.path),
            "cwd": s.cwd,
            "hook_event_name": native,
        }
        if s.prompt_id is not None and native not in ("SessionStart",):
            payload["prompt_id"] = s.prompt_id
        if s.permission_mode and native not in ("SessionStart", "PreCompact"):
            payload["permission_mode"] = s.permission_mode
        payload.update(fields)
        origin = f"{self.path}:{line}"
        s.events.append(Recorded(native, payload, ts, origin, s.sid, kind="transcript"))

    def _end_turn(self, s: _Session, line: int = 0) -> None:
        """The agent finished answering: Stop, unless the user interrupted the turn."""
        if s.in_turn and not s.interrupted and s.idle:
            self._emit(
                s,
                "Stop",
                s.turn_ts,
                line or s.turn_line,
                stop_hook_active=s.stop_active,
                last_assistant_message=s.last_text,
            )
        s.in_turn = s.idle = s.interrupted = s.stop_active = False
        s.last_text = ""
        s.pending.clear()  # a call left without a result (interrupted) ends with its turn

    # -- records -----------------------------------------------------------------------------------
    def _session(self, rec: dict[str, Any], ts: float, line: int) -> _Session | None:
        sid = rec.get("sessionId")
        if not isinstance(sid, str) or not sid:
            return None
        s = self.sessions.get(sid)
        if s is None:
            s = self.sessions[sid] = _Session(sid)
            s.resumed = sid in self.seen
            s.seen = self.seen.setdefault(sid, set())
        if isinstance(rec.get("cwd"), str) and rec["cwd"]:
            s.cwd = rec["cwd"]
        if not s.announced and _agent(rec) is None:
            # A subagent's file (only sidechain records) starts no session of its own.
            s.announced = True
            source = "resume" if s.resumed else "startup"
            start: dict[str, Any] = {"source": source}
            if sid in self.models:
                start["model"] = self.models[sid]
            self._emit(s, "SessionStart", ts, line, **start)
        return s

    def _record(self, line: int, rec: dict[str, Any]) -> None:
        kind = rec.get("type")
        if kind not in ("user", "assistant", "system"):
            return
        if kind == "system" and rec.get("subtype") != "compact_boundary":
            return
        uuid = rec.get("uuid")
        uuid = uuid if isinstance(uuid, str) and uuid else None
        if uuid is not None and uuid in self.seen.get(str(rec.get("sessionId")), ()):
            return  # already read: a resumed session's file repeats its history
        ts = parse_time(rec.get("timestamp"))
        s = self._session(rec, ts or 0.0, line)
        if s is None:
            return
        ts = ts if ts is not None else s.last_ts
        if uuid is not None:
            s.seen.add(uuid)
        s.last_ts = max(s.last_ts, ts)
        if kind == "system":
            self._compaction(s, rec, ts, line)
        elif kind == "assistant":
            self._assistant(s, rec, ts, line)
        else:
            self._user(s, rec, ts, line)

    def _compaction(self, s: _Session, rec: dict[str, Any], ts: float, line: int) -> None:
        meta = rec.get("compactMetadata")
        trigger = meta.get("trigger") if isinstance(meta, dict) else None
        trigger = trigger if trigger in ("manual", "auto") else "auto"
        if trigger == "manual" or s.idle:
            self._end_turn(s)  # compaction between turns: the turn had ended
        self._emit(s, "PreCompact", ts, line, trigger=trigger, custom_instructions="")
        self._emit(s, "SessionStart", ts, line, source="compact")

    def _assistant(self, s: _Session, rec: dict[str, Any], ts: float, line: int) -> None:
        message = rec.get("message")
        if not isinstance(message, dict):
            return
        if rec.get("isApiErrorMessage"):
            s.interrupted = True  # StopFailure, not Stop
            return
        agent = _agent(rec)
        mid = message.get("id")
        for block in _blocks(message.get("content")):
            btype = block.get("type")
            if btype == "text" and agent is None:
                text = str(block.get("text", ""))
                if mid is not None and mid == s.last_message_id and s.last_text:
                    s.last_text = f"{s.last_text}\n\n{text}"
                else:
                    s.last_text = text
                s.last_message_id = mid if isinstance(mid, str) else None
                s.idle = not s.pending
                s.turn_ts, s.turn_line = ts, line
            elif btype == "tool_use":
                tid = str(block.get("id") or f"{self.path.name}:{line}")
                name = str(block.get("name") or "")
                tool_input = block.get("input")
                tool_input = tool_input if isinstance(tool_input, dict) else {}
                s.pending[tid] = (name, tool_input, agent)
                s.idle = False
                extra = {"agent_id": agent} if agent else {}
                self._emit(
                    s,
                    "PreToolUse",
                    ts,
                    line,
                    tool_name=name,
                    tool_input=tool_input,
                    tool_use_id=tid,
                    **extra,
                )

    def _user(self, s: _Session, rec: dict[str, Any], ts: float, line: int) -> None:
        if isinstance(rec.get("permissionMode"), str):
            s.permission_mode = rec["permissionMode"]
        message = rec.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        blocks = _blocks(content)
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for block in results:
            self._tool_result(s, rec, block, len(results) == 1, ts, line)
        if results or rec.get("isCompactSummary") or _agent(rec) is not None:
            return
        text = _text_of(content)
        if rec.get("isMeta"):
            if text.startswith(STOP_FEEDBACK) and s.in_turn:
                # A Stop hook continued the agent: that Stop happened here.
                self._emit(
                    s,
                    "Stop",
                    ts,
                    line,
                    stop_hook_active=s.stop_active,
                    last_assistant_message=s.last_text,
                )
                s.stop_active, s.idle = True, False
            return
        stripped = text.lstrip()
        if stripped.startswith(INTERRUPTED):
            s.interrupted = True
            return
        if not stripped or stripped.startswith(NOT_PROMPTS):
            return
        self._end_turn(s)
        uuid = rec.get("uuid")
        s.prompt_id = uuid if isinstance(uuid, str) and uuid else f"{self.path.name}:{line}"
        self._emit(s, "UserPromptSubmit", ts, line, prompt=text)
        s.in_turn = True

    def _tool_result(
        self,
        s: _Session,
        rec: dict[str, Any],
        block: dict[str, Any],
        only: bool,
        ts: float,
        line: int,
    ) -> None:
        tid = str(block.get("tool_use_id") or "")
        call = s.pending.pop(tid, None)
        if call is None:
            return
        name, tool_input, agent = call
        text = _text_of(block.get("content"))
        extra = {"agent_id": agent} if agent else {}
        if block.get("is_error"):
            if text.startswith(REFUSED) or text.startswith(INTERRUPTED):
                # refused at the permission prompt or interrupted: no post hook runs, and the
                # agent stops without finishing its turn
                s.interrupted = True
                self.unanswered[tid] = "refused" if text.startswith(REFUSED) else "interrupted"
                return
            self._emit(
                s,
                "PostToolUseFailure",
                ts,
                line,
                tool_name=name,
                tool_input=tool_input,
                tool_use_id=tid,
                error=text,
                **extra,
            )
            return
        structured = rec.get("toolUseResult") if only else None
        response = structured if isinstance(structured, (dict, list)) else text
        self._emit(
            s,
            "PostToolUse",
            ts,
            line,
            tool_name=name,
            tool_input=tool_input,
            tool_response=response,
            tool_use_id=tid,
            **extra,
        )


def call_answers(path: Path) -> dict[str, str]:
    """How each tool call of one Claude Code transcript ended, by its `tool_use_id`: `ran` (its
    result came: the person approved it where it was asked), `failed` (an error result: the
    call failed, or the client refused it without a prompt, as `claude -p` does with an ask,
    which the text does not tell apart), `refused` (at the permission prompt) or
    `interrupted`; a call with no result yet is absent. The same reading as `style replay`'s.
    Raises StyleError when the file cannot be read."""
    if not path.is_file():
        raise StyleError(f"{path}: no such file")
    records = list(_json_lines(path, Sources()))
    reader = _Transcript(path, {})
    answers: dict[str, str] = {}
    for stream in reader.read(records):
        for r in stream:
            tid = r.payload.get("tool_use_id")
            if r.native_event == "PostToolUse" and isinstance(tid, str):
                answers[tid] = "ran"
            elif r.native_event == "PostToolUseFailure" and isinstance(tid, str):
                answers[tid] = "failed"
    answers.update(reader.unanswered)
    return answers


def _agent(rec: dict[str, Any]) -> str | None:
    if not rec.get("isSidechain"):
        return None
    agent = rec.get("agentId")
    return str(agent) if agent else "sidechain"


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
    from agentstyle.engine.statements import read_rows

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


# -- Codex rollouts and Gemini CLI chats: the tool calls only --------------------------------------
#
# `style audit coverage` (docs/audit.md#coverage) needs from these files only which tool calls the
# client ran, under the names its hooks would have been given. Read as seen in the pinned clients
# (tests/e2e/test_coverage.py): a Codex rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`)
# starts with a `session_meta` record (`payload.id`, `payload.cwd`); its `response_item` records
# of payload type `function_call` / `custom_tool_call` / `local_shell_call` are the calls (`name`,
# `call_id`, the hook's `tool_use_id`), and `*_output` items with the same `call_id` their
# results. A Gemini CLI chat (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, older versions one
# `.json` object with `messages`) names `sessionId` first; its `gemini` messages carry
# `toolCalls` (`id`, `name`, `args`, `status`, `timestamp`), a message rewritten as it grows.

# Codex runs its shell tools under these names and gives hooks `Bash` for all of them.
CODEX_SHELL_TOOLS = ("exec_command", "shell", "shell_command", "local_shell_call", "container.exec")


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


def transcript_harness(path: Path) -> str | None:
    """Which client wrote a transcript file, from its first records (None: not one of them)."""
    fh = open_regular(path)
    if fh is None:
        return None
    try:
        with fh:
            head = fh.read(1 << 16)
    except OSError:
        return None
    if path.suffix == ".json":
        return "gemini-cli" if '"messages"' in head and '"sessionId"' in head else None
    for line in head.splitlines()[:20]:
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        if rec.get("type") == "session_meta":
            return "codex"
        if "projectHash" in rec and "sessionId" in rec:
            return "gemini-cli"
        if "sessionId" in rec and rec.get("type") in ("user", "assistant", "system"):
            return "claude-code"
        if "hook_event_name" in rec:
            return None
    return None


def tool_calls(path: Path) -> list[ToolCall]:
    """The tool calls of one transcript file of any of the three clients, in order."""
    harness = transcript_harness(path)
    if harness == "claude-code":
        return _claude_calls(path)
    if harness == "codex":
        return _codex_calls(path)
    if harness == "gemini-cli":
        return _gemini_calls(path)
    return []


def _claude_calls(path: Path) -> list[ToolCall]:
    # The replay reader rebuilds the hook events; its PreToolUse events are the calls.
    events = read_sources([path]).events
    finished = {
        str(r.payload.get("tool_use_id"))
        for r in events
        if r.native_event in ("PostToolUse", "PostToolUseFailure")
    }
    return [
        ToolCall(
            "claude-code",
            r.session_id,
            str(path),
            str(r.payload.get("tool_name") or ""),
            str(r.payload.get("tool_use_id") or "") or None,
            r.ts,
            str(r.payload.get("cwd") or ""),
            str(r.payload.get("tool_use_id")) in finished,
        )
        for r in events
        if r.native_event == "PreToolUse"
    ]


def _codex_calls(path: Path) -> list[ToolCall]:
    sid, cwd = "", ""
    calls: list[ToolCall] = []
    done: set[str] = set()
    for _n, rec in _json_lines(path, Sources()):
        item = rec.get("payload")
        if not isinstance(item, dict):
            continue
        if rec.get("type") == "session_meta":
            sid = str(item.get("id") or item.get("session_id") or sid)
            cwd = str(item.get("cwd") or cwd)
            continue
        if rec.get("type") != "response_item":
            continue
        kind = str(item.get("type") or "")
        call_id = str(item.get("call_id") or "") or None
        if kind.endswith("_output"):
            if call_id:
                done.add(call_id)
            continue
        if kind not in ("function_call", "custom_tool_call", "local_shell_call"):
            continue
        name = "local_shell_call" if kind == "local_shell_call" else str(item.get("name") or "")
        tool = "Bash" if name in CODEX_SHELL_TOOLS else name
        ts = parse_time(rec.get("timestamp")) or 0.0
        calls.append(ToolCall("codex", sid, str(path), tool, call_id, ts, cwd, False))
    return [replace(c, finished=c.call_id in done) for c in calls]


def _gemini_records(path: Path) -> list[dict[str, Any]]:
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
    for _n, rec in _json_lines(path, Sources()):
        update = rec.get("$set")
        if isinstance(update, dict) and isinstance(update.get("messages"), list):
            out.extend(m for m in update["messages"] if isinstance(m, dict))
        else:
            out.append(rec)
    return out


def _gemini_calls(path: Path) -> list[ToolCall]:
    sid = ""
    by_id: dict[str, ToolCall] = {}
    for rec in _gemini_records(path):
        if not sid and isinstance(rec.get("sessionId"), str):
            sid = rec["sessionId"]
        if rec.get("type") != "gemini" or not isinstance(rec.get("toolCalls"), list):
            continue
        for n, call in enumerate(rec["toolCalls"]):
            if not isinstance(call, dict):
                continue
            # a message is written again as it grows: the last copy of a call is the whole one
            key = str(call.get("id") or f"{rec.get('id')}:{n}")
            ts = parse_time(call.get("timestamp")) or parse_time(rec.get("timestamp")) or 0.0
            first = by_id.get(key)
            by_id[key] = ToolCall(
                "gemini-cli",
                sid,
                str(path),
                str(call.get("name") or ""),
                None,  # Gemini CLI's hooks carry no call id: matched by order
                first.ts if first is not None else ts,
                "",
                call.get("status") == "success",
            )
    return sorted(by_id.values(), key=lambda c: c.ts)
