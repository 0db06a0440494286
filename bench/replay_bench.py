"""Replay throughput: the bundled transcripts replayed against the bundled rule library.

`datasets/transcripts/*.jsonl` (seven files, six synthetic sessions) are read into hook events
and replayed through `style replay`'s engine (`agentstyle.audit.replay`) against `starter` and
the seven library packages plus the built-in self-protection rules, into a private in-memory
database: batched as replay runs, and one event per query (what the hooks do, one process per
event aside) for comparison. Median of `runs` runs; the policy is compiled once per run and
not timed.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from agentstyle.audit import replay as rp
from agentstyle.audit.transcripts import read_sources
from agentstyle.install.selfprotect import plan_packages

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = ROOT / "datasets" / "transcripts"
PACKAGES = [
    ROOT / "agentstyle" / "library" / name
    for name in (
        "starter",
        "guard-destructive",
        "guard-secrets",
        "guard-one-way-doors",
        "guard-git-identity",
        "rust-unwrap",
        "project-brief",
        "tests-before-stop",
    )
]


def _replay(events: list[Any], batch_size: int) -> rp.Replayed:
    with plan_packages("claude-code", ROOT) as builtin:
        policy = rp.load_policy([str(p) for p in PACKAGES] + builtin, "claude-code")
    try:
        return rp.replay(policy, events, batch_size=batch_size)
    finally:
        policy.close()


def run(runs: int = 3, single: int = 200) -> dict[str, float | int]:
    """Figures of one benchmark run (`single`: events replayed one per query, for comparison)."""
    t0 = time.perf_counter()
    sources = read_sources([TRANSCRIPTS])
    read_s = time.perf_counter() - t0
    results = [_replay(sources.events, rp.DEFAULT_BATCH) for _ in range(runs)]
    batched = statistics.median(r.seconds for r in results)
    evaluated = results[0].evaluated
    one = _replay(sources.events[:single], 1)
    return {
        "transcript records read into hook events": len(sources.events),
        "read (s)": read_s,
        "events evaluated (delivered to the policy's hooks)": evaluated,
        "rules": len(results[0].policy.compiled.rows.rules),
        "batches": results[0].batches,
        "batches cut at a dependent event": results[0].cuts,
        "replay, batched (s, median)": batched,
        "replay, batched (events/s)": evaluated / batched,
        "replay, one event per query (events/s)": one.evaluated / one.seconds,
    }


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value:,.2f}" if isinstance(value, float) else f"{key}: {value}")
