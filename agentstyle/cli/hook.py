"""`style hook`: the hook entry point, the same as `python -m agentstyle.hook`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agentstyle import hook as entry


def command(
    harness: Annotated[
        str, typer.Option("--harness", metavar="HARNESS", help="the harness that calls")
    ],
    event: Annotated[
        str, typer.Option("--event", metavar="EVENT", help="the harness's native event name")
    ],
    fail_closed: Annotated[
        bool, typer.Option("--fail-closed", help="refuse the call when the hook itself fails")
    ] = False,
) -> None:
    """Answer one hook event read from stdin, as the installed hooks do.

    The same as `python -m agentstyle.hook`; an unknown harness or event is allowed (fail open)
    and told on stderr.
    """
    argv = ["--harness", harness, "--event", event] + (["--fail-closed"] if fail_closed else [])
    out, err, code = entry.run(argv, sys.stdin.buffer.read(entry.MAX_STDIN + 1))
    if out:
        sys.stdout.write(out + "\n")
    if err:
        sys.stderr.write(err)
    raise typer.Exit(code)
