"""`style audit` over history written by the real hook: `style install`, then hook subprocesses.

What the reports say is checked against what the hooks answered, so the audit SQL and the
runtime agree on points, tools, outcomes and candidates.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import style_in_process
from tests.support.environment import clean_env
from tests.support.history import audited_project
from tests.support.hooks import HookResult, new_session
from tests.support.project import Project


def style(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    """The reports are about what they say: the real commands, run in this process."""
    return style_in_process(project.root, project.home, *args)


def report(project: Project, *args: str) -> list[dict[str, Any]]:
    proc = style(project, "audit", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, Any]] = json.loads(proc.stdout)["rows"]
    return rows


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, list[HookResult]]:
    base = tmp_path_factory.mktemp("audit-hooks")
    project = audited_project(base, history=False)
    sid = new_session()
    root = project.root.as_posix()

    def tool(n: int, fixture: str, tool_input: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        payload = project.payload(
            fixture, session_id=sid, tool_use_id=f"toolu_{n}", tool_input=tool_input
        )
        return "PreToolUse", payload

    calls = [
        ("SessionStart", project.payload("SessionStart.startup.json", session_id=sid)),
        (
            "UserPromptSubmit",
            project.payload("UserPromptSubmit.json", session_id=sid, prompt="deploy to staging"),
        ),
        (
            "UserPromptSubmit",
            project.payload("UserPromptSubmit.json", session_id=sid, prompt="add a test"),
        ),
        tool(1, "PreToolUse.bash-rm-rf.json", {"command": "rm -rf ./target /tmp/acme-build"}),
        tool(2, "PreToolUse.bash-rm-rf.json", {"command": "git push origin main"}),
        tool(3, "PreToolUse.bash-rm-rf.json", {"command": "cargo build"}),
        tool(
            4,
            "PreToolUse.edit-rs.json",
            {"file_path": f"{root}/docs/guide/intro.md", "old_string": "a", "new_string": "b"},
        ),
        tool(5, "PreToolUse.write-env.json", {"file_path": f"{root}/src/new.rs", "content": "x"}),
        tool(6, "PreToolUse.write-env.json", {"file_path": f"{root}/src/old.rs", "content": "y"}),
    ]
    results = [project.hook(event, payload) for event, payload in calls]
    return project, results


def decision(result: HookResult) -> str | None:
    specific = (result.json or {}).get("hookSpecificOutput") or {}
    value = specific.get("permissionDecision")
    return value if isinstance(value, str) else None


def test_the_hooks_answered_as_the_rules_say(session: tuple[Project, list[HookResult]]) -> None:
    _, results = session
    assert [decision(r) for r in results[3:6]] == ["deny", "ask", None]
    assert results[0].context is not None and "acme-api" in results[0].context
    assert results[6].context is not None and "generated" in results[6].context
    assert results[7].context == "New files need a licence header."
    assert results[8].stdout == ""  # `repeat: session`: the second write is deduplicated


def test_rules_report_matches_the_hooks(session: tuple[Project, list[HookResult]]) -> None:
    project, _ = session
    # A handful of events: flags are asked of every one (the default needs 20 candidates).
    got = {r["rule"]: r for r in report(project, "rules", "--min-events", "1")}
    brief_tokens = project.scalar("SELECT tokens FROM hits WHERE rule_id = 'audit/brief'")
    assert brief_tokens > 0

    def pick(rule: str, *keys: str) -> tuple[Any, ...]:
        return tuple(got[rule][k] for k in keys)

    keys = ("candidates", "fired", "emitted", "blocked", "asked", "dedup_suppressed", "flag")
    assert pick("audit/no-rm", *keys) == (3, 1, 0, 1, 0, 0, None)
    assert pick("audit/push-ask", *keys) == (3, 1, 0, 0, 1, 0, "noisy")
    # the project brief speaks at every session start by design: no flag
    assert pick("audit/brief", *keys) == (1, 1, 1, 0, 0, 0, None)
    assert pick("audit/edit-note", *keys) == (1, 1, 1, 0, 0, 0, "noisy,broad")
    # no condition: never `broad`, but an inject on every write is noisy
    assert pick("audit/flaky", *keys) == (2, 2, 1, 0, 0, 1, "noisy")
    assert pick("audit/quiet", *keys) == (2, 1, 1, 0, 0, 0, "noisy")
    # at the default sample none of these few events flags anything
    assert {r["flag"] for r in report(project, "rules")} == {None}
    assert got["audit/no-rm"]["block_rate"] == round(1 / 3, 4)
    assert got["audit/brief"]["tokens_emitted"] == brief_tokens
    assert all(r["last_fired"] is not None for r in got.values())


def test_summary_tools_sessions_match_the_hooks(
    session: tuple[Project, list[HookResult]],
) -> None:
    project, _ = session
    summary = {r["point"]: r for r in report(project)}
    assert sorted(summary) == ["prompt.submitted", "session.start", "tool.pre"]
    pre = summary["tool.pre"]
    assert (pre["events"], pre["events_hit"], pre["blocked"], pre["asked"]) == (6, 5, 1, 1)
    assert pre["block_rate"] == round(1 / 6, 4) and pre["errors"] == 0
    assert pre["latency_p50_ms"] > 0 and pre["latency_p95_ms"] >= pre["latency_p50_ms"]
    assert (summary["prompt.submitted"]["events"], summary["prompt.submitted"]["events_hit"]) == (
        2,
        1,
    )
    tools = [(r["tool"], r["calls"], r["blocked"], r["asked"], r["top_blocking_rule"])
             for r in report(project, "tools")]  # fmt: skip
    assert tools == [
        ("shell", 3, 1, 1, "audit/no-rm"),
        ("file.write", 2, 0, 0, None),
        ("file.edit", 1, 0, 0, None),
    ]
    [row] = report(project, "sessions")
    assert (row["events"], row["prompts"], row["hits"], row["blocks"]) == (9, 2, 7, 1)
    assert row["model"] == "claude-sonnet-4-5-20250929"
    [day] = report(project, "timeline")
    assert (day["events"], day["hits"], day["blocks"]) == (9, 7, 1)


def test_export_and_from_over_real_history(
    session: tuple[Project, list[HookResult]], tmp_path: Path
) -> None:
    project, _ = session
    out = tmp_path / "share"
    proc = style(project, "audit", "export", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("exported 9 events, 7 hits, ")
    for name in ("summary", "rules", "tools", "sessions", "timeline"):
        assert report(project, name, "--from", str(out)) == report(project, name)
    html = tmp_path / "audit.html"
    proc = style(project, "audit", "--format", "html", "--out", str(html))
    assert proc.returncode == 0, proc.stderr
    assert "audit/no-rm" in html.read_text("utf-8")


def test_audit_stops_a_running_engine_first(
    session: tuple[Project, list[HookResult]],
) -> None:
    """The engine holds the database open; `style audit` asks it to exit, then reads."""
    project, _ = session
    engine = subprocess.Popen(
        [sys.executable, "-m", "agentstyle.runtime.resident", str(project.style)],
        cwd=project.root,
        env=clean_env(project.home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while not (project.style / "engine.sock").exists():
            assert engine.poll() is None and time.monotonic() < deadline, "engine did not start"
            time.sleep(0.05)
        proc = project.process("audit", "sessions", "--format", "json")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["rows"][0]["events"] == 9
        assert engine.wait(timeout=20) == 0
    finally:
        if engine.poll() is None:
            os.kill(engine.pid, 9)
            engine.wait()
