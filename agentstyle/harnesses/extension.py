"""STYLE as a client's own extension: a plugin, or the client's extension form.

A Claude Code or Codex plugin, a Gemini CLI extension: what the adapters share to describe the
repository's extension files and to find an enabled copy in the files the client itself writes
(docs/harnesses/index.md#plugins-and-extensions).

Each adapter that has one says where its files go and how the client keeps it
(`HarnessAdapter.extension_files`, `extension`); `install/plugin.py` writes the files and
`install/pluginstate.py` turns what the adapters find into `style doctor`'s notes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentstyle import __version__
from agentstyle.folders import read_regular
from agentstyle.harnesses.install import HOOK_SCRIPT, is_style_command

PLUGIN_NAME = "style"
MARKETPLACE_NAME = "agentstyle"
PLUGIN_ID = f"{PLUGIN_NAME}@{MARKETPLACE_NAME}"
DESCRIPTION = (
    "STYLE policy engine: guards every project that carries a style.lock.yaml "
    "(needs the style-hook command: pipx install agentstyle)"
)
MAX_SETTINGS = 1 << 22


@dataclass(frozen=True, slots=True)
class PluginInstall:
    """STYLE's extension, enabled for a project."""

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


def plugin_manifest() -> dict[str, Any]:
    """The plugin's manifest, as Claude Code and Codex read it (each in a folder of its own)."""
    return {
        "name": PLUGIN_NAME,
        "version": __version__,
        "description": DESCRIPTION,
        "author": {"name": "STYLE"},
        "license": "MIT",
        "keywords": ["policy", "hooks", "guardrails"],
    }


def read_json(path: Path) -> Any:
    """The JSON document at `path`, or None where it is missing, no regular file (a FIFO is
    never waited on), too large or not JSON (the client ignores such a file too)."""
    data = read_regular(str(path), MAX_SETTINGS + 1)
    if data is None or len(data) > MAX_SETTINGS:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def label(path: Path, root: Path) -> str:
    """A path as the person knows it: relative to the project, else `~/…`, else absolute."""
    home = Path(os.path.expanduser("~"))
    for base, shown in ((root, ""), (home, "~/")):
        try:
            return shown + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return path.as_posix()


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


def runs_style_hook(commands: list[str]) -> bool:
    """Whether hook commands run the `style-hook` script (which must then be on PATH)."""
    return any(f"{HOOK_SCRIPT} --harness " in c for c in commands)
