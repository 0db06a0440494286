"""Writing an install's file changes: each one checked, backed up and written atomically.

Each config file checked writable, its folders made, the old text kept as a backup beside it, the
new text written atomically."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.paths import StylePaths
from agentstyle.install.lockfile import atomic_write


@dataclass(slots=True)
class FileChange:
    path: Path
    before: str | None  # None: the file does not exist
    after: str | None  # None: delete the file
    label: str = ""  # the path as shown (relative to the install root when inside)

    def diff(self) -> str:
        name = self.label or self.path.name
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        old = f"a/{name}" if self.before is not None else "/dev/null"
        new = f"b/{name}" if self.after is not None else "/dev/null"
        lines = list(difflib.unified_diff(a, b, old, new))
        # A last line without a line break would glue onto the next header.
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def relative(root: Path, path: Path) -> str:
    """How the lock file and messages name a file: relative to the install root when inside."""
    full = path.parent.resolve() / path.name
    try:
        return full.relative_to(root.resolve()).as_posix()
    except ValueError:
        return full.as_posix()


def check_writable(change: FileChange) -> None:
    """Before anything is written: a file where a folder of the path must be is one clear line
    (the database and the config would otherwise disagree after a half install)."""
    for folder in change.path.parents:
        if folder.exists():
            if not folder.is_dir():
                name = change.label or str(change.path)
                raise StyleError(f"cannot write {name}: `{folder}` is a file, not a folder")
            return


def _missing_folders(path: Path) -> list[Path]:
    missing = []
    folder = path.parent
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing


def apply_changes(
    paths: StylePaths, root: Path, changes: list[FileChange], created: list[str]
) -> None:
    """Write the changes (backing up what was there); keep `created` up to date."""
    for change in changes:
        if change.before == change.after:
            continue
        label = change.label or relative(root, change.path)
        if change.before is None:
            for folder in _missing_folders(change.path):
                key = relative(root, folder) + "/"
                if key not in created:
                    created.append(key)
            if label not in created:
                created.append(label)
        elif change.after is None and label in created:
            created.remove(label)
        _write(paths, change)


def _backup_name(label: str, stamp: str) -> str:
    flat = re.sub(r"[^A-Za-z0-9._-]+", "_", label.lstrip("./")) or "file"
    return f"{flat}.{stamp}.bak"


def _write(paths: StylePaths, change: FileChange) -> None:
    if change.before is not None:
        paths.backups.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S%f")
        label = change.label or change.path.name
        backup = paths.backups / _backup_name(label, stamp)
        n = 1
        while backup.exists():
            n += 1
            backup = paths.backups / _backup_name(label, f"{stamp}-{n}")
        with open(backup, "w", encoding="utf-8", newline="") as fh:
            fh.write(change.before)
    if change.after is None:
        change.path.unlink(missing_ok=True)
    else:
        atomic_write(change.path, change.after)


def read_existing(path: Path) -> str | None:
    """A file's text as it is (line ends kept), None when there is no file."""
    if not path.exists():
        return None
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise StyleError(f"{path}: cannot read: {exc}") from None
