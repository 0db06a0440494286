"""`style install`, `uninstall`, `sync`: put the policy into a harness and take it out."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentstyle.cli.common import harness_option_check
from agentstyle.diagnostics import StyleError, render_text
from agentstyle.engine.paths import find_root
from agentstyle.install.install import (
    SCOPES,
    InstallResult,
    install,
    install_errors,
    remove_packages,
    sync,
    uninstall,
)
from agentstyle.install.selfprotect import is_builtin


def _report(result: InstallResult, harness: str, dry_run: bool) -> None:
    errors = install_errors(result)
    if errors:
        typer.echo(render_text(errors), nl=False, err=True)
        typer.echo("style: install refused: the packages have errors", err=True)
        raise typer.Exit(1)
    if result.blocked:
        for e in result.blocked:
            where = f" at {e.point}" if e.point else ""
            typer.echo(f"{e.rule_id}: install-error on {harness}{where}: {e.reason}", err=True)
        typer.echo(
            "style: install refused: some rules cannot be placed (see `style plan`)", err=True
        )
        raise typer.Exit(1)
    warnings = [d for d in result.compiled.diagnostics if d.level != "error"]
    if warnings:
        typer.echo(render_text(warnings), nl=False, err=True)
    for change in result.changes:
        if change.before == change.after:
            continue
        if dry_run:
            typer.echo(change.diff(), nl=False)
        else:
            verb = "removed" if change.after is None else "wrote"
            typer.echo(f"{verb} {change.label or change.path}")
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    rules = sum(1 for e in result.compiled.plan if e.harness == harness and e.runs)
    static = sum(1 for e in result.compiled.plan if e.harness == harness and e.status == "static")
    verb = "would install" if dry_run else "installed"
    user = [cp for cp in result.compiled.packages if not is_builtin(cp.package.root)]
    protect = " + self-protection" if len(user) < len(result.compiled.packages) else ""
    typer.echo(
        f"{verb} {len(user)} package(s){protect} for {harness}: {rules} hook "
        f"entr{'y' if rules == 1 else 'ies'}, {static} static"
        + ("; nothing written (--dry-run)" if dry_run else "")
    )


def _scope_check(scope: str | None) -> None:
    if scope is not None and scope not in SCOPES:
        raise StyleError(f"unknown scope `{scope}` (project, local or user)")


def project_root() -> Path:
    """The nearest installed project upwards, else the current folder.

    The home folder holds a `--scope user` install; it is never taken as the project of a
    folder below it.
    """
    cwd = Path.cwd().resolve()
    found = find_root(cwd)
    return cwd if found == Path.home().resolve() != cwd else found


def _root(scope: str | None) -> Path:
    """The install root: the home folder for `--scope user`, else the project's."""
    return Path.home() if scope == "user" else project_root()


def install_command(
    packages: Annotated[
        list[str] | None,
        typer.Argument(help="package folders or files, or bundled package names (style packages)"),
    ] = None,
    harness: Annotated[
        str, typer.Option(help="claude-code | codex | cursor | gemini-cli")
    ] = "claude-code",
    scope: Annotated[str, typer.Option(help="project | local | user")] = "project",
    set_: Annotated[list[str] | None, typer.Option("--set", help="setting NAME=VALUE")] = None,
    fail_closed: Annotated[
        bool | None,
        typer.Option(
            "--fail-closed/--no-fail-closed",
            help="a failing gate handler refuses the call (kept in style.lock.yaml)",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="print the config diff only")] = False,
) -> None:
    """Validate, compile and install packages into a harness's hooks."""
    harness_option_check(harness)
    _scope_check(scope)
    result = install(
        _root(scope),
        list(packages or []),
        harness,
        scope=scope,
        sets=list(set_ or []),
        fail_closed=fail_closed,
        dry_run=dry_run,
    )
    _report(result, harness, dry_run)


def uninstall_command(
    packages: Annotated[
        list[str] | None,
        typer.Argument(help="packages to take out (name, bundled name or folder); none: all"),
    ] = None,
    harness: Annotated[
        str, typer.Option(help="claude-code | codex | cursor | gemini-cli")
    ] = "claude-code",
    scope: Annotated[
        str | None, typer.Option(help="`user` for a --scope user install; else the project's")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run")] = False,
) -> None:
    """Remove exactly what install added: one package, or everything of a harness."""
    harness_option_check(harness)
    _scope_check(scope)
    if packages:
        removed, results = remove_packages(_root(scope), list(packages), dry_run=dry_run)
        for change in removed:
            if change.before == change.after:
                continue
            if dry_run:
                typer.echo(change.diff(), nl=False)
            else:
                verb = "restored" if change.after is not None else "removed"
                typer.echo(f"{verb} {change.label or change.path}")
        for name, result in results:
            _report(result, name, dry_run)
        typer.echo(f"{'would take' if dry_run else 'took'} out {', '.join(packages)}")
        return
    changes = [c for c in uninstall(_root(scope), harness, dry_run=dry_run) if c.before != c.after]
    if not changes:
        typer.echo(f"nothing of STYLE's found for {harness}")
    for change in changes:
        if dry_run:
            typer.echo(change.diff(), nl=False)
        else:
            verb = "restored" if change.after is not None else "removed"
            typer.echo(f"{verb} {change.label or change.path}")


def sync_command(
    scope: Annotated[
        str | None, typer.Option(help="`user` for a --scope user install; else the project's")
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run")] = False,
) -> None:
    """Reinstall everything recorded in style.lock.yaml."""
    _scope_check(scope)
    for name, result in sync(_root(scope), dry_run=dry_run):
        _report(result, name, dry_run)
