"""`style hook`: the hook entry point, the same as `python -m agentstyle.hook`."""

from __future__ import annotations

import sys

import typer

from agentstyle import hook as entry
from agentstyle.limits import MAX_STDIN

# The hook reads its own options, as the installed command does: a bad one must fail open like
# there, never be a usage error (exit 2 refuses the call in Claude Code).
CONTEXT = {"ignore_unknown_options": True, "allow_extra_args": True}


def command(ctx: typer.Context) -> None:
    """Answer one hook event read from stdin, as the installed hooks do.

    Options: --harness HARNESS --event EVENT [--fail-closed], as in the installed command
    `python -m agentstyle.hook`. An unknown harness or event, or a missing option, is allowed
    (fail open) and told on stderr.
    """
    out, err, code = entry.run(list(ctx.args), sys.stdin.buffer.read(MAX_STDIN + 1))
    if out:
        sys.stdout.write(out + "\n")
    if err:
        sys.stderr.write(err)
    raise typer.Exit(code)
