"""One policy, one scenario, every harness: the cross-harness golden suite.

The package `tests/data/harness/cross` (xh) is installed for every harness (claude-code, codex,
cursor, gemini-cli, copilot-cli, qwen-code) in one project. The same scenario is then replayed
through each harness's own payload shapes (the shared fixtures, or a fixture with a few fields
changed), one session per harness, in order: session start, a prompt, a blocked shell call, an
ask, a warn before an edit, an inject after it, a stop that must continue, the stop again (loop
guard), a compaction, and the session start that follows it. Every answer is checked byte for
byte (stdout, exit code, empty stderr).

What differs per harness is exactly what the contracts say
(docs/design/harnesses.md#across-harnesses): the ask is an ask on Claude Code and on Cursor's
beforeShellExecution, a refusal that tells the user `style allow --last` on Codex and Gemini CLI;
the warn reaches the model and the user on Claude Code and Codex, only the user on Gemini CLI
(BeforeTool has no context field), and only the model after the edit on Cursor and Qwen Code
(degraded to postToolUse, PostToolUse); Cursor has no prompt context; the stop continues
through `decision: block`, `followup_message` or `decision: deny`; the compaction note reaches
the user on Codex only.
"""

from __future__ import annotations

import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import DATA, HARNESSES, HarnessProject
from tests.support.hooks import new_session

BRIEF = "acme-api: Rust workspace; never edit generated/ files."
TESTS = "Run the tests with 'cargo test --workspace'."
RM = "STYLE no-rm-rf: recursive deletes are blocked; use 'cargo clean'."
PUSH = "STYLE force-push: this rewrites the remote branch. Go ahead?"
PUSH_REFUSED = PUSH + " Ask the user; they can allow it once with 'style allow --last'."
WARN = "STYLE unwrap-warn: this edit touches library code under src/."
WARN_MODEL = "Prefer ? over unwrap() in src/."
CLIPPY = "After editing Rust code run 'cargo clippy -- -D warnings'."
STOP = "STYLE tests-before-done: run 'cargo test' and report the result first."
COMPACT = "STYLE: the context is being compacted; the project brief follows."

STEPS = (
    "start",
    "prompt",
    "block",
    "ask",
    "edit-before",
    "edit-after",
    "stop",
    "stop-again",
    "compact",
    "after-compact",
)


def _j(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _ctx(event: str, text: str) -> str:
    return _j({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}})


