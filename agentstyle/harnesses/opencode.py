"""OpenCode adapter: STYLE's plugin for OpenCode, the events it sends and the answers it reads.

OpenCode has no command hooks (docs/design/harnesses.md#opencode): STYLE writes one plugin file,
`opencode_plugin.js` with the handlers of this install written into it, which runs each handler
as every other client runs one (`sh -c`, the event as JSON on stdin, STYLE's timeout) and acts on
the answer. So the payloads and answers here are the plugin's: Claude-shaped payloads named
after OpenCode's plugin hooks, and a small answer (`decision: deny`, `args`, `context`) the
plugin turns into a throw, arguments changed in place, or text the model reads.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.evaluator.decision import Decision, Wire
from agentstyle.evaluator.event import Event
from agentstyle.harnesses import payload as read
from agentstyle.harnesses.answer import deliverable, dump, with_approve_hint
from agentstyle.harnesses.facts.opencode import NAME, SPEC
from agentstyle.harnesses.protocol import HarnessAdapter

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonedit import IsOurs
    from agentstyle.configfiles.jsonspans import Dialect
    from agentstyle.harnesses.install import Groups
    from agentstyle.harnesses.transcripts import TranscriptFormat

NATIVE_TOOLS = read.native_tools(SPEC)
FILE_PATH_KEYS = ("filePath", "path")
# The input key of what a write/edit tool adds (docs/conditions.md#fields `tool.added`).
ADDED_KEYS = {"write": "content", "edit": "newString"}
SOURCES = {"startup": "startup", "resume": "resume"}
# Where the plugin refuses (a throw), and where it delivers context.
BLOCK_EVENTS = frozenset({"tool.execute.before", "chat.message"})
CONTEXT_EVENTS = frozenset({"session.created", "chat.message", "tool.execute.after"})
# The keys the plugin reads of an answer, per event (anything else is ignored by it, so STYLE
# never writes it).
ANSWER_KEYS: dict[str, frozenset[str]] = {
    "session.created": frozenset({"context", "systemMessage"}),
    "chat.message": frozenset({"decision", "reason", "context", "systemMessage"}),
    "tool.execute.before": frozenset({"decision", "reason", "args", "systemMessage"}),
    "tool.execute.after": frozenset({"context", "systemMessage", "result"}),
    "session.idle": frozenset({"systemMessage"}),
}
# The parts of a tool's result a `result` answer replaces (the plugin sets each on the result
# object OpenCode hands the model; a redaction: docs/actions.md#redact).
RESULT_KEYS = ("title", "output", "metadata")
# Where a notice for the person goes: the plugin shows `systemMessage` on every event.
NOTICE_FIELD = "systemMessage"
FALLBACK_REASON = "STYLE refused this call."

# -- the plugin file ------------------------------------------------------------------------------

# The plugin's code, with the handlers of an install written between the markers.
PLUGIN_SOURCE = Path(__file__).with_name("opencode_plugin.js")
HANDLERS_START = "/* style:handlers */ "
HANDLERS_END = " /* style:end */"
_HANDLERS = re.compile(re.escape(HANDLERS_START) + r"(.*?)" + re.escape(HANDLERS_END), re.S)


def plugin_template() -> str:
    return PLUGIN_SOURCE.read_text("utf-8")


def plugin_text(groups: Groups) -> str:
    """The plugin file running these handler groups (native event → matcher groups)."""
    table = json.dumps(groups, indent=2, ensure_ascii=False)
    return _HANDLERS.sub(lambda _m: HANDLERS_START + table + HANDLERS_END, plugin_template(), 1)


def plugin_handlers(text: str, name: str) -> Groups:
    """The handler groups written into a plugin file STYLE wrote: JsonEditError for a file that
    is no STYLE plugin (a user's own file in its place, or one whose table was broken)."""
    from agentstyle.configfiles.jsonspans import JsonEditError

    found = _HANDLERS.search(text)
    if found is None or not text.startswith(plugin_template()[:60]):
        raise JsonEditError(f"{name} is not STYLE's plugin")
    try:
        table = json.loads(found.group(1))
    except ValueError as exc:
        raise JsonEditError(f"the handler table of {name} is not JSON ({exc})") from None
    if not isinstance(table, dict):
        raise JsonEditError(f"the handler table of {name} is not an object")
    return {str(k): v for k, v in table.items() if isinstance(v, list)}


# -- apply_patch ----------------------------------------------------------------------------------

_PATCH_FILE = re.compile(
    r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$"
)


def patch_files(patch: str) -> tuple[list[str], list[str]]:
    """(the files a `*** Begin Patch` envelope touches, the lines it adds)."""
    paths: list[str] = []
    added: list[str] = []
    for line in patch.splitlines():
        m = _PATCH_FILE.match(line)
        if m:
            paths.append(m.group(1) or m.group(2))
        elif line.startswith("+") and not line.startswith("***"):
            added.append(line[1:])
    return paths, added


# -- reading --------------------------------------------------------------------------------------


def exit_code(payload: dict[str, Any]) -> int | None:
    """The exit code of a finished shell call (`metadata.exit` of its result)."""
    response = payload.get("tool_response")
    metadata = response.get("metadata") if isinstance(response, dict) else None
    code = metadata.get("exit") if isinstance(metadata, dict) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _point(payload: dict[str, Any], native_event: str) -> str | None:
    if native_event == "tool.execute.after":
        code = exit_code(payload)
        return "tool.failed" if code is not None and code != 0 else "tool.post"
    return SPEC.point_of(native_event)


def tool_event(ev: Event, payload: dict[str, Any]) -> None:
    native, tool_input = read.tool_call(ev, payload)
    ev.call_id = read.text_id(payload.get("tool_use_id"))
    ev.tool = NATIVE_TOOLS.get(native, "other")
    if native in SPEC.skill_names:
        read.set_skill(ev, tool_input.get("name"))
    added = read.added_text(native, tool_input, ADDED_KEYS)
    if native == "apply_patch":
        paths, lines = patch_files(str(tool_input.get("patchText") or ""))
        added = ["\n".join(lines)] if lines else []
    elif ev.tool in read.FILE_TOOLS:
        paths = read.first_path(tool_input, FILE_PATH_KEYS)
    else:
        paths = []
    read.add_tool(
        ev, native, tool_input, paths=paths, added=added, searches=native in SPEC.content_search
    )
    if ev.native_event == "tool.execute.after":
        response = payload.get("tool_response")
        output = response.get("output") if isinstance(response, dict) else response
        if ev.point == "tool.failed":
            ev.failed = True
        elif isinstance(response, dict) and isinstance(output, str):
            ev.output = response  # what a `redact` answer gives back, replaced
        ev.add_tree("tool.output", output)


class OpenCode(HarnessAdapter):
    name = NAME
    spec = SPEC
    bad_exit = ": STYLE's plugin logs it and the call goes on (refused under --fail-closed)"
    notice_field = NOTICE_FIELD
    notice_events = frozenset(ANSWER_KEYS)

    def read_event(self, payload: dict[str, Any], native_event: str) -> Event:
        point = _point(payload, native_event)
        ev = read.session_event(
            SPEC,
            native_event,
            payload,
            point=point,
            turn_key="turn_id",
            version_key="opencode_version",
        )
        if native_event == "session.created":
            read.add_source(ev, payload, SOURCES)
        elif native_event == "chat.message":
            read.add_prompt(ev, payload.get("prompt", ""))
        elif native_event == "session.idle":
            ev.stop_active = False
        return ev

    def read_tool_call(self, ev: Event, payload: dict[str, Any]) -> None:
        tool_event(ev, payload)

    def answer(self, decision: Decision, native_event: str, event: Event | None = None) -> Wire:
        """The answer STYLE's plugin reads (docs/design/harnesses.md#opencode-answers)."""
        reason = "\n".join(r for r in decision.reasons if r)
        point = event.point if event is not None else SPEC.point_of(native_event)
        spec = SPEC.points.get(point) if point else None
        context, message = deliverable(decision, spec) if spec is not None else ("", "")
        verdict = decision.verdict
        if native_event in BLOCK_EVENTS and verdict == "block":
            return Wire(dump({"decision": "deny", "reason": reason or FALLBACK_REASON}))
        if native_event == "tool.execute.before" and verdict == "ask":
            # no ask in OpenCode's plugin hooks: a refusal that tells the person `style allow`
            return Wire(dump({"decision": "deny", "reason": with_approve_hint(reason)}))
        out: dict[str, Any] = {}
        if native_event == "tool.execute.before" and verdict == "allow":
            fix = decision.fix
            if fix is not None and fix.tool_input is not None:
                out["args"] = fix.tool_input
        redaction = decision.redaction
        if native_event == "tool.execute.after" and redaction is not None:
            replaced = redaction.output if isinstance(redaction.output, dict) else {}
            if replaced:
                out["result"] = {k: replaced[k] for k in RESULT_KEYS if k in replaced}
        if context and native_event in CONTEXT_EVENTS:
            out["context"] = context
        if message:
            out["systemMessage"] = message
        return Wire(dump(out) if out else "")

    # -- install: the plugin file (docs/design/harnesses.md#opencode-config) --------------------

    config_file = ".opencode/plugins/style.js"
    user_instruction_file = ".config/opencode/AGENTS.md"
    version_command = ("opencode", "--version")

    def config_path(self, root: Path, scope: str) -> Path:
        if scope == "user":  # OpenCode's own folder: `$XDG_CONFIG_HOME/opencode`
            return config_home() / "opencode/plugins/style.js"
        return super().config_path(root, scope)

    def static_path(self, root: Path, scope: str) -> Path | None:
        if scope == "user":
            return config_home() / "opencode/AGENTS.md"
        return super().static_path(root, scope)

    def handler(self, command: str, native_event: str, gate: bool) -> dict[str, Any]:
        """One handler with STYLE's timeout in seconds, which the plugin enforces; `failClosed`
        makes the plugin refuse the call when the handler fails."""
        from agentstyle.harnesses import written

        out: dict[str, Any] = {
            "type": "command",
            "command": command,
            "timeout": written(NAME, native_event),
        }
        if gate:
            out["failClosed"] = True
        return out

    def config_dialect(self) -> Dialect:
        """The plugin's handler table is JSON inside JavaScript: strict JSON, no byte order
        mark."""
        from agentstyle.configfiles.jsonspans import Dialect

        return Dialect(client="opencode", bom=False)

    def write_config(
        self, before: str | None, groups: Groups, is_ours: IsOurs, name: str, markers: list[str]
    ) -> tuple[str, list[str]]:
        """The whole plugin file, for these handlers. A file in its place that is no STYLE
        plugin is the user's: refused, never overwritten."""
        if before is not None and before.strip():
            plugin_handlers(before, name)
        return plugin_text(groups), []

    def strip_config(self, text: str, is_ours: IsOurs, markers: list[str], name: str) -> str:
        """Nothing: the file is STYLE's alone (install removes the file it created)."""
        if text.strip() and text.strip() != "{}":
            plugin_handlers(text, name)
        return ""

    def installed_handlers(self, text: str, is_ours: IsOurs, name: str) -> Groups:
        """STYLE's handler groups, read out of the plugin file."""
        found: Groups = {}
        for event, groups in plugin_handlers(text, name).items():
            kept = []
            for group in groups:
                hooks = group.get("hooks") if isinstance(group, dict) else None
                ours = [h for h in hooks or [] if isinstance(h, dict) and is_ours(h)]
                if ours:
                    kept.append({**group, "hooks": ours})
            if kept:
                found[event] = kept
        return found

    def config_problems(self, text: str) -> list[str]:
        """The plugin's code as STYLE wrote it: a changed copy may hand nothing to STYLE."""
        try:
            groups = plugin_handlers(text, self.config_file)
        except Exception:
            return ["the plugin file is not STYLE's"]
        if text != plugin_text(groups):
            return ["the plugin's code was changed"]
        return []

    # -- doctor ---------------------------------------------------------------------------------

    def transcripts(self) -> TranscriptFormat:
        from agentstyle.harnesses.transcripts.opencode import FORMAT

        return FORMAT

    def synthetic_payload(self, native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
        payload = read.claude_shaped_payload(native_event, cwd, session_id)
        del payload["transcript_path"]
        if native_event == "session.created":
            payload["source"] = "startup"
        elif native_event == "chat.message":
            payload.update(prompt="style doctor", turn_id="style-doctor-turn")
        elif native_event in ("tool.execute.before", "tool.execute.after"):
            payload.update(
                tool_name="bash",
                tool_input={"command": "true", "description": "style doctor"},
                tool_use_id="style-doctor",
                turn_id="style-doctor-turn",
            )
            if native_event == "tool.execute.after":
                payload["tool_response"] = {
                    "title": "true",
                    "output": "",
                    "metadata": {"output": "", "exit": 0, "truncated": False},
                }
        return payload

    def check_answer(self, native_event: str, obj: dict[str, Any] | None, code: int) -> str | None:
        """Why the plugin would not read this answer as meant (None: it would)."""
        if obj is None:
            return None
        extra = sorted(set(obj) - ANSWER_KEYS.get(native_event, frozenset()))
        if extra:
            return f"keys STYLE's OpenCode plugin does not read here: {', '.join(extra)}"
        if "decision" in obj and obj["decision"] != "deny":
            return f"unknown decision `{obj['decision']}`"
        if "args" in obj and not isinstance(obj["args"], dict):
            return "`args` is not an object"
        if "result" in obj and not isinstance(obj["result"], dict):
            return "`result` is not an object"
        return None


ADAPTER = OpenCode()


def config_home() -> Path:
    """The user's config folder: `$XDG_CONFIG_HOME`, else `~/.config`."""
    from agentstyle.harnesses.install import home_path

    return Path(os.environ.get("XDG_CONFIG_HOME") or home_path(".config"))
