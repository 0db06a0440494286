"""Audit reports: the `sql/audit` queries run into polars frames, and the frames rendered."""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TextIO

import polars as pl

from agentstyle.audit import attention
from agentstyle.audit.cells import scalar_text
from agentstyle.audit.export import Progress, load_exports
from agentstyle.audit.rows import (
    ConfigChangeRow,
    RuleSourceRow,
    SessionFolderRow,
    WindowIdsRow,
    WindowRow,
)
from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.paths import StylePaths
from agentstyle.evaluator.statements import read_row, read_rows
from agentstyle.evaluator.store import (
    Connection,
    DatabaseError,
    query_rows,
    sql,
    statement_kinds,
)
from agentstyle.install.enginefree import LOCK_WAIT_S, engine_free_store

Frame = pl.DataFrame
REPORTS = (
    "summary",
    "attention",
    "rules",
    "errors",
    "tools",
    "refusals",
    "sessions",
    "timeline",
)
BUCKETS = ("day", "hour")
FLAGS = ("erroring", "looping", "noisy", "broad", "dead")
# The sample a flag needs by default: a rate over fewer candidate events says little (and a
# young history would flag everything); `dead` needs five times as many at its point.
MIN_EVENTS = 20

# -- filters -------------------------------------------------------------------------------------

_DURATION = re.compile(r"^(\d+)\s*([smhdw])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def utc_now() -> dt.datetime:
    """Now as the history stores time: naive UTC."""
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def parse_time(text: str, *, now: dt.datetime | None = None, end: bool = False) -> dt.datetime:
    """A point in time, as the history stores it (naive UTC).

    `7d`, `12h`, `30m`, `2w`, `90s`: that long before now. `YYYY-MM-DD`: the start of that UTC
    day, or with `end` the start of the next (so `--until 2024-05-01` includes that day). An ISO
    date-time: that instant (UTC unless it carries an offset). ValueError otherwise.
    """
    value = text.strip()
    m = _DURATION.match(value)
    if m:
        return (now or utc_now()) - dt.timedelta(seconds=int(m.group(1)) * _UNITS[m.group(2)])
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        day = dt.datetime.combine(dt.date.fromisoformat(value), dt.time())
        return day + dt.timedelta(days=1) if end else day
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"`{text}` is neither a date (2024-05-01), a date-time nor a duration (7d, 12h)"
        ) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    return moment


