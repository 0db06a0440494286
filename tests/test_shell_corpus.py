"""The bundled guards against their labelled corpus (tests/corpus/*.yaml, bench/corpus/).

Every case is a Claude Code PreToolUse payload (a Bash command, or a file tool call) written
into a scratch project, normalized by the adapter and evaluated by the SQL evaluator against
every bundled guard package (`guard-*`) compiled together. The verdict must be the case's
(block, ask or allow); precision and recall are computed per category and per syntax form,
printed, and must reach 97% in every group of the held categories: those whose own floor in
tests/corpus/floors.yaml is at the threshold (`make corpus` writes the same table into
bench/RESULTS.md). A category's red-team cases join when its pack lands and its floor is raised;
until then tests/test_corpus_floors.py holds it at its floor, and the peers' cases with it. The
cases marked with a bypass or false-block class (`issue:`) must all hold, one test per
class. tests/test_corpus_hook.py runs a sample through the installed hook.

The robustness tests at the end push hostile sizes through the same evaluator: DuckDB evaluates
regexes with RE2, linear in the input, and the analysis never drops a command silently.
"""

from __future__ import annotations

import re
import shlex
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentstyle.evaluator.compiled import memory_policy
from agentstyle.evaluator.evaluate import evaluate
from agentstyle.evaluator.evaluation import Evaluation
from agentstyle.evaluator.store import Connection
from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE_CODE
from bench.corpus import (
    CATEGORIES,
    CORPUS,
    FORMS,
    PASSING,
    THRESHOLD,
    Outcome,
    guard_paths,
    held_categories,
    load,
    load_floors,
    misses_text,
    run,
    score,
    table,
)
from tests.support.packages import package_text

ALL_CASES = load()
HELD = held_categories(load_floors())
CASES = [c for c in ALL_CASES if c.category in HELD]  # the held categories' own cases
ISSUE_CLASSES = sorted({c.issue for c in CASES if c.issue})
# CPU seconds, far above what any of this takes: not a speed measure (bench/shell_bench.py is),
# the line between linear work and a pattern or parse that blows up. The process's CPU time (the
# evaluator's threads included), so a busy machine does not move it.
DEADLINE_S = 10.0
MIN_CASES = 1_000
MIN_FORM_POSITIVES = 8  # cases per form that must refuse, so that a rate means something
MIN_FORM_ALLOWS = 3


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return run(CASES)


def test_corpus_shape() -> None:
    assert len(CASES) >= MIN_CASES
    files = {p.stem for p in CORPUS.glob("*.yaml")} - {"floors"}
    assert files <= set(CATEGORIES), "one file per category, nothing else"
    assert set(HELD) <= files, "a held category has cases of its own"
    counts = Counter((c.category, c.positive) for c in ALL_CASES)
    for category in files:
        if category not in PASSING:
            assert counts[(category, True)] >= 30, f"{category}: too few cases that must refuse"
        assert counts[(category, False)] >= 15, f"{category}: too few cases that must pass"
    forms = Counter((c.form, c.positive) for c in CASES)
    for form in FORMS:
        assert forms[(form, True)] >= MIN_FORM_POSITIVES, f"form {form}: too few refusals"
        assert forms[(form, False)] >= MIN_FORM_ALLOWS, f"form {form}: too few allows"
    keys = [(c.category, c.text, str(c.files), str(c.links)) for c in ALL_CASES]
    assert len(set(keys)) == len(keys), [k for k, n in Counter(keys).items() if n > 1]


def test_precision_and_recall(outcomes: dict[str, Outcome]) -> None:
    report = score(CASES, outcomes)
    print("\n" + table(report))
    if report.misses:
        print(f"{len(report.misses)} case(s) whose verdict differs:\n{misses_text(report, 400)}")
    assert report.failing == [], (
        f"below {THRESHOLD:.0%}: {', '.join(report.failing)}\n{table(report)}"
        f"\n{misses_text(report)}"
    )


@pytest.mark.parametrize("issue", ISSUE_CLASSES)
def test_every_bypass_class(issue: str, outcomes: dict[str, Outcome]) -> None:
    """Every case reproducing one bypass or false-block class gets its verdict."""
    wrong = [
        f"{c.name}: wanted {c.verdict}, got {outcomes[c.name].verdict}: {c.text!r}"
        for c in CASES
        if c.issue == issue and outcomes[c.name].verdict != c.verdict
    ]
    assert wrong == []


def test_named_rules_answer(outcomes: dict[str, Outcome]) -> None:
    """A case that names its rule is answered by that rule."""
    wrong = [
        f"{c.name}: {c.rule} not among {outcomes[c.name].rules}"
        for c in CASES
        if c.rule and c.verdict != "allow" and c.rule not in outcomes[c.name].rules
    ]
    assert wrong == []


def test_verdicts_do_not_depend_on_where_the_project_sits(outcomes: dict[str, Outcome]) -> None:
    """The cases that leave the project by `cd` or from a script get the same verdicts with
    the project under /tmp, whose named entries the guards treat as scratch space."""
    cases = [c for c in CASES if c.form in ("cwd", "script")]
    with tempfile.TemporaryDirectory(prefix="corpus-moved-", dir="/tmp") as tmp:
        moved = run(cases, base=Path(tmp))
    wrong = [
        f"{c.name}: {outcomes[c.name].verdict} in the repository, {moved[c.name].verdict} "
        f"under /tmp: {c.text!r}"
        for c in cases
        if moved[c.name].verdict != outcomes[c.name].verdict
    ]
    assert wrong == []


# ---------------------------------------------------------------------------------------------
# Robustness: size and pathological patterns, through the evaluator.


def bash_payload(command: str, cwd: str) -> dict[str, Any]:
    return {
        "session_id": "corpus",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_corpus",
    }


