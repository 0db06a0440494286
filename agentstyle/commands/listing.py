"""The files a recursive read of a folder reads (docs/design/commands.md#paths).

`grep -r SECRET .`, `rg --hidden SECRET`, `tar czf x.tgz .` and a harness's content search tool
(Grep) read every file under their folder: a guard on `.env` must see that they read it. The
folder is listed breadth first, near files before deep ones, within bounds (the hook has
seconds), without the folders no search looks into (`.git`, `node_modules`, virtual
environments); `includes`/`excludes` are the command's file globs (`--include=*.py`, `-g
'!*.lock'`), matched on the name.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence

MAX_FILES = 400
MAX_DEPTH = 6
_NOT_SEARCHED = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", "target"})


def files_under(
    folder: str,
    cwd: str,
    *,
    hidden: bool = True,
    includes: Sequence[str] = (),
    excludes: Sequence[str] = (),
) -> list[str]:
    """The files under `folder` (absolute, or relative to `cwd`) a recursive read reads."""
    base = folder if os.path.isabs(folder) else os.path.join(cwd, folder)
    if not os.path.isdir(base):
        return []
    found: list[str] = []
    level = [base]
    for _depth in range(MAX_DEPTH):
        following: list[str] = []
        for current in level:
            try:
                entries = sorted(os.scandir(current), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                if not hidden and entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in _NOT_SEARCHED:
                        following.append(entry.path)
                    continue
                if includes and not any(fnmatch.fnmatch(entry.name, g) for g in includes):
                    continue
                if any(fnmatch.fnmatch(entry.name, g) for g in excludes):
                    continue
                found.append(entry.path)
                if len(found) >= MAX_FILES:
                    return found
        level = following
    return found


MAX_ENTRIES = 256  # names a glob word may expand to that are looked at


def entries_matching(folder: str, pattern: str, *, dots: bool = False) -> list[str]:
    """The names in `folder` (absolute) the shell expands `pattern` (one path segment, a glob,
    bash's extglob `@(a|b)` included) to: a leading `.` only by a `.` (by anything with `dots`,
    bash's dotglob, but never `.` and `..`); matched without regard to
    case (bash's `nocaseglob`, and the file systems that ignore it), so a guard sees every name
    the command may reach."""
    import re

    from agentstyle.globs import glob_to_regex

    try:
        regex = re.compile(glob_to_regex(pattern), re.IGNORECASE)
        entries = os.scandir(folder)
    except (ValueError, re.error, OSError):
        return []
    found: list[str] = []
    with entries:
        for k, entry in enumerate(entries):
            if k >= MAX_ENTRIES:
                break
            if entry.name.startswith(".") and not pattern.startswith(".") and not dots:
                continue
            if regex.match(entry.name):
                found.append(entry.name)
    return sorted(found)
