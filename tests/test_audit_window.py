"""A report over a window reads that window, not the whole history: on a database file of a
few row groups of events, hits and field rows appended in time order, each report's scans of
the history tables skip the row groups outside the window (their zone maps), and the answers
are those of the same report without that help."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentstyle.audit import report
from agentstyle.evaluator.store import Connection, connect, migrate, sql

DAYS = 40
PER_DAY = 10_000  # 400,000 events, as many hits, 300,000 field rows: several row groups each
LAST = dt.datetime(2026, 3, 1)
HISTORY = ("events", "hits", "event_fields")


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Connection]:
    path = tmp_path_factory.mktemp("window") / "style.duckdb"
    conn = connect(path)
    migrate(conn)
    n = DAYS * PER_DAY
    conn.execute(
        "INSERT INTO events BY NAME SELECT i + 1 AS event_id, "
        "CAST(? AS TIMESTAMP) - to_microseconds(CAST(($n - i) * 86400e6 / ? AS BIGINT)) AS ts, "
        "'claude-code' AS harness, 'PreToolUse' AS native_event, 'tool.pre' AS point, "
        "'s' || CAST(i // 200 AS VARCHAR) AS session_id, 'shell' AS tool, 'Bash' AS native_tool, "
        "CASE WHEN i % 20 = 0 THEN 'block' ELSE 'none' END AS verdict, 2000 AS latency_us "
        "FROM range(?) t(i)".replace("$n", str(n)),
        [LAST, PER_DAY, n],
    )
    conn.execute(
        "INSERT INTO hits SELECT event_id, 'p/r', 'tool.pre', "
        "CASE WHEN verdict = 'block' THEN 'blocked' ELSE 'emitted' END, 5, NULL "
        "FROM events ORDER BY event_id"
    )
    conn.execute(
        "INSERT INTO event_fields SELECT event_id, f, 0, 'x' FROM events, "
        "(SELECT unnest(['tool.name', 'tool.input.command', 'mcp.server']) AS f) "
        "WHERE event_id % 4 = 0 ORDER BY 1, 2"
    )
    conn.execute("CHECKPOINT")
    yield conn
    conn.close()


def _scans(conn: Connection, name: str, params: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Row groups scanned / to scan per history table, from EXPLAIN ANALYZE of the report."""
    from agentstyle.evaluator.store import _NAMED_PARAM

    query = sql(f"audit/{name}")
    bound = {k: v for k, v in params.items() if k in set(_NAMED_PARAM.findall(query))}
    [(_, plan)] = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + query, bound).fetchall()
    found: dict[str, tuple[int, int]] = {}

    def walk(nodes: list[dict[str, Any]]) -> None:
        for node in nodes:
            table = str(node.get("extra_info", {}).get("Table", "")).rsplit(".", 1)[-1]
            if node.get("type") == "TABLE_SCAN" and table in HISTORY:
                seen = found.get(table, (0, 0))
                found[table] = (
                    seen[0] + int(node["row_groups_scanned"]),
                    seen[1] + int(node["total_row_groups_to_scan"]),
                )
            walk(node.get("children", []))

    walk(json.loads(plan)["operator"])
    return found


WINDOWED = ("rules", "sessions", "summary", "tools", "timeline", "latency", "window")


@pytest.mark.parametrize("name", WINDOWED)
def test_a_report_over_the_last_week_skips_the_older_row_groups(
    history: Connection, name: str
) -> None:
    filters = report.Filters(since=LAST - dt.timedelta(days=7))
    params = report.window_params(history, filters) | {"log": []}
    scans = _scans(history, name, params)
    assert "events" in scans
    for table, (scanned, total) in scans.items():
        assert total >= 2, (table, scans)  # the history spans several row groups
        assert scanned < total, (name, table, scans)


def test_windowed_reports_answer_as_over_the_whole_id_range(history: Connection) -> None:
    """The id range only skips work: widened to every id, each report answers the same."""
    for since in (None, LAST - dt.timedelta(days=7), LAST - dt.timedelta(hours=5)):
        filters = report.Filters(since=since, rule="p/*")
        windowed = report.window_params(history, filters) | {"log": []}
        whole = windowed | {"first_id": 0, "last_id": 2**62}
        for name in (*WINDOWED, "errors"):
            query = sql(f"audit/{name}")
            assert report.query_frame(history, query, windowed).equals(
                report.query_frame(history, query, whole)
            ), (name, since)


def test_an_empty_window_reads_no_hits(history: Connection) -> None:
    filters = report.Filters(since=LAST + dt.timedelta(days=1))
    params = report.window_params(history, filters)
    assert (params["first_id"], params["last_id"]) == (None, None)
    assert report.run_report(history, "summary", filters).height == 0
    assert report.run_report(history, "sessions", filters).height == 0


def test_exporting_a_day_reads_that_day(history: Connection, tmp_path: Path) -> None:
    from agentstyle.audit.export import export_history

    day = (LAST - dt.timedelta(days=3)).date()
    start = dt.datetime.combine(day, dt.time())
    result = export_history(
        history, tmp_path, machine="m", since=start, until=start + dt.timedelta(days=1)
    )
    assert result.days == [day]
    assert result.rows["events"] == PER_DAY
    assert result.rows["hits"] == PER_DAY
    assert result.rows["event_fields"] == 3 * PER_DAY // 4
    assert (tmp_path / "machine=m" / f"date={day.isoformat()}" / "events.parquet").exists()
