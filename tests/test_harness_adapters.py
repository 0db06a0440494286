"""The adapters as code: reading every fixture, the answer rules of each contract, and every
UNCONFIRMED fact in its one named place (so a confirmation changes one line and one test)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from agentstyle.evaluator.decision import Decision
from agentstyle.harnesses import (
    HANDLER_TIMEOUT_S,
    adapter_for,
    claude_code,
    codex,
    cursor,
    gemini_cli,
    timeout_for,
    written,
)
from agentstyle.harnesses.answer import with_approve_hint
from agentstyle.harnesses.facts import Can, spec_for
from agentstyle.harnesses.facts import codex as codex_facts
from agentstyle.harnesses.payload import CALL_KEY_FIELD, call_key
from agentstyle.limits import BUDGET_S, DEADLINE_ENV, DEADLINE_S
from agentstyle.runtime.hookcall import deadline_seconds
from tests.support.harness import FIXTURES, FOLDER, HARNESSES

ROOT = "/home/dev/acme-api"


def load(harness: str, name: str, **overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / FOLDER[harness] / name).read_text("utf-8"))
    data.update(overrides)
    return data


def fixtures(harness: str) -> list[str]:
    return sorted(p.name for p in (FIXTURES / FOLDER[harness]).glob("*.json"))


@pytest.mark.parametrize("harness", HARNESSES)
def test_every_harness_has_sample_payloads(harness: str) -> None:
    """A harness's sample payloads (tests/fixtures/) are what every test below reads it by."""
    adapter, points = adapter_for(harness), set()
    for name in fixtures(harness):
        payload = load(harness, name)
        points.add(adapter.normalize(payload, str(payload["hook_event_name"])).point)
    assert {"session.start", "prompt.submitted", "tool.pre", "tool.post", "stop"} <= points


@pytest.mark.parametrize(("harness", "name"), [(h, n) for h in HARNESSES for n in fixtures(h)])
def test_every_fixture_reads_into_a_known_point(harness: str, name: str) -> None:
    payload = load(harness, name)
    event = str(payload["hook_event_name"])
    ev = adapter_for(harness).normalize(payload, event)
    assert ev.point is not None, (harness, name)
    assert ev.harness == harness and ev.session_id != "unknown"
    assert ev.first("harness.name") == harness
    if ev.point in ("tool.pre", "tool.post", "tool.failed"):
        assert ev.tool is not None and ev.first("tool.name") == ev.tool
        assert ev.first(CALL_KEY_FIELD) is not None  # what `style allow` keys on


def test_codex_reads_apply_patch_as_a_file_edit() -> None:
    ev = codex.ADAPTER.normalize(load("codex", "PreToolUse.apply_patch-rs.json"), "PreToolUse")
    assert (ev.tool, ev.native_tool) == ("file.edit", "apply_patch")
    assert ev.values("file.path") == ["src/auth/session.rs"]
    assert ev.values("tool.added") == [
        "    let token = header.to_str().map_err(AuthError::BadHeader)?;"
    ]
    patch = "*** Begin Patch\n*** Add File: src/new.rs\n+fn main() {}\n*** End Patch\n"
    added = codex.ADAPTER.normalize(
        load("codex", "PreToolUse.apply_patch-rs.json", tool_input={"command": patch}),
        "PreToolUse",
    )
    assert added.tool == "file.write" and added.values("file.path") == ["src/new.rs"]
    assert ev.turn_id == "019a3f60-11aa-7c3d-8e4f-5a6b7c8d9e0f"  # native turn ids


def test_codex_shell_calls_are_parsed_like_any_shell() -> None:
    ev = codex.ADAPTER.normalize(load("codex", "PreToolUse.bash-git-push-force.json"), "PreToolUse")
    assert ev.tool == "shell"
    assert "git push --force-with-lease origin main" in ev.values("shell.commands")


