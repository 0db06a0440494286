"""`style audit`: reports over the history, read-only SQL, pruning and Parquet export."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from agentstyle.cli.common import (
    FormatOpt,
    choice,
    emit_json,
    fail,
    output_file,
    progress_bar,
    usage_error,
    use_color,
    writing,
)
from agentstyle.cli.install import project_root
from agentstyle.cli.usage import StyleCommand, StyleGroup
from agentstyle.diagnostics import StyleError
from agentstyle.harnesses.facts import SUPPORTED

if TYPE_CHECKING:  # polars and duckdb load only when an audit command runs
    from agentstyle.audit import report


REPORT_FORMATS = ("text", "json", "csv", "parquet", "html")
SQL_FORMATS = ("text", "json", "csv", "parquet")
BUCKETS = ("day", "hour")
NEEDS_OUT = ("parquet", "html")

app = typer.Typer(
    help=(
        "Reports over the recorded history; read-only SQL, prune, export.\n\n"
        "Without a command: the summary report. The filters and --format may also be given "
        "before the report name."
    ),
    cls=StyleGroup,
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
REPORT_JSON = (
    "With --format json: one object with `report`, `source`, `filters`, `columns` and `rows` "
    "(one object per row, keyed by column)."
)

SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since", metavar="WHEN", help="from a date (2024-05-01) or a duration ago (7d, 12h)"
    ),
]
UntilOpt = Annotated[
    str | None,
    typer.Option(
        "--until", metavar="WHEN", help="up to a date (that day included) or a duration ago"
    ),
]
RuleOpt = Annotated[
    str | None, typer.Option("--rule", metavar="RULE", help="a rule id or a glob (`pkg/*`)")
]
SessionOpt = Annotated[str | None, typer.Option("--session", metavar="ID", help="one session id")]
HarnessOpt = Annotated[
    str | None,
    choice("--harness", values=SUPPORTED, metavar="HARNESS", help="one harness's events"),
]
BucketOpt = Annotated[
    str | None,
    choice("--bucket", values=BUCKETS, metavar="BUCKET", help="timeline buckets: day or hour"),
]
ReportFormatOpt = Annotated[
    str | None,
    choice(
        "--format",
        values=REPORT_FORMATS,
        metavar="FORMAT",
        help="text, json, csv, parquet or html",
        show_default="text",
    ),
]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", metavar="FILE", help="write to this file (needed for parquet and html)"),
]
FromOpt = Annotated[
    str | None,
    typer.Option("--from", metavar="GLOB", help="report over `style audit export` Parquet files"),
]
MachineOpt = Annotated[
    str | None,
    typer.Option("--machine", metavar="NAME", help="with --from: only that machine's exports"),
]
MinEventsOpt = Annotated[
    int | None,
    typer.Option(
        "--min-events",
        min=1,
        metavar="N",
        help="events a flag needs (default 20; dead: 5 times that)",
    ),
]


@dataclass(frozen=True, slots=True)
class Options:
    since: str | None = None
    until: str | None = None
    rule: str | None = None
    session: str | None = None
    harness: str | None = None
    bucket: str | None = None
    fmt: str | None = None
    out: Path | None = None
    from_glob: str | None = None
    min_events: int | None = None
    machine: str | None = None

    def over(self, base: Options | None) -> Options:
        """These options, with the ones given before the report name filling the gaps."""
        if base is None:
            return self
        given = {k: getattr(self, k) for k in self.__dataclass_fields__}
        return replace(base, **{k: v for k, v in given.items() if v is not None})


def _taking_options(run: Callable[[typer.Context, Options], None]) -> Callable[..., None]:
    """A command that takes the report options (its one list of them), handed to `run` as one
    `Options`: `style audit` itself, and each report."""

    def command(
        ctx: typer.Context,
        since: SinceOpt = None,
        until: UntilOpt = None,
        rule: RuleOpt = None,
        session: SessionOpt = None,
        harness: HarnessOpt = None,
        bucket: BucketOpt = None,
        fmt: ReportFormatOpt = None,
        out: OutOpt = None,
        from_glob: FromOpt = None,
        min_events: MinEventsOpt = None,
        machine: MachineOpt = None,
    ) -> None:
        options = Options(
            since, until, rule, session, harness, bucket, fmt, out, from_glob, min_events, machine
        )
        run(ctx, options)

    return command


def _main(ctx: typer.Context, options: Options) -> None:
    """Reports over the recorded history (default: summary)."""
    if ctx.invoked_subcommand is None:
        run_report("summary", options)
    elif ctx.invoked_subcommand in REPORT_HELP:
        ctx.obj = options
    elif options != Options():
        raise usage_error(f"give the options of `{ctx.invoked_subcommand}` after its name")


main = app.callback(invoke_without_command=True)(_taking_options(_main))


def _report_command(name: str) -> Callable[..., None]:
    def run(ctx: typer.Context, local: Options) -> None:
        base = ctx.obj if isinstance(ctx.obj, Options) else None
        run_report(name, local.over(base))

    return _taking_options(run)


REPORT_HELP = {
    "summary": (
        "What needs attention, then per harness × point: events, events with a hit, blocked, "
        "asked, errors, latency."
    ),
    "attention": (
        "The flagged rules and fail-open causes to look at first, each with the reason and "
        "the command to dig in."
    ),
    "rules": "Per rule: candidates, fired, outcomes, rates, tokens, last fired, flags.",
    "errors": (
        "Per harness and cause: hook failures (database and errors.log) and rule errors, "
        "answered fail open or refused."
    ),
    "tools": "Per normalized tool: calls, blocked, asked, failed, top blocking rule.",
    "refusals": (
        "The refused tool calls, by whom: STYLE (the rule) or the client itself (its reason: "
        "Claude Code's auto mode), per harness and tool."
    ),
    "sessions": "Per session: events, prompts, hits, blocks, first and last seen.",
    "timeline": "Per day (or --bucket hour): events, hits, blocks, block rate.",
}
for _name in REPORT_HELP:
    app.command(_name, help=REPORT_HELP[_name], epilog=REPORT_JSON, cls=StyleCommand)(
        _report_command(_name)
    )


# -- reports ---------------------------------------------------------------------------------------


def filters_of(options: Options) -> report.Filters:
    from agentstyle.audit import report

    now = report.utc_now()
    since = _when(options.since, "--since", now, end=False)
    until = _when(options.until, "--until", now, end=True)
    if since is not None and until is not None and since >= until:
        raise usage_error("--since must be before --until")
    bucket = options.bucket or "day"
    return report.Filters(
        since,
        until,
        options.rule,
        options.session,
        options.harness,
        bucket,
        options.min_events or report.MIN_EVENTS,
    )


def _when(text: str | None, flag: str, now: Any, *, end: bool) -> Any:
    from agentstyle.audit import report

    if text is None:
        return None
    try:
        return report.parse_time(text, now=now, end=end)
    except ValueError as exc:
        problem = str(exc) if text in str(exc) else f"`{text}`: {exc}"
        raise typer.BadParameter(problem, param_hint=flag) from None


def _check_out(fmt: str, out: Path | None) -> None:
    if fmt in NEEDS_OUT and out is None:
        raise usage_error(f"--format {fmt} needs --out FILE")
    if out is not None:
        output_file(out)


def run_report(name: str, options: Options) -> None:
    from agentstyle.audit import attention, report
    from agentstyle.audit import html as html_report

    fmt = options.fmt or "text"
    _check_out(fmt, options.out)
    _check_machine(options.machine, options.from_glob)
    filters = filters_of(options)
    source = options.from_glob or "database"
    root = project_root()
    # Looked at before opening the database tightens it, told after the report: an error
    # stays one clear line.
    readable = None if options.from_glob else _readable(root)
    where = report.Where(root=root) if options.from_glob else report.Where.project(root)
    found: list[attention.Item] | None = None
    with report.history(
        root,
        from_glob=options.from_glob,
        machine=options.machine,
        window=filters,
        progress=progress_bar("reading exports"),
    ) as conn:
        if fmt == "html":
            doc = report.dashboard(conn, filters, first=name, source=source, where=where)
            if not options.from_glob:  # the transcripts are this machine's: not with exports
                from agentstyle.audit import coverage

                doc["coverage"] = coverage.document(coverage.coverage(conn, root, filters), filters)
            assert options.out is not None
            with writing(options.out):
                options.out.write_text(html_report.render(doc), encoding="utf-8")
            typer.echo(f"wrote {options.out}", err=True)
        else:
            note = None
            if name == "summary" and fmt == "text":
                found = report.attention_items(conn, filters, where)
                note = report.refusals_note(conn, filters)
            frame = report.run_report(conn, name, filters, where)
    if fmt != "html":
        _emit(
            frame,
            fmt,
            options.out,
            name=name,
            filters=filters,
            source=source,
            attention=found,
            note=note,
        )
    if readable:
        typer.echo(readable, err=True)


def _check_machine(machine: str | None, from_glob: str | None) -> None:
    if machine is not None and from_glob is None:
        raise usage_error("--machine picks among exports: give it with --from GLOB")


def _readable(root: Path) -> str | None:
    """The history is command text: doctor's warning when other users can read it."""
    from agentstyle.evaluator.paths import StylePaths, privacy_warning

    wide = privacy_warning(root, StylePaths(root))
    return f"style: warning: {wide}" if wide else None


