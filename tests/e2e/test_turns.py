"""Stops, asks, subagents and the model's name, in the real clients."""

from __future__ import annotations

import json

import pytest

from e2e.clients import HARNESSES, Session, is_style_command
from e2e.mockapi import ANTHROPIC_MODEL, Call, Say, Script
from e2e.scenarios import SUB_RULES, shell, tool_results
from tests.support.packages import package_text

STOP = "E2E-STOP-CONTINUE run the tests before you finish"
STOP_PACKAGE = f"""
spec: style/v0.3
name: e2e
version: 1.0.0
description: a stop that must continue
rules:
  - id: tests-first
    target: event
    event: stop
    action: block
    text: "{STOP}"
"""


def outcomes(s: Session, rule: str) -> list[str]:
    done = s.style(
        "audit",
        "sql",
        f"SELECT outcome FROM hits WHERE rule_id = '{rule}' ORDER BY event_id",
        "--format",
        "json",
    )
    return [row["outcome"] for row in json.loads(done.stdout)["rows"]]


@pytest.mark.parametrize("harness", HARNESSES)
def test_stop_continues_once_and_the_loop_guard_ends_it(session, harness: str) -> None:
    s: Session = session(harness, Script([], last=[Say("All done.")]))
    s.install(STOP_PACKAGE)
    s.run("finish the work")
    reqs = s.requests()
    # one continuation, then the loop guard lets the agent stop
    assert len(reqs) == 2, [r.step for r in reqs]
    assert STOP not in reqs[0].text
    # the model reads the reason once, and no hook command line
    assert reqs[1].text.count(STOP) == 1, reqs[1].text.count(STOP)
    assert not is_style_command(reqs[1].text)
    assert outcomes(s, "e2e/tests-first") == ["blocked", "loop-guard"]


ASK_QUESTION = "E2E-ASK this pushes to the remote: confirm"
ASK_PACKAGE = f"""
spec: style/v0.3
name: e2e
version: 1.0.0
description: ask before a push
rules:
  - id: confirm-push
    target: tool
    tool: shell
    action: ask
    fallback: degrade
    when: 'tool.input.command shell_regex "^touch pushed"'
    text: "{ASK_QUESTION}"
"""


def plan_status(s: Session, rule: str) -> str:
    """`style plan`'s status for a rule on the session's harness."""
    done = s.style(
        "plan", str(s.root / "pkg"), "--harness", s.harness, "--format", "json", check=False
    )
    rows = json.loads(done.stdout)
    statuses = {e["status"] for r in rows if r["rule"] == rule for e in r["entries"]}
    assert len(statuses) == 1, (rule, statuses, done.stderr)
    return statuses.pop()


@pytest.mark.parametrize("harness", HARNESSES)
def test_ask_headless_refuses_and_says_how_to_allow(session, harness: str) -> None:
    push = shell(harness, "touch pushed.txt")
    s: Session = session(harness, Script([[push], [Say("It needs approval.")], [push]]))
    s.install(ASK_PACKAGE)
    # Claude Code and Copilot CLI have `ask`; Codex and Gemini CLI degrade it to a refusal
    # (plan says so)
    want = "native" if harness in ("claude-code", "copilot-cli") else "degraded"
    assert plan_status(s, "e2e/confirm-push") == want
    s.run("push it")
    assert not (s.project / "pushed.txt").exists(), "an ask in a headless run let the call run"
    results = [t for r in s.requests() for t in tool_results(r.body)]
    asked = [t for t in results if "E2E-ASK" in t]
    assert asked, results
    assert all("style allow" in t for t in asked), asked
    # the person lets it through, and the same call then runs
    allowed = s.style("allow", "--last", check=False)
    assert allowed.returncode == 0, allowed.stderr
    s.run("push it again", resume=True)
    assert (s.project / "pushed.txt").exists(), "the allowed call did not run"


SUB_PACKAGE = package_text("e2e", *SUB_RULES, description="subagent start and stop")


def test_subagent_start_and_stop_claude_code(session) -> None:
    def pick(req):  # the subagent's own conversation starts with its task
        first = json.dumps(req.body.get("messages", [])[:1])
        return [Say("sub finished")] if "E2E-SUBTASK" in first else None

    task = {"description": "look", "prompt": "E2E-SUBTASK look", "subagent_type": "general-purpose"}
    s: Session = session("claude-code", Script([[Call("Agent", task)]], pick=pick))
    s.install(SUB_PACKAGE)
    s.run("use a subagent", extra=["--allowedTools", "Bash,Agent,Task"])
    sub = [r for r in s.requests() if "E2E-SUBTASK" in json.dumps(r.body["messages"][:1])]
    assert sub, "the subagent never asked the model"
    assert sub[0].text.count("E2E-SUBSTART") == 1, "the subagent did not get its start context"
    # the subagent's stop continued it once, the reason once, no command line
    again = [r for r in sub if r.step >= 1]
    assert again and again[0].text.count("E2E-SUBSTOP") == 1
    assert not is_style_command(again[0].text)
    assert outcomes(s, "e2e/sub-stop") == ["blocked", "loop-guard"]


@pytest.mark.parametrize("harness", ["gemini-cli"])
def test_subagent_rules_unsupported(session, harness: str) -> None:
    """Gemini CLI has no subagent events: plan refuses the rules rather than drop them."""
    s: Session = session(harness, Script([]))
    s.package(SUB_PACKAGE)
    assert plan_status(s, "e2e/sub-start") == "install-error"
    assert plan_status(s, "e2e/sub-stop") == "install-error"


MODEL_PACKAGE = """
spec: style/v0.3
name: e2e
version: 1.0.0
description: a rule for one model family
rules:
  - id: claude-only
    target: tool
    tool: shell
    at: after
    action: inject
    repeat: every
    when:
      model: "claude-*"
    text: "E2E-MODEL-RULE you are {{model}}"
"""


def test_model_rule_fires_with_the_model_the_api_reported_claude_code(session) -> None:
    """Claude Code names the model only in its transcript, which it writes a little after the
    assistant turn: a hook of the session's very first tool call can run before the entry is
    on disk (seen here: tool call and its PostToolUse within 65 ms), so the model is known from
    the next call on. Two calls: the rule must fire with the mock's model."""
    calls = [[shell("claude-code", "echo one")], [shell("claude-code", "echo two")]]
    s: Session = session("claude-code", Script(calls))
    s.install(MODEL_PACKAGE)
    s.run("run something")
    after = [r.text for r in s.requests() if r.step >= 1]
    assert any(f"E2E-MODEL-RULE you are {ANTHROPIC_MODEL}" in t for t in after), (
        "the when.model rule did not fire with the model the mock reported"
    )
