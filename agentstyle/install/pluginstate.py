"""Whether Claude Code runs STYLE as a plugin for a project, read from the files the client
itself writes (docs/harnesses/claude-code.md#as-a-plugin), for `style doctor`.

Claude Code 2.1.332 keeps a plugin's enabled state in `enabledPlugins` of its settings files
(`"style@agentstyle": true`; `claude plugin disable` writes `false`), the more specific file
deciding: managed, then `.claude/settings.local.json`, `.claude/settings.json`, then
`~/.claude/settings.json`. Where each installed plugin's copy lives is in
`~/.claude/plugins/installed_plugins.json` (`plugins.<id>[].installPath`). A plugin is STYLE's
when the hooks of that copy run STYLE's hook command, so a fork under another name is known
too. A `--plugin-dir` plugin lives for one session and leaves no file: doctor cannot see it.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentstyle.folders import read_regular
from agentstyle.harnesses.install import HOOK_SCRIPT, home_path, is_style_command
from agentstyle.install.plugin import PLUGIN_ID

MANAGED_SETTINGS = Path("/etc/claude-code/managed-settings.json")
INSTALLED_PLUGINS = ".claude/plugins/installed_plugins.json"
USER_SETTINGS = ".claude/settings.json"
PROJECT_SETTINGS = (".claude/settings.local.json", ".claude/settings.json")
MAX_SETTINGS = 1 << 22


@dataclass(frozen=True, slots=True)
class PluginInstall:
    """STYLE's plugin, enabled for a project."""

    plugin_id: str
    enabled_in: str  # the settings file that enables it, as the person knows it
    install_path: str | None  # the client's copy of the plugin, when installed from a marketplace
    runs_style_hook: bool  # its hooks run `style-hook` (found on PATH)
    hooks: dict[str, list[dict[str, Any]]] | None = None  # the copy's hooks, as the client reads

    def describe(self) -> str:
        where = f"; hooks from {self.install_path}" if self.install_path else ""
        return f"STYLE plugin enabled ({self.plugin_id}, in {self.enabled_in}{where})"


@dataclass(frozen=True, slots=True)
class DoctorView:
    """What `style doctor` says about STYLE's plugin for a project."""

    notes: list[tuple[str, str]]  # (level, message)
    serves_claude_code: bool  # the plugin alone serves Claude Code: no settings install to check
    hooks: dict[str, list[dict[str, Any]]] | None  # the plugin's hooks, to fire


def _read_json(path: Path) -> Any:
    """The JSON document at `path`, or None where it is missing, no regular file (a FIFO is
    never waited on), too large or not JSON (the client ignores such a file too)."""
    data = read_regular(str(path), MAX_SETTINGS + 1)
    if data is None or len(data) > MAX_SETTINGS:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def _label(path: Path, root: Path) -> str:
    home = Path(os.path.expanduser("~"))
    for base, shown in ((root, ""), (home, "~/")):
        try:
            return shown + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return path.as_posix()


def settings_files(root: Path) -> list[Path]:
    """Claude Code's settings files for `root`, the one that decides first (the home folder's
    own settings once, where `root` is the home folder)."""
    out: list[Path] = []
    seen: set[str] = set()
    for path in (MANAGED_SETTINGS, *(root / p for p in PROJECT_SETTINGS), home_path(USER_SETTINGS)):
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append(path)
    return out


def enabled_plugins(root: Path) -> dict[str, Path]:
    """Each plugin id enabled for `root`, with the settings file whose value decides."""
    decided: dict[str, tuple[bool, Path]] = {}
    for path in settings_files(root):
        doc = _read_json(path)
        plugins = doc.get("enabledPlugins") if isinstance(doc, dict) else None
        if not isinstance(plugins, dict):
            continue
        for plugin_id, value in plugins.items():
            if isinstance(plugin_id, str) and plugin_id not in decided:
                # a list of versions enables it too (claude-code-settings: `PluginEnabled`)
                on = value is True or (isinstance(value, list) and bool(value))
                decided[plugin_id] = (on, path)
    return {pid: path for pid, (on, path) in decided.items() if on}


