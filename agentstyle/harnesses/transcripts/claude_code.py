"""Claude Code's transcripts: where they are, their tool calls, and the hook events in them.

They are `~/.claude/projects/<project>/<session>.jsonl`; their tool calls serve `style audit
coverage`, and `style replay` rebuilds hook events from them (docs/audit.md#replay).

Each line is one record. What is read (the format is undocumented; this follows what public
tools that parse these files agree on, see `datasets/transcripts/README.md`):

- `type: "user"` with `message.content` a string or a list of blocks: `text` blocks (or the
  string) are a prompt; `tool_result` blocks `{tool_use_id, content, is_error}` end a tool
  call. The record's `toolUseResult` is the structured result the hook receives as
  `tool_response` (Bash `{stdout, stderr, interrupted, isImage}`, Edit `{filePath, …}`);
  without it the block's text is used.
- `type: "assistant"` with `message.content` blocks: `text` (the assistant's words; the last
  ones of a turn become Stop's `last_assistant_message`), `tool_use` `{id, name, input}`;
  `message.model` is the session's model. Claude Code writes one line per content block,
  several lines sharing one `message.id`.
- `type: "system", subtype: "compact_boundary"` (`compactMetadata.trigger` manual/auto): a
  compaction. The `isCompactSummary` user record after it is the summary, not a prompt.
- Every record carries `sessionId`, `cwd`, `timestamp` (ISO 8601) and `uuid`; user records may
  carry `permissionMode`.
- Not prompts: `isMeta` records (caveats, hook feedback — `Stop hook feedback:` marks a Stop
  hook that continued the agent), local command echoes (`<command-name>`,
  `<local-command-stdout>`, `<local-command-caveat>`), `[Request interrupted by user…]` markers
  (the turn was interrupted: Claude Code fires no Stop for it). A tool call the user refused at
  the permission prompt (`The user doesn't want to proceed…`) gets no
  PostToolUse/PostToolUseFailure, as in Claude Code, and ends its turn without a Stop.
- `isSidechain` records are a subagent's (older versions wrote them into the parent's file):
  their tool calls are replayed with the subagent's `agent_id`; their prompts and stops are not
  the main agent's and are skipped.
- Every other record type (`summary`, `file-history-snapshot`, `queue-operation`, other
  `system` subtypes, …) is skipped. A record whose `uuid` was already read for the session (a
  resumed session's file repeats its history) is skipped.

Hook events are rebuilt per session in order: `SessionStart` (`startup` the first time a
session is seen, `resume` for a later file of the same session), `UserPromptSubmit` per prompt,
`PreToolUse` per `tool_use`, `PostToolUse` (`PostToolUseFailure` when `is_error`) per
`tool_result`, `PreCompact` + `SessionStart(compact)` per compaction, and `Stop` when a turn
ends with the turn's last assistant text (its last message's text blocks). A turn has ended
when its last record is assistant text with no tool call pending: the Stop goes before the next
prompt, before a compaction between turns (a manual one always is; an automatic one while a
tool call is pending happens mid-turn), and at the end of the file. Payloads carry what the
hooks get: `prompt_id` (the prompt record's `uuid`), `permission_mode`, the session's model on
`SessionStart`, `tool_use_id`, `transcript_path` (the source file). Nothing marks a session's
end in a transcript, so no `SessionEnd` is made.
"""

from __future__ import annotations

import glob
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.diagnostics import StyleError
from agentstyle.folders import regular_lines
from agentstyle.harnesses.facts.claude_code import NAME
from agentstyle.harnesses.transcripts import (
    Recorded,
    Records,
    Sources,
    ToolCall,
    TranscriptFormat,
    inside,
    json_lines,
    merge,
    mtime,
    parse_time,
    payload_streams,
    project_slug,
)

# Texts Claude Code writes as user content that are not prompts.
NOT_PROMPTS = ("<command-name>", "<command-message>", "<local-command-", "<bash-")
INTERRUPTED = "[Request interrupted by user"
REFUSED = ("The user doesn't want to proceed", "The user doesn't want to take this action")
STOP_FEEDBACK = "Stop hook feedback"


