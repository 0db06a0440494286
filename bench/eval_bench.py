"""The engine's evaluation of one event alone, statement by statement.

A generated package is installed into a database file as `style install` stores it, and one
connection tuned as the resident engine's (`store.tune_for_events`) evaluates PreToolUse Bash
events the way the engine does: `decide` (the answer) then `record` and `COMMIT`. Every
statement is timed, wall and CPU (DuckDB runs the plan on the calling thread), so a figure
says what each statement costs even on a loaded machine, where a preempted query's wall time
jumps by whole scheduler slices.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from agentstyle.evaluator import statements, store
from agentstyle.evaluator.compiled import compile_checked
from agentstyle.evaluator.evaluate import Held, decide
from agentstyle.evaluator.recording import record
from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE_CODE
from bench.generate import write_package

COMMAND = "cargo test -p acme-auth && ls -la"


def _texts() -> dict[str, str]:
    """Every statement's text → its name (for those run as text, not parsed once)."""
    folder = resources.files("agentstyle.sql")
    return {
        store.sql(f"{area.name}/{f.name[:-4]}"): f"{area.name}/{f.name[:-4]}"
        for area in folder.iterdir()
        if area.is_dir()
        for f in area.iterdir()
        if f.name.endswith(".sql")
    }


_TEXTS = _texts()


class Timed:
    """A connection that times every `execute` by statement name (wall, CPU seconds)."""

    def __init__(self, conn: store.Connection) -> None:
        self.conn = conn
        self.samples: dict[str, list[tuple[float, float]]] = defaultdict(list)

    def _name(self, query: Any) -> str:
        for name, parsed in statements._PARSED.items():
            if parsed is query:
                return name
        return _TEXTS.get(str(query)) or str(query).split()[0]

    def execute(self, query: Any, params: Any = None) -> Any:
        c0, t0 = time.thread_time(), time.perf_counter()
        out = self.conn.execute(query, params) if params is not None else self.conn.execute(query)
        self.samples[self._name(query)].append((time.perf_counter() - t0, time.thread_time() - c0))
        return out

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


@contextmanager
def installed(
    rules: int, packages: list[str] | None = None
) -> Iterator[tuple[store.Connection, Path]]:
    """A database file holding `rules` generated rules, or the given packages instead, with
    the built-in self-protection rules an install adds for a project in the scratch folder;
    the connection and that project's folder."""
    from agentstyle.install.lockfile import HarnessInstall
    from agentstyle.install.selfprotect import builtin_package

    with tempfile.TemporaryDirectory(prefix="style-eval-bench-") as tmp:
        if packages is None:
            write_package(Path(tmp) / "pkg", rules)
            packages = [str(Path(tmp) / "pkg")]
        project = Path(tmp) / "project"
        project.mkdir()
        harnesses = {"claude-code": HarnessInstall()}
        with builtin_package(project, harnesses, persist=False, packages=packages) as builtin:
            assert builtin is not None
            compiled = compile_checked([*packages, str(builtin)], ["claude-code"])
        conn = store.connect(Path(tmp) / "style.duckdb")
        try:
            store.migrate(conn)
            store.replace_policy(conn, compiled.rows)
            store.tune_for_events(conn)
            yield conn, project
        finally:
            conn.close()


def payload(i: int, command: str = COMMAND, cwd: str = "/p") -> dict[str, Any]:
    return {
        "session_id": "bench",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": f"toolu_{i}",
    }


def run(
    rules: int = 1000,
    events: int = 200,
    warmup: int = 20,
    command: str = COMMAND,
    guards: bool = False,
) -> dict[str, Any]:
    """Medians over `events` events: the answer (decide), the whole event (with record and
    commit), and each statement (wall and CPU, ms). `command`: the Bash call evaluated;
    `guards`: against every bundled guard package (`guard-*`) instead of generated rules."""
    from bench.corpus import guard_paths

    with installed(rules, guard_paths() if guards else None) as (raw, project):
        if guards:
            counted = "SELECT count(*) FROM rules WHERE rule_id NOT LIKE 'style/%'"
            rules = int(raw.execute(counted).fetchone()[0])  # the guards' own rules
        conn = Timed(raw)
        held = Held.of(raw)  # what the resident engine reads once
        answer: list[tuple[float, float]] = []
        whole: list[tuple[float, float]] = []
        for i in range(warmup + events):
            if i == warmup:
                conn.samples.clear()
            ev = CLAUDE_CODE.normalize(payload(i, command, str(project)), "PreToolUse")
            c0, t0 = time.thread_time(), time.perf_counter()
            conn.execute("BEGIN TRANSACTION")
            evaluations = decide(conn, [ev], held=held)  # type: ignore[arg-type]
            c1, t1 = time.thread_time(), time.perf_counter()
            record(conn, evaluations, "hits", [0])  # type: ignore[arg-type]
            conn.execute("COMMIT")
            c2, t2 = time.thread_time(), time.perf_counter()
            if i >= warmup:
                answer.append((t1 - t0, c1 - c0))
                whole.append((t2 - t0, c2 - c0))
    per_statement = {
        name: (
            statistics.median(w for w, _ in s) * 1000,
            statistics.median(c for _, c in s) * 1000,
            len(s) / events,
        )
        for name, s in conn.samples.items()
    }
    return {
        "rules": rules,
        "guards": guards,
        "command": command,
        "events": events,
        "answer_ms": statistics.median(w for w, _ in answer) * 1000,
        "answer_cpu_ms": statistics.median(c for _, c in answer) * 1000,
        "whole_ms": statistics.median(w for w, _ in whole) * 1000,
        "whole_cpu_ms": statistics.median(c for _, c in whole) * 1000,
        "statements": dict(sorted(per_statement.items(), key=lambda kv: -kv[1][1])),
    }


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [1000]
    for n in sizes:
        r = run(n)
        print(
            f"{n} rules: answer {r['answer_ms']:.2f} ms (cpu {r['answer_cpu_ms']:.2f}), "
            f"with record+commit {r['whole_ms']:.2f} ms (cpu {r['whole_cpu_ms']:.2f})"
        )
        for name, (wall, cpu, per) in r["statements"].items():
            print(f"  {wall:7.2f} ms wall {cpu:7.2f} ms cpu  x{per:.0f}  {name}")


if __name__ == "__main__":
    main()
