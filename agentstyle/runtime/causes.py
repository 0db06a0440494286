"""Why STYLE could not evaluate an event: the causes, their texts, the error that carries one.

The causes, their user text in one table, and the one error type that carries a cause
(docs/design/runtime.md#handler-failure). Standard library only."""

from __future__ import annotations

from enum import Enum

from agentstyle.limits import MAX_STDIN_TEXT


class Cause(Enum):
    """A failure's cause. The value names it where it is counted: what `style doctor` groups
    errors.log lines by, and what a session is told once per (`fail-open:<value>`)."""

    NO_DATABASE = "no-database"
    BUILDING = "building"  # the first-use build from style.lock.yaml is still running
    LOCKED = "locked"  # the lock stayed held past the deadline, or DuckDB's own lock
    STRANGER = "stranger"  # the lock is held by a program that will not let go in time
    DATABASE = "database"  # the database could not be read
    OVERSIZED = "oversized"
    PAYLOAD = "payload"  # the input is no JSON object
    DEADLINE = "deadline"
    UNKNOWN_EVENT = "unknown-event"
    UNKNOWN_HARNESS = "unknown-harness"
    INTERNAL = "internal"

    @property
    def counted(self) -> Cause:
        """The cause this one is counted and told as (a stranger's lock is a lock)."""
        return COUNTED_AS.get(self, self)

    @property
    def doctor_text(self) -> str:
        """What `style doctor` counts a failure of this cause as."""
        return TEXTS[self.counted][1]

    @property
    def notice_text(self) -> str:
        """What the fail-open notice says in its parentheses."""
        return TEXTS[self.counted][2]

    @classmethod
    def of_text(cls, text: str) -> Cause:
        """The cause of a cause text as errors.log holds it (lines of every version so far):
        the one whose texts it begins with; INTERNAL for any other."""
        for cause, (begins, _doctor, _notice) in TEXTS.items():
            if text.startswith(begins):
                return cause
        return cls.INTERNAL


# cause → (how its texts begin, what `style doctor` counts it as, what the fail-open notice
# says in its parentheses). A cause's text is written to errors.log and stderr as it is raised
# (HandlerError below); reading the log back, the beginnings give the cause again.
TEXTS: dict[Cause, tuple[tuple[str, ...], str, str]] = {
    Cause.NO_DATABASE: (
        ("no rules database",),
        "no rules database",
        "no rules database is installed here",
    ),
    Cause.BUILDING: (
        ("the rules database is still being built",),
        "the rules database was still being built from style.lock.yaml",
        "its rules database is still being built from style.lock.yaml",
    ),
    Cause.LOCKED: (
        ("the rules database stayed locked", "the rules database is locked"),
        "the rules database was locked past the deadline",
        "the rules database is locked by another process",
    ),
    Cause.STRANGER: (("the rules database lock is held by",), "", ""),  # told as LOCKED
    Cause.DATABASE: (
        ("the rules database could not be read", "database error"),
        "the rules database could not be read",
        "the rules database could not be read",
    ),
    Cause.OVERSIZED: (
        ("payload over",),
        f"input over {MAX_STDIN_TEXT}",
        f"its input is over {MAX_STDIN_TEXT}",
    ),
    Cause.PAYLOAD: (
        ("malformed JSON", "empty stdin", "stdin is not a JSON object"),
        "input that could not be read",
        "the harness sent input STYLE could not read",
    ),
    Cause.DEADLINE: (
        ("internal deadline passed",),
        "the internal deadline passed",
        "it ran out of time",
    ),
    Cause.UNKNOWN_EVENT: (
        ("unknown event",),
        "an event STYLE does not know",
        "the hook is installed for an event STYLE does not know",
    ),
    Cause.UNKNOWN_HARNESS: (
        ("unknown harness",),
        "a harness STYLE does not know",
        "the hook is installed for a harness STYLE does not know",
    ),
    Cause.INTERNAL: ((), "an internal error", "an internal error"),
}
COUNTED_AS = {Cause.STRANGER: Cause.LOCKED}


def one_line(text: str) -> str:
    return " ".join(text.split())


class HandlerError(Exception):
    """Anything that stops STYLE from evaluating reliably: its cause, and the short line that
    says it (written to stderr and errors.log; never DuckDB's own error text:
    docs/design/storage.md)."""

    def __init__(self, cause: Cause, text: str) -> None:
        super().__init__(text)
        self.cause = cause

    @property
    def text(self) -> str:
        return one_line(str(self))[:300]


class DeadlineExceeded(HandlerError):
    """The internal deadline passed before the event was evaluated and recorded."""

    def __init__(self) -> None:
        super().__init__(Cause.DEADLINE, "internal deadline passed")


class StdinOpen(HandlerError):
    """The deadline passed before the payload ended (a harness that never closes stdin)."""

    def __init__(self) -> None:
        super().__init__(Cause.DEADLINE, "internal deadline passed (stdin did not end)")


class StillBuilding(HandlerError):
    """The first-use build from style.lock.yaml did not end within the hook's deadline."""

    def __init__(self) -> None:
        super().__init__(
            Cause.BUILDING,
            "the rules database is still being built from style.lock.yaml (not ready within "
            "the hook's time); the next calls will use it",
        )


class Planted(HandlerError):
    """A file STYLE opens is something else (a FIFO, a folder): never opened, never waited on."""

    def __init__(self, what: str) -> None:
        super().__init__(Cause.DATABASE, f"the rules database could not be read ({what})")


class NoDatabase(HandlerError):
    """No rules database where the event belongs."""

    def __init__(self) -> None:
        super().__init__(Cause.NO_DATABASE, "no rules database (run `style install`)")


class Oversized(HandlerError):
    """A payload over MAX_STDIN: never evaluated."""

    def __init__(self) -> None:
        super().__init__(Cause.OVERSIZED, f"payload over {MAX_STDIN_TEXT}")


def failure_of(exc: BaseException) -> HandlerError:
    """Any exception as the HandlerError it means: its cause and a one-line text."""
    from agentstyle.evaluator.locking import LockHeldByStranger, LockTimeout

    if isinstance(exc, HandlerError):
        return exc
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    if isinstance(exc, LockHeldByStranger):
        return HandlerError(Cause.STRANGER, str(exc))
    if isinstance(exc, LockTimeout):
        return HandlerError(Cause.LOCKED, "the rules database stayed locked past the deadline")
    if name == "InterruptException":  # DuckDB's, at the deadline (runtime/direct.py WATCHDOG)
        return DeadlineExceeded()
    if module.startswith(("duckdb", "_duckdb")):
        if "lock" in str(exc).lower():
            return HandlerError(Cause.LOCKED, "the rules database is locked by another program")
        if name in ("IOException", "SerializationException", "InternalException"):
            return HandlerError(Cause.DATABASE, f"the rules database could not be read ({name})")
        return HandlerError(Cause.DATABASE, f"database error ({name})")
    text = one_line(str(exc))
    if name == "StyleError":  # a message written for the person: as it is
        return HandlerError(Cause.of_text(text), text)
    return HandlerError(Cause.INTERNAL, (f"{name}: {text}"[:200] if text else name))
