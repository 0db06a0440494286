"""`style doctor`: check the installation end to end (cli.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from agentstyle.cli.common import Format, emit_json
from agentstyle.cli.install import project_root
from agentstyle.install.doctor import run_doctor


def command(
    fmt: Annotated[Format, typer.Option("--format")] = Format.text,
    fire: Annotated[
        bool,
        typer.Option("--fire/--no-fire", help="run each harness's installed hook command"),
    ] = True,
) -> None:
    """Check every installed harness: config, handlers, interpreter, a synthetic event through
    the installed command (answer and time), the database, rules that can never fire."""
    findings = run_doctor(project_root(), fire=fire)
    if fmt is Format.json:
        emit_json([f.to_json() for f in findings])
    else:
        for finding in findings:
            typer.echo(finding.line)
    if any(f.level == "error" for f in findings):
        raise typer.Exit(1)
