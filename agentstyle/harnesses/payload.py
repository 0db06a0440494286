"""Reading a hook payload into a normalized event: the pieces every adapter's `normalize` shares.

Standard library only: the hook path imports it (the shell analyser only for a shell call).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from agentstyle.evaluator.event import (
    CALL_KEY_FIELD,
    MAX_FIELD_CHARS,
    MAX_FIELD_ROWS,
    Event,
    relative_path,
    resolved_path,
)
from agentstyle.harnesses.facts.base import split_mcp_name

if TYPE_CHECKING:
    from agentstyle.harnesses.facts import HarnessSpec

# The points whose events are tool calls.
TOOL_POINTS = frozenset({"tool.pre", "tool.post", "tool.failed"})
# The normalized tools whose calls name a file (`file.path`).
FILE_TOOLS = frozenset({"file.read", "file.write", "file.edit", "file.search", "notebook.edit"})
# Reads the model out of one transcript entry (None: this entry names none).
ModelPick = Callable[[dict[str, Any]], str | None]


def text_id(value: Any) -> str | None:
    """An identifier from the payload as a string (None when absent or not a scalar)."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def new_event(
    harness: str,
    native_event: str,
    point: str | None,
    payload: Mapping[str, Any],
    *,
    session_id: str | None,
    cwd: str | None,
    turn_id: str | None = None,
    version: str | None = None,
    model_pick: ModelPick | None = None,
) -> Event:
    """The event every adapter starts from: its identity, the model (the payload's, else the
    transcript's where `model_pick` reads it) and the runtime fields every event carries."""
    ev = Event(
        harness=harness,
        native_event=native_event,
        point=point,
        session_id=session_id or "unknown",
        cwd=cwd or "",
        turn_id=turn_id,
        ts=time.time(),
    )
    transcript = payload.get("transcript_path")
    if isinstance(transcript, str) and transcript:
        ev.transcript = transcript
    model = payload.get("model")
    if isinstance(model, str) and model:
        ev.model = model
    elif model_pick is not None:
        ev.model = transcript_model(ev.session_id, payload.get("transcript_path"), model_pick)
    base_fields(ev, harness, payload, version)
    return ev


def base_fields(ev: Event, name: str, payload: Mapping[str, Any], version: str | None) -> None:
    """The runtime fields every event carries (docs/templates.md#runtime-variables)."""
    if ev.point is not None:
        ev.add("event.name", ev.point)
    effort = payload.get("effort")
    level = effort.get("level") if isinstance(effort, dict) else None
    ev.add("thinking_effort", level or "unknown")
    ev.add("thinking_effort_raw", level or "unknown")
    ev.add("harness.name", name)
    ev.add("harness.version", version or "unknown")
    ev.add("harness.cwd", ev.cwd)
    ev.add("harness.permission_mode", payload.get("permission_mode") or "unknown")
    ev.add("harness.agent", payload.get("agent_type") or "main")
    ev.add("harness.session_id", ev.session_id)
    ev.add("harness.turn_id", ev.turn_id or "unknown")


def split_mcp(
    name: str, naming: tuple[str, str] = ("mcp__", "__"), context: Any = None
) -> tuple[str, str] | None:
    """(server, tool) of an MCP call: from `context` where the client names them apart
    (Gemini CLI's `mcp_context`: `server_name`, `tool_name`), else from the native tool name in
    the client's `naming` (`HarnessSpec.mcp_naming`; Claude Code's `mcp__<server>__<tool>`)."""
    if isinstance(context, dict):
        server, tool = context.get("server_name"), context.get("tool_name")
        if isinstance(server, str) and server and isinstance(tool, str) and tool:
            return server, tool
    return split_mcp_name(name, naming)


def set_mcp(ev: Event, server: str, tool: str) -> None:
    """An MCP call: its tool is `mcp`, its server and tool are fields."""
    ev.mcp_server = server
    ev.tool = "mcp"
    ev.add("mcp.server", server)
    ev.add("mcp.tool", tool)


def native_tools(spec: HarnessSpec) -> dict[str, str]:
    """Each native tool of a harness → its normalized tool (`HarnessSpec.tool_names` turned
    round; a native tool named twice takes the last)."""
    return {native: tool for tool, natives in spec.tool_names.items() for native in natives}


