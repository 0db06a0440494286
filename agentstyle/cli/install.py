"""`style install`, `uninstall`, `sync`: put the policy into a harness and take it out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentstyle.cli.common import (
    SCOPES,
    Format,
    FormatOpt,
    HarnessOpt,
    choice,
    emit_json,
    packages_argument,
    usage_error,
)
from agentstyle.diagnostics import StyleError, render_text
from agentstyle.evaluator.paths import StylePaths, find_root
from agentstyle.harnesses import DEFAULT as DEFAULT_HARNESS

# The installer (DuckDB, the compiler) is imported by the commands that run it: every `style`
# command imports this module (`project_root`), and most never install.
if TYPE_CHECKING:
    from agentstyle.install.filechanges import FileChange
    from agentstyle.install.install import InstallResult


def _sets_syntax(values: list[str] | None) -> list[str] | None:
    for item in values or []:
        key, eq, _ = item.partition("=")
        if not eq or not key.strip():
            raise typer.BadParameter(f"`{item}` is not NAME=VALUE")
    return values


def _change_json(change: FileChange) -> dict[str, str]:
    action = "create" if change.before is None else "delete" if change.after is None else "update"
    return {"path": change.label or str(change.path), "action": action, "diff": change.diff()}


def _changed(changes: list[FileChange]) -> list[FileChange]:
    return [c for c in changes if c.before != c.after]


def _counts(result: InstallResult, harness: str) -> tuple[list[str], bool, int, int]:
    """User packages, whether self-protection goes with them, hook entries, static rules."""
    from agentstyle.install.selfprotect import is_builtin

    plan = [e for e in result.compiled.plan if e.harness == harness]
    own = result.compiled.packages
    if result.own is not None:  # the other layers' packages are theirs (install/layers.py)
        own = [cp for cp in own if cp.package.name in result.own]
    user = [cp for cp in own if not is_builtin(cp.package.root)]
    protect = len(user) < len(own)
    static = sum(1 for e in plan if e.status == "static")
    return [cp.package.name for cp in user], protect, sum(1 for e in plan if e.runs), static


def result_json(result: InstallResult, harness: str, scope: str, dry_run: bool) -> dict[str, Any]:
    from agentstyle.install.install import install_errors

    names, protect, rules, static = _counts(result, harness)
    errors = bool(install_errors(result) or result.blocked)
    return {
        "harness": harness,
        "scope": scope,
        "dry_run": dry_run,
        "ok": not errors,
        "packages": names,
        "self_protection": protect,
        "hook_entries": rules,
        "static": static,
        "changes": [] if errors else [_change_json(c) for c in _changed(result.changes)],
        "diagnostics": [d.to_json() for d in result.compiled.diagnostics],
        "blocked": [
            {"rule": e.rule_id, "point": e.point, "reason": e.reason} for e in result.blocked
        ],
        "notes": list(result.notes),
    }


def _report(result: InstallResult, harness: str, dry_run: bool) -> None:
    from agentstyle.install.install import install_errors

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
    for change in _changed(result.changes):
        if dry_run:
            typer.echo(change.diff(), nl=False)
        else:
            verb = "removed" if change.after is None else "wrote"
            typer.echo(f"{verb} {change.label or change.path}")
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    names, protect, rules, static = _counts(result, harness)
    verb = "would install" if dry_run else "installed"
    typer.echo(
        f"{verb} {len(names)} package(s){' + self-protection' if protect else ''} for {harness}: "
        f"{rules} hook entr{'y' if rules == 1 else 'ies'}, {static} static"
        + ("; nothing written (--dry-run)" if dry_run else "")
    )


def project_root() -> Path:
    """The nearest installed project upwards, else the current folder.

    The home folder holds a `--scope user` install; it is never taken as the project of a
    folder below it.
    """
    cwd = Path.cwd().resolve()
    found = find_root(cwd)
    return cwd if found == Path.home().resolve() != cwd else found


def _root(scope: str | None) -> Path:
    """The install root: the home folder for `--scope user`, the organisation's policy folder
    for `--scope managed` (STYLE_MANAGED_HOME, else /etc/style), else the project's."""
    if scope == "managed":
        from agentstyle.folders import managed_root

        return Path(managed_root())
    return Path.home() if scope == "user" else project_root()


InstalledScope = Annotated[
    str | None,
    choice(
        "--scope",
        values=SCOPES,
        metavar="SCOPE",
        help="`user` for a --scope user install (default: the project's)",
    ),
]
DryRun = Annotated[bool, typer.Option("--dry-run", help="print the config diff; write nothing")]


