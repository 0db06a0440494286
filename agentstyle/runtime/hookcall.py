"""One hook call: what the command line and the environment say, and its deadline, built once.

`agentstyle.hook` builds a `HookCall` from its argv (the resident engine from a hook's request)
and hands it down: the engine request, the first-use build, the direct evaluation and the
failure answer all read the harness, the event and the time left from it, and find `.style/`
through it. Every blocking step reads `deadline` from here. Standard library only, and none
of `typing`, `dataclasses` or `json`: the hook's fast path imports this module.
"""

from __future__ import annotations

import os
import time

from agentstyle import folders
from agentstyle.limits import (
    BUDGET_GRACE_S,
    BUDGET_S,
    DEADLINE_ENV,
    DEADLINE_S,
    DEADLINE_SHARE,
    FAILURE_GRACE_S,
    WATCHDOG_AFTER_S,
    WATCHDOG_MARGIN_S,
)
from agentstyle.slotted import Slotted

TYPE_CHECKING = False  # mypy reads this name as typing's (`typing` costs the fast path)
if TYPE_CHECKING:
    from typing import Final


def _override() -> float | None:
    text = os.environ.get(DEADLINE_ENV)
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value >= 0 else None


def deadline_seconds(timeout_s: float) -> float:
    """Seconds a hook may spend waiting: DEADLINE_SHARE of the harness timeout, at most
    DEADLINE_S (the 2 s budget's share); `STYLE_DEADLINE_S` replaces it."""
    override = _override()
    return override if override is not None else min(DEADLINE_SHARE * timeout_s, DEADLINE_S)


def grace_seconds(timeout_s: float) -> float:
    """Extra seconds a failed hook may wait for the lock to record its failure."""
    override = _override()
    if override is None:
        spare = 0.5 * (timeout_s - deadline_seconds(timeout_s))
        return max(0.0, min(BUDGET_GRACE_S, spare))
    return max(0.0, min(FAILURE_GRACE_S, override))


def watchdog_seconds(timeout_s: float) -> float:
    """Seconds after its start when the last resort answers a hook (runtime/budget.py): inside
    the budget, or, where `STYLE_DEADLINE_S` replaced the deadline, well after it and its grace
    (a test proving what the hook itself answers late must see that answer)."""
    if _override() is None:
        return BUDGET_S - WATCHDOG_MARGIN_S
    return deadline_seconds(timeout_s) + grace_seconds(timeout_s) + WATCHDOG_AFTER_S


class HookCall(metaclass=Slotted):
    """One hook invocation: its harness and native event (as the command line names them),
    `--fail-closed`, when it started and by when it must have answered (`time.monotonic()`),
    the grace a failure may take past that, and where its `.style/` is or is looked for."""

    harness: Final[str]  # "" when the command line names none
    event: Final[str]
    fail_closed: Final[bool]
    started: Final[float]
    deadline: Final[float]
    grace: Final[float]  # seconds
    # The `.style` folder when it is known before the payload is read (STYLE_HOME, the
    # engine's own); else it is looked for from the project folders, the payload's cwd and
    # the working folder, in that order.
    home: Final[str | None]
    # when the last resort answers (runtime/budget.py)
    watchdog_at: Final[float]
    project_dirs: Final[tuple[str, ...]] = ()
    cwd: Final[str | None] = None
    # Started by a client extension's handler (`--plugin`: the Claude Code or Codex plugin, the
    # Gemini CLI extension), which may fire beside a settings install's for the same event.
    via_plugin: Final[bool] = False

    @classmethod
    def from_argv(cls, argv: list[str], started: float | None = None) -> HookCall:
        """`--harness H --event E [--fail-closed] [--plugin]` and this process's environment.
        Unknown words are passed over (argparse costs milliseconds of import, and a bad option must
        fail open like a missing one, never be a usage error)."""
        from agentstyle.harnesses import timeout_for

        harness = event = ""
        fail_closed = via_plugin = False
        it = iter(argv)
        for arg in it:
            if arg == "--harness":
                harness = next(it, "") or ""
            elif arg == "--event":
                event = next(it, "") or ""
            elif arg == "--fail-closed":
                fail_closed = True
            elif arg == "--plugin":
                via_plugin = True
        started = time.monotonic() if started is None else started
        timeout = timeout_for(harness, event)
        return cls(
            harness,
            event,
            fail_closed,
            started,
            started + deadline_seconds(timeout),
            grace_seconds(timeout),
            os.environ.get(folders.STYLE_HOME_ENV) or None,
            watchdog_at=started + watchdog_seconds(timeout),
            project_dirs=folders.project_dirs(),
            cwd=folders.working_folder(),
            via_plugin=via_plugin,
        )

    @classmethod
    def served(
        cls,
        harness: str,
        event: str,
        fail_closed: bool,
        budget_s: float,
        home: str,
        via_plugin: bool = False,
    ) -> HookCall:
        """A hook's request as the resident engine serves it: `budget_s` from now, on the
        engine's own `.style` folder."""
        started = time.monotonic()
        deadline = started + max(0.0, budget_s)
        return cls(
            harness,
            event,
            fail_closed,
            started,
            deadline,
            FAILURE_GRACE_S,
            home,
            watchdog_at=deadline + FAILURE_GRACE_S + WATCHDOG_AFTER_S,
            via_plugin=via_plugin,
        )

    def left(self) -> float:
        """Seconds until the deadline (negative: past it)."""
        return self.deadline - time.monotonic()

    def until(self, share: float) -> float:
        """Seconds until `share` of the time from start to deadline has passed."""
        return self.started + share * (self.deadline - self.started) - time.monotonic()

    def starts(self, payload_cwd: str | None = None) -> list[str | None]:
        """Where `.style/` is looked for, nearest first: the harness's project folders, the
        payload's cwd, the working folder."""
        return [*self.project_dirs, payload_cwd, self.cwd]

    def find_home(
        self, payload_cwd: str | None = None, *, database: bool = True, user: bool = False
    ) -> str | None:
        """This call's `.style` folder (`folders.find_home`): one that holds the rules
        database (`database`) or any (`user`: the user's own as the last resort)."""
        return folders.find_home(
            self.starts(payload_cwd), override=self.home, database=database, user=user
        )
