"""STYLE in the real OpenCode: its plugin (harnesses/opencode_plugin.js) hands OpenCode's plugin
hooks to `style-hook` and acts on the answers. Each test is one `opencode run` against the mock
Anthropic API (a provider of OpenCode's own config), and asserts what ran and what reached the
model (docs/design/harnesses.md#opencode)."""

from __future__ import annotations

import json
import sys
from typing import Any

from agentstyle.harnesses.opencode import plugin_handlers, plugin_text
from e2e.clients import Session, is_style_command
from e2e.mockapi import Call, Say, Script
from e2e.scenarios import BLOCK_PACKAGE, BLOCK_REASON, assert_blocked, tool_results
from e2e.test_context import BRIEF, BRIEF_PACKAGE, POST_PACKAGE, PROMPT_PACKAGE
from e2e.test_fix import FIX_PACKAGE, FIX_TEXT, FIXED

OPENCODE = "opencode"
BEFORE = "tool.execute.before"


def bash(command: str) -> Call:
    return Call("bash", {"command": command, "description": "run it"})


def rm_script() -> Script:
    return Script([[Say("Deleting it."), bash("rm victim.txt")]], last=[Say("Done.")])


def record_payloads(s: Session) -> None:
    """Every payload STYLE's plugin sends and the answer it got, in payloads.jsonl: each handler
    command in the plugin's table run through the suite's recording wrapper."""
    from e2e.clients import RECORDING_WRAPPER

    groups = plugin_handlers(s.config.read_text(), str(s.config))
    n = 0
    for event_groups in groups.values():
        for group in event_groups:
            for handler in group["hooks"]:
                if not is_style_command(handler["command"]):
                    continue
                n += 1
                wrapper = s.root / f"hook-wrapper-{n}.py"
                wrapper.write_text(
                    RECORDING_WRAPPER.format(
                        python=sys.executable,
                        command=handler["command"],
                        log=str(s.root / "payloads.jsonl"),
                    )
                )
                wrapper.chmod(0o755)
                handler["command"] = str(wrapper)
    assert n, "no STYLE handler to wrap"
    s.wrapped = True
    s.config.write_text(plugin_text(groups))


def payloads_of(s: Session, event: str) -> list[dict[str, Any]]:
    return [p for p in s.payloads() if p["payload"].get("hook_event_name") == event]


def test_opencode_refuses_a_shell_call(session) -> None:
    s: Session = session(OPENCODE, rm_script())
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert_blocked(s)
    # the plugin's throw is the call's error result: the reason, where the model reads it
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any(BLOCK_REASON in t for t in results), results


def test_opencode_runs_the_fixed_command(session) -> None:
    """`args` changed in place by the plugin: OpenCode runs the rewritten command, never the
    original, and the model's history shows the command that ran."""
    s: Session = session(OPENCODE, rm_script())
    s.install(FIX_PACKAGE)
    s.run("delete victim.txt")
    assert (s.project / "victim.txt.trash").exists(), sorted(p.name for p in s.project.iterdir())
    assert not (s.project / "victim.txt").exists()
    later = [r.text for r in s.requests() if r.step >= 1]
    assert any(FIXED in t for t in later), "the model was not shown the command that ran"
    assert not any(FIX_TEXT in t for t in later), "a rewritten call is no refusal"


def test_opencode_brief_and_prompt_context_reach_the_model(session) -> None:
    """The session-start brief and a prompt's context: text parts of the session's first
    message, in every request of the session once; `--continue` resumes without repeating the
    brief."""
    s: Session = session(OPENCODE, Script([[bash("echo one")]], last=[Say("Noted.")]))
    s.package(BRIEF_PACKAGE.replace("name: e2e", "name: e2e-brief"), name="brief")
    s.package(PROMPT_PACKAGE, name="prompt")
    s.style("install", str(s.root / "brief"), str(s.root / "prompt"), "--harness", OPENCODE)
    s.run("please deploy the service")
    s.run("and again", resume=True)
    reqs = s.requests()
    assert len(reqs) >= 3, len(reqs)
    for r in reqs:
        assert r.text.count(BRIEF) == 1, (r.seq, r.text.count(BRIEF))
        assert r.text.count("E2E-PROMPT-NOTE") == 1, (r.seq, r.text.count("E2E-PROMPT-NOTE"))
    assert "and again" in reqs[-1].text


