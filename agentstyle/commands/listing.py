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