def test_cursor_reads_each_gate() -> None:
    shell = cursor.ADAPTER.normalize(
        load("cursor", "beforeShellExecution.rm-rf.json"), "beforeShellExecution"
    )
    assert (shell.point, shell.tool, shell.native_tool) == ("tool.pre", "shell", "Shell")
    assert shell.session_id == "3b8e1f4a-6c2d-4e7f-9a0b-5d1c8e2f7a36"  # conversation_id
    assert shell.turn_id == "9c4d2e7f-1a3b-4c5d-8e6f-0a7b9c1d3e5f"  # generation_id
    assert shell.first("harness.version") == "2.4.21"
    read = cursor.ADAPTER.normalize(load("cursor", "beforeReadFile.env.json"), "beforeReadFile")
    assert (read.tool, read.values("file.path")) == ("file.read", [".env.production"])
    assert "hunter2" not in json.dumps(read.fields)  # the file's content is never copied
    mcp = cursor.ADAPTER.normalize(
        load("cursor", "beforeMCPExecution.github.json"), "beforeMCPExecution"
    )
    assert (mcp.tool, mcp.mcp_server, mcp.first("mcp.tool")) == (
        "mcp",
        "github",
        "create_pull_request",
    )
    assert mcp.first("tool.input.owner") == "acme"  # the JSON string was parsed
    edit = cursor.ADAPTER.normalize(load("cursor", "afterFileEdit.rs.json"), "afterFileEdit")
    assert (edit.point, edit.tool) == ("tool.post", "file.edit")
    assert edit.values("tool.added") == [
        "let token = header.to_str().map_err(AuthError::BadHeader)?;"
    ]
    failed = cursor.ADAPTER.normalize(
        load("cursor", "postToolUseFailure.shell.json"), "postToolUseFailure"
    )
    assert failed.point == "tool.failed" and failed.failed
    looping = cursor.ADAPTER.normalize(load("cursor", "stop.looping.json"), "stop")
    assert looping.stop_active  # loop_count > 0
    assert not cursor.ADAPTER.normalize(load("cursor", "stop.json"), "stop").stop_active


def test_gemini_reads_a_failed_tool_as_tool_failed() -> None:
    payload = load("gemini-cli", "AfterTool.run_shell_command.json")
    assert gemini_cli.ADAPTER.normalize(payload, "AfterTool").point == "tool.post"
    payload["tool_response"]["error"] = "exit status 101"
    failed = gemini_cli.ADAPTER.normalize(payload, "AfterTool")
    assert (failed.point, failed.failed, failed.first("tool.output")) == (
        "tool.failed",
        True,
        "exit status 101",
    )
    stop = gemini_cli.ADAPTER.normalize(load("gemini-cli", "AfterAgent.json"), "AfterAgent")
    assert stop.first("response.text") == "I replaced the unwrap() calls. I did not run the tests."


def test_the_call_key_is_the_tool_and_its_whole_input() -> None:
    a = call_key("Bash", {"command": "rm -rf x"})
    assert a == call_key("Bash", {"command": "rm -rf x"})
    assert (
        a != call_key("Bash", {"command": "rm -rf y"}) != call_key("Shell", {"command": "rm -rf x"})
    )


# -- answers ----------------------------------------------------------------------------------

DECISIONS = [
    Decision(),
    Decision(verdict="block", reasons=["no"], rules=["p/r"]),
    Decision(verdict="block", reasons=[], rules=["p/r"]),
    Decision(verdict="ask", reasons=["sure?"], rules=["p/r"]),
    Decision(verdict="allow", reasons=["fine"], rules=["p/r"]),
    Decision(contexts=["ctx"], rules=["p/i"]),
    Decision(messages=["msg"], contexts=["model"], rules=["p/w"]),
    Decision(verdict="ask", reasons=["sure?"], contexts=["ctx"], messages=["m"], rules=["p/r"]),
]


