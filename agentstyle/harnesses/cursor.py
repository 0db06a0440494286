"""Cursor adapter: read its hook payloads into normalized events, write its wire answers.

Cursor differs from the Claude-shaped harnesses everywhere (docs/design/harnesses.md#cursor): a flat
config with `version: 1`; camelCase events; `permission` / `user_message` (shown to the person) /
`agent_message` (fed to the model); `ask` only on beforeShellExecution and beforeMCPExecution;
no context at prompt submit; stop continues through `followup_message`, guarded by
`loop_count`. Permission hooks always get an explicit answer: empty or invalid output may be
read as a failure, and with `failClosed` as a block.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from agentstyle.evaluator.decision import Decision, Wire
from agentstyle.evaluator.event import Event, read_transcript_tail
from agentstyle.harnesses import payload as read
from agentstyle.harnesses.answer import (
    dump,
    merge_notice,
    notice_on_stderr,
    redaction_context,
    rule_names,
    short,
    with_approve_hint,
)
from agentstyle.harnesses.facts import Can
from agentstyle.harnesses.facts.cursor import NAME, SPEC
from agentstyle.harnesses.install import Key
from agentstyle.harnesses.protocol import HarnessAdapter

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonspans import Dialect

NATIVE_TOOLS = read.native_tools(SPEC)
FILE_PATH_KEYS = ("file_path", "path", "target_file")
CONTENT_KEYS = ("contents", "content", "new_string", "code_edit")

# Events whose answer is a permission (docs/design/harnesses.md#cursor-answers).
PERMISSION_EVENTS = frozenset(
    {"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile", "subagentStart"}
)
ASK_EVENTS = frozenset({"beforeShellExecution", "beforeMCPExecution"})
AGENT_MESSAGE_EVENTS = frozenset({"preToolUse", "beforeShellExecution", "beforeMCPExecution"})
CONTEXT_EVENTS = frozenset({"sessionStart", "postToolUse"})
STOP_EVENTS = frozenset({"stop", "subagentStop"})

# -- UNCONFIRMED facts, one place each ---------------------------------------------------------

# preToolUse and subagentStart answered `{decision, reason}` in the older doc copy [CU-A] and
# `{permission, user_message, agent_message}` in the newer [CU-B]; the cut-over release is
# UNCONFIRMED (tests/fixtures/expected-outputs.md row U3). Versions below this use the older form.
PERMISSION_FORM_SINCE = (2, 0, 0)

# sessionStart carries no `source`; whether it also fires on a resumed conversation is
# UNCONFIRMED: every sessionStart opens a fresh scope.
SESSION_START_SOURCE = "startup"

# What the model reads while Cursor asks the person (`agent_message` of an `ask`).
ASK_AGENT_MESSAGE = "Waiting for the user to approve this call."

# The Claude Code event names Cursor maps to its own when it runs hooks from a Claude config
# (docs/design/harnesses.md#cursor-claude-hooks); the exact mapping is UNCONFIRMED.
FROM_CLAUDE_EVENTS = {
    "SessionStart": "sessionStart",
    "UserPromptSubmit": "beforeSubmitPrompt",
    "PreToolUse": "preToolUse",
    "PostToolUse": "postToolUse",
    "PostToolUseFailure": "postToolUseFailure",
    "SubagentStart": "subagentStart",
    "SubagentStop": "subagentStop",
    "Stop": "stop",
    "PreCompact": "preCompact",
    "SessionEnd": "sessionEnd",
}


def mcp_names(payload: dict[str, Any]) -> tuple[str, str]:
    """(server, tool) of a Cursor MCP call. beforeMCPExecution names the tool bare and the
    server only by its `command` or `url` (UNCONFIRMED): `…/server-github` → `github`."""
    tool = str(payload.get("tool_name") or "")
    split = read.split_mcp(tool)
    if split is not None:
        return split
    if tool.startswith("MCP:"):
        tool = tool[len("MCP:") :]
    source = str(payload.get("command") or payload.get("url") or "")
    words = [w for w in re.split(r"[\s/]+", source) if w and not w.startswith("-")]
    server = words[-1] if words else "unknown"
    server = re.sub(r"^(?:@[^/]+/)?(?:mcp-server-|server-|mcp-)", "", server)
    server = re.sub(r"(?:-mcp|-server|\.git)$", "", server) or "unknown"
    return server, tool


def _input(value: Any) -> dict[str, Any]:
    value = read.parse_json_text(value)
    return value if isinstance(value, dict) else {}


def tool_event(ev: Event, payload: dict[str, Any]) -> None:
    event = ev.native_event
    output: Any = None
    if event in ("beforeShellExecution", "afterShellExecution"):
        native = "Shell"
        tool_input: dict[str, Any] = {"command": payload.get("command", "")}
        output = payload.get("output")
    elif event in ("beforeMCPExecution", "afterMCPExecution"):
        native = "MCP"
        tool_input = _input(payload.get("tool_input"))
        output = read.parse_json_text(payload.get("result_json"))
    elif event == "beforeReadFile":
        # The file's whole `content` is in the payload: never copied into the event.
        native = "Read"
        tool_input = {"file_path": payload.get("file_path", "")}
    elif event == "afterFileEdit":
        native = "Edit"
        tool_input = {"file_path": payload.get("file_path", ""), "edits": payload.get("edits")}
    else:
        native = str(payload.get("tool_name") or "")
        tool_input = _input(payload.get("tool_input"))
        output = read.parse_json_text(payload.get("tool_output"))
    ev.native_tool = native
    ev.call_id = read.text_id(payload.get("tool_use_id"))
    if native == "MCP" or native.startswith("MCP:") or read.split_mcp(native):
        read.set_mcp(ev, *mcp_names(payload))
    else:
        ev.tool = NATIVE_TOOLS.get(native, "other")
    added = added_text(ev.tool, tool_input)
    read.add_named_tool(ev, native, tool_input, SPEC, FILE_PATH_KEYS, added)
    if event == "postToolUseFailure":
        ev.failed = True
        ev.add_tree("tool.output", payload.get("error_message"))
    elif ev.point == "tool.post":
        ev.add_tree("tool.output", output)


def added_text(tool: str | None, tool_input: dict[str, Any]) -> list[str]:
    if tool not in ("file.write", "file.edit"):
        return []
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        return [str(e.get("new_string", "")) for e in edits if isinstance(e, dict)]
    for key in CONTENT_KEYS:
        if isinstance(tool_input.get(key), str):
            return [tool_input[key]]
    return []


# -- answers -----------------------------------------------------------------------------------


def _summary(ev: Event | None) -> str | None:
    """What a refused call did, in a few words for the person."""
    if ev is None:
        return None
    command = ev.first("tool.input.command")
    if ev.tool == "shell" and command:
        return short(command)
    path = ev.first("file.path")
    if path:
        return short(path)
    if ev.tool == "mcp":
        return f"{ev.first('mcp.server')}/{ev.first('mcp.tool')}"
    return ev.native_tool or None


def _notice(decision: Decision, ev: Event | None, approval: bool) -> str:
    names = rule_names(decision.rules)
    what = _summary(ev)
    if approval:
        head = f"STYLE {names} needs your approval"
        tail = "; allow it once with `style allow --last`"
        return f"{head}: {what}{tail}" if what else head + tail
    return f"STYLE {names} blocked: {what}" if what else f"STYLE {names} blocked this call"


def _legacy(native_event: str, ev: Event | None) -> bool:
    if native_event not in ("preToolUse", "subagentStart") or ev is None:
        return False
    m = re.match(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?", ev.first("harness.version") or "")
    if not m:
        return False
    version = tuple(int(g) for g in m.groups() if g is not None)
    return version < PERMISSION_FORM_SINCE


def _permission(decision: Decision, native_event: str, ev: Event | None) -> dict[str, Any]:
    reason = "\n".join(r for r in decision.reasons if r)
    verdict = decision.verdict
    legacy = _legacy(native_event, ev)
    if verdict == "ask" and native_event in ASK_EVENTS:
        return {"permission": "ask", "user_message": reason, "agent_message": ASK_AGENT_MESSAGE}
    if verdict in ("block", "ask"):
        approval = verdict == "ask"  # no ask here: refuse, and say how to approve
        text = with_approve_hint(reason) if approval else reason
        if legacy:
            return {"decision": "deny", "reason": text}
        if native_event in AGENT_MESSAGE_EVENTS:
            return {
                "permission": "deny",
                "user_message": _notice(decision, ev, approval),
                "agent_message": text,
            }
        return {"permission": "deny", "user_message": text}
    return {"decision": "allow"} if legacy else {"permission": "allow"}


# Where a notice reaches the person: `user_message`, on the events whose answer carries one
# (docs/design/harnesses.md#cursor-answers): the permission hooks in their newer form, prompt
# submit, preCompact. Whether Cursor shows it on an `allow` is UNCONFIRMED (the doc describes it
# "when denied"). The other events (sessionStart, postToolUse, stop, the observe-only ones) and the
# older `{decision, reason}` form have no such field: there the notice goes to stderr.
NOTICE_FIELD = "user_message"
NOTICE_EVENTS = PERMISSION_EVENTS | {"beforeSubmitPrompt", "preCompact"}


def _older_form(stdout: str) -> bool:
    try:
        obj = json.loads(stdout)
    except ValueError:
        return False
    return isinstance(obj, dict) and "decision" in obj


# -- install -----------------------------------------------------------------------------------

# The top-level key a flat config names its layout version in (`version: 1`).
VERSION_KEY = ("version",)


# `.cursor/rules/style.mdc`: STYLE's own rule file; `alwaysApply` must be a real boolean.
STATIC_FRONT_MATTER = (
    "---\ndescription: Rules placed by STYLE (style install); edit the packages, not this file\n"
    "alwaysApply: true\n---\n"
)


class Cursor(HarnessAdapter):
    name = NAME
    spec = SPEC
    bad_exit = ": Cursor reads it as a failed hook"
    notice_field = NOTICE_FIELD
    notice_events = NOTICE_EVENTS

    def with_command(
        self, payload: dict[str, Any], native_event: str, command: str
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if native_event == "beforeShellExecution":  # the command is a top-level field there
            return {**payload, "command": command}, {"command": command}
        return super().with_command(payload, native_event, command)

    def looks_like(self, payload: dict[str, Any]) -> bool:
        """A Cursor-shaped payload (docs/design/harnesses.md#cursor-claude-hooks: `cursor_version` /
        `conversation_id`)."""
        return "cursor_version" in payload or "conversation_id" in payload

    def native_event_of(self, payload: dict[str, Any], given: str) -> str:
        named = str(payload.get("hook_event_name") or "")
        if SPEC.point_of(named) is not None:
            return named
        return FROM_CLAUDE_EVENTS.get(given, given)

    def duplicate(self, payload: dict[str, Any], native_event: str) -> bool:
        """A preToolUse for a tool class another gate owns (one gate per class:
        docs/design/harnesses.md#cursor-gates): that gate evaluates the call, so evaluating it here
        too would apply the same rules twice."""
        if native_event != "preToolUse":
            return False
        tool = str(payload.get("tool_name") or "")
        return (
            tool in SPEC.tool_names["shell"]
            or tool in SPEC.tool_names["file.read"]
            or tool == "MCP"
            or tool.startswith("MCP:")
            or read.split_mcp(tool) is not None
        )

    def read_event(self, payload: dict[str, Any], native_event: str) -> Event:
        point = SPEC.point_of(native_event)
        roots = payload.get("workspace_roots")
        ev = read.new_event(
            NAME,
            native_event,
            point,
            payload,
            session_id=read.text_id(payload.get("conversation_id"))
            or read.text_id(payload.get("session_id")),
            cwd=read.text_id(payload.get("cwd"))
            or (str(roots[0]) if isinstance(roots, list) and roots else ""),
            turn_id=read.text_id(payload.get("generation_id")),
            version=read.text_id(payload.get("cursor_version")),
        )
        if native_event == "sessionStart":
            ev.session_source = SESSION_START_SOURCE
            ev.add("session.source", ev.session_source)
        elif native_event == "beforeSubmitPrompt":
            read.add_prompt(ev, payload.get("prompt", ""))
        elif native_event in STOP_EVENTS:
            loops = payload.get("loop_count")
            ev.stop_active = isinstance(loops, int) and not isinstance(loops, bool) and loops > 0
            text = payload.get("summary") if native_event == "subagentStop" else None
            path = payload.get("transcript_path")
            if text is None and isinstance(path, str) and path.endswith(".jsonl"):
                text = read_transcript_tail(path)
            read.add_response(ev, text)
        return ev

    def read_tool_call(self, ev: Event, payload: dict[str, Any]) -> None:
        tool_event(ev, payload)

    def answer(self, decision: Decision, native_event: str, event: Event | None = None) -> Wire:
        """The exact stdout Cursor reads (docs/design/harnesses.md#cursor-answers); `event` names
        what was refused."""
        reason = "\n".join(r for r in decision.reasons if r)
        if native_event in PERMISSION_EVENTS:
            return Wire(dump(_permission(decision, native_event, event)))
        if native_event == "beforeSubmitPrompt":
            if decision.verdict == "block":
                return Wire(dump({"continue": False, "user_message": reason}))
            return Wire(dump({"continue": True}))  # no context field at prompt submit
        if native_event in STOP_EVENTS:
            if decision.verdict == "block" and reason:
                return Wire(dump({"followup_message": reason}))
            return Wire("{}")
        spec = SPEC.spec_of(native_event)
        context = "\n\n".join([*redaction_context(decision, spec), *decision.contexts])
        if native_event in CONTEXT_EVENTS and context and spec and Can.CONTEXT in spec.capabilities:
            return Wire(dump({"additional_context": context}))
        # Observe-only events (afterFileEdit, …) have no output fields: `{}` says "nothing".
        return Wire("{}")

    def no_opinion(self, native_event: str) -> Wire:
        return self.answer(Decision(), native_event)

    def with_notice(self, wire: Wire, native_event: str, text: str) -> Wire:
        """`wire` with a notice for the person, merged into the answer's `user_message` where
        the event's answer has one; elsewhere (the older form too) on stderr."""
        if native_event in NOTICE_EVENTS and not _older_form(wire.stdout):
            merged = merge_notice(wire.stdout, NOTICE_FIELD, text)
            if merged is not None:
                return Wire(merged, wire.exit_code, wire.stderr)
        return notice_on_stderr(wire, text)

    # -- install: `.cursor/hooks.json`, flat, `version: 1` (docs/design/harnesses.md#cursor-config)
    # ---

    flat = True  # event → handler list, no matcher groups
    config_file = ".cursor/hooks.json"
    scopes = ("project", "user", "managed")
    managed_file = "/etc/cursor/hooks.json"  # the enterprise hooks (Linux)
    # The Cursor CLI's name and output are UNCONFIRMED (`cursor-agent --version`).
    version_command = ("cursor-agent", "--version")

    def config_dialect(self) -> Dialect:
        """How Cursor reads `hooks.json`: its reader is not public, and no source says it takes
        comments, so strict JSON; a byte order mark is read past, as before."""
        from agentstyle.configfiles.jsonspans import Dialect

        return Dialect(client="cursor")

    def handler(self, command: str, native_event: str, gate: bool) -> dict[str, Any]:
        """One handler with STYLE's timeout in seconds (docs/design/harnesses.md#timeouts)."""
        from agentstyle.harnesses import written

        out: dict[str, Any] = {"command": command, "timeout": written(NAME, native_event)}
        if gate:
            out["failClosed"] = True
        return out

    def group(self, one: dict[str, Any], matcher: str | None) -> dict[str, Any]:
        """Flat layout: the handler itself carries its matcher."""
        out: dict[str, Any] = {"command": one["command"]}
        if matcher:
            out["matcher"] = matcher
        out.update((k, v) for k, v in one.items() if k != "command")
        return out

    def config_keys(self, text: str) -> list[Key]:
        """`version: 1`, unless the config names a version already."""
        from agentstyle.configfiles.jsonspans import parse_with_spans

        top = parse_with_spans(text, dialect=self.config_dialect()).value
        return [(VERSION_KEY, 1)] if isinstance(top, dict) and top.get("version") is None else []

    def place_static(self, before: str | None, blocks: dict[str, str], name: str) -> str:
        from agentstyle.configfiles.markers import place_blocks

        if before is None or not before.strip():
            if not blocks:
                return before or ""
            before = STATIC_FRONT_MATTER
        return place_blocks(before, blocks, name=name)

    def strip_static(self, before: str, name: str) -> str:
        from agentstyle.configfiles.markers import remove_blocks

        after = remove_blocks(before, name=name)
        return "" if after.strip() == STATIC_FRONT_MATTER.strip() else after

    # -- doctor --------------------------------------------------------------------------------

    def synthetic_payload(self, native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "conversation_id": session_id,
            "generation_id": "style-doctor-generation",
            "model": "style-doctor",
            "hook_event_name": native_event,
            "cursor_version": "style-doctor",
            "workspace_roots": [cwd],
            "user_email": None,
            "transcript_path": None,
        }
        if native_event in ("beforeShellExecution", "afterShellExecution"):
            payload.update(command="true", cwd=cwd, sandbox=False)
            if native_event == "afterShellExecution":
                payload.update(output="", duration=1)
        elif native_event in ("preToolUse", "postToolUse", "postToolUseFailure"):
            payload.update(
                tool_name="Shell",
                tool_input={"command": "true"},
                tool_use_id="style-doctor",
                cwd=cwd,
            )
            if native_event == "postToolUse":
                payload["tool_output"] = "{}"
            elif native_event == "postToolUseFailure":
                payload.update(error_message="exit 1", failure_type="error")
        elif native_event in ("beforeMCPExecution", "afterMCPExecution"):
            payload.update(tool_name="style_doctor", tool_input="{}", command="style-doctor")
        elif native_event == "beforeReadFile":
            payload.update(file_path=f"{cwd}/style-doctor.txt", content="")
        elif native_event == "beforeSubmitPrompt":
            payload.update(prompt="style doctor", attachments=[])
        elif native_event in STOP_EVENTS:
            payload.update(status="completed", loop_count=0)
        elif native_event in ("sessionStart", "sessionEnd"):
            payload["session_id"] = session_id
        return payload

    def check_answer(self, native_event: str, obj: dict[str, Any] | None, code: int) -> str | None:
        if native_event in PERMISSION_EVENTS:
            if obj is None:
                return "no answer on a permission hook (Cursor may read it as a failure)"
            if obj.get("permission") not in ("allow", "deny", "ask") and "decision" not in obj:
                return "a permission hook answered without `permission`"
        return None


ADAPTER = Cursor()
