"""`style import`: bulk import rules into a package; a report per row, totals at the end."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentstyle.cli.common import Format, FormatOpt, choice, choice_argument, emit_json, fail

if TYPE_CHECKING:
    from agentstyle.imports.importer import ImportReport

# Below this many rows an import takes well under a second: no bar
# (docs/design/cli.md#progress-bars).
PROGRESS_MIN_ROWS = 1000


TABLES = ("csv", "tsv", "jsonl", "parquet")
SOURCES = (*TABLES, "markdown", "oh-my-pi", "cursor", "claude-permissions", "hookify")


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
    fmt: Annotated[
        str,
        choice_argument(
            values=SOURCES,
            metavar="FORMAT",
            help="the format of the sources (one of the names above)",
        ),
    ],
    sources: Annotated[list[str], typer.Argument(metavar="SRC...", help="files or folders")],
    into: Annotated[
        str, typer.Option("--into", metavar="DIR", help="the package folder to import into")
    ],
    prune: Annotated[
        bool, typer.Option("--prune", help="remove imported files whose source row is gone")
    ] = False,
    skip_invalid: Annotated[
        bool, typer.Option("--skip-invalid", help="write the valid rows when some are rejected")
    ] = False,
    input_format: Annotated[
        str | None,
        choice(
            "--input-format",
            values=TABLES,
            metavar="TABLE",
            help="the table type when the extension does not say: " + ", ".join(TABLES),
        ),
    ] = None,
    out_fmt: FormatOpt = Format.text,
) -> None:
    """Import rules from tables, markdown and other tools' rule formats.

    Sources are CSV, TSV, JSON Lines or Parquet tables, STYLE markdown,
    oh-my-pi rules, Cursor rules, Claude Code permissions or hookify rules; the
    rules go to DIR/rules/imported/FORMAT/, all or nothing. Exit 1 when rows are
    rejected (unless --skip-invalid) and 2 when a source is missing.

    With --format json: one object with `format`, `into`, `written`, `manifest`, `from`, `rows`
    (each with `status`, `source`, `line`, `label`, `id`, `rule`, `path`, `diagnostics` and
    `notes`), `removed`, `package` (diagnostics outside the rows), `notes` and `totals`.
    """
    from agentstyle.imports.importer import SourceMissing, import_rules

    bars = _Bars() if sys.stderr.isatty() else None
    try:
        report = import_rules(
            fmt,
            sources,
            into,
            prune=prune,
            skip_invalid=skip_invalid,
            input_format=input_format,
            progress=bars,
        )
    except SourceMissing as exc:
        raise fail(str(exc), 2) from None
    finally:
        if bars is not None:
            bars.close()
    if out_fmt == Format.json:
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