@pytest.mark.parametrize("event", [*sorted(codex.ALLOWED_KEYS), "PermissionRequest"])
def test_codex_answers_only_what_its_strict_schema_accepts(event: str) -> None:
    for decision in DECISIONS:
        wire = codex.ADAPTER.answer(decision, event)
        assert wire.exit_code == 0
        assert codex.ADAPTER.wire_problem(event, wire.stdout, 0) is None, (
            event,
            decision,
            wire.stdout,
        )
        doc = json.loads(wire.stdout) if wire.stdout else {}
        for banned in ("continue", "stopReason", "suppressOutput"):
            assert banned not in doc
        specific = doc.get("hookSpecificOutput", {})
        assert specific.get("permissionDecision") in (None, "deny")  # never a bare allow/ask
        if specific.get("permissionDecision") == "deny":
            assert specific["permissionDecisionReason"]
        if "decision" in doc and doc["decision"] == "block":
            assert doc["reason"]


def test_codex_ask_becomes_a_refusal_that_names_style_allow() -> None:
    wire = codex.ADAPTER.answer(DECISIONS[3], "PreToolUse")
    specific = json.loads(wire.stdout)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"] == (
        "sure? Ask the user; they can allow it once with 'style allow --last'."
    )


def test_the_approval_hint_reads_on() -> None:
    assert with_approve_hint("STYLE x needs approval:") == (
        "STYLE x needs approval: ask the user; they can allow it once with 'style allow --last'."
    )
    assert with_approve_hint("Run `style allow --last` to go on.") == (
        "Run `style allow --last` to go on."
    )


@pytest.mark.parametrize("event", sorted(gemini_cli.SPEC.native_events()))
def test_gemini_always_prints_json(event: str) -> None:
    for decision in DECISIONS:
        wire = gemini_cli.ADAPTER.answer(decision, event)
        assert wire.stdout.startswith("{"), (event, decision)
        assert gemini_cli.ADAPTER.wire_problem(event, wire.stdout, 0) is None
    assert gemini_cli.ADAPTER.answer(Decision(), event).stdout == "{}"


def test_gemini_before_tool_has_no_context() -> None:
    wire = gemini_cli.ADAPTER.answer(Decision(contexts=["ctx"], messages=["msg"]), "BeforeTool")
    assert wire.stdout == '{"systemMessage":"msg"}'


PERMISSION = sorted(cursor.PERMISSION_EVENTS)


@pytest.mark.parametrize("event", [*sorted(cursor.SPEC.native_events()), "afterFileEdit"])
def test_cursor_always_answers_in_its_own_fields(event: str) -> None:
    for decision in DECISIONS:
        wire = cursor.ADAPTER.answer(decision, event)
        doc = json.loads(wire.stdout)
        assert cursor.ADAPTER.wire_problem(event, wire.stdout, 0) is None
        if event in cursor.PERMISSION_EVENTS:
            assert doc["permission"] in ("allow", "deny", "ask")
            if doc["permission"] == "ask":
                assert event in cursor.ASK_EVENTS
        elif event == "beforeSubmitPrompt":
            assert set(doc) <= {"continue", "user_message"}
        else:
            assert set(doc) <= {"additional_context", "followup_message"}


def test_cursor_ask_outside_shell_and_mcp_is_a_refusal_with_the_hint() -> None:
    doc = json.loads(cursor.ADAPTER.answer(DECISIONS[3], "preToolUse").stdout)
    assert doc["permission"] == "deny"
    assert doc["agent_message"].endswith("they can allow it once with 'style allow --last'.")
    assert "style allow --last" in doc["user_message"]


