"""The secret-output corpus: `guard-secrets-output`'s precision and recall on tool outputs.

Each case of `tests/corpus/output/*.yaml` (ours) and `tests/corpus/output/heldout/*.yaml`
(written before the rules were measured, never tuned against) is one output a Bash call
printed, run through the Claude Code adapter and the evaluator with the bundled package, the
way a `PostToolUse` hook evaluates it. A case with `secret:` strings is caught when a rule
fired and none of them is left in the output the model would read; a case without any is
ordinary output, and a false alarm when a rule fired on it (its output would change).

`python -m bench.corpus.secrets` prints the section and writes it into bench/RESULTS.md
(`make corpus` runs it after the guard corpus); `--no-write` leaves the file alone.
"""

from __future__ import annotations

import datetime
import json
import sys
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from bench.corpus.cases import ROOT
from bench.corpus.report import RESULTS, write_section

CORPUS = ROOT / "tests" / "corpus" / "output"
PACKAGE = ROOT / "agentstyle" / "library" / "guard-secrets-output"
SECTION = "## Secret-output corpus: precision and recall"
RECALL_GOAL, PRECISION_GOAL = 0.97, 0.99


@dataclass(frozen=True, slots=True)
class OutputCase:
    kind: str
    note: str
    output: str
    secrets: tuple[str, ...]  # what must be gone; empty: ordinary output, left untouched
    heldout: bool


@dataclass(frozen=True, slots=True)
class Result:
    fired: bool  # a redact rule fired (the model is told, the output changed)
    left: tuple[str, ...]  # the case's secrets still in the output the model reads

    def right(self, case: OutputCase) -> bool:
        return (self.fired and not self.left) if case.secrets else not self.fired


def load(heldout: bool = False) -> list[OutputCase]:
    folder = CORPUS / "heldout" if heldout else CORPUS
    out: list[OutputCase] = []
    for path in sorted(folder.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in doc["cases"]:
            out.append(
                OutputCase(
                    str(doc["kind"]),
                    str(case["note"]),
                    str(case["output"]),
                    tuple(str(s) for s in case.get("secret") or ()),
                    heldout,
                )
            )
    return out


def bash_output(stdout: str, cwd: str) -> dict[str, Any]:
    """A Claude Code PostToolUse payload of a Bash call that printed `stdout`, in a session of
    its own (the tool's own output shape, as a redaction answers in it)."""
    return {
        "session_id": str(uuid.uuid4()),
        "cwd": cwd,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "true"},
        "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False},
        "tool_use_id": "toolu_corpus",
    }


def run(cases: Sequence[OutputCase]) -> list[Result]:
    """Each case as a Bash PostToolUse of its own session, decided and rolled back."""
    from agentstyle.evaluator.compiled import memory_policy
    from agentstyle.evaluator.evaluate import decide
    from agentstyle.evaluator.store import rolled_back
    from agentstyle.harnesses.claude_code import ADAPTER

    conn, _ = memory_policy([str(PACKAGE)], "claude-code")
    results: list[Result] = []
    try:
        for case in cases:
            payload = bash_output(case.output, "/home/dev/acme-api")
            response = payload["tool_response"]
            event = ADAPTER.normalize(payload, "PostToolUse")
            with rolled_back(conn):
                [evaluation] = decide(conn, [event])
            redaction = evaluation.decision.redaction
            seen = json.dumps(redaction.output if redaction is not None else response)
            left = tuple(s for s in case.secrets if json.dumps(s)[1:-1] in seen)
            results.append(Result(redaction is not None, left))
    finally:
        conn.close()
    return results


@dataclass(frozen=True, slots=True)
class Score:
    caught: int  # secret cases caught
    secret: int  # secret cases
    alarms: int  # ordinary cases a rule fired on
    ordinary: int

    @property
    def recall(self) -> float:
        return self.caught / self.secret if self.secret else 1.0

    @property
    def precision(self) -> float:
        flagged = self.caught + self.alarms
        return self.caught / flagged if flagged else 1.0


def score(cases: Sequence[OutputCase], results: Sequence[Result]) -> Score:
    pairs = list(zip(cases, results, strict=True))
    return Score(
        caught=sum(1 for c, r in pairs if c.secrets and r.right(c)),
        secret=sum(1 for c, _r in pairs if c.secrets),
        alarms=sum(1 for c, r in pairs if not c.secrets and r.fired),
        ordinary=sum(1 for c, _r in pairs if not c.secrets),
    )


def _row(label: str, s: Score) -> str:
    return (
        f"| {label} | {s.secret} | {s.caught} | {s.recall:.1%} | {s.ordinary} | {s.alarms} | "
        f"{s.precision:.1%} |"
    )


def section(ours: list[OutputCase], heldout: list[OutputCase], results: list[Result]) -> str:
    mine, held = results[: len(ours)], results[len(ours) :]
    kinds = sorted({c.kind for c in ours})
    rows = [
        _row(
            kind,
            score(
                [c for c in ours if c.kind == kind],
                [r for c, r in zip(ours, mine, strict=True) if c.kind == kind],
            ),
        )
        for kind in kinds
    ]
    # Our own misses are named (to fix); the held-out part is a figure only: naming its
    # misses would invite fixing against them one by one.
    missed = [
        f"- {c.kind}: {c.note}"
        + (f" (fired; left {len(r.left)} of {len(c.secrets)})" if r.fired and r.left else "")
        for c, r in zip(ours, mine, strict=True)
        if not r.right(c)
    ]
    return "\n".join(
        [
            SECTION,
            "",
            f"One run, {datetime.date.today().isoformat()}: the bundled `guard-secrets-output` "
            "over tool outputs, each a Bash `PostToolUse` through the Claude Code adapter and the "
            "evaluator (`python -m bench.corpus.secrets`). A secret case is caught when a rule "
            "fired and none of its secrets is left in the output the model reads; an ordinary "
            "case (commit hashes, UUIDs, base64 test data, digests, lorem text, npm/pip logs, "
            "near misses) is a false alarm when a rule fired on it. Goal: recall "
            f"≥ {RECALL_GOAL:.0%}, precision ≥ {PRECISION_GOAL:.0%}.",
            "",
            "| cases | secret | caught | recall | ordinary | false alarms | precision |",
            "|---|---|---|---|---|---|---|",
            _row("**ours**", score(ours, mine)),
            _row("**held out**", score(heldout, held)),
            "",
            "Ours by kind:",
            "",
            "| kind | secret | caught | recall | ordinary | false alarms | precision |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            "Our cases missed (the held-out part is measured, never listed):",
            "",
            *(missed or ["None."]),
            "",
        ]
    )


def main(argv: Sequence[str] = ()) -> int:
    ours, heldout = load(), load(heldout=True)
    results = run([*ours, *heldout])
    text = section(ours, heldout, results)
    if "--no-write" not in argv:
        write_section(text, RESULTS, SECTION)
    print(text)
    own = score(ours, results[: len(ours)])
    return 0 if own.recall >= RECALL_GOAL and own.precision >= PRECISION_GOAL else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
