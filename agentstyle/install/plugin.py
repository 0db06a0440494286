"""The repository as the clients' own extension forms: a Claude Code plugin marketplace holding
the `style` plugin (which Codex reads too, with a manifest of its own), and a Gemini CLI
extension (docs/harnesses/index.md#plugins-and-extensions).

An extension is installed once per person, not per project, so its hooks cannot know a
project's rules: one handler per native event STYLE handles, every tool matched, each running
the portable `style-hook` command of a committed config (install/hookcommand.py), whose
"STYLE is not installed on this machine" answer is the same. The hook finds the project itself
(a `.style/` folder or a committed `style.lock.yaml`, built on first use) and answers nothing
at once where there is none. No handler is `--fail-closed`: that would make every folder on
the machine a STYLE project (hook.py `nothing_to_do`).

The committed files are generated here: `python -m agentstyle.install.plugin` writes them, and
tests/test_plugin.py fails when a committed one differs from what this module generates.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agentstyle import __version__
from agentstyle.harnesses import adapter_for
from agentstyle.harnesses.facts import spec_for
from agentstyle.install.hookcommand import hook_command, sh_literal

PLUGIN_NAME = "style"
MARKETPLACE_NAME = "agentstyle"
PLUGIN_ID = f"{PLUGIN_NAME}@{MARKETPLACE_NAME}"
DESCRIPTION = (
    "STYLE policy engine: guards every project that carries a style.lock.yaml "
    "(needs the style-hook command: pipx install agentstyle)"
)
# Where each file lives, relative to the repository root.
CLAUDE_PLUGIN_DIR = "plugins/style"
CLAUDE_MARKETPLACE = ".claude-plugin/marketplace.json"
CLAUDE_MANIFEST = f"{CLAUDE_PLUGIN_DIR}/.claude-plugin/plugin.json"
CLAUDE_HOOKS = f"{CLAUDE_PLUGIN_DIR}/hooks/hooks.json"
# Codex 0.171.0 reads the same marketplace and, without a manifest of its own, runs the Claude
# Code hooks above (`--harness claude-code`); its own manifest names its own hooks file, and
# then it runs only that one (tests/e2e/test_plugin.py).
CODEX_MANIFEST = f"{CLAUDE_PLUGIN_DIR}/.codex-plugin/plugin.json"
CODEX_HOOKS_NAME = "hooks/codex.json"
CODEX_HOOKS = f"{CLAUDE_PLUGIN_DIR}/{CODEX_HOOKS_NAME}"
# Gemini CLI installs an extension from a repository's root (no sub-folder option in 0.61.0)
# and reads its hooks from `hooks/hooks.json` beside `gemini-extension.json`.
GEMINI_MANIFEST = "gemini-extension.json"
GEMINI_HOOKS = "hooks/hooks.json"
GEMINI_EXTENSION_NAME = "style"
# Claude Code takes any folder with a top-level `hooks/` as a plugin (`claude --plugin-dir
# <repository root>`) and would run the Gemini CLI hooks there as its own. Gemini CLI names the
# project in every hook's environment (`GEMINI_PROJECT_DIR`; read braced, so Gemini CLI's own
# `$GEMINI_PROJECT_DIR` substitution in the command leaves it alone): where it is not set, the
# hook says which folder is the Claude Code plugin, instead of answering in the wrong dialect.
GEMINI_ONLY_ENV = "GEMINI_PROJECT_DIR"
NOT_GEMINI = (
    "STYLE: these are the Gemini CLI extension's hooks (the repository root); Claude Code "
    f"loads STYLE from {CLAUDE_PLUGIN_DIR} (claude --plugin-dir <checkout>/{CLAUDE_PLUGIN_DIR})"
)


def every_tool(harness: str) -> str:
    """The matcher that covers every tool, in the harness's matcher syntax."""
    return ".*" if spec_for(harness).matcher_style == "regex" else "*"


def only_in_gemini(command: str) -> str:
    """`command`, run only where Gemini CLI started it; elsewhere one line on stderr, exit 1
    (a non-blocking hook error, shown to the person)."""
    return (
        f'[ -n "${{{GEMINI_ONLY_ENV}-}}" ] || {{ cat >/dev/null; echo {sh_literal(NOT_GEMINI)} '
        f">&2; exit 1; }}; {command}"
    )


def extension_hooks(harness: str) -> dict[str, Any]:
    """The hooks file of an extension for `harness`: one handler per native event STYLE
    handles, with STYLE's timeout, every tool matched on the tool events."""
    spec = spec_for(harness)
    adapter = adapter_for(harness)
    groups: dict[str, list[dict[str, Any]]] = {}
    for native in spec.native_events():
        command = hook_command(harness, native, False, "project", plugin=True)
        if harness == "gemini-cli":
            command = only_in_gemini(command)
        handler = adapter.handler(command, native, False)
        point = spec.spec_of(native)
        matcher = every_tool(harness) if point is not None and point.matcher == "tool" else None
        groups[native] = [adapter.group(handler, matcher)]
    return {"description": DESCRIPTION, "hooks": groups}


def claude_manifest() -> dict[str, Any]:
    return {
        "name": PLUGIN_NAME,
        "version": __version__,
        "description": DESCRIPTION,
        "author": {"name": "STYLE"},
        "license": "MIT",
        "keywords": ["policy", "hooks", "guardrails"],
    }


def codex_manifest() -> dict[str, Any]:
    return {**claude_manifest(), "hooks": f"./{CODEX_HOOKS_NAME}"}


def claude_marketplace() -> dict[str, Any]:
    return {
        "name": MARKETPLACE_NAME,
        "owner": {"name": "STYLE"},
        "metadata": {"description": "The STYLE policy engine as a Claude Code plugin"},
        "plugins": [
            {
                "name": PLUGIN_NAME,
                "source": f"./{CLAUDE_PLUGIN_DIR}",
                "description": DESCRIPTION,
                "version": __version__,
            }
        ],
    }


def gemini_manifest() -> dict[str, Any]:
    return {"name": GEMINI_EXTENSION_NAME, "version": __version__, "description": DESCRIPTION}


def files() -> dict[str, str]:
    """Each committed file (path relative to the repository root) and its text."""
    content: dict[str, dict[str, Any]] = {
        CLAUDE_MARKETPLACE: claude_marketplace(),
        CLAUDE_MANIFEST: claude_manifest(),
        CLAUDE_HOOKS: extension_hooks("claude-code"),
        CODEX_MANIFEST: codex_manifest(),
        CODEX_HOOKS: extension_hooks("codex"),
        GEMINI_MANIFEST: gemini_manifest(),
        GEMINI_HOOKS: extension_hooks("gemini-cli"),
    }
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
