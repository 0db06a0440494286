"""A history that stays fast: the engine's answer and the audit over histories of 0 to 10M events.

For each history size a project is installed with the generated 1,000-rule package (as
bench/hook_bench.py installs it) and a synthetic history is appended to its database by one
bulk statement per table (bench/sql/history_fill.sql: sessions of 250 events, 10,000 events a
day in time order, blocked and warned calls with their hits and field rows, as the hooks leave
them). Built projects are cached under `.bench-cache/history/` (git-ignored), keyed by the
schema, the fill statement and the package; each run works on a copy.

Then, side by side in one run:

- the engine's answer (a hook request over the socket, as bench/hook_bench.py times it): an
  allowed call and a blocked one, a warm engine per project, requests spaced as a session's
  are and round-robin over the sizes so that drift on a shared machine hits every size alike;
  medians;
- `style audit rules` and `style audit sessions` over the last 7 days of the history, as a new
  process (what a person waits for) and the report's SQL alone in one process; medians;
- `style audit export` of one day, as a new process; median;
- the database file's size;
- and the team scale: the 1M history exported whole as each of 10 machines (cached), then
  `--from` over all of them: the load and every report over the merged 10M events.

`python -m bench.history_bench` (or `make bench-history`) prints the section; sizes from
STYLE_BENCH_HISTORY (e.g. `0,100000` for a quick run), machines from STYLE_BENCH_MACHINES (0
to skip the team part) and their events from STYLE_BENCH_TEAM_EVENTS, rounds from
STYLE_BENCH_ROUNDS.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.generate import write_package
from bench.hook_bench import SPACING_S, _env, _wait_engine, engine_answers

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".bench-cache" / "history"
FILL = Path(__file__).resolve().parent / "sql" / "history_fill.sql"
SIZES = (0, 100_000, 1_000_000, 10_000_000)
TEAM_SIZE = int(os.environ.get("STYLE_BENCH_TEAM_EVENTS", "1000000"))  # events per machine
RULES = 1000
PER_DAY = 10_000
WINDOW = dt.timedelta(days=7)
ALLOWED = "cargo test -p acme-auth && ls -la"
BLOCKED = "tool5 --danger x"  # generated rule r00005 blocks it (bench/generate.py)


def _sizes() -> tuple[int, ...]:
    given = os.environ.get("STYLE_BENCH_HISTORY")
    return tuple(int(s) for s in given.split(",")) if given else SIZES


def _key() -> str:
    """What a cached project depends on: the schema, the fill statement, the package."""
    from agentstyle.evaluator.store import latest_version

    digest = hashlib.sha256()
    for part in (FILL.read_bytes(), (ROOT / "bench" / "generate.py").read_bytes()):
        digest.update(part)
    digest.update(f"{latest_version()}|{RULES}|{PER_DAY}".encode())
    return digest.hexdigest()[:12]


def _style(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentstyle", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def fill(database: Path, n: int, last: dt.datetime) -> float:
    """Append the synthetic history of `n` events to a database (under STYLE's lock); seconds."""
    from agentstyle.evaluator.locking import FileLock
    from agentstyle.evaluator.store import connect

    params = {"n": n, "per_day": PER_DAY, "last": last}
    t0 = time.perf_counter()
    with FileLock(database.with_name("style.lock"), time.monotonic() + 60):
        conn = connect(database)
        try:
            for statement in conn.extract_statements(FILL.read_text("utf-8")):
                used = {k: v for k, v in params.items() if f"${k}" in statement.query}
                conn.execute(statement, used)
            conn.execute("CHECKPOINT")
        finally:
            conn.close()
    return time.perf_counter() - t0


def cached_project(n: int, home: Path) -> tuple[Path, dict[str, Any]]:
    """The installed project with a history of `n` events, built once per cache key."""
    folder = CACHE / _key() / f"n{n}"
    done = folder / "built.json"
    if done.exists():
        return folder, json.loads(done.read_text("utf-8"))
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    write_package(folder / "pkg", RULES)
    _style(["install", "pkg"], folder, _env(home, STYLE_ENGINE="off"))
    last = dt.datetime.now(dt.UTC).replace(tzinfo=None, second=0, microsecond=0)
    seconds = fill(folder / ".style" / "style.duckdb", n, last)
    meta = {"n": n, "last": last.isoformat(), "build_s": seconds}
    done.write_text(json.dumps(meta), "utf-8")
    return folder, meta


def _payload(project: Path, command: str, n: int) -> bytes:
    return json.dumps(
        {
            "session_id": "bench-answer",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": f"toolu_answer_{n}",
        }
    ).encode()


def _median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def _timed(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    _style(args, cwd, env)
    return time.perf_counter() - t0


def _database_bytes(project: Path) -> int:
    db = project / ".style" / "style.duckdb"
    wal = db.with_name(db.name + ".wal")
    return db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def _report_sql_ms(project: Path, since: dt.datetime, rounds: int) -> dict[str, float]:
    """The `rules` and `sessions` reports' SQL alone, in this process (read-only connection)."""
    from agentstyle.audit import report
    from agentstyle.evaluator.store import connect

    conn = connect(project / ".style" / "style.duckdb", read_only=True)
    try:
        filters = report.Filters(since=since)
        out = {}
        for name in ("rules", "sessions"):
            report.run_report(conn, name, filters)  # warm
            times = []
            for _ in range(rounds):
                t0 = time.perf_counter()
                report.run_report(conn, name, filters)
                times.append(time.perf_counter() - t0)
            out[f"{name}_sql_ms"] = _median_ms(times)
        return out
    finally:
        conn.close()


def bench_sizes(sizes: tuple[int, ...], rounds: int, tmp: Path) -> dict[int, dict[str, Any]]:
    from agentstyle.runtime import client

    home = tmp / "home"
    home.mkdir()
    projects: dict[int, Path] = {}
    figures: dict[int, dict[str, Any]] = {}
    for n in sizes:
        print(f"  history of {n:,} events ...", flush=True)
        cached, meta = cached_project(n, home)
        project = tmp / f"project-{n}"
        shutil.copytree(cached, project, symlinks=True)
        projects[n] = project
        figures[n] = {"events": n, "build_s": meta["build_s"], "last": meta["last"]}
        figures[n]["db_bytes"] = _database_bytes(project)
    warm = _env(home, STYLE_ENGINE="on", STYLE_ENGINE_IDLE_S="900")
    script = str(Path(sys.executable).parent / "style-hook")
    argv = [script, "--harness", "claude-code", "--event", "PreToolUse"]
    for project in projects.values():  # start each project's engine, warm it up
        subprocess.run(argv, input=_payload(project, ALLOWED, 0), cwd=project, env=warm, check=True)
        _wait_engine(project / ".style")
        for i in range(5):
            engine_answers(project / ".style", _payload(project, ALLOWED, i), 1, 0.0)
            engine_answers(project / ".style", _payload(project, BLOCKED, i), 1, 0.0)
    allowed: dict[int, list[float]] = {n: [] for n in projects}
    blocked: dict[int, list[float]] = {n: [] for n in projects}
    for r in range(rounds):  # round-robin over the sizes: drift hits each alike
        for n, project in projects.items():
            home_n = project / ".style"
            allowed[n] += engine_answers(home_n, _payload(project, ALLOWED, r), 1, SPACING_S)
            blocked[n] += engine_answers(home_n, _payload(project, BLOCKED, r), 1, SPACING_S)
    for n, project in projects.items():
        client.stop_engine(str(project / ".style"))
        _wait_engine(project / ".style", up=False)
        figures[n]["allowed_ms"] = _median_ms(allowed[n])
        figures[n]["blocked_ms"] = _median_ms(blocked[n])
    cold = _env(home, STYLE_ENGINE="off")
    cli: dict[tuple[int, str], list[float]] = {}
    report_rounds = max(3, rounds // 6)
    for _ in range(report_rounds):  # the commands, round-robin over the sizes too
        for n, project in projects.items():
            last = dt.datetime.fromisoformat(figures[n]["last"])
            since = (last - WINDOW).isoformat()
            for name in ("rules", "sessions"):
                args = ["audit", name, "--since", since, "--format", "json"]
                cli.setdefault((n, name), []).append(_timed(args, project, cold))
            day = (last - dt.timedelta(days=1)).date().isoformat()
            out = tmp / f"export-{n}"
            args = ["audit", "export", "--out", str(out), "--since", day, "--until", day]
            cli.setdefault((n, "export"), []).append(_timed(args, project, cold))
    for n, project in projects.items():
        last = dt.datetime.fromisoformat(figures[n]["last"])
        for name in ("rules", "sessions", "export"):
            figures[n][f"{name}_cli_ms"] = _median_ms(cli[(n, name)])
        figures[n].update(_report_sql_ms(project, last - WINDOW, report_rounds * 3))
        figures[n]["db_bytes_after"] = _database_bytes(project)
    return figures


def team_exports(machines: int, home: Path) -> tuple[Path, float]:
    """The TEAM_SIZE history exported whole once per machine (cached); seconds of one export."""
    from agentstyle.audit.export import export_history
    from agentstyle.evaluator.store import connect

    folder = CACHE / _key() / f"team-{machines}x{TEAM_SIZE}"
    done = folder / "built.json"
    if done.exists():
        return folder / "exports", float(json.loads(done.read_text("utf-8"))["export_s"])
    shutil.rmtree(folder, ignore_errors=True)
    project, _meta = cached_project(TEAM_SIZE, home)
    conn = connect(project / ".style" / "style.duckdb", read_only=True)
    seconds = []
    try:
        for k in range(machines):
            t0 = time.perf_counter()
            export_history(conn, folder / "exports", machine=f"dev{k:02d}@team")
            seconds.append(time.perf_counter() - t0)
    finally:
        conn.close()
    done.write_text(json.dumps({"export_s": statistics.median(seconds)}), "utf-8")
    return folder / "exports", statistics.median(seconds)


def bench_team(machines: int, tmp: Path) -> dict[str, Any]:
    from agentstyle.audit import report
    from agentstyle.audit.export import load_exports

    home = tmp / "team-home"
    home.mkdir()
    print(f"  {machines} machines x {TEAM_SIZE:,} events ...", flush=True)
    exports, export_s = team_exports(machines, home)
    pattern = str(exports / "**" / "*.parquet")
    t0 = time.perf_counter()
    conn = load_exports(pattern)
    out: dict[str, Any] = {"machines": machines, "export_s": export_s}
    out["load_all_s"] = time.perf_counter() - t0
    try:
        out["events"] = conn.execute("SELECT count(*) FROM events").fetchone()[0]  # type: ignore[index]
        last = conn.execute("SELECT max(ts) FROM events").fetchone()[0]  # type: ignore[index]
        for name in report.REPORTS:
            t0 = time.perf_counter()
            report.run_report(conn, name, report.Filters())
            out[f"{name} (all)_s"] = time.perf_counter() - t0
    finally:
        conn.close()
    # a week: `--from` with `--since` loads only the days of the window
    week = report.Filters(since=last - WINDOW)
    t0 = time.perf_counter()
    conn = load_exports(pattern, since=week.since)
    out["load_week_s"] = time.perf_counter() - t0
    try:
        out["week_events"] = conn.execute("SELECT count(*) FROM events").fetchone()[0]  # type: ignore[index]
        for name in report.REPORTS:
            t0 = time.perf_counter()
            report.run_report(conn, name, week)
            out[f"{name} (7 days)_s"] = time.perf_counter() - t0
    finally:
        conn.close()
    # and one command end to end: the week's load and the report in a new process
    project = tmp / "team-project"
    project.mkdir()
    args = ["audit", "rules", "--from", pattern, "--since", week.since.isoformat(), "--format"]
    out["rules_cli_s"] = _timed([*args, "json"], project, _env(home, STYLE_ENGINE="off"))
    out["exports_bytes"] = sum(p.stat().st_size for p in exports.rglob("*.parquet"))
    return out


def run(
    sizes: tuple[int, ...] | None = None, rounds: int | None = None, machines: int | None = None
) -> dict[str, Any]:
    sizes = sizes or _sizes()
    rounds = rounds or int(os.environ.get("STYLE_BENCH_ROUNDS", "30"))
    if machines is None:
        machines = int(os.environ.get("STYLE_BENCH_MACHINES", "10"))
    tmp = Path(tempfile.mkdtemp(prefix="style-history-bench-"))
    load = [os.getloadavg()[0]]
    try:
        figures: dict[str, Any] = {"sizes": bench_sizes(sizes, rounds, tmp), "rounds": rounds}
        load.append(os.getloadavg()[0])
        if machines:
            figures["team"] = bench_team(machines, tmp)
            load.append(os.getloadavg()[0])
        figures["load"] = (min(load), max(load))
        return figures
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _mib(n: float) -> str:
    return f"{n / 2**20:,.1f} MiB"


def _targets(sizes: dict[int, dict[str, Any]], base: dict[str, Any]) -> str:
    """The history's targets at 1M events against this run (when it measured 1M)."""
    at = sizes.get(1_000_000)
    if at is None or base is at:
        return ""
    rows = (
        ("engine answer at 1M events / empty history", at["allowed_ms"] / base["allowed_ms"], 1.2),
        ("blocked call's answer at 1M / empty history", at["blocked_ms"] / base["blocked_ms"], 1.2),
        ("`style audit rules`, last 7 days, at 1M events (s)", at["rules_cli_ms"] / 1000, 1.0),
    )
    out = "| target | this run | goal | |\n|---|---|---|---|\n"
    for label, value, goal in rows:
        verdict = "met" if value <= goal else f"**missed** by {value / goal - 1:.0%}"
        out += f"| {label} | {value:.2f} | ≤ {goal:g} | {verdict} |\n"
    return out + "\n"


def section(figures: dict[str, Any]) -> str:
    sizes: dict[int, dict[str, Any]] = figures["sizes"]
    base = sizes.get(0) or next(iter(sizes.values()))
    head = "| | " + " | ".join(f"{n:,} events" for n in sizes) + " |\n"
    head += "|---|" + "---|" * len(sizes) + "\n"

    def row(label: str, cell: Any) -> str:
        return f"| {label} | " + " | ".join(cell(f) for f in sizes.values()) + " |\n"

    table = head + "".join(
        (
            row("engine answer, allowed call (p50)", lambda f: f"{f['allowed_ms']:.2f} ms"),
            row(
                "  / empty history",
                lambda f: f"{f['allowed_ms'] / base['allowed_ms']:.2f}x",
            ),
            row("engine answer, blocked call (p50)", lambda f: f"{f['blocked_ms']:.2f} ms"),
            row(
                "  / empty history",
                lambda f: f"{f['blocked_ms'] / base['blocked_ms']:.2f}x",
            ),
            row("`style audit rules`, last 7 days", lambda f: f"{f['rules_cli_ms']:.0f} ms"),
            row("  its SQL alone", lambda f: f"{f['rules_sql_ms']:.1f} ms"),
            row(
                "`style audit sessions`, last 7 days",
                lambda f: f"{f['sessions_cli_ms']:.0f} ms",
            ),
            row("  its SQL alone", lambda f: f"{f['sessions_sql_ms']:.1f} ms"),
            row("`style audit export` of one day", lambda f: f"{f['export_cli_ms']:.0f} ms"),
            row("database file", lambda f: _mib(f["db_bytes"])),
            row("building the history (cached)", lambda f: f"{f['build_s']:.1f} s"),
        )
    )
    lo, hi = figures["load"]
    text = (
        "## A history that stays fast\n\n"
        "Method (`bench/history_bench.py`): for each size a project with the generated "
        f"{RULES:,}-rule package and a synthetic history appended in bulk (10,000 events a day in "
        "time order, sessions of 250 events, one shell call in 40 blocked and one read in 50 "
        "warned, with their hits and field rows). The engine's answer: a hook request over the "
        "socket to each project's warm engine, spaced 20 ms apart, round-robin over the sizes "
        f"({figures['rounds']} rounds, medians). The commands: new processes, round-robin, "
        "medians; the window ends at the history's last event. 'SQL alone': the report in one "
        f"process over a read-only connection. Load average {lo:.1f} to {hi:.1f} during the run "
        "(2 cores; other work was running when it is over about 1).\n\n"
        + _targets(sizes, base)
        + table
    )
    team = figures.get("team")
    if team:
        reports = "".join(
            f"| `{name}` | {team[f'{name} (all)_s']:.2f} s | {team[f'{name} (7 days)_s']:.2f} s |\n"
            for name in ("summary", "attention", "rules", "errors", "tools", "sessions", "timeline")
        )
        text += (
            f"\n### {team['machines']} machines\n\n"
            f"The {TEAM_SIZE:,}-event history exported whole as each of {team['machines']} "
            f"machines (`style audit export`: {team['export_s']:.1f} s for one machine's "
            f"{TEAM_SIZE // PER_DAY} days; {_mib(team['exports_bytes'])} of Parquet in all), then "
            f"read back with `--from 'exports/**/*.parquet'`: all {team['events']:,} events "
            f"loaded in {team['load_all_s']:.1f} s; with `--since` (the last 7 days, only those "
            f"days' files) {team['week_events']:,} events in {team['load_week_s']:.1f} s; then "
            "each report over what was loaded, in the same process. `style audit rules --from … "
            f"--since 7d` as a new process (the week's load and the report): "
            f"{team['rules_cli_s']:.1f} s.\n\n"
            "| report | whole history | last 7 days |\n|---|---|---|\n" + reports
        )
    return text


if __name__ == "__main__":
    result = run()
    print(section(result))
