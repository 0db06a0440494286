"""Copilot CLI's own contract facts, in the pinned client (docs/design/harnesses.md#copilot-cli).

The scenarios every client runs (a refused shell call, context reaching the model, a fix, a
stop that continues, …) take Copilot CLI too, through `HARNESSES`; here is what only it has:
the payloads of its PascalCase events and the model its transcript names, what it does when a
hook crashes or times out, project hooks skipped outside a trusted folder (and `style audit
coverage` finding such a session), the project's Claude Code hooks it runs as well, and its
subagents.
"""

from __future__ import annotations

import json
import sys
import time

from agentstyle.harnesses import copilot_cli
from agentstyle.harnesses.facts import copilot_cli as copilot_facts
from e2e.clients import CopilotCLI, Session, is_style_command
from e2e.mockapi import Call, Say, Script
from e2e.scenarios import (
    BLOCK_PACKAGE,
    BLOCK_REASON,
    RECORD_RULES,
    SUB_RULES,
    assert_blocked,
    block_script,
    edit,
    shell,
)
from e2e.scenarios import write as write_call
from tests.support.packages import package_text

NAME = "copilot-cli"

MODEL_BRIEF = """
- id: brief
  target: system
  text: "E2E-BRIEF model {{model | default: \\"unknown\\"}}"
"""
RECORD = package_text(
    "e2e", MODEL_BRIEF, *RECORD_RULES, description="rules on the points the facts concern"
)
# The brief without the model: whether the model is known at a session's first start depends
# on when Copilot CLI writes its session log, and a brief whose text changed is given again.
FIXED_BRIEF = """
- id: brief
  target: system
  text: "E2E-BRIEF fixed"
"""
RESUME = package_text("e2e", FIXED_BRIEF, *RECORD_RULES, description="the brief, fixed text")
SUB_PACKAGE = package_text(
    "e2e",
    *SUB_RULES,
    """
    - id: prompt-note
      target: event
      event: prompt.submitted
      text: "E2E-PROMPT-NOTE"
    """,
    description="subagent start and stop, and a prompt note the subagent's task must not get",
)


def test_payloads_tools_and_the_model_from_the_transcript(session) -> None:
    """facts/copilot_cli.py (PascalCase events: Claude-shaped payloads, the Claude tool names,
    `path` for the file tools), copilot_cli.SHELL_EXIT and copilot_cli.MODEL_FROM_TRANSCRIPT:
    no payload names the model, the session's log does, once Copilot CLI has written it, a
    moment after the session starts (the first SessionStart comes before: `model_at_first_start`
    is False; the mock answers the first request after a pause, as a model would)."""
    assert copilot_cli.MODEL_FROM_TRANSCRIPT

    def thinking(req):  # a model's first answer takes a moment: the mock's would not
        if req.seq == 1:
            time.sleep(1.5)
        return None

    s: Session = session(NAME, Script([], pick=thinking))
    s.script.turns.extend(
        [
            [write_call(NAME, s.project, "new.txt", "hello\n")],
            [edit(NAME, s.project, "README.md", "scratch project", "edited project")],
            [shell(NAME, "echo hi > out.txt")],
            [shell(NAME, "false")],
        ]
    )
    s.install(RECORD)
    s.record_payloads()
    s.run("do the things")
    payloads = [p["payload"] for p in s.payloads()]
    assert payloads and not any("model" in p for p in payloads)
    assert all(p["hook_event_name"] and p["session_id"] and p["cwd"] for p in payloads)
    tools = [p for p in payloads if p["hook_event_name"] == "PreToolUse"]
    assert [p["tool_name"] for p in tools] == ["Write", "Edit", "Bash", "Bash"]
    assert not any("tool_use_id" in p for p in tools)  # matched by order in coverage
    paths = {
        copilot_cli.ADAPTER.normalize(p, "PreToolUse").first("file.path")
        for p in tools
        if p["tool_name"] != "Bash"
    }
    assert paths == {"new.txt", "README.md"}
    assert [p["source"] for p in payloads if p["hook_event_name"] == "SessionStart"] == ["new"]
    # copilot_cli.SHELL_EXIT: a command's exit code is only in the last line of its result
    shells = [p for p in payloads if p["hook_event_name"] == "PostToolUse"][-2:]
    failed = [copilot_cli.ADAPTER.normalize(p, "PostToolUse").failed for p in shells]
    assert failed == [False, True], [p["tool_result"] for p in shells]
    reqs = s.requests()
    # the session start context is in the first request; the model Copilot CLI was told to
    # use renders once its session log is on disk (it writes it a moment after the start)
    assert "E2E-BRIEF model " in reqs[0].text
    assert all(f"E2E-POST-MODEL {CopilotCLI.MODEL}" in r.text for r in reqs[1:])
    # context before a call reaches the model too, and the call runs
    assert any("E2E-PRE-CONTEXT" in r.text for r in reqs) and (s.project / "out.txt").exists()


