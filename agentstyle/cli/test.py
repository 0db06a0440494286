"""`style test`: run packages' fixture cases through the evaluator; exit 1 on any failure."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from agentstyle.cli.common import (
    Format,
    FormatOpt,
    HarnessOpt,
    PackagesArg,
    emit_json,
    packages_or_cwd,
)
from agentstyle.harnesses import DEFAULT as DEFAULT_HARNESS

if TYPE_CHECKING:
    from agentstyle.evaluator.packagetests import CaseResult


def command(
    packages: PackagesArg = None,
    harness: HarnessOpt = DEFAULT_HARNESS,
    fmt: FormatOpt = Format.text,
) -> None:
    """Run packages' test cases (tests/*.yaml) through the evaluator.

    Exit 1 when a case fails, or when a PKG is missing or is no package.

    With --format json: one object with `passed`, `failed`, `without_tests` (the packages
    without cases) and `cases` (each with `file`, `note`, `ok` and `failures`).
    """
    from agentstyle.evaluator.packagetests import run_package_tests
    from agentstyle.policy.load import load_package

    results: list[CaseResult] = []
    empty: list[str] = []
    for package in packages_or_cwd(packages):
        found = run_package_tests(package, harness)
        if not found:
            load_package(package)  # a missing folder or a file that is no package: one line
            empty.append(package)
        results.extend(found)
    failed = sum(1 for r in results if not r.ok)
    if fmt == Format.json:
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
