"""`style test`: run packages' fixture cases through the evaluator; exit 1 on any failure."""

from __future__ import annotations

from typing import Annotated

import typer

from agentstyle.cli.common import harness_option_check, packages_or_cwd
from agentstyle.engine.testing import run_package_tests


def command(
    packages: Annotated[list[str] | None, typer.Argument(help="package folders")] = None,
    harness: Annotated[str, typer.Option(help="claude-code")] = "claude-code",
) -> None:
    """Run each package's tests/*.yaml cases."""
    harness_option_check(harness)
    failed = total = 0
    for package in packages_or_cwd(packages):
        results = run_package_tests(package, harness)
        if not results:
            typer.echo(f"{package}: no test cases (tests/*.yaml)")
        for r in results:
            total += 1
            if r.ok:
                typer.echo(f"ok    {r.file}: {r.note}")
            else:
                failed += 1
                typer.echo(f"FAIL  {r.file}: {r.note}")
                for f in r.failures:
                    typer.echo(f"        {f}")
    typer.echo(f"{total - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)
