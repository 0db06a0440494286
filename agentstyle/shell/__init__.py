"""What a shell command string runs: the question every guard rule asks of a shell call.

The public face: `parse_shell(command, cwd)` returns a `ShellParse` with the fields an event
carries, `shell.commands` (every simple command the shell would run, normalized),
`shell.code` (program text handed to interpreters), `shell.dynamic` (kinds of code only built
at run time) and `shell.incomplete` (the analysis could not take all of it; `issues` says
why), `runs` (each simple command's words and where it runs: what the command model reads),
and the limits below. Everything else in the package is private to it. What each field
holds is the contract guard packages match on: docs/design/shell.md.
"""

from __future__ import annotations

import gc
import time

from agentstyle.shell.files import MAX_SCRIPT_BYTES
from agentstyle.shell.runs import Run
from agentstyle.shell.syntax import parse
from agentstyle.shell.walk import MAX_NESTING, Walker
from agentstyle.shell.walkstate import MAX_ELEMENTS, Stdin
from agentstyle.slotted import Slotted

__all__ = [
    "MAX_ELEMENTS",
    "MAX_NESTING",
    "MAX_PARSE_SECONDS",
    "MAX_SCRIPT_BYTES",
    "Run",
    "ShellParse",
    "parse_shell",
]

# The whole analysis of one command stops after this much CPU time of its thread (flagged
# incomplete). CPU time, not the clock: the same command gets the same analysis on a busy
# machine as on an idle one. The hook's own deadline (limits.py) bounds the wall time.
MAX_PARSE_SECONDS = 2.0


class ShellParse(metaclass=Slotted):
    """The fields of one shell command (docs/design/shell.md says what each holds)."""

    # A slotted record, not a dataclass: a dataclass costs this module most of its import time,
    # and every shell event imports it.
    commands: tuple[str, ...]
    code: tuple[str, ...]
    dynamic: tuple[str, ...] = ()
    issues: tuple[str, ...] = ()  # why the analysis is incomplete; empty when complete
    runs: tuple[Run, ...] = ()  # not part of equality: the fields are the contract

    @property
    def incomplete(self) -> bool:
        return bool(self.issues)

    def _key(self) -> tuple[tuple[str, ...], ...]:
        return (self.commands, self.code, self.dynamic, self.issues)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShellParse) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"ShellParse(commands={self.commands!r}, code={self.code!r}, "
            f"dynamic={self.dynamic!r}, issues={self.issues!r})"
        )


def parse_shell(command: str, cwd: str | None = None) -> ShellParse:
    """Analyse `command` as bash; read local scripts only under `cwd` (none when it is None)."""
    # Blank ends are not part of any command (and would run into an unterminated quote).
    command = command.strip()
    if not command:
        return ShellParse(commands=(), code=())
    deadline = time.thread_time() + MAX_PARSE_SECONDS
    walker = Walker(cwd, deadline)
    # The syntax tree holds no reference cycles: the cyclic collector would only rescan it
    # (a third of the parse time on large input). Reference counting still frees it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        parsed = parse(command, deadline)
        for issue in parsed.issues:
            walker.issue(issue)
        walker.walk(parsed.tree, Stdin())
        walker.finish()
    except RecursionError:  # the depth limits keep the walk far from this; never a traceback
        walker.issue("nesting-limit")
        walker.lexical(command)
    except Exception as exc:  # a bug here must not cost the hook its answer
        # The analysis is incomplete, says why, and still has the commands split lexically;
        # the fuzz tests fail on this issue, so it is never the normal path.
        walker.issue(f"analysis-error: {type(exc).__name__}")
        walker.full = True
    finally:
        if collecting:
            gc.enable()
    if walker.full:
        # Out of time or elements: what was not walked is still split into commands.
        walker.lexical(command)
    return ShellParse(
        commands=tuple(walker.commands),
        code=tuple(walker.code),
        dynamic=tuple(walker.dynamic),
        issues=tuple(walker.issues),
        runs=tuple(walker.run_list),
    )
