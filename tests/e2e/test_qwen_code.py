"""STYLE in the real Qwen Code (`qwen -p`, the pinned 0.24.4 on Node 22), against the mock's
Anthropic Messages API: what its hooks do with STYLE's answers, and every fact
docs/design/harnesses.md#qwen-code marks confirmed.

The facts its adapter keeps in one named place (`harnesses/qwen_code.py`, "facts once
UNCONFIRMED"; the capabilities in `harnesses/facts/qwen_code.py`) each have the test here that
fails when a client upgrade changes them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentstyle.harnesses import qwen_code
from e2e.clients import Session, is_style_command
from e2e.mockapi import ANTHROPIC_MODEL, Call, Say, Script
from e2e.scenarios import (
    BLOCK_PACKAGE,
    BLOCK_REASON,
    FIX_PACKAGE,
    FIXED,
    PROMPT_PACKAGE,
    assert_blocked,
    block_script,
    tool_results,
)
from tests.support.packages import no_rm, package_text, shell_rule

Q = "qwen-code"


def shell(command: str) -> Call:
    return Call("run_shell_command", {"command": command})


def write(s: Session, rel: str, content: str) -> Call:
    return Call("write_file", {"file_path": str(s.project / rel), "content": content})


def edit(s: Session, rel: str, old: str, new: str) -> Call:
    return Call("edit", {"file_path": str(s.project / rel), "old_string": old, "new_string": new})


def pkg(*rules: str) -> str:
    return package_text("e2e", *rules, description="Qwen Code end to end")


def rows(s: Session, sql: str) -> list[dict[str, Any]]:
    done = s.style("audit", "sql", sql, "--format", "json")
    found: list[dict[str, Any]] = json.loads(done.stdout)["rows"]
    return found


# -- a refused shell call -------------------------------------------------------------------------


def test_a_refused_shell_call(session) -> None:
    """PreToolUse `permissionDecision: deny`: the call never runs and its reason is the call's
    result, where the model reads what its call did."""
    s: Session = session(Q, block_script(Q))
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert_blocked(s)
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any(BLOCK_REASON in t for t in results), results


BANNER_WRAPPER = """#!{python}
# A hook answer broken the way a shell profile's banner breaks it: a line before the JSON.
import subprocess, sys
done = subprocess.run({command!r}, shell=True, stdin=sys.stdin, capture_output=True)
sys.stdout.write("welcome to the machine\\n" + done.stdout.decode())
sys.exit(done.returncode)
"""


def test_the_refusal_scenario_fails_with_a_broken_answer(session) -> None:
    """Proof the scenario can fail: a line before the JSON makes Qwen Code read the answer as
    plain text (an allow), so the call runs."""
    s: Session = session(Q, block_script(Q))
    s.install(BLOCK_PACKAGE)
    s.wrap_hooks(BANNER_WRAPPER)
    s.run("delete victim.txt")
    with pytest.raises(AssertionError):
        assert_blocked(s)


# -- what reaches the model -----------------------------------------------------------------------

CONTEXT_PACKAGE = """
spec: style/v0.3
name: e2e
version: 1.0.0
description: context at every point Qwen Code carries it
rules:
  - id: brief
    target: system
    text: "E2E-BRIEF never touch generated/"
  - id: prompt-note
    target: event
    event: prompt.submitted
    when: 'prompt contains "deploy"'
    text: "E2E-PROMPT-NOTE deploys go through the release checklist"
  - id: after-shell
    target: tool
    tool: shell
    at: after
    action: inject
    repeat: every
    text: "E2E-AFTER-CALL ran on {{model}}"
  - id: before-write
    target: tool
    tool: file.write
    at: before
    action: inject
    fallback: degrade
    repeat: every
    text: "E2E-ABOUT-TO-WRITE"