def test_a_resumed_session_loses_the_session_start_context(session) -> None:
    """A resumed session's history holds no session-start context (it was put before the first
    prompt, and is not kept), and its SessionStart says `resume`: the brief is not given again
    (docs/harnesses/copilot-cli.md#what-degrades)."""
    s: Session = session(NAME, Script([], last=[Say("Hello.")]))
    s.install(RESUME)
    s.record_payloads()
    s.run("hello")
    s.run("and again", resume=True)
    sources = [p["payload"].get("source") for p in s.payloads()]
    assert "resume" in sources
    reqs = s.requests()
    assert "E2E-BRIEF" in reqs[0].text and "E2E-BRIEF" not in reqs[-1].text


CRASH = """#!{python}
# A PreToolUse hook that dies before it answers (`--crash`) or hangs past its timeout.
import sys, time
sys.stdin.read()
if "--crash" in sys.argv:
    sys.exit(1)
time.sleep(8)
"""


def _replace_gate(s: Session, argument: str, timeout: int) -> None:
    hook = s.root / "gate.py"
    hook.write_text(CRASH.format(python=sys.executable))
    hook.chmod(0o755)
    config = json.loads(s.config.read_text())
    [handler] = config["hooks"]["PreToolUse"]
    handler.update(command=f"{hook} {argument}", timeoutSec=timeout)
    s.config.write_text(json.dumps(config, indent=2))


def test_a_crashed_gate_refuses_the_call_a_timed_out_one_lets_it_run(session) -> None:
    """facts/copilot_cli.py `hook_error` (REFUSED) and `hook_timeout` (RUNS): a PreToolUse hook
    that exits with an error refuses the call; one the client stops at its `timeoutSec` lets
    it run."""
    assert copilot_facts.SPEC.hook_error == "refused" and copilot_facts.SPEC.hook_timeout == "runs"
    crashed: Session = session(NAME, block_script(NAME))
    crashed.install(BLOCK_PACKAGE)
    _replace_gate(crashed, "--crash", 4)
    crashed.run("delete victim.txt")
    assert (crashed.project / "victim.txt").exists(), "a crashed gate let the call run"
    results = " ".join(r.text for r in crashed.requests())
    assert "hook errored" in results

    hung: Session = session(NAME, block_script(NAME))
    hung.install(BLOCK_PACKAGE)
    _replace_gate(hung, "--hang", 1)
    hung.run("delete victim.txt")
    assert not (hung.project / "victim.txt").exists(), "a timed-out gate refused the call"
    logs = "".join(p.read_text() for p in hung.root.glob("copilot-logs-*/*.log"))
    assert "timed out; allowing the tool call to proceed" in logs


def test_an_untrusted_folder_skips_the_project_hooks_and_coverage_finds_it(session) -> None:
    """`copilot -p` in a folder nobody trusted runs the session without the project's hooks,
    and says nothing; `style audit coverage` finds it from the session log
    (`~/.copilot/session-state/<id>/events.jsonl`, harnesses/transcripts/copilot_cli.py)."""
    s: Session = session(NAME, block_script(NAME))
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")  # trusted for this run: `--trust-folder`
    assert_blocked(s)
    # (a first session's hook failure near the second's call would be named its cause: the
    # first one's log is not what this asserts)
    (s.project / ".style" / "logs" / "errors.log").unlink(missing_ok=True)
    s.hook_trust = False
    s.run("delete victim.txt")
    assert not (s.project / "victim.txt").exists(), "the project hooks ran untrusted"
    report = json.loads(s.style("audit", "coverage", "--format", "json").stdout)
    rows = [r for r in report["rows"] if r["harness"] == NAME]
    covered = [r for r in rows if not r["wholly_unseen"]]
    [skipped] = [r for r in rows if r["wholly_unseen"]]
    assert len(covered) == 1 and covered[0]["seen"] == covered[0]["tool_calls"] >= 1, rows
    assert skipped["seen"] == 0 and skipped["tool_calls"] >= 1, skipped
    assert {(x["tool"], x["cause"]) for x in skipped["unseen"]} == {("Bash", "hooks-skipped")}
    assert skipped["transcript"].startswith(str(s.home / ".copilot" / "session-state"))
    assert "STYLE never saw (1 wholly unseen)" in s.style("audit", "coverage").stdout


