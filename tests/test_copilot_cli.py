"""Copilot CLI's room (docs/design/harnesses.md#copilot-cli): its config in every scope, its
answers (the flat fields, exit 2 as the person's channel), the hook failures it refuses on, the
payloads it sends through another harness's config, its session logs for `style audit coverage`,
and the lines `style plan` and `style doctor` print about hook failures. The e2e twin is
tests/e2e/test_copilot_cli.py, against the real client."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from agentstyle.evaluator.decision import Decision, Fix
from agentstyle.harnesses import adapter_for, copilot_cli
from agentstyle.harnesses.facts import SUPPORTED, spec_for
from agentstyle.harnesses.transcripts.copilot_cli import FORMAT
from agentstyle.install.hookcommand import MISSING, hook_command
from tests.support.harness import FIXTURES, HarnessProject, cross_project
from tests.support.hooks import load_fixture

NAME = "copilot-cli"
ADAPTER = copilot_cli.ADAPTER


@pytest.fixture
def project(tmp_path: Path) -> HarnessProject:
    return cross_project(tmp_path)


# -- install ---------------------------------------------------------------------------------------


def test_the_project_config_is_flat_versioned_and_times_out_in_seconds(
    project: HarnessProject,
) -> None:
    proc = project.cli("install", "xh", "--harness", NAME)
    assert proc.returncode == 0, proc.stderr
    assert "note: Copilot CLI runs a project's hooks only in a folder the person trusted" in (
        proc.stderr
    )
    doc = json.loads((project.root / ".github" / "hooks" / "style.json").read_text("utf-8"))
    assert doc["version"] == 1
    hooks = doc["hooks"]
    assert {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} <= set(hooks)
    for event, handlers in hooks.items():
        [handler] = handlers
        assert handler["type"] == "command" and handler["timeoutSec"] == 4
        assert handler["command"] == hook_command(NAME, event, False, "project")
    # Claude Code's matcher rules: a list of the Claude names Copilot CLI gives its tools
    assert hooks["PreToolUse"][0]["matcher"] == "Bash|Edit|Write"
    assert "matcher" not in hooks["SessionStart"][0]


def test_user_scope_is_the_copilot_home_and_managed_the_policy_folder(
    project: HarnessProject, tmp_path: Path
) -> None:
    moved = tmp_path / "copilot-home"
    user = project.cli("install", "xh", "--harness", NAME, "--scope", "user")
    assert user.returncode == 0, user.stderr
    assert (project.home / ".copilot" / "hooks" / "style.json").is_file()
    assert project.cli("uninstall", "--harness", NAME, "--scope", "user").returncode == 0
    assert not (project.home / ".copilot" / "hooks" / "style.json").exists()
    env = {"COPILOT_HOME": str(moved)}
    assert (
        project.cli("install", "xh", "--harness", NAME, "--scope", "user", env=env).returncode == 0
    )
    assert (moved / "hooks" / "style.json").is_file()
    system = tmp_path / "system"
    managed = project.cli(
        "install",
        str(project.root / "xh"),
        "--harness",
        NAME,
        "--scope",
        "managed",
        env={"STYLE_MANAGED_CONFIG_ROOT": str(system), "STYLE_MANAGED_HOME": str(tmp_path / "m")},
    )
    assert managed.returncode == 0, managed.stderr
    policy = system / "etc" / "github-copilot" / "policy.d" / "style.json"
    assert json.loads(policy.read_text("utf-8"))["version"] == 1


# -- answers ---------------------------------------------------------------------------------------


def test_a_message_is_exit_2_and_stderr_where_copilot_cli_shows_one() -> None:
    for event in copilot_cli.MESSAGE_EVENTS:
        wire = ADAPTER.answer(Decision(contexts=["for the model"], messages=["for you"]), event)
        assert (wire.exit_code, wire.stderr) == (2, "for you\n"), event
        assert ADAPTER.wire_problem(event, wire.stdout, wire.exit_code) is None
    before = ADAPTER.answer(
        Decision(contexts=["for the model"], messages=["for you"]), "PreToolUse"
    )
    assert (before.stdout, before.exit_code, before.stderr) == (
        '{"additionalContext":"for the model"}',
        0,
        "",
    )
    # a notice: a warning where one shows, stderr alone (exit 0) before a call
    assert ADAPTER.with_notice(before, "PreToolUse", "could not check").exit_code == 0
    shown = ADAPTER.with_notice(ADAPTER.no_opinion("SessionStart"), "SessionStart", "n")
    assert (shown.exit_code, shown.stderr) == (2, "n\n")


def test_a_fix_runs_with_modified_args_and_hook_specific_output_is_flagged() -> None:
    fix = Fix("rm a", "mv a a.trash", ["p/r"], tool_input={"command": "mv a a.trash"})
    wire = ADAPTER.answer(Decision(verdict="allow", fix=fix), "PreToolUse")
    assert json.loads(wire.stdout) == {
        "permissionDecision": "allow",
        "modifiedArgs": {"command": "mv a a.trash"},
    }
    nested = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "x"}}
    assert ADAPTER.check_answer("PostToolUse", nested, 0) is not None
    assert ADAPTER.check_answer("PreToolUse", None, 1) == "exit code 1 refuses the call"


def test_the_not_installed_answer_never_refuses_a_call() -> None:
    """A committed config run where STYLE is not installed: before a call an error exit would
    make Copilot CLI refuse every call, so it exits 0 there (stderr, logged); elsewhere the
    person is told (exit 2, shown); under `--fail-closed` the gate refuses with a reason."""
    for event, code in (("PreToolUse", 0), ("SessionStart", 2), ("PostToolUseFailure", 1)):
        command = hook_command(NAME, event, False, "project")
        done = subprocess.run(
            ["sh", "-c", command],
            input=b"{}",
            capture_output=True,
            env={"PATH": "/usr/bin:/bin"},
            check=False,
        )
        assert (done.returncode, done.stdout) == (code, b""), event
        assert MISSING in done.stderr.decode()
    refusing = hook_command(NAME, "PreToolUse", True, "project")
    done = subprocess.run(
        ["sh", "-c", refusing], input=b"{}", capture_output=True, env={"PATH": "/bin"}, check=False
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["permissionDecision"] == "deny"


# -- reading ---------------------------------------------------------------------------------------


def _fixtures(harness: str) -> list[dict[str, object]]:
    folder = FIXTURES / ("gemini" if harness == "gemini-cli" else harness)
    return [load_fixture(f, Path("/p"), {}) for f in sorted(folder.glob("*.json"))]


def test_its_payloads_are_known_through_another_harness_config_and_no_other_is() -> None:
    for harness in SUPPORTED:
        for payload in _fixtures(harness):
            assert ADAPTER.looks_like(payload) == (harness == NAME), (harness, payload)
    for harness in SUPPORTED:  # what `style doctor` sends the other harnesses' hooks
        other = adapter_for(harness)
        for event in spec_for(harness).native_events():
            payload = other.synthetic_payload(event, "/p", "s")
            assert ADAPTER.looks_like(payload) == (harness == NAME), (harness, event)


def test_a_subagents_own_prompt_and_stop_are_not_evaluated() -> None:
    for name, event in (("UserPromptSubmit.subagent.json", "UserPromptSubmit"),):
        payload = json.loads((FIXTURES / NAME / name).read_text("utf-8"))
        assert ADAPTER.duplicate(payload, event)
    stop = json.loads((FIXTURES / NAME / "Stop.subagent.json").read_text("utf-8"))
    assert ADAPTER.duplicate(stop, "Stop")
    main = json.loads((FIXTURES / NAME / "Stop.json").read_text("utf-8"))
    assert not ADAPTER.duplicate(main, "Stop")


def test_the_model_and_the_last_reply_come_from_the_session_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path))
    session = "5d1e0a77-1b2c-4e3f-9a8b-7c6d5e4f3a21"
    log = tmp_path / "session-state" / session / "events.jsonl"
    log.parent.mkdir(parents=True)
    records = [
        {"type": "session.start", "data": {"sessionId": session, "selectedModel": "gpt-x"}},
        {"type": "assistant.message", "data": {"model": "gpt-x", "content": "Mine."}},
        {"type": "assistant.message", "data": {"content": "A sub's.", "parentToolCallId": "t1"}},
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    payload = {"hook_event_name": "Stop", "session_id": session, "timestamp": "t", "cwd": "/p"}
    ev = ADAPTER.normalize({**payload, "stop_hook_active": False}, "Stop")
    assert ev.model == "gpt-x"
    assert ev.first("response.text") == "Mine."


# -- its session logs (`style audit coverage`) -----------------------------------------------------


def test_session_logs_give_the_calls_by_their_hook_names(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    log = tmp_path / "home" / ".copilot" / "session-state" / "s1" / "events.jsonl"
    log.parent.mkdir(parents=True)
    records = [
        {
            "type": "session.start",
            "data": {"sessionId": "s1", "producer": "copilot-agent", "context": {"cwd": str(root)}},
            "timestamp": "2026-09-14T10:00:00.000Z",
        },
        {
            "type": "tool.execution_start",
            "data": {"toolCallId": "c1", "toolName": "bash", "arguments": {"command": "ls"}},
            "timestamp": "2026-09-14T10:00:01.000Z",
        },
        {"type": "tool.execution_complete", "data": {"toolCallId": "c1", "success": True}},
        {
            "type": "tool.execution_start",
            "data": {"toolCallId": "c2", "toolName": "view", "parentToolCallId": "t0"},
        },
        {
            "type": "tool.execution_start",
            "data": {"toolCallId": "c3", "toolName": "create"},
            "timestamp": "2026-09-14T10:00:03.000Z",
        },
    ]
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert FORMAT.files(tmp_path / "home", root, 0.0) == [log]
    assert FORMAT.files(tmp_path / "home", tmp_path / "elsewhere", 0.0) == []
    assert FORMAT.of_session(tmp_path / "home", "s1", None) == log
    assert FORMAT.owns_record(records[0])
    calls = FORMAT.tool_calls(log)
    assert [(c.tool, c.finished, c.call_id, c.session_id) for c in calls] == [
        ("Bash", True, None, "s1"),
        ("Write", False, None, "s1"),
    ]


# -- hook failures in plan and doctor --------------------------------------------------------------


def test_plan_and_doctor_say_what_a_dead_hook_does(project: HarnessProject) -> None:
    line = spec_for(NAME).hook_failure()
    assert "refuses the call when the hook process crashes or exits with an error" in line
    assert "lets the call run when it times out" in line
    plan = project.cli("plan", "xh", "--harness", NAME)
    assert plan.returncode == 0, plan.stderr
    assert plan.stdout.splitlines()[-1] == line
    assert project.cli("install", "xh", "--harness", NAME).returncode == 0
    doctor = project.cli("doctor", "--no-fire")
    assert f"ok: {NAME}: {line}" in doctor.stdout, doctor.stdout
    claude = spec_for("claude-code")
    assert "`style install --fail-closed`: it refuses" in claude.hook_failure()
    assert "refuses the call when the hook process crashes or times out" in (
        claude.hook_failure(fail_closed=True)
    )


def test_self_protection_guards_the_settings_that_switch_every_hook_off(
    project: HarnessProject,
) -> None:
    assert project.cli("install", "xh", "--harness", NAME).returncode == 0
    for path in (".github/copilot/settings.json", ".github/hooks/style.json"):
        payload = project.fixture(
            NAME,
            "PreToolUse.write-env.json",
            tool_input={"path": str(project.root / path), "file_text": '{"disableAllHooks": true}'},
        )
        result = project.hook_as(NAME, "PreToolUse", payload)
        assert json.loads(result.stdout)["permissionDecision"] == "deny", path