@dataclass(frozen=True, slots=True)
class Filters:
    """The window and subject of a report (`--since/--until/--rule/--session/--harness`)."""

    since: dt.datetime | None = None
    until: dt.datetime | None = None
    rule: str | None = None  # a rule id or a glob over ids (`pkg/*`)
    session: str | None = None
    harness: str | None = None
    bucket: str = "day"
    min_events: int = MIN_EVENTS  # the sample a flag needs (`--min-events`)

    def params(self) -> dict[str, Any]:
        """The statements' `$parameters`: one per field, of the same name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def describe(self) -> dict[str, Any]:
        return {k: plain(v) for k, v in self.params().items()}


# -- where the history comes from ------------------------------------------------------------------


@contextmanager
def project_history(
    root: Path, *, write: bool = False, wait_s: float = LOCK_WAIT_S
) -> Iterator[Connection]:
    """The project's database under the OS lock, read-only unless `write` (prune).

    A running engine is asked to stop before each try: a hook may start a new one between
    our request and our lock, so the lock is tried in short rounds until `wait_s` passes.
    """
    paths = StylePaths(root)
    if not paths.database.exists():
        raise StyleError(f"no rules database at {paths.database}; run `style install` first")
    with engine_free_store(paths, create=False, wait_s=wait_s, read_only=not write) as conn:
        yield conn


@contextmanager
def history(
    root: Path,
    *,
    from_glob: str | None = None,
    machine: str | None = None,
    window: Filters | None = None,
    progress: Progress | None = None,
) -> Iterator[Connection]:
    """The history to report on: the project's database, or Parquet exports (`--from`, only
    `machine`'s when given, only the days of the `window`'s time span when given)."""
    if from_glob is None:
        with project_history(root) as conn:
            yield conn
        return
    since, until = (window.since, window.until) if window is not None else (None, None)
    conn = load_exports(from_glob, machine=machine, since=since, until=until, progress=progress)
    try:
        yield conn
    finally:
        conn.close()


# -- frames ----------------------------------------------------------------------------------------

_DTYPES: dict[str, Any] = {
    "BOOLEAN": pl.Boolean,
    "TINYINT": pl.Int8,
    "SMALLINT": pl.Int16,
    "INTEGER": pl.Int32,
    "BIGINT": pl.Int64,
    "HUGEINT": pl.Int64,
    "UTINYINT": pl.UInt8,
    "USMALLINT": pl.UInt16,
    "UINTEGER": pl.UInt32,
    "UBIGINT": pl.UInt64,
    "FLOAT": pl.Float32,
    "DOUBLE": pl.Float64,
    "VARCHAR": pl.String,
    "DATE": pl.Date,
    "TIME": pl.Time,
    "TIMESTAMP": pl.Datetime("us"),
    "TIMESTAMP WITH TIME ZONE": pl.Datetime("us", "UTC"),
    "INTERVAL": pl.Duration("us"),
    "BLOB": pl.Binary,
    "UUID": pl.String,
}


def _series(name: str, type_name: str, values: list[Any]) -> pl.Series:
    if type_name.startswith("DECIMAL"):
        return pl.Series(name, [None if v is None else float(v) for v in values], pl.Float64)
    if type_name == "UUID":
        values = [None if v is None else str(v) for v in values]
    dtype = _DTYPES.get(type_name)
    try:
        return pl.Series(name, values, dtype=dtype, strict=False)
    except Exception:  # a type polars cannot hold as is (unions, maps…): keep it readable
        return pl.Series(name, [None if v is None else str(v) for v in values], pl.String)


def frame_of(names: Sequence[str], types: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> Frame:
    """A polars frame from DuckDB rows, typed from DuckDB's column types (no pyarrow needed)."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return pl.DataFrame(
        [_series(n, t, list(col)) for n, t, col in zip(_unique(names), types, columns, strict=True)]
    )


