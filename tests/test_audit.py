"""`style audit` over a known history: every report, flag, filter and format, hand-checked.

The policy is real: tests/data/audit/pkg is installed with `style install`. The history is
written row by row into the project's database (`build_history`), so every number below can be
checked by hand against it. Rendered text tables are golden files in tests/data/audit/golden
(`STYLE_UPDATE_GOLDEN=1 pytest tests/test_audit.py` rewrites them).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from agentstyle.audit import report
from agentstyle.cli import audit as audit_cli
from tests.support.cli import Run
from tests.support.history import (
    CC,
    DATA,
    DAY1,
    DAY2,
    DAY3,
    audited_project,
)
from tests.support.project import Project

GOLDEN = DATA / "golden"
UPDATE = os.environ.get("STYLE_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return audited_project(tmp_path_factory.mktemp("audit"))


@pytest.fixture
def scratch(audited: Project, tmp_path: Path) -> Project:
    """A copy of the audited project that a test may change."""
    copy = Project(tmp_path / "acme", tmp_path / "home")
    shutil.copytree(audited.root, copy.root, dirs_exist_ok=True)
    return copy


# -- running the command -------------------------------------------------------------------------


def style(project: Project, *args: str) -> Run:
    """`style ARGS` in-process (`style_in_process`) from the project folder."""
    done = project.cli(*args)
    return Run(tuple(args), done.returncode, done.stdout, done.stderr)


def style_process(project: Project, *args: str) -> Run:
    """`python -m agentstyle ARGS` as a user runs it (exit codes and stderr of `main`)."""
    done = project.process(*args)
    return Run(tuple(args), done.returncode, done.stdout, done.stderr)


def rows(project: Project, *args: str) -> list[dict[str, Any]]:
    run = style(project, "audit", *args, "--format", "json")
    assert run.code == 0, run.stderr
    doc = run.json
    assert list(doc) == ["report", "source", "filters", "columns", "rows"]
    return list(doc["rows"])


def golden(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text("utf-8"), f"{path} differs (STYLE_UPDATE_GOLDEN=1 rewrites it)"


# -- the reports, hand-checked ---------------------------------------------------------------------

SUMMARY_COLUMNS = [
    "harness",
    "point",
    "events",
    "events_hit",
    "blocked",
    "asked",
    "block_rate",
    "errors",
    "latency_p50_ms",
    "latency_p95_ms",
]


def summary_row(
    harness: str,
    point: str,
    events: int,
    hit: int = 0,
    blocked: int = 0,
    asked: int = 0,
    rate: float = 0.0,
    errors: int = 0,
    p50: float = 2.0,
    p95: float = 2.0,
) -> dict[str, Any]:
    values = [harness, point, events, hit, blocked, asked, rate, errors, p50, p95]
    return dict(zip(SUMMARY_COLUMNS, values, strict=True))


def test_summary(audited: Project) -> None:
    assert rows(audited) == [
        # 10 prompts: 2 with a hit; latencies 1..10 ms: p50 5.5, p95 9 + 0.55 × 1 = 9.55
        summary_row(CC, "prompt.submitted", 10, hit=2, p50=5.5, p95=9.55),
        summary_row(CC, "session.start", 2, hit=2),
        summary_row(CC, "tool.failed", 1),
        summary_row(CC, "tool.post", 2),
        # 120 + 5 + 4 on day 1, 20 + 1 handler error on day 2; hits 10 + 30 + 4 + 5
        summary_row(CC, "tool.pre", 150, hit=49, blocked=15, asked=30, rate=0.1, errors=1),
        summary_row("codex", "prompt.submitted", 4, p50=0.5, p95=0.5),
    ]
    assert rows(audited, "summary") == rows(audited)


RULE_COLUMNS = [
    "rule",
    "action",
    "layer",
    "candidates",
    "fired",
    "emitted",
    "blocked",
    "asked",
    "fixed",
    "dedup_suppressed",
    "loop_guarded",
    "budget_cuts",
    "errors",
    "checks_run",
    "checks_spoke",
    "checks_timed_out",
    "checks_crashed",
    "excepted",
    "exceptions",
    "hit_rate",
    "block_rate",
    "tokens_emitted",
    "last_fired",
    "flag",
]


def rule_row(
    rule: str, action: str | None, candidates: int, fired: int, **kw: Any
) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(RULE_COLUMNS, 0)
    row.update(rule=rule, action=action, candidates=candidates, fired=fired, last_fired=None)
    row.update(layer="project" if action is not None else None)  # a rule no longer installed: none
    row.update(exceptions=None)
    row.update(flag=None, hit_rate=round(fired / candidates, 4), block_rate=0.0)
    row.update(kw)
    return row


def at(start: dt.datetime, seconds: int) -> str:
    return (start + dt.timedelta(seconds=seconds)).isoformat()


def test_rules_report_counts_rates_and_flags(audited: Project) -> None:
    got = rows(audited, "rules")
    assert [r["rule"] for r in got] == [
        "audit/no-rm",
        "audit/push-ask",
        "audit/brief",
        "audit/edit-note",
        "audit/flaky",
        "audit/quiet",
        "old/gone",
    ]
    assert list(got[0]) == RULE_COLUMNS
    want = [
        # 140 shell calls at tool.pre; fired on 15 (10 + 5), last on day 2 at 14:00:05
        rule_row(
            "audit/no-rm",
            "block",
            140,
            15,
            blocked=15,
            block_rate=0.1071,
            last_fired=at(DAY2, 5),
        ),
        # an ask on 30 of 140 (21.4% > 20%): noisy; the last at day 1 10:00:50
        rule_row("audit/push-ask", "ask", 140, 30, asked=30, last_fired=at(DAY1, 50), flag="noisy"),
        # fires on both session starts, as a project brief should: no flag; 20 + 15 tokens
        rule_row(
            "audit/brief",
            "inject",
            2,
            2,
            emitted=2,
            budget_cuts=1,
            tokens_emitted=35,
            last_fired=DAY2.isoformat(),
        ),
        # never fired while tool.pre saw 150 events
        rule_row("audit/edit-note", "warn", 5, 0, flag="dead"),
        # fires on all 4 writes: 2 errors, 1 emitted (10 tokens), 1 dropped by the budget;
        # 4 candidates are too few for a rate flag, errors need no sample
        rule_row(
            "audit/flaky",
            "inject",
            4,
            4,
            emitted=1,
            budget_cuts=1,
            errors=2,
            tokens_emitted=10,
            last_fired=at(DAY1, 139),
            flag="erroring",
        ),
        # 2 of 10 prompts is exactly 20%: not noisy
        rule_row(
            "audit/quiet",
            "warn",
            10,
            2,
            emitted=1,
            dedup_suppressed=1,
            tokens_emitted=5,
            last_fired=at(DAY1, 7),
        ),
        # no longer installed: its candidates are the events it fired on; no flag but erroring
        rule_row("old/gone", None, 1, 1, emitted=1, tokens_emitted=7, last_fired=at(DAY1, 3)),
    ]
    assert got == want


def test_min_events_is_the_sample_a_flag_needs(audited: Project) -> None:
    def flags(*args: str) -> dict[str, Any]:
        return {r["rule"]: r["flag"] for r in rows(audited, "rules", *args)}

    want = {
        "audit/no-rm": None,
        "audit/push-ask": "noisy",
        "audit/brief": None,  # a project brief: unconditional at session start, never noise
        "audit/edit-note": "dead",
        "audit/flaky": "erroring,noisy",  # an inject on every write; unconditional: not broad
        "audit/quiet": None,  # 2 of 10 is 20%, not more
        "old/gone": None,
    }
    assert flags("--min-events", "4") == want
    assert flags("--min-events", "1") == want
    # five candidate events are too few at 5 for flaky; dead needs 5 × 31 = 155 > 150 at tool.pre
    assert flags("--min-events", "5")["audit/flaky"] == "erroring"
    assert flags("--min-events", "31")["audit/edit-note"] is None
    doc = style(audited, "audit", "rules", "--min-events", "4", "--format", "json").json
    assert doc["filters"]["min_events"] == 4


def test_errors_report_holds_hook_failures_and_rule_errors(audited: Project) -> None:
    got = rows(audited, "errors")
    assert [(r["rule"], r["cause"], r["failures"], r["fail_open"]) for r in got] == [
        ("audit/flaky", "template error: `x` is undefined", 2, 2),
        (None, "the rules database stayed locked past the deadline", 1, 1),
    ]
    flaky = rows(audited, "errors", "--rule", "audit/flaky")
    assert [(r["rule"], r["native_events"]) for r in flaky] == [("audit/flaky", "PreToolUse")]
    assert rows(audited, "errors", "--until", "2024-05-01", "--rule", "x/*") == []


def test_tools_report(audited: Project) -> None:
    assert rows(audited, "tools") == [
        # 120 + 20 calls (the day-2 post and failure events share their call ids)
        {
            "tool": "shell",
            "calls": 140,
            "blocked": 15,
            "asked": 30,
            "failed": 1,
            "block_rate": 0.1071,
            "top_blocking_rule": "audit/no-rm",
        },
        {
            "tool": "file.edit",
            "calls": 5,
            "blocked": 0,
            "asked": 0,
            "failed": 0,
            "block_rate": 0.0,
            "top_blocking_rule": None,
        },
        {
            "tool": "file.write",
            "calls": 4,
            "blocked": 0,
            "asked": 0,
            "failed": 0,
            "block_rate": 0.0,
            "top_blocking_rule": None,
        },
    ]


def test_sessions_report(audited: Project) -> None:
    assert rows(audited, "sessions") == [
        {
            "harness": CC,
            "session": "s1",
            "model": "claude-sonnet-4-5",
            "events": 140,
            "prompts": 10,
            "hits": 48,  # brief 1, quiet 2, old/gone 1, no-rm 10, push-ask 30, flaky 4
            "blocks": 10,
            "first_seen": DAY1.isoformat(),
            "last_seen": at(DAY1, 139),
        },
        {
            "harness": CC,
            "session": "s2",
            "model": "claude-opus-4",
            "events": 25,
            "prompts": 0,
            "hits": 6,
            "blocks": 5,
            "first_seen": DAY2.isoformat(),
            "last_seen": at(DAY2, 24),
        },
        {
            "harness": "codex",
            "session": "s3",
            "model": "gpt-5",
            "events": 4,
            "prompts": 4,
            "hits": 0,
            "blocks": 0,
            "first_seen": DAY3.isoformat(),
            "last_seen": at(DAY3, 3),
        },
    ]


def test_timeline_by_day_and_hour(audited: Project) -> None:
    assert rows(audited, "timeline") == [
        {
            "bucket": "2024-05-01T00:00:00",
            "events": 140,
            "hits": 48,
            "blocks": 10,
            "asks": 30,
            "block_rate": 0.0714,
            "ask_rate": 0.2143,
        },
        {
            "bucket": "2024-05-02T00:00:00",
            "events": 25,
            "hits": 6,
            "blocks": 5,
            "asks": 0,
            "block_rate": 0.2,
            "ask_rate": 0.0,
        },
        {
            "bucket": "2024-05-03T00:00:00",
            "events": 4,
            "hits": 0,
            "blocks": 0,
            "asks": 0,
            "block_rate": 0.0,
            "ask_rate": 0.0,
        },
    ]
    hourly = rows(audited, "timeline", "--bucket", "hour")
    # 2024-05-01 10:00 … 2024-05-03 09:00: 48 hours, the empty ones included
    assert len(hourly) == 48
    busy = {r["bucket"]: r["events"] for r in hourly if r["events"]}
    assert busy == {"2024-05-01T10:00:00": 140, "2024-05-02T14:00:00": 25, "2024-05-03T09:00:00": 4}
    assert all(r["block_rate"] is None and r["ask_rate"] is None for r in hourly if not r["events"])


@pytest.mark.parametrize("name", report.REPORTS)
def test_text_tables_are_golden(audited: Project, name: str) -> None:
    run = style(audited, "audit", name)
    assert run.code == 0, run.stderr
    assert "\x1b[" not in run.stdout  # no colour when stdout is not a terminal
    golden(name, run.stdout)


def test_text_colour_only_on_a_terminal(audited: Project) -> None:
    with report.history(audited.root) as conn:
        frame = report.run_report(conn, "rules", report.Filters())
    plain = report.render_text(frame, title="audit rules")
    painted = report.render_text(frame, title="audit rules", color=True)
    assert "\x1b[" not in plain
    assert "\x1b[33mnoisy\x1b[0m" in painted and "\x1b[31merroring\x1b[0m" in painted
    strip = painted
    for code in ("\x1b[1m", "\x1b[31m", "\x1b[33m", "\x1b[0m"):
        strip = strip.replace(code, "")
    assert strip == plain  # colour never moves a column


def test_every_report_has_a_command_and_help() -> None:
    assert tuple(audit_cli.REPORT_HELP) == report.REPORTS


# -- filters ---------------------------------------------------------------------------------------


def test_since_until_dates(audited: Project) -> None:
    since = rows(audited, "summary", "--since", "2024-05-02")
    assert [(r["harness"], r["point"], r["events"]) for r in since] == [
        (CC, "session.start", 1),
        (CC, "tool.failed", 1),
        (CC, "tool.post", 2),
        (CC, "tool.pre", 21),
        ("codex", "prompt.submitted", 4),
    ]
    pre = since[3]
    assert (pre["events_hit"], pre["blocked"], pre["errors"], pre["block_rate"]) == (
        5,
        5,
        1,
        round(5 / 21, 4),
    )
    # --until DATE includes that day
    day1 = rows(audited, "timeline", "--until", "2024-05-01")
    assert [(r["bucket"], r["events"]) for r in day1] == [("2024-05-01T00:00:00", 140)]
    window = rows(audited, "sessions", "--since", "2024-05-01T10:00:30", "--until", "2024-05-01")
    assert [(r["session"], r["events"], r["first_seen"]) for r in window] == [
        ("s1", 110, at(DAY1, 30))
    ]


def test_since_duration_is_relative_to_now(audited: Project) -> None:
    assert rows(audited, "summary", "--since", "7d") == []
    run = style(audited, "audit", "--since", "7d")
    assert run.code == 0
    lines = run.stdout.splitlines()
    assert lines[0].startswith("needs attention: nothing (flags need 20 candidate events")
    assert lines[1] == ""
    assert lines[2].startswith("audit summary (since ")
    assert lines[-1] == "(no rows)"


def test_session_harness_and_rule_filters(audited: Project) -> None:
    s2 = rows(audited, "sessions", "--session", "s2")
    assert [r["session"] for r in s2] == ["s2"]
    codex = rows(audited, "summary", "--harness", "codex")
    assert [(r["harness"], r["events"]) for r in codex] == [("codex", 4)]
    # --rule: the events that rule fired on
    no_rm = rows(audited, "summary", "--rule", "audit/no-rm")
    assert no_rm == [summary_row(CC, "tool.pre", 15, hit=15, blocked=15, rate=1.0)]
    tools = rows(audited, "tools", "--rule", "audit/push-ask")
    assert [(r["tool"], r["calls"], r["asked"], r["top_blocking_rule"]) for r in tools] == [
        ("shell", 30, 30, None)
    ]
    # a glob over rule ids picks report rows
    assert [r["rule"] for r in rows(audited, "rules", "--rule", "audit/*")] == [
        "audit/no-rm",
        "audit/push-ask",
        "audit/brief",
        "audit/edit-note",
        "audit/flaky",
        "audit/quiet",
    ]
    only = rows(audited, "rules", "--rule", "audit/p*", "--session", "s1")
    assert [(r["rule"], r["candidates"], r["fired"]) for r in only] == [("audit/push-ask", 120, 30)]


def test_filters_given_before_the_report_name(audited: Project) -> None:
    run = style(audited, "audit", "--session", "s2", "--format", "json", "sessions")
    doc = run.json
    assert doc["report"] == "sessions" and doc["filters"]["session"] == "s2"
    assert [r["session"] for r in doc["rows"]] == ["s2"]


def test_options_of_other_commands_go_after_their_name(scratch: Project) -> None:
    run = style(scratch, "audit", "--format", "json", "prune", "--older-than", "30d")
    assert run.code == 2 and "after its name" in " ".join(run.stderr.replace("│", " ").split())
    assert scratch.scalar("SELECT count(*) FROM events") == 169


def test_dead_needs_a_hundred_events_at_its_point(audited: Project) -> None:
    # on day 2 alone tool.pre saw 21 events: edit-note is not called dead there
    day2 = rows(audited, "rules", "--since", "2024-05-02", "--rule", "audit/edit-note")
    assert (day2[0]["candidates"], day2[0]["fired"], day2[0]["flag"]) == (0, 0, None)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--since", "yesterday"], "neither a date"),
        (["--since", "2024-05-03", "--until", "2024-05-01"], "--since must be before --until"),
        (["--format", "parquet"], "needs --out"),
        (["--format", "html"], "needs --out"),
        (["--bucket", "week"], "week"),
        (["--format", "yaml"], "yaml"),
    ],
)
def test_usage_errors_exit_2(audited: Project, args: list[str], message: str) -> None:
    run = style(audited, "audit", "summary", *args)
    assert run.code == 2
    assert message in " ".join(run.stderr.replace("│", " ").split())


def test_parse_time() -> None:
    now = dt.datetime(2024, 6, 1, 12, 0, 0)
    assert report.parse_time("7d", now=now) == dt.datetime(2024, 5, 25, 12, 0, 0)
    assert report.parse_time("90m", now=now) == dt.datetime(2024, 6, 1, 10, 30, 0)
    assert report.parse_time("2w", now=now) == dt.datetime(2024, 5, 18, 12, 0, 0)
    assert report.parse_time("2024-05-01") == dt.datetime(2024, 5, 1)
    assert report.parse_time("2024-05-01", end=True) == dt.datetime(2024, 5, 2)
    assert report.parse_time("2024-05-01T10:00:00+02:00") == dt.datetime(2024, 5, 1, 8, 0, 0)
    with pytest.raises(ValueError):
        report.parse_time("last week")


# -- formats ---------------------------------------------------------------------------------------


def test_json_csv_parquet_hold_the_same_rows(audited: Project, tmp_path: Path) -> None:
    import polars as pl

    want = rows(audited, "rules")
    csv_run = style(audited, "audit", "rules", "--format", "csv")
    lines = csv_run.stdout.splitlines()
    assert lines[0] == ",".join(RULE_COLUMNS)
    assert (
        lines[1] == "audit/no-rm,block,project,140,15,0,15,0,0,0,0,0,0,0,0,0,0,0,,"
        "0.1071,0.1071,0,2024-05-02T14:00:05,"
    )
    assert lines[5].endswith(",erroring")
    out = tmp_path / "rules.parquet"
    run = style(audited, "audit", "rules", "--format", "parquet", "--out", str(out))
    assert run.code == 0 and run.stdout == ""
    frame = pl.read_parquet(out)
    assert frame.columns == RULE_COLUMNS
    assert frame["fired"].to_list() == [r["fired"] for r in want]
    assert frame["flag"].to_list() == [r["flag"] for r in want]
    assert frame.schema["last_fired"] == pl.Datetime("us")
    # --out works for the text formats too
    json_out = tmp_path / "rules.json"
    style(audited, "audit", "rules", "--format", "json", "--out", str(json_out))
    assert json.loads(json_out.read_text("utf-8"))["rows"] == want


class PageParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.open_script: dict[str, str | None] | None = None
        self.scripts: list[tuple[dict[str, str | None], str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self.open_script = dict(attrs)
            self.scripts.append((self.open_script, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.open_script = None

    def handle_data(self, data: str) -> None:
        if self.open_script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)


def test_html_is_one_self_contained_page(audited: Project, tmp_path: Path) -> None:
    out = tmp_path / "audit.html"
    run = style(audited, "audit", "rules", "--format", "html", "--out", str(out))
    assert run.code == 0, run.stderr
    text = out.read_text("utf-8")
    page = PageParser()
    page.feed(text)
    page.close()
    tags = [t for t, _ in page.tags]
    assert tags[0] == "html" and "body" in tags
    # nothing outside the page: no link, no external script, no remote src/href, no CSS url()
    assert "link" not in tags and "img" not in tags and "iframe" not in tags
    for tag, attrs in page.tags:
        assert "src" not in attrs, tag
        for name, value in attrs.items():
            assert not str(value or "").lower().startswith(("http:", "https:", "//")), (tag, name)
    assert "http://" not in text and "https://" not in text and "url(" not in text
    # three inline SVG charts, what needs attention first, then every report's table, the
    # asked one first
    assert [a.get("id") for t, a in page.tags if t == "svg"] == [
        "chart-rules",
        "chart-rate",
        "chart-latency",
    ]
    sections = [a.get("id") for t, a in page.tags if t == "section"]
    assert sections[:2] == ["attention", "charts"]
    tables = [a.get("id") for t, a in page.tags if t == "table"]
    assert tables == [
        "table-rules",
        "table-summary",
        "table-errors",
        "table-tools",
        "table-refusals",
        "table-sessions",
        "table-timeline",
    ]
    # the header names the report and the window the history covers
    assert "<h1>STYLE audit: rules</h1>" in text
    assert "169 events from 2024-05-01 10:00:00 to 2024-05-03 09:00:03 UTC" in text
    # the charts' data, as JSON
    [(attrs, data)] = page.scripts
    assert attrs == {"type": "application/json", "id": "style-audit-data"}
    doc = json.loads(data)
    assert doc["report"] == "rules"
    assert [i["subject"] for i in doc["attention"]["items"]] == [
        "audit/flaky",
        "the rules database stayed locked past the deadline",
        "audit/push-ask",
        "audit/edit-note",
    ]
    charts = doc["charts"]
    by_rule = {p["rule"]: (p["hits"], p["asks"], p["blocks"]) for p in charts["rules"]}
    assert by_rule["audit/no-rm"] == (15, 0, 15) and by_rule["audit/push-ask"] == (30, 30, 0)
    assert "audit/edit-note" not in by_rule  # never fired: no bars
    assert [p["block_rate"] for p in charts["block_rate"]] == [0.0714, 0.2, 0.0]
    assert [p["ask_rate"] for p in charts["block_rate"]] == [0.2143, 0.0, 0.0]
    assert [p["events"] for p in charts["block_rate"]] == [140, 25, 4]
    assert charts["bucket"] == "day"
    # latency in 1-2-5 buckets: 500 µs in [500, 1000); 2 ms in [2, 5) ms; 1..10 ms spread out
    latency = {p["low_us"]: p["events"] for p in charts["latency"]}
    assert sum(latency.values()) == 169 - 1  # every event but the handler error
    assert latency == {500: 4, 1000: 1, 2000: 2 + 1 + 2 + 149 + 3, 5000: 5, 10000: 1}
    assert (charts["latency_p50_us"], charts["latency_p95_us"]) == (2000.0, 2000.0)


def test_html_escapes_what_it_shows(tmp_path: Path) -> None:
    from agentstyle.audit import html as html_report

    doc = {
        "report": "rules",
        "title": "audit rules",
        "generated": "2024-05-01T00:00:00Z",
        "source": "</script><script>alert(1)</script>",
        "filters": {"rule": "<b>x</b>", "bucket": "day"},
        "window": {"first": None, "last": None, "events": 0},
        "attention": {
            "items": [{"kind": "noisy", "subject": "<i>r</i>", "reason": "<u>", "command": "<s>"}],
            "shown": 8,
            "note": "<q>",
        },
        "tables": [{"name": "rules", "columns": ["rule"], "rows": [{"rule": "<img src=x>"}]}],
        "charts": {
            "rules": [{"rule": "<img src=x>", "hits": 1, "asks": 0, "blocks": 0}],
            "block_rate": [],
            "bucket": "day",
            "latency": [],
            "latency_p50_us": None,
            "latency_p95_us": None,
        },
    }
    text = html_report.render(doc)
    for tag in ("<img", "<b>x", "<i>", "<u>", "<s>", "<q>"):
        assert tag not in text
    assert text.count("</script>") == 1
    page = PageParser()
    page.feed(text)
    assert json.loads(page.scripts[0][1])["source"] == doc["source"]


# -- audit sql -------------------------------------------------------------------------------------


def test_sql_runs_a_select(audited: Project) -> None:
    run = style(
        audited,
        "audit",
        "sql",
        "SELECT verdict, count(*) AS n FROM events GROUP BY verdict ORDER BY n DESC",
        "--format",
        "json",
    )
    assert run.code == 0, run.stderr
    assert run.json["rows"] == [
        {"verdict": "none", "n": 124},
        {"verdict": "ask", "n": 30},
        {"verdict": "block", "n": 15},
    ]
    text = style(audited, "audit", "sql", "FROM rules SELECT count(*) AS rules")
    assert text.stdout == "RULES\n    6\n"


WRITES = [
    "INSERT INTO events (event_id, ts, harness, native_event) VALUES (999, now(), 'x', 'y')",
    "UPDATE events SET verdict = 'allow'",
    "DELETE FROM events",
    "CREATE TABLE x (a INTEGER)",
    "CREATE VIEW v AS SELECT 1",
    "DROP TABLE hits",
    "ALTER TABLE events ADD COLUMN x INTEGER",
    "COPY events TO 'out.csv'",
    "ATTACH 'other.duckdb' AS other",
    "DETACH other",
    "PRAGMA version",
    "SET threads = 1",
    "INSTALL httpfs",
    "LOAD httpfs",
    "EXPORT DATABASE 'dump'",
    "IMPORT DATABASE 'dump'",
    "CALL pragma_version()",
    "CHECKPOINT",
    "VACUUM",
    "BEGIN TRANSACTION",
    "SELECT 1; DELETE FROM events",
    "SELECT 1; SELECT 2",
    "TRUNCATE hits",
]


@pytest.mark.parametrize("statement", WRITES)
def test_sql_refuses_anything_but_one_read(audited: Project, statement: str) -> None:
    run = style(audited, "audit", "sql", statement)
    assert run.code == 1
    assert run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith("style: ")
    assert audited.scalar("SELECT count(*) FROM events") == 169
    assert audited.scalar("SELECT count(*) FROM hits") == 54
    assert not (audited.root / "out.csv").exists() and not (audited.root / "dump").exists()


def test_sql_cannot_reach_files(audited: Project) -> None:
    (audited.root / "secret.csv").write_text("a\n1\n", encoding="utf-8")
    run = style(audited, "audit", "sql", "SELECT * FROM read_csv('secret.csv')")
    assert run.code == 1 and run.stdout == ""
    # a select's own error: one line too
    run = style(audited, "audit", "sql", "SELECT nope FROM events")
    assert run.code == 1
    run = style_process(audited, "audit", "sql", "SELECT nope FROM events")
    assert run.code == 1 and len(run.stderr.splitlines()) == 1, run.stderr
    assert run.stderr.startswith("style: Binder Error")


def test_refusal_through_the_real_command(audited: Project) -> None:
    run = style_process(audited, "audit", "sql", "DELETE FROM events")
    assert (run.code, run.stdout) == (1, "")
    assert run.stderr == "style: refused: a DELETE statement; `audit sql` runs read-only queries\n"


# -- prune -----------------------------------------------------------------------------------------


def test_prune_deletes_old_history_in_one_go(scratch: Project) -> None:
    dry = style(
        scratch, "audit", "prune", "--older-than", "2024-05-02", "--dry-run", "--format", "json"
    )
    assert dry.code == 0
    # day 1: 140 events, 42 field rows (40 shell + 2 prompts), 48 hits, 2 claims; session s1
    counts = {
        "claims": 2,
        "hits": 48,
        "event_fields": 42,
        "session_facts": 0,
        "events": 140,
        "sessions": 1,
    }
    assert dry.json == {
        "cutoff": "2024-05-02T00:00:00",
        "dry_run": True,
        "deleted": counts,
        "database": None,
    }
    assert scratch.scalar("SELECT count(*) FROM events") == 169  # a dry run deletes nothing
    run = style(scratch, "audit", "prune", "--older-than", "2024-05-02")
    assert run.code == 0
    first, second = run.stdout.splitlines()
    assert first == (
        "deleted 140 events older than 2024-05-02 00:00:00 UTC (42 field rows, 48 hits, "
        "2 claims) and 1 sessions"
    )
    size = scratch.database.stat().st_size
    assert second.startswith(f"the database file: {size / 2**20:.1f} MiB, ")
    assert scratch.query("SELECT min(ts) FROM events") == [(DAY2,)]
    assert scratch.scalar("SELECT count(*) FROM hits") == 6
    assert scratch.scalar("SELECT count(*) FROM event_fields") == 5
    assert scratch.scalar("SELECT count(*) FROM claims") == 1
    assert scratch.query("SELECT session_id FROM sessions ORDER BY 1") == [("s2",), ("s3",)]
    assert scratch.scalar("SELECT count(*) FROM rules") == 6  # the policy stays
    assert [r["bucket"] for r in rows(scratch, "timeline")] == [
        "2024-05-02T00:00:00",
        "2024-05-03T00:00:00",
    ]
    again = style(scratch, "audit", "prune", "--older-than", "2024-05-02")
    assert again.stdout.startswith("deleted 0 events")


def _old_events(project: Project, n: int, day: str) -> None:
    """`n` events of one session on `day`, with a hit and field rows each, as a month of a
    busy machine's hooks would leave them (ids after the counter's last)."""
    project.execute(
        "INSERT INTO events (event_id, ts, harness, native_event, point, session_id, verdict) "
        "SELECT c.last_id + 1 + i, CAST(? AS TIMESTAMP) + to_microseconds(i * 1000), "
        "'claude-code', 'PreToolUse', 'tool.pre', 'old', 'block' "
        "FROM range(?) t(i), event_counter c",
        [day, n],
    )
    project.execute(
        "INSERT INTO hits SELECT event_id, 'audit/no-rm', 'tool.pre', 'blocked', 9, NULL "
        "FROM events WHERE session_id = 'old'"
    )
    project.execute(
        "INSERT INTO event_fields SELECT event_id, 'tool.input.command', 0, "
        "'rm -rf build/' || CAST(event_id AS VARCHAR) FROM events WHERE session_id = 'old'"
    )
    project.execute("UPDATE event_counter SET last_id = last_id + ?", [n])


def test_pruning_regularly_keeps_the_database_bounded(scratch: Project) -> None:
    """Month after month of history, each pruned: the rows stay those of the kept window and
    the file reuses the space the pruned rows took instead of growing with every month."""
    kept = scratch.scalar("SELECT count(*) FROM events")
    sizes = []
    for month in range(1, 5):
        _old_events(scratch, 60_000, f"2023-0{month}-01")
        run = style(scratch, "audit", "prune", "--older-than", "2024-01-01", "--format", "json")
        assert run.json["deleted"]["events"] == 60_000
        assert run.json["deleted"]["hits"] == run.json["deleted"]["event_fields"] == 60_000
        assert scratch.scalar("SELECT count(*) FROM events") == kept
        assert run.json["database"]["file_bytes"] == scratch.database.stat().st_size
        sizes.append(scratch.database.stat().st_size)
    # the first month's rows grew the file; the next months fit in the space they freed
    assert sizes[3] <= sizes[1] * 1.1, sizes
    assert run.json["database"]["free_bytes"] > 0
    # and the ids go on after the pruned ones
    assert scratch.scalar("SELECT last_id FROM event_counter") >= 4 * 60_000


def test_prune_needs_older_than(scratch: Project) -> None:
    assert style(scratch, "audit", "prune").code == 2
    assert style(scratch, "audit", "prune", "--older-than", "soon").code == 2
    # 30d before now: the whole 2024 history goes
    run = style(scratch, "audit", "prune", "--older-than", "30d")
    assert run.stdout.startswith("deleted 169 events")


def test_prune_is_one_transaction() -> None:
    from agentstyle.audit import export
    from agentstyle.evaluator.store import memory_store

    conn = memory_store()
    try:
        conn.execute(
            "INSERT INTO events (event_id, ts, harness, native_event) "
            "VALUES (1, TIMESTAMP '2020-01-01', 'claude-code', 'Stop')"
        )
        conn.execute("INSERT INTO hits VALUES (1, 'a/r', 'stop', 'blocked', 3, NULL)")
        conn.execute("INSERT INTO claims VALUES ('k', 'claude-code', 's', 'a/r', 1, 0)")
        conn.execute("DROP TABLE event_fields")  # the third delete fails
        with pytest.raises(Exception, match="event_fields"):
            export.prune_history(conn, dt.datetime(2030, 1, 1))
        # the claims and hits deleted before it are back
        assert conn.execute("SELECT count(*) FROM claims").fetchall() == [(1,)]
        assert conn.execute("SELECT count(*) FROM hits").fetchall() == [(1,)]
    finally:
        conn.close()


# -- export and --from -----------------------------------------------------------------------------


def export(project: Project, out: Path, *extra: str) -> Run:
    run = style(project, "audit", "export", "--out", str(out), *extra)
    assert run.code == 0, run.stderr
    return run


def test_export_partitions_by_day_with_a_machine(audited: Project, tmp_path: Path) -> None:
    out = tmp_path / "share"
    run = export(audited, out, "--machine", "ana@laptop", "--format", "json")
    doc = run.json
    assert doc["days"] == ["2024-05-01", "2024-05-02", "2024-05-03"]
    assert doc["rows"] == {
        "events": 169,
        "hits": 54,
        "event_fields": 47,
        "claims": 3,
        "sessions": 3,
        "packages": 1,
        "rules": 6,
        "entries": 6,
        "rule_tools": 4,
    }
    window = export(audited, tmp_path / "window", "--since", "2024-05-02", "--format", "json").json
    assert window["days"] == ["2024-05-02", "2024-05-03"]
    assert (window["rows"]["events"], window["rows"]["hits"], window["rows"]["sessions"]) == (
        29,
        6,
        2,
    )
    assert sorted(p.name for p in out.iterdir()) == ["machine=ana@laptop"]
    folders = sorted(p.name for p in (out / "machine=ana@laptop").iterdir())
    today = dt.datetime.now(dt.UTC).date().isoformat()
    assert folders == sorted(
        {"date=2024-05-01", "date=2024-05-02", "date=2024-05-03", f"date={today}"}
    )
    day1 = sorted(p.name for p in (out / "machine=ana@laptop" / "date=2024-05-01").iterdir())
    assert day1 == [
        f"{t}.parquet" for t in ("claims", "event_fields", "events", "hits", "sessions")
    ]
    # any Parquet engine reads the folders as the machine and date columns
    con = duckdb.connect()
    try:
        got = con.execute(
            "SELECT machine, date, count(*) FROM read_parquet(?, hive_partitioning = true) "
            "GROUP BY ALL ORDER BY date",
            [str(out / "**" / "events.parquet")],
        ).fetchall()
    finally:
        con.close()
    expected = [
        ("ana@laptop", dt.date(2024, 5, 1), 140),
        ("ana@laptop", dt.date(2024, 5, 2), 25),
        ("ana@laptop", dt.date(2024, 5, 3), 4),
    ]
    assert got == expected
    scanned = (
        pl.scan_parquet(str(out / "**" / "events.parquet"), hive_partitioning=True)
        .group_by("machine", "date")
        .agg(pl.len().alias("n"))
        .sort("date")
        .collect()
    )
    assert [tuple(r) for r in scanned.iter_rows()] == expected
    hits = pl.scan_parquet(str(out / "**" / "hits.parquet"), hive_partitioning=True).collect()
    assert hits.height == 54 and set(hits["machine"]) == {"ana@laptop"}


def test_from_with_a_window_loads_only_its_days(audited: Project, tmp_path: Path) -> None:
    from agentstyle.audit.export import export_files

    out = tmp_path / "share"
    export(audited, out, "--machine", "ana@laptop")
    files = export_files(str(out), since=dt.datetime(2024, 5, 2), until=dt.datetime(2024, 5, 3))
    assert [Path(f).parent.name for f in files["events"]] == ["date=2024-05-02"]
    assert "rules" in files  # the policy, written on the day of the export, always
    windows = (
        ["--since", "2024-05-02"],
        ["--until", "2024-05-01"],
        ["--since", "2024-05-02", "--until", "2024-05-02"],
        ["--since", "2024-05-01T12:00:00"],
    )
    for args in windows:
        for name in ("summary", "rules", "sessions", "timeline", "tools"):
            got = rows(audited, name, "--from", str(out), *args)
            assert got == rows(audited, name, *args), (name, args)


def _as_older_layout(out: Path) -> None:
    """Exports as STYLE wrote them before the machine partition: `date=…/<table>-<machine>`."""
    for machine_dir in [p for p in out.iterdir() if p.name.startswith("machine=")]:
        slug = machine_dir.name.removeprefix("machine=")
        for day_dir in machine_dir.iterdir():
            target = out / day_dir.name
            target.mkdir(exist_ok=True)
            for f in day_dir.iterdir():
                f.rename(target / f"{f.stem}-{slug}.parquet")
            day_dir.rmdir()
        machine_dir.rmdir()


def test_from_reads_the_older_layout_beside_the_new(audited: Project, tmp_path: Path) -> None:
    out = tmp_path / "share"
    export(audited, out, "--machine", "ana@laptop")
    _as_older_layout(out)
    assert sorted(p.name for p in out.iterdir())[0] == "date=2024-05-01"
    live = rows(audited, "summary")
    assert rows(audited, "summary", "--from", str(out)) == live
    export(audited, out, "--machine", "bo@desktop")  # the new layout beside it
    both = rows(audited, "summary", "--from", str(out))
    assert [r["events"] for r in both] == [2 * r["events"] for r in live]
    only_bo = rows(audited, "summary", "--from", str(out), "--machine", "bo@desktop")
    only_ana = rows(audited, "summary", "--from", str(out), "--machine", "ana@laptop")
    assert only_bo == only_ana == live


def test_from_exports_gives_the_same_reports(audited: Project, tmp_path: Path) -> None:
    out = tmp_path / "share"
    export(audited, out)
    windows = [
        report.Filters(),
        report.Filters(since=dt.datetime(2024, 5, 2)),
        report.Filters(until=dt.datetime(2024, 5, 2), bucket="hour"),
        report.Filters(session="s1"),
        report.Filters(harness="codex"),
        report.Filters(rule="audit/*"),
        report.Filters(rule="audit/no-rm"),
    ]

    def every_report(**source: Any) -> list[list[dict[str, Any]]]:
        with report.history(audited.root, **source) as conn:
            got = [
                report.records(report.run_report(conn, name, window))
                for name in report.REPORTS
                for window in windows
            ]
            got.append(report.records(report.latency_frame(conn, report.Filters())))
            return got

    live = every_report()
    assert every_report(from_glob=str(out)) == live
    assert every_report(from_glob=str(out / "**" / "*.parquet")) == live
    # and through the command
    for name in report.REPORTS:
        assert rows(audited, name, "--from", str(out)) == rows(audited, name)
    text = style(audited, "audit", "rules", "--from", str(out)).stdout
    assert text.splitlines()[0] == f"audit rules (from {out})"
    assert text.splitlines()[1:] == (GOLDEN / "rules.txt").read_text("utf-8").splitlines()[1:]


def test_from_many_machines_and_repeated_exports(audited: Project, tmp_path: Path) -> None:
    out = tmp_path / "share"
    export(audited, out, "--machine", "ana@laptop")
    export(audited, out, "--machine", "ana@laptop")  # the same files again
    export(audited, out, "--machine", "bo@desktop")  # same ids, another machine
    summary = rows(audited, "summary", "--from", str(out))
    live = rows(audited, "summary")
    assert [r["events"] for r in summary] == [2 * r["events"] for r in live]
    assert [r["events_hit"] for r in summary] == [2 * r["events_hit"] for r in live]
    rules = {r["rule"]: r for r in rows(audited, "rules", "--from", str(out))}
    assert (rules["audit/no-rm"]["candidates"], rules["audit/no-rm"]["fired"]) == (280, 30)
    sql = style(
        audited,
        "audit",
        "sql",
        "SELECT machine, count(*) AS n FROM events GROUP BY ALL ORDER BY machine",
        "--from",
        str(out),
        "--format",
        "json",
    )
    assert sql.json["rows"] == [
        {"machine": "ana@laptop", "n": 169},
        {"machine": "bo@desktop", "n": 169},
    ]
    # the sessions are the same ids on both machines here: each is counted once
    assert len(rows(audited, "sessions", "--from", str(out))) == 3


def test_from_refuses_writes_and_missing_exports(audited: Project, tmp_path: Path) -> None:
    out = tmp_path / "share"
    export(audited, out)
    run = style(audited, "audit", "sql", "DROP TABLE events", "--from", str(out))
    assert run.code == 1 and run.stderr.startswith("style: refused")
    run = style(audited, "audit", "sql", "SELECT * FROM read_csv('x.csv')", "--from", str(out))
    assert run.code == 1
    missing = style_process(audited, "audit", "--from", str(tmp_path / "nothing" / "*.parquet"))
    assert missing.code == 1
    assert missing.stderr.startswith("style: no STYLE exports match")


def test_no_database_is_one_line(tmp_path: Path) -> None:
    project = Project(tmp_path / "empty", tmp_path / "home")
    run = style_process(project, "audit")
    assert run.code == 1
    assert run.stderr.startswith("style: no rules database at ") and run.stderr.count("\n") == 1