def _pre(decision: str, reason: str) -> str:
    """Claude Code's PreToolUse answer, which Codex and Qwen Code share."""
    specific = {"permissionDecision": decision, "permissionDecisionReason": reason}
    return _j({"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}})


# the warn before an edit: to the person (systemMessage) and to the model (Claude Code, Codex)
PRE_WARN = _j(
    {
        "systemMessage": WARN,
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": WARN_MODEL},
    }
)

# step → exact stdout (exit code 0 and empty stderr everywhere; None: the harness has no such step)
GOLDEN: dict[str, dict[str, str | None]] = {
    "claude-code": {
        "start": _ctx("SessionStart", BRIEF),
        "prompt": _ctx("UserPromptSubmit", TESTS),
        "block": _pre("deny", RM),
        "ask": _pre("ask", PUSH_REFUSED),
        "edit-before": PRE_WARN,
        "edit-after": _ctx("PostToolUse", CLIPPY),
        "stop": _ctx("Stop", STOP),
        "stop-again": "",
        # PreCompact can only block: the compaction note was skipped at install (plan).
        "compact": "",
        "after-compact": _ctx("SessionStart", BRIEF),
    },
    "codex": {
        "start": _ctx("SessionStart", BRIEF),
        "prompt": _ctx("UserPromptSubmit", TESTS),
        "block": _pre("deny", RM),
        # No ask in Codex (an `ask` would fail the hook and run the call): a refusal that
        # tells the user how to let it through.
        "ask": _pre("deny", PUSH_REFUSED),
        "edit-before": PRE_WARN,
        "edit-after": _ctx("PostToolUse", CLIPPY),
        "stop": _j({"decision": "block", "reason": STOP}),
        "stop-again": "",
        "compact": _j({"systemMessage": COMPACT}),
        "after-compact": _ctx("SessionStart", BRIEF),
    },
    "cursor": {
        "start": _j({"additional_context": BRIEF}),
        "prompt": _j({"continue": True}),  # no context field at prompt submit
        "block": _j(
            {
                "permission": "deny",
                "user_message": "STYLE no-rm-rf blocked: rm -rf ./target /tmp/acme-build",
                "agent_message": RM,
            }
        ),
        "ask": _j(
            {
                "permission": "ask",
                "user_message": PUSH,
                "agent_message": "Waiting for the user to approve this call.",
            }
        ),
        # preToolUse can only deny: the warn was degraded to postToolUse (model side only).
        "edit-before": _j({"permission": "allow"}),
        "edit-after": _j({"additional_context": WARN_MODEL + "\n\n" + CLIPPY}),
        "stop": _j({"followup_message": STOP}),
        "stop-again": "{}",
        "compact": "{}",
        "after-compact": None,  # Cursor has no post-compaction session start
    },
    "gemini-cli": {
        "start": _ctx("SessionStart", BRIEF),
        "prompt": _ctx("BeforeAgent", TESTS),
        "block": _j({"decision": "deny", "reason": RM}),
        "ask": _j({"decision": "deny", "reason": PUSH_REFUSED}),
        "edit-before": _j({"systemMessage": WARN}),  # BeforeTool: no context field (partial)
        "edit-after": _ctx("AfterTool", CLIPPY),
        "stop": _j({"decision": "deny", "reason": STOP}),
        "stop-again": "{}",
        "compact": "{}",
        "after-compact": None,  # Gemini CLI has no post-compaction session start
    },
    # Copilot CLI's flat fields; before a call nothing reaches the person (the warn's model
    # side only), and PreCompact can only observe.
    "copilot-cli": {
        "start": _j({"additionalContext": BRIEF}),
        "prompt": _j({"additionalContext": TESTS}),
        "block": _j({"permissionDecision": "deny", "permissionDecisionReason": RM}),
        "ask": _j({"permissionDecision": "ask", "permissionDecisionReason": PUSH_REFUSED}),
        "edit-before": _j({"additionalContext": WARN_MODEL}),
        "edit-after": _j({"additionalContext": CLIPPY}),
        "stop": _j({"decision": "block", "reason": STOP}),
        "stop-again": "",
        "compact": "",
        "after-compact": None,  # Copilot CLI starts no session after a compaction
    },
    "qwen-code": {
        "start": _ctx("SessionStart", BRIEF),
        "prompt": _ctx("UserPromptSubmit", TESTS),
        "block": _pre("deny", RM),
        "ask": _pre("ask", PUSH_REFUSED),
        # PreToolUse shows nothing: the warn was degraded to PostToolUse (model side only).
        "edit-before": "",
        "edit-after": _ctx("PostToolUse", WARN_MODEL + "\n\n" + CLIPPY),
        "stop": _j({"decision": "block", "reason": STOP}),
        "stop-again": "",
        "compact": "",  # PreCompact is observe only: the note was skipped at install (plan)
        "after-compact": _ctx("SessionStart", BRIEF),
    },
    # STYLE's own plugin reads these answers (docs/design/harnesses.md#opencode-answers)
    "opencode": {
        "start": _j({"context": BRIEF}),
        "prompt": _j({"context": TESTS}),
        "block": _j({"decision": "deny", "reason": RM}),
        "ask": _j({"decision": "deny", "reason": PUSH_REFUSED}),
        # tool.execute.before carries no text for the model: the person's toast only (partial)
        "edit-before": _j({"systemMessage": WARN}),
        "edit-after": _j({"context": CLIPPY}),
        "stop": None,  # no stop it can continue: the stop rule was skipped at install
        "stop-again": None,
        "compact": None,  # no compaction event
        "after-compact": None,
    },
}


def scenario(p: HarnessProject, harness: str, sid: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(step, native event, payload) of the scenario in this harness's payload shapes."""
    root = p.root.as_posix()
    if harness in ("claude-code", "codex", "copilot-cli"):
        patch = (
            "PreToolUse.apply_patch-rs.json" if harness == "codex" else "PreToolUse.edit-rs.json"
        )
        after = "PostToolUse.apply_patch.json" if harness == "codex" else "PostToolUse.edit-rs.json"
        names = {
            "start": "SessionStart.startup.json",
            "prompt": "UserPromptSubmit.json",
            "block": "PreToolUse.bash-rm-rf.json",
            "ask": "PreToolUse.bash-git-push-force.json",
            "edit-before": patch,
            "edit-after": after,
            "stop": "Stop.json",
            "stop-again": "Stop.active.json",
            "compact": "PreCompact.auto.json",
            "after-compact": "SessionStart.compact.json",
        }
        if harness == "copilot-cli":
            names["start"] = "SessionStart.new.json"
            del names["after-compact"]
        out = []
        for step in [s for s in STEPS if s in names]:
            payload = p.fixture(harness, names[step], session_id=sid)
            out.append((step, str(payload["hook_event_name"]), payload))
        return out
    if harness == "cursor":

        def cu(name: str, **more: Any) -> dict[str, Any]:
            return p.fixture("cursor", name, conversation_id=sid, **more)

        write = cu("preToolUse.write-rs.json")
        edited = p.fixture(
            "cursor",
            "postToolUse.shell.json",
            conversation_id=sid,
            tool_name="Write",
            tool_input=write["tool_input"],
            tool_output='{"success":true}',
        )
        steps = [
            (
                "start",
                p.fixture("cursor", "sessionStart.json", conversation_id=sid, session_id=sid),
            ),
            ("prompt", p.fixture("cursor", "beforeSubmitPrompt.json", conversation_id=sid)),
            ("block", p.fixture("cursor", "beforeShellExecution.rm-rf.json", conversation_id=sid)),
            (
                "ask",
                p.fixture(
                    "cursor", "beforeShellExecution.git-push-force.json", conversation_id=sid
                ),
            ),
            ("edit-before", write),
            ("edit-after", edited),
            ("stop", p.fixture("cursor", "stop.json", conversation_id=sid)),
            ("stop-again", p.fixture("cursor", "stop.looping.json", conversation_id=sid)),
            ("compact", p.fixture("cursor", "preCompact.json", conversation_id=sid)),
        ]
        return [(s, str(pl["hook_event_name"]), pl) for s, pl in steps]
    if harness == "qwen-code":

        def qw(name: str, **more: Any) -> dict[str, Any]:
            return p.fixture("qwen-code", name, session_id=sid, **more)

        edit = qw("PreToolUse.edit-rs.json")
        steps = [
            ("start", qw("SessionStart.startup.json")),
            ("prompt", qw("UserPromptSubmit.json")),
            ("block", qw("PreToolUse.run_shell_command-rm-rf.json")),
            ("ask", qw("PreToolUse.run_shell_command-git-push-force.json")),
            ("edit-before", edit),
            (
                "edit-after",
                {
                    **edit,
                    "hook_event_name": "PostToolUse",
                    "tool_response": {
                        "llmContent": "The file has been updated.",
                        "returnDisplay": "",
                    },
                },
            ),
            ("stop", qw("Stop.json")),
            ("stop-again", qw("Stop.active.json")),
            ("compact", qw("PreCompact.auto.json")),
            ("after-compact", qw("SessionStart.compact.json")),
        ]
        return [(s, str(pl["hook_event_name"]), pl) for s, pl in steps]
    if harness == "opencode":
        names = {
            "start": "session.created.startup.json",
            "prompt": "chat.message.json",
            "block": "tool.execute.before.bash-rm-rf.json",
            "ask": "tool.execute.before.bash-git-push-force.json",
            "edit-before": "tool.execute.before.edit-rs.json",
            "edit-after": "tool.execute.after.edit-rs.json",
        }
        out = []
        for step, name in names.items():
            payload = p.fixture(harness, name, session_id=sid)
            out.append((step, str(payload["hook_event_name"]), payload))
        return out
    rm = p.fixture("gemini-cli", "BeforeTool.run_shell_command-rm-rf.json", session_id=sid)
    replace = p.fixture("gemini-cli", "BeforeTool.replace-rs.json", session_id=sid)
    steps = [
        ("start", p.fixture("gemini-cli", "SessionStart.startup.json", session_id=sid)),
        ("prompt", p.fixture("gemini-cli", "BeforeAgent.json", session_id=sid)),
        ("block", rm),
        ("ask", {**rm, "tool_input": {"command": "git push -f origin main"}}),
        ("edit-before", replace),
        (
            "edit-after",
            {
                **replace,
                "hook_event_name": "AfterTool",
                "tool_response": {"llmContent": "Replaced 1 occurrence.", "returnDisplay": "ok"},
            },
        ),
        ("stop", p.fixture("gemini-cli", "AfterAgent.json", session_id=sid)),
        (
            "stop-again",
            p.fixture(
                "gemini-cli",
                "AfterAgent.json",
                session_id=sid,
                stop_hook_active=True,
                prompt_response="cargo test: all tests pass.",
            ),
        ),
        (
            "compact",
            {
                "session_id": sid,
                "transcript_path": None,
                "cwd": root,
                "hook_event_name": "PreCompress",
                "timestamp": "2026-09-14T10:30:00.000Z",
                "trigger": "auto",
            },
        ),
    ]
    return [(s, str(pl["hook_event_name"]), pl) for s, pl in steps]


@pytest.fixture(scope="module")
def cross(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("cross")
    p = HarnessProject(base / "acme-api", base / "home")
    shutil.copytree(DATA / "cross", p.root / "xh")
    installs = {h: p.cli("install", "xh", "--harness", h) for h in HARNESSES}

    def replay(harness: str) -> list[tuple[str, str, Any]]:
        sid = new_session()
        return [
            (step, event, p.hook_as(harness, event, payload))
            for step, event, payload in scenario(p, harness, sid)
        ]

    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = dict(zip(HARNESSES, pool.map(replay, HARNESSES), strict=True))
    return {"project": p, "installs": installs, "answers": answers}


def test_every_harness_installs_the_same_package(cross: dict[str, Any]) -> None:
    for harness, proc in cross["installs"].items():
        assert proc.returncode == 0, (harness, proc.stderr)
        assert f"installed 1 package(s) + self-protection for {harness}" in proc.stdout


CASES = [(h, s) for h in HARNESSES for s in STEPS if GOLDEN[h][s] is not None]


@pytest.mark.parametrize(("harness", "step"), CASES)
def test_scenario_answer_is_golden(cross: dict[str, Any], harness: str, step: str) -> None:
    answers = {s: r for s, _e, r in cross["answers"][harness]}
    result = answers[step]
    want = GOLDEN[harness][step]
    assert want is not None
    assert (result.stdout, result.code, result.stderr) == ((want + "\n") if want else "", 0, "")


def test_each_scenario_covers_its_steps(cross: dict[str, Any]) -> None:
    for harness in HARNESSES:
        steps = [s for s, _e, _r in cross["answers"][harness]]
        assert steps == [s for s in STEPS if GOLDEN[harness][s] is not None], harness


def test_every_event_was_recorded_under_its_harness(cross: dict[str, Any]) -> None:
    p: HarnessProject = cross["project"]
    rows = dict(
        p.query(
            "SELECT harness, count(*) FROM events WHERE error IS NULL GROUP BY harness",
        )
    )
    assert rows == {h: len(cross["answers"][h]) for h in HARNESSES}
    verdicts = p.query(
        "SELECT harness, native_event, verdict FROM events WHERE verdict <> 'none' "
        "ORDER BY harness, event_id"
    )
    assert ("codex", "PreToolUse", "ask") in verdicts  # the rule asked; Codex got a refusal
    assert ("cursor", "beforeShellExecution", "ask") in verdicts
    assert not p.error_log.exists()


def test_the_plan_says_what_each_harness_can_do(cross: dict[str, Any]) -> None:
    p: HarnessProject = cross["project"]
    rows = p.query(
        "SELECT harness, rule_id, status, native_event FROM entries WHERE rule_id LIKE 'xh/%' "
        "ORDER BY harness, rule_id"
    )
    status = {(h, r): (s, n) for h, r, s, n in rows}
    assert status[("claude-code", "xh/force-push")] == ("native", "PreToolUse")
    assert status[("codex", "xh/force-push")] == ("degraded", "PreToolUse")
    assert status[("cursor", "xh/force-push")] == ("native", "beforeShellExecution")
    assert status[("gemini-cli", "xh/force-push")] == ("degraded", "BeforeTool")
    assert status[("gemini-cli", "xh/unwrap-warn")] == ("partial", "BeforeTool")
    assert status[("cursor", "xh/unwrap-warn")] == ("degraded", "postToolUse")
    assert status[("cursor", "xh/test-command")][0] == "skipped"
    assert status[("qwen-code", "xh/force-push")] == ("native", "PreToolUse")
    assert status[("qwen-code", "xh/unwrap-warn")] == ("degraded", "PostToolUse")
    assert status[("codex", "xh/compact-note")] == ("partial", "PreCompact")
    assert status[("claude-code", "xh/compact-note")][0] == "skipped"
    assert status[("opencode", "xh/force-push")] == ("degraded", "tool.execute.before")
    assert status[("opencode", "xh/unwrap-warn")] == ("partial", "tool.execute.before")
    assert status[("opencode", "xh/tests-before-done")][0] == "skipped"


def test_the_installed_command_of_each_harness_answers_the_same(cross: dict[str, Any]) -> None:
    """The handler install wrote into each harness's own config, run with `sh -c`, gives the
    golden answer for the blocked shell call."""
    p: HarnessProject = cross["project"]
    block = {
        h: next(pl for s, _e, pl in scenario(p, h, "installed") if s == "block") for h in HARNESSES
    }
    for harness in HARNESSES:
        event = str(block[harness]["hook_event_name"])
        result = p.run_installed_as(harness, event, block[harness])
        assert (result.stdout, result.code) == (str(GOLDEN[harness]["block"]) + "\n", 0), harness


def test_scenario_payloads_come_from_the_shared_fixtures() -> None:
    """Only the Gemini ask, edit-after and compaction and the Cursor edit-after payloads are
    built here (no fixture exists); everything else is a fixture with its session replaced."""
    assert Path(DATA / "cross" / "STYLE.yaml").is_file()
