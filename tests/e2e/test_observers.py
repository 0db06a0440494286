"""The observer lane in the real clients: a check after an edit runs the project's tests beside
the session, and what it finds reaches the model without the person asking again (Claude Code:
its background hook wakes the model) or with the session's next event (Codex, Gemini CLI)."""

from __future__ import annotations

import json

import pytest

from e2e.clients import Session
from e2e.mockapi import Say, Script
from e2e.scenarios import edit, shell

FAILING = "E2E-CHECK-FAILS"
BUGGY = "    return a + b + 1  # bug"
# The project's "test suite": fails while src/calc.py holds a bug, and says how often it ran.
TESTS = f"""import pathlib, sys, time
root = pathlib.Path(__file__).parent
time.sleep(2)  # a suite takes a while: the edit's own hook must not wait for it
with open(root / "runs.log", "a") as log:
    log.write("run\\n")
if "bug" in (root / "src" / "calc.py").read_text():
    print("{FAILING} test_add: expected 3, got 4")
    sys.exit(1)
print("1 passed")
"""
PACKAGE = """
spec: style/v0.3
name: e2e
version: 1.0.0
description: a check after edits
rules:
  - id: tests-after-edit
    target: tool
    tool: [file.edit, file.write, shell]
    action: inject
    repeat: every
    max_tokens: 600
    check: {run: 'python3 run_tests.py', timeout: 60s}
    when: 'tool.input contains "src/" and check.exit != 0'
    text: |
      E2E-OBSERVER the tests fail since your last edit:
      {{check.output_tail}}
"""


def _project(s: Session) -> None:
    (s.project / "src").mkdir(exist_ok=True)
    (s.project / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (s.project / "run_tests.py").write_text(TESTS)


def _said(s: Session) -> bool:
    return any(FAILING in r.text for r in s.requests())


def _runs(s: Session) -> int:
    log = s.project / "runs.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


@pytest.mark.parametrize("breaks", [True, False], ids=["breaks", "keeps-green"])
def test_claude_code_wakes_the_model_when_the_check_fails(session, breaks: bool) -> None:
    """The edit is the model's last act: the turn ends, and a failing check's text comes back as
    a request the person never made; a passing one says nothing."""
    s: Session = session("claude-code", Script([], last=[Say("Edited.")]))
    _project(s)
    new = BUGGY if breaks else "    return b + a"
    s.script.turns = [[edit("claude-code", s.project, "src/calc.py", "    return a + b", new)]]
    s.install(PACKAGE)
    # the session stays open after its turn, as an interactive one idles: a failing check
    # wakes it; a passing one leaves it idle (given the time the check needs)
    run = s.run_open("change add", until=lambda: _said(s), wait_s=25 if breaks else 10)
    assert _runs(s) == 1, "the check did not run once"
    # the edit's own hook answered without waiting for the check (which sleeps 2 s)
    edits = [h for h in run.hook_runs() if h["event"] == "PostToolUse"]
    answered = [h["ms"] for h in edits if "--checks" not in h["command"]]
    assert answered and max(answered) < 2000, edits
    woken = [r for r in s.requests() if FAILING in r.text]
    if breaks:
        assert woken, "the failing check's text did not reach the model"
        assert "E2E-OBSERVER" in woken[0].text
        # it came after the turn that ended with the edit: no prompt of the person's between
        assert woken[0].step >= 2
    else:
        assert not woken
        assert not any("E2E-OBSERVER" in r.text for r in s.requests())


@pytest.mark.parametrize("harness", ["codex", "gemini-cli"])
def test_the_failing_check_arrives_with_the_next_event(session, harness: str) -> None:
    """No background hooks: STYLE runs the check itself; its text rides on the next call's
    answer once, and not on the one after."""
    s: Session = session(harness, Script([], last=[Say("Done.")]))
    _project(s)
    if harness == "codex":  # Codex has no file tool for the mock's model: edits are shell
        breaking = shell(harness, "sed -i 's/return a + b/return a + b + 1  # bug/' src/calc.py")
    else:
        breaking = edit(harness, s.project, "src/calc.py", "    return a + b", BUGGY)
    s.script.turns = [
        [breaking],
        [shell(harness, "sleep 3")],
        [shell(harness, "echo next")],
        [shell(harness, "echo after")],
    ]
    s.install(PACKAGE)
    s.run("change add, then look around")
    assert _runs(s) == 1
    carrying = [r for r in s.requests() if FAILING in r.text]
    assert carrying, "the failing check's text did not reach the model"
    first = carrying[0]
    assert first.step >= 2, "the text came with the edit itself, before the check ran"
    # given once: the requests after it carry it only as history, never a second time
    assert all(r.text.count(FAILING) == first.text.count(FAILING) for r in carrying)


ASKED = "E2E-PROMPT-CHECK did the agent run the tests it says it ran?"
REFUSED = "E2E-PROMPT-NO the transcript shows no test run"
PROMPT_PACKAGE = f"""
spec: style/v0.3
name: e2e
version: 1.0.0
description: a question for the client's model when the agent stops
rules:
  - id: tests-really-ran
    target: event
    event: stop
    action: block
    check: {{prompt: '{ASKED}'}}
    text: Run the tests you said you ran.
"""


def test_a_prompt_check_continues_a_claude_code_stop(session) -> None:
    """`check: {prompt}` is Claude Code's own prompt hook at Stop: the client's model (the
    mock) answers `ok: false` once, and the agent goes on with its reason."""
    s: Session = session("claude-code", Script([[Say("I ran the tests.")]], last=[Say("Done.")]))
    asked: list[str] = []

    def side(req):  # the prompt hook's request: no tools, our question in it
        if ASKED in req.text:
            asked.append(req.text)
            verdict = {"ok": False, "reason": REFUSED} if len(asked) == 1 else {"ok": True}
            return [Say(json.dumps(verdict))]
        return [Say("ok")]

    s.server.side = side
    s.install(PROMPT_PACKAGE)
    s.run("run the tests")
    assert asked, "Claude Code did not ask its model the prompt check"
    assert "asked by STYLE rule `e2e/tests-really-ran`" in asked[0]
    continued = [r for r in s.requests() if REFUSED in r.text]
    assert continued, "the stop was not continued with the model's reason"
    assert len(asked) >= 2, "the continued turn did not stop through the prompt hook again"
    # the audit counts the stops it was asked at and the one it continued
    out = s.style("audit", "rules", "--format", "json")
    rows = json.loads(out.stdout)["rows"]
    [row] = [r for r in rows if r["rule"] == "e2e/tests-really-ran"]
    assert (row["checks_run"], row["checks_spoke"]) == (2, 1), row
