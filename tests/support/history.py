"""A known history for the audit tests: the rows of `events`, `hits`, `event_fields`, `claims`
and `sessions` over three days and three sessions (`build_history`), written into a project's
database as the hooks would have left it (`write_history`), in a project with the audit tests'
package installed (`audited_project`)."""

from __future__ import annotations

import datetime as dt
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from agentstyle.evaluator.locking import FileLock
from tests.support.environment import REPO
from tests.support.project import Project

DATA = REPO / "tests" / "data" / "audit"
DAY1 = dt.datetime(2024, 5, 1, 10, 0, 0)
DAY2 = dt.datetime(2024, 5, 2, 14, 0, 0)
DAY3 = dt.datetime(2024, 5, 3, 9, 0, 0)
CC = "claude-code"


# -- the known history ---------------------------------------------------------------------------


@dataclass
class History:
    """Rows for the history tables, in the schema's column order."""

    events: list[tuple[Any, ...]] = field(default_factory=list)
    hits: list[tuple[Any, ...]] = field(default_factory=list)
    fields: list[tuple[Any, ...]] = field(default_factory=list)
    claims: list[tuple[Any, ...]] = field(default_factory=list)
    sessions: list[tuple[Any, ...]] = field(default_factory=list)

    def event(
        self,
        ts: dt.datetime,
        point: str,
        native: str,
        session: str,
        *,
        harness: str = CC,
        tool: str | None = None,
        native_tool: str | None = None,
        call_id: str | None = None,
        failed: bool = False,
        verdict: str = "none",
        latency_us: int | None = 2000,
        error: str | None = None,
    ) -> int:
        event_id = len(self.events) + 1
        self.events.append(
            (
                event_id,
                ts,
                harness,
                native,
                point,
                session,
                None,
                1,
                0,
                0,
                tool,
                native_tool,
                call_id,
                failed,
                "/work/acme",
                verdict,
                latency_us,
                error,
            )
        )
        return event_id

    def hit(self, event_id: int, rule: str, outcome: str, tokens: int = 0) -> None:
        point = self.events[event_id - 1][4]
        detail = "template error: `x` is undefined" if outcome == "error" else None
        self.hits.append((event_id, rule, point, outcome, tokens, detail))

    def field(self, event_id: int, name: str, value: str) -> None:
        self.fields.append((event_id, name, 0, value))

    def claim(self, event_id: int, rule: str) -> None:
        _, _, harness, _, _, session, *_ = self.events[event_id - 1]
        self.claims.append((f"key-{event_id}-{rule}", harness, session, rule, event_id, 0))


class Clock:
    """One event a second from `start`."""

    def __init__(self, start: dt.datetime) -> None:
        self.now = start - dt.timedelta(seconds=1)

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(seconds=1)
        return self.now


