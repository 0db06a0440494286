"""Never hold the agent, in the real Claude Code: a FIFO planted in place of the rules database
(opening it would wait forever for a writer) under a `--fail-closed` install. The session runs
to its end, the guarded call is refused, and by the client's own debug log no hook took more
than the 2 s budget (docs/design/runtime.md#hook-budget)."""

from __future__ import annotations

import os

from agentstyle.limits import BUDGET_S
from e2e.clients import Session
from e2e.mockapi import Script
from e2e.scenarios import BLOCK_PACKAGE, shell


def test_a_fifo_database_is_refused_within_the_budget(session) -> None:
    s: Session = session("claude-code", Script([[shell("claude-code", "touch created.txt")]]))
    s.install(BLOCK_PACKAGE, "--fail-closed")
    s.style("engine", "stop", check=False)
    database = s.project / ".style" / "style.duckdb"
    database.unlink()
    os.mkfifo(database)
    run = s.run("create a file")
    assert s.requests(), "the session never reached the model"
    assert not (s.project / "created.txt").exists(), "the guarded call ran"
    hooks = run.hook_runs()
    assert any(h["event"] == "PreToolUse" for h in hooks), hooks
    slow = [h for h in hooks if h["ms"] > BUDGET_S * 1000]
    assert not slow, f"hooks over the {BUDGET_S:g} s budget: {slow}"
