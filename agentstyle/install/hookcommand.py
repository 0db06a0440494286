"""The command a harness config runs for STYLE's hook, one per native event.

A config meant to be committed (`--scope project`) holds no path of this machine: it runs the
`style-hook` console script found on PATH (pipx / uv tool installs put it there), and where
STYLE is not installed it answers the harness with one clear line instead of a silent exit 127
(and refuses, when installed `--fail-closed`). The project is found from the harness's project
variable or the payload's `cwd` (agentstyle/folders.py `find_home`). Personal scopes
(`local`, `user`) run this environment's `style-hook` by its absolute path, which never depends
on PATH: a user-scope hook starts for every call in every folder, and the console script starts
in a few milliseconds less than `python -m agentstyle.hook` (which loads `runpy` and its
imports first; docs/performance.md#never-holding-the-agent-and-nothing-to-do-costing-nothing).
Where the environment has no such script beside its interpreter, the interpreter runs the
module.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from agentstyle.evaluator.decision import Decision
from agentstyle.harnesses import adapter_for
from agentstyle.harnesses.install import HOOK_MODULE, HOOK_SCRIPT, sh_literal

MISSING = (
    "STYLE is not installed on this machine: pipx install agentstyle / uv tool install "
    "agentstyle, then style sync"
)
MISSING_REFUSED = f"{MISSING}. The call is refused because STYLE was installed with --fail-closed."
PORTABLE_SCOPES = ("project",)


def interpreter() -> str:
    return Path(sys.executable).absolute().as_posix()


def personal_program() -> str:
    """What a personal scope's handler starts, quoted for `sh -c`: this environment's
    `style-hook` where it sits beside the interpreter and runs it, else the interpreter with
    `-m agentstyle.hook`."""
    script = Path(interpreter()).parent / HOOK_SCRIPT
    try:
        with open(script, "rb") as fh:
            shebang = fh.readline(4096).removeprefix(b"#!").strip().decode("utf-8", "replace")
        runs_here = os.access(script, os.X_OK) and same_program(shebang, interpreter())
    except OSError:
        runs_here = False
    if runs_here:
        return quoted(script.as_posix())
    return f"{quoted(interpreter())} -m {HOOK_MODULE}"


def quoted(path: str) -> str:
    """A path in double quotes for `sh -c`: `$`, backquote, `"` and backslash stay literal."""
    return '"' + re.sub(r'([\\"$`])', r"\\\1", path) + '"'


def missing_answer(harness: str, native_event: str, fail_closed: bool) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) a harness gets where STYLE is not installed."""
    adapter = adapter_for(harness)
    if fail_closed and adapter.can_refuse(native_event):
        wire = adapter.deny_answer(native_event, MISSING_REFUSED)
        return wire.stdout, MISSING_REFUSED, 0 if wire.stdout else 2
    wire = adapter.answer(Decision(messages=[MISSING]), native_event)
    if wire.stderr.strip():  # the adapter's own channel to the person (Copilot CLI's warning)
        return wire.stdout, wire.stderr.strip(), wire.exit_code
    # Where the event carries no user message, the harness shows a failed hook's first
    # stderr line (a non-blocking error): still one clear line, never a silent 127; but not
    # where the client refuses the call on a failed hook (then the line is only logged).
    failed = 0 if wire.stdout or adapter.error_refuses(native_event) else 1
    return wire.stdout, MISSING, failed


def hook_command(
    harness: str,
    native_event: str,
    fail_closed: bool,
    scope: str,
    *,
    plugin: bool = False,
    checks: bool = False,
) -> str:
    """The handler command of one native event (`plugin`: a client extension's handler, which
    tells the hook so with `--plugin`; `checks`: the background hook that runs the event's due
    checks, docs/observers.md#delivery)."""
    args = f"--harness {harness} --event {native_event}" + (" --fail-closed" if fail_closed else "")
    args += " --plugin" if plugin else ""
    args += " --checks" if checks else ""
    if scope not in PORTABLE_SCOPES:
        return f"{personal_program()} {args}"
    if checks:  # in the background: where STYLE is missing it has nothing to say
        return f"command -v {HOOK_SCRIPT} >/dev/null 2>&1 && exec {HOOK_SCRIPT} {args}; exit 0"
    stdout, stderr, code = missing_answer(harness, native_event, fail_closed)
    say = f"printf '%s\\n' {sh_literal(stdout)}" if stdout else f"echo {sh_literal(stderr)} >&2"
    # `exec` replaces the shell, so what follows runs only where the script is missing; the
    # payload is read to its end so the harness never writes into a closed pipe.
    return (
        f"command -v {HOOK_SCRIPT} >/dev/null 2>&1 && exec {HOOK_SCRIPT} {args}; "
        f"cat >/dev/null; {say}; exit {code}"
    )


def program_of(command: str) -> str | None:
    """What a STYLE handler command starts: `style-hook` (found on PATH), or the absolute
    program a personal scope wrote (the environment's `style-hook`, or its interpreter)."""
    if command.startswith(f"command -v {HOOK_SCRIPT} "):
        return HOOK_SCRIPT
    from agentstyle.harnesses.install import command_interpreter

    return command_interpreter(command)


def _environment(program: str) -> tuple[str, str]:
    """An interpreter as (its folder as written, the file it finally is): a venv is its
    folder, so `python` and `python3` of one venv agree and a link to the base one does not."""
    path = Path(program)
    try:
        return (os.path.normpath(path.parent.as_posix()), path.resolve().as_posix())
    except OSError:
        return (os.path.normpath(path.parent.as_posix()), path.as_posix())


def same_program(a: str, b: str) -> bool:
    return a == b or _environment(a) == _environment(b)


def canonical(command: str) -> str:
    """A handler command compared by what it runs, not how the path to it is spelled."""
    program = program_of(command)
    if program is None or program == HOOK_SCRIPT or not command.startswith('"'):
        return command
    rest = command[len(quoted(program)) :]
    folder, target = _environment(program)
    return f"{folder}|{target}{rest}"