def _emit(
    frame: report.Frame,
    fmt: str,
    out: Path | None,
    *,
    name: str,
    filters: report.Filters | None,
    source: str,
    attention: list[Any] | None = None,
    note: str | None = None,
) -> None:
    from agentstyle.audit import attention as attention_text
    from agentstyle.audit import report

    if fmt == "parquet":
        assert out is not None
        with writing(out):
            report.write_parquet(frame, out)
        typer.echo(f"wrote {out} ({frame.height} rows)", err=True)
        return
    with _output(out) as stream:
        if fmt == "json":
            report.write_json(report.json_document(name, frame, filters, source), stream)
        elif fmt == "csv":
            report.write_csv(frame, stream)
        else:
            color = out is None and use_color()
            if attention is not None and filters is not None:
                stream.write(attention_text.render_text(attention, filters.min_events, color=color))
                stream.write("\n")
            title = report.title_of(name, filters, source) if filters is not None else None
            shown = report.shown_in_text(name, frame)
            stream.write(report.render_text(shown, title=title, color=color))
            footnote = report.footnote(name, filters) if filters is not None else None
            for line in (footnote, note):
                if line:
                    stream.write(line + "\n")


@contextmanager
def _output(out: Path | None) -> Iterator[TextIO]:
    if out is None:
        yield sys.stdout
        return
    with writing(out), out.open("w", encoding="utf-8", newline="") as stream:
        yield stream


