"""The secret-output corpus: `guard-secrets-output`'s precision and recall on tool outputs.

Four parts, each a folder of `*.yaml` under `tests/corpus/output/`: ours (`*.yaml`, written with
the rules), peers' (`peers/<source>.yaml`: public secret scanners' own test cases, translated,
each file's header naming its repository and commit), the held-out part (`heldout/*.yaml`,
written before the rules were measured) and a held-out peer (`heldout/peers/<source>.yaml`, a
scanner's cases translated mechanically). A peer's translation that does not yet meet a peer's
floor (tests/test_corpus_secrets.py) waits in `peer-candidates/`, which no part reads: moved into
`peers/`, it is measured. The held-out parts are never tuned against: the report
gives their totals only. Each case is one output a Bash call printed, run through the Claude Code
adapter and the evaluator with the bundled package, the way a `PostToolUse` hook evaluates it. A
case with `secret:` strings is caught when a rule fired and none of them is left in the output
the model would read; a case without any is ordinary output, and a false alarm when a rule fired
on it (its output would change).

`python -m bench.corpus.secrets` prints the section and writes it into bench/RESULTS.md
(`make corpus` runs it after the guard corpus); `--no-write` leaves the file alone;
`--no-heldout` measures ours and peers only (while working on the rules: it writes nothing);
`--gaps` lists the peers' misses too.
"""

from __future__ import annotations

import datetime
import json
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from bench.corpus.cases import ROOT
from bench.corpus.report import RESULTS, write_section

CORPUS = ROOT / "tests" / "corpus" / "output"
PACKAGE = ROOT / "agentstyle" / "library" / "guard-secrets-output"
SECTION = "## Secret-output corpus: precision and recall"
RECALL_GOAL, PRECISION_GOAL = 0.97, 0.99


# Each part's folder; the held-out peer's lies inside the held-out folder, so that one rule
# (never open heldout/) keeps both out of sight.
PARTS = {
    "ours": CORPUS,
    "peers": CORPUS / "peers",
    "heldout": CORPUS / "heldout",
    "heldout-peers": CORPUS / "heldout" / "peers",
}


@dataclass(frozen=True, slots=True)
class OutputCase:
    kind: str
    note: str
    output: str
    secrets: tuple[str, ...]  # what must be gone; empty: ordinary output, left untouched
    part: str  # a key of PARTS
    source: str  # the file's stem: a peer's name for the peers' parts


@dataclass(frozen=True, slots=True)
class Result:
    fired: bool  # a redact rule fired (the model is told, the output changed)
    left: tuple[str, ...]  # the case's secrets still in the output the model reads

    def right(self, case: OutputCase) -> bool:
        return (self.fired and not self.left) if case.secrets else not self.fired


def load(part: str = "ours") -> list[OutputCase]:
    out: list[OutputCase] = []
    for path in sorted(PARTS[part].glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in doc["cases"]:
            out.append(
                OutputCase(
                    str(doc["kind"]),
                    str(case["note"]),
                    str(case["output"]),
                    tuple(str(s) for s in case.get("secret") or ()),
                    part,
                    path.stem,
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


def _part(
    cases: Sequence[OutputCase], results: Sequence[Result], keep: Callable[[OutputCase], bool]
) -> Score:
    pairs = [(c, r) for c, r in zip(cases, results, strict=True) if keep(c)]
    return score([c for c, _ in pairs], [r for _, r in pairs])


def _missed(cases: Sequence[OutputCase], results: Sequence[Result]) -> list[str]:
    return [
        f"- {c.source if c.part == 'peers' else c.kind}: {c.note}"
        + (f" (fired; left {len(r.left)} of {len(c.secrets)})" if r.fired and r.left else "")
        for c, r in zip(cases, results, strict=True)
        if not r.right(c)
    ]


def totals(cases: Sequence[OutputCase], results: Sequence[Result]) -> list[str]:
    """The table of every part measured: ours, each peer and the peers together, then the
    held-out parts when they were run."""
    parts = sorted({c.part for c in cases}, key=list(PARTS).index)
    rows: list[str] = []
    for part in parts:
        rows.append(_row(f"**{part}**", _part(cases, results, lambda c, p=part: c.part == p)))
        sources = sorted({c.source for c in cases if c.part == part})
        if part.endswith("peers"):
            rows += [
                _row(f"{part}: {src}", _part(cases, results, lambda c, s=src: c.source == s))
                for src in sources
            ]
    return [
        "| cases | secret | caught | recall | ordinary | false alarms | precision |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ]


def section(cases: list[OutputCase], results: list[Result]) -> str:
    ours = [(c, r) for c, r in zip(cases, results, strict=True) if c.part == "ours"]
    kinds = sorted({c.kind for c, _ in ours})
    rows = [
        _row(kind, _part(cases, results, lambda c, k=kind: c.part == "ours" and c.kind == k))
        for kind in kinds
    ]
    # Our own misses and the peers' are named (to fix by kind); the held-out parts are figures
    # only: naming their misses would invite fixing against them one by one.
    peers = [(c, r) for c, r in zip(cases, results, strict=True) if c.part == "peers"]
    missed = _missed([c for c, _ in ours], [r for _, r in ours])
    peer_missed = _missed([c for c, _ in peers], [r for _, r in peers])
    return "\n".join(
        [
            SECTION,
            "",
            f"One run, {datetime.date.today().isoformat()}: the bundled `guard-secrets-output` "
            "over tool outputs, each a Bash `PostToolUse` through the Claude Code adapter and the "
            "evaluator (`python -m bench.corpus.secrets`). A secret case is caught when a rule "
            "fired and none of its secrets is left in the output the model reads; an ordinary "
            "case (commit hashes, UUIDs, base64 test data, digests, lorem text, npm/pip logs, "
            "near misses) is a false alarm when a rule fired on it. Ours are written with the "
            "rules; peers' are public secret scanners' own test cases (gitleaks, detect-secrets: "
            "`tests/corpus/output/peers/`, each file's header says what was left out and why); "
            "the held-out parts (ours, written before the rules were measured, and one more "
            "scanner's cases) are measured, never tuned against. Goal: recall "
            f"≥ {RECALL_GOAL:.0%}, precision ≥ {PRECISION_GOAL:.0%}.",
            "",
            *totals(cases, results),
            "",
            "Ours by kind:",
            "",
            "| kind | secret | caught | recall | ordinary | false alarms | precision |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            "Our cases missed (the held-out parts are measured, never listed):",
            "",
            *(missed or ["None."]),
            "",
            f"Peers' cases missed: {len(peer_missed)} (`--gaps` lists them).",
            "",
        ]
    )


def main(argv: Sequence[str] = ()) -> int:
    parts = ["ours", "peers"] if "--no-heldout" in argv else list(PARTS)
    cases = [case for part in parts for case in load(part)]
    results = run(cases)
    text = section(cases, results)
    if "--no-write" not in argv and "--no-heldout" not in argv:
        write_section(text, RESULTS, SECTION)
    print(text)
    if "--gaps" in argv:
        peers = [(c, r) for c, r in zip(cases, results, strict=True) if c.part == "peers"]
        print("\n".join(_missed([c for c, _ in peers], [r for _, r in peers])))
    own = _part(cases, results, lambda c: c.part == "ours")
    return 0 if own.recall >= RECALL_GOAL and own.precision >= PRECISION_GOAL else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
