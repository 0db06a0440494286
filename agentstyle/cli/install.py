"""`style install`, `uninstall`, `sync`: put the policy into a harness and take it out."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentstyle.cli.common import harness_option_check
from agentstyle.diagnostics import render_text
from agentstyle.engine.install import InstallResult, install, install_errors, sync, uninstall
from agentstyle.engine.paths import find_root


def _report(result: InstallResult, harness: str, dry_run: bool) -> None:
    errors = install_errors(result)
    if errors:
        typer.echo(render_text(errors), nl=False, err=True)
        typer.echo("style: install refused: the packages have errors", err=True)
        raise typer.Exit(1)
    if result.blocked:
        for e in result.blocked:
            typer.echo(f"{e.rule_id}: install-error on {harness}: {e.reason}", err=True)
        typer.echo(
            "style: install refused: some rules cannot be placed (see `style plan`)", err=True
        )
        raise typer.Exit(1)
    for change in result.changes:
        if dry_run:
            diff = change.diff()
            if diff:
                typer.echo(diff, nl=False)
        elif change.before != change.after:
            typer.echo(f"wrote {change.path}")
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    rules = sum(1 for e in result.compiled.plan if e.harness == harness and e.runs)
    static = sum(1 for e in result.compiled.plan if e.harness == harness and e.status == "static")
    verb = "would install" if dry_run else "installed"
    typer.echo(
        f"{verb} {len(result.compiled.packages)} package(s) for {harness}: {rules} hook "
        f"entr{'y' if rules == 1 else 'ies'}, {static} static"
    )


def install_command(
    packages: Annotated[list[str] | None, typer.Argument(help="package folders")] = None,
    harness: Annotated[str, typer.Option(help="claude-code")] = "claude-code",
    scope: Annotated[str, typer.Option(help="project | local | user")] = "project",
    set_: Annotated[list[str] | None, typer.Option("--set", help="setting NAME=VALUE")] = None,
    fail_closed: Annotated[bool, typer.Option("--fail-closed")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the config diff only")] = False,
) -> None:
    """Validate, compile and install packages into a harness's hooks."""
    harness_option_check(harness)
    root = Path.cwd() if scope != "user" else Path.home()
    result = install(
        root,
        list(packages or []),
        harness,
        scope=scope,
        sets=list(set_ or []),
        fail_closed=fail_closed or None,
        dry_run=dry_run,
    )
    _report(result, harness, dry_run)


def uninstall_command(
    harness: Annotated[str, typer.Option(help="claude-code")] = "claude-code",
    dry_run: Annotated[bool, typer.Option("--dry-run")] = False,
) -> None:
    """Remove exactly what install added."""
    harness_option_check(harness)
    for change in uninstall(find_root(), harness, dry_run=dry_run):
        if dry_run:
            typer.echo(change.diff(), nl=False)
        elif change.before != change.after:
            typer.echo(
                f"restored {change.path}" if change.after is not None else f"removed {change.path}"
            )


def sync_command(dry_run: Annotated[bool, typer.Option("--dry-run")] = False) -> None:
    """Reinstall everything recorded in style.lock.yaml."""
    root = find_root()
    from agentstyle.engine.lockfile import read_lock
    from agentstyle.engine.paths import StylePaths

    names = sorted(read_lock(StylePaths(root).lockfile).harnesses)
    for name, result in zip(names, sync(root, dry_run=dry_run), strict=False):
        _report(result, name, dry_run)
