"""`style schema`: JSON Schema of STYLE.yaml or rule front matter, for editors."""

from __future__ import annotations

from typing import Annotated

import typer

from agentstyle.cli.common import choice

KINDS = ("package", "rule-file")


def command(
    kind: Annotated[
        str,
        choice(
            "--kind",
            values=KINDS,
            metavar="KIND",
            help="package (STYLE.yaml) or rule-file (a rule file's front matter)",
        ),
    ] = "package",
) -> None:
    """Print the JSON Schema of STYLE.yaml or of rule front matter.

    Point an editor's YAML support at it to check and complete packages as you type.
    """
    from agentstyle.policy.schema import schema_json

    typer.echo(schema_json(kind), nl=False)