def build_history() -> History:
    h = History()
    # Day 1, session s1 (claude-code): 140 events from 10:00:00, one a second.
    tick = Clock(DAY1)
    start = h.event(tick(), "session.start", "SessionStart", "s1")
    h.hit(start, "audit/brief", "emitted", 20)
    h.claim(start, "audit/brief")
    for k in range(1, 11):  # ten prompts taking 1..10 ms
        e = h.event(tick(), "prompt.submitted", "UserPromptSubmit", "s1", latency_us=1000 * k)
        if k == 3:
            h.hit(e, "audit/quiet", "emitted", 5)
            h.hit(e, "old/gone", "emitted", 7)  # a rule since uninstalled
            h.field(e, "prompt", "deploy it")
        if k == 7:
            h.hit(e, "audit/quiet", "dedup-suppressed", 5)
            h.field(e, "prompt", "deploy again")
    for i in range(120):  # 120 shell calls: 10 blocked by no-rm, 30 asked by push-ask
        verdict = "block" if i < 10 else "ask" if i < 40 else "none"
        e = h.event(
            tick(),
            "tool.pre",
            "PreToolUse",
            "s1",
            tool="shell",
            native_tool="Bash",
            call_id=f"s1-bash-{i}",
            verdict=verdict,
        )
        if i < 10:
            h.hit(e, "audit/no-rm", "blocked", 12)
            h.field(e, "tool.input.command", "rm -rf ./target")
        elif i < 40:
            h.hit(e, "audit/push-ask", "asked", 8)
            h.field(e, "tool.input.command", "git push origin main")
    for i in range(5):  # edit-note never fires
        h.event(
            tick(),
            "tool.pre",
            "PreToolUse",
            "s1",
            tool="file.edit",
            native_tool="Edit",
            call_id=f"s1-edit-{i}",
        )
    flaky = ["error", "error", "emitted", "budget-dropped"]
    for i, outcome in enumerate(flaky):  # flaky fires on every write, failing twice
        e = h.event(
            tick(),
            "tool.pre",
            "PreToolUse",
            "s1",
            tool="file.write",
            native_tool="Write",
            call_id=f"s1-write-{i}",
        )
        h.hit(e, "audit/flaky", outcome, 0 if outcome == "error" else 10)
        if outcome == "emitted":
            h.claim(e, "audit/flaky")
    s1_last = tick.now
    # Day 2, session s2 (claude-code): 25 events from 14:00:00.
    tick = Clock(DAY2)
    start = h.event(tick(), "session.start", "SessionStart", "s2")
    h.hit(start, "audit/brief", "budget-truncated", 15)
    h.claim(start, "audit/brief")
    for i in range(20):  # 20 shell calls, 5 blocked
        e = h.event(
            tick(),
            "tool.pre",
            "PreToolUse",
            "s2",
            tool="shell",
            native_tool="Bash",
            call_id=f"s2-bash-{i}",
            verdict="block" if i < 5 else "none",
        )
        if i < 5:
            h.hit(e, "audit/no-rm", "blocked", 12)
            h.field(e, "tool.input.command", "rm -rf /tmp/x")
    h.event(
        tick(),
        "tool.pre",
        "PreToolUse",
        "s2",
        latency_us=None,
        error="the rules database stayed locked past the deadline",
    )
    for i, (point, native, failed) in enumerate(
        [
            ("tool.post", "PostToolUse", False),
            ("tool.post", "PostToolUse", False),
            ("tool.failed", "PostToolUseFailure", True),
        ]
    ):
        h.event(
            tick(),
            point,
            native,
            "s2",
            tool="shell",
            native_tool="Bash",
            call_id=f"s2-bash-{10 + i}",
            failed=failed,
        )
    s2_last = tick.now
    # Day 3, session s3 on another harness (no rules placed there): 4 prompts.
    tick = Clock(DAY3)
    for _ in range(4):
        h.event(tick(), "prompt.submitted", "user_prompt", "s3", harness="codex", latency_us=500)
    s3_last = tick.now
    h.sessions = [
        (CC, "s1", 1, 0, 10, "claude-sonnet-4-5", DAY1, s1_last),
        (CC, "s2", 1, 0, 0, "claude-opus-4", DAY2, s2_last),
        ("codex", "s3", 1, 0, 4, "gpt-5", DAY3, s3_last),
    ]
    return h


def write_history(project: Project, history: History) -> None:
    with FileLock(project.style / "style.lock", time.monotonic() + 30):
        conn = duckdb.connect(str(project.database))
        try:
            for table, rows in (
                ("events", history.events),
                ("hits", history.hits),
                ("event_fields", history.fields),
                ("claims", history.claims),
                ("sessions", history.sessions),
            ):
                # the rows give the leading columns; later migrations' columns keep defaults
                names = [c[0] for c in conn.execute(f"DESCRIBE {table}").fetchall()]
                columns = ", ".join(names[: len(rows[0])])
                marks = ", ".join("?" * len(rows[0]))
                conn.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", rows)
            # the id counter as the hooks that wrote these events would have left it
            conn.execute("UPDATE event_counter SET last_id = (SELECT max(event_id) FROM events)")
        finally:
            conn.close()


def audited_project(base: Path, *, history: bool = True) -> Project:
    """The audit tests' package (tests/data/audit/pkg) installed in `base/acme`, its home
    `base/home`, and with `history` the known history written into its database."""
    project = Project(base / "acme", base / "home")
    shutil.copytree(DATA / "pkg", project.root / "pkg")
    # The reports are about the package's rules: self-protection
    # (docs/design/cli.md#self-protection) is left out here.
    (project.root / "style.lock.yaml").write_text("protect: false\n", encoding="utf-8")
    project.install("pkg")
    if history:
        write_history(project, build_history())
    return project
