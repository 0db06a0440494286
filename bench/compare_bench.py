"""The engine's answer against every bundled guard package, beside another checkout of STYLE.

`python -m bench.compare_bench REF_CHECKOUT` (or `make bench-compare REF=…`): REF_CHECKOUT is a
second working tree of this repository at an earlier commit, set up with its own `.venv` (`git
worktree add ../ref <commit> && make -C ../ref setup`). Round-robin, ROUNDS times, each checkout
runs `bench.eval_bench` in a new process of its own interpreter against its own bundled guards
(every `guard-*` package it ships) for each call of CALLS: the answer's median wall and CPU
time (`decide`, what the hook waits for) and the process's peak resident memory (the compiled
policy, DuckDB and the grammars, as a resident engine holds them). The figures are medians over
the rounds; each ratio is this checkout's median over the reference's, from the same rounds, so
load from other work falls on both alike. CPU time is the steadier figure on a busy machine.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROUNDS = 5
EVENTS = 150
CALLS = {
    "no rule fires": "cargo test -p acme-auth && ls -la",
    "refused (force push)": "git push --force origin main",
    "a delete in the project": "rm -rf build && ls -la",
}
# Run inside each checkout: its own eval_bench, its own guards.
_PROBE = """
import json, resource, sys
from bench import eval_bench
out = {}
for name, cmd in json.loads(sys.argv[1]).items():
    r = eval_bench.run(guards=True, command=cmd, events=int(sys.argv[2]), warmup=20)
    out[name] = [r["answer_ms"], r["answer_cpu_ms"], r["rules"]]
out["rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def probe(checkout: Path) -> dict[str, list[float] | float]:
    python = checkout / ".venv" / "bin" / "python"
    done = subprocess.run(
        [str(python), "-c", _PROBE, json.dumps(CALLS), str(EVENTS)],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    result: dict[str, list[float] | float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run(reference: Path, rounds: int = ROUNDS) -> dict[str, dict[str, float]]:
    samples: dict[str, list[dict[str, list[float] | float]]] = {"this": [], "reference": []}
    for _ in range(rounds):
        samples["this"].append(probe(ROOT))
        samples["reference"].append(probe(reference))
    figures: dict[str, dict[str, float]] = {}
    for side, runs in samples.items():
        f: dict[str, float] = {}
        for call in CALLS:
            f[f"{call}|wall"] = statistics.median(float(r[call][0]) for r in runs)  # type: ignore[index]
            f[f"{call}|cpu"] = statistics.median(float(r[call][1]) for r in runs)  # type: ignore[index]
            f["rules"] = float(runs[0][call][2])  # type: ignore[index]
        f["rss_mib"] = statistics.median(float(r["rss_mib"]) for r in runs)  # type: ignore[arg-type]
        figures[side] = f
    return figures


def table(figures: dict[str, dict[str, float]], reference: str) -> str:
    this, ref = figures["this"], figures["reference"]
    rows = "".join(
        f"| {call} | {ref[f'{call}|wall']:.2f} ms ({ref[f'{call}|cpu']:.2f} CPU) "
        f"| {this[f'{call}|wall']:.2f} ms ({this[f'{call}|cpu']:.2f} CPU) "
        f"| {this[f'{call}|wall'] / ref[f'{call}|wall']:.2f}x "
        f"| {this[f'{call}|cpu'] / ref[f'{call}|cpu']:.2f}x |\n"
        for call in CALLS
    )
    return (
        f"| call | {reference} ({ref['rules']:.0f} guard rules) | this ({this['rules']:.0f} guard "
        "rules) | wall ratio | CPU ratio |\n|---|---|---|---|---|\n"
        + rows
        + f"| peak memory of the process | {ref['rss_mib']:.0f} MiB | {this['rss_mib']:.0f} MiB "
        f"| {this['rss_mib'] / ref['rss_mib']:.2f}x | |\n"
    )


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m bench.compare_bench REF_CHECKOUT", file=sys.stderr)
        return 2
    reference = Path(argv[0]).resolve()
    if not (reference / ".venv" / "bin" / "python").exists():
        print(f"bench: {reference} has no .venv (run `make setup` there)", file=sys.stderr)
        return 2
    head = subprocess.run(
        ["git", "-C", str(reference), "log", "-1", "--format=%h"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(table(run(reference), f"reference {head}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
