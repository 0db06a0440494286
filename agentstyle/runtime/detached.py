"""Starting a STYLE process that outlives the hook: the resident engine, the first-use build.

One at a time per `.style/` folder, its early output in a log. Standard library and `folders`
only: the hook's fast path starts these."""

from __future__ import annotations

import os
import time

from agentstyle.folders import new_marker


def claim(marker: str, fresh_s: float, *, force: bool = False) -> bool:
    """True when this caller may start the process: it made `marker` (O_EXCL, so thirty hooks
    that all find none start one), or took over one older than `fresh_s` (a start that died);
    `force` takes over any."""
    made = new_marker(marker)
    if made is False:
        try:
            if not force and time.time() - os.lstat(marker).st_mtime < fresh_s:
                return False
            os.unlink(marker)
        except OSError:
            return False
        made = new_marker(marker)
    return made is True


def spawn(argv: list[str], log: str, env: dict[str, str] | None = None) -> bool:
    """Start `argv` in a session of its own, from `/`, with no stdin or stdout and its stderr
    appended to `log` (what it prints before its own error handling runs: a broken
    installation), in `env` (None: this process's environment). The log is opened without
    blocking (a FIFO planted there never holds the hook). False when it could not be started."""
    import subprocess

    try:
        os.makedirs(os.path.dirname(log), exist_ok=True)
        err = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
    except OSError:
        err = subprocess.DEVNULL
    try:
        subprocess.Popen(
            argv,
            cwd="/",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
            close_fds=True,
            env=env,
        )
    except OSError:
        return False
    finally:
        if err >= 0:
            os.close(err)
    return True