def install_command(
    packages: Annotated[
        list[str] | None,
        packages_argument(
            "those of the last install", "package folders or files, or bundled package names"
        ),
    ] = None,
    harness: HarnessOpt = DEFAULT_HARNESS,
    scope: Annotated[
        str,
        choice(
            "--scope",
            values=SCOPES,
            metavar="SCOPE",
            help="project (shared config), local (yours, not committed), user (every project) "
            "or managed (the organisation's, for every user of the machine)",
        ),
    ] = "project",
    set_: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="NAME=VALUE",
            help="a package setting (`pkg.NAME=VALUE` for one package)",
            callback=_sets_syntax,
        ),
    ] = None,
    fail_closed: Annotated[
        bool | None,
        typer.Option(
            "--fail-closed/--no-fail-closed",
            help="a failing gate handler refuses the call (kept in style.lock.yaml)",
            show_default=False,
        ),
    ] = None,
    dry_run: DryRun = False,
    fmt: FormatOpt = Format.text,
) -> None:
    """Validate, compile and install packages into a harness's hooks.

    Without PKG, the packages of the last install (style.lock.yaml) are installed again.

    With --format json: one object with `harness`, `scope`, `dry_run`, `ok`, `packages`,
    `self_protection`, `hook_entries`, `static`, `changes` (each with `path`, `action`: create,
    update or delete, and `diff`), `diagnostics`, `blocked` (rules that cannot be placed: `rule`,
    `point`, `reason`) and `notes`.
    """
    from agentstyle.install.install import check_scope, install

    try:
        check_scope(harness, scope)
    except StyleError as exc:
        raise usage_error(str(exc)) from None
    result = install(
        _root(scope),
        list(packages or []),
        harness,
        scope=scope,
        sets=list(set_ or []),
        fail_closed=fail_closed,
        dry_run=dry_run,
    )
    if result.ok and not dry_run:
        _allow_checks(_root(scope), result)
    if fmt == Format.json:
        doc = result_json(result, harness, scope, dry_run)
        emit_json(doc)
        if not doc["ok"]:
            raise typer.Exit(1)
        return
    _report(result, harness, dry_run)
    for rule in result.compiled.rows.rules:
        if rule.check_run is not None:
            typer.echo(f"check: {rule.rule_id} runs `{rule.check_run}` (allowed on this machine)")


def _allow_checks(root: Path, result: InstallResult) -> None:
    """The person who installs a policy in their terminal allows its checks
    (docs/observers.md#allowing-checks); a teammate's clone or the plugin asks them first."""
    from agentstyle.observe.accepted import accept

    runs = {r.rule_id: r.check_run for r in result.compiled.rows.rules if r.check_run}
    if runs:
        accept(str(root), runs)


def uninstall_command(
    packages: Annotated[
        list[str] | None,
        packages_argument("every package of the harness", "packages to take out, every harness"),
    ] = None,
    harness: HarnessOpt = DEFAULT_HARNESS,
    scope: InstalledScope = None,
    dry_run: DryRun = False,
    fmt: FormatOpt = Format.text,
) -> None:
    """Remove exactly what install added; every other byte stays.

    With PKG (a name, a bundled name or a folder), only those packages are taken out, of every
    harness: the rest is installed again, config and database in step.

    With --format json: one object with `harness`, `dry_run` and `changes` (each with
    `path`, `action` and `diff`; empty when nothing of STYLE's was found); with PKG also
    `removed` and `harnesses` (the objects `style install --format json` prints).
    """
    from agentstyle.install.install import uninstall

    if packages:
        _remove(list(packages), scope, dry_run, fmt, harness)
        return
    changes = _changed(uninstall(_root(scope), harness, dry_run=dry_run))
    if fmt == Format.json:
        emit_json(
            {
                "harness": harness,
                "dry_run": dry_run,
                "changes": [_change_json(c) for c in changes],
            }
        )
        return
    if not changes:
        typer.echo(f"nothing of STYLE's found for {harness}")
    _echo_taken_out(changes, dry_run)


def _echo_taken_out(changes: list[FileChange], dry_run: bool) -> None:
    """What uninstalling changed, a line a file: its diff on a dry run."""
    for change in changes:
        if dry_run:
            typer.echo(change.diff(), nl=False)
        else:
            verb = "restored" if change.after is not None else "removed"
            typer.echo(f"{verb} {change.label or change.path}")


def _remove(packages: list[str], scope: str | None, dry_run: bool, fmt: str, harness: str) -> None:
    from agentstyle.install.install import remove_packages
    from agentstyle.install.lockfile import read_lock

    root = _root(scope)
    lock = read_lock(StylePaths(root).lockfile)
    removed, results = remove_packages(root, packages, dry_run=dry_run)
    changes = _changed(removed)
    if fmt == Format.json:
        docs = []
        for name, result in results:
            recorded = lock.harnesses.get(name)
            docs.append(
                result_json(result, name, recorded.scope if recorded else "project", dry_run)
            )
        emit_json(
            {
                "harness": harness,
                "dry_run": dry_run,
                "removed": packages,
                "changes": [_change_json(c) for c in changes],
                "harnesses": docs,
            }
        )
        if not all(d["ok"] for d in docs):
            raise typer.Exit(1)
        return
    _echo_taken_out(changes, dry_run)
    for name, result in results:
        _report(result, name, dry_run)
    typer.echo(f"{'would take' if dry_run else 'took'} out {', '.join(packages)}")


def sync_command(
    scope: InstalledScope = None, dry_run: DryRun = False, fmt: FormatOpt = Format.text
) -> None:
    """Reinstall what style.lock.yaml records (after a package changed).

    With --format json: one object with `dry_run`, `ok` and `harnesses`, a list of the objects
    `style install --format json` prints, one per harness (sync stops at the first refused).
    """
    from agentstyle.install.install import sync
    from agentstyle.install.lockfile import read_lock

    root = _root(scope)
    results = sync(root, dry_run=dry_run)
    if fmt == Format.json:
        lock = read_lock(StylePaths(root).lockfile)
        docs = []
        for name, result in results:
            recorded = lock.harnesses.get(name)
            docs.append(
                result_json(result, name, recorded.scope if recorded else "project", dry_run)
            )
        emit_json({"dry_run": dry_run, "ok": all(d["ok"] for d in docs), "harnesses": docs})
        if not all(d["ok"] for d in docs):
            raise typer.Exit(1)
        return
    for name, result in results:
        _report(result, name, dry_run)
