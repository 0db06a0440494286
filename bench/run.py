"""`make bench`: run every benchmark in one process run and write bench/RESULTS.md."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from bench import compile_bench

ROOT = Path(__file__).resolve().parent.parent


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def main() -> int:
    sections: list[str] = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print("compile: 10,000 generated rules (median of 3) ...", flush=True)
    figures = compile_bench.run(10_000, 3)
    rows = "\n".join(f"| {k} | {v:.2f} s |" for k, v in figures.items())
    sections.append(
        "## Compile 10,000 rules\n\n"
        "Method: `bench/generate.py` writes 10,000 rule files of five realistic shapes (shell "
        "guard, edit regex, read warn with `any`, prompt contains, fetch block); the package "
        "is loaded, validated (RE2 patterns compiled by DuckDB), planned for claude-code, "
        "lowered and stored into an in-memory DuckDB. Median of 3 runs in one process.\n\n"
        f"| pass | median |\n|---|---|\n{rows}\n\nTarget: total under 10 s.\n"
    )
    print("shell parsing cost on the hook path ...", flush=True)
    shell = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "shell_import.py")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    sections.append(
        "## Shell parsing on the hook path\n\n"
        "Method: `bench/shell_import.py`, fresh interpreters (median of 20): importing "
        "`agentstyle.engine.shell`, importing tree-sitter and building the bash parser (paid "
        "only by shell events), the first and later parses of a typical compound command.\n\n"
        f"```\n{shell.stdout.strip()}\n```\n"
    )
    text = (
        f"# Benchmark results\n\nRun {started} on {machine()}.\n"
        "Every figure below comes from one `make bench` run on this machine.\n\n"
        + "\n".join(sections)
    )
    (ROOT / "bench" / "RESULTS.md").write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