def name_tool(
    ev: Event,
    native: str,
    tools: Mapping[str, str],
    naming: tuple[str, str] = ("mcp__", "__"),
    context: Any = None,
) -> None:
    """`ev.tool` of a call: `mcp` for an MCP call (`split_mcp`: in the client's `naming`, or
    named apart in `context`), else what `tools` (`native_tools`) names it, `other` where it
    names none."""
    mcp = split_mcp(native, naming, context)
    if mcp is not None:
        set_mcp(ev, *mcp)
    else:
        ev.tool = tools.get(native, "other")


def set_skill(ev: Event, name: Any) -> None:
    """A skill's call: the skill's name is a field (its tool stays `other`)."""
    ev.skill = str(name or "")
    ev.add("skill.name", ev.skill)


def call_key(kind: str, value: Any) -> str:
    """A stable digest of one call: the native tool (or `prompt`) and its whole input."""
    body = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{kind}\0{body}".encode()).hexdigest()[:32]


def add_call_key(ev: Event, kind: str, value: Any) -> None:
    ev.add(CALL_KEY_FIELD, call_key(kind, value))


def add_prompt(ev: Event, prompt: Any) -> None:
    """A submitted prompt: its text and its call key (what `style allow` lets through)."""
    ev.add("prompt", prompt)
    add_call_key(ev, "prompt", prompt)


def add_response(ev: Event, text: Any) -> None:
    """The model's last message at a stop (`response.text`), where the payload or the
    transcript gives one."""
    if isinstance(text, str):
        ev.add("response.text", text)


def tool_call(ev: Event, payload: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """(native tool, its input) of a `tool_name` / `tool_input` payload; `ev.native_tool` set."""
    native = str(payload.get("tool_name") or "")
    tool_input = payload.get("tool_input")
    ev.native_tool = native
    return native, tool_input if isinstance(tool_input, dict) else {}


def claude_shaped_payload(
    native_event: str, cwd: str, session_id: str, **more: Any
) -> dict[str, Any]:
    """The opening of every Claude-shaped payload (Claude Code, Codex, Gemini CLI), with
    `more` after it: what `style doctor` sends its hooks."""
    shaped: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": None,
        "cwd": cwd,
        "hook_event_name": native_event,
    }
    return {**shaped, **more}


def first_path(tool_input: Mapping[str, Any], keys: tuple[str, ...]) -> list[str]:
    """The paths a file tool's input names under the first of `keys` it has (none: []). A list
    of paths where one is due names each of them: the tool may read them all."""
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return [value]
        if isinstance(value, list) and value:
            return [str(v) for v in value if isinstance(v, (str, int, float)) and str(v)]
    return []


def added_text(native: str, tool_input: Mapping[str, Any], keys: Mapping[str, str]) -> list[str]:
    """What a write/edit call adds (docs/conditions.md#fields `tool.added`): its input under the
    key `keys` names for its native tool (none: it adds nothing)."""
    key = keys.get(native)
    return [str(tool_input.get(key, ""))] if key is not None else []


def add_named_tool(
    ev: Event,
    native: str,
    tool_input: Mapping[str, Any],
    spec: HarnessSpec,
    file_keys: tuple[str, ...],
    added: Sequence[str],
) -> None:
    """`add_tool` for a call `ev.tool` names: a file tool's file under the first of `file_keys`
    it has, a content search where `spec` says its native tool is one."""
    paths = first_path(tool_input, file_keys) if ev.tool in FILE_TOOLS else []
    searches = native in spec.content_search
    add_tool(ev, native, tool_input, paths=paths, added=added, searches=searches)


def add_output(ev: Event, payload: Mapping[str, Any], result_key: str = "tool_response") -> None:
    """What a Claude-shaped call gave back: PostToolUse's result (under `result_key`), or
    PostToolUseFailure's `error`, a failed call."""
    if ev.native_event == "PostToolUse":
        ev.add_tree("tool.output", payload.get(result_key))
    elif ev.native_event == "PostToolUseFailure":
        ev.failed = True
        ev.add_tree("tool.output", payload.get("error"))


