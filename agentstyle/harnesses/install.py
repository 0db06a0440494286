"""Installing into a harness: what the adapters share to write and find STYLE's handlers.

How STYLE's handlers are told from a user's, where config and instruction files live, and the
byte-preserving edits of a JSON hook config.

Standard library only at import (the hook path reads `is_style_command`); the config editors
are imported by the functions that edit.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentstyle.configfiles.jsonedit import IsOurs
    from agentstyle.configfiles.jsonspans import Dialect, JsonValue

# How STYLE's own handlers are told from a user's: the module form (personal scopes) or the
# portable `style-hook` console script (committed configs: install/hookcommand.py).
HOOK_MODULE = "agentstyle.hook"
HOOK_SCRIPT = "style-hook"
# The plugin folder of STYLE's repository (its marketplace's one plugin, which Claude Code and
# Codex read), relative to the repository root (harnesses/extension.py).
PLUGIN_DIR = "plugins/style"
# A config's hook entries: native event → its matcher groups (or, flat, its handlers).
Groups = dict[str, list[dict[str, Any]]]
# A key STYLE sets beside its handlers (Gemini CLI's enable flag, Cursor's `version`).
Key = tuple[tuple[str, ...], "JsonValue"]


# strip-json-comments 3.x, which Gemini CLI and Qwen Code read their settings with, blanks a
# comment with `replace(/\S/g, " ")`: what JavaScript's `\s` matches beyond JSON's four whitespace
# characters stays, and then `JSON.parse` fails on it (fixed upstream in 5.0.2). A config dialect's
# `unreadable_in_comments` for those clients.
STRIP_JSON_COMMENTS_LEAVES = (
    "\v\f\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def is_style_command(text: str) -> bool:
    """A handler command STYLE wrote: `style-hook --harness …` (on PATH, or a personal scope's
    `"/…/bin/style-hook" --harness …`), or an older install's `python -m agentstyle.hook`."""
    return (
        HOOK_MODULE in text
        or f"{HOOK_SCRIPT} --harness " in text
        or f'/{HOOK_SCRIPT}" --harness ' in text
    )


def named_handler(harness: str, command: str, native_event: str) -> dict[str, Any]:
    """A command handler named `style`, with STYLE's timeout in the harness's unit: the entry
    Gemini CLI and Qwen Code (its fork) read alike, which has no fail-closed switch."""
    from agentstyle.harnesses import written

    return {
        "type": "command",
        "command": command,
        "name": "style",
        "timeout": written(harness, native_event),
    }


def sh_literal(text: str) -> str:
    """`text` as one single-quoted `sh` word."""
    return "'" + text.replace("'", "'\\''") + "'"


def home_path(relative: str) -> Path:
    return Path(os.path.expanduser("~")) / relative


# Puts the system-wide configs (`/etc/...`) under another folder: tests, and images built for
# a machine before it runs.
SYSTEM_ROOT_ENV = "STYLE_MANAGED_CONFIG_ROOT"


def system_path(absolute: str) -> Path:
    """A system-wide config file, under `STYLE_MANAGED_CONFIG_ROOT` when that is set."""
    base = os.environ.get(SYSTEM_ROOT_ENV)
    return Path(base) / absolute.lstrip("/") if base else Path(absolute)


def command_interpreter(command: str) -> str | None:
    """The program of a handler command STYLE wrote: its first (double-quoted) word."""
    command = command.strip()
    if command.startswith('"'):
        m = re.match(r'"((?:[^"\\]|\\.)*)"', command)
        return re.sub(r"\\(.)", r"\1", m.group(1)) if m else None
    return command.split()[0] if command.split() else None


def no_fail_closed_notes(harness: str, fail_closed: bool) -> list[str]:
    """What `--fail-closed` cannot do on a harness without a fail-closed switch."""
    if not fail_closed:
        return []
    return [
        f"{harness} hooks have no fail-closed switch: STYLE refuses gate calls itself when it "
        "cannot evaluate, but a hook process that crashes or times out lets the call run"
    ]


def write_config(
    before: str | None,
    groups: Groups,
    is_ours: IsOurs,
    name: str,
    markers: list[str],
    *,
    flat: bool,
    dialect: Dialect,
    keys: Callable[[str], list[Key]],
) -> tuple[str, list[str]]:
    """A hook config with STYLE's handlers replaced, and the markers of the keys STYLE set
    beside them (`keys(text)`: those the config still needs once the handlers are in)."""
    from agentstyle.configfiles.hookconfig import ensure_key, install_flat, install_groups

    before = undo_keys(before, markers, name, dialect) if before else before
    install = install_flat if flat else install_groups
    text = install(before, groups, is_ours=is_ours, name=name, dialect=dialect)
    done: list[str] = []
    if groups:
        for path, value in keys(text):
            text, made = ensure_key(text, path, value, name=name, dialect=dialect)
            if made:
                done.append(made)
    return text, done


def strip_config(
    text: str, is_ours: IsOurs, markers: list[str], name: str, *, flat: bool, dialect: Dialect
) -> str:
    """A hook config without STYLE's handlers, and the keys STYLE set (`markers`) undone."""
    from agentstyle.configfiles.hookconfig import uninstall_flat, uninstall_groups

    text = undo_keys(text, markers, name, dialect)
    uninstall = uninstall_flat if flat else uninstall_groups
    return uninstall(text, is_ours=is_ours, name=name, dialect=dialect)


def undo_keys(text: str, markers: list[str], name: str, dialect: Dialect) -> str:
    """Back to the user's keys, newest edit first (then the same edits can be made again)."""
    from agentstyle.configfiles.hookconfig import undo_key

    for marker in reversed(markers):
        text = undo_key(text, marker, name=name, dialect=dialect)
    return text


def place_static(before: str | None, blocks: dict[str, str], name: str) -> str:
    """Static rules between `<!-- style:begin/end -->` markers of an instruction file."""
    from agentstyle.configfiles.markers import place_blocks

    return place_blocks(before, blocks, name=name)


def strip_static(before: str, name: str) -> str:
    from agentstyle.configfiles.markers import remove_blocks

    return remove_blocks(before, name=name)
