"""`style audit`: reports over the history, read-only SQL, pruning and Parquet export."""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from agentstyle.cli.common import emit_json, fail
from agentstyle.cli.install import project_root
from agentstyle.diagnostics import StyleError

if TYPE_CHECKING:  # polars and duckdb load only when an audit command runs
    from agentstyle.audit import report
    from agentstyle.audit.export import Progress


class OutFormat(enum.StrEnum):
    text = "text"
    json = "json"
    csv = "csv"
    parquet = "parquet"
    html = "html"


class Bucket(enum.StrEnum):
    day = "day"
    hour = "hour"


app = typer.Typer(
    help=(
        "Reports over the recorded history (default: summary), read-only SQL, prune, export. "
        "Filters and --format may also be given before the report name."
    ),
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
)

SinceOpt = Annotated[
    str | None, typer.Option("--since", help="from a date (2024-05-01) or a duration ago (7d)")
]
UntilOpt = Annotated[
    str | None, typer.Option("--until", help="up to a date (that day included) or duration ago")
]
RuleOpt = Annotated[str | None, typer.Option("--rule", help="a rule id or a glob (`pkg/*`)")]
SessionOpt = Annotated[str | None, typer.Option("--session", help="one session id")]
HarnessOpt = Annotated[str | None, typer.Option("--harness", help="one harness (claude-code)")]
BucketOpt = Annotated[Bucket | None, typer.Option("--bucket", help="timeline buckets: day | hour")]
FormatOpt = Annotated[
    OutFormat | None, typer.Option("--format", help="text | json | csv | parquet | html")
]
OutOpt = Annotated[
    Path | None, typer.Option("--out", help="write to this file (required for parquet, html)")
]
FromOpt = Annotated[
    str | None,
    typer.Option("--from", help="report over `style audit export` Parquet files (a glob)"),
]
MinEventsOpt = Annotated[
    int | None,
    typer.Option(
        "--min-events",
        min=1,
        help="candidate events a flag needs (default 20; dead: five times that at its point)",
    ),
]


@dataclass(frozen=True, slots=True)
class Options:
    since: str | None = None
    until: str | None = None
    rule: str | None = None
    session: str | None = None
    harness: str | None = None
    bucket: Bucket | None = None
    fmt: OutFormat | None = None
    out: Path | None = None
    from_glob: str | None = None
    min_events: int | None = None

    def over(self, base: Options | None) -> Options:
        """These options, with the ones given before the report name filling the gaps."""
        if base is None:
            return self
        given = {k: getattr(self, k) for k in self.__dataclass_fields__}
        return replace(base, **{k: v for k, v in given.items() if v is not None})


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    since: SinceOpt = None,
    until: UntilOpt = None,
    rule: RuleOpt = None,
    session: SessionOpt = None,
    harness: HarnessOpt = None,
    bucket: BucketOpt = None,
    fmt: FormatOpt = None,
    out: OutOpt = None,
    from_glob: FromOpt = None,
    min_events: MinEventsOpt = None,
) -> None:
    """Reports over the recorded history (default: summary)."""
    options = Options(since, until, rule, session, harness, bucket, fmt, out, from_glob, min_events)
    if ctx.invoked_subcommand is None:
        run_report("summary", options)
    elif ctx.invoked_subcommand in REPORT_HELP:
        ctx.obj = options
    elif options != Options():
        raise typer.BadParameter(
            f"give the options of `{ctx.invoked_subcommand}` after its name "
            f"(style audit {ctx.invoked_subcommand} --help)"
        )


def _report_command(name: str) -> Callable[..., None]:
    def command(
        ctx: typer.Context,
        since: SinceOpt = None,
        until: UntilOpt = None,
        rule: RuleOpt = None,
        session: SessionOpt = None,
        harness: HarnessOpt = None,
        bucket: BucketOpt = None,
        fmt: FormatOpt = None,
        out: OutOpt = None,
        from_glob: FromOpt = None,
        min_events: MinEventsOpt = None,
    ) -> None:
        local = Options(
            since, until, rule, session, harness, bucket, fmt, out, from_glob, min_events
        )
        base = ctx.obj if isinstance(ctx.obj, Options) else None
        run_report(name, local.over(base))

    return command


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
    "sessions": "Per session: events, prompts, hits, blocks, first and last seen.",
    "timeline": "Per day (or --bucket hour): events, hits, blocks, block rate.",
}
for _name in REPORT_HELP:
    app.command(_name, help=REPORT_HELP[_name])(_report_command(_name))


# -- reports ---------------------------------------------------------------------------------------


def filters_of(options: Options) -> report.Filters:
    from agentstyle.audit import report

    now = report.utc_now()
    since = _when(options.since, "--since", now, end=False)
    until = _when(options.until, "--until", now, end=True)
    if since is not None and until is not None and since >= until:
        raise typer.BadParameter("--since must be before --until")
    bucket = (options.bucket or Bucket.day).value
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
        raise typer.BadParameter(str(exc), param_hint=flag) from None


def _check_out(fmt: OutFormat, out: Path | None) -> None:
    if fmt in (OutFormat.parquet, OutFormat.html) and out is None:
        raise typer.BadParameter(f"--format {fmt.value} needs --out FILE", param_hint="--out")