def test_every_adapter_says_nothing_where_nothing_is_to_say() -> None:
    assert adapter_for("claude-code").answer(Decision(), "PreToolUse").stdout == ""
    assert codex.ADAPTER.answer(Decision(), "PreToolUse").stdout == ""
    assert (
        cursor.ADAPTER.answer(Decision(), "beforeShellExecution").stdout == '{"permission":"allow"}'
    )
    assert cursor.ADAPTER.answer(Decision(), "beforeSubmitPrompt").stdout == '{"continue":true}'
    assert cursor.ADAPTER.answer(Decision(), "afterFileEdit").stdout == "{}"
    assert gemini_cli.ADAPTER.answer(Decision(), "BeforeTool").stdout == "{}"


# -- UNCONFIRMED facts, one place each --------------------------------------------------------


def test_unconfirmed_codex_pre_tool_use_context() -> None:
    caps = codex_facts.SPEC.points["tool.pre"].capabilities
    assert (Can.CONTEXT in caps) is codex_facts.PRE_TOOL_USE_CONTEXT
    assert Can.DENY in caps and Can.MESSAGE in caps and Can.ASK not in caps


def test_unconfirmed_cursor_permission_form_cut_over() -> None:
    older = ".".join(str(max(0, n - 1)) for n in cursor.PERMISSION_FORM_SINCE[:1]) + ".9.0"
    new = cursor.ADAPTER.normalize(load("cursor", "preToolUse.shell.json"), "preToolUse")
    old = cursor.ADAPTER.normalize(
        load("cursor", "preToolUse.shell.json", cursor_version=older), "preToolUse"
    )
    block = Decision(verdict="block", reasons=["no"], rules=["p/r"])
    assert (
        json.loads(cursor.ADAPTER.answer(block, "preToolUse", new).stdout)["permission"] == "deny"
    )
    assert json.loads(cursor.ADAPTER.answer(block, "preToolUse", old).stdout) == {
        "decision": "deny",
        "reason": "no",
    }


def test_unconfirmed_cursor_session_start_source() -> None:
    ev = cursor.ADAPTER.normalize(load("cursor", "sessionStart.json"), "sessionStart")
    assert ev.session_source == cursor.SESSION_START_SOURCE == "startup"


def test_unconfirmed_cursor_events_from_a_claude_config() -> None:
    assert cursor.ADAPTER.native_event_of(
        {"hook_event_name": "beforeShellExecution"}, "PreToolUse"
    ) == ("beforeShellExecution")
    assert cursor.ADAPTER.native_event_of({}, "UserPromptSubmit") == "beforeSubmitPrompt"
    assert set(cursor.FROM_CLAUDE_EVENTS.values()) <= set(cursor.SPEC.native_events())


def test_unconfirmed_cursor_mcp_server_name() -> None:
    assert cursor.mcp_names(load("cursor", "beforeMCPExecution.github.json")) == (
        "github",
        "create_pull_request",
    )
    assert cursor.mcp_names({"tool_name": "mcp__linear__create_issue"}) == (
        "linear",
        "create_issue",
    )
    assert cursor.mcp_names({"tool_name": "x", "url": "https://mcp.acme.dev/sentry"}) == (
        "sentry",
        "x",
    )


def test_unconfirmed_cursor_tool_types() -> None:
    names = {n: t for t, ns in cursor.SPEC.tool_names.items() for n in ns}
    assert names["StrReplace"] == "file.edit" and names["Shell"] == "shell"
    assert cursor.ASK_AGENT_MESSAGE == "Waiting for the user to approve this call."