def run_bash(conn: Connection, command: str, cwd: str) -> Evaluation:
    """One PreToolUse Bash event through the evaluator, leaving no history behind."""
    event = CLAUDE_CODE.normalize(bash_payload(command, cwd), "PreToolUse")
    conn.execute("BEGIN TRANSACTION")
    try:
        [evaluation] = evaluate(conn, [event])
    finally:
        conn.execute("ROLLBACK")
    return evaluation


def matched(evaluation: Evaluation) -> set[str]:
    return {c.rule_id for c in evaluation.candidates if c.matched}


@pytest.fixture(scope="module")
def library() -> Iterator[Connection]:
    conn, _ = memory_policy(guard_paths(), "claude-code")
    try:
        yield conn
    finally:
        conn.close()


def test_long_command_through_evaluator(library: Connection, tmp_path: Path) -> None:
    # 1,000 simple commands, 50,000 characters: every library regex runs against each one.
    chain = " && ".join(f"git add crates/acme-auth/src/handlers/file{i:04}.rs" for i in range(1000))
    command = chain + " && git push -f origin main"
    assert len(command) > 50_000
    started = time.process_time()
    evaluation = run_bash(library, command, str(tmp_path))
    elapsed = time.process_time() - started
    assert "guard-destructive/force-push-protected" in matched(evaluation)
    assert evaluation.decision.verdict == "block"
    assert elapsed < DEADLINE_S


@pytest.mark.parametrize(
    "command",
    [
        "echo " + "x" * 50_000,
        "rm -rf ./" + "a/" * 25_000,
        "git push " + "-f " * 17_000 + "origin feature",
        "cat " + "../" * 17_000,
        "'" + "unbalanced " * 5_000,
        "cat <<E; ls\nE\n" + "<<" * 25_000,
    ],
    ids=["one-long-word", "deep-path", "many-flags", "many-dotdots", "unparseable", "hostile"],
)
def test_long_single_commands(library: Connection, tmp_path: Path, command: str) -> None:
    assert len(command) >= 50_000
    started = time.process_time()
    run_bash(library, command, str(tmp_path))
    assert time.process_time() - started < DEADLINE_S


def _nested_bash_c(command: str, depth: int) -> str:
    for _ in range(depth):
        command = "bash -c " + shlex.quote(command)
    return command


HOSTILE = {
    "20000-segments": " ; ".join(["echo ok"] * 19_999 + ["rm -rf /"]),
    "substitution-500-deep": "echo " + "$(" * 500 + "rm -rf /" + ")" * 500,
    "heredoc-1mb-then-rm": "cat > notes.txt <<'EOF'\n"
    + ("x" * 99 + "\n") * 10_500
    + "EOF\nrm -rf /",
    "bash-c-7-deep": _nested_bash_c("rm -rf /", 7),
}


@pytest.mark.parametrize("command", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_input_is_still_refused(library: Connection, tmp_path: Path, command: str) -> None:
    """No input makes the analysis drop a command silently (docs/design/shell.md#shell-incomplete);
    the guard refuses."""
    started = time.process_time()
    evaluation = run_bash(library, command, str(tmp_path))
    elapsed = time.process_time() - started
    assert evaluation.decision.verdict == "block", sorted(matched(evaluation))
    assert elapsed < DEADLINE_S


PATHOLOGICAL = package_text(
    "pathological",
    """
- id: nested-plus
  target: tool
  tool: shell
  action: block
  when: 'tool.input.command shell_regex "^(x+x+)+y$"'
  text: never matches an all-x command
- id: nested-star-end
  target: tool
  tool: shell
  action: block
  when: 'tool.input.command regex "^(a+)+$"'
  text: never matches a command ending in b
- id: alternation-blowup
  target: tool
  tool: shell
  action: block
  when: 'shell.commands regex "^(a|aa)+c$"'
  text: never matches without a c
""",
    description="Catastrophic-backtracking patterns, harmless under RE2",
    version="0.1.0",
)


def test_pathological_patterns_are_linear(tmp_path: Path) -> None:
    """Patterns that take exponential time under a backtracking engine, on 50,000 characters.

    For comparison (not run here): Python's backtracking `re` needs about 2**n steps for
    `^(x+x+)+y$` on n x's; n=25 already takes seconds and n=40 would take days. RE2 in DuckDB
    answers for n=50,000 in milliseconds. `test_backtracking_grows_exponentially` below
    measures the growth on tiny inputs only.
    """
    package = tmp_path / "pathological"
    package.mkdir()
    (package / "STYLE.yaml").write_text(PATHOLOGICAL, encoding="utf-8")
    conn, _ = memory_policy([str(package)], "claude-code")
    try:
        expected = {
            "x" * 50_000: set(),
            "a" * 49_999 + "b": set(),
            "a" * 50_000: {"pathological/nested-star-end"},  # the patterns do work
            "x" * 50_000 + "y": {"pathological/nested-plus"},
        }
        for command, rules in expected.items():
            started = time.process_time()
            evaluation = run_bash(conn, command, str(tmp_path))
            elapsed = time.process_time() - started
            assert matched(evaluation) == rules, command[-10:]
            assert elapsed < DEADLINE_S
    finally:
        conn.close()


def test_backtracking_grows_exponentially() -> None:
    """Python `re` on the same pattern, on inputs far too short to hang: each added x costs
    about twice the time. Printed, not asserted (timings vary); the guard is RE2 above."""
    pattern = re.compile(r"^(x+x+)+y$")
    timings = []
    for n in (14, 16, 18, 20):
        started = time.perf_counter()
        assert pattern.match("x" * n) is None
        timings.append((n, time.perf_counter() - started))
    print("\n" + ", ".join(f"n={n}: {t * 1000:.2f} ms" for n, t in timings))
