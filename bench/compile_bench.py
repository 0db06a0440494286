"""Compile benchmark: load, validate, plan, lower and store N generated rules."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from agentstyle.evaluator.store import memory_store, replace_policy
from agentstyle.policy.compile import compile_policy, load_and_validate
from bench.generate import write_package


def compile_once(folder: Path) -> dict[str, float]:
    t0 = time.perf_counter()
    compiled = load_and_validate([str(folder)])
    t1 = time.perf_counter()
    compile_policy(compiled, ["claude-code"])
    t2 = time.perf_counter()
    conn = memory_store()
    replace_policy(conn, compiled.rows)
    conn.close()
    t3 = time.perf_counter()
    assert compiled.ok, compiled.diagnostics[:3]
    return {"validate": t1 - t0, "plan+lower": t2 - t1, "store": t3 - t2, "total": t3 - t0}


def run(n: int = 10_000, repeats: int = 3) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_package(Path(tmp) / "pkg", n)
        runs = [compile_once(folder) for _ in range(repeats)]
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<12} {value:.2f} s")