def run_report(name: str, options: Options) -> None:
    from agentstyle.audit import attention, report
    from agentstyle.audit import html as html_report

    fmt = options.fmt or OutFormat.text
    _check_out(fmt, options.out)
    filters = filters_of(options)
    source = options.from_glob or "database"
    root = project_root()
    where = report.Where(root=root) if options.from_glob else report.Where.project(root)
    found: list[attention.Item] | None = None
    with report.history(
        root, from_glob=options.from_glob, progress=_progress("reading exports")
    ) as conn:
        if fmt is OutFormat.html:
            doc = report.dashboard(conn, filters, first=name, source=source, where=where)
            assert options.out is not None
            _write_text(options.out, html_report.render(doc))
            typer.echo(f"wrote {options.out}", err=True)
            return
        if name == "summary" and fmt is OutFormat.text:
            found = report.attention_items(conn, filters, where)
        frame = report.run_report(conn, name, filters, where)
    _emit(frame, fmt, options.out, name=name, filters=filters, source=source, attention=found)


def _emit(
    frame: report.Frame,
    fmt: OutFormat,
    out: Path | None,
    *,
    name: str,
    filters: report.Filters | None,
    source: str,
    attention: list[Any] | None = None,
) -> None:
    from agentstyle.audit import attention as attention_text
    from agentstyle.audit import report

    if fmt is OutFormat.parquet:
        assert out is not None
        report.write_parquet(frame, out)
        typer.echo(f"wrote {out} ({frame.height} rows)", err=True)
        return
    with _output(out) as stream:
        if fmt is OutFormat.json:
            report.write_json(report.json_document(name, frame, filters, source), stream)
        elif fmt is OutFormat.csv:
            report.write_csv(frame, stream)
        else:
            color = out is None and sys.stdout.isatty()
            if attention is not None and filters is not None:
                stream.write(attention_text.render_text(attention, filters.min_events, color=color))
                stream.write("\n")
            title = report.title_of(name, filters, source) if filters is not None else None
            stream.write(report.render_text(frame, title=title, color=color))
            note = report.footnote(name, filters) if filters is not None else None
            if note:
                stream.write(note + "\n")


@contextmanager
def _output(out: Path | None) -> Iterator[TextIO]:
    if out is None:
        yield sys.stdout
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="") as stream:
        yield stream


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


class _Bar:
    """A progress bar on stderr, drawn only when stderr is a terminal (cli.md)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.bar: Any = None
        self.done = 0

    def __call__(self, done: int, total: int, step: str) -> None:
        if self.bar is None:
            self.bar = typer.progressbar(length=total, label=self.label, file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.done)
        self.done = done
        if done >= total:
            self.bar.__exit__(None, None, None)


def _progress(label: str) -> Progress | None:
    return _Bar(label) if sys.stderr.isatty() else None


# -- sql -------------------------------------------------------------------------------------------


@app.command("sql")
def sql_command(
    query: Annotated[str, typer.Argument(help="one read-only query over the tables")],
    fmt: Annotated[
        OutFormat, typer.Option("--format", help="text | json | csv | parquet")
    ] = OutFormat.text,
    out: OutOpt = None,
    from_glob: FromOpt = None,
) -> None:
    """Run one read-only query (a select) over the tables; anything that writes is refused."""
    from agentstyle.audit import report

    if fmt is OutFormat.html:
        raise typer.BadParameter("html is for reports; use text, json, csv or parquet")
    _check_out(fmt, out)
    with report.history(
        project_root(), from_glob=from_glob, progress=_progress("reading exports")
    ) as conn:
        report.lock_down(conn)
        try:
            frame = report.run_select(conn, query)
        except StyleError as exc:  # refused, or the query's own error: one line, exit 1
            raise fail(str(exc)) from None
    _emit(frame, fmt, out, name="sql", filters=None, source=from_glob or "database")


# -- prune -----------------------------------------------------------------------------------------


@app.command("prune")
def prune_command(
    older_than: Annotated[
        str,
        typer.Option("--older-than", help="delete history older than this (30d, or a date)"),
    ],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="count only; delete nothing")] = False,
    fmt: Annotated[OutFormat, typer.Option("--format", help="text | json")] = OutFormat.text,
) -> None:
    """Delete old history (events with their fields, hits and claims) in one transaction."""
    from agentstyle.audit import export, report

    if fmt not in (OutFormat.text, OutFormat.json):
        raise typer.BadParameter("prune reports as text or json", param_hint="--format")
    cutoff = _when(older_than, "--older-than", report.utc_now(), end=False)
    with report.project_history(project_root(), write=True) as conn:
        result = export.prune_history(conn, cutoff, dry_run=dry_run)
    if fmt is OutFormat.json:
        emit_json(
            {
                "cutoff": result.cutoff.isoformat(),
                "dry_run": result.dry_run,
                "deleted": result.deleted,
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


# -- export ----------------------------------------------------------------------------------------


@app.command("export")
def export_command(
    out: Annotated[Path, typer.Option("--out", help="folder for the date=YYYY-MM-DD/ partitions")],
    since: SinceOpt = None,
    until: UntilOpt = None,
    machine: Annotated[
        str | None, typer.Option("--machine", help="machine column (default: user@host)")
    ] = None,
    fmt: Annotated[OutFormat, typer.Option("--format", help="text | json")] = OutFormat.text,
) -> None:
    """Write the history as Parquet, partitioned by day, with a machine column."""
    from agentstyle.audit import export, report

    if fmt not in (OutFormat.text, OutFormat.json):
        raise typer.BadParameter("export reports as text or json", param_hint="--format")
    filters = filters_of(Options(since=since, until=until))
    with report.project_history(project_root()) as conn:
        result = export.export_history(
            conn,
            out,
            machine=machine,
            since=filters.since,
            until=filters.until,
            progress=_progress("exporting"),
        )
    if fmt is OutFormat.json:
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
