"""Codex adapter: read its hook payloads into normalized events, write its wire answers.

Codex validates every hook output against a strict schema (docs/design/harnesses.md#codex-answers):
an unknown key, a field the event does not support, a deny without a reason, a bare `allow` or an
`ask` marks the hook failed and the call runs. So every answer here is built from `ALLOWED_KEYS`
only.
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
    result_reason,
    result_text,
    with_approve_hint,
)
from agentstyle.harnesses.facts.codex import NAME, SPEC
from agentstyle.harnesses.install import PLUGIN_DIR, home_path
from agentstyle.harnesses.protocol import ClaudeShapedAdapter

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonspans import Dialect
    from agentstyle.harnesses.extension import PluginInstall
    from agentstyle.harnesses.transcripts import TranscriptFormat

# apply_patch is `file.edit`, or `file.write` where the patch only adds files (`tool_event`)
NATIVE_TOOLS = read.native_tools(SPEC)
SOURCES = {"startup": "startup", "resume": "resume", "clear": "clear", "compact": "compact"}
# The plugin's manifest for Codex, and the hooks file it names, in the plugin folder.
PLUGIN_MANIFEST = f"{PLUGIN_DIR}/.codex-plugin/plugin.json"
PLUGIN_HOOKS = "hooks/codex.json"

# The keys each event's output schema accepts (generated schemas,
# docs/design/harnesses.md#codex-answers). Top level and `hookSpecificOutput`; nothing else is ever
# written.
_SPECIFIC = frozenset({"systemMessage", "hookSpecificOutput"})
_DECIDES = frozenset({"systemMessage", "decision", "reason"})
_CONTEXT = frozenset({"hookEventName", "additionalContext"})
ALLOWED_KEYS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "PreToolUse": (_SPECIFIC, _CONTEXT | {"permissionDecision", "permissionDecisionReason"}),
    "PermissionRequest": (_SPECIFIC, frozenset({"hookEventName", "decision"})),
    # `decision: block` + `reason` is not in 0.171.0's generated schema but taken: the reason
    # replaces the call's result (tests/e2e/test_redact.py)
    "PostToolUse": (_SPECIFIC | _DECIDES, _CONTEXT),
    "UserPromptSubmit": (_SPECIFIC | _DECIDES, _CONTEXT),
    "SessionStart": (_SPECIFIC, _CONTEXT),
    "SubagentStart": (_SPECIFIC, _CONTEXT),
    "Stop": (_DECIDES, frozenset()),
    "SubagentStop": (_DECIDES, frozenset()),
    "PreCompact": (frozenset({"systemMessage"}), frozenset()),
    "SessionEnd": (frozenset(), frozenset()),
}
# -- facts once UNCONFIRMED, checked against the real client -----------------------------------
# Checked in `tests/e2e/test_facts.py` (`make e2e`, the pinned client of tests/e2e/clients.json);
# `facts/codex.py` PRE_TOOL_USE_CONTEXT is checked there too.

# A Bash PostToolUse carries no output and no exit code (openai/codex#34289, still so in
# 0.171.0): `tool.output` of a Codex shell call is this empty string.
BASH_TOOL_RESPONSE = ""

# A deny or block needs a non-empty reason, else the hook fails open.
FALLBACK_REASON = "STYLE refused this call."

# -- apply_patch ---------------------------------------------------------------------------------

_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$")
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+?)\s*$")


def patch_files(patch: str) -> list[tuple[str, str, list[str]]]:
    """(operation, path, added lines) of every file a `*** Begin Patch` envelope touches."""
    files: list[tuple[str, str, list[str]]] = []
    for line in patch.splitlines():
        m = _PATCH_FILE.match(line)
        if m:
            files.append((m.group(1).lower(), m.group(2), []))
            continue
        m = _PATCH_MOVE.match(line)
        if m and files:
            # A move touches both ends: the old path is gone afterwards, the new one written.
            op, _old, added = files[-1]
            files.append((op, m.group(1), added))
            files[-2] = (op, _old, [])
            continue
        if files and line.startswith("+") and not line.startswith("***"):
            files[-1][2].append(line[1:])
    return files


def tool_event(ev: Event, payload: dict[str, Any]) -> None:
    native, tool_input = read.tool_call(ev, payload)
    ev.call_id = read.text_id(payload.get("tool_use_id"))
    read.name_tool(ev, native, NATIVE_TOOLS)
    files: list[tuple[str, str, list[str]]] = []
    if native == "apply_patch":
        files = patch_files(str(tool_input.get("command") or ""))
        adds_only = bool(files) and all(op == "add" for op, _p, _a in files)
        ev.tool = "file.write" if adds_only else "file.edit"
    read.add_tool(
        ev,
        native,
        tool_input,
        paths=[path for _op, path, _added in files],
        added=["\n".join(added) for _op, _p, added in files if added],
    )
    read.add_output(ev, payload)  # no failure event: a failed Bash call is a PostToolUse too
    if ev.native_event == "PostToolUse" and result_text(payload.get("tool_response")):
        ev.output = payload["tool_response"]  # what a `redact` answer gives back, replaced


def _keep(out: dict[str, Any], native_event: str) -> dict[str, Any]:
    """Only the keys the event's schema accepts (a belt for the code above)."""
    top, specific = ALLOWED_KEYS.get(native_event, (frozenset(), frozenset()))
    kept = {k: v for k, v in out.items() if k in top}
    if "hookSpecificOutput" in kept:
        inner = {k: v for k, v in kept["hookSpecificOutput"].items() if k in specific}
        if len(inner) > 1:
            kept["hookSpecificOutput"] = inner
        else:
            del kept["hookSpecificOutput"]
    return kept


