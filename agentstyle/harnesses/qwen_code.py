"""Qwen Code adapter: read its hook payloads into normalized events, write its wire answers.

Qwen Code (docs/design/harnesses.md#qwen-code) runs command hooks from `.qwen/settings.json`
with Claude Code's event names, payload fields and answer fields, and Gemini CLI's tool names.
Unlike Claude Code it has no rewrite (`updatedInput`), shows `systemMessage` only at Stop, and
fires UserPromptSubmit for its own continuations too (after tool results, after a Stop hook's
block), which are no prompts of the person's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.evaluator.decision import Decision, Wire
from agentstyle.evaluator.event import Event
from agentstyle.harnesses import payload as read
from agentstyle.harnesses.answer import deliverable, dump, with_approve_hint
from agentstyle.harnesses.facts.qwen_code import NAME, SPEC
from agentstyle.harnesses.install import STRIP_JSON_COMMENTS_LEAVES, Key, home_path, named_handler
from agentstyle.harnesses.protocol import ClaudeShapedAdapter

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonspans import Dialect
    from agentstyle.harnesses.transcripts import TranscriptFormat

NATIVE_TOOLS = read.native_tools(SPEC)
FILE_PATH_KEYS = ("file_path", "notebook_path", "path")
# The input key of what a write/edit tool adds (docs/conditions.md#fields `tool.added`).
ADDED_KEYS = {"write_file": "content", "edit": "new_string", "notebook_edit": "new_source"}
SOURCES = {"startup": "startup", "resume": "resume", "clear": "clear", "compact": "compact"}
# The events whose answer carries `hookSpecificOutput.additionalContext` to the model.
CONTEXT_EVENTS = frozenset(
    spec.native_event for spec in SPEC.points.values() if "context" in spec.capabilities
)

# -- facts once UNCONFIRMED, checked against the real client -----------------------------------
# Each is checked in `tests/e2e/test_qwen_code.py` (`make e2e`, the pinned client of
# tests/e2e/clients.json); change it here, in one line, when the client changes.

# The payload key a prompt the person submitted carries (its text as typed). UserPromptSubmit
# also fires, without it, for the client's own continuations: after a batch of tool results
# (`prompt: ""`) and after a Stop hook's block (the reason as `prompt`). Those are answered
# "no opinion" unevaluated (`duplicate`): evaluated, a prompt rule would inject its context
# again after every tool call, and count every continuation as a prompt.
SUBMITTED_PROMPT_KEY = "submitted_prompt"

# The settings file version 0.24.4 writes into a `settings.json` that names none, the first
# time it loads the file; one that names it is left as it is. Install writes it where the file
# names none (and uninstall takes it away again), so that the client never rewrites the file
# STYLE installed into and uninstall gives back the bytes it found.
SETTINGS_VERSION_KEY = "$version"
SETTINGS_VERSION = 4

# SessionStart names the model; the other payloads do not: the session's JSONL transcript
# (`transcript_path`) has it on every assistant entry (`type: assistant`, `model`).
MODEL_FROM_TRANSCRIPT = True
_transcript_model = read.typed_entry_model("assistant")


def tool_event(ev: Event, payload: dict[str, Any]) -> None:
    native, tool_input = read.tool_call(ev, payload)
    # `tool_call_id` is the model's id of the call, the one the transcript keeps; `tool_use_id`
    # is made up per hook run
    ev.call_id = read.text_id(payload.get("tool_call_id")) or read.text_id(
        payload.get("tool_use_id")
    )
    read.name_tool(ev, native, NATIVE_TOOLS)
    if native in SPEC.skill_names:
        read.set_skill(ev, tool_input.get("skill"))
    added = read.added_text(native, tool_input, ADDED_KEYS)
    read.add_named_tool(ev, native, tool_input, SPEC, FILE_PATH_KEYS, added)
    read.add_output(ev, payload)


class QwenCode(ClaudeShapedAdapter):
    name = NAME
    spec = SPEC
    bad_exit = ": Qwen Code reads it as a non-blocking error and the call runs"
    # A notice goes where the client takes a message for the person on every event,
    # `systemMessage` (the default `notice_field`); 0.24.4 shows it at Stop alone
    # (facts/qwen_code.py), as `codex exec` shows none: the notice is there for the clients that
    # show it, and harmless elsewhere.
    notice_events = frozenset(SPEC.native_events())
    payload_shape = read.ClaudeShape(
        "prompt_id", SOURCES, _transcript_model if MODEL_FROM_TRANSCRIPT else None
    )

    def read_tool_call(self, ev: Event, payload: dict[str, Any]) -> None:
        tool_event(ev, payload)

    def duplicate(self, payload: dict[str, Any], native_event: str) -> bool:
        """A UserPromptSubmit the client fires for its own continuation, not for a prompt of the
        person's (`SUBMITTED_PROMPT_KEY`): nothing to evaluate."""
        return native_event == "UserPromptSubmit" and SUBMITTED_PROMPT_KEY not in payload

    def answer(self, decision: Decision, native_event: str, event: Event | None = None) -> Wire:
        """The exact stdout Qwen Code reads (docs/design/harnesses.md#qwen-code-answers);
        nothing when there is nothing to say."""
        reason = "\n".join(r for r in decision.reasons if r)
        verdict = decision.verdict
        point = SPEC.point_of(native_event)
        context, message = deliverable(decision, SPEC.points.get(point) if point else None)
        specific: dict[str, Any] = {"hookEventName": native_event}
        out: dict[str, Any] = {}
        if native_event == "PreToolUse":
            if verdict == "block":
                # an empty reason would reach the model as "No reason provided"
                specific.update(
                    permissionDecision="deny",
                    permissionDecisionReason=reason or "STYLE refused this call.",
                )
            elif verdict == "ask":
                # headless, the question is the refusal the model reads: it says how to let
                # the call through
                specific.update(
                    permissionDecision="ask", permissionDecisionReason=with_approve_hint(reason)
                )
        elif native_event in ("UserPromptSubmit", "Stop", "SubagentStop") and verdict == "block":
            # the reason is what the model reads next (the Stop continues the turn with it)
            out = {"decision": "block", "reason": reason or "STYLE refused this."}
            if message:
                out["systemMessage"] = message
            return Wire(dump(out))
        if context and native_event in CONTEXT_EVENTS:
            specific["additionalContext"] = context
        if message:
            out["systemMessage"] = message
        if len(specific) > 1:
            out["hookSpecificOutput"] = specific
        return Wire(dump(out) if out else "")

    # -- install: `.qwen/settings.json` (docs/design/harnesses.md#qwen-code-config) ------------

    config_file = ".qwen/settings.json"
    user_instruction_file = ".qwen/QWEN.md"
    version_command = ("qwen", "--version")

    def config_path(self, root: Path, scope: str) -> Path:
        if scope == "user":  # the client's own folder moves with `QWEN_HOME`
            return qwen_home() / "settings.json"
        return super().config_path(root, scope)

    def config_dialect(self) -> Dialect:
        """How Qwen Code reads `settings.json`: `JSON.parse(stripJsonComments(stripUtf8Bom(text)))`
        (packages/cli/src/config/settings.ts), so comments are whitespace and a byte order mark
        is read past, but a trailing comma fails the load (and a project's file that fails is
        copied aside and replaced by `{}`). The comment stripper is Gemini CLI's: what
        JavaScript's `\\s` matches beyond JSON's whitespace stays where a comment was."""
        from agentstyle.configfiles.jsonspans import Dialect

        return Dialect(
            client="qwen code", comments=True, unreadable_in_comments=STRIP_JSON_COMMENTS_LEAVES
        )

    def handler(self, command: str, native_event: str, gate: bool) -> dict[str, Any]:
        """One handler with STYLE's timeout in seconds (docs/design/harnesses.md#timeouts),
        whatever `gate` says: Qwen Code has no fail-closed switch."""
        return named_handler(NAME, command, native_event)

    def config_keys(self, text: str) -> list[Key]:
        """The settings version, where the file names none (`SETTINGS_VERSION`)."""
        from agentstyle.configfiles.jsonspans import JsonEditError, parse_with_spans

        try:
            doc = parse_with_spans(text, dialect=self.config_dialect()).value
        except JsonEditError:
            return []
        if isinstance(doc, dict) and SETTINGS_VERSION_KEY in doc:
            return []
        return [((SETTINGS_VERSION_KEY,), SETTINGS_VERSION)]

    def transcripts(self) -> TranscriptFormat:
        from agentstyle.harnesses.transcripts.qwen_code import FORMAT

        return FORMAT

    # -- doctor --------------------------------------------------------------------------------

    def synthetic_payload(self, native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
        epoch = "1970-01-01T00:00:00.000Z"
        payload = read.claude_shaped_payload(
            native_event, cwd, session_id, timestamp=epoch, permission_mode="default"
        )
        point = SPEC.point_of(native_event)
        if native_event == "SessionStart":
            payload.update(source="startup", model="style-doctor")
        elif native_event == "SessionEnd":
            payload["reason"] = "other"
        elif native_event == "UserPromptSubmit":
            payload.update(prompt="style doctor", submitted_prompt="style doctor")
        elif point in read.TOOL_POINTS:
            payload.update(
                tool_name="run_shell_command",
                tool_input={"command": "true"},
                tool_use_id="style-doctor",
                tool_call_id="style-doctor",
            )
            if native_event == "PostToolUse":
                payload["tool_response"] = {"llmContent": "", "returnDisplay": ""}
            elif native_event == "PostToolUseFailure":
                payload.update(error="Exit Code: 1", is_interrupt=False)
        elif native_event in ("Stop", "SubagentStop"):
            payload.update(stop_hook_active=False, last_assistant_message="style doctor")
        elif native_event == "PreCompact":
            payload.update(trigger="manual", custom_instructions="")
        return payload

    def check_answer(self, native_event: str, obj: dict[str, Any] | None, code: int) -> str | None:
        if obj is None:
            return None
        if obj.get("decision") not in (None, "allow", "approve", "ask", "deny", "block"):
            return f"unknown decision `{obj.get('decision')}`"
        specific = obj.get("hookSpecificOutput")
        if isinstance(specific, dict):
            decision = specific.get("permissionDecision")
            if decision not in (None, "allow", "deny", "ask"):
                return f"unknown permissionDecision `{decision}`"
        return None


ADAPTER = QwenCode()


def qwen_home() -> Path:
    """Qwen Code's own folder: `$QWEN_HOME`, else `~/.qwen`."""
    return Path(os.environ.get("QWEN_HOME") or home_path(".qwen"))
