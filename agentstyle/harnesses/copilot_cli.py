"""GitHub Copilot CLI adapter: read its hook payloads into normalized events, write its answers.

STYLE's handlers are registered under the PascalCase event names, so the payloads are
Claude-shaped (facts/copilot_cli.py); the answers are Copilot CLI's own flat fields
(`permissionDecision`, `modifiedArgs`, `additionalContext`, `decision`), which it reads on
every event, where Claude Code's `hookSpecificOutput` reaches the model only before a call
(docs/design/harnesses.md#copilot-cli-answers). The person is told things through the one
channel Copilot CLI shows: a hook's stderr with exit 2, a warning on every event but the gate
(`MESSAGE_EVENTS`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.evaluator.decision import Decision, Wire
from agentstyle.evaluator.event import Event
from agentstyle.harnesses import payload as read
from agentstyle.harnesses.answer import (
    deliverable,
    dump,
    notice_on_stderr,
    result_reason,
    with_approve_hint,
)
from agentstyle.harnesses.facts.copilot_cli import CLAUDE_NAMES, NAME, SPEC
from agentstyle.harnesses.install import home_path, system_path
from agentstyle.harnesses.protocol import ClaudeShapedAdapter

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonspans import Dialect
    from agentstyle.harnesses.install import Key
    from agentstyle.harnesses.transcripts import TranscriptFormat

# The hook's tool name (its Claude name: a camelCase payload's own name is mapped first) → the
# normalized tool.
NATIVE_TOOLS = read.native_tools(SPEC)
FILE_PATH_KEYS = ("path", "file_path", "paths")
# The input key of what a write/edit tool adds (docs/conditions.md#fields `tool.added`).
ADDED_KEYS = {"Write": "file_text", "Edit": "new_str"}
# `new` starts a session in `copilot -p` and after `/clear`; `startup` an interactive one.
SOURCES = {"new": "startup", "startup": "startup", "resume": "resume"}
# The events whose answer Copilot CLI reads for the model's context (`additionalContext`).
CONTEXT_EVENTS = frozenset(
    {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "SubagentStart",
    }
)
# The top-level keys of its layout version (`version: 1`).
VERSION_KEY = ("version",)
# A deny without a reason reads "No reason provided" to the model: STYLE always gives one.
FALLBACK_REASON = "STYLE refused this call."

# -- facts once UNCONFIRMED, checked against the real client -----------------------------------
# Each is checked in `tests/e2e/test_copilot_cli.py` (`make e2e`, the pinned client of
# tests/e2e/clients.json); change it here, in one line, when the client changes.

# Exit 2 with text on stderr is a warning Copilot CLI shows the person (`! text`) while it still
# reads the JSON on stdout, on these events; before a call exit 2 refuses it, after a failed one
# the text goes to the model.
MESSAGE_EXIT = 2
MESSAGE_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"})

# No hook payload names the model; the session's log does (`session.start`'s `selectedModel`,
# then each `assistant.message`'s `model`). Copilot CLI writes the log a moment after the fact:
# a session's first events may find no model there yet (`model_at_first_start`).
MODEL_FROM_TRANSCRIPT = True

# In `copilot -p` an `ask` is never a prompt: the call is refused and the question is the
# model's tool result, so the question carries how to let the call through.
ASK_CARRIES_APPROVE_HINT = True

# A shell command that exits non-zero is no failed tool to Copilot CLI (PostToolUse, result
# `success`): its result ends `<shellId: 0 completed with exit code 1>`. It is a failed call, as
# Claude Code's is, so `state.failures` and `state.commands_failed` see it.
SHELL_EXIT = re.compile(r"<shellId: [^>]*completed with exit code (-?\d+)>\s*$")

# A subagent's own turn fires `UserPromptSubmit` (its task) and `Stop` under its own session id,
# with `parent_agent_id`; `SubagentStart` and `SubagentStop` are the parent's view of it.
SUBAGENT_KEY = "parent_agent_id"


def copilot_home() -> Path:
    """Copilot CLI's own folder: `$COPILOT_HOME`, else `~/.copilot`."""
    return Path(os.environ.get("COPILOT_HOME") or home_path(".copilot"))


