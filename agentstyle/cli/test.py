"""`style test`: run packages' fixture cases through the evaluator; exit 1 on any failure."""

from __future__ import annotations

from typing import Annotated

import typer

from agentstyle.audit.testing import CaseResult, run_package_tests
from agentstyle.cli.common import Format, emit_json, harness_option_check, packages_or_cwd


def command(
    packages: Annotated[list[str] | None, typer.Argument(help="package folders")] = None,
    harness: Annotated[str, typer.Option(help="claude-code")] = "claude-code",
    fmt: Annotated[Format, typer.Option("--format")] = Format.text,
) -> None:
    """Run each package's tests/*.yaml cases."""
    harness_option_check(harness)
    results: list[CaseResult] = []
    empty: list[str] = []
    for package in packages_or_cwd(packages):
        found = run_package_tests(package, harness)
        if not found:
            empty.append(package)
        results.extend(found)
    failed = sum(1 for r in results if not r.ok)
    if fmt is Format.json:
        emit_json(
            {
                "passed": len(results) - failed,
                "failed": failed,
                "without_tests": empty,
                "cases": [r.to_json() for r in results],
            }
        )
    else:
        for package in empty:
            typer.echo(f"{package}: no test cases (tests/*.yaml)")
        for r in results:
            typer.echo(f"{'ok  ' if r.ok else 'FAIL'}  {r.file}: {r.note}")
            for f in r.failures:
                typer.echo(f"        {f}")
        typer.echo(f"{len(results) - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)
