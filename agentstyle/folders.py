"""Where STYLE's files are: a project's `.style/` folder and the user's own `~/.style`.

The project's folder is found upwards from where a hook or a command starts.

`os.path` only: the hook's fast path finds the engine's folder with it before anything else.
"""

from __future__ import annotations

import os
import stat

# `typing` (with `re`, `collections` and more behind it) is no import of the hook's fast path:
# mypy reads this name as typing's TYPE_CHECKING.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, TextIO

HOME_NAME = ".style"  # the folder of this machine's database, logs and sockets
DATABASE_NAME = "style.duckdb"  # in HOME_NAME
LOCK_NAME = "style.lock.yaml"  # committed, beside HOME_NAME
# In HOME_NAME when another layer's STYLE handlers may fire beside this root's: each event is
# then answered once (evaluator/answered.py).
ANSWER_ONCE_NAME = "answer-once"
STYLE_HOME_ENV = "STYLE_HOME"  # names the `.style` folder outright
# The organisation's policy folder (`style install --scope managed`): its `style.lock.yaml` and
# packages, read by every evaluation on the machine (docs/harnesses/index.md#layers).
MANAGED_HOME_ENV = "STYLE_MANAGED_HOME"
MANAGED_HOME = "/etc/style"


def project_dirs() -> tuple[str, ...]:
    """The project folders the harnesses name in this process's environment (each harness's
    `HookFacts.project_dir_env`)."""
    from agentstyle.harnesses import HARNESSES

    names = (h.project_dir_env for h in HARNESSES.values() if h.project_dir_env)
    return tuple(d for d in (os.environ.get(v) for v in names) if d)


def working_folder() -> str | None:
    try:
        return os.getcwd()
    except OSError:  # the working folder may be gone
        return None


def find_upwards(starts: Iterable[str | None], holds: Callable[[str], bool]) -> str | None:
    """The nearest folder upwards that `holds`, from each start in turn (None: none)."""
    return find_each_upwards(starts, (holds,))[0]


def find_each_upwards(
    starts: Iterable[str | None], tests: tuple[Callable[[str], bool], ...]
) -> list[str | None]:
    """`find_upwards` for each of `tests`, in one walk: a folder is visited once, and each
    test is asked only until it holds (the hook looks for a lock and a database at once)."""
    found: list[str | None] = [None] * len(tests)
    left = len(tests)
    for start in starts:
        if not start:
            continue
        folder = os.path.abspath(start)
        while True:
            for i, holds in enumerate(tests):
                if found[i] is None and holds(folder):
                    found[i] = folder
                    left -= 1
            if not left:
                return found
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return found


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
        return has_database(home) if database else os.path.isdir(home)

    found = find_upwards(starts, lambda folder: qualifies(os.path.join(folder, HOME_NAME)))
    if found is not None:
        return os.path.join(found, HOME_NAME)
    if user and qualifies(user_home()):
        return user_home()
    return None


def has_database(home: str) -> bool:
    """Whether the `.style` folder `home` holds the rules database. Anything in the database's
    place counts, so that a FIFO or a folder there is refused as what it is (`not_regular`),
    never passed over for another policy."""
    return os.path.lexists(os.path.join(home, DATABASE_NAME))


def user_home() -> str:
    """The user's own `.style` folder (personal installs, and where errors go otherwise)."""
    return os.path.join(os.path.expanduser("~"), HOME_NAME)


def managed_root() -> str:
    """The organisation's policy folder: `STYLE_MANAGED_HOME`, else /etc/style."""
    return os.environ.get(MANAGED_HOME_ENV) or MANAGED_HOME


def layer_locks(root: str) -> list[tuple[str, str]]:
    """(layer, lock path) of the policies besides `root`'s own that an evaluation in `root`
    takes in, highest first: the managed policy, then the user's (`~/style.lock.yaml`), each
    unless it is `root`'s own. Paths only; whether each exists is the caller's `stat`."""
    here = os.path.abspath(root)
    managed = os.path.abspath(managed_root())
    if managed == here:
        return []  # the organisation's own database: no user's policy goes into it
    out = [("managed", os.path.join(managed, LOCK_NAME))]
    user = os.path.abspath(os.path.expanduser("~"))
    if user != here and managed != user:
        out.append(("user", os.path.join(user, LOCK_NAME)))
    return out


