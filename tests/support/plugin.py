"""STYLE as a Claude Code plugin, installed as the pinned client installs one: the files
`claude plugin install` leaves (the copy in the cache, installed_plugins.json, enabledPlugins),
as tests/e2e/test_plugin.py recorded them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from agentstyle.install import plugin
from tests.support.environment import REPO


def write_json(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def install_plugin(
    home: Path, plugin_id: str = plugin.PLUGIN_ID, *, source: Path | None = None
) -> Path:
    """What `claude plugin install <id>` (user scope) leaves: the plugin copied into the cache,
    recorded in installed_plugins.json, enabled in ~/.claude/settings.json."""
    name, market = plugin_id.split("@")
    copy = home / ".claude" / "plugins" / "cache" / market / name / "0.3.0"
    shutil.copytree(source or REPO / plugin.PLUGIN_DIR, copy)
    record = {"scope": "user", "installPath": str(copy), "version": "0.3.0"}
    installed = home / ".claude" / "plugins" / "installed_plugins.json"
    doc = json.loads(installed.read_text()) if installed.exists() else {"version": 2, "plugins": {}}
    doc["plugins"][plugin_id] = [record]
    write_json(installed, doc)
    enable(home / ".claude" / "settings.json", plugin_id, True)
    return copy


def enable(settings: Path, plugin_id: str, on: bool) -> None:
    doc = json.loads(settings.read_text()) if settings.exists() else {}
    doc.setdefault("enabledPlugins", {})[plugin_id] = on
    write_json(settings, doc)