def install_paths(plugin_id: str, root: Path) -> list[str]:
    """The client's copies of an installed plugin that apply to `root` (user-wide ones, and
    those installed for this project)."""
    doc = _read_json(home_path(INSTALLED_PLUGINS))
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


def style_commands(hooks: Any) -> list[str]:
    """STYLE's hook commands in a `hooks` object (settings or a plugin's hooks.json)."""
    found: list[str] = []
    if not isinstance(hooks, dict):
        return found
    for groups in hooks.values():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for handler in handlers if isinstance(handlers, list) else []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and is_style_command(command):
                    found.append(command)
    return found


def _plugin_hooks(install_path: str) -> dict[str, list[dict[str, Any]]] | None:
    doc = _read_json(Path(install_path) / "hooks" / "hooks.json")
    hooks = doc.get("hooks") if isinstance(doc, dict) else None
    if not isinstance(hooks, dict):
        return None
    return {k: v for k, v in hooks.items() if isinstance(k, str) and isinstance(v, list)}


def style_plugin(root: Path) -> PluginInstall | None:
    """STYLE's plugin when one is enabled for `root`, else None."""
    for plugin_id, decided_by in enabled_plugins(root).items():
        for install_path in install_paths(plugin_id, root):
            hooks = _plugin_hooks(install_path)
            commands = style_commands(hooks)
            if commands:
                runs = any(f"{HOOK_SCRIPT} --harness " in c for c in commands)
                shown = _label(Path(install_path), root)
                return PluginInstall(plugin_id, _label(decided_by, root), shown, runs, hooks)
        if plugin_id == PLUGIN_ID:  # enabled, its copy not (yet) fetched by the client
            return PluginInstall(plugin_id, _label(decided_by, root), None, True)
    return None


def settings_installs(root: Path) -> list[str]:
    """The Claude Code settings files for `root` that hold STYLE's own handlers."""
    found = []
    for path in settings_files(root):
        doc = _read_json(path)
        if isinstance(doc, dict) and style_commands(doc.get("hooks")):
            found.append(_label(path, root))
    return found


def doctor_view(root: Path, harnesses: list[str]) -> DoctorView:
    """What `style doctor` says about STYLE's plugin for `root` (`harnesses`: those
    `style.lock.yaml` installs)."""
    plugin = style_plugin(root)
    if plugin is None:
        return DoctorView([], False, None)
    notes, serves = _notes(root, harnesses, plugin)
    return DoctorView(notes, serves, plugin.hooks)


def _notes(
    root: Path, harnesses: list[str], plugin: PluginInstall
) -> tuple[list[tuple[str, str]], bool]:
    notes = [("ok", plugin.describe())]
    if "claude-code" not in harnesses:
        # The database is compiled for the lock's harnesses only: the plugin's hooks find
        # no rule for Claude Code and answer nothing.
        notes.append(
            (
                "warning",
                "style.lock.yaml installs nothing for claude-code, so the plugin's hooks find "
                "no rule to apply here; run `style install <package> --harness claude-code`",
            )
        )
    if plugin.runs_style_hook and shutil.which(HOOK_SCRIPT) is None:
        notes.append(
            (
                "error",
                f"the plugin's hooks run `{HOOK_SCRIPT}`, which is not on PATH here, so they "
                "answer that STYLE is not installed; install STYLE with `pipx install "
                "agentstyle` or `uv tool install agentstyle`",
            )
        )
    settings = settings_installs(root)
    if not settings:
        return notes, True
    notes.append(
        (
            "warning",
            f"STYLE is installed twice here: the plugin {plugin.plugin_id} and the handlers in "
            f"{', '.join(settings)} both run on every event; keep one (`style uninstall "
            f"--harness claude-code`, or `claude plugin disable {plugin.plugin_id}`)",
        )
    )
    return notes, False
