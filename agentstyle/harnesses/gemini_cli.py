"""Gemini CLI adapter: read its hook payloads into normalized events, write its wire answers.

Gemini CLI (docs/design/harnesses.md#gemini-cli): `.gemini/settings.json` with timeouts in
milliseconds and the hooks system behind an enable flag; decisions are `decision: allow|deny` +
`reason`; stdout on exit 0 must be JSON, so "no opinion" is `{}`; BeforeTool has no add-context
field (the model reads text there only as a deny reason); a failed tool is an AfterTool with
`error`.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.engine.decision import Decision, Wire
from agentstyle.engine.event import Event
from agentstyle.harnesses import common
from agentstyle.harnesses.base import CONTEXT, MESSAGE, with_approve_hint
from agentstyle.harnesses.gemini_cli_spec import NAME, SPEC

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonspans import Dialect

NATIVE_TOOLS: dict[str, str] = {
    native: tool for tool, natives in SPEC.tool_names.items() for native in natives
}
# `tool_input` shapes beyond write_file were UNCONFIRMED
# (docs/design/harnesses.md#gemini-cli-payloads): the path keys tried. 0.61.0 sends `file_path` for
# write_file and replace (tests/e2e/test_facts.py).
FILE_PATH_KEYS = ("file_path", "absolute_path", "path", "dir_path")
SOURCES = {"startup": "startup", "resume": "resume", "clear": "clear"}
DECISION_EVENTS = frozenset({"BeforeTool", "BeforeAgent", "AfterAgent"})
CONTEXT_EVENTS = frozenset({"SessionStart", "BeforeAgent", "AfterTool"})

# -- facts once UNCONFIRMED, checked against the real client -----------------------------------
# Each is checked in `tests/e2e/test_facts.py` (`make e2e`, the pinned client of
# tests/e2e/clients.json); change it here, in one line, when the client changes.

# No hook payload names the model (0.61.0); the session's JSONL transcript (`transcript_path`)
# has it on every model entry (`type: gemini`, `model`).
MODEL_FROM_TRANSCRIPT = True


def _transcript_model(entry: dict[str, Any]) -> str | None:
    model = entry.get("model")
    if entry.get("type") == "gemini" and isinstance(model, str) and model:
        return model
    return None


# The switch that turns the hooks system on. Older builds also read `hooks.enabled`
# (UNCONFIRMED per version, docs/design/harnesses.md#gemini-cli-config); STYLE writes only this one,
# and 0.61.0 runs the hooks with it alone (tests/e2e/test_facts.py).
ENABLE_FLAG = ("tools", "enableHooks")


# A shell command that exits non-zero is no tool error to Gemini CLI: its output says
# `Exit Code: 1` (the fixture's `Exit Code: 0` line). It is a failed call, as Claude Code's
# Bash failure is, so `state.failures` and `state.commands_failed` see it.
_EXIT_CODE = re.compile(r"^Exit Code: (-?\d+)\s*$", re.M)


def _exited_non_zero(payload: dict[str, Any]) -> bool:
    if payload.get("tool_name") != "run_shell_command":
        return False
    response = payload.get("tool_response")
    content = response.get("llmContent") if isinstance(response, dict) else None
    # the last such line: Gemini CLI's own comes after the command's output
    codes = _EXIT_CODE.findall(content) if isinstance(content, str) else []
    return bool(codes) and int(codes[-1]) != 0


def _point(payload: dict[str, Any], native_event: str) -> str | None:
    if native_event == "AfterTool":
        response = payload.get("tool_response")
        if (isinstance(response, dict) and response.get("error")) or _exited_non_zero(payload):
            return "tool.failed"
        return "tool.post"
    return SPEC.point_of(native_event)


def normalize(payload: dict[str, Any], native_event: str) -> Event:
    """A Gemini CLI payload as a normalized event; `native_event` is from the command line."""
    point = _point(payload, native_event)
    ev = Event(
        harness=NAME,
        native_event=native_event,
        point=point,
        session_id=common.text_id(payload.get("session_id")) or "unknown",
        cwd=common.text_id(payload.get("cwd")) or "",
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
    if native_event == "SessionStart":
        ev.session_source = SOURCES.get(str(payload.get("source")), "resume")
        ev.add("session.source", ev.session_source)
    elif native_event == "BeforeAgent":
        ev.add("prompt", payload.get("prompt", ""))
        common.add_call_key(ev, "prompt", payload.get("prompt", ""))
    elif native_event == "AfterAgent":
        ev.stop_active = payload.get("stop_hook_active") is True
        text = payload.get("prompt_response")
        if isinstance(text, str):
            ev.add("response.text", text)
    if point in ("tool.pre", "tool.post", "tool.failed"):
        tool_event(ev, payload)
    return ev


def tool_event(ev: Event, payload: dict[str, Any]) -> None:
    native = str(payload.get("tool_name") or "")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    ev.native_tool = native
    mcp = common.split_mcp(native)
    if mcp is not None:
        ev.mcp_server = mcp[0]
        ev.tool = "mcp"
        ev.add("mcp.server", mcp[0])
        ev.add("mcp.tool", mcp[1])
    else:
        ev.tool = NATIVE_TOOLS.get(native, "other")
    ev.add("tool.name", ev.tool)
    ev.add("tool.native", native)
    if ev.tool in ("file.read", "file.write", "file.edit", "file.search"):
        common.add_file_path(ev, tool_input, FILE_PATH_KEYS)
    if ev.tool == "shell":
        common.add_shell(ev, tool_input.get("command"))
    if native == "write_file":
        ev.add_list("tool.added", [str(tool_input.get("content", ""))])
    elif native == "replace":
        ev.add_list("tool.added", [str(tool_input.get("new_string", ""))])
    common.add_call_key(ev, native, tool_input)
    ev.add_tree("tool.input", tool_input)
    if ev.native_event == "AfterTool":
        response = payload.get("tool_response")
        if ev.point == "tool.failed":
            ev.failed = True
            error = response.get("error") if isinstance(response, dict) else None
            ev.add_tree("tool.output", error or response)  # a non-zero exit: its output
        else:
            ev.add_tree("tool.output", response)


def answer(decision: Decision, native_event: str, event: Event | None = None) -> Wire:
    """The exact stdout Gemini CLI reads (docs/design/harnesses.md#gemini-cli-answers); `{}` when
    there is nothing to say."""
    reason = "\n".join(r for r in decision.reasons if r)
    verdict = decision.verdict
    point = event.point if event is not None else SPEC.point_of(native_event)
    spec = SPEC.points.get(point) if point else None
    caps = spec.capabilities if spec else frozenset()
    context = "\n\n".join(decision.contexts) if CONTEXT in caps else ""
    message = "\n\n".join(decision.messages) if MESSAGE in caps else ""
    out: dict[str, Any] = {}
    if native_event in DECISION_EVENTS and verdict == "block":
        return Wire(common.dump({"decision": "deny", "reason": reason or "STYLE refused this."}))
    if native_event == "BeforeTool" and verdict == "ask":
        # `ask` is not in the reference: refuse, and tell the person `style allow`.
        out = {"decision": "deny", "reason": with_approve_hint(reason)}
    elif native_event == "BeforeTool" and verdict == "allow":
        out["decision"] = "allow"
    if message:
        out["systemMessage"] = message
    if context and native_event in CONTEXT_EVENTS:
        out["hookSpecificOutput"] = {"hookEventName": native_event, "additionalContext": context}
    return Wire(common.dump(out))


def can_refuse(native_event: str) -> bool:
    return native_event in SPEC.gate_events


def deny_answer(native_event: str, reason: str) -> Wire:
    """A refusal for a handler error under `fail: closed` (docs/design/runtime.md#fail-modes)."""
    return answer(Decision(verdict="block", reasons=[reason]), native_event)


# No fail-closed switch in Gemini CLI: a refusal must be a readable deny (exit 0 + JSON).
FAIL_CLOSED_EXIT = 0


def no_opinion(native_event: str) -> Wire:
    return Wire("{}")


# Where a notice reaches the person: `systemMessage`, documented on every Gemini CLI event
# (docs/design/harnesses.md#gemini-cli-answers). An event STYLE does not know gets it on stderr.
NOTICE_FIELD = "systemMessage"
NOTICE_EVENTS = frozenset(SPEC.native_events())


def with_notice(wire: Wire, native_event: str, text: str) -> Wire:
    """`wire` with a notice for the person, merged into the answer's `systemMessage`."""
    if native_event in NOTICE_EVENTS:
        merged = common.merge_notice(wire.stdout, NOTICE_FIELD, text)
        if merged is not None:
            return Wire(merged, wire.exit_code, wire.stderr)
    return common.notice_on_stderr(wire, text)


# -- install: `.gemini/settings.json` (docs/design/harnesses.md#gemini-cli-config) -----------------

SCOPES = ("project", "user")
FLAT = False
CONFIG_FILES = {"project": ".gemini/settings.json", "user": ".gemini/settings.json"}


# The client that reports its version (`requires.harnesses`, `--fail-closed` checks).
VERSION_COMMAND = ("gemini", "--version")


# strip-json-comments 3.1.1, which Gemini CLI pins, blanks a comment with `replace(/\S/g, " ")`:
# what JavaScript's `\s` matches beyond JSON's four whitespace characters stays, and then
# `JSON.parse` fails on it (fixed upstream in 5.0.2).
_JS_ONLY_SPACES = (
    "\v\f\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def config_dialect() -> Dialect:
    """How Gemini CLI reads `settings.json`: `JSON.parse(stripJsonComments(text))`
    (packages/cli/src/config/settings.ts), so `//` and `/* */` comments are whitespace, and a
    trailing comma or a byte order mark makes the whole load fail."""
    from agentstyle.configfiles.jsonspans import Dialect

    return Dialect(
        client="gemini cli", comments=True, unreadable_in_comments=_JS_ONLY_SPACES, bom=False
    )


def config_path(root: Path, scope: str) -> Path:
    if scope == "user":
        return common.home_path(CONFIG_FILES["user"])
    return root / CONFIG_FILES["project"]


def handler(command: str, native_event: str, gate: bool) -> dict[str, Any]:
    """One handler; `timeout` in milliseconds (the documented default, written out)."""
    from agentstyle.timeouts import GEMINI_WRITTEN_MS

    return {"type": "command", "command": command, "name": "style", "timeout": GEMINI_WRITTEN_MS}


def group(one: dict[str, Any], matcher: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"matcher": matcher} if matcher else {}
    out["hooks"] = [one]
    return out


def write_config(
    before: str | None,
    groups: dict[str, list[dict[str, Any]]],
    is_ours: Any,
    name: str,
    markers: list[str],
) -> tuple[str, list[str]]:
    """The config with STYLE's handlers (and keys) replaced, and the markers of the keys set."""
    from agentstyle.configfiles.hookconfig import ensure_key, install_groups, undo_key

    dialect = config_dialect()
    for marker in reversed(markers):  # back to the user's keys, then the same edits again
        if before:
            before = undo_key(before, marker, name=name, dialect=dialect)
    text = install_groups(before, groups, is_ours=is_ours, name=name, dialect=dialect)
    done: list[str] = []
    if groups:
        text, made = ensure_key(text, ENABLE_FLAG, True, name=name, dialect=dialect)
        if made:
            done.append(made)
    return text, done


def strip_config(text: str, is_ours: Any, markers: list[str], name: str) -> str:
    from agentstyle.configfiles.hookconfig import undo_key, uninstall_groups

    dialect = config_dialect()
    for marker in reversed(markers):
        text = undo_key(text, marker, name=name, dialect=dialect)
    return uninstall_groups(text, is_ours=is_ours, name=name, dialect=dialect)


def enabled(text: str) -> bool:
    """Whether the hooks system is on in this settings text."""
    from agentstyle.configfiles.jsonspans import JsonEditError, parse_with_spans

    try:
        doc = parse_with_spans(text, dialect=config_dialect()).value
    except JsonEditError:
        return False
    node: Any = doc
    for key in ENABLE_FLAG:
        node = node.get(key) if isinstance(node, dict) else None
    return node is True


def static_path(root: Path, scope: str) -> Path | None:
    return common.home_path(".gemini/GEMINI.md") if scope == "user" else root / "GEMINI.md"


place_static = common.place_static
strip_static = common.strip_static


def install_notes(fail_closed: bool) -> list[str]:
    return common.no_fail_closed_notes("Gemini CLI", fail_closed)


# -- doctor ----------------------------------------------------------------------------------


def synthetic_payload(native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": None,
        "cwd": cwd,
        "hook_event_name": native_event,
        "timestamp": "1970-01-01T00:00:00.000Z",
    }
    if native_event == "SessionStart":
        payload["source"] = "startup"
    elif native_event == "SessionEnd":
        payload["reason"] = "other"
    elif native_event in ("BeforeAgent", "AfterAgent"):
        payload["prompt"] = "style doctor"
        if native_event == "AfterAgent":
            payload.update(prompt_response="style doctor", stop_hook_active=False)
    elif native_event in ("BeforeTool", "AfterTool"):
        payload.update(tool_name="run_shell_command", tool_input={"command": "true"})
        if native_event == "AfterTool":
            payload["tool_response"] = {"llmContent": "", "returnDisplay": ""}
    elif native_event == "PreCompress":
        payload["trigger"] = "manual"
    return payload


def wire_problem(native_event: str, stdout: str, code: int) -> str | None:
    obj, problem = common.json_problem(stdout)
    if problem:
        return problem
    if code not in (0, 2):
        return f"exit code {code}: Gemini CLI only warns and continues"
    if obj is None and code == 0:
        return "empty stdout (Gemini CLI parses stdout on exit 0 as JSON)"
    if obj is not None and obj.get("decision") not in (None, "allow", "deny", "block"):
        return f"unknown decision `{obj.get('decision')}`"
    return None
