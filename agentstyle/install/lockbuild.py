"""One first-use build of a project's rules database from its `style.lock.yaml`.

Run as the process the hook starts for it (runtime/firstbuild.py): `python -I -m
agentstyle.install.lockbuild ROOT`.

The outcome (the build's notes for the person, or why it failed) is left for the hook that
waits, and the marker that says a build runs is removed, whatever happens.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from agentstyle.runtime.firstbuild import OUTCOME, home_of, unmark

# The build's own wait for the lock (an engine or a `style` command may hold it).
LOCK_WAIT_S = 30.0


def _write_outcome(home: str, text: str) -> None:
    path = os.path.join(home, *OUTCOME)
    tmp = f"{path}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError:
        pass


def build(root: str) -> None:
    """One build of `root`'s database from its lock; the outcome written, the marker removed."""
    home = home_of(root)
    try:
        from agentstyle.install.install import build_from_lock

        notes = build_from_lock(Path(root), LOCK_WAIT_S)
        _write_outcome(home, "ok\n" + "".join(f"{n}\n" for n in notes))
    except Exception as exc:
        text = " ".join(str(exc).split()) or type(exc).__name__
        _write_outcome(home, f"error {text}\n")
    finally:
        unmark(home)


if __name__ == "__main__":
    build(sys.argv[1])