# -- coverage --------------------------------------------------------------------------------------

COVERAGE_FORMATS = ("text", "json")


@app.command("coverage", cls=StyleCommand)
def coverage_command(
    since: SinceOpt = None,
    until: UntilOpt = None,
    session: SessionOpt = None,
    harness: HarnessOpt = None,
    transcripts: Annotated[
        list[str] | None,
        typer.Option(
            "--transcripts",
            metavar="GLOB",
            help="more transcript files to read (repeatable; `~` and `**` work)",
        ),
    ] = None,
    fmt: Annotated[
        str,
        choice("--format", values=COVERAGE_FORMATS, metavar="FORMAT", help="text or json"),
    ] = "text",
    out: OutOpt = None,
) -> None:
    """The tool calls the harnesses' own transcripts show that STYLE never saw.

    Per session (found in the transcripts each installed client keeps for this project, or
    recorded by STYLE): the tool calls, how many reached STYLE, and each one that did not,
    with its likely cause (no-hook, hooks-skipped, style-not-on-path, handler-failed,
    not-recorded). Exit 0 whatever it finds: it reports.

    With --format json: one object with `report` (coverage), `source`, `filters`, `columns`,
    `rows` (one per session: `session`, `harness`, `transcript`, `tool_calls`, `seen`,
    `unseen` (each `tool`, `event`, `time`, `cause`) and `wholly_unseen`) and `totals`.
    """
    from agentstyle.audit import coverage, report

    if out is not None:
        output_file(out)
    filters = filters_of(Options(since=since, until=until, session=session, harness=harness))
    root = project_root()
    with report.project_history(root) as conn:
        found = coverage.coverage(conn, root, filters, extra=transcripts or ())
    with _output(out) as stream:
        if fmt == "json":
            report.write_json(coverage.document(found, filters), stream)
        else:
            stream.write(coverage.render_text(found, filters))
    for note in found.notes:
        typer.echo(f"style: note: {note}", err=True)


# -- sql -------------------------------------------------------------------------------------------


@app.command("sql", cls=StyleCommand)
def sql_command(
    query: Annotated[
        str, typer.Argument(metavar="QUERY", help="one read-only query over the tables")
    ],
    fmt: Annotated[
        str,
        choice(
            "--format",
            values=SQL_FORMATS,
            metavar="FORMAT",
            help="text, json, csv or parquet",
        ),
    ] = "text",
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="FILE", help="write to this file (needed for parquet)"),
    ] = None,
    from_glob: FromOpt = None,
    machine: MachineOpt = None,
) -> None:
    """Run one read-only query over the history's tables.

    A select, one statement; anything that writes, attaches or reads files is refused.

    With --format json: one object with `report` (sql), `source`, `filters` (null), `columns`
    and `rows`.
    """
    from agentstyle.audit import report

    _check_out(fmt, out)
    _check_machine(machine, from_glob)
    with report.history(
        project_root(),
        from_glob=from_glob,
        machine=machine,
        progress=progress_bar("reading exports"),
    ) as conn:
        report.lock_down(conn)
        try:
            frame = report.run_select(conn, query)
        except StyleError as exc:  # refused, or the query's own error: one line, exit 1
            raise fail(str(exc)) from None
    _emit(frame, fmt, out, name="sql", filters=None, source=from_glob or "database")