def add_tool(
    ev: Event,
    native: str,
    tool_input: Mapping[str, Any],
    *,
    paths: Sequence[str] = (),
    added: Sequence[str] = (),
    searches: bool = False,
) -> None:
    """The fields of a tool call, `ev.tool` set: its names, the files it names (for a content
    search, every file under its folder: `searches`), the shell fields of a shell call, what it
    adds, its call key, then its whole input.

    Derived fields first, the raw input tree last: however large a payload is, the field-row
    cap can never push out what a guard matches on (file.path, shell.*).
    """
    ev.add("tool.name", ev.tool)
    ev.add("tool.native", native)
    if searches:
        from agentstyle.commands.listing import files_under
        from agentstyle.commands.paths import glob_names

        folder = paths[0] if paths else ev.cwd
        include = tool_input.get("glob")
        includes = [include] if isinstance(include, str) and include else []
        paths = [*paths, *files_under(folder, ev.cwd, includes=includes)] if folder else list(paths)
        if folder and includes:
            # the files its glob names, there when it runs or not: `.env*` is `.env`, …
            paths += [posixpath.join(folder, name) for name in glob_names(includes[0])]
    shown: list[str] = []
    for path in paths:
        shown.append(relative_path(path, ev.cwd))
        real = resolved_path(path, ev.cwd)
        if real is not None:
            shown.append(real)  # a symlink counts by its target too
    # a case-insensitive file system (macOS, Windows) opens `.env` for `.ENV`
    shown += [p.lower() for p in shown if p.lower() != p]
    for i, path in enumerate(dict.fromkeys(shown)):
        ev.add("file.path", path, i)
    if ev.tool == "shell":
        add_shell(ev, tool_input.get("command"))
    ev.add_list("tool.added", list(added))
    add_call_key(ev, native, tool_input)
    ev.add_tree("tool.input", tool_input)


# Rows kept free for what an adapter adds after the shell fields (the call key, tool.added, the
# tool input tree's top keys), so that the shell fields can never push those out.
SHELL_ROW_RESERVE = 64
# Shell rows one event carries: evaluation time grows with them (every shell rule tests every
# row), and the hook has seconds. A command past it is flagged incomplete, never cut quietly.
MAX_SHELL_ROWS = 10_000


def add_shell(ev: Event, command: Any) -> None:
    """The shell fields of a shell call (docs/design/shell.md documents them): `shell.incomplete`
    and `shell.dynamic` first, then `shell.commands` and `shell.code`. What does not fit the
    event's row or value bounds is not dropped quietly: `shell.incomplete` says so."""
    if not isinstance(command, str):
        return
    from agentstyle.shell import parse_shell

    parsed = parse_shell(command, ev.cwd or None)
    ev.shell = parsed
    issues = list(parsed.issues)
    room = min(MAX_SHELL_ROWS, MAX_FIELD_ROWS - len(ev.fields) - SHELL_ROW_RESERVE)
    room -= 1 + len(parsed.dynamic)
    commands, code = list(parsed.commands), list(parsed.code)
    if len(commands) + len(code) > room:
        issues.append("field-row-limit")
        commands = commands[: max(room, 0)]
        code = code[: max(room - len(commands), 0)]
    if any(len(c) > MAX_FIELD_CHARS for c in [*commands, *code]):
        issues.append("field-size-limit")
    if issues:
        ev.add("shell.incomplete", "true")
        ev.notes.append("shell-incomplete: " + " ".join(dict.fromkeys(issues)))
    ev.add_list("shell.dynamic", list(parsed.dynamic))
    linked = linked_forms(commands, ev.cwd, room - len(commands) - len(code))
    ev.add_list("shell.commands", commands + linked)
    ev.add_list("shell.code", code)


# Path words checked for a symbolic link on the way, per shell call (each costs a realpath).
MAX_LINK_WORDS = 256


def linked_forms(commands: list[str], cwd: str, room: int) -> list[str]:
    """Elements again with their path words where a symbolic link on the way really leads:
    `echo {} > cl/settings.json`, `cl` a link to `.claude`, is also
    `echo {} > .claude/settings.json` (a file tool's `file.path` counts a link the same way)."""
    if not cwd or room <= 0:
        return []
    out: list[str] = []
    checked: dict[str, str | None] = {}
    for element in commands:
        words = element.split(" ")
        changed = False
        for i, word in enumerate(words):
            if "/" not in word or word.startswith(("-", "$", "~")) or "://" in word:
                continue
            if word not in checked:
                if len(checked) >= MAX_LINK_WORDS:
                    break
                checked[word] = resolved_path(word, cwd)
            real = checked[word]
            if real is not None:
                words[i] = real
                changed = True
        if changed and len(out) < room:
            out.append(" ".join(words))
    return out