def transcript_of(session_id: str) -> str | None:
    """Where Copilot CLI keeps a session's events (`session-state/<id>/events.jsonl`)."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}", session_id):
        return None
    return str(copilot_home() / "session-state" / session_id / "events.jsonl")


def _entry_model(entry: dict[str, Any]) -> str | None:
    data = entry.get("data")
    if not isinstance(data, dict):
        return None
    kind = entry.get("type")
    model = data.get("selectedModel") if kind == "session.start" else None
    if kind in ("assistant.message", "tool.execution_start", "session.model_change"):
        model = data.get("model") or data.get("newModel")
    return model if isinstance(model, str) and model else None


def _entry_text(entry: dict[str, Any]) -> str | None:
    """The main agent's reply in one transcript entry (a subagent's names its parent call)."""
    data = entry.get("data")
    if entry.get("type") != "assistant.message" or not isinstance(data, dict):
        return None
    if data.get("parentToolCallId"):
        return None
    text = data.get("content")
    return text if isinstance(text, str) else None


def shaped(payload: dict[str, Any], native_event: str) -> dict[str, Any]:
    """The payload with the fields a Claude-shaped reading takes from it: the session under
    `session_id` (camelCase events name it `sessionId`), the transcript where it is kept, and
    the stop's last reply from there."""
    from agentstyle.evaluator.event import last_in_transcript

    out = dict(payload)
    session = read.text_id(out.get("session_id")) or read.text_id(out.get("sessionId"))
    if session is not None:
        out["session_id"] = session
    if not isinstance(out.get("transcript_path"), str):
        out["transcript_path"] = transcript_of(session) if session else None
    if native_event == "Stop" and not isinstance(out.get("last_assistant_message"), str):
        path = out.get("transcript_path")
        text = last_in_transcript(path, _entry_text) if isinstance(path, str) else None
        out["last_assistant_message"] = text
    elif native_event == "SubagentStop" and "last_assistant_message" not in out:
        out["last_assistant_message"] = out.get("response")
    return out


def tool_event(ev: Event, payload: dict[str, Any]) -> None:
    native, tool_input = read.tool_call(ev, payload)
    if not tool_input:  # "parsed from JSON string when possible"
        parsed = read.parse_json_text(payload.get("tool_input"))
        tool_input = parsed if isinstance(parsed, dict) else {}
    native = CLAUDE_NAMES.get(native, native)
    ev.native_tool = native
    read.name_tool(ev, native, NATIVE_TOOLS, SPEC.mcp_naming)
    added = read.added_text(native, tool_input, ADDED_KEYS)
    read.add_named_tool(ev, native, tool_input, SPEC, FILE_PATH_KEYS, added)
    read.add_output(ev, payload, "tool_result")
    if ev.native_event == "PostToolUse":
        ev.failed = native == "Bash" and _exited_non_zero(payload.get("tool_result"))
        if _llm_text(payload.get("tool_result")) is not None:
            ev.output = payload["tool_result"]  # what a `redact` answer gives back, replaced


def _llm_text(result: Any) -> str | None:
    """The text the model reads of a call's result (`text_result_for_llm`)."""
    text = result.get("text_result_for_llm") if isinstance(result, dict) else None
    return text if isinstance(text, str) and text else None


def _exited_non_zero(result: Any) -> bool:
    text = result.get("text_result_for_llm") if isinstance(result, dict) else None
    found = SHELL_EXIT.search(text) if isinstance(text, str) else None
    return found is not None and int(found.group(1)) != 0


