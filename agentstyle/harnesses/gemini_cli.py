"""Gemini CLI adapter: read its hook payloads into normalized events, write its wire answers.

Gemini CLI (docs/design/harnesses.md#gemini-cli): `.gemini/settings.json` with timeouts in
milliseconds and the hooks system behind an enable flag; decisions are `decision: allow|deny` +
`reason`; stdout on exit 0 must be JSON, so "no opinion" is `{}`; BeforeTool has no add-context
field (the model reads text there only as a deny reason); a failed tool is an AfterTool with
`error`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.evaluator.decision import Decision, Wire
from agentstyle.evaluator.event import Event
from agentstyle.harnesses import payload as read
from agentstyle.harnesses.answer import (
    deliverable,
    dump,
    result_reason,
    result_text,
    with_approve_hint,
)
from agentstyle.harnesses.facts.gemini_cli import NAME, SPEC
from agentstyle.harnesses.install import (
    PLUGIN_DIR,
    STRIP_JSON_COMMENTS_LEAVES,
    Key,
    home_path,
    named_handler,
    sh_literal,
)
from agentstyle.harnesses.protocol import HarnessAdapter

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonspans import Dialect
    from agentstyle.harnesses.extension import PluginInstall
    from agentstyle.harnesses.transcripts import TranscriptFormat

NATIVE_TOOLS = read.native_tools(SPEC)
# `tool_input` shapes beyond write_file were UNCONFIRMED
# (docs/design/harnesses.md#gemini-cli-payloads): the path keys tried. 0.61.0 sends `file_path` for
# write_file and replace (tests/e2e/test_facts.py).
FILE_PATH_KEYS = ("file_path", "absolute_path", "path", "dir_path")
# The input key of what a write/edit tool adds (docs/conditions.md#fields `tool.added`).
ADDED_KEYS = {"write_file": "content", "replace": "new_string"}
SOURCES = {"startup": "startup", "resume": "resume", "clear": "clear"}
DECISION_EVENTS = frozenset({"BeforeTool", "BeforeAgent", "AfterAgent"})
CONTEXT_EVENTS = frozenset({"SessionStart", "BeforeAgent", "AfterTool"})

# -- facts once UNCONFIRMED, checked against the real client -----------------------------------
# Each is checked in `tests/e2e/test_facts.py` (`make e2e`, the pinned client of
# tests/e2e/clients.json); change it here, in one line, when the client changes.

# No hook payload names the model (0.61.0); the session's JSONL transcript (`transcript_path`)
# has it on every model entry (`type: gemini`, `model`).
MODEL_FROM_TRANSCRIPT = True
_transcript_model = read.typed_entry_model("gemini")


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


def tool_event(ev: Event, payload: dict[str, Any]) -> None:
    native, tool_input = read.tool_call(ev, payload)
    read.name_tool(ev, native, NATIVE_TOOLS, SPEC.mcp_naming, payload.get("mcp_context"))
    added = read.added_text(native, tool_input, ADDED_KEYS)
    read.add_named_tool(ev, native, tool_input, SPEC, FILE_PATH_KEYS, added)
    if ev.native_event == "AfterTool":
        response = payload.get("tool_response")
        if ev.point == "tool.failed":
            ev.failed = True
            error = response.get("error") if isinstance(response, dict) else None
            ev.add_tree("tool.output", error or response)  # a non-zero exit: its output
        else:
            ev.add_tree("tool.output", response)
            if llm_text(response) is not None:
                ev.output = response  # what a `redact` answer gives back, replaced


def llm_text(response: Any) -> str | None:
    """The text the model reads of a tool's result (`llmContent`), where it is all text."""
    return result_text(response.get("llmContent")) if isinstance(response, dict) else None