def _unique(names: Sequence[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for name in names:
        n = seen.get(name, 0)
        seen[name] = n + 1
        out.append(name if n == 0 else f"{name}_{n}")
    return out


def query_frame(conn: Connection, query: str, params: dict[str, Any] | None = None) -> Frame:
    return frame_of(*query_rows(conn, query, params))


@dataclass(frozen=True, slots=True)
class Where:
    """Where the history lives beside its database: the hook's error log (none for exports) and
    the project folder (suggested commands name package folders relative to it)."""

    error_log: Path | None = None
    root: Path | None = None

    @classmethod
    def project(cls, root: Path) -> Where:
        return cls(StylePaths(root).error_log, root)


def define_window(conn: Connection) -> None:
    """The window's table macros (`window_events`, `report_events`, `window_hits`) on this
    connection: the one definition of a report's window that every `sql/audit` report reads.
    Temporary, so a read-only history takes them too."""
    conn.execute(sql("audit/window_macros"))


def window_params(conn: Connection, filters: Filters) -> dict[str, Any]:
    """The filters as a report's parameters, with the first and last event id of the window
    (`$first_id`, `$last_id`): every event of the window has an id in that range, and the
    reports read `hits` and `event_fields` in it only. Events are appended in time order, so
    the range is about the window's size and the zone maps skip the rest: a report's cost
    follows the window asked for, not the whole history
    (docs/performance.md#a-history-that-stays-fast).
    """
    define_window(conn)
    params = filters.params()
    ids = read_row(conn, "audit/window_ids", WindowIdsRow, params)
    params["first_id"] = ids.first_id if ids is not None else None
    params["last_id"] = ids.last_id if ids is not None else None
    return params


def run_report(conn: Connection, name: str, filters: Filters, where: Where | None = None) -> Frame:
    """One report of docs/audit.md#reports as a frame (`summary`, `attention`, `rules`, `errors`,
    …)."""
    if name not in REPORTS:
        raise StyleError(f"unknown report `{name}` (reports: {', '.join(REPORTS)})")
    where = where or Where()
    if name == "attention":
        return attention_frame(attention_items(conn, filters, where))
    params = window_params(conn, filters)
    if name == "errors":
        params["log"] = read_error_log(where.error_log)
    return query_frame(conn, sql(f"audit/{name}"), params)


def attention_items(
    conn: Connection,
    filters: Filters,
    where: Where,
    *,
    rules: Frame | None = None,
    errors: Frame | None = None,
) -> list[attention.Item]:
    """The "needs attention" list: flagged rules and fail-open causes, worst first (from the
    `rules` and `errors` reports, run here unless given)."""
    params = window_params(conn, filters)
    if rules is None:
        rules = query_frame(conn, sql("audit/rules"), params)
    if errors is None:
        log = read_error_log(where.error_log)
        errors = query_frame(conn, sql("audit/errors"), {**params, "log": log})
    changes = (
        read_rows(conn, "audit/config_changes", ConfigChangeRow, _window_only(params))
        if filters.rule is None
        else []
    )
    sources = read_rows(conn, "audit/rule_sources", RuleSourceRow)
    folders = read_rows(conn, "audit/session_folders", SessionFolderRow, params)
    ctx = attention.Context(
        sources={str(r.rule_id): str(r.source) for r in sources if r.source},
        folders={str(f.harness): str(f.cwd) for f in folders},
        errors=_top_errors(records(errors)),
        min_events=filters.min_events,
        root=where.root,
    )
    return attention.items(records(rules), records(errors), ctx, changes)


def _window_only(params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of a statement over the window alone (no `$rule`, bucket or sample)."""
    keys = ("since", "until", "session", "harness", "first_id", "last_id")
    return {k: params[k] for k in keys}


def refusals_note(conn: Connection, filters: Filters) -> str | None:
    """The line under the summary that says how many calls the client refused itself, beside
    STYLE's refusals (the `refusals` report; docs/audit.md#the-clients-own-refusals)."""
    rows = records(run_report(conn, "refusals", filters))
    client = [r for r in rows if r["refused_by"] == "client"]
    if not client:
        return None
    n = sum(int(r["refusals"]) for r in client)
    ours = sum(int(r["refusals"]) for r in rows if r["refused_by"] == "style")
    shown = "; ".join(
        f"{r['native_tool'] or r['tool'] or 'a call'} {r['refusals']}x: {r['why']}"
        for r in client[:3]
    )
    more = f"; and {len(client) - 3} more" if len(client) > 3 else ""
    calls = "call" if n == 1 else "calls"
    return (
        f"refused by the client itself: {n} {calls} ({shown}{more}); by STYLE's rules: {ours}"
        " (style audit refusals)"
    )


def _top_errors(errors: list[dict[str, Any]]) -> dict[str, tuple[str, int]]:
    """Each erroring rule's most frequent error (the rows come most failures first)."""
    top: dict[str, tuple[str, int]] = {}
    for row in errors:
        if row["rule"] is not None and row["rule"] not in top:
            top[row["rule"]] = (str(row["cause"]), int(row["failures"]))
    return top


def attention_frame(found: list[attention.Item]) -> Frame:
    return pl.DataFrame(
        {c: [getattr(i, c) for i in found] for c in attention.COLUMNS},
        schema=dict.fromkeys(attention.COLUMNS, pl.String),
    )


def read_error_log(path: Path | None) -> list[dict[str, Any]]:
    """The hook's errors.log as rows (the format is runtime/errorlog.py's: time, harness,
    event, outcome, cause; older lines have no outcome); a line that does not parse (cut short,
    written by hand) is left out."""
    from agentstyle.runtime import errorlog

    if path is None:
        return []
    try:
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return []
    out = []
    for line in text.splitlines():
        entry = errorlog.parse(line)
        if entry is None:
            continue
        out.append(
            {
                "ts": dt.datetime.fromtimestamp(entry.when, dt.UTC).replace(tzinfo=None),
                "harness": entry.harness,
                "native_event": entry.event,
                "outcome": entry.outcome,
                "cause": entry.cause.strip(),
            }
        )
    return out


def latency_frame(conn: Connection, filters: Filters) -> Frame:
    """The latency histogram (power-of-two µs buckets) of the window's answered events."""
    return query_frame(conn, sql("audit/latency"), window_params(conn, filters))


class QueryRefused(StyleError):
    """`style audit sql` was given something other than one read-only query."""


def run_select(conn: Connection, query: str) -> Frame:
    """One read-only query over the tables; anything that could write is refused."""
    try:
        kinds = statement_kinds(conn, query)
    except DatabaseError as exc:
        raise QueryRefused(f"cannot parse the query: {_first_line(exc)}") from None
    if not kinds:
        raise QueryRefused("no statement given")
    if len(kinds) > 1:
        raise QueryRefused(f"refused: one statement at a time ({len(kinds)} given)")
    if kinds[0].lower() != "select":
        raise QueryRefused(f"refused: a {kinds[0]} statement; `audit sql` runs read-only queries")
    try:
        return query_frame(conn, query)
    except DatabaseError as exc:
        raise StyleError(_first_line(exc)) from None


def lock_down(conn: Connection) -> None:
    """No file or network access for what runs next on `conn` (user SQL)."""
    conn.execute(sql("audit/lockdown"))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# -- values ----------------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """A JSON-ready value: times in ISO 8601, decimals as floats, nested values recursively."""
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, pl.Series):
        return [plain(v) for v in value.to_list()]
    return value


def records(frame: Frame) -> list[dict[str, Any]]:
    return [{k: plain(v) for k, v in row.items()} for row in frame.iter_rows(named=True)]


def json_document(name: str, frame: Frame, filters: Filters | None, source: str) -> dict[str, Any]:
    """The one JSON document of a report: the same keys every time, rows as objects."""
    return {
        "report": name,
        "source": source,
        "filters": filters.describe() if filters is not None else None,
        "columns": list(frame.columns),
        "rows": records(frame),
    }


def write_json(document: dict[str, Any], out: TextIO) -> None:
    out.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def write_csv(frame: Frame, out: TextIO) -> None:
    """RFC 4180 CSV: empty cell for null, ISO times, nested values as JSON."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(frame.columns)
    for row in frame.iter_rows():
        writer.writerow([_csv_cell(v) for v in row])


def _csv_cell(value: Any) -> Any:
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def write_parquet(frame: Frame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.write_parquet(path)


# -- text ------------------------------------------------------------------------------------------

_BOLD, _RED, _YELLOW, _RESET = "\x1b[1m", "\x1b[31m", "\x1b[33m", "\x1b[0m"


def _text_cell(column: str, value: Any, date_only: bool) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool | float):
        return scalar_text(column, value)
    if isinstance(value, dt.datetime):
        if date_only:
            return value.date().isoformat()
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, list | dict | tuple | pl.Series):
        return json.dumps(plain(value), ensure_ascii=False)
    return str(value)


def _paint(column: str, cell: str) -> str:
    if column == "flag" and cell != "-":
        return (_RED if "erroring" in cell else _YELLOW) + cell + _RESET
    return cell


# The `rules` report's columns of a check rule's results (docs/audit.md#checks).
CHECK_COLUMNS = ("checks_run", "checks_spoke", "checks_timed_out", "checks_crashed")


def shown_in_text(name: str, frame: Frame) -> Frame:
    """The columns a table for the eye shows (text, the html page): the `rules` report's
    exception columns only where a policy has exceptions (docs/packages.md#exceptions), its
    checks' columns only where a check ran (docs/audit.md#checks); json, csv and parquet keep
    every column."""
    if name != "rules" or "exceptions" not in frame.columns:
        return frame
    dropped: list[str] = []
    if not frame["exceptions"].null_count() < frame.height and not frame["excepted"].sum():
        dropped += ["excepted", "exceptions"]
    if all(c in frame.columns for c in CHECK_COLUMNS) and not frame["checks_run"].sum():
        dropped += list(CHECK_COLUMNS)
    return frame.drop(*dropped) if dropped else frame


def render_text(frame: Frame, *, title: str | None = None, color: bool = False) -> str:
    """An aligned table (numbers to the right), headed by `title`; ANSI colour when asked."""
    columns = list(frame.columns)
    numeric = [frame.schema[c].is_numeric() for c in columns]
    date_only = [
        frame.schema[c] == pl.Datetime
        and all(
            v is None or (isinstance(v, dt.datetime) and v.time() == dt.time())
            for v in frame[c].to_list()
        )
        for c in columns
    ]
    header = [c.upper().replace("_", " ") for c in columns]
    body = [
        [_text_cell(c, v, d) for c, v, d in zip(columns, row, date_only, strict=True)]
        for row in frame.iter_rows()
    ]
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(header)]
    lines: list[str] = []
    if title:
        lines.append(_BOLD + title + _RESET if color else title)
    if not columns:
        lines.append("(no columns)")
        return "\n".join(lines) + "\n"

    def line(cells: list[str], paint: bool) -> str:
        out = []
        for i, cell in enumerate(cells):
            padded = cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i])
            if paint and color and cell:
                padded = padded.replace(cell, _paint(columns[i], cell), 1)
            out.append(padded)
        return "  ".join(out).rstrip()

    head = line(header, paint=False)
    lines.append(_BOLD + head + _RESET if color else head)
    lines.extend(line(row, paint=True) for row in body)
    if not body:
        lines.append("(no rows)")
    return "\n".join(lines) + "\n"


def title_of(name: str, filters: Filters, source: str) -> str:
    parts = []
    if filters.since is not None:
        parts.append(f"since {filters.since:%Y-%m-%d %H:%M:%S}")
    if filters.until is not None:
        parts.append(f"until {filters.until:%Y-%m-%d %H:%M:%S}")
    for key in ("rule", "session", "harness"):
        value = getattr(filters, key)
        if value is not None:
            parts.append(f"{key} {value}")
    if name == "timeline":
        parts.append(f"per {filters.bucket}")
    if source != "database":
        parts.append(f"from {source}")
    return f"audit {name}" + (f" ({', '.join(parts)})" if parts else "")


def footnote(name: str, filters: Filters) -> str | None:
    """The line under a table that says what its flags need (`rules`, `attention`)."""
    if name in ("rules", "attention"):
        return attention.threshold_note(filters.min_events)
    return None


# -- the html dashboard ----------------------------------------------------------------------------


def dashboard(
    conn: Connection,
    filters: Filters,
    *,
    first: str = "summary",
    source: str = "database",
    where: Where | None = None,
) -> dict[str, Any]:
    """Everything the HTML page shows, as plain data: what needs attention, every report, the
    charts' series, the window the history covers."""
    where = where or Where()
    tabled = [r for r in REPORTS if r != "attention"]
    order = ([first] if first in tabled else []) + [r for r in tabled if r != first]
    frames = {name: run_report(conn, name, filters, where) for name in order}
    found = attention_items(conn, filters, where, rules=frames["rules"], errors=frames["errors"])
    rules = frames["rules"]
    latency = latency_frame(conn, filters)
    [window] = read_rows(conn, "audit/window", WindowRow, window_params(conn, filters))
    first_ts, last_ts, events = window.first_ts, window.last_ts, window.events
    p50, p95 = window.latency_p50_us, window.latency_p95_us
    return {
        "report": first,
        "title": title_of(first, filters, source),
        "generated": utc_now().replace(microsecond=0).isoformat() + "Z",
        "filters": filters.describe(),
        "source": source,
        "window": {"first": plain(first_ts), "last": plain(last_ts), "events": int(events or 0)},
        "attention": {
            "items": [{c: getattr(i, c) for c in attention.COLUMNS} for i in found],
            "shown": attention.SHOWN,
            "note": attention.threshold_note(filters.min_events),
        },
        "tables": [
            {"name": name, "columns": list(shown.columns), "rows": records(shown)}
            for name in order
            for shown in [shown_in_text(name, frames[name])]
        ],
        "charts": {
            "rules": [
                {
                    "rule": r["rule"],
                    "hits": r["fired"],
                    "blocks": r["blocked"],
                    "asks": r["asked"],
                }
                for r in records(rules)
                if r["fired"] or r["blocked"] or r["asked"]
            ],
            "block_rate": [
                {
                    "bucket": r["bucket"],
                    "events": r["events"],
                    "blocks": r["blocks"],
                    "asks": r["asks"],
                    "block_rate": r["block_rate"],
                    "ask_rate": r["ask_rate"],
                }
                for r in records(frames["timeline"])
            ],
            "bucket": filters.bucket,
            "latency": [
                {"low_us": r["low_us"], "high_us": r["high_us"], "events": r["events"]}
                for r in records(latency)
            ],
            "latency_p50_us": None if p50 is None else float(p50),
            "latency_p95_us": None if p95 is None else float(p95),
        },
    }
