"""The repository as the clients' own extension forms: plugin marketplace and extension.

A Claude Code plugin marketplace holding the `style` plugin (which Codex reads too, with a
manifest of its own), and a Gemini CLI extension
(docs/harnesses/index.md#plugins-and-extensions).

An extension is installed once per person, not per project, so its hooks cannot know a
project's rules: one handler per native event STYLE handles, every tool matched, each running
the portable `style-hook` command of a committed config (install/hookcommand.py), whose
"STYLE is not installed on this machine" answer is the same. The hook finds the project itself
(a `.style/` folder or a committed `style.lock.yaml`, built on first use) and answers nothing
at once where there is none. No handler is `--fail-closed`: that would make every folder on
the machine a STYLE project (hook.py `nothing_to_do`).

Each client's extension form is its adapter's (where its files go, what its manifests say:
`HarnessAdapter.extension_files`, harnesses/extension.py); the committed files are generated
here: `python -m agentstyle.install.plugin` writes them, and tests/test_plugin.py fails when a
committed one differs from what this module generates.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agentstyle.harnesses import adapter_for, adapters
from agentstyle.harnesses.extension import DESCRIPTION, PLUGIN_ID, PLUGIN_NAME
from agentstyle.harnesses.facts import spec_for
from agentstyle.harnesses.install import PLUGIN_DIR
from agentstyle.install.hookcommand import hook_command

__all__ = [
    "DESCRIPTION",
    "PLUGIN_DIR",
    "PLUGIN_ID",
    "PLUGIN_NAME",
    "extension_hooks",
    "extension_paths",
    "files",
]


def every_tool(harness: str) -> str:
    """The matcher that covers every tool, in the harness's matcher syntax."""
    return ".*" if spec_for(harness).matcher_style == "regex" else "*"


def extension_hooks(harness: str) -> dict[str, Any]:
    """The hooks file of an extension for `harness`: one handler per native event STYLE
    handles, with STYLE's timeout, every tool matched on the tool events."""
    spec = spec_for(harness)
    adapter = adapter_for(harness)
    groups: dict[str, list[dict[str, Any]]] = {}
    for native in spec.native_events():
        command = hook_command(harness, native, False, "project", plugin=True)
        handler = adapter.handler(adapter.extension_command(command), native, False)
        point = spec.spec_of(native)
        matcher = every_tool(harness) if point is not None and point.matcher == "tool" else None
        groups[native] = [adapter.group(handler, matcher)]
    return {"description": DESCRIPTION, "hooks": groups}


def extension_paths(harness: str) -> list[str]:
    """The repository's files of one harness's extension, relative to its root (none: the
    client takes no extension from the repository)."""
    adapter = adapter_for(harness)
    if adapter.extension_hooks_file is None:
        return []
    return [*adapter.extension_files(), adapter.extension_hooks_file]


def files() -> dict[str, str]:
    """Each committed file (path relative to the repository root) and its text: per harness
    with an extension of its own, its manifests (`HarnessAdapter.extension_files`) and its
    hooks file (`extension_hooks_file`)."""
    content: dict[str, dict[str, Any]] = {}
    for adapter in adapters():
        if adapter.extension_hooks_file is None:
            continue
        content.update(adapter.extension_files())
        content[adapter.extension_hooks_file] = extension_hooks(adapter.name)
    return {path: json.dumps(value, indent=2) + "\n" for path, value in content.items()}


def write(root: Path) -> list[str]:
    """Write every file under `root`; the paths whose text changed."""
    changed = []
    for rel, text in files().items():
        path = root / rel
        try:
            before = path.read_text(encoding="utf-8")
        except OSError:
            before = None
        if before != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(rel)
    return changed


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parents[2]
    for rel in write(root):
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