def not_regular(path: str) -> str | None:
    """What is at `path` when it is there and no regular file ("a FIFO", "a folder"), else
    None. Checked before STYLE opens its own files: opening a FIFO waits for a writer."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _regular_fd(path: str | os.PathLike[str]) -> int | None:
    """A descriptor of `path` when it is a regular file, else None. Opened without blocking
    and checked before anything is read: opening a FIFO would wait for a writer."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def read_regular(path: str, limit: int) -> bytes | None:
    """At most `limit` bytes of `path` when it is a regular file; None otherwise (a FIFO
    never holds the reader)."""
    fd = _regular_fd(path)
    if fd is None:
        return None
    try:
        chunks = []
        while limit > 0:
            chunk = os.read(fd, min(limit, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            limit -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def open_regular(path: str | os.PathLike[str]) -> TextIO | None:
    """`path` opened as UTF-8 text (undecodable bytes replaced) when it is a regular file; None
    otherwise (missing, unreadable, a folder, a FIFO, a device): a FIFO planted where a
    transcript or a config is expected never holds `doctor` or `audit`."""
    fd = _regular_fd(path)
    if fd is None:
        return None
    try:
        os.set_blocking(fd, True)
        return os.fdopen(fd, encoding="utf-8", errors="replace")
    except OSError:
        os.close(fd)
        return None


def regular_lines(path: str | os.PathLike[str]) -> Iterator[str]:
    """The lines of `path` when it is a regular file (see `open_regular`); none otherwise, and
    none more after a read error: a scan of a transcript or a log stops there."""
    fh = open_regular(path)
    if fh is None:
        return
    try:
        with fh:
            yield from fh
    except OSError:
        return


def read_regular_text(path: str | os.PathLike[str]) -> str | None:
    """The text of `path` when it is a regular file (see `open_regular`); None otherwise."""
    fh = open_regular(path)
    if fh is None:
        return None
    try:
        with fh:
            return fh.read()
    except OSError:
        return None


def mark_answer_once(home: str | os.PathLike[str], reason: str, on: bool) -> None:
    """Add or drop `reason` in `.style/answer-once` (ANSWER_ONCE_NAME), which exists while any
    reason holds that more than one STYLE handler may fire for one event: `layers` (another
    layer's install, set by install), `plugin` (a plugin beside a settings install, set by
    install or by the plugin's own hook); a writer drops only its own reason
    (docs/design/runtime.md#answered-once)."""
    marker = os.path.join(home, ANSWER_ONCE_NAME)
    raw = read_regular(marker, 1 << 16)
    reasons = [r for r in (raw or b"").decode("utf-8", "replace").split() if r]
    kept = [r for r in reasons if r != reason] + ([reason] if on else [])
    if kept == reasons:
        return
    if not kept:
        if os.path.lexists(marker):
            os.unlink(marker)
        return
    temporary = f"{marker}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as fh:
        fh.write("".join(r + "\n" for r in kept))
    os.replace(temporary, marker)


def new_marker(path: str | os.PathLike[str]) -> bool | None:
    """Make the empty file `path` unless it is there (O_EXCL: of many processes trying at
    once, one makes it): True when this call made it, False when it was there, None when it
    could not be made (its folder missing or not writable)."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    except OSError:
        return None
    os.close(fd)
    return True


def any_project(starts: Iterable[str | None]) -> bool:
    """Whether a STYLE project is anywhere upwards of `starts` (a `.style` folder or a
    committed `style.lock.yaml`), or the user has their own policy, or the organisation has
    one: `lstat` calls only."""

    def holds(folder: str) -> bool:
        return os.path.lexists(os.path.join(folder, HOME_NAME)) or os.path.lexists(
            os.path.join(folder, LOCK_NAME)
        )

    if find_upwards(starts, holds) is not None:
        return True
    return os.path.lexists(os.path.join(user_home(), DATABASE_NAME)) or os.path.lexists(
        os.path.join(managed_root(), LOCK_NAME)
    )


def state_folder() -> str:
    """`$XDG_STATE_HOME/agentstyle/sessions` (default `~/.local/state/…`): what sessions have
    seen, kept outside every project (runtime/tamper.py)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return os.path.join(base, "agentstyle", "sessions")


def checks_folder() -> str:
    """`$XDG_STATE_HOME/agentstyle/checks`: the checks the person allowed
    (observe/accepted.py), beside the sessions' markers and guarded as they are."""
    return os.path.join(os.path.dirname(state_folder()), "checks")


def digest_of(text: str) -> str:
    """A short sha256 of `text`: a file name that writes out no path, session or command."""
    return str(_sha256()(text.encode("utf-8", "replace")).hexdigest()[:32])


def session_marker(harness: str, session: str) -> str:
    """The file that says a session's hooks found a working database (runtime/tamper.py)."""
    sha256 = _sha256()
    digest = sha256(f"{harness}\0{session}".encode("utf-8", "replace")).hexdigest()
    return os.path.join(state_folder(), digest[:32])


def _sha256() -> Callable[[bytes], Any]:
    """sha256 from its C module alone (`_sha256`, `_sha2` from Python 3.12): `hashlib` loads
    OpenSSL, which costs the fast path milliseconds."""
    for name in ("_sha256", "_sha2"):
        try:
            return __import__(name).sha256  # type: ignore[no-any-return]
        except ImportError:
            continue
    import hashlib

    return hashlib.sha256
