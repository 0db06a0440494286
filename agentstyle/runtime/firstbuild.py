"""The first-use build of a teammate's clone, in a process of its own.

See docs/design/runtime.md#first-use-build.

Compiling the packages of `style.lock.yaml` takes seconds, more than a hook's budget. So the
hook that finds the database missing or older than the lock starts the build here, detached
(an O_EXCL marker lets one build run at a time), and waits for it until its own deadline: done
in time, the event is evaluated against the new database; not done, the event is answered per
`fail` and the build goes on for the next hook. The build's outcome (its notes, or why it
failed) is left in `.style/logs/first-build` for the hook that waited. Standard library only
until the build itself runs.

The build process itself is `python -I -m agentstyle.install.lockbuild ROOT`.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

from agentstyle.folders import HOME_NAME, STYLE_HOME_ENV, read_regular
from agentstyle.limits import BUILD_FRESH_S
from agentstyle.runtime import detached

MARKER = "building"  # in `.style/`: a build runs
OUTCOME = ("logs", "first-build")  # `ok`, then a note per line; or `error <text>`
BUILD_LOG = ("logs", "build.log")  # what the build process printed before its own handling
POLL_S = 0.02
BUILDER = "agentstyle.install.lockbuild"


def home_of(root: str) -> str:
    return os.environ.get(STYLE_HOME_ENV) or os.path.join(root, HOME_NAME)


def start(root: str) -> None:
    """Start a build of `root` in the background unless one runs."""
    home = home_of(root)
    try:
        os.makedirs(home, mode=0o700, exist_ok=True)
    except OSError:
        return
    if not detached.claim(os.path.join(home, MARKER), BUILD_FRESH_S):
        return  # one runs
    _forget_outcome(home)
    argv = [sys.executable, "-I", "-m", BUILDER, os.path.abspath(root)]
    if not detached.spawn(argv, os.path.join(home, *BUILD_LOG)):
        unmark(home)


def running(root: str) -> bool:
    return os.path.lexists(os.path.join(home_of(root), MARKER))


def wait(root: str, deadline: float) -> bool:
    """Wait until the build of `root` ended or `deadline` (time.monotonic()); True when it
    ended."""
    while running(root):
        if time.monotonic() + POLL_S >= deadline:
            return False
        time.sleep(POLL_S)
    return True


def outcome(root: str) -> tuple[list[str], str]:
    """(notes, failure) of the last build: its notes for the person, or why it failed."""
    raw = read_regular(os.path.join(home_of(root), *OUTCOME), 1 << 16)
    if raw is None:
        return [], ""
    lines = raw.decode("utf-8", "replace").splitlines()
    if lines and lines[0].startswith("error "):
        return [], lines[0][len("error ") :]
    return lines[1:], ""


def _forget_outcome(home: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(home, *OUTCOME))


def unmark(home: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(home, MARKER))
