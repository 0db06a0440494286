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
    made = folders.new_marker(path)
    if made is None:  # its folder is not there yet (or cannot be written)
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError:
            return
        made = folders.new_marker(path)
    if made:
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


# -- a guarded settings file that changed during the session ------------------------------------

CONFIG_NOTICE = (
    "{file} changed during this session. It holds STYLE's hooks, which the agent may not "
    "edit: if no one here changed it, something may have tampered with STYLE's guard. Check "
    "the file and run `style doctor`."
)


def _pending(home: Path, session: str | None) -> Path:
    return home.joinpath(*notified.FOLDER) / ("pending-" + notified.marker_name(session, "config"))


def config_changed(home: Path, session: str | None, file: str) -> None:
    """A file self-protection guards changed during the session (a client's `config.changed`,
    docs/design/runtime.md#tampering-notice): the notice, kept for the session's next answer
    that reaches the person (the client shows none on the change itself)."""
    text = CONFIG_NOTICE.format(file=file or "A settings file")
    path = _pending(home, session)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
        try:
            os.write(fd, text.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


def pending_notice(home: Path, session: str | None) -> str | None:
    """The settings-change notice kept for this session, taken (one failed `open` when there
    is none: every answer that can carry a notice looks)."""
    path = _pending(home, session)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        raw = os.read(fd, 4096)
    except OSError:
        raw = b""
    finally:
        os.close(fd)
    try:  # noqa: SIM105 - contextlib is one import more on the hook path
        os.unlink(path)
    except OSError:
        pass
    return raw.decode("utf-8", "replace") or None