def _wire(out: dict[str, Any], native_event: str) -> Wire:
    kept = _keep(out, native_event)
    return Wire(dump(kept) if kept else "")


# Where a notice reaches the person: `systemMessage` (shown as a warning) on every event whose
# schema accepts it (ALLOWED_KEYS). SessionEnd, and events STYLE does not know, accept no
# output key at all (a stray key fails the hook): there the notice goes to stderr.
NOTICE_FIELD = "systemMessage"
NOTICE_EVENTS = frozenset(e for e, (top, _inner) in ALLOWED_KEYS.items() if NOTICE_FIELD in top)


class Codex(ClaudeShapedAdapter):
    name = NAME
    spec = SPEC
    bad_exit = ": Codex marks the hook failed and the call runs"
    notice_field = NOTICE_FIELD
    notice_events = NOTICE_EVENTS
    payload_shape = read.ClaudeShape("turn_id", SOURCES)

    def read_tool_call(self, ev: Event, payload: dict[str, Any]) -> None:
        tool_event(ev, payload)

    def answer(self, decision: Decision, native_event: str, event: Event | None = None) -> Wire:
        """The exact stdout and exit code Codex reads (docs/design/harnesses.md#codex-answers)."""
        reason = "\n".join(r for r in decision.reasons if r) or ""
        point = SPEC.point_of(native_event)
        context, message = deliverable(decision, SPEC.points.get(point) if point else None)
        out: dict[str, Any] = {}
        specific: dict[str, Any] = {"hookEventName": native_event}
        verdict = decision.verdict
        if native_event == "SessionEnd":
            return Wire("")
        if native_event == "PermissionRequest":
            # Codex asks the person itself here: an `ask` or `allow` leaves it to that prompt.
            if verdict == "block":
                specific["decision"] = {"behavior": "deny", "message": reason or FALLBACK_REASON}
                out["hookSpecificOutput"] = specific
            return _wire(out, native_event)
        if native_event == "PreToolUse":
            if verdict == "block":
                specific["permissionDecision"] = "deny"
                specific["permissionDecisionReason"] = reason or FALLBACK_REASON
                return _wire({"hookSpecificOutput": specific}, native_event)
            if verdict == "ask":
                # No ask in Codex: the question becomes a refusal telling the person `style allow`.
                specific["permissionDecision"] = "deny"
                specific["permissionDecisionReason"] = with_approve_hint(reason)
            # `allow` is never written: a bare allow (without updatedInput) fails the hook.
        elif native_event in ("UserPromptSubmit", "Stop", "SubagentStop") and verdict == "block":
            return _wire({"decision": "block", "reason": reason or FALLBACK_REASON}, native_event)
        stands_in = result_reason(decision, context) if native_event == "PostToolUse" else None
        if stands_in is not None:
            # the block's reason is the result the model reads (docs/actions.md#redact)
            out, context = {"decision": "block", "reason": stands_in}, ""
        if message:
            out["systemMessage"] = message
        if context:
            specific["additionalContext"] = context
        if context or native_event == "PreToolUse":  # PreToolUse's answer always names its event
            out["hookSpecificOutput"] = specific
        return _wire(out, native_event)

    # -- install: `.codex/hooks.json` (docs/design/harnesses.md#codex-config) ----------------------

    config_file = ".codex/hooks.json"
    user_instruction_file = ".codex/AGENTS.md"
    version_command = ("codex", "--version")
    trust_note = (
        "Codex runs new or changed hooks only after they are trusted: open `/hooks` in Codex "
        "and trust STYLE's handlers"
    )

    def handler(self, command: str, native_event: str, gate: bool) -> dict[str, Any]:
        """One handler with STYLE's timeout (seconds, docs/design/harnesses.md#timeouts),
        whatever `gate` says: Codex has no fail-closed switch."""
        from agentstyle.harnesses import written

        return {"type": "command", "command": command, "timeout": written(NAME, native_event)}

    def config_dialect(self) -> Dialect:
        """How Codex reads `hooks.json`: `serde_json::from_str` (codex-rs/hooks discovery),
        strict JSON that fails on a comment, a trailing comma or a byte order mark, and then
        skips every hook of the file."""
        from agentstyle.configfiles.jsonspans import Dialect

        return Dialect(client="codex", bom=False)

    # -- its plugin: the Claude Code plugin folder, with a manifest of its own --------------------

    # Codex 0.171.0 reads the same marketplace and, without a manifest of its own, runs the
    # Claude Code hooks there (`--harness claude-code`); its own manifest names its own hooks
    # file, and then it runs only that one (tests/e2e/test_plugin.py).
    extension_kind = "plugin"
    extension_hooks_file = f"{PLUGIN_DIR}/{PLUGIN_HOOKS}"

    def extension_files(self) -> dict[str, dict[str, Any]]:
        from agentstyle.harnesses.extension import plugin_manifest

        return {PLUGIN_MANIFEST: {**plugin_manifest(), "hooks": f"./{PLUGIN_HOOKS}"}}

    def extension(self, root: Path) -> PluginInstall | None:
        """STYLE's plugin when one is enabled: `[plugins."<id>"] enabled = true` in
        `$CODEX_HOME/config.toml`, its copy in `plugins/cache/<marketplace>/<name>/<version>/`
        running the hooks its `.codex-plugin/plugin.json` names (as `codex plugin add` left them
        in tests/e2e/test_plugin.py)."""
        import tomllib

        from agentstyle.folders import read_regular
        from agentstyle.harnesses import extension as ext

        config = codex_home() / "config.toml"
        raw = read_regular(str(config), ext.MAX_SETTINGS)
        try:
            doc = tomllib.loads(raw.decode("utf-8")) if raw else {}
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            return None
        plugins = doc.get("plugins")
        for plugin_id, entry in plugins.items() if isinstance(plugins, dict) else []:
            if not (isinstance(entry, dict) and entry.get("enabled") is True and "@" in plugin_id):
                continue
            name, market = plugin_id.split("@", 1)
            cache = codex_home() / "plugins" / "cache" / market / name
            versions = sorted(cache.iterdir()) if cache.is_dir() else []
            for copy in reversed(versions):
                manifest = ext.read_json(copy / ".codex-plugin" / "plugin.json")
                named = manifest.get("hooks") if isinstance(manifest, dict) else None
                hooks_file = copy / (named if isinstance(named, str) else "hooks/hooks.json")
                hooks_doc = ext.read_json(hooks_file)
                hooks = hooks_doc.get("hooks") if isinstance(hooks_doc, dict) else None
                if ext.style_commands(hooks) and isinstance(hooks, dict):
                    return ext.PluginInstall(
                        plugin_id,
                        ext.label(config, root),
                        ext.label(copy, root),
                        ext.runs_style_hook(ext.style_commands(hooks)),
                        hooks,
                        disable=f"codex plugin remove {plugin_id}",
                    )
        return None

    def settings_files(self, root: Path) -> list[Path]:
        """The project's hooks file, and the user's in `$CODEX_HOME`."""
        project, user = root / self.config_file, codex_home() / "hooks.json"
        return [project] if project.resolve() == user.resolve() else [project, user]

    def transcripts(self) -> TranscriptFormat:
        from agentstyle.harnesses.transcripts.codex import FORMAT

        return FORMAT

    # -- doctor --------------------------------------------------------------------------------

    def synthetic_payload(self, native_event: str, cwd: str, session_id: str) -> dict[str, Any]:
        payload = read.claude_shaped_payload(native_event, cwd, session_id, model="style-doctor")
        point = SPEC.point_of(native_event)
        if native_event != "SessionEnd":
            payload["permission_mode"] = "default"
        if point not in ("session.start", "session.end"):
            payload["turn_id"] = "style-doctor-turn"
        if native_event == "SessionStart":
            payload["source"] = "startup"
        elif native_event == "SessionEnd":
            payload["reason"] = "other"
        elif native_event == "UserPromptSubmit":
            payload["prompt"] = "style doctor"
        elif point in ("tool.pre", "tool.post"):
            payload.update(tool_name="Bash", tool_input={"command": "true"})
            if native_event != "PermissionRequest":
                payload["tool_use_id"] = "style-doctor"
            if native_event == "PostToolUse":
                payload["tool_response"] = ""
        elif native_event in ("Stop", "SubagentStop"):
            payload.update(stop_hook_active=False, last_assistant_message="style doctor")
        elif native_event == "PreCompact":
            payload["trigger"] = "manual"
        return payload

    def check_answer(self, native_event: str, obj: dict[str, Any] | None, code: int) -> str | None:
        """Why Codex would fail this answer (it then lets the call run), or None."""
        if obj is None:
            return None
        top, specific = ALLOWED_KEYS.get(native_event, (frozenset(), frozenset()))
        extra = sorted(set(obj) - top)
        inner = obj.get("hookSpecificOutput")
        if isinstance(inner, dict):
            extra += sorted(set(inner) - specific)
            if inner.get("permissionDecision") in ("allow", "ask"):
                return f"permissionDecision `{inner['permissionDecision']}` fails the hook"
            if inner.get("permissionDecision") == "deny" and not inner.get(
                "permissionDecisionReason"
            ):
                return "a deny without a reason fails the hook"
        if extra:
            return f"keys Codex rejects: {', '.join(extra)}"
        return None


ADAPTER = Codex()


def codex_home() -> Path:
    """Codex's own folder: `$CODEX_HOME`, else `~/.codex`."""
    return Path(os.environ.get("CODEX_HOME") or home_path(".codex"))
