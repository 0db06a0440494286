"""Time what `agentstyle.shell` adds to a hook call: import, first parse, warm parse."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TYPICAL = "cargo fmt && git commit -am 'wip' && GIT_TRACE=0 git push -f origin main"

# Runs in a fresh interpreter each time: import costs are only visible on a cold process.
CHILD = """
import json, sys, time
if sys.argv[2] == "preload":  # what the module costs once the hook has these anyway
    import dataclasses, functools, os, re, stat
t0 = time.perf_counter()
import agentstyle.shell as shell
t1 = time.perf_counter()
shell.parse_shell(sys.argv[1])
t2 = time.perf_counter()
for _ in range(200):
    shell.parse_shell(sys.argv[1])
t3 = time.perf_counter()
heavy = {"tree_sitter", "duckdb", "lark", "yaml", "polars"} & set(sys.modules)
print(json.dumps({
    "import module (all shell_* modules)": t1 - t0,
    "first parse": t2 - t1,
    "warm parse": (t3 - t2) / 200,
    "lazy": not heavy,
}))
"""


def run_once(command: str, pycache: str | None, preload: bool) -> dict[str, float | bool]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    if pycache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        # An installed package has its bytecode compiled; cache it outside the work tree.
        env["PYTHONPYCACHEPREFIX"] = pycache
    out = subprocess.run(
        [sys.executable, "-c", CHILD, command, "preload" if preload else "cold"],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    result: dict[str, float | bool] = json.loads(out.stdout)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--command", default=TYPICAL)
    parser.add_argument(
        "--no-bytecode", action="store_true", help="compile the sources on every run"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="shell-bench-") as tmp:
        pycache = None if args.no_bytecode else tmp
        run_once(args.command, pycache, False)  # fill the bytecode cache: time imports only
        runs = [run_once(args.command, pycache, False) for _ in range(args.runs)]
        warm = [run_once(args.command, pycache, True) for _ in range(args.runs)]
    cache = "no bytecode cache" if args.no_bytecode else "bytecode cached"
    print(f"median of {args.runs} fresh interpreters ({cache}), command {args.command!r}")
    lazy = all(r["lazy"] for r in runs)
    print(f"  no heavy module loaded by the analysis: {'yes' if lazy else 'NO'}")
    for key in runs[0]:
        if key == "lazy":
            continue
        values = [float(r[key]) for r in runs]
        print(f"  {key:<44} {statistics.median(values) * 1000:8.3f} ms")
        if key.startswith("import module"):
            values = [float(r[key]) for r in warm]
            label = "import module, stdlib deps already loaded"
            print(f"  {label:<44} {statistics.median(values) * 1000:8.3f} ms")
    return 0 if lazy else 1


if __name__ == "__main__":
    raise SystemExit(main())
