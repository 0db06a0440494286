"""A resident engine runs the index's text tests itself (evaluator/heldindex.py): its answers
are the ones match.sql gives alone, on the bundled guards over corpus commands and tool outputs,
and on the forms the proof must leave to match.sql (negated rows, a rule without a condition,
number tests, exceptions, a pattern its RE2 would not compile); an event nothing can match
costs no match.sql at all, and explain's trace still sees every candidate."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentstyle.evaluator import heldindex
from agentstyle.evaluator.compiled import compile_checked, memory_policy
from agentstyle.evaluator.evaluate import Held, decide
from agentstyle.evaluator.evaluation import Evaluation
from agentstyle.evaluator.store import Connection, memory_store, replace_policy, rolled_back
from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE_CODE
from bench import eval_bench
from bench.corpus import cases as corpus
from bench.corpus import guards, secrets
from tests.support.packages import package_text

PACKAGE = package_text(
    "held",
    """
- id: key-out
  target: tool
  tool: shell
  at: after
  action: redact
  when: 'tool.output regex r"AKIA[0-9A-Z]{16}"'
  unless: 'tool.output contains "EXAMPLE"'
  redact: {pattern: 'AKIA[0-9A-Z]{16}', with: '[key]'}
  text: A key was removed.
- id: not-quiet
  target: tool
  tool: shell
  at: after
  action: warn
  when: 'not tool.output contains "ok"'
  text: The output does not say ok.
- id: long-run
  target: tool
  tool: shell
  at: after
  action: warn
  when: 'tool.input.timeout gt 100'
  text: A long timeout.
- id: always
  target: tool
  tool: shell
  at: after
  action: inject
  text: Read the output.
