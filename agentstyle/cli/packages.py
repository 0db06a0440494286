"""`style packages`: the bundled rule library, one line each."""

from __future__ import annotations

import typer

from agentstyle.cli.common import Format, FormatOpt, emit_json


def packages_command(fmt: FormatOpt = Format.text) -> None:
    """List the bundled packages `style install NAME` takes by name.

    With --format json: a list of objects with `name`, `version` and `description`.
    """
    from agentstyle.install.library import bundled

    found = bundled()
    if fmt == Format.json:
        emit_json(
            [{"name": b.name, "version": b.version, "description": b.description} for b in found]
        )
        return
    width = max((len(b.name) for b in found), default=0)
    for b in found:
        typer.echo(f"{b.name:<{width}}  {b.version:<6}  {b.description}")
