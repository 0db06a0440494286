"""`style packages`: the bundled rule library, one line each."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from agentstyle.install.library import bundled


def packages_command(
    format_: Annotated[str, typer.Option("--format", help="text | json")] = "text",
) -> None:
    """List the bundled packages `style install NAME` takes by name."""
    found = bundled()
    if format_ == "json":
        doc = [{"name": b.name, "version": b.version, "description": b.description} for b in found]
        typer.echo(json.dumps(doc, indent=2))
        return
    width = max((len(b.name) for b in found), default=0)
    for b in found:
        typer.echo(f"{b.name:<{width}}  {b.version:<6}  {b.description}")
