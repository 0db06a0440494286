"""`style doctor`: check the installation end to end (docs/design/cli.md#doctor)."""

from __future__ import annotations

from typing import Annotated

import typer

from agentstyle.cli.common import Format, FormatOpt, emit_json
from agentstyle.cli.install import project_root


def command(
    fmt: FormatOpt = Format.text,
    fire: Annotated[
        bool,
        typer.Option(
            "--fire/--no-fire", help="run each harness's installed hook command with an event"
        ),
    ] = True,
) -> None:
    """Check the installation end to end; exit 1 on any error.

    For every installed harness: the config and its handlers, the interpreter, a synthetic
    event through the installed command (answer and time), the database, and rules that can
    never fire. Then the layers in force: the managed, user and project policies (folder,
    lock, packages, installs) and what the evaluating database holds of each.

    With --format json: a list of findings, each with `level` (ok, warning or error), `harness`
    (null for the project's own checks, `layers` for the layers section) and `message`.
    """
    from agentstyle.install.doctor import run_doctor
    from agentstyle.install.doctor_layers import layer_findings

    root = project_root()
    findings = run_doctor(root, fire=fire) + layer_findings(root)
    if fmt == Format.json:
        emit_json([f.to_json() for f in findings])
    else:
        for finding in findings:
            typer.echo(finding.line)
    if any(f.level == "error" for f in findings):
        raise typer.Exit(1)