def test_opencode_prompt_refusal_sends_no_request(session) -> None:
    s: Session = session(OPENCODE, Script([], last=[Say("Should never be asked.")]))
    s.install(PROMPT_PACKAGE)
    run = s.run("log in with PASSWORD=hunter2")
    assert s.requests() == [], "a refused prompt reached the model"
    assert run.code != 0


def test_opencode_context_after_a_tool_call(session) -> None:
    """Context after a call: appended to the call's output, which is what the model reads next;
    a `warn` reaches the model only (OpenCode shows a plugin no message channel)."""
    s: Session = session(OPENCODE, Script([], last=[Say("Edited.")]))
    readme = str(s.project / "README.md")
    s.script.turns.append(
        [Call("edit", {"filePath": readme, "oldString": "scratch", "newString": "edited"})]
    )
    s.install(POST_PACKAGE)
    s.run("edit the readme")
    assert "edited project" in (s.project / "README.md").read_text()
    results = [t for r in s.requests() if r.step >= 1 for t in tool_results(r.body)]
    assert any("E2E-POST-INJECT" in t for t in results), results
    assert any("E2E-WARN-MODEL" in t for t in results), results
    assert not any("E2E-WARN-USER-ONLY" in r.text for r in s.requests())


FACTS_PACKAGE = """
spec: style/v0.3
name: e2e
version: 1.0.0
description: every OpenCode event handed to STYLE
rules:
  - id: brief
    target: system
    text: "E2E-FACTS brief"
  - id: never
    target: tool
    tool: [shell, file.write, file.edit, file.read]
    action: block
    when: 'tool.input.filePath == "/nowhere" or tool.input.command == "never"'
    text: "E2E-FACTS never"
  - id: after-every-call
    target: tool
    tool: [shell, file.write, file.edit, file.read]
    at: after
    text: "E2E-FACTS after"
"""


def add_handler(s: Session, event: str, like: str) -> None:
    """One more handler in the plugin's table: STYLE's command for `event`, written as the one
    for `like` (a point no rule of the test needs, recorded all the same)."""
    groups = plugin_handlers(s.config.read_text(), str(s.config))
    [group] = groups[like]
    handler = dict(group["hooks"][0])
    handler["command"] = handler["command"].replace(f"--event {like}", f"--event {event}")
    groups[event] = [{"hooks": [handler]}]
    s.config.write_text(plugin_text(groups))


def test_opencode_events_as_the_plugin_hands_them_over(session) -> None:
    """The payloads of the pinned client, through the recording wrapper: the tool names and
    inputs, the model, the turn, a failed shell call's exit code, the stop."""
    s: Session = session(
        OPENCODE,
        Script(
            [
                [
                    bash("false"),
                    Call("write", {"filePath": "", "content": "one\n"}),
                ],
                [Call("read", {"filePath": ""})],
            ],
            last=[Say("Done.")],
        ),
    )
    notes = str(s.project / "notes.txt")
    s.script.turns[0][1].args["filePath"] = notes
    s.script.turns[1][0].args["filePath"] = notes
    s.install(FACTS_PACKAGE)
    add_handler(s, "session.idle", "chat.message")
    record_payloads(s)
    s.run("look around")
    (s.root / "payloads-seen.json").write_text(json.dumps(s.payloads(), indent=2))
    [start] = payloads_of(s, "session.created")
    [message] = payloads_of(s, "chat.message")
    assert start["payload"]["source"] == "startup"
    assert message["payload"]["model"] == "mock/claude-e2e-mock-1"
    turn = message["payload"]["turn_id"]
    assert turn.startswith("msg_")
    before = {
        p["payload"]["tool_name"]: p["payload"] for p in payloads_of(s, "tool.execute.before")
    }
    assert set(before) == {"bash", "write", "read"}
    assert all(p["turn_id"] == turn for p in before.values())
    assert set(before["write"]["tool_input"]) == {"filePath", "content"}
    after = {p["payload"]["tool_name"]: p["payload"] for p in payloads_of(s, "tool.execute.after")}
    assert after["bash"]["tool_response"]["metadata"]["exit"] == 1
    assert payloads_of(s, "session.idle")