def test_user_hooks_run_in_an_untrusted_folder(session) -> None:
    """`--scope user` writes `~/.copilot/hooks/style.json`, which runs in every folder, trusted
    or not."""
    s: Session = session(NAME, block_script(NAME))
    s.hook_trust = False
    pkg = s.package(BLOCK_PACKAGE)
    s.style("install", str(pkg), "--harness", NAME, "--scope", "user")
    assert (s.home / ".copilot" / "hooks" / "style.json").is_file()
    s.run("delete victim.txt")
    assert_blocked(s)


def test_the_projects_claude_code_hooks_run_too_and_are_answered_once(session) -> None:
    """Copilot CLI runs `.claude/settings.json`'s hooks after its own (copilot_cli.looks_like;
    once one gate refuses a call, the rest do not run): with STYLE installed for both, the copy
    through Claude Code's config is answered without being evaluated, so each call is one
    event; with only Claude Code's config, that one guards Copilot CLI, answered in its form."""
    s: Session = session(NAME, Script([[shell(NAME, "touch created.txt")]]))
    pkg = s.package(BLOCK_PACKAGE)
    for harness in ("claude-code", NAME):
        s.style("install", str(pkg), "--harness", harness)
    # (Copilot CLI's own config is left as installed: it is how the copy knows of it)
    s.record_payloads(s.project / ".claude" / "settings.json")
    s.run("create a file")
    assert (s.project / "created.txt").exists()
    gates = [p for p in s.payloads() if p["payload"].get("hook_event_name") == "PreToolUse"]
    assert len(gates) == 1 and copilot_cli.ADAPTER.looks_like(gates[0]["payload"])
    assert gates[0]["stdout"] == ""  # the copy: no opinion, not evaluated
    events = s.style(
        "audit",
        "sql",
        "SELECT harness FROM events WHERE native_event = 'PreToolUse'",
        "--format",
        "json",
    )
    assert [r["harness"] for r in json.loads(events.stdout)["rows"]] == [NAME]  # once

    other: Session = session(NAME, block_script(NAME))
    other.style("install", str(other.package(BLOCK_PACKAGE)), "--harness", "claude-code")
    assert not other.config.exists()  # only Claude Code's config
    other.run("delete victim.txt")
    assert_blocked(other)
    results = [r.text for r in other.requests()]
    assert any(f"Denied by preToolUse hook: {BLOCK_REASON}" in t for t in results)


def test_subagent_start_and_stop(session) -> None:
    """SubagentStart's context is put before the subagent's task; SubagentStop's block
    continues it once (Copilot CLI repeats a subagent's continuation as often as a hook asks:
    the loop guard ends it, by `stop_hook_active`); the subagent's own prompt and stop
    (copilot_cli.SUBAGENT_KEY) are not the person's."""

    def pick(req):  # the subagent's own conversation starts with its task
        first = json.dumps(req.body.get("messages", [])[:1])
        return [Say("sub finished")] if "E2E-SUBTASK" in first else None

    task = {
        "description": "look",
        "prompt": "E2E-SUBTASK look",
        "agent_type": "explore",
        "name": "looker",
    }
    s: Session = session(NAME, Script([[Call("task", task)]], pick=pick))
    s.install(SUB_PACKAGE)
    s.run("use a subagent")
    sub = [r for r in s.requests() if "E2E-SUBTASK" in json.dumps(r.body["messages"][:1])]
    assert sub, "the subagent never asked the model"
    assert sub[0].text.count("E2E-SUBSTART") == 1
    assert not any("E2E-PROMPT-NOTE" in r.text for r in sub)
    again = [r for r in sub if r.step >= 1]
    assert len(again) == 1 and again[0].text.count("E2E-SUBSTOP") == 1
    assert not is_style_command(again[0].text)
    done = s.style(
        "audit",
        "sql",
        "SELECT outcome FROM hits WHERE rule_id = 'e2e/sub-stop' ORDER BY event_id",
        "--format",
        "json",
    )
    assert [r["outcome"] for r in json.loads(done.stdout)["rows"]] == ["blocked", "loop-guard"]
