"""Batch throughput: events per second through the SQL evaluator (the path replay uses)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from agentstyle.evaluator.compiled import memory_policy
from agentstyle.evaluator.evaluate import evaluate
from agentstyle.evaluator.event import Event
from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE_CODE
from bench.eval_bench import Timed
from bench.generate import write_package


def payload(i: int, rules: int) -> tuple[str, dict[str, object]]:
    """Four event shapes in turn, each aimed at one generated rule (so some rules fire)."""
    session = {"session_id": f"s{i % 50}", "cwd": "/p"}
    k = i % 4
    if k == 0:
        return "PreToolUse", {
            **session,
            "tool_name": "Bash",
            "tool_input": {"command": f"tool{(i * 5) % rules} --danger x"},
        }
    if k == 1:
        return "PreToolUse", {
            **session,
            "tool_name": "Edit",
            "tool_input": {
                "file_path": f"/p/src/mod{(i * 5 + 1) % rules}/a.rs",
                "old_string": "a",
                "new_string": "x.unwrap()",
            },
        }
    if k == 2:
        return "UserPromptSubmit", {**session, "prompt": f"fix ticket-{(i * 5 + 3) % rules}"}
    return "PreToolUse", {
        **session,
        "tool_name": "Read",
        "tool_input": {"file_path": f"/p/secrets{(i * 5 + 2) % rules}/x"},
    }


def run(events: int = 100_000, rules: int = 1000, batch: int = 5000) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        write_package(Path(tmp) / "pkg", rules)
        conn, _ = memory_policy([str(Path(tmp) / "pkg")], "claude-code")
    t0 = time.perf_counter()
    normalized: list[Event] = [
        CLAUDE_CODE.normalize(p, e) for e, p in (payload(i, rules) for i in range(events))
    ]
    t1 = time.perf_counter()
    fired = 0
    timed = Timed(conn)  # each statement's time, to say what the SQL costs of the whole
    for start in range(0, events, batch):
        timed.execute("BEGIN TRANSACTION")
        for ev in evaluate(timed, normalized[start : start + batch], "off"):  # type: ignore[arg-type]
            fired += sum(1 for c in ev.candidates if c.outcome)
        timed.execute("COMMIT")
    t2 = time.perf_counter()
    conn.close()
    per_event = {
        name: sum(w for w, _ in samples) / events * 1e6 for name, samples in timed.samples.items()
    }
    return {
        "events": events,
        "rules": rules,
        "batch": batch,
        "fired": fired,
        "normalize_per_s": events / (t1 - t0),
        "evaluate_per_s": events / (t2 - t1),
        "end_to_end_per_s": events / (t2 - t0),
        "sql_us_per_event": sum(per_event.values()),
        "statements_us_per_event": dict(sorted(per_event.items(), key=lambda kv: -kv[1])),
    }


if __name__ == "__main__":
    print(run(20_000))