class CopilotCli(ClaudeShapedAdapter):
    name = NAME
    spec = SPEC
    notice_events = MESSAGE_EVENTS
    bad_exit = (
        " (Copilot CLI refuses the call when a PreToolUse hook exits so, and logs it elsewhere)"
    )

    # -- reading -------------------------------------------------------------------------------

    payload_shape = read.ClaudeShape(
        "turn_id", SOURCES, _entry_model if MODEL_FROM_TRANSCRIPT else None
    )

    def read_event(self, payload: dict[str, Any], native_event: str) -> Event:
        return super().read_event(shaped(payload, native_event), native_event)

    def read_tool_call(self, ev: Event, payload: dict[str, Any]) -> None:
        tool_event(ev, payload)

    def looks_like(self, payload: dict[str, Any]) -> bool:
        """A Copilot CLI payload that arrived through another harness's config (it runs the
        project's Claude Code hooks too): the camelCase form's `sessionId`, or the PascalCase
        form's `timestamp` with no transcript but its own session-state one."""
        named = payload.get("hook_event_name")
        if named is not None and SPEC.point_of(str(named)) is None:
            return False  # another client's event (Gemini CLI's `BeforeTool`, …)
        if "sessionId" in payload:
            return True
        if "timestamp" not in payload:
            return False
        if "transcript_path" not in payload:  # every other client's payload names one
            return True
        path = payload.get("transcript_path")
        return isinstance(path, str) and "/session-state/" in path.replace("\\", "/")

    def duplicate(self, payload: dict[str, Any], native_event: str) -> bool:
        """A subagent's own prompt and stop (`SUBAGENT_KEY`): `SubagentStart` and `SubagentStop`
        carry its rules, as on the other harnesses, so its task is no prompt of the person's and
        its end no stop of the session's."""
        return native_event in ("UserPromptSubmit", "Stop") and bool(payload.get(SUBAGENT_KEY))

    # -- answering -----------------------------------------------------------------------------

    def answer(self, decision: Decision, native_event: str, event: Event | None = None) -> Wire:
        """The exact stdout, stderr and exit code Copilot CLI reads
        (docs/design/harnesses.md#copilot-cli-answers)."""
        reason = "\n".join(r for r in decision.reasons if r)
        point = SPEC.point_of(native_event)
        context, message = deliverable(decision, SPEC.points.get(point) if point else None)
        verdict = decision.verdict
        out: dict[str, Any] = {}
        if native_event == "PreToolUse":
            if verdict == "block":
                out["permissionDecision"] = "deny"
                out["permissionDecisionReason"] = reason or FALLBACK_REASON
            elif verdict == "ask":
                out["permissionDecision"] = "ask"
                out["permissionDecisionReason"] = (
                    with_approve_hint(reason) if ASK_CARRIES_APPROVE_HINT else reason
                )
            elif verdict == "allow":
                out["permissionDecision"] = "allow"
                if reason:
                    out["permissionDecisionReason"] = reason
                if decision.fix is not None and decision.fix.tool_input is not None:
                    out["modifiedArgs"] = decision.fix.tool_input
        elif native_event in ("UserPromptSubmit", "Stop", "SubagentStop") and verdict == "block":
            out = {"decision": "block", "reason": reason or FALLBACK_REASON}
        elif native_event == "PostToolUse":
            stands_in = result_reason(decision, context, _llm_text)
            if stands_in is not None:
                # the model reads "Tool result blocked: " and the reason in place of the result
                out, context = {"decision": "block", "reason": stands_in}, ""
        if context and verdict != "block" and native_event in CONTEXT_EVENTS:
            out["additionalContext"] = context
        wire = Wire(dump(out) if out else "")
        if message and native_event in MESSAGE_EVENTS:
            return _warning(wire, message)
        return wire

    def with_notice(self, wire: Wire, native_event: str, text: str) -> Wire:
        """A notice for the person: a warning where Copilot CLI shows one (`MESSAGE_EVENTS`),
        else on stderr, which it keeps in its log."""
        if native_event in MESSAGE_EVENTS and wire.exit_code in (0, MESSAGE_EXIT):
            return _warning(wire, text)
        return notice_on_stderr(wire, text)

    def error_refuses(self, native_event: str) -> bool:
        return native_event == "PreToolUse"

    # -- install: `.github/hooks/style.json` (docs/design/harnesses.md#copilot-cli-config) ----

    flat = True  # event → handler list; each handler carries its matcher
    scopes = ("project", "user", "managed")
    config_file = ".github/hooks/style.json"
    # policy hooks: every file of the folder runs, machine-wide, trusted folder or not
    managed_file = "/etc/github-copilot/policy.d/style.json"
    user_instruction_file = ".copilot/copilot-instructions.md"
    version_command = ("copilot", "--version")
    trust_note = (
        "Copilot CLI runs a project's hooks only in a folder the person trusted (interactively, "
        "or `copilot -p --trust-folder` for one run); elsewhere a session runs without them, "
        "which `style audit coverage` reports. `--scope user` hooks run in every folder"
    )

    def config_path(self, root: Path, scope: str) -> Path:
        if scope == "user":  # `$COPILOT_HOME/hooks/`, any `*.json` there
            return copilot_home() / "hooks" / "style.json"
        if scope == "managed" and self.managed_file is not None:
            return system_path(self.managed_file)
        return root / self.config_file

    def static_path(self, root: Path, scope: str) -> Path | None:
        if scope == "user":
            return copilot_home() / "copilot-instructions.md"
        return super().static_path(root, scope)

    def handler(self, command: str, native_event: str, gate: bool) -> dict[str, Any]:
        """One handler with STYLE's timeout in seconds (docs/design/harnesses.md#timeouts),
        whatever `gate` says: Copilot CLI has no fail-closed switch."""
        from agentstyle.harnesses import written

        return {"type": "command", "command": command, "timeoutSec": written(NAME, native_event)}

    def group(self, one: dict[str, Any], matcher: str | None) -> dict[str, Any]:
        """Flat layout: the handler itself carries its matcher."""
        out: dict[str, Any] = {"type": one.get("type", "command"), "command": one["command"]}
        if matcher:
            out["matcher"] = matcher
        out.update((k, v) for k, v in one.items() if k not in out)
        return out

    def config_keys(self, text: str) -> list[Key]:
        """`version: 1`, unless the file names a version already (a file without it is
        refused whole)."""
        from agentstyle.configfiles.jsonspans import parse_with_spans

        top = parse_with_spans(text, dialect=self.config_dialect()).value
        return [(VERSION_KEY, 1)] if isinstance(top, dict) and top.get("version") is None else []

    def config_dialect(self) -> Dialect:
        """Strict JSON: a hook file that does not parse is skipped whole."""
        from agentstyle.configfiles.jsonspans import Dialect

        return Dialect(client="copilot cli", bom=False)

    def install_notes(self, fail_closed: bool) -> list[str]:
        """Copilot CLI has no fail-closed switch, but refuses a call whose PreToolUse hook
        crashed; a timed-out one lets it run."""
        if not fail_closed:
            return []
        return [
            f"{SPEC.title} hooks have no fail-closed switch: STYLE refuses gate calls itself "
            "when it cannot evaluate, and Copilot CLI refuses a call whose PreToolUse hook "
            "crashed, but one that timed out lets the call run"
        ]

    def transcripts(self) -> TranscriptFormat:
        from agentstyle.harnesses.transcripts.copilot_cli import FORMAT

        return FORMAT

    # -- doctor --------------------------------------------------------------------------------

    def synthetic_payload(self, native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "hook_event_name": native_event,
            "session_id": session_id,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": cwd,
        }
        point = SPEC.point_of(native_event)
        if native_event == "SessionStart":
            payload.update(source="new", initial_prompt="style doctor")
        elif native_event == "UserPromptSubmit":
            payload["prompt"] = "style doctor"
        elif point in read.TOOL_POINTS:
            payload.update(tool_name="Bash", tool_input={"command": "true", "description": "true"})
            if native_event == "PostToolUse":
                payload["tool_result"] = {"result_type": "success", "text_result_for_llm": ""}
            elif native_event == "PostToolUseFailure":
                payload["error"] = "exit code 1"
        elif native_event == "Stop":
            payload.update(stop_reason="end_turn", stop_hook_active=False)
        elif native_event == "SessionEnd":
            payload["reason"] = "complete"
        return payload

    def check_answer(self, native_event: str, obj: dict[str, Any] | None, code: int) -> str | None:
        """Why Copilot CLI would not read this answer as meant, or None."""
        if code != 0 and self.error_refuses(native_event):
            return f"exit code {code} refuses the call"
        if obj is not None and "hookSpecificOutput" in obj:
            return "hookSpecificOutput reaches the model only before a call: use the flat fields"
        return None


ADAPTER = CopilotCli()


def _warning(wire: Wire, text: str) -> Wire:
    """`wire` with `text` as a warning Copilot CLI shows the person (`MESSAGE_EXIT`)."""
    return Wire(wire.stdout, MESSAGE_EXIT, wire.stderr + text.strip() + "\n")
