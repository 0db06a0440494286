"""Where STYLE keeps its files for a project: `.style/` under the install root."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agentstyle.folders import DATABASE_NAME, HOME_NAME, LOCK_NAME, STYLE_HOME_ENV, find_upwards


@dataclass(frozen=True, slots=True)
class StylePaths:
    root: Path  # the install root (project folder, or the home for --scope user)

    @property
    def home(self) -> Path:
        override = os.environ.get(STYLE_HOME_ENV)
        return Path(override) if override else self.root / HOME_NAME

    @property
    def database(self) -> Path:
        return self.home / DATABASE_NAME

    @property
    def lock(self) -> Path:
        return self.home / "style.lock"

    @property
    def error_log(self) -> Path:
        return self.home / "logs" / "errors.log"

    @property
    def backups(self) -> Path:
        return self.home / "backups"

    @property
    def lockfile(self) -> Path:
        return self.root / LOCK_NAME

    @property
    def socket(self) -> Path:
        return self.home / "engine.sock"


# `.style/` holds this machine's database, logs, backups and socket: never committed, never
# readable by other users (the history stores command text).
GITIGNORE = "# Written by STYLE: this folder is this machine's (database, logs, sockets).\n*\n"
HOME_MODE = 0o700
FILE_MODE = 0o600


def ensure_home(paths: StylePaths) -> Path:
    """`.style/` created owner-only with its `.gitignore`; an existing one is tightened."""
    home = paths.home
    home.mkdir(mode=HOME_MODE, parents=True, exist_ok=True)
    try:
        if home.stat().st_mode & 0o077 and home.stat().st_uid == os.getuid():
            os.chmod(home, HOME_MODE)
    except (OSError, AttributeError):
        pass
    ignore = home / ".gitignore"
    if not ignore.exists():
        try:
            fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(GITIGNORE)
        except OSError:
            pass
    return home


def widened(paths: StylePaths) -> list[str]:
    """What of `.style/` other users can read: the folder, the database, its WAL."""
    out = []
    checks = [(paths.home, HOME_MODE), (paths.database, FILE_MODE)]
    checks.append((paths.database.with_name(paths.database.name + ".wal"), FILE_MODE))
    for path, want in checks:
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            continue
        if mode & 0o077:
            out.append(f"{path.name} is {mode:04o} (want {want:04o})")
    return out


def privacy_warning(root: Path, paths: StylePaths) -> str | None:
    """The warning `style doctor` and `style audit` give when other users can read the
    history (`.style/` wider than 0700, the database than 0600), else None. Here beside
    `widened`, not in doctor: `style audit` gives it without importing doctor's checks (a
    third of a report command's start)."""
    wide = widened(paths)
    if not wide:
        return None
    home = paths.home.parent.resolve() / paths.home.name
    try:
        label = home.relative_to(root.resolve()).as_posix()
    except ValueError:
        label = home.as_posix()
    return (
        f"the history in {label} is readable by other users "
        f"({'; '.join(wide)}); `style sync` makes it yours alone"
    )


def tighten(path: Path) -> None:
    """A file of `.style/` made owner-only (DuckDB creates its files with the umask's mode)."""
    try:
        if path.exists() and path.stat().st_mode & 0o077:
            os.chmod(path, FILE_MODE)
    except OSError:
        pass


def find_root(start: Path | None = None) -> Path:
    """The nearest folder upwards holding `.style/` or `style.lock.yaml`, else `start`."""
    here = (start or Path.cwd()).resolve()

    def holds(folder: str) -> bool:
        return os.path.isdir(os.path.join(folder, HOME_NAME)) or os.path.isfile(
            os.path.join(folder, LOCK_NAME)
        )

    found = find_upwards([str(here)], holds)
    return Path(found) if found is not None else here
