"""`style schema`: JSON Schema of STYLE.yaml or rule front matter, for editors."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from agentstyle.policy.schema import schema_json


class Kind(enum.StrEnum):
    package = "package"
    rule_file = "rule-file"


def command(kind: Annotated[Kind, typer.Option("--kind")] = Kind.package) -> None:
    """Print the JSON Schema."""
    typer.echo(schema_json(kind.value), nl=False)
