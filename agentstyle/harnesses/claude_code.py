"""Claude Code adapter: read its hook payloads into normalized events, write its wire answers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentstyle.evaluator.decision import Decision, Wire
from agentstyle.evaluator.event import Event
from agentstyle.harnesses import payload as read
from agentstyle.harnesses.answer import deliverable, dump, with_approve_hint
from agentstyle.harnesses.facts.claude_code import NAME, SPEC
from agentstyle.harnesses.install import PLUGIN_DIR
from agentstyle.harnesses.protocol import ClaudeShapedAdapter, HarnessAdapter

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonspans import Dialect
    from agentstyle.harnesses.extension import PluginInstall
    from agentstyle.harnesses.transcripts import TranscriptFormat

NATIVE_TOOLS = read.native_tools(SPEC)
FILE_PATH_KEYS = ("file_path", "notebook_path", "path")
# The input key of what a write/edit tool adds (MultiEdit: each of its `edits`).
ADDED_KEYS = {"Write": "content", "Edit": "new_string", "NotebookEdit": "new_source"}
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


def added_text(native: str, tool_input: dict[str, Any]) -> list[str]:
    """What a write/edit call adds (docs/conditions.md#fields `tool.added`)."""
    edits = tool_input.get("edits")
    if native == "MultiEdit" and isinstance(edits, list):
        return [str(e.get("new_string", "")) for e in edits if isinstance(e, dict)]
    return read.added_text(native, tool_input, ADDED_KEYS)


def tool_event(ev: Event, payload: dict[str, Any]) -> None:
    native, tool_input = read.tool_call(ev, payload)
    ev.call_id = read.text_id(payload.get("tool_use_id"))
    read.name_tool(ev, native, NATIVE_TOOLS)
    if native in SPEC.skill_names:
        read.set_skill(
            ev, tool_input.get("skill") or tool_input.get("name") or tool_input.get("command")
        )
    added = added_text(native, tool_input)
    read.add_named_tool(ev, native, tool_input, SPEC, FILE_PATH_KEYS, added)
    read.add_output(ev, payload)
    if ev.native_event == "PostToolUse":
        ev.output = payload.get("tool_response")  # what a `redact` answer gives back, replaced


def config_event(ev: Event, payload: dict[str, Any]) -> None:
    """A settings file Claude Code reloaded during the session: which one, and whether STYLE's
    hooks still run after it (docs/conditions.md#fields `config.hooks_off`)."""
    file = str(payload.get("file_path") or "")
    ev.add("config.source", str(payload.get("source") or ""))
    ev.add("config.file", file)
    if guarded(file):  # tamper evidence: runtime/tamper.py tells the person
        ev.add("config.guarded", "true")
    root = Path(os.environ.get("CLAUDE_PROJECT_DIR") or ev.cwd or ".")
    if hooks_switched_off(ADAPTER, root):
        ev.add("config.hooks_off", "true")


def guarded(file: str) -> bool:
    """Whether a settings file is one self-protection guards (install/protected.py): a file
    that can drop or switch off STYLE's hooks (`settings.json`, `settings.local.json` in a
    `.claude` folder) or a managed settings file."""
    path = Path(file)
    if path.name in SPEC.hook_config_files and path.parent.name == SPEC.config_folder:
        return True
    return any(file.startswith(folder + "/") for folder in SPEC.managed_configs)


def hooks_switched_off(adapter: HarnessAdapter, root: Path) -> bool:
    """Whether Claude Code, reading its settings files for `root` as they are now, runs no hook
    of STYLE's: `disableAllHooks` set in one, or no STYLE handler in any (as the adapter reads
    a config: `installed_handlers`) and no STYLE plugin enabled. A file that cannot be read is
    passed over (the client keeps what it had)."""
    import json

    from agentstyle.configfiles.jsonedit import JsonEditError
    from agentstyle.harnesses.install import is_style_command

    def ours(handler: dict[str, Any]) -> bool:
        return is_style_command(str(handler.get("command", "")))

    found = False
    for path in adapter.settings_files(root):
        try:
            text = path.read_text("utf-8")
            doc = json.loads(text)
            if isinstance(doc, dict) and doc.get("disableAllHooks") is True:
                return True
            found = found or bool(adapter.installed_handlers(text, ours, str(path)))
        except (OSError, ValueError, JsonEditError):
            continue
    return not found and adapter.extension(root) is None


def _replaced_output(decision: Decision, event: Event | None) -> dict[str, Any]:
    """A redaction's answer field: the tool's output in the shape the client sent it, the
    secrets replaced (docs/harnesses/claude-code.md#redact). Claude Code takes
    `updatedToolOutput` for its own tools (the Bash `{stdout, stderr, interrupted, isImage}`
    object, Read's `{type, file}`, …; a plain string there is ignored) and
    `updatedMCPToolOutput` for an MCP tool's."""
    redaction = decision.redaction
    if redaction is None or redaction.output is None:
        return {}
    mcp = event is not None and event.mcp_server is not None
    return {"updatedMCPToolOutput" if mcp else "updatedToolOutput": redaction.output}


# Where a notice reaches the person: `systemMessage` is a universal field, shown as a warning,
# except on the events that discard it (docs/design/harnesses.md#claude-code-answers). There the
# notice goes to stderr, which Claude Code shows for a manual `/compact` and keeps in its debug log
# otherwise.
NO_NOTICE_EVENTS = frozenset(
    {"PreCompact", "SessionEnd", "Notification", "ConfigChange", "PermissionDenied"}
)
NOTICE_EVENTS = frozenset(
    e for e in (*SPEC.native_events(), *SPEC.extra_native_events) if e not in NO_NOTICE_EVENTS
)


# Events whose refusal is a top-level `decision: block` (a ConfigChange's keeps the change out
# of the session: seen on the real client, tests/e2e/test_config_change.py).
BLOCK_EVENTS = ("UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "ConfigChange")


class ClaudeCode(ClaudeShapedAdapter):
    name = NAME
    spec = SPEC
    bad_exit = " (Claude Code reads it as a hook error)"
    notice_events = NOTICE_EVENTS
    payload_shape = read.ClaudeShape(
        "prompt_id", SOURCES, _transcript_model if MODEL_FROM_TRANSCRIPT else None
    )

    def read_event(self, payload: dict[str, Any], native_event: str) -> Event:
        ev = super().read_event(payload, native_event)
        if ev.point == "config.changed":
            config_event(ev, payload)
        elif ev.point == "tool.denied":
            # the call the client refused by itself, read as any call is, and why
            tool_event(ev, payload)
            ev.add("denied.reason", str(payload.get("reason") or ""))
        return ev

    def read_tool_call(self, ev: Event, payload: dict[str, Any]) -> None:
        tool_event(ev, payload)

    def answer(self, decision: Decision, native_event: str, event: Event | None = None) -> Wire:
        """The exact stdout and exit code Claude Code reads
        (docs/design/harnesses.md#claude-code-answers)."""
        reason = "\n".join(decision.reasons)
        out: dict[str, Any] = {}
        specific: dict[str, Any] = {"hookEventName": native_event}
        if native_event == "PermissionRequest":
            message = "\n\n".join(decision.messages)
            if decision.verdict == "block":
                specific["decision"] = {"behavior": "deny", "message": reason}
            elif decision.verdict == "allow":
                specific["decision"] = {"behavior": "allow"}
            else:
                return Wire(dump({"systemMessage": message}) if message else "")
            if message:
                out["systemMessage"] = message
            out["hookSpecificOutput"] = specific
            return Wire(dump(out))
        if native_event in ("SessionEnd", "Notification"):
            return Wire("")
        point = SPEC.point_of(native_event)
        context, message = deliverable(decision, SPEC.points.get(point) if point else None)
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
                if decision.fix is not None and decision.fix.tool_input is not None:
                    specific["updatedInput"] = decision.fix.tool_input
            if context and decision.verdict != "block":
                specific["additionalContext"] = context
        elif native_event in ("Stop", "SubagentStop") and STOP_CONTINUE_AS_CONTEXT:
            if decision.verdict == "block":
                # the reason once, as feedback, and no hook command line (facts above)
                specific["additionalContext"] = reason or "Continue."
                return Wire(dump({"hookSpecificOutput": specific}))
        elif native_event in BLOCK_EVENTS:
            if decision.verdict == "block":
                out = {"decision": "block"}
                if native_event != "PreCompact":
                    out["reason"] = reason
                return Wire(dump(out))
            if context and native_event == "UserPromptSubmit":
                specific["additionalContext"] = context
        elif context:
            specific["additionalContext"] = context
        if native_event == "PostToolUse":
            specific.update(_replaced_output(decision, event))
        if len(specific) > 1:
            out["hookSpecificOutput"] = specific
        return Wire(dump(out) if out else "")

    # -- install: `.claude/settings*.json` (docs/design/harnesses.md#claude-code-config) -----------

    scopes = ("project", "local", "user", "managed")
    config_file = ".claude/settings.json"
    managed_file = "/etc/claude-code/managed-settings.json"  # Linux and WSL
    user_instruction_file = ".claude/CLAUDE.md"
    version_command = ("claude", "--version")

    def config_path(self, root: Path, scope: str) -> Path:
        if scope == "local":  # this checkout's own settings, not committed
            return root / ".claude/settings.local.json"
        return super().config_path(root, scope)

    def handler(self, command: str, native_event: str, gate: bool) -> dict[str, Any]:
        """One handler with STYLE's timeout in seconds (docs/design/harnesses.md#timeouts)."""
        from agentstyle.harnesses import written

        out: dict[str, Any] = {
            "type": "command",
            "command": command,
            "timeout": written(NAME, native_event),
        }
        if gate:
            out["onFailure"] = "block"  # v2.1.295+ (install checks `claude --version`)
        return out

    def background_handler(self, command: str, seconds: float) -> dict[str, Any]:
        # `async` runs it beside the session; `asyncRewake` makes its exit 2 wake the model with
        # its stderr, idle or not (hooks reference, "Run hooks in the background")
        return {
            "type": "command",
            "command": command,
            "async": True,
            "asyncRewake": True,
            "timeout": int(seconds),
        }

    def prompt_handler(self, prompt: str, seconds: float) -> dict[str, Any]:
        # the client's model answers `{ok, reason}`; `ok: false` continues the stop with the
        # reason (hooks reference, "Prompt-based hooks")
        return {"type": "prompt", "prompt": prompt, "timeout": int(seconds)}

    def config_dialect(self) -> Dialect:
        """How Claude Code reads its settings files: strict JSON (no comments, no trailing
        commas, docs/design/harnesses.md#claude-code-config); its CLI reads past a byte order mark
        (anthropics/claude-code#81355)."""
        from agentstyle.configfiles.jsonspans import Dialect

        return Dialect(client="claude code")

    def fail_closed_check(self, version: tuple[int, ...] | None) -> str | None:
        """`onFailure: block` needs Claude Code `fail_closed_since` or newer."""
        from agentstyle.diagnostics import StyleError

        since = SPEC.fail_closed_since or ()
        needs = ".".join(map(str, since))
        if version is None:
            return (
                "could not run `claude --version`; wrote onFailure: block, "
                f"which needs Claude Code {needs} or newer"
            )
        if version < since:
            raise StyleError(
                f"--fail-closed needs Claude Code {needs}+ (onFailure); `claude --version` "
                f"says {'.'.join(map(str, version))}"
            )
        return None

    # -- its plugin (docs/harnesses/claude-code.md#as-a-plugin) --------------------------------

    extension_kind = "plugin"
    extension_hooks_file = f"{PLUGIN_DIR}/hooks/hooks.json"

    def extension_files(self) -> dict[str, dict[str, Any]]:
        """A plugin marketplace at the repository root holding the `style` plugin."""
        from agentstyle import __version__
        from agentstyle.harnesses import extension as ext

        marketplace = {
            "name": ext.MARKETPLACE_NAME,
            "owner": {"name": "STYLE"},
            "metadata": {"description": "The STYLE policy engine as a Claude Code plugin"},
            "plugins": [
                {
                    "name": ext.PLUGIN_NAME,
                    "source": f"./{PLUGIN_DIR}",
                    "description": ext.DESCRIPTION,
                    "version": __version__,
                }
            ],
        }
        return {MARKETPLACE_FILE: marketplace, PLUGIN_MANIFEST: ext.plugin_manifest()}

    def extension(self, root: Path) -> PluginInstall | None:
        """STYLE's plugin when one is enabled for `root` (`enabledPlugins` of the settings
        files, the more specific deciding), its copy found in `installed_plugins.json`; a plugin
        is STYLE's when the hooks of that copy run STYLE's hook command, so a fork under another
        name is known too. A `--plugin-dir` plugin lives for one session and leaves no file:
        none is seen."""
        from agentstyle.harnesses import extension as ext

        for plugin_id, decided_by in _enabled_plugins(self.settings_files(root)).items():
            disable = f"claude plugin disable {plugin_id}"
            for install_path in _install_paths(plugin_id, root):
                hooks = _plugin_hooks(install_path)
                commands = ext.style_commands(hooks)
                if commands:
                    runs = ext.runs_style_hook(commands)
                    shown = ext.label(Path(install_path), root)
                    enabled_in = ext.label(decided_by, root)
                    return ext.PluginInstall(
                        plugin_id, enabled_in, shown, runs, hooks, disable=disable
                    )
            if plugin_id == ext.PLUGIN_ID:  # enabled, its copy not (yet) fetched by the client
                enabled_in = ext.label(decided_by, root)
                return ext.PluginInstall(plugin_id, enabled_in, None, True, disable=disable)
        return None

    def settings_files(self, root: Path) -> list[Path]:
        """The settings files for `root`, the one that decides first: managed, then
        `.claude/settings.local.json`, `.claude/settings.json`, then `~/.claude/settings.json`
        (the home folder's own settings once, where `root` is the home folder)."""
        out: list[Path] = []
        seen: set[str] = set()
        user = self.config_path(root, "user")
        project = (self.config_path(root, "local"), self.config_path(root, "project"))
        for path in (MANAGED_SETTINGS, *project, user):
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                out.append(path)
        return out

    def transcripts(self) -> TranscriptFormat:
        from agentstyle.harnesses.transcripts.claude_code import FORMAT

        return FORMAT

    # -- doctor --------------------------------------------------------------------------------

    def synthetic_payload(self, native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
        payload = read.claude_shaped_payload(native_event, cwd, session_id)
        if native_event == "SessionStart":
            payload["source"] = "startup"
        elif native_event == "UserPromptSubmit":
            payload["prompt"] = "style doctor"
        elif SPEC.point_of(native_event) in ("tool.pre", "tool.post", "tool.failed"):
            payload.update(
                tool_name="Bash", tool_input={"command": "true"}, tool_use_id="style-doctor"
            )
            if native_event == "PostToolUse":
                payload["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
            elif native_event == "PostToolUseFailure":
                payload["error"] = "Exit code 1"
        elif native_event in ("Stop", "SubagentStop"):
            payload.update(stop_hook_active=False, last_assistant_message="style doctor")
        return payload

    def check_answer(self, native_event: str, obj: dict[str, Any] | None, code: int) -> str | None:
        specific = (obj or {}).get("hookSpecificOutput")
        if isinstance(specific, dict) and specific.get("hookEventName") != native_event:
            return "hookSpecificOutput.hookEventName does not name the event"
        return None


ADAPTER = ClaudeCode()


# -- its plugin --------------------------------------------------------------------------------

# The marketplace at the repository root, and the plugin's manifest in its folder.
MARKETPLACE_FILE = ".claude-plugin/marketplace.json"
PLUGIN_MANIFEST = f"{PLUGIN_DIR}/.claude-plugin/plugin.json"

# Where the enabled state is decided first (`enabledPlugins`), whatever the user sets.
MANAGED_SETTINGS = Path("/etc/claude-code/managed-settings.json")
# Where each installed plugin's copy lives (`plugins.<id>[].installPath`).
INSTALLED_PLUGINS = ".claude/plugins/installed_plugins.json"


def _enabled_plugins(settings: list[Path]) -> dict[str, Path]:
    """Each plugin id enabled by the settings files (the most specific first), with the file
    whose value decides (`"style@agentstyle": true`; `claude plugin disable` writes `false`)."""
    from agentstyle.harnesses.extension import read_json

    decided: dict[str, tuple[bool, Path]] = {}
    for path in settings:
        doc = read_json(path)
        plugins = doc.get("enabledPlugins") if isinstance(doc, dict) else None
        if not isinstance(plugins, dict):
            continue
        for plugin_id, value in plugins.items():
            if isinstance(plugin_id, str) and plugin_id not in decided:
                # a list of versions enables it too (claude-code-settings: `PluginEnabled`)
                on = value is True or (isinstance(value, list) and bool(value))
                decided[plugin_id] = (on, path)
    return {pid: path for pid, (on, path) in decided.items() if on}


def _install_paths(plugin_id: str, root: Path) -> list[str]:
    """The client's copies of an installed plugin that apply to `root` (user-wide ones, and
    those installed for this project)."""
    from agentstyle.harnesses.extension import read_json
    from agentstyle.harnesses.install import home_path

    doc = read_json(home_path(INSTALLED_PLUGINS))
    plugins = doc.get("plugins") if isinstance(doc, dict) else None
    entries = plugins.get(plugin_id) if isinstance(plugins, dict) else None
    out: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("installPath"), str):
            continue
        project = entry.get("projectPath")
        if isinstance(project, str) and Path(project).resolve() != root.resolve():
            continue
        if entry["installPath"] not in out:
            out.append(entry["installPath"])
    return out


def _plugin_hooks(install_path: str) -> dict[str, list[dict[str, Any]]] | None:
    from agentstyle.harnesses.extension import read_json

    doc = read_json(Path(install_path) / "hooks" / "hooks.json")
    hooks = doc.get("hooks") if isinstance(doc, dict) else None
    if not isinstance(hooks, dict):
        return None
    return {k: v for k, v in hooks.items() if isinstance(k, str) and isinstance(v, list)}
