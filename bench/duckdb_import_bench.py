"""What loading DuckDB costs a direct hook: the `duckdb` package against its engine alone.

Method: fresh interpreters of this environment, interleaved round by round (so the machine's
drift falls on both alike): `import duckdb`, `import _duckdb` (what agentstyle/duck.py loads)
and `python -c pass`; medians of the child's CPU time (user + system, from `wait4`) and wall
time from `Popen` to exit. Bytecode cached as an install has it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CASES = {
    "python -c pass": "pass",
    "import duckdb": "import duckdb",
    "import _duckdb": "import _duckdb",
}


def once(code: str, env: dict[str, str]) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"`{code}` failed")
    return wall, usage.ru_utime + usage.ru_stime


ROUNDS = 60


def run(rounds: int = ROUNDS) -> dict[str, tuple[float, float]]:
    """Medians per case: (wall ms, CPU ms)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in CASES}
    for code in CASES.values():  # warm the page cache and the bytecode
        once(code, env)
    for _ in range(rounds):
        for name, code in CASES.items():
            results[name].append(once(code, env))
    return {
        name: (
            statistics.median(w for w, _c in rows) * 1000,
            statistics.median(c for _w, c in rows) * 1000,
        )
        for name, rows in results.items()
    }


def section() -> str:
    """The bench's part of bench/RESULTS.md."""
    figures = run()
    base = figures["python -c pass"][1]
    rows = "".join(
        f"| `{name}` | {wall:.2f} ms | {cpu:.2f} ms | +{cpu - base:.2f} ms |\n"
        for name, (wall, cpu) in figures.items()
    )
    return (
        "## Loading DuckDB: the package or its engine\n\n"
        "Method (`bench/duckdb_import_bench.py`): fresh interpreters of this environment, "
        f"interleaved for {ROUNDS} rounds, medians of the wall time from `Popen` to exit and of "
        "the child's CPU time. A direct hook loads the engine (`_duckdb`, agentstyle/duck.py), "
        "not the `duckdb` package.\n\n"
        "| command | median | CPU (user + system) | CPU over `python -c pass` |\n"
        "|---|---|---|---|\n" + rows
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    figures = run(args.rounds)
    base = figures["python -c pass"][1]
    print(f"{args.rounds} interleaved rounds; medians")
    for name, (wall, cpu) in figures.items():
        print(f"{name:16} wall {wall:7.2f} ms  cpu {cpu:7.2f} ms  (+{cpu - base:.2f})")


if __name__ == "__main__":
    main()
