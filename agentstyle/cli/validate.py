"""`style validate`: load and validate packages, print every diagnostic."""

from __future__ import annotations

from typing import Annotated

import typer

from agentstyle.cli.common import Format, FormatOpt, PackagesArg, emit_json, fail, packages_or_cwd
from agentstyle.codes import explain
from agentstyle.diagnostics import has_errors, render_text


def command(
    packages: PackagesArg = None,
    strict: Annotated[bool, typer.Option("--strict", help="warnings fail too")] = False,
    explain_code: Annotated[
        str | None,
        typer.Option("--explain", metavar="CODE", help="print the documentation of a code"),
    ] = None,
    fmt: FormatOpt = Format.text,
) -> None:
    """Validate packages and print every diagnostic.

    Each diagnostic is one line: `path:line:col: level code: message`. Exit 1 when there are
    errors (or warnings, with --strict).

    With --format json: a list of diagnostics, each with `code`, `level`, `message`, `file`,
    `line`, `column`, `rule` and `help`.
    """
    from agentstyle.policy.compile import load_and_validate

    if explain_code is not None:
        doc = explain(explain_code)
        if doc is None:
            raise fail(f"unknown diagnostic code `{explain_code}`")
        typer.echo(doc, nl=False)
        return
    compiled = load_and_validate(packages_or_cwd(packages))
    diags = compiled.diagnostics
    if fmt == Format.json:
        emit_json([d.to_json() for d in diags])
    else:
        typer.echo(render_text(diags), nl=False)
        errors = sum(d.level == "error" for d in diags)
        warnings = len(diags) - errors
        rules = sum(len(cp.rules) for cp in compiled.packages)
        typer.echo(
            f"{errors} error(s), {warnings} warning(s) in {len(compiled.packages)} "
            f"package(s), {rules} rule(s)",
            err=True,
        )
    if has_errors(diags, strict=strict):
        raise typer.Exit(1)
