"""A hook's event takes statements of its own (book_one, outcomes_blocked): the same outcomes
and answer as the batch statements give the same event, and the same with what a resident
engine holds (evaluate.Held) as without. A resident engine's refused call may book after its
answer (in `record`): its event id is compared once recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentstyle.evaluator.compiled import compile_checked
from agentstyle.evaluator.evaluate import Held, decide
from agentstyle.evaluator.evaluation import EMITTING, Evaluation
from agentstyle.evaluator.recording import record
from agentstyle.evaluator.store import Connection, memory_store, replace_policy
from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE_CODE
from tests.support.packages import NO_RM, TIPS, package_text

PACKAGE = package_text(
    "one",
    NO_RM,
    """
- id: confirm-push
  target: tool
  tool: shell
  action: ask
  when: 'tool.input.command shell_regex "^git push"'
  text: Pushing needs a yes.
- id: ls-ok
  target: tool
  tool: shell
  action: allow
  when: 'tool.input.command shell_regex "^ls"'
  text: Listing is fine.
- id: careful-sudo
  target: tool
  tool: shell
  action: warn
  when: 'tool.input.command contains "sudo"'
  text: Careful with sudo.
""",
    TIPS,
    description="one event against a batch",
)
COMMANDS = [
    "rm x",
    "rm x && git push",
    "ls && rm x",
    "sudo rm x",
    "ls",
    "git push",
    "ls && git push",
    "sudo ls",
    "cargo build",
]


@pytest.fixture
def conn(tmp_path: Path) -> Connection:
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "STYLE.yaml").write_text(PACKAGE, encoding="utf-8")
    db = memory_store()
    replace_policy(db, compile_checked([str(tmp_path / "one")], ["claude-code"]).rows)
    return db


def _event(command: str, session: str) -> Any:
    payload = {
        "session_id": session,
        "cwd": "/p",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }
    return CLAUDE_CODE.normalize(payload, "PreToolUse")


def _seen(e: Evaluation) -> tuple[Any, ...]:
    d = e.decision
    # a claim key matters only where something emits (record keeps the claims of those)
    outcomes = sorted(
        (c.rule_id, c.outcome, c.claim_key if c.outcome in EMITTING else None) for c in e.candidates
    )
    return (e.event_id, d.verdict, d.reasons, d.contexts, d.messages, d.rules, outcomes)


@pytest.mark.parametrize("command", COMMANDS)
def test_one_event_is_decided_as_in_a_batch(conn: Connection, command: str) -> None:
    conn.execute("BEGIN TRANSACTION")
    [batched, _other] = decide(conn, [_event(command, "s1"), _event("rm y", "s2")])
    conn.execute("ROLLBACK")
    for held in (None, Held.of(conn)):
        conn.execute("BEGIN TRANSACTION")
        [alone] = decide(conn, [_event(command, "s1")], held=held)
        record(conn, [alone])
        conn.execute("ROLLBACK")
        assert _seen(alone) == _seen(batched)
    if command.startswith("rm") or "&& rm" in command or "sudo rm" in command:
        assert batched.decision.verdict == "block"  # the case outcomes_blocked answers


BOOKED = """\
spec: style/v0.3
name: booked
version: 1.0.0
description: refusals that read what the bookkeeping gives
{extra}rules:
  - id: no-curl
    target: tool
    tool: shell
    action: block
    when: 'tool.input.command shell_regex "^curl "'
    text: "{text}"
"""


def _booked_store(tmp_path: Path, text: str, extra: str = "") -> Connection:
    (tmp_path / "booked").mkdir(parents=True)
    package = BOOKED.format(text=text, extra=extra)
    (tmp_path / "booked" / "STYLE.yaml").write_text(package, encoding="utf-8")
    db = memory_store()
    replace_policy(db, compile_checked([str(tmp_path / "booked")], ["claude-code"]).rows)
    return db


def test_a_refusal_books_after_its_answer_unless_the_answer_reads_it(tmp_path: Path) -> None:
    """A resident engine's refused call leaves its bookkeeping to `record`, unless its text
    reads the model the session row keeps: then the stored model is in the answer."""
    db = _booked_store(tmp_path, "No downloads on {{model}}.")
    first = _event("ls", "s1")
    first.model = "claude-opus-4-5"  # as the transcript gives it; the session keeps it
    db.execute("BEGIN TRANSACTION")
    record(db, decide(db, [first]))
    db.execute("COMMIT")
    for held in (None, Held.of(db)):
        db.execute("BEGIN TRANSACTION")
        [refused] = decide(db, [_event("curl https://example.com", "s1")], held=held)
        db.execute("ROLLBACK")
        assert refused.decision.verdict == "block"
        assert refused.decision.reasons == ["No downloads on claude-opus-4-5."], held
        assert refused.event_id == 2
    plain = _booked_store(tmp_path / "plain", "No downloads.")
    db.execute("BEGIN TRANSACTION")
    [refused] = decide(plain, [_event("curl https://example.com", "s1")], held=Held.of(plain))
    assert (refused.decision.verdict, refused.event_id) == ("block", 0), "booked in record"


def test_an_allow_code_is_derived_from_the_booked_event_id(tmp_path: Path) -> None:
    """The allow code names the event id the call is recorded under, with or without what a
    resident engine holds."""
    db = _booked_store(tmp_path, "No downloads.", "allow_code: true\n")
    codes = []
    for held in (None, Held.of(db)):
        db.execute("BEGIN TRANSACTION")
        [refused] = decide(db, [_event("curl https://example.com", "s1")], held=held)
        db.execute("ROLLBACK")
        assert refused.event_id == 1
        codes.append(refused.decision.reasons[-1])
    assert codes[0] == codes[1]
    assert "style allow " in codes[0]
