"""`style init`: scaffold a package that validates clean."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentstyle.policy.scaffold import scaffold


def command(
    folder: Annotated[Path, typer.Argument(help="where to create the package")] = Path("."),
    single_file: Annotated[bool, typer.Option("--single-file")] = False,
) -> None:
    """Create STYLE.yaml, rules/example.md and tests/ (or one NAME.md)."""
    for path in scaffold(folder, single_file=single_file):
        typer.echo(f"created {path}")