"""


def test_injected_context_reaches_the_next_request(session) -> None:
    """SessionStart context (the system prompt), prompt context and context after a call (the
    call's result) each reach the model's next request, once; the prompt's context is not added
    again to the continuations after tool results (`qwen_code.SUBMITTED_PROMPT_KEY`)."""
    s: Session = session(Q, Script([]))
    s.script.turns += [[shell("echo one")], [write(s, "new.txt", "hi\n")], [shell("echo two")]]
    s.install(CONTEXT_PACKAGE)
    s.record_payloads()
    s.run("please deploy the service")
    reqs = s.requests()
    assert len(reqs) == 4, [r.step for r in reqs]
    for r in reqs:
        assert r.text.count("E2E-BRIEF") == 1, (r.seq, r.text.count("E2E-BRIEF"))
        assert r.text.count("E2E-PROMPT-NOTE") == 1, (r.seq, r.text.count("E2E-PROMPT-NOTE"))
    # after each shell call, its context is appended to the call's result; `{{model}}` is the
    # model the API reported, read from the transcript (`qwen_code.MODEL_FROM_TRANSCRIPT`)
    results = [t for t in tool_results(reqs[-1].body)]
    assert sum(f"E2E-AFTER-CALL ran on {ANTHROPIC_MODEL}" in t for t in results) == 2, results
    # a PreToolUse context reaches no one: the rule degraded to after the write, where it does
    assert "E2E-ABOUT-TO-WRITE" in reqs[2].text and "E2E-ABOUT-TO-WRITE" not in reqs[1].text
    # the continuations fired UserPromptSubmit without `submitted_prompt`, and were not prompts
    prompts = [
        p["payload"]
        for p in s.payloads()
        if p["payload"]["hook_event_name"] == ("UserPromptSubmit")
    ]
    assert len(prompts) == 4, prompts
    told = [p for p in prompts if qwen_code.SUBMITTED_PROMPT_KEY in p]
    assert [p["prompt"] for p in told] == ["please deploy the service"]
    counted = rows(s, "SELECT count(*) AS n FROM events WHERE point = 'prompt.submitted'")
    assert counted == [{"n": 1}], counted


def test_a_refused_prompt_sends_nothing(session) -> None:
    s: Session = session(Q, Script([], last=[Say("Should never be asked.")]))
    s.install(PROMPT_PACKAGE)  # its no-secrets rule
    s.run("log in with PASSWORD=hunter2")
    assert s.requests() == [], "a refused prompt reached the model"


# -- a stop that continues ------------------------------------------------------------------------

STOP = "E2E-STOP-CONTINUE run the tests before you finish"


def test_a_stop_continues_once_and_the_loop_guard_ends_it(session) -> None:
    """Stop `decision: block`: the turn goes on with the reason as the next user message, once;
    the next Stop says `stop_hook_active` and STYLE's loop guard lets it end."""
    s: Session = session(Q, Script([], last=[Say("All done.")]))
    s.install(
        pkg(
            f"""
            - id: tests-first
              target: event
              event: stop
              action: block
              text: "{STOP}"
            """,
        )
    )
    run = s.run("finish the work")
    reqs = s.requests()
    assert len(reqs) == 2, [r.step for r in reqs]
    assert STOP not in reqs[0].text
    assert reqs[1].text.count(STOP) == 1 and not is_style_command(reqs[1].text)
    outcomes = rows(
        s, "SELECT outcome FROM hits WHERE rule_id = 'e2e/tests-first' ORDER BY event_id"
    )
    assert [r["outcome"] for r in outcomes] == ["blocked", "loop-guard"]
    assert run.code == 0


# -- ask, fix, and what the person can do ---------------------------------------------------------

ASK_QUESTION = "E2E-ASK this pushes to the remote: confirm"


def test_ask_headless_refuses_and_says_how_to_allow(session) -> None:
    """`permissionDecision: ask` in `qwen -p` is no prompt: the call is refused and the question
    is the model's tool result, so it carries how to let the call through; `style allow --last`
    then lets the same call run."""
    push = shell("touch pushed.txt")
    s: Session = session(Q, Script([[push], [Say("It needs approval.")], [push]]))
    s.install(
        pkg(
            shell_rule("confirm-push", "^touch pushed", ASK_QUESTION, action="ask"),
        )
    )
    planned = s.style("plan", str(s.root / "pkg"), "--harness", Q, "--format", "json")
    plan = json.loads(planned.stdout)
    [status] = {e["status"] for r in plan if r["rule"] == "e2e/confirm-push" for e in r["entries"]}
    assert status == "native"
    s.run("push it")
    assert not (s.project / "pushed.txt").exists(), "an ask in a headless run let the call run"
    asked = [t for r in s.requests() for t in tool_results(r.body) if "E2E-ASK" in t]
    assert asked and all("style allow" in t for t in asked), asked
    assert s.style("allow", "--last", check=False).returncode == 0
    s.run("push it again", resume=True)
    assert (s.project / "pushed.txt").exists(), "the allowed call did not run"


def test_a_fix_is_a_refusal_that_names_the_command(session) -> None:
    """No `updatedInput` at PreToolUse: plan says the fix degrades, and the refusal names the
    command to run instead."""
    s: Session = session(Q, block_script(Q))
    s.install(FIX_PACKAGE)
    s.run("delete victim.txt")
    assert (s.project / "victim.txt").exists() and not (s.project / "victim.txt.trash").exists()
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any(f"Run this instead: `{FIXED}`" in t for t in results)


# -- when a hook fails ----------------------------------------------------------------------------

CRASH = """#!{python}
import sys
sys.stdin.read()
sys.stderr.write("Traceback (most recent call last): the hook crashed\\n")
sys.exit(1)
"""
HANG = """#!{python}
import sys, time
sys.stdin.read()
time.sleep(8)
"""


@pytest.mark.parametrize("wrapper", [CRASH, HANG], ids=["crash", "timeout"])
def test_a_hook_that_crashes_or_times_out_lets_the_call_run(session, wrapper: str) -> None:
    """The fail mode plan and doctor state (`HarnessSpec.hook_failure`): Qwen Code has no
    fail-closed switch; a gate hook that exits 1 or runs past its 4 s timeout lets the call
    run."""
    s: Session = session(Q, block_script(Q))
    s.install(BLOCK_PACKAGE, "--fail-closed")
    s.wrap_hooks(wrapper)
    s.run("delete victim.txt")
    assert not (s.project / "victim.txt").exists(), "the failed hook refused the call"


def test_fail_closed_refuses_with_a_broken_database(session) -> None:
    """What STYLE does about it: where it cannot evaluate, its own `--fail-closed` refusal is
    the deny answer with exit 0, which the client honours."""
    s: Session = session(Q, Script([[shell("touch created.txt")]]))
    s.install(BLOCK_PACKAGE, "--fail-closed")
    s.style("engine", "stop", check=False)
    (s.project / ".style" / "style.duckdb").write_bytes(b"this is not a database" * 100)
    s.run("create a file")
    assert not (s.project / "created.txt").exists(), "--fail-closed let the call run"


# -- install, uninstall, self-protection ----------------------------------------------------------

MINE = '{\n  // my settings\n  "ui": {"theme": "GitHub"},\n  "hooks": {}\n}\n'


def test_uninstall_after_a_run_gives_the_settings_back_byte_for_byte(session) -> None:
    """Merged into the person's settings, taken out byte for byte even after the client ran:
    it writes `$version` into a settings file that names none (`qwen_code.SETTINGS_VERSION`),
    so install writes it first and uninstall takes it away."""
    s: Session = session(Q, Script([[shell("rm victim.txt")]]))
    s.config.parent.mkdir(parents=True, exist_ok=True)
    s.config.write_text(MINE)
    s.install(BLOCK_PACKAGE)
    installed = s.config.read_text()
    assert f'"{qwen_code.SETTINGS_VERSION_KEY}": {qwen_code.SETTINGS_VERSION}' in installed
    s.run("delete victim.txt")
    assert_blocked(s)
    assert s.config.read_text() == installed, "the client rewrote the settings STYLE wrote"
    s.style("uninstall", "--harness", Q)
    assert s.config.read_text() == MINE, "uninstall did not restore the settings byte for byte"
    run = s.run("delete victim.txt")
    assert not (s.project / "victim.txt").exists(), "a STYLE hook still ran after uninstall"
    assert not is_style_command(run.stdout)


def test_a_user_install_guards_every_project(session) -> None:
    """`--scope user` merges into `~/.qwen/settings.json` beside the person's settings."""
    s: Session = session(Q, block_script(Q))
    before = (s.home / ".qwen" / "settings.json").read_text()
    s.install(BLOCK_PACKAGE, "--scope", "user")
    assert not s.config.exists()
    s.run("delete victim.txt")
    assert_blocked(s)
    s.style("uninstall", "--harness", Q, "--scope", "user")
    assert (s.home / ".qwen" / "settings.json").read_text() == before


def test_the_agent_cannot_edit_the_hook_config(session) -> None:
    s: Session = session(Q, Script([]))
    s.install(package_text("e2e", no_rm("no rm"), description="a gate on shell calls"))
    before = s.config.read_bytes()
    s.script.turns.append([write(s, ".qwen/settings.json", "{}\n")])
    s.script.turns.append([shell("qwen --bare -p 'rm victim.txt'")])
    s.run("clear the hook config")
    assert s.config.read_bytes() == before, "the agent rewrote the hook config"
    # both calls refused, the nested `qwen --bare` (no hooks) among them (`hooks_off_commands`)
    results = tool_results(s.requests()[-1].body)
    assert len(results) == 2 and all("STYLE self-protect" in t for t in results), results


# -- payloads, transcripts, doctor ----------------------------------------------------------------

RECORD = """
spec: style/v0.3
name: e2e
version: 1.0.0
description: a rule on every tool, so every tool call reaches a hook
rules:
  - id: after
    target: tool
    tool: [shell, file.write, file.edit, file.read]
    at: after
    action: inject
    repeat: every
    text: "E2E-POST"
  - id: failed
    target: event
    event: tool.failed
    text: "E2E-FAILED the command failed"
"""


def test_payloads_name_the_tools_their_inputs_and_the_call_ids(session) -> None:
    """Claude Code's fields with Gemini CLI's tool names (`write_file`, `edit` for Gemini's
    `replace`, `run_shell_command`), `file_path` (`qwen_code.FILE_PATH_KEYS`); `tool_call_id` is
    the model's id of the call; SessionStart alone names the model."""
    s: Session = session(Q, Script([]))
    s.script.turns += [
        [write(s, "new.txt", "hello\n")],
        [Call("read_file", {"file_path": str(s.project / "README.md")})],  # edit reads first
        [edit(s, "README.md", "scratch project", "edited project")],
        [shell("false")],
    ]
    s.install(RECORD)
    s.record_payloads()
    s.run("do the things")
    payloads = [p["payload"] for p in s.payloads()]
    [start] = [p for p in payloads if p["hook_event_name"] == "SessionStart"]
    assert start["model"] == ANTHROPIC_MODEL and start["source"] == "startup"
    pre = [p for p in payloads if p["hook_event_name"] == "PreToolUse"]
    assert [p["tool_name"] for p in pre] == ["write_file", "edit", "run_shell_command"]
    post = [p for p in payloads if p["hook_event_name"] == "PostToolUse"]
    assert [p["tool_name"] for p in post] == ["write_file", "read_file", "edit"]
    paths = [qwen_code.ADAPTER.normalize(p, "PostToolUse").first("file.path") for p in post]
    assert paths == ["new.txt", "README.md", "README.md"]
    assert (s.project / "README.md").read_text() == "edited project\n"
    sent = [c["id"] for r in s.requests() for c in _calls(r.body)]
    hooked = [p["tool_call_id"] for p in payloads if p["hook_event_name"].startswith("Post")]
    assert hooked == list(dict.fromkeys(sent))
    # a command that exits non-zero is a PostToolUseFailure, with its output as `error`
    [failed] = [p for p in payloads if p["hook_event_name"] == "PostToolUseFailure"]
    assert failed["tool_name"] == "run_shell_command" and "Exit Code: 1" in failed["error"]
    assert "E2E-FAILED" in s.requests()[-1].text


def _calls(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        c
        for m in body.get("messages", [])
        if isinstance(m.get("content"), list)
        for c in m["content"]
        if c.get("type") == "tool_use"
    ]


def test_coverage_finds_a_bare_session_wholly_unseen(session) -> None:
    """`style audit coverage` reads Qwen Code's chats (`~/.qwen/projects/<path>/chats/`): a
    session whose hooks ran is covered call by call (the chat's call ids are the hooks'
    `tool_call_id`), a `qwen --bare` session (no hooks) is wholly unseen."""
    s: Session = session(Q, block_script(Q))
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert_blocked(s)
    s.run("delete victim.txt", extra=["--bare"])
    assert not (s.project / "victim.txt").exists(), "the hooks ran under --bare"
    doc = json.loads(s.style("audit", "coverage", "--format", "json").stdout)
    mine = [r for r in doc["rows"] if r["harness"] == Q]
    assert len(mine) == 2, doc
    [covered] = [r for r in mine if not r["wholly_unseen"]]
    [unseen] = [r for r in mine if r["wholly_unseen"]]
    assert covered["tool_calls"] == covered["seen"] == 1 and covered["unseen"] == [], covered
    assert {x["tool"] for x in unseen["unseen"]} == {"run_shell_command"}, unseen
    assert {x["cause"] for x in unseen["unseen"]} == {"hooks-skipped"}, unseen
    assert unseen["transcript"].startswith(str(s.home / ".qwen" / "projects")), unseen


def test_doctor_checks_the_install_and_says_what_a_failed_hook_does(session) -> None:
    s: Session = session(Q, Script([[Say("Checking."), shell("echo style-canary > .style/c")]]))
    s.install(BLOCK_PACKAGE)
    # (--no-fire: the synthetic events' timing on a loaded machine is no fact of the client)
    doctor = s.style("doctor", "--no-fire", check=False)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "ok: qwen-code: .qwen/settings.json" in doctor.stdout, doctor.stdout
    assert "ok: qwen-code: hook failures: Qwen Code lets the call run" in doctor.stdout, (
        doctor.stdout
    )
    live = s.style("doctor", "--live", "--no-fire", check=False)
    assert live.returncode == 0 and "refused the canary" in live.stdout, live.stdout
    s.run("check the canary")
    assert not (s.project / ".style" / "c").exists(), "the client ran the canary"


SLOW = """#!{python}
# STYLE's answer, a second and a half late: in time for a timeout of 4 seconds, not of 4 ms.
import subprocess, sys, time
stdin = sys.stdin.buffer.read()
time.sleep(1.5)
done = subprocess.run({command!r}, shell=True, input=stdin, capture_output=True)
sys.stdout.buffer.write(done.stdout)
sys.exit(done.returncode)
"""


def test_handler_timeouts_are_seconds(session) -> None:
    """`timeout: 4` is read as seconds (1000 or more would be milliseconds): an answer 1.5 s
    late still refuses the call."""
    s: Session = session(Q, block_script(Q))
    s.install(BLOCK_PACKAGE)
    config = json.loads(s.config.read_text())
    timeouts = {
        h["timeout"] for groups in config["hooks"].values() for g in groups for h in g["hooks"]
    }
    assert timeouts == {4}
    s.wrap_hooks(SLOW)
    s.run("delete victim.txt")
    assert_blocked(s)