def parse_json_text(value: Any) -> Any:
    """A field some harnesses send as a JSON string (Cursor MCP input, tool output)."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def session_event(
    spec: HarnessSpec,
    native_event: str,
    payload: Mapping[str, Any],
    *,
    point: str | None,
    turn_key: str | None = None,
    version_key: str | None = None,
    model_pick: ModelPick | None = None,
) -> Event:
    """`new_event` at `point` for a payload that names its session `session_id` and its folder
    `cwd`, its turn and the client's version under `turn_key` and `version_key` where it has
    them."""
    return new_event(
        spec.name,
        native_event,
        point,
        payload,
        session_id=text_id(payload.get("session_id")),
        cwd=text_id(payload.get("cwd")),
        turn_id=text_id(payload.get(turn_key)) if turn_key else None,
        version=text_id(payload.get(version_key)) if version_key else None,
        model_pick=model_pick,
    )


def add_source(ev: Event, payload: Mapping[str, Any], sources: Mapping[str, str]) -> None:
    """A session start's source: the payload's `source` as `sources` names it. An unknown or
    missing source keeps the session's scope (like `resume`): treating it as `startup` would
    reset dedup and inject everything again."""
    ev.session_source = sources.get(str(payload.get("source")), "resume")
    ev.add("session.source", ev.session_source)


class ClaudeShape(NamedTuple):
    """What differs between the clients whose payloads have Claude Code's shape
    (`claude_shaped_event`): the key of the turn, the session sources by the client's names,
    and the reader of the model in a transcript entry (None: the payload's model only)."""

    turn_key: str
    sources: Mapping[str, str]
    model_pick: ModelPick | None = None


def claude_shaped_event(
    spec: HarnessSpec, native_event: str, payload: Mapping[str, Any], shape: ClaudeShape
) -> Event:
    """An event of the payload shape Claude Code, Codex, Copilot CLI and Qwen Code share:
    `session_id`, `cwd`, the turn under `shape.turn_key`, then the session source, the prompt,
    the stop's last message (from the transcript when not given)."""
    from agentstyle.evaluator.event import read_transcript_tail

    point = spec.point_of(native_event)
    ev = session_event(
        spec,
        native_event,
        payload,
        point=point,
        turn_key=shape.turn_key,
        model_pick=shape.model_pick,
    )
    if native_event == "SessionStart":
        add_source(ev, payload, shape.sources)
    elif native_event == "UserPromptSubmit":
        add_prompt(ev, payload.get("prompt", ""))
    elif native_event in ("Stop", "SubagentStop"):
        ev.stop_active = payload.get("stop_hook_active") is True
        text = payload.get("last_assistant_message")
        if text is None and isinstance(payload.get("transcript_path"), str):
            text = read_transcript_tail(payload["transcript_path"])
        if text is not None:
            ev.add("response.text", text)
    return ev


def typed_entry_model(entry_type: str) -> ModelPick:
    """The reader of the model in a JSONL transcript whose model entries name their `type` and
    `model` at the top (Gemini CLI's `gemini` entries, Qwen Code's `assistant` ones)."""

    def pick(entry: dict[str, Any]) -> str | None:
        model = entry.get("model")
        if entry.get("type") == entry_type and isinstance(model, str) and model:
            return model
        return None

    return pick


# Per session: (transcript path, size, mtime) → the model read there. The resident engine
# answers many events of one session; an unchanged transcript is never read twice.
_MODEL_CACHE: dict[str, tuple[str, int, int, str | None]] = {}
_MODEL_CACHE_MAX = 512


def transcript_model(session_id: str, path: Any, pick: ModelPick) -> str | None:
    """The model of the last assistant entry of the session's JSONL transcript (`pick` reads
    one entry), with the bounded tail reader the stop message uses; cached per session."""
    from agentstyle.evaluator.event import last_in_transcript

    if not isinstance(path, str) or not path:
        return None
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    cached = _MODEL_CACHE.get(session_id)
    if cached is not None and cached[:3] == (path, st.st_size, st.st_mtime_ns):
        return cached[3]
    model = last_in_transcript(path, pick)
    if model is None and cached is not None and cached[0] == path:
        model = cached[3]  # the window holds no assistant entry now: the last one seen stands
    if len(_MODEL_CACHE) >= _MODEL_CACHE_MAX:
        _MODEL_CACHE.clear()
    _MODEL_CACHE[session_id] = (path, st.st_size, st.st_mtime_ns, model)
    return model
