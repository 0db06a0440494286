"""`style hook`: the hook entry point, the same as `python -m agentstyle.hook`."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from agentstyle import hook as entry


def command(
    harness: Annotated[str, typer.Option()],
    event: Annotated[str, typer.Option()],
    fail_closed: Annotated[bool, typer.Option("--fail-closed")] = False,
) -> None:
    """Answer one hook event read from stdin (runtime.md)."""
    argv = ["--harness", harness, "--event", event] + (["--fail-closed"] if fail_closed else [])
    out, err, code = entry.run(argv, sys.stdin.buffer.read(entry.MAX_STDIN + 1))
    if out:
        sys.stdout.write(out + "\n")
    if err:
        sys.stderr.write(err)
    raise typer.Exit(code)