def project_folder(home: Path, cwd: str) -> Path:
    """Claude Code's transcripts of sessions run in `cwd` (its path, every other character `-`)."""
    return home / ".claude" / "projects" / project_slug(cwd)


class ClaudeCodeTranscripts(TranscriptFormat):
    harness = NAME
    replayable = True

    def files(self, home: Path, root: Path, since: float) -> list[Path]:
        out: list[Path] = []
        for folder in {project_folder(home, str(root)), project_folder(home, str(root.resolve()))}:
            # a subagent's calls: `<session>/subagents/agent-*.jsonl` in newer versions
            out.extend(sorted([*folder.glob("*.jsonl"), *folder.glob("*/subagents/*.jsonl")]))
            # sessions started in a subfolder have a folder of their own, named with the same
            # prefix (as has a sibling `acme-api` of `acme`: the session's `cwd` tells them apart)
            for other in sorted(folder.parent.glob(glob.escape(folder.name) + "-*")):
                out.extend(p for p in sorted(other.glob("*.jsonl")) if _cwd_in(p, root, since))
        return out

    def of_session(self, home: Path, session: str, cwd: str | None) -> Path | None:
        if not cwd:
            return None
        path = project_folder(home, cwd) / f"{session}.jsonl"
        return path if path.exists() else None

    def sessions_glob(self, cwd: str) -> str:
        return "~/.claude/projects/" + project_slug(cwd) + "/*.jsonl"

    def owns_record(self, record: dict[str, Any]) -> bool:
        # (a Gemini CLI chat record names `projectHash` beside `sessionId`, a Qwen Code one
        # `provenance`)
        return (
            "sessionId" in record
            and record.get("type") in ("user", "assistant", "system")
            and "projectHash" not in record
            and "provenance" not in record
        )

    def tool_calls(self, path: Path) -> list[ToolCall]:
        # The replay reader rebuilds the hook events; its PreToolUse events are the calls.
        events = _events(path)
        finished = {
            str(r.payload.get("tool_use_id"))
            for r in events
            if r.native_event in ("PostToolUse", "PostToolUseFailure")
        }
        return [
            ToolCall(
                NAME,
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

    def replay(
        self, path: Path, records: Records, seen: dict[str, set[str]]
    ) -> list[list[Recorded]]:
        return _Transcript(path, seen).read(records)

    def call_answers(self, path: Path) -> dict[str, str]:
        """How each tool call of one Claude Code transcript ended, by its `tool_use_id`: `ran` (its
        result came: the person approved it where it was asked), `failed` (an error result: the
        call failed, or the client refused it without a prompt, as `claude -p` does with an ask,
        which the text does not tell apart), `refused` (at the permission prompt) or
        `interrupted`; a call with no result yet is absent. The same reading as `style replay`'s.
        Raises StyleError when the file cannot be read."""
        if not path.is_file():
            raise StyleError(f"{path}: no such file")
        records = list(json_lines(path, Sources()))
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


FORMAT = ClaudeCodeTranscripts()


def _events(path: Path) -> list[Recorded]:
    """The hook events of one JSONL file, as `style replay` reads it: a transcript's rebuilt,
    or the payloads it holds where its first records are hook payloads."""
    if not path.exists():
        raise StyleError(f"{path}: no such file or folder")
    records = list(json_lines(path, Sources()))
    if any("hook_event_name" in rec for _n, rec in records[:5]):
        return merge(payload_streams([(f"{path}:{n}", rec, None) for n, rec in records]))
    return merge(_Transcript(path, {}).read(records)) if records else []


def _cwd_in(path: Path, root: Path, since: float) -> bool:
    """A transcript whose session ran inside `root` (its first record's `cwd`)."""
    if mtime(path) < since:
        return False
    for line in regular_lines(path):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        cwd = rec.get("cwd") if isinstance(rec, dict) else None
        if isinstance(cwd, str) and cwd:
            return inside(cwd, root)
    return False


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


def _agent(rec: dict[str, Any]) -> str | None:
    if not rec.get("isSidechain"):
        return None
    agent = rec.get("agentId")
    return str(agent) if agent else "sidechain"
