"""What a tool's output costs the engine's answer: a Bash call's result under the bundled guards.

Every call's output passes guard-secrets-output's `redact` rules at `tool.post`. Method: three
database files as `style install` stores them, each with one connection tuned as the resident
engine's: every bundled guard package with what the engine holds (`evaluate.Held`: its own
text tests, docs/design/runtime.md#tests-held), the same without it (the direct path, a hook
with no engine), and every guard but guard-secrets-output (no `redact` rule at all: what a
tool's output cost before the action existed). Round-robin over the three, ROUNDS times, each
evaluates EVENTS Claude Code PostToolUse events of a Bash call whose output is ordinary text of
each size (test runs, commit hashes, package logs, JSON: no secret), then one holding an AWS
key; the figure is the median CPU time of `decide`, which the hook waits for (CPU, not wall:
steadier on a machine other work loads).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from contextlib import ExitStack
from typing import Any

from bench import eval_bench
from bench.corpus import guard_paths
from bench.corpus.secrets import bash_output

SIZES_KB = (1, 10, 40)
ROUNDS = 5
EVENTS = 40
SECRET = "\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzK3QWE8v2q\n"
# name → (with guard-secrets-output, with what the engine holds), in the table's order
CONFIGS = {
    "no redact rule, engine": (False, True),
    "every guard, engine": (True, True),
    "every guard, no engine": (True, False),
}


def ordinary(kb: int, seed: int = 7) -> str:
    """About `kb` KiB of output a coding agent's Bash calls print, with no secret in it."""
    rng = random.Random(seed)
    hexes = "0123456789abcdef"
    shapes = [
        lambda i: f"tests/test_api_{i}.py::test_case_{i} PASSED{' ' * 20}[{i % 100:3d}%]",
        lambda i: f"{''.join(rng.choice(hexes) for _ in range(40))} fix: handle retry {i}",
        lambda i: f"added {i} packages, audited {i * 7} packages in {i % 9}s",
        lambda i: (
            f'{{"id": {i}, "name": "item-{i}", "sha256": "'
            + "".join(rng.choice(hexes) for _ in range(64))
            + '"}'
        ),
        lambda i: f"  Downloading requests-2.{i % 40}.0-py3-none-any.whl (64 kB)",
    ]
    lines: list[str] = []
    size = 0
    while size < kb * 1024:
        line = shapes[len(lines) % len(shapes)](len(lines))
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines) + "\n"


def _decide_ms(conn: Any, held: Any, project: str, output: str, events: int) -> float:
    from agentstyle.evaluator.evaluate import decide
    from agentstyle.harnesses.claude_code import ADAPTER

    cpu: list[float] = []
    for _ in range(events):
        event = ADAPTER.normalize(bash_output(output, project), "PostToolUse")
        conn.execute("BEGIN TRANSACTION")
        c0 = time.thread_time()
        decide(conn, [event], held=held)
        cpu.append(time.thread_time() - c0)
        conn.execute("ROLLBACK")
    return statistics.median(cpu) * 1000


def run(rounds: int = ROUNDS, events: int = EVENTS) -> dict[str, dict[str, float]]:
    """Config → output label → median decide CPU ms over the rounds."""
    from agentstyle.evaluator.evaluate import Held

    every = guard_paths()
    outputs = {f"{kb} KB": ordinary(kb) for kb in SIZES_KB}
    outputs["1 KB with a key"] = ordinary(1) + SECRET
    samples: dict[str, dict[str, list[float]]] = {c: {o: [] for o in outputs} for c in CONFIGS}
    with ExitStack() as stack:
        opened = {}
        for name, (secrets, engine) in CONFIGS.items():
            packages = every if secrets else [p for p in every if "secrets-output" not in p]
            conn, project = stack.enter_context(eval_bench.installed(0, packages))
            opened[name] = (conn, Held.of(conn) if engine else None, str(project))
        for conn, held, project in opened.values():  # warm up: statements, patterns
            for output in outputs.values():
                _decide_ms(conn, held, project, output, 5)
        for _ in range(rounds):
            for name, (conn, held, project) in opened.items():
                for label, output in outputs.items():
                    samples[name][label].append(_decide_ms(conn, held, project, output, events))
    return {c: {o: statistics.median(v) for o, v in by.items()} for c, by in samples.items()}


def section(figures: dict[str, dict[str, float]] | None = None, rounds: int = ROUNDS) -> str:
    figures = figures or run(rounds)
    base, every, direct = (figures[name] for name in CONFIGS)
    rows = "".join(
        f"| {label} | {base[label]:.2f} ms | {every[label]:.2f} ms | "
        f"{every[label] - base[label]:+.2f} ms | {direct[label]:.2f} ms |\n"
        for label in base
    )
    return (
        "## A tool's output and the secret-output guard\n\n"
        f"Method (`bench/output_bench.py`): {rounds} rounds round-robin over three installs, "
        f"{EVENTS} Bash PostToolUse events per output a round, the median of the rounds' "
        "median `decide` CPU time (what the hook waits for beyond its own start and the "
        "engine's socket, the same for all three).\n\n"
        "| output | no `redact` rule (engine) | every guard (engine) | added | every guard "
        "(no engine) |\n|---|---|---|---|---|\n" + rows
    )


if __name__ == "__main__":
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    print(section(rounds=rounds))
