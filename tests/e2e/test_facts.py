"""Facts the harness documentation left open (docs/design/harnesses.md), checked against the pinned
real clients.

Each adapter keeps such facts in one named place ("facts once UNCONFIRMED" in claude_code.py,
codex.py / facts/codex.py, gemini_cli.py) that points here; a client upgrade that changes one
fails the test that names it.
"""

from __future__ import annotations

import json
import sys

from agentstyle.harnesses import claude_code, codex, gemini_cli
from agentstyle.harnesses.facts import codex as codex_facts
from e2e.clients import Session
from e2e.mockapi import ANTHROPIC_MODEL, GEMINI_MODEL, Say, Script
from e2e.scenarios import RECORD_RULES, edit, shell, write
from tests.support.packages import package_text

RECORD = package_text("e2e", *RECORD_RULES, description="rules on every point the facts concern")


def recorded(session, harness: str) -> Session:
    s: Session = session(harness, Script([]))
    if harness == "codex":  # no apply_patch for the mock's model (clients.py)
        calls = [shell(harness, "echo hi > out.txt")]
    else:
        calls = [
            write(harness, s.project, "new.txt", "hello\n"),
            edit(harness, s.project, "README.md", "scratch project", "edited project"),
            shell(harness, "echo hi > out.txt"),
        ]
    s.script.turns.extend([c] for c in calls)
    s.install(RECORD)
    s.record_payloads()
    s.run("do the things")
    return s


def test_claude_code_payloads_name_no_model_the_transcript_does(session) -> None:
    """claude_code.MODEL_FROM_TRANSCRIPT (docs/design/harnesses.md#claude-code-payloads)."""
    assert claude_code.MODEL_FROM_TRANSCRIPT
    s = recorded(session, "claude-code")
    payloads = [p["payload"] for p in s.payloads()]
    assert payloads and not any("model" in p for p in payloads)
    # the model the API reported, read from the transcript, renders in `{{model}}`
    after = [r.text for r in s.requests() if r.step >= 1]
    assert any(f"E2E-POST-MODEL {ANTHROPIC_MODEL}" in t for t in after)
    # the file tools' inputs are what the adapter reads `file.path` from
    edits = [p for p in payloads if p.get("tool_name") in ("Write", "Edit")]
    paths = {
        claude_code.ADAPTER.normalize(p, p["hook_event_name"]).first("file.path") for p in edits
    }
    assert paths == {"new.txt", "README.md"}


def test_codex_pre_tool_use_context_and_bash_output(session) -> None:
    """codex_facts.PRE_TOOL_USE_CONTEXT (docs/design/harnesses.md#codex-answers) and
    codex.BASH_TOOL_RESPONSE (docs/design/harnesses.md#codex-payloads, openai/codex#34289: Bash
    `tool_response` is empty)."""
    assert codex_facts.PRE_TOOL_USE_CONTEXT
    s = recorded(session, "codex")
    # the context reached the model and the call ran: the hook was not failed for it
    assert (s.project / "out.txt").exists()
    assert any("E2E-PRE-CONTEXT" in r.text for r in s.requests())
    post = [p["payload"] for p in s.payloads() if p["payload"]["hook_event_name"] == "PostToolUse"]
    assert post and all(p["tool_response"] == codex.BASH_TOOL_RESPONSE for p in post)
    # Codex names the model in every payload
    assert all(p["payload"].get("model") for p in s.payloads())


def test_gemini_cli_enable_flag_tool_inputs_and_model(session) -> None:
    """gemini_cli.ENABLE_FLAG (docs/design/harnesses.md#gemini-cli-config: `tools.enableHooks`;
    older `hooks.enabled`), gemini_cli.FILE_PATH_KEYS
    (docs/design/harnesses.md#gemini-cli-payloads), gemini_cli.MODEL_FROM_TRANSCRIPT."""
    s = recorded(session, "gemini-cli")
    config = json.loads(s.config.read_text())
    assert config["tools"]["enableHooks"] is True and "enabled" not in config["hooks"]
    assert s.payloads(), "the hooks did not run with the one flag STYLE writes"
    payloads = [p["payload"] for p in s.payloads()]
    assert not any("model" in p for p in payloads)
    after = [r.text for r in s.requests() if r.step >= 1]
    assert any(f"E2E-POST-MODEL {GEMINI_MODEL}" in t for t in after)
    tools = [p for p in payloads if p["hook_event_name"] == "BeforeTool"]
    by_tool = {p["tool_name"]: p["tool_input"] for p in tools}
    assert set(by_tool) == {"write_file", "replace", "run_shell_command"}
    for name in ("write_file", "replace"):
        assert any(k in by_tool[name] for k in gemini_cli.FILE_PATH_KEYS), by_tool[name]
    paths = {
        gemini_cli.ADAPTER.normalize(p, "BeforeTool").first("file.path")
        for p in tools
        if p["tool_name"] != "run_shell_command"
    }
    assert paths == {"new.txt", "README.md"}


ASK_HOOK = """#!{python}
import json, sys
json.load(sys.stdin)
print(json.dumps({{"decision": "ask", "reason": "E2E-RAW-ASK may I?"}}))
"""


def test_gemini_cli_has_no_ask(session) -> None:
    """facts/gemini_cli.py: `ask` is not in Gemini's reference
    (docs/design/harnesses.md#gemini-cli-answers, UNCONFIRMED): STYLE degrades it to a refusal whose
    reason reaches the model. A raw `decision: ask` in `gemini -p` is no question either: the call
    does not run, the run just ends, and the model never reads why."""
    s: Session = session("gemini-cli", Script([[shell("gemini-cli", "touch asked.txt")]]))
    hook = s.root / "ask.py"
    hook.write_text(ASK_HOOK.format(python=sys.executable))
    hook.chmod(0o755)
    s.config.parent.mkdir(parents=True, exist_ok=True)
    s.config.write_text(
        json.dumps(
            {
                "tools": {"enableHooks": True},
                "hooks": {
                    "BeforeTool": [
                        {"matcher": ".*", "hooks": [{"type": "command", "command": str(hook)}]}
                    ]
                },
            }
        )
    )
    s.run("touch it")
    assert not (s.project / "asked.txt").exists()
    assert not any("E2E-RAW-ASK" in r.text for r in s.requests()), "an ask reached the model"


def test_an_end_of_turn_text_is_what_codex_and_claude_code_stop_on(session) -> None:
    """The Stop payload's `last_assistant_message` is there (the transcript fallback is not
    needed) on both clients that send one (Claude Code since v2.1.47, nullable in Codex:
    docs/design/harnesses.md#claude-code-payloads, #codex-payloads)."""
    for harness in ("claude-code", "codex"):
        s: Session = session(harness, Script([], last=[Say("E2E-LAST the end")]))
        s.install(
            RECORD.replace(
                "rules:",
                "rules:\n  - id: stop-note\n    target: event\n"
                '    event: stop\n    action: block\n    text: "go on"',
                1,
            )
        )
        s.record_payloads()
        s.run("finish")
        stops = [p["payload"] for p in s.payloads() if p["payload"]["hook_event_name"] == "Stop"]
        assert stops and all(p.get("last_assistant_message") == "E2E-LAST the end" for p in stops)
