"""The `style` command: one Typer app, one module per command."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from agentstyle import __version__
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
    test,
    validate,
)
from agentstyle.diagnostics import StyleError

app = typer.Typer(
    name="style",
    help="STYLE: rules for AI coding agents, run as code at the harness's hooks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"style {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True)] = False,
) -> None:
    """STYLE policy engine."""


app.command("init")(init.command)
app.command("validate")(validate.command)
app.command("plan")(plan.command)
app.command("explain")(explain.command)
app.command("test")(test.command)
app.command("schema")(schema.command)
app.command("hook")(hook.command)
app.command("install")(install.install_command)
app.command("uninstall")(install.uninstall_command)
app.command("sync")(install.sync_command)
app.command("packages")(packages.packages_command)
app.command("import")(import_.command)
app.command("allow")(allow.command)
app.command("doctor")(doctor.command)
app.command("replay")(replay.command)
app.add_typer(audit.app, name="audit")
app.add_typer(engine.app, name="engine")


def main() -> None:
    try:
        app()
    except StyleError as exc:
        rendered = getattr(exc, "rendered", "")
        if rendered:
            sys.stderr.write(rendered)
        sys.stderr.write(f"style: {exc}\n")
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except Exception as exc:  # no traceback for users; STYLE_DEBUG=1 shows it
        if os.environ.get("STYLE_DEBUG"):
            raise
        sys.stderr.write(f"style: internal error: {type(exc).__name__}: {exc}\n")
        raise SystemExit(1) from None
