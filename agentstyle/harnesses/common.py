"""Pieces every adapter shares: payload scalars, MCP names, derived fields, the call key, the
install-side helpers for JSON hook configs. Standard library only (the hook path imports it)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.engine.decision import Wire
from agentstyle.engine.event import (
    CALL_KEY_FIELD,
    MAX_FIELD_CHARS,
    MAX_FIELD_ROWS,
    Event,
    relative_path,
    resolved_path,
)

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonspans import Dialect

# How STYLE's own handlers are told from a user's: the module form (personal scopes) or the
# portable `style-hook` console script (committed configs: install/hookcommand.py).
HOOK_MODULE = "agentstyle.hook"
HOOK_SCRIPT = "style-hook"


def is_style_command(text: str) -> bool:
    return HOOK_MODULE in text or f"{HOOK_SCRIPT} --harness " in text


def text_id(value: Any) -> str | None:
    """An identifier from the payload as a string (None when absent or not a scalar)."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def split_mcp(name: str) -> tuple[str, str] | None:
    """`mcp__<server>__<tool>` → (server, tool)."""
    if not name.startswith("mcp__"):
        return None
    rest = name[len("mcp__") :]
    server, sep, tool = rest.partition("__")
    if not sep or not server:
        return None
    return server, tool


def dump(obj: Mapping[str, Any]) -> str:
    """One compact JSON object, as every harness reads it."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def call_key(kind: str, value: Any) -> str:
    """A stable digest of one call: the native tool (or `prompt`) and its whole input."""
    body = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{kind}\0{body}".encode()).hexdigest()[:32]


def add_call_key(ev: Event, kind: str, value: Any) -> None:
    ev.add(CALL_KEY_FIELD, call_key(kind, value))


def add_file_path(ev: Event, tool_input: Mapping[str, Any], keys: tuple[str, ...]) -> None:
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            ev.add("file.path", relative_path(value, ev.cwd))
            real = resolved_path(value, ev.cwd)
            if real is not None:
                ev.add("file.path", real, 1)  # a symlink counts by its target too
            return


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


def parse_json_text(value: Any) -> Any:
    """A field some harnesses send as a JSON string (Cursor MCP input, tool output)."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def short(text: str, limit: int = 200) -> str:
    """One line, at most `limit` characters: how a command or path is named to the person."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def rule_names(rules: list[str]) -> str:
    """Rule ids as the person reads them in a notice: the local id, without the package."""
    names = [r.split("/", 1)[1] if "/" in r else r for r in rules]
    return ", ".join(dict.fromkeys(names)) or "policy"


def merge_notice(stdout: str, key: str, text: str) -> str | None:
    """An answer (one JSON object, or empty for "no opinion") with `text` added to its
    user-facing field `key`, after any text already there (a `warn` rule's message): still one
    object. None when the answer is not one JSON object (nothing to merge into)."""
    if not stdout.strip():
        obj: dict[str, Any] = {}
    else:
        try:
            parsed = json.loads(stdout)
        except ValueError:
            return None
        if not isinstance(parsed, dict):
            return None
        obj = parsed
    before = obj.get(key)
    if isinstance(before, str) and before.strip():
        obj[key] = before if text in before else f"{before}\n\n{text}"
    else:
        obj[key] = text
    return dump(obj)


def notice_on_stderr(wire: Wire, text: str) -> Wire:
    """Where an event has no user-facing field: the notice as one more stderr line, the best
    place left (some clients show a hook's stderr, all keep it in their debug log)."""
    line = " ".join(text.split())
    return Wire(wire.stdout, wire.exit_code, wire.stderr + line + "\n")


# -- install side ------------------------------------------------------------------------------


def anchored(exact: list[str], patterns: list[str]) -> str | None:
    """A regex matcher anchored at both ends (harnesses whose matcher is an unanchored regex)."""
    names = list(dict.fromkeys(exact))
    parts = [re.escape(n) for n in names] + list(dict.fromkeys(patterns))
    if not parts:
        return None
    return "^(" + "|".join(parts) + ")$"


def home_path(relative: str) -> Path:
    return Path(os.path.expanduser("~")) / relative


def command_interpreter(command: str) -> str | None:
    """The program of a handler command STYLE wrote: its first (double-quoted) word."""
    command = command.strip()
    if command.startswith('"'):
        m = re.match(r'"((?:[^"\\]|\\.)*)"', command)
        return re.sub(r"\\(.)", r"\1", m.group(1)) if m else None
    return command.split()[0] if command.split() else None


def json_problem(stdout: str) -> tuple[dict[str, Any] | None, str | None]:
    """The one JSON object of an answer, or why the answer is not one."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None, None
    if len(lines) > 1:
        return None, "more than one line on stdout"
    try:
        obj = json.loads(lines[0])
    except ValueError:
        return None, "stdout is not JSON"
    if not isinstance(obj, dict):
        return None, "stdout is not a JSON object"
    return obj, None


def place_static(before: str | None, blocks: dict[str, str], name: str) -> str:
    """Static rules between `<!-- style:begin/end -->` markers of an instruction file."""
    from agentstyle.configfiles.markers import place_blocks

    return place_blocks(before, blocks, name=name)


def strip_static(before: str, name: str) -> str:
    from agentstyle.configfiles.markers import remove_blocks

    return remove_blocks(before, name=name)


def no_fail_closed_notes(harness: str, fail_closed: bool) -> list[str]:
    """What `--fail-closed` cannot do on a harness without a fail-closed switch."""
    if not fail_closed:
        return []
    return [
        f"{harness} hooks have no fail-closed switch: STYLE refuses gate calls itself when it "
        "cannot evaluate, but a hook process that crashes or times out lets the call run"
    ]


def write_groups_config(
    before: str | None,
    groups: dict[str, list[dict[str, Any]]],
    is_ours: Any,
    name: str,
    markers: list[str],
    *,
    dialect: Dialect,
) -> tuple[str, list[str]]:
    """A matcher-group config (Claude Code, Codex) with STYLE's handlers replaced; these
    harnesses need no extra key, so the markers pass through unchanged."""
    from agentstyle.configfiles.hookconfig import install_groups

    return install_groups(before, groups, is_ours=is_ours, name=name, dialect=dialect), markers


def strip_groups_config(
    text: str, is_ours: Any, markers: list[str], name: str, *, dialect: Dialect
) -> str:
    from agentstyle.configfiles.hookconfig import uninstall_groups

    return uninstall_groups(text, is_ours=is_ours, name=name, dialect=dialect)


def claude_shaped_fields(
    ev: Event, native_event: str, payload: Mapping[str, Any], sources: Mapping[str, str]
) -> None:
    """The event-specific fields of the payloads Claude Code and Codex share: the session
    source, the prompt, the stop's last message (from the transcript when not given)."""
    from agentstyle.engine.event import read_transcript_tail

    if native_event == "SessionStart":
        # An unknown or missing source keeps the session's scope (like `resume`): treating it
        # as `startup` would reset dedup and inject everything again.
        ev.session_source = sources.get(str(payload.get("source")), "resume")
        ev.add("session.source", ev.session_source)
    elif native_event == "UserPromptSubmit":
        ev.add("prompt", payload.get("prompt", ""))
        add_call_key(ev, "prompt", payload.get("prompt", ""))
    elif native_event in ("Stop", "SubagentStop"):
        ev.stop_active = payload.get("stop_hook_active") is True
        text = payload.get("last_assistant_message")
        if text is None and isinstance(payload.get("transcript_path"), str):
            text = read_transcript_tail(payload["transcript_path"])
        if text is not None:
            ev.add("response.text", text)


# Per session: (transcript path, size, mtime) → the model read there. The resident engine
# answers many events of one session; an unchanged transcript is never read twice.
_MODEL_CACHE: dict[str, tuple[str, int, int, str | None]] = {}
_MODEL_CACHE_MAX = 512


def transcript_model(
    session_id: str, path: Any, pick: Callable[[dict[str, Any]], str | None]
) -> str | None:
    """The model of the last assistant entry of the session's JSONL transcript (`pick` reads
    one entry), with the bounded tail reader the stop message uses; cached per session."""
    from agentstyle.engine.event import last_in_transcript

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
