"""`style init`: scaffold a package that validates clean."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentstyle.cli.common import Format, FormatOpt, emit_json, file_in_the_way
from agentstyle.diagnostics import StyleError


def command(
    folder: Annotated[
        Path, typer.Argument(metavar="DIR", help="where to create the package (made if missing)")
    ] = Path("."),
    single_file: Annotated[
        bool, typer.Option("--single-file", help="one NAME.md package instead of a folder")
    ] = False,
    fmt: FormatOpt = Format.text,
) -> None:
    """Create a package that validates clean and whose tests pass.

    Writes STYLE.yaml, rules/example.md and tests/example.yaml (or NAME.md and tests/NAME.yaml
    with --single-file; DIR may then be the NAME.md to write). Never overwrites: when one of
    the files exists, nothing is written.

    With --format json: one object with `package` (its name), `folder` and `created` (the
    paths written).
    """
    from agentstyle.policy.scaffold import package_name, scaffold

    stem = None
    if single_file and folder.suffix == ".md":
        # `init --single-file guard.md` names the file to write, not a folder to make.
        stem, folder = folder.stem, folder.parent
    if folder.exists() and not folder.is_dir():
        raise StyleError(f"`{folder}` is a file; init creates a package in a folder")
    blocker = file_in_the_way(folder / "STYLE.yaml")
    if blocker is not None:
        raise StyleError(f"cannot create the package in `{folder}`: `{blocker}` is a file")
    try:
        created = scaffold(folder, single_file=single_file, stem=stem)
    except OSError as exc:
        where = exc.filename or folder
        reason = (exc.strerror or type(exc).__name__).lower()
        raise StyleError(f"cannot create the package in `{folder}`: `{where}`: {reason}") from None
    if fmt == Format.json:
        emit_json(
            {
                "package": package_name(Path(stem) if stem else folder),
                "folder": str(folder),
                "created": [str(p) for p in created],
            }
        )
        return
    for path in created:
        typer.echo(f"created {path}")
