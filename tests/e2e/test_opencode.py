"""STYLE in the real OpenCode: its plugin (harnesses/opencode_plugin.js) hands OpenCode's plugin
hooks to `style-hook` and acts on the answers. Each test is one `opencode run` against the mock
Anthropic API (a provider of OpenCode's own config), and asserts what ran and what reached the
model (docs/design/harnesses.md#opencode)."""

from __future__ import annotations

import json
from typing import Any

from agentstyle.harnesses.opencode import plugin_handlers, plugin_text
from e2e.clients import RECORDING_WRAPPER, Session
from e2e.mockapi import Call, Say, Script
from e2e.scenarios import (
    BLOCK_PACKAGE,
    BLOCK_REASON,
    BRIEF,
    FIX_PACKAGE,
    FIX_TEXT,
    FIXED,
    POST_PACKAGE,
    PROMPT_PACKAGE,
    assert_blocked,
    brief_package,
    tool_results,
)

OPENCODE = "opencode"
BEFORE = "tool.execute.before"

# The other clients' brief (test_context.py) in a package of its own name.
BRIEF_PACKAGE = brief_package("e2e-brief")


def bash(command: str) -> Call:
    return Call("bash", {"command": command, "description": "run it"})


def rm_script() -> Script:
    return Script([[Say("Deleting it."), bash("rm victim.txt")]], last=[Say("Done.")])


def record_payloads(s: Session) -> None:
    """Every payload STYLE's plugin sends and the answer it got, in payloads.jsonl: each handler
    command in the plugin's table run through the suite's recording wrapper."""
    groups = plugin_handlers(s.config.read_text(), str(s.config))
    handlers = [h for event_groups in groups.values() for g in event_groups for h in g["hooks"]]
    s.wrap_handlers(RECORDING_WRAPPER, handlers, "hook-wrapper")
    s.config.write_text(plugin_text(groups))


def payloads_of(s: Session, event: str) -> list[dict[str, Any]]:
    return [p for p in s.payloads() if p["payload"].get("hook_event_name") == event]


def test_opencode_refuses_a_shell_call_and_pure_runs_it(session) -> None:
    """The plugin's throw is the call's error result: the reason, where the model reads it.
    `opencode run --pure` loads no plugin, STYLE's included, and the same call runs (what
    self-protection refuses the agent: facts/opencode.py `hooks_off_commands`)."""
    s: Session = session(OPENCODE, rm_script())
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert_blocked(s)
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any(BLOCK_REASON in t for t in results), results
    s.run("delete victim.txt", extra=["--pure"])
    assert not (s.project / "victim.txt").exists()


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
    s.package(BRIEF_PACKAGE, name="brief")
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
    # (the run ends at the error: only `--print-logs` has its last log lines for certain)
    run = s.run("log in with PASSWORD=hunter2", extra=["--print-logs"])
    assert s.requests() == [], "a refused prompt reached the model"
    assert run.code == 1
    assert "STYLE refused this prompt: E2E-PROMPT-BLOCK" in run.stderr


TOAST_PROBE = """
import { appendFileSync } from "node:fs"
export const ToastProbe = async () => ({
  event: async ({ event }) => {
    if (event.type !== "tui.toast.show") return
    appendFileSync(%r, JSON.stringify(event.properties) + "\\n")
  },
})
"""


def test_opencode_context_after_a_tool_call_and_a_toast(session) -> None:
    """Context after a call: appended to the call's output, which is what the model reads next.
    A `warn`: its model text there too, its whole text a toast on OpenCode's bus, which the TUI
    shows (a second plugin of the test's own records the bus event), never the model's."""
    s: Session = session(OPENCODE, Script([], last=[Say("Edited.")]))
    readme = str(s.project / "README.md")
    s.script.turns.append(
        [Call("edit", {"filePath": readme, "oldString": "scratch", "newString": "edited"})]
    )
    s.install(POST_PACKAGE)
    seen = s.root / "toasts.jsonl"
    (s.project / ".opencode/plugins/zz-probe.js").write_text(TOAST_PROBE % str(seen))
    s.run("edit the readme")
    assert "edited project" in (s.project / "README.md").read_text()
    results = [t for r in s.requests() if r.step >= 1 for t in tool_results(r.body)]
    assert any("E2E-POST-INJECT" in t for t in results), results
    assert any("E2E-WARN-MODEL" in t for t in results), results
    assert not any("E2E-WARN-USER-ONLY" in r.text for r in s.requests())
    toasts = [json.loads(line) for line in seen.read_text().splitlines()]
    assert any(
        t.get("title") == "STYLE" and "E2E-WARN-USER-ONLY" in t.get("message", "") for t in toasts
    ), toasts


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


