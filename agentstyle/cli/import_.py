"""`style import`: bulk import rules into a package; a report per row, totals at the end."""

from __future__ import annotations

import enum
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentstyle.cli.common import Format, emit_json, fail

if TYPE_CHECKING:
    from agentstyle.imports.importer import ImportReport

# Below this many rows an import takes well under a second: no bar (cli.md).
PROGRESS_MIN_ROWS = 1000


class ImportFormat(enum.StrEnum):
    csv = "csv"
    tsv = "tsv"
    jsonl = "jsonl"
    parquet = "parquet"
    markdown = "markdown"
    oh_my_pi = "oh-my-pi"
    cursor = "cursor"
    claude_permissions = "claude-permissions"
    hookify = "hookify"


class InputFormat(enum.StrEnum):
    csv = "csv"
    tsv = "tsv"
    jsonl = "jsonl"
    parquet = "parquet"


class _Bars:
    """One progress bar per stage on stderr, only on a terminal and for large inputs."""

    def __init__(self) -> None:
        self.stage = ""
        self.bar: Any = None
        self.done = 0

    def __call__(self, stage: str, done: int, total: int) -> None:
        if total < PROGRESS_MIN_ROWS and stage != "validating":
            return
        if stage != self.stage:
            self.close()
            if stage == "validating" and self.stage == "":
                return  # a small input: validation is quick too
            self.stage = stage
            self.done = 0
            self.bar = typer.progressbar(length=total, label=stage, file=sys.stderr)
            self.bar.__enter__()
        if self.bar is not None:
            self.bar.update(done - self.done)
            self.done = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


def command(
    fmt: Annotated[ImportFormat, typer.Argument(metavar="FORMAT", help="what the sources hold")],
    sources: Annotated[list[str], typer.Argument(metavar="SRC...", help="files or folders")],
    into: Annotated[str, typer.Option("--into", help="the package folder to import into")],
    prune: Annotated[
        bool, typer.Option("--prune", help="remove imported files whose source row is gone")
    ] = False,
    skip_invalid: Annotated[
        bool, typer.Option("--skip-invalid", help="write the valid rows when some are rejected")
    ] = False,
    input_format: Annotated[
        InputFormat | None,
        typer.Option("--input-format", help="table type when the extension does not say"),
    ] = None,
    out_fmt: Annotated[Format, typer.Option("--format", help="report format")] = Format.text,
) -> None:
    """Import rules from CSV/TSV/JSON Lines/Parquet, STYLE markdown, oh-my-pi, Cursor,
    Claude Code permissions or hookify into PKG_DIR/rules/imported/FORMAT/ (all or nothing)."""
    from agentstyle.imports.importer import SourceMissing, import_rules

    bars = _Bars() if sys.stderr.isatty() else None
    try:
        report = import_rules(
            fmt.value,
            sources,
            into,
            prune=prune,
            skip_invalid=skip_invalid,
            input_format=input_format.value if input_format else None,
            progress=bars,
        )
    except SourceMissing as exc:
        raise fail(str(exc), 2) from None
    finally:
        if bars is not None:
            bars.close()
    if out_fmt is Format.json:
        emit_json(report.to_json())
    else:
        typer.echo(render(report), nl=False)
    if not report.ok:
        raise typer.Exit(1)


def render(report: ImportReport) -> str:
    """The text report: one aligned line per row, its diagnostics below it, totals last."""
    lines: list[str] = []
    width = max((len(r.label) for r in report.rows), default=0)
    for row in report.rows:
        target = row.rule or ""
        lines.append(f"{row.status:<9}  {row.label:<{width}}  {target}".rstrip())
        for reason in row.reasons:
            lines.append(f"    {reason.render()}")
        for note in row.notes:
            lines.append(f"    {note.where()}: note: {note.message}")
    for rel in report.removed:
        lines.append(f"{'removed':<9}  {report.into.rstrip('/')}/{rel}")
    for reason in report.package:
        lines.append(f"package    {reason.render()}")
    for text in report.notes:
        lines.append(f"note       {text}")
    t = report.totals()
    if report.written:
        if report.manifest in ("created", "added"):
            verb = "created with" if report.manifest == "created" else "added to"
            lines.append(f"STYLE.yaml: `from: {report.manifest_entry}` {verb} `rules`")
        counts = (
            f"{t['created']} created, {t['updated']} updated, {t['unchanged']} unchanged, "
            f"{t['rejected']} rejected, {t['removed']} removed"
        )
        lines.append(f"{counts} in `{report.into}`")
    else:
        counts = f"{t['valid']} valid, {t['rejected']} rejected"
        if report.package_errors:
            why = "the package has errors outside the imported rows"
        elif t["rejected"] and t["valid"]:
            why = "some rows are rejected; `--skip-invalid` writes the valid ones"
        elif t["rejected"]:
            why = "every row is rejected"
        else:
            why = "the sources hold no rules"
        lines.append(f"{counts}; nothing written: {why}")
    return "\n".join(lines) + "\n"
