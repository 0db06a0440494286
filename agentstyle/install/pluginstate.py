"""Whether a client runs STYLE as its own extension for a project (a Claude Code or Codex
plugin, a Gemini CLI extension), read from the files the client itself writes
(docs/harnesses/claude-code.md#as-a-plugin), for `style doctor`.

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
    kind: str = "plugin"  # what the client calls it: plugin, extension
    disable: str = ""  # the client's command that turns it off

    def describe(self) -> str:
        where = f"; hooks from {self.install_path}" if self.install_path else ""
        return f"STYLE {self.kind} enabled ({self.plugin_id}, in {self.enabled_in}{where})"


@dataclass(frozen=True, slots=True)
class DoctorView:
    """What `style doctor` says about STYLE's extension of one harness for a project."""

    notes: list[tuple[str, str]]  # (level, message)
    serves: bool  # the extension alone serves the harness: no hook config to check
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
    """STYLE's Claude Code plugin when one is enabled for `root`, else None."""
    for plugin_id, decided_by in enabled_plugins(root).items():
        disable = f"claude plugin disable {plugin_id}"
        for install_path in install_paths(plugin_id, root):
            hooks = _plugin_hooks(install_path)
            commands = style_commands(hooks)
            if commands:
                runs = any(f"{HOOK_SCRIPT} --harness " in c for c in commands)
                shown = _label(Path(install_path), root)
                enabled_in = _label(decided_by, root)
                return PluginInstall(plugin_id, enabled_in, shown, runs, hooks, disable=disable)
        if plugin_id == PLUGIN_ID:  # enabled, its copy not (yet) fetched by the client
            return PluginInstall(plugin_id, _label(decided_by, root), None, True, disable=disable)
    return None


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or home_path(".codex"))


def codex_plugin(root: Path) -> PluginInstall | None:
    """STYLE's Codex plugin when one is enabled: `[plugins."<id>"] enabled = true` in
    `$CODEX_HOME/config.toml`, its copy in `plugins/cache/<marketplace>/<name>/<version>/`
    running the hooks its `.codex-plugin/plugin.json` names (as `codex plugin add` left them
    in tests/e2e/test_plugin.py)."""
    import tomllib

    config = codex_home() / "config.toml"
    raw = read_regular(str(config), MAX_SETTINGS)
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
            manifest = _read_json(copy / ".codex-plugin" / "plugin.json")
            named = manifest.get("hooks") if isinstance(manifest, dict) else None
            hooks_file = copy / (named if isinstance(named, str) else "hooks/hooks.json")
            hooks_doc = _read_json(hooks_file)
            hooks = hooks_doc.get("hooks") if isinstance(hooks_doc, dict) else None
            if style_commands(hooks) and isinstance(hooks, dict):
                runs = any(f"{HOOK_SCRIPT} --harness " in c for c in style_commands(hooks))
                return PluginInstall(
                    plugin_id,
                    _label(config, root),
                    _label(copy, root),
                    runs,
                    hooks,
                    disable=f"codex plugin remove {plugin_id}",
                )
    return None


def gemini_enabled(rules: Any, folder: Path) -> bool:
    """Gemini CLI's `extension-enablement.json` rules for one extension, applied to a folder
    as 0.61.0 applies them: each matching rule decides in turn (`!` disables), a trailing `*`
    takes the sub-folders too; enabled where none matches."""
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


def gemini_extension(root: Path) -> PluginInstall | None:
    """STYLE's Gemini CLI extension when one is installed in `~/.gemini/extensions/<name>/`
    (its `hooks/hooks.json` running STYLE's hook) and enabled for `root`."""
    folder = home_path(".gemini/extensions")
    enablement = _read_json(folder / "extension-enablement.json")
    for copy in sorted(folder.iterdir()) if folder.is_dir() else []:
        manifest = _read_json(copy / "gemini-extension.json")
        hooks_doc = _read_json(copy / "hooks" / "hooks.json")
        hooks = hooks_doc.get("hooks") if isinstance(hooks_doc, dict) else None
        if not isinstance(manifest, dict) or not isinstance(hooks, dict):
            continue
        name = manifest.get("name") if isinstance(manifest.get("name"), str) else copy.name
        entry = enablement.get(name) if isinstance(enablement, dict) else None
        rules = entry.get("overrides") if isinstance(entry, dict) else None
        if style_commands(hooks) and gemini_enabled(rules, root):
            runs = any(f"{HOOK_SCRIPT} --harness " in c for c in style_commands(hooks))
            return PluginInstall(
                str(name),
                _label(folder, root),
                _label(copy, root),
                runs,
                hooks,
                kind="extension",
                disable=f"gemini extensions disable {name}",
            )
    return None


def settings_installs(root: Path) -> list[str]:
    """The Claude Code settings files for `root` that hold STYLE's own handlers."""
    return _holding_style(root, settings_files(root))


def _holding_style(root: Path, paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        doc = _read_json(path)
        if isinstance(doc, dict) and style_commands(doc.get("hooks")):
            found.append(_label(path, root))
    return found


# Per harness: how its STYLE extension is found, and the hook configs a settings install of
# STYLE writes (project, then user).
FINDERS = {"claude-code": style_plugin, "codex": codex_plugin, "gemini-cli": gemini_extension}


def _config_installs(root: Path, harness: str) -> list[str]:
    if harness == "claude-code":
        return settings_installs(root)
    rel = {"codex": ".codex/hooks.json", "gemini-cli": ".gemini/settings.json"}[harness]
    user = codex_home() / "hooks.json" if harness == "codex" else home_path(rel)
    paths = [root / rel] if (root / rel).resolve() == user.resolve() else [root / rel, user]
    return _holding_style(root, paths)


def doctor_views(root: Path, harnesses: list[str]) -> dict[str, DoctorView]:
    """What `style doctor` says about STYLE's extension of each harness for `root`
    (`harnesses`: those `style.lock.yaml` installs), for the harnesses that have one."""
    views = {}
    for harness, find in FINDERS.items():
        found = find(root)
        if found is not None:
            notes, serves = _notes(root, harness, harnesses, found)
            views[harness] = DoctorView(notes, serves, found.hooks)
    return views


def _notes(
    root: Path, harness: str, harnesses: list[str], found: PluginInstall
) -> tuple[list[tuple[str, str]], bool]:
    notes = [("ok", found.describe())]
    its = f"the {found.kind}'s hooks"
    if harness not in harnesses:
        # The database is compiled for the lock's harnesses only: the extension's hooks find
        # no rule for this harness and answer nothing.
        notes.append(
            (
                "warning",
                f"style.lock.yaml installs nothing for {harness}, so {its} find no rule to "
                f"apply here; run `style install <package> --harness {harness}`",
            )
        )
    if found.runs_style_hook and shutil.which(HOOK_SCRIPT) is None:
        notes.append(
            (
                "error",
                f"{its} run `{HOOK_SCRIPT}`, which is not on PATH here, so they answer that "
                "STYLE is not installed; install STYLE with `pipx install agentstyle` or "
                "`uv tool install agentstyle`",
            )
        )
    configs = _config_installs(root, harness)
    if not configs:
        return notes, True
    notes.append(
        (
            "warning",
            f"STYLE is installed twice here: the {found.kind} {found.plugin_id} and the "
            f"handlers in {', '.join(configs)} both run on every event (each event is "
            f"answered once, but STYLE starts twice); keep one (`style uninstall --harness "
            f"{harness}`, or `{found.disable}`)",
        )
    )
    return notes, False