def break_handlers(s: Session, event: str, command: str) -> None:
    """Every STYLE handler of `event` in the plugin's table made to run `command` instead (its
    `failClosed` kept): a hook process that fails as the plugin would meet it."""
    groups = plugin_handlers(s.config.read_text(), str(s.config))
    for group in groups[event]:
        for handler in group["hooks"]:
            handler["command"] = command
    s.wrapped = True  # what the plugin logs of these runs is no hook duration of STYLE's
    s.config.write_text(plugin_text(groups))


def test_opencode_runs_the_call_when_the_hook_fails(session) -> None:
    """Without --fail-closed a handler that fails lets the call run, as a crashed hook does in
    every client without a fail-closed switch; the plugin records it where the hook records a
    call it could not check (.style/logs/errors.log), and `style doctor` reports it."""
    s: Session = session(OPENCODE, rm_script())
    s.install(BLOCK_PACKAGE)
    break_handlers(s, BEFORE, "cat >/dev/null; exit 3")
    s.run("delete victim.txt")
    assert not (s.project / "victim.txt").exists(), "the call did not run"
    said = f"STYLE's {BEFORE} handler failed: it exited with 3"
    lines = (s.project / ".style/logs/errors.log").read_text().splitlines()
    assert [line.split(" ", 4)[1:] for line in lines] == [["opencode", BEFORE, "fail-open", said]]
    doctor = s.style("doctor", check=False)
    assert "1 call(s) allowed unchecked" in doctor.stdout and said in doctor.stdout, doctor.stdout


def test_opencode_fail_closed_refuses_when_the_hook_fails_or_hangs(session) -> None:
    """With --fail-closed the gate handlers carry `failClosed`: the plugin refuses a call whose
    handler failed or outlived its timeout (the process ended at 4 s), and says why."""
    s: Session = session(
        OPENCODE,
        Script([[bash("rm victim.txt")], [bash("rm README.md")]], last=[Say("Done.")]),
    )
    s.install(BLOCK_PACKAGE, "--fail-closed")
    groups = plugin_handlers(s.config.read_text(), str(s.config))
    assert all(h.get("failClosed") for g in groups[BEFORE] for h in g["hooks"])
    marker = s.root / "hook-ran"
    # the first call's handler fails, the second one's hangs past the timeout
    break_handlers(
        s,
        BEFORE,
        f'cat >/dev/null; if [ -e "{marker}" ]; then sleep 30; fi; touch "{marker}"; exit 3',
    )
    run = s.run("delete two files")
    assert (s.project / "victim.txt").exists() and (s.project / "README.md").exists()
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any("it exited with 3" in t and "--fail-closed" in t for t in results), results
    assert any("did not answer within 4 s" in t for t in results), results
    lines = (s.project / ".style/logs/errors.log").read_text().splitlines()
    assert [line.split(" ", 4)[3] for line in lines] == ["refused", "refused"]
    assert run.seconds < 60


def project_files(s: Session) -> dict[str, bytes]:
    """Every file of the project but git's and STYLE's `.style/`, by relative path."""
    out = {}
    for path in s.project.rglob("*"):
        name = path.relative_to(s.project)
        if path.is_file() and name.parts[0] not in (".git", ".style"):
            out[name.as_posix()] = path.read_bytes()
    return out


def test_opencode_uninstall_leaves_the_project_as_it_was(session) -> None:
    """Uninstall takes the plugin file and the folders install made, nothing of OpenCode's own
    (`.opencode/package.json` and the rest it writes there); the next run is unguarded."""
    s: Session = session(OPENCODE, rm_script())
    mine = s.project / ".opencode/plugins/mine.js"
    mine.parent.mkdir(parents=True)
    mine.write_text("export const Mine = async () => ({})\n")
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert (s.project / "victim.txt").exists()
    before = project_files(s)
    s.style("uninstall", "--harness", OPENCODE)
    after = project_files(s)
    assert set(before) - set(after) == {".opencode/plugins/style.js", "style.lock.yaml"}
    assert after == {name: data for name, data in before.items() if name in after}
    assert ".opencode/plugins/mine.js" in after
    s.run("delete victim.txt")
    assert not (s.project / "victim.txt").exists()