class GeminiCli(HarnessAdapter):
    name = NAME
    spec = SPEC
    bad_exit = ": Gemini CLI only warns and continues"
    # Where a notice reaches the person: `systemMessage` (the default `notice_field`), documented
    # on every Gemini CLI event (docs/design/harnesses.md#gemini-cli-answers). An event STYLE does
    # not know gets it on stderr.
    notice_events = frozenset(SPEC.native_events())

    def read_event(self, payload: dict[str, Any], native_event: str) -> Event:
        point = _point(payload, native_event)
        model_pick = _transcript_model if MODEL_FROM_TRANSCRIPT else None
        ev = read.session_event(SPEC, native_event, payload, point=point, model_pick=model_pick)
        if native_event == "SessionStart":
            read.add_source(ev, payload, SOURCES)
        elif native_event == "BeforeAgent":
            read.add_prompt(ev, payload.get("prompt", ""))
        elif native_event == "AfterAgent":
            ev.stop_active = payload.get("stop_hook_active") is True
            read.add_response(ev, payload.get("prompt_response"))
        return ev

    def read_tool_call(self, ev: Event, payload: dict[str, Any]) -> None:
        tool_event(ev, payload)

    def answer(self, decision: Decision, native_event: str, event: Event | None = None) -> Wire:
        """The exact stdout Gemini CLI reads (docs/design/harnesses.md#gemini-cli-answers); `{}`
        when there is nothing to say."""
        reason = "\n".join(r for r in decision.reasons if r)
        verdict = decision.verdict
        point = event.point if event is not None else SPEC.point_of(native_event)
        spec = SPEC.points.get(point) if point else None
        # an event of no known point delivers neither
        context, message = deliverable(decision, spec) if spec is not None else ("", "")
        out: dict[str, Any] = {}
        if native_event in DECISION_EVENTS and verdict == "block":
            return Wire(dump({"decision": "deny", "reason": reason or "STYLE refused this."}))
        stands_in = (
            result_reason(decision, context, llm_text) if native_event == "AfterTool" else None
        )
        if stands_in is not None:
            # the deny's reason is the result the model reads (docs/actions.md#redact)
            out, context = {"decision": "deny", "reason": stands_in}, ""
        if native_event == "BeforeTool" and verdict == "ask":
            # `ask` is not in the reference: refuse, and tell the person `style allow`.
            out = {"decision": "deny", "reason": with_approve_hint(reason)}
        elif native_event == "BeforeTool" and verdict == "allow":
            out["decision"] = "allow"
        if message:
            out["systemMessage"] = message
        if context and native_event in CONTEXT_EVENTS:
            out["hookSpecificOutput"] = {
                "hookEventName": native_event,
                "additionalContext": context,
            }
        return Wire(dump(out))

    def no_opinion(self, native_event: str) -> Wire:
        return Wire("{}")

    # -- install: `.gemini/settings.json` (docs/design/harnesses.md#gemini-cli-config) -------------

    config_file = ".gemini/settings.json"
    scopes = ("project", "user", "managed")
    managed_file = "/etc/gemini-cli/settings.json"  # the system settings, over every other file
    managed_env = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"
    user_instruction_file = ".gemini/GEMINI.md"
    version_command = ("gemini", "--version")
    enable_flag = ENABLE_FLAG

    def config_dialect(self) -> Dialect:
        """How Gemini CLI reads `settings.json`: `JSON.parse(stripJsonComments(text))`
        (packages/cli/src/config/settings.ts), so `//` and `/* */` comments are whitespace,
        and a trailing comma or a byte order mark makes the whole load fail."""
        from agentstyle.configfiles.jsonspans import Dialect

        return Dialect(
            client="gemini cli",
            comments=True,
            unreadable_in_comments=STRIP_JSON_COMMENTS_LEAVES,
            bom=False,
        )

    def handler(self, command: str, native_event: str, gate: bool) -> dict[str, Any]:
        """One handler; `timeout` in milliseconds (docs/design/harnesses.md#timeouts)."""
        return named_handler(NAME, command, native_event)

    def config_keys(self, text: str) -> list[Key]:
        """The hooks system's switch, on (`ENABLE_FLAG`)."""
        return [(ENABLE_FLAG, True)]

    # -- its extension: the repository root (0.61.0 installs from a root, no sub-folder) ------

    extension_kind = "extension"
    # read beside `gemini-extension.json`
    extension_hooks_file = "hooks/hooks.json"

    def extension_files(self) -> dict[str, dict[str, Any]]:
        from agentstyle import __version__
        from agentstyle.harnesses.extension import DESCRIPTION

        manifest = {"name": EXTENSION_NAME, "version": __version__, "description": DESCRIPTION}
        return {EXTENSION_MANIFEST: manifest}

    def extension_command(self, command: str) -> str:
        """`command`, run only where Gemini CLI started it; elsewhere one line on stderr, exit 1
        (a non-blocking hook error, shown to the person): Claude Code takes any folder with a
        top-level `hooks/` as a plugin (`claude --plugin-dir <repository root>`) and would run
        these hooks as its own. Gemini CLI names the project in every hook's environment (read
        braced, so its own `$GEMINI_PROJECT_DIR` substitution in the command leaves it alone):
        where it is not set, the hook says which folder is the Claude Code plugin, instead of
        answering in the wrong dialect."""
        only = SPEC.hook.project_dir_env
        return (
            f'[ -n "${{{only}-}}" ] || {{ cat >/dev/null; echo {sh_literal(NOT_HERE)} '
            f">&2; exit 1; }}; {command}"
        )

    def extension(self, root: Path) -> PluginInstall | None:
        """STYLE's extension when one is installed in `~/.gemini/extensions/<name>/` (its
        `hooks/hooks.json` running STYLE's hook) and enabled for `root`."""
        from agentstyle.harnesses import extension as ext

        folder = home_path(".gemini/extensions")
        enablement = ext.read_json(folder / "extension-enablement.json")
        for copy in sorted(folder.iterdir()) if folder.is_dir() else []:
            manifest = ext.read_json(copy / EXTENSION_MANIFEST)
            hooks_doc = ext.read_json(copy / "hooks" / "hooks.json")
            hooks = hooks_doc.get("hooks") if isinstance(hooks_doc, dict) else None
            if not isinstance(manifest, dict) or not isinstance(hooks, dict):
                continue
            name = manifest.get("name") if isinstance(manifest.get("name"), str) else copy.name
            entry = enablement.get(name) if isinstance(enablement, dict) else None
            rules = entry.get("overrides") if isinstance(entry, dict) else None
            if ext.style_commands(hooks) and extension_enabled(rules, root):
                return ext.PluginInstall(
                    str(name),
                    ext.label(folder, root),
                    ext.label(copy, root),
                    ext.runs_style_hook(ext.style_commands(hooks)),
                    hooks,
                    kind=self.extension_kind,
                    disable=f"gemini extensions disable {name}",
                )
        return None

    def transcripts(self) -> TranscriptFormat:
        from agentstyle.harnesses.transcripts.gemini_cli import FORMAT

        return FORMAT

    # -- doctor --------------------------------------------------------------------------------

    def synthetic_payload(self, native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
        epoch = "1970-01-01T00:00:00.000Z"
        payload = read.claude_shaped_payload(native_event, cwd, session_id, timestamp=epoch)
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

    def check_answer(self, native_event: str, obj: dict[str, Any] | None, code: int) -> str | None:
        if obj is None and code == 0:
            return "empty stdout (Gemini CLI parses stdout on exit 0 as JSON)"
        if obj is not None and obj.get("decision") not in (None, "allow", "deny", "block"):
            return f"unknown decision `{obj.get('decision')}`"
        return None


ADAPTER = GeminiCli()


# -- its extension ----------------------------------------------------------------------------

EXTENSION_NAME = "style"
EXTENSION_MANIFEST = "gemini-extension.json"
NOT_HERE = (
    "STYLE: these are the Gemini CLI extension's hooks (the repository root); Claude Code "
    f"loads STYLE from {PLUGIN_DIR} (claude --plugin-dir <checkout>/{PLUGIN_DIR})"
)


def extension_enabled(rules: Any, folder: Path) -> bool:
    """The `extension-enablement.json` rules for one extension, applied to a folder as 0.61.0
    applies them: each matching rule decides in turn (`!` disables), a trailing `*` takes the
    sub-folders too; enabled where none matches."""
    path = "/" + folder.resolve().as_posix().strip("/") + "/"
    enabled = True
    for rule in rules if isinstance(rules, list) else []:
        if not isinstance(rule, str):
            continue
        off = rule.startswith("!")
        base = rule[1:] if off else rule
        subdirs = base.endswith("*")
        base = "/" + (base[:-1] if subdirs else base).strip("/") + "/"
        if path == base or (subdirs and path.startswith(base)):
            enabled = not off
    return enabled
