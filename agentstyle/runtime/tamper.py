"""A rules database that was there earlier in the session and is now gone or unreadable.

That is not a fresh clone: something removed or damaged STYLE's guard while the agent worked
(`rm -rf .style`, a `dd` over the file). The person is told so, as tampering, on every harness.
What a session has seen lives outside the project (the agent deleting `.style/` must not also
delete the evidence): one marker file per session under the user's state folder, created once
with O_EXCL, so the cost on the hook path is one failed `open` per event. Standard library only.
"""

from __future__ import annotations

import os
from pathlib import Path

from agentstyle import folders
from agentstyle.runtime import notified

NOTICE = (
    "STYLE's rules database was {what} during this session: something may have tampered "
    "with STYLE's guard. Check .style/ and run `style doctor`."
)


def state_folder() -> Path:
    """`$XDG_STATE_HOME/agentstyle/sessions` (default `~/.local/state/…`), the user's own."""
    return Path(folders.state_folder())


def _marker(harness: str, session: str) -> Path:
    return Path(folders.session_marker(harness, session))


def mark_seen(harness: str, session: str | None, keep: bool = True) -> None:
    """This session's hooks found a working database (once per session it writes a file);
    not `keep`: a rehearsal (the resident engine's warm-up), nothing is written."""
    if not session or not keep:
        return
    path = _marker(harness, session)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return
    except FileNotFoundError:
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except OSError:
            return
    except OSError:
        return
    os.close(fd)
    notified.prune(path.parent)


def was_seen(harness: str, session: str | None) -> bool:
    return bool(session) and _marker(harness, str(session)).exists()


def notice(harness: str, session: str | None, log_home: Path, what: str) -> str | None:
    """The tampering notice, once per session, when this session saw a working database."""
    if not was_seen(harness, session):
        return None
    if not notified.first_time(log_home, session, "tamper"):
        return None
    return NOTICE.format(what=what)