""",
    description="the tests a resident engine runs itself",
)


def _post(output: str, timeout: int | None = None) -> Any:
    payload = secrets.bash_output(output, "/p")
    if timeout is not None:
        payload["tool_input"]["timeout"] = timeout
    return CLAUDE_CODE.normalize(payload, "PostToolUse")


def _seen(evaluations: list[Evaluation]) -> list[tuple[Any, ...]]:
    return [
        (
            e.decision.verdict,
            tuple(e.decision.rules),
            e.decision.redaction.output if e.decision.redaction is not None else None,
            tuple((c.rule_id, c.matched, c.excepted) for c in e.candidates),
        )
        for e in evaluations
    ]


def _both(
    conn: Any, events: Callable[[], list[Any]], held: Held, trace: bool = False
) -> tuple[Any, Any]:
    """The events' answers without and with what the engine holds (each run gets its own
    events: a redaction replaces the output in the event it decided)."""
    with rolled_back(conn):
        plain = _seen(decide(conn, events(), allowances=False, trace=trace))
    with rolled_back(conn):
        resident = _seen(decide(conn, events(), held=held, allowances=False, trace=trace))
    return plain, resident


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[Connection]:
    (tmp_path / "held").mkdir()
    (tmp_path / "held" / "STYLE.yaml").write_text(PACKAGE, encoding="utf-8")
    db = memory_store()
    replace_policy(db, compile_checked([str(tmp_path / "held")], ["claude-code"]).rows)
    yield db
    db.close()


OUTPUTS = [
    "all ok",
    "nothing to say",
    "key AKIAABCDEFGHIJKLMNOP ok",
    "key AKIAIOSFODNNEXAMPLE ok",  # the exception holds
    "AKIA too short",
]


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("trace", [False, True])
def test_same_answers_as_match_sql(conn: Connection, output: str, trace: bool) -> None:
    held = Held.of(conn)
    for timeout in (None, 50, 500):
        plain, resident = _both(conn, lambda t=timeout: [_post(output, t)], held, trace)
        assert resident == plain


def test_a_batch_of_events_is_answered_alike(conn: Connection) -> None:
    plain, resident = _both(
        conn, lambda: [_post(o, t) for o in OUTPUTS for t in (None, 500)], Held.of(conn)
    )
    assert resident == plain
    assert any(seen[2] is not None for seen in plain)  # a redaction among them


def test_nothing_can_match_costs_no_match_statement(tmp_path: Path) -> None:
    conn, _ = memory_policy([str(secrets.PACKAGE)], "claude-code")
    held = Held.of(conn)
    timed = eval_bench.Timed(conn)  # statements run, by name
    ordinary = "\n".join(f"tests/test_{i}.py::test_case PASSED" for i in range(400))
    with rolled_back(conn):
        [quiet] = decide(timed, [_post(ordinary)], held=held)  # type: ignore[arg-type]
    assert quiet.decision.redaction is None
    assert "evaluate/match" not in timed.samples
    with rolled_back(conn):
        [caught] = decide(timed, [_post(ordinary + "\nAKIAQWERTYUIOPASDFGH")], held=held)  # type: ignore[arg-type]
    assert caught.decision.redaction is not None
    assert "evaluate/match" in timed.samples
    conn.close()


def test_a_pattern_its_re2_refuses_is_left_to_duckdb(conn: Connection) -> None:
    held = Held.of(conn)
    event = _post("key AKIAABCDEFGHIJKLMNOP ok")
    with rolled_back(conn):
        decide(conn, [event], held=held, allowances=False)  # the route's patterns are held
    patterns = held.index._compiled
    assert patterns, "the key pattern was compiled"
    for regex in patterns:
        patterns[regex] = heldindex._BROKEN
    plain, resident = _both(conn, lambda: [_post("key AKIAABCDEFGHIJKLMNOP ok")], held)
    assert resident == plain
    assert plain[0][2] is not None and "[key]" in str(plain[0][2])


def test_the_bundled_guards_answer_alike_on_corpus_commands(tmp_path: Path) -> None:
    conn, _ = memory_policy(guards.guard_paths(), "claude-code")
    held = Held.of(conn)
    sample = (corpus.load() + corpus.load_peers())[::50]
    refused = 0
    for case in sample:
        payload = case.payload(str(guards.prepare(case, tmp_path)))
        plain, resident = _both(
            conn, lambda p=payload: [CLAUDE_CODE.normalize(p, "PreToolUse")], held
        )
        assert resident == plain, case.name
        refused += plain[0][0] in ("block", "ask")
    assert refused > len(sample) // 4  # the sample holds refusals, not only quiet calls
    conn.close()


def test_the_secret_output_guard_answers_alike_on_its_corpus() -> None:
    conn, _ = memory_policy([str(secrets.PACKAGE)], "claude-code")
    held = Held.of(conn)
    cases = secrets.load()
    for case in cases:
        plain, resident = _both(conn, lambda c=case: [_post(c.output)], held)
        assert resident == plain, case.note
    conn.close()


def test_an_engine_without_google_re2_answers_alike(tmp_path: Path) -> None:
    """Where google-re2 has no wheel (pyproject.toml) the engine holds no index and match.sql
    tests everything: the same answers, in a process where `import re2` fails."""
    code = (
        "import sys; sys.modules['re2'] = None\n"
        "from agentstyle.evaluator.compiled import memory_policy\n"
        "from agentstyle.evaluator.evaluate import Held, decide\n"
        "from agentstyle.harnesses.claude_code import ADAPTER\n"
        "from bench.corpus.secrets import PACKAGE, bash_output\n"
        "conn, _ = memory_policy([str(PACKAGE)], 'claude-code')\n"
        "held = Held.of(conn)\n"
        "out = []\n"
        "for text in ('all quiet', 'key AKIAQWERTYUIOPASDFGH here'):\n"
        "    ev = ADAPTER.normalize(bash_output(text, '/p'), 'PostToolUse')\n"
        "    [e] = decide(conn, [ev], held=held, allowances=False)\n"
        "    r = e.decision.redaction\n"
        "    out.append(r.output['stdout'] if r is not None else None)\n"
        "print(held.index is None, out)\n"
    )
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.split(" ", 1)[0] == "True", done.stdout
    assert "None" in done.stdout and "AKIAQWERTYUIOPASDFGH" not in done.stdout, done.stdout
    assert "removed by STYLE" in done.stdout, done.stdout