def test_every_harness_runs_with_the_timeout_install_writes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The timeout in force is the one written (Cursor's own default is undocumented), in
    seconds, a little above the 2 s budget; the deadline is the budget's."""
    monkeypatch.delenv(DEADLINE_ENV, raising=False)
    for harness in HARNESSES:
        assert timeout_for(harness, "preToolUse") == HANDLER_TIMEOUT_S
        assert BUDGET_S < timeout_for(harness, "stop") <= 2 * BUDGET_S
        assert deadline_seconds(timeout_for(harness, "stop")) == DEADLINE_S
    assert written("gemini-cli", "BeforeTool") == HANDLER_TIMEOUT_S * 1000  # milliseconds
    assert BUDGET_S < timeout_for("codex", "SessionEnd") <= 3  # Codex's cap


def test_unconfirmed_gemini_enable_flag_and_paths() -> None:
    assert gemini_cli.ENABLE_FLAG == ("tools", "enableHooks")
    assert gemini_cli.ADAPTER.enabled('{"tools": {"enableHooks": true}}')
    assert not gemini_cli.ADAPTER.enabled('{"hooks": {"enabled": true}}')
    read = gemini_cli.ADAPTER.normalize(
        {
            "session_id": "s",
            "cwd": ROOT,
            "hook_event_name": "BeforeTool",
            "tool_name": "read_file",
            "tool_input": {"absolute_path": f"{ROOT}/.env"},
        },
        "BeforeTool",
    )
    assert read.values("file.path") == [".env"]


def test_timeouts_in_force() -> None:
    """Written on every handler, in each harness's unit: 4 s (Codex's SessionEnd 3 s, its
    cap), Gemini CLI 4 000 ms; in force is what is written."""
    assert timeout_for("codex", "PreToolUse") == 4.0
    assert timeout_for("codex", "SessionEnd") == 3.0
    assert timeout_for("gemini-cli", "BeforeTool") == 4.0
    assert timeout_for("claude-code", "PreToolUse") == 4.0
    assert timeout_for("claude-code", "SessionEnd") == 4.0
    assert codex.ADAPTER.handler("cmd", "PreToolUse", True)["timeout"] == 4
    assert codex.ADAPTER.handler("cmd", "SessionEnd", False)["timeout"] == 3
    assert gemini_cli.ADAPTER.handler("cmd", "BeforeTool", False)["timeout"] == 4000
    assert claude_code.ADAPTER.handler("cmd", "PreToolUse", True) == {
        "type": "command",
        "command": "cmd",
        "timeout": 4,
        "onFailure": "block",
    }
    assert cursor.ADAPTER.handler("cmd", "preToolUse", True) == {
        "command": "cmd",
        "timeout": 4,
        "failClosed": True,
    }


def test_a_hooks_deadline_reads_the_timeout_its_spec_says() -> None:
    """The hook computes its deadline from `timeout_for` alone (runtime/hookcall.py: it reads
    no capability table before the engine answers): every native event a spec knows, a
    route's and an extra event's too, is in force with that same timeout."""
    for harness in HARNESSES:
        spec = spec_for(harness)
        for native in (*spec.native_events(), *spec.extra_native_events):
            ps = spec.spec_of(native)
            assert ps is not None and ps.timeout_s == timeout_for(harness, native), native


def test_every_spec_lists_its_points_in_one_place() -> None:
    for harness in HARNESSES:
        spec = spec_for(harness)
        for native in spec.native_events():
            assert spec.point_of(native) is not None
            assert spec.spec_of(native) is not None
        assert set(spec.bookkeeping) <= set(spec.native_events())
        assert set(spec.gate_events) <= set(spec.native_events()) | set(spec.extra_native_events)
        for point, ps in spec.points.items():
            if Can.DENY not in ps.capabilities:
                assert ps.native_event not in spec.gate_events, (harness, point)


def test_no_two_points_share_a_native_event_except_gemini_after_tool() -> None:
    for harness in HARNESSES:
        spec = spec_for(harness)
        natives = [ps.native_event for ps in spec.points.values()]
        dupes = {n for n in natives if natives.count(n) > 1}
        # a failed call read from the post-tool event (its error, its exit code)
        shared = {"gemini-cli": {"AfterTool"}, "opencode": {"tool.execute.after"}}
        assert dupes == shared.get(harness, set()), harness
    assert list(itertools.chain(*cursor.SPEC.routes.values()))


def test_every_harness_has_fixtures() -> None:
    for harness in HARNESSES:
        assert list((FIXTURES / FOLDER[harness]).glob("*.json")), harness
