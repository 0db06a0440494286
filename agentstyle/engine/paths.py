"""Where STYLE keeps its files for a project: `.style/` under the install root."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class StylePaths:
    root: Path  # the install root (project folder, or the home for --scope user)

    @property
    def home(self) -> Path:
        override = os.environ.get("STYLE_HOME")
        return Path(override) if override else self.root / ".style"

    @property
    def database(self) -> Path:
        return self.home / "style.duckdb"

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
        return self.root / "style.lock.yaml"

    @property
    def socket(self) -> Path:
        return self.home / "engine.sock"


def find_root(start: Path | None = None) -> Path:
    """The nearest folder upwards holding `.style/` or `style.lock.yaml`, else `start`."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".style").is_dir() or (folder / "style.lock.yaml").is_file():
            return folder
    return here