# -- prune -----------------------------------------------------------------------------------------


@app.command("prune", cls=StyleCommand)
def prune_command(
    older_than: Annotated[
        str,
        typer.Option(
            "--older-than",
            metavar="WHEN",
            help="delete history older than this (30d, or a date)",
        ),
    ],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="count only; delete nothing")] = False,
    fmt: FormatOpt = "text",
) -> None:
    """Delete history older than a date or a duration ago.

    Events go with their fields, hits and claims, in one transaction; a checkpoint follows,
    so the space they took holds the next events (the file does not shrink). Run regularly
    (`--older-than 90d`), it keeps the database about the size of the history kept.

    With --format json: one object with `cutoff`, `dry_run`, `deleted` (rows per table) and
    `database` (`file_bytes`, `free_bytes` after the prune; null for a dry run).
    """
    from agentstyle.audit import export, report

    cutoff = _when(older_than, "--older-than", report.utc_now(), end=False)
    with report.project_history(project_root(), write=True) as conn:
        result = export.prune_history(conn, cutoff, dry_run=dry_run)
    size = result.size
    if fmt == "json":
        emit_json(
            {
                "cutoff": result.cutoff.isoformat(),
                "dry_run": result.dry_run,
                "deleted": result.deleted,
                "database": None
                if size is None
                else {"file_bytes": size.file_bytes, "free_bytes": size.free_bytes},
            }
        )
        return
    d = result.deleted
    verb = "would delete" if dry_run else "deleted"
    typer.echo(
        f"{verb} {d['events']} events older than {result.cutoff:%Y-%m-%d %H:%M:%S} UTC "
        f"({d['event_fields']} field rows, {d['hits']} hits, {d['claims']} claims) "
        f"and {d['sessions']} sessions"
    )
    if size is not None:
        typer.echo(
            f"the database file: {_mib(size.file_bytes)}, {_mib(size.free_bytes)} of it free "
            "for new history"
        )


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


# -- export ----------------------------------------------------------------------------------------


@app.command("export", cls=StyleCommand)
def export_command(
    out: Annotated[
        Path,
        typer.Option(
            "--out", metavar="DIR", help="folder for the machine=NAME/date=YYYY-MM-DD/ partitions"
        ),
    ],
    since: SinceOpt = None,
    until: UntilOpt = None,
    machine: Annotated[
        str | None,
        typer.Option("--machine", metavar="NAME", help="the machine column (default: user@host)"),
    ] = None,
    fmt: FormatOpt = "text",
) -> None:
    """Write the history as Parquet files, one folder per machine and day.

    `OUT/machine=NAME/date=YYYY-MM-DD/TABLE.parquet`: hive partitions any Parquet engine
    reads as columns. Each row also carries the machine, so exports of several machines
    report together (`style audit --from`), older `date=…/TABLE-MACHINE.parquet`
    exports among them.

    With --format json: one object with `out`, `machine`, `days`, `files` (how many) and
    `rows` (per table).
    """
    from agentstyle.audit import export, report

    filters = filters_of(Options(since=since, until=until))
    if out.exists() and not out.is_dir():
        raise StyleError(f"`{out}` is a file; --out names the folder to export into")
    with report.project_history(project_root()) as conn, writing(out):
        result = export.export_history(
            conn,
            out,
            machine=machine,
            since=filters.since,
            until=filters.until,
            progress=progress_bar("exporting"),
        )
    if fmt == "json":
        emit_json(
            {
                "out": str(result.out),
                "machine": result.machine,
                "days": [d.isoformat() for d in result.days],
                "files": len(result.files),
                "rows": result.rows,
            }
        )
        return
    rows = result.rows
    typer.echo(
        f"exported {rows['events']} events, {rows['hits']} hits, {rows['event_fields']} field "
        f"rows, {rows['claims']} claims, {rows['sessions']} sessions over {len(result.days)} "
        f"day(s) and the policy ({rows['rules']} rules) to {result.out} as {result.machine}"
    )
