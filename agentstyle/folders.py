"""Where STYLE's files are: a project's `.style/` folder, found upwards from where a hook or a
command starts, and the user's own `~/.style`.

`os.path` only: the hook's fast path finds the engine's folder with it before anything else.
"""

from __future__ import annotations

import os

# `typing` (with `re`, `collections` and more behind it) is no import of the hook's fast path:
# mypy reads this name as typing's TYPE_CHECKING.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

HOME_NAME = ".style"  # the folder of this machine's database, logs and sockets
DATABASE_NAME = "style.duckdb"  # in HOME_NAME
LOCK_NAME = "style.lock.yaml"  # committed, beside HOME_NAME
STYLE_HOME_ENV = "STYLE_HOME"  # names the `.style` folder outright
# Where each harness names the project folder in a hook's environment.
PROJECT_DIR_ENV = {
    "claude-code": "CLAUDE_PROJECT_DIR",
    "cursor": "CURSOR_PROJECT_DIR",
    "gemini-cli": "GEMINI_PROJECT_DIR",
}


def project_dirs() -> tuple[str, ...]:
    """The project folders the harnesses name in this process's environment."""
    return tuple(d for d in (os.environ.get(v) for v in PROJECT_DIR_ENV.values()) if d)


def working_folder() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the working folder may be gone
        return None


def find_upwards(starts: Iterable[str | None], holds: Callable[[str], bool]) -> str | None:
    """The nearest folder upwards that `holds`, from each start in turn (None: none)."""
    for start in starts:
        if not start:
            continue
        folder = os.path.abspath(start)
        while True:
            if holds(folder):
                return folder
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return None


def find_home(
    starts: Iterable[str | None],
    *,
    override: str | None,
    database: bool = True,
    user: bool = False,
) -> str | None:
    """The `.style` folder an event or a command belongs to: `override` (STYLE_HOME) when
    given, else the nearest upwards from `starts` that holds the rules database (`database`)
    or exists at all, else (`user`) the user's `~/.style` when it does; None: none does."""
    if override:
        return override

    def qualifies(home: str) -> bool:
        if database:
            return os.path.isfile(os.path.join(home, DATABASE_NAME))
        return os.path.isdir(home)

    found = find_upwards(starts, lambda folder: qualifies(os.path.join(folder, HOME_NAME)))
    if found is not None:
        return os.path.join(found, HOME_NAME)
    if user and qualifies(user_home()):
        return user_home()
    return None


def user_home() -> str:
    """The user's own `.style` folder (personal installs, and where errors go otherwise)."""
    return os.path.join(os.path.expanduser("~"), HOME_NAME)
