"""The `style` command: one Typer app, one module per command."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Annotated

import typer

from agentstyle import __version__

# Each command module imports what its command runs (DuckDB, the compiler, polars) inside the
# command: `style --help` or one command pays only for its own work at start.
from agentstyle.cli import (
    allow,
    audit,
    doctor,
    engine,
    explain,
    hook,
    import_,
    init,
    install,
    packages,
    plan,
    replay,
    schema,
    suggest,
    test,
    validate,
)
from agentstyle.cli.usage import StyleCommand, StyleGroup, error_lines
from agentstyle.diagnostics import StyleError

# Every group and command of `style` is laid out and fails the same way (cli/usage.py).
CONTEXT = {"help_option_names": ["-h", "--help"]}
app = typer.Typer(
    name="style",
    help="STYLE: rules for AI coding agents, run as code at the harness's hooks.",
    cls=StyleGroup,
    context_settings=CONTEXT,
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"style {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="print the version and exit"
        ),
    ] = False,
) -> None:
    """STYLE policy engine."""


COMMANDS: dict[str, Callable[..., None]] = {
    "init": init.command,
    "validate": validate.command,
    "plan": plan.command,
    "explain": explain.command,
    "test": test.command,
    "schema": schema.command,
    "install": install.install_command,
    "uninstall": install.uninstall_command,
    "sync": install.sync_command,
    "packages": packages.packages_command,
    "import": import_.command,
    "allow": allow.command,
    "doctor": doctor.command,
    "replay": replay.command,
    "suggest": suggest.command,
}
for _name, _command in COMMANDS.items():
    app.command(_name, cls=StyleCommand)(_command)
app.command("hook", cls=StyleCommand, context_settings=hook.CONTEXT)(hook.command)
app.add_typer(audit.app, name="audit")
app.add_typer(engine.app, name="engine")


def main() -> None:
    try:
        # `python -m agentstyle` is `style` too: in usage lines, messages and completion
        app(prog_name="style")
    except StyleError as exc:  # raised outside a command (the group's main handles the rest)
        sys.stderr.write(error_lines(exc))
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except Exception as exc:  # no traceback for users; STYLE_DEBUG=1 shows it
        if os.environ.get("STYLE_DEBUG"):
            raise
        sys.stderr.write(f"style: internal error: {type(exc).__name__}: {exc}\n")
        raise SystemExit(1) from None
