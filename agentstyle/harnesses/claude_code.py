"""Claude Code adapter: read its hook payloads into normalized events, write its wire answers."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.engine.decision import Decision, Wire
from agentstyle.engine.event import Event
from agentstyle.harnesses import common
from agentstyle.harnesses.base import CONTEXT, MESSAGE, with_approve_hint
from agentstyle.harnesses.claude_code_spec import NAME, SPEC

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonspans import Dialect

NATIVE_TOOLS: dict[str, str] = {
    native: tool for tool, natives in SPEC.tool_names.items() for native in natives
}
FILE_PATH_KEYS = ("file_path", "notebook_path", "path")
# SessionStart `fork` arrived as `resume` before v2.1.214
# (docs/design/harnesses.md#claude-code-events).
SOURCES = {
    "startup": "startup",
    "resume": "resume",
    "clear": "clear",
    "compact": "compact",
    "fork": "resume",
}


# -- facts once UNCONFIRMED, checked against the real client -----------------------------------
# Each is checked in `tests/e2e/test_facts.py` (`make e2e`, the pinned client of
# tests/e2e/clients.json); change it here, in one line, when the client changes.

# No hook payload names the model (2.1.332: not even SessionStart, where the documentation
# says "not guaranteed": docs/design/harnesses.md#claude-code-payloads); the transcript has it on
# every assistant entry (`message.model`).
MODEL_FROM_TRANSCRIPT = True

# A Stop/SubagentStop `decision: block` reaches the model twice, once with the hook's whole
# command line; `hookSpecificOutput.additionalContext` (v2.1.163+) continues the turn with the
# reason once and no command line, and the next Stop still says `stop_hook_active`.
STOP_CONTINUE_AS_CONTEXT = True

# In `-p` (headless) runs an `ask` is never a prompt: the call is denied and the question is
# the model's tool result word for word, so the question carries how to let the call through.
ASK_CARRIES_APPROVE_HINT = True


def _transcript_model(entry: dict[str, Any]) -> str | None:
    message = entry.get("message")
    if isinstance(message, dict) and message.get("role") == "assistant":
        model = message.get("model")
        if isinstance(model, str) and model and not model.startswith("<"):
            return model  # `<synthetic>` marks an entry the client wrote itself
    return None


def looks_like(payload: dict[str, Any]) -> bool:
    return "hook_event_name" in payload and "cursor_version" not in payload


def split_mcp(name: str) -> tuple[str, str] | None:
    """`mcp__<server>__<tool>` → (server, tool)."""
    if not name.startswith("mcp__"):
        return None
    rest = name[len("mcp__") :]
    server, sep, tool = rest.partition("__")
    if not sep or not server:
        return None
    return server, tool


def added_text(native: str, tool_input: dict[str, Any]) -> list[str]:
    """What a write/edit call adds (docs/conditions.md#fields `tool.added`)."""
    if native == "Write":
        return [str(tool_input.get("content", ""))]
    if native == "Edit":
        return [str(tool_input.get("new_string", ""))]
    if native == "MultiEdit":
        edits = tool_input.get("edits")
        if isinstance(edits, list):
            return [str(e.get("new_string", "")) for e in edits if isinstance(e, dict)]
    if native == "NotebookEdit":
        return [str(tool_input.get("new_source", ""))]
    return []


def _text(value: Any) -> str | None:
    """An identifier from the payload as a string (None when absent or not a scalar)."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def normalize(payload: dict[str, Any], native_event: str) -> Event:
    """A Claude Code payload as a normalized event; `native_event` is from the command line."""
    point = SPEC.point_of(native_event)
    cwd = _text(payload.get("cwd")) or ""
    ev = Event(
        harness=NAME,
        native_event=native_event,
        point=point,
        session_id=_text(payload.get("session_id")) or "unknown",
        cwd=cwd,
        turn_id=_text(payload.get("prompt_id")),
        ts=time.time(),
    )
    model = payload.get("model")
    if isinstance(model, str) and model:
        ev.model = model
    elif MODEL_FROM_TRANSCRIPT:
        ev.model = common.transcript_model(
            ev.session_id, payload.get("transcript_path"), _transcript_model
        )
    common.base_fields(ev, NAME, payload, None)
    common.claude_shaped_fields(ev, native_event, payload, SOURCES)
    if point in ("tool.pre", "tool.post", "tool.failed"):
        tool_event(ev, payload)
    return ev


def tool_event(ev: Event, payload: dict[str, Any]) -> None:
    native = str(payload.get("tool_name") or "")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    ev.native_tool = native
    ev.call_id = _text(payload.get("tool_use_id"))
    mcp = split_mcp(native)
    if mcp is not None:
        ev.mcp_server = mcp[0]
        ev.tool = "mcp"
        ev.add("mcp.server", mcp[0])
        ev.add("mcp.tool", mcp[1])
    elif native == "Skill":
        ev.tool = "other"
        ev.skill = str(
            tool_input.get("skill") or tool_input.get("name") or tool_input.get("command") or ""
        )
        ev.add("skill.name", ev.skill)
    else:
        ev.tool = NATIVE_TOOLS.get(native, "other")
    ev.add("tool.name", ev.tool)
    ev.add("tool.native", native)
    # Derived fields first, the raw input/output trees last: however large a payload is, the
    # field-row cap can never push out what a guard matches on (file.path, shell.*).
    if ev.tool in ("file.read", "file.write", "file.edit", "file.search", "notebook.edit"):
        common.add_file_path(ev, tool_input, FILE_PATH_KEYS)
    if ev.tool == "shell":
        common.add_shell(ev, tool_input.get("command"))
    ev.add_list("tool.added", added_text(native, tool_input))
    common.add_call_key(ev, native, tool_input)
    ev.add_tree("tool.input", tool_input)
    if ev.native_event == "PostToolUse":
        ev.add_tree("tool.output", payload.get("tool_response"))
    elif ev.native_event == "PostToolUseFailure":
        ev.failed = True
        ev.add_tree("tool.output", payload.get("error"))


def _dump(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def answer(decision: Decision, native_event: str, event: Event | None = None) -> Wire:
    """The exact stdout and exit code Claude Code reads
    (docs/design/harnesses.md#claude-code-answers)."""
    reason = "\n".join(decision.reasons)
    context = "\n\n".join(decision.contexts)
    message = "\n\n".join(decision.messages)
    out: dict[str, Any] = {}
    specific: dict[str, Any] = {"hookEventName": native_event}
    if native_event == "PermissionRequest":
        if decision.verdict == "block":
            specific["decision"] = {"behavior": "deny", "message": reason}
        elif decision.verdict == "allow":
            specific["decision"] = {"behavior": "allow"}
        else:
            return Wire(_dump({"systemMessage": message}) if message else "")
        if message:
            out["systemMessage"] = message
        out["hookSpecificOutput"] = specific
        return Wire(_dump(out))
    if native_event in ("SessionEnd", "Notification"):
        return Wire("")
    # Only what the point can deliver (docs/design/harnesses.md#answers): a `warn` at a context-only
    # point reaches the model alone, at a message-only point the user alone.
    point = SPEC.point_of(native_event)
    ps = SPEC.points.get(point) if point else None
    if ps is not None and CONTEXT not in ps.capabilities:
        context = ""
    if ps is not None and MESSAGE not in ps.capabilities:
        message = ""
    if message and decision.verdict != "block":
        out["systemMessage"] = message
    if native_event == "PreToolUse":
        if decision.verdict == "block":
            specific["permissionDecision"] = "deny"
            specific["permissionDecisionReason"] = reason
        elif decision.verdict == "ask":
            specific["permissionDecision"] = "ask"
            specific["permissionDecisionReason"] = (
                with_approve_hint(reason) if ASK_CARRIES_APPROVE_HINT else reason
            )
        elif decision.verdict == "allow":
            specific["permissionDecision"] = "allow"
            if reason:
                specific["permissionDecisionReason"] = reason
        if context and decision.verdict != "block":
            specific["additionalContext"] = context
    elif native_event in ("Stop", "SubagentStop") and STOP_CONTINUE_AS_CONTEXT:
        if decision.verdict == "block":
            # the reason once, as feedback, and no hook command line (facts above)
            specific["additionalContext"] = reason or "Continue."
            return Wire(_dump({"hookSpecificOutput": specific}))
    elif native_event in ("UserPromptSubmit", "Stop", "SubagentStop", "PreCompact"):
        if decision.verdict == "block":
            out = {"decision": "block"}
            if native_event != "PreCompact":
                out["reason"] = reason
            return Wire(_dump(out))
        if context and native_event == "UserPromptSubmit":
            specific["additionalContext"] = context
    elif context:
        specific["additionalContext"] = context
    if len(specific) > 1:
        out["hookSpecificOutput"] = specific
    return Wire(_dump(out) if out else "")


# Gate events where `style install --fail-closed` refuses on a handler error: the events
# install marks with `onFailure: block` (docs/design/harnesses.md#claude-code-failure: the
# install-level switch guards the gates).
REFUSABLE_EVENTS = ("PreToolUse", "UserPromptSubmit", "PermissionRequest")


def can_refuse(native_event: str) -> bool:
    return native_event in REFUSABLE_EVENTS


def deny_answer(native_event: str, reason: str) -> Wire:
    """A refusal for a handler error under `fail: closed` (docs/design/runtime.md#fail-modes)."""
    return answer(Decision(verdict="block", reasons=[reason]), native_event)


# A `--fail-closed` refusal exits 1: with `onFailure: block` Claude Code blocks on it even if the
# JSON could not be read (docs/design/runtime.md#fail-modes).
FAIL_CLOSED_EXIT = 1


def no_opinion(native_event: str) -> Wire:
    return Wire("")


# Where a notice reaches the person: `systemMessage` is a universal field, shown as a warning,
# except on the events that discard it (docs/design/harnesses.md#claude-code-answers). There the
# notice goes to stderr, which Claude Code shows for a manual `/compact` and keeps in its debug log
# otherwise.
NOTICE_FIELD = "systemMessage"
NO_NOTICE_EVENTS = frozenset({"PreCompact", "SessionEnd", "Notification"})
NOTICE_EVENTS = frozenset(
    e for e in (*SPEC.native_events(), *SPEC.extra_native_events) if e not in NO_NOTICE_EVENTS
)


def with_notice(wire: Wire, native_event: str, text: str) -> Wire:
    """`wire` with a notice for the person (a fail-open, a first-use build, …), merged into
    the answer's `systemMessage`; on an event that shows none, on stderr."""
    if native_event in NOTICE_EVENTS:
        merged = common.merge_notice(wire.stdout, NOTICE_FIELD, text)
        if merged is not None:
            return Wire(merged, wire.exit_code, wire.stderr)
    return common.notice_on_stderr(wire, text)


# -- install: `.claude/settings*.json` (docs/design/harnesses.md#claude-code-config) ---------------

SCOPES = ("project", "local", "user")
FLAT = False  # event → matcher group → handler list
CONFIG_FILES = {
    "project": ".claude/settings.json",
    "local": ".claude/settings.local.json",
    "user": ".claude/settings.json",
}


# The client that reports its version (`requires.harnesses`, `--fail-closed` checks).
VERSION_COMMAND = ("claude", "--version")


def config_path(root: Path, scope: str) -> Path:
    if scope == "user":
        return common.home_path(CONFIG_FILES["user"])
    return root / CONFIG_FILES[scope]


def handler(command: str, native_event: str, gate: bool) -> dict[str, Any]:
    """One handler; no timeout (the harness default applies: docs/design/harnesses.md#timeouts)."""
    out: dict[str, Any] = {"type": "command", "command": command}
    if gate:
        out["onFailure"] = "block"  # v2.1.295+ (install checks `claude --version`)
    return out


def group(one: dict[str, Any], matcher: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"matcher": matcher} if matcher else {}
    out["hooks"] = [one]
    return out


def matcher(exact: list[str], patterns: list[str]) -> str | None:
    """A `|` list of names, or an anchored regex (a Claude matcher regex is unanchored)."""
    from agentstyle.policy.plan import combine_matchers

    return combine_matchers(exact, patterns)


def config_dialect() -> Dialect:
    """How Claude Code reads its settings files: strict JSON (no comments, no trailing commas,
    docs/design/harnesses.md#claude-code-config); its CLI reads past a byte order mark
    (anthropics/claude-code#81355)."""
    from agentstyle.configfiles.jsonspans import Dialect

    return Dialect(client="claude code")


def write_config(
    before: str | None,
    groups: dict[str, list[dict[str, Any]]],
    is_ours: Any,
    name: str,
    markers: list[str],
) -> tuple[str, list[str]]:
    return common.write_groups_config(
        before, groups, is_ours, name, markers, dialect=config_dialect()
    )


def strip_config(text: str, is_ours: Any, markers: list[str], name: str) -> str:
    return common.strip_groups_config(text, is_ours, markers, name, dialect=config_dialect())


def static_path(root: Path, scope: str) -> Path | None:
    return common.home_path(".claude/CLAUDE.md") if scope == "user" else root / "CLAUDE.md"


place_static = common.place_static
strip_static = common.strip_static


def install_notes(fail_closed: bool) -> list[str]:
    return []


# -- doctor ----------------------------------------------------------------------------------


def synthetic_payload(native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
    """A harmless event of this native kind, as Claude Code would send it."""
    payload: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": None,
        "cwd": cwd,
        "hook_event_name": native_event,
    }
    if native_event == "SessionStart":
        payload["source"] = "startup"
    elif native_event == "UserPromptSubmit":
        payload["prompt"] = "style doctor"
    elif SPEC.point_of(native_event) in ("tool.pre", "tool.post", "tool.failed"):
        payload.update(tool_name="Bash", tool_input={"command": "true"}, tool_use_id="style-doctor")
        if native_event == "PostToolUse":
            payload["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
        elif native_event == "PostToolUseFailure":
            payload["error"] = "Exit code 1"
    elif native_event in ("Stop", "SubagentStop"):
        payload.update(stop_hook_active=False, last_assistant_message="style doctor")
    return payload


def wire_problem(native_event: str, stdout: str, code: int) -> str | None:
    """Why an answer is not one Claude Code reads as intended (None: it is)."""
    obj, problem = common.json_problem(stdout)
    if problem:
        return problem
    if code not in (0, 2):
        return f"exit code {code} (Claude Code reads it as a hook error)"
    specific = (obj or {}).get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("hookEventName") != native_event:
        return "hookSpecificOutput.hookEventName does not name the event"
    return None
