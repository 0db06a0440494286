"""Each case through STYLE's bundled guards, the way Claude Code's hook would evaluate it.

A rule's `fix` is not applied here: a call its rule refused counts as refused, since the
command as written never runs (docs/design/runtime.md#fixes).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.corpus.cases import ROOT, Case

LIBRARY = ROOT / "agentstyle" / "library"
SCRATCH = ROOT / "build"  # git ignores it
# Every bundled guard package, installed together: a new `guard-*` package in the library is
# measured as soon as it exists.
GUARDS = tuple(sorted(p.parent.name for p in LIBRARY.glob("guard-*/STYLE.yaml")))


@dataclass(frozen=True, slots=True)
class Outcome:
    verdict: str  # block | ask | allow (no opinion counts as allow)
    rules: tuple[str, ...]  # rules that produced the answer
    notes: tuple[str, ...]


def prepare(case: Case, base: Path) -> Path:
    """The scratch project of one case: its files and links written, its path returned."""
    if not case.files and not case.links:
        shared = base / "empty" / "project"
        shared.mkdir(parents=True, exist_ok=True)
        return shared
    project = base / case.name / "project"
    project.mkdir(parents=True, exist_ok=True)
    for rel, text in case.files.items():
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for rel, target in case.links.items():
        link = project / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            os.symlink(target, link)
    return project


def guard_paths() -> list[str]:
    return [str(LIBRARY / name) for name in GUARDS]


def run(cases: Sequence[Case], base: Path | None = None, batch: int = 200) -> dict[str, Outcome]:
    """Every case through the adapter and the evaluator; case name -> outcome.

    Cases are evaluated in batches (the evaluator's replay path), each in its own session so
    that no case sees another's history, and every batch is rolled back.
    """
    from agentstyle.evaluator.compiled import memory_policy

    conn, _ = memory_policy(guard_paths(), "claude-code")
    try:
        SCRATCH.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="corpus-", dir=SCRATCH) as tmp:
            root = Path(base) if base is not None else Path(tmp)
            out: dict[str, Outcome] = {}
            for start in range(0, len(cases), batch):
                out.update(evaluate_cases(conn, cases[start : start + batch], root))
            return out
    finally:
        conn.close()


def evaluate_cases(conn: Any, cases: Sequence[Case], base: Path) -> dict[str, Outcome]:
    from agentstyle.evaluator.evaluate import evaluate
    from agentstyle.evaluator.store import rolled_back
    from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE_CODE

    events = []
    for case in cases:
        payload = case.payload(str(prepare(case, base)))
        payload["session_id"] = f"corpus-{case.name}"
        events.append(CLAUDE_CODE.normalize(payload, "PreToolUse"))
    with rolled_back(conn):
        evaluations = evaluate(conn, events)
    out: dict[str, Outcome] = {}
    for case, evaluation in zip(cases, evaluations, strict=True):
        decision = evaluation.decision
        verdict = decision.verdict if decision.verdict in ("block", "ask") else "allow"
        out[case.name] = Outcome(verdict, tuple(decision.rules), tuple(evaluation.event.notes))
    return out
