"""Whether a client runs STYLE as its own extension for a project, and what doctor says.

The extension is a plugin or the client's own extension form
(docs/harnesses/index.md#plugins-and-extensions); `style doctor` reports it.

Each adapter finds its client's extension in the files the client itself writes
(`HarnessAdapter.extension`, e.g. docs/harnesses/claude-code.md#as-a-plugin); this module turns
what they find into doctor's notes: the extension, whether its hooks can run here, and STYLE
installed twice (the extension beside a settings install).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentstyle.harnesses import adapter_for, adapters
from agentstyle.harnesses.extension import PluginInstall, label, read_json, style_commands
from agentstyle.harnesses.install import HOOK_SCRIPT


@dataclass(frozen=True, slots=True)
class DoctorView:
    """What `style doctor` says about STYLE's extension of one harness for a project."""

    notes: list[tuple[str, str]]  # (level, message)
    serves: bool  # the extension alone serves the harness: no hook config to check
    hooks: dict[str, list[dict[str, Any]]] | None  # the plugin's hooks, to fire


def _holding_style(root: Path, paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        doc = read_json(path)
        if isinstance(doc, dict) and style_commands(doc.get("hooks")):
            found.append(label(path, root))
    return found


def doctor_views(root: Path, harnesses: list[str]) -> dict[str, DoctorView]:
    """What `style doctor` says about STYLE's extension of each harness for `root`
    (`harnesses`: those `style.lock.yaml` installs), for the harnesses that have one."""
    views = {}
    for adapter in adapters():
        found = adapter.extension(root)
        if found is not None:
            notes, serves = _notes(root, adapter.name, harnesses, found)
            views[adapter.name] = DoctorView(notes, serves, found.hooks)
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
    configs = _holding_style(root, adapter_for(harness).settings_files(root))
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
