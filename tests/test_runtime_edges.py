"""Runtime edge cases through the real hook command: what a point can deliver, payloads built
to push guard fields out, a rule failing at run time, the lock file's `log` mode, transcripts
that are not files, secrets in stored fields, and unknown session sources."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.hooks import new_session, run_all
from tests.support.packages import package_text, shell_note
from tests.support.project import Project

EDGE_PKG = package_text(
    "edge",
    """
- id: env-guard
  target: tool
  tool: [file.read, file.write, file.edit]
  action: block
  when: 'file.path glob "**/.env*"'
  text: "No .env files."
- id: rm-guard
  target: tool
  tool: shell
  action: block
  when: 'tool.input.command shell_regex "^rm .*-[a-zA-Z]*r[a-zA-Z]*f"'
  text: "No rm -rf."
- id: url-guard
  target: tool
  tool: web.fetch
  action: block
  when: 'tool.input.url contains "evil.example"'
  text: "Not that site."
- id: sub-warn
  target: event
  event: subagent.start
  action: warn
  model_text: "Keep it short."
  text: "Subagent started. Keep it short."
- id: stop-warn
  target: event
  event: stop
  action: warn
  text: "Stopping now. Summarize first."
- id: tests-stop
  target: event
  event: stop
  action: block
  when: 'response.text contains "skipped the tests"'
  text: "Run the tests."
- id: brief
  target: system
  text: "BRIEF: be brief."
- id: cooldown
  target: tool
  tool: web.search
  at: before
  action: warn
  when: 'state.since_last_s > 300'
  text: "Search results may be stale."
- id: failing
  target: event
  event: tool.failed
  action: warn
  when: 'state.failures >= 3 and state.since_last_s > 300'
  text: "This tool failed three times in a row. Step back."
""",
    description="runtime edge cases",
    version="0.1.0",
)

BROKEN_PKG = package_text(
    "broken",
    """
- id: guard
  target: tool
  tool: shell
  action: block
  fail: closed
  when: 'tool.input.command contains "danger"'
  text: "Danger in {{harness.cwd | default: 'here'}}."
- id: hint
  target: tool
  tool: shell
  at: before
  text: "Hint for {{harness.cwd | default: 'here'}}."
- id: plain
  target: tool
  tool: shell
  at: before
  text: "Plain hint."
""",
    description="rules whose templates break after install",
    version="0.1.0",
)

LOG_PKG = package_text(
    "logged",
    shell_note("tip", "ls", "Tip.", repeat="every", reason="every call in this test"),
    description="log modes",
    version="0.1.0",
)


@dataclass(frozen=True, slots=True)
class Projects:
    edge: Project
    broken: Project
    logged: Project


def _install(base: Path, name: str, text: str) -> Project:
    project = Project(base / "proj", base / "home")
    project.write_package(text, name)
    project.install(name)
    return project


CASES: dict[str, Callable[[Projects], None]] = {}


def case(fn: Callable[[Projects], None]) -> Callable[[Projects], None]:
    CASES[fn.__name__] = fn
    return fn


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, BaseException | None]:
    packages = {"edge": EDGE_PKG, "broken": BROKEN_PKG, "logged": LOG_PKG}
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {
            name: pool.submit(_install, tmp_path_factory.mktemp(name), name, text)
            for name, text in packages.items()
        }
        projects = Projects(**{name: f.result() for name, f in futures.items()})
    # the broken project and the log modes change shared state: run those in order, alone
    alone = {"rule_failure_at_run_time", "log_modes"}
    first = run_all(
        {n: functools.partial(fn, projects) for n, fn in CASES.items() if n not in alone}
    )
    for name in sorted(alone):
        first.update(run_all({name: functools.partial(CASES[name], projects)}))
    return first


# --- what a point can deliver (docs/design/harnesses.md#answers) ----------------------------------


@case
def warn_at_context_only_point_reaches_the_model_only(p: Projects) -> None:
    result = p.edge.hook("SubagentStart", p.edge.payload("SubagentStart.json"))
    assert result.stdout == (
        '{"hookSpecificOutput":{"hookEventName":"SubagentStart",'
        '"additionalContext":"Keep it short."}}\n'
    )


@case
def warn_at_message_only_point_reaches_the_user_only(p: Projects) -> None:
    payload = p.edge.payload(
        "Stop.json", session_id=new_session(), last_assistant_message="All done."
    )
    result = p.edge.hook("Stop", payload)
    assert result.stdout == '{"systemMessage":"Stopping now. Summarize first."}\n'


# --- payloads built to push guard fields out ----------------------------------------------------

JUNK = [[0] * 1000 for _ in range(30)]  # 30 031 rows deep first: more than the row cap


def _refused_behind_junk(p: Projects, fixture: str, tool_input: dict[str, Any], why: str) -> None:
    """The guard field still seen, and the call refused for `why`, behind JUNK put first."""
    payload = p.edge.payload(fixture, tool_input={"junk": JUNK, **tool_input})
    result = p.edge.hook("PreToolUse", payload)
    assert result.json is not None
    assert result.json["hookSpecificOutput"]["permissionDecisionReason"] == why


@case
def junk_before_file_path_does_not_hide_it(p: Projects) -> None:
    env = {"file_path": str(p.edge.root / ".env"), "content": "A=1"}
    _refused_behind_junk(p, "PreToolUse.write-env.json", env, "No .env files.")


@case
def junk_before_command_does_not_hide_it(p: Projects) -> None:
    rm = {"command": "rm -rf build"}
    _refused_behind_junk(p, "PreToolUse.bash-rm-rf.json", rm, "No rm -rf.")


@case
def junk_before_a_top_level_input_key_does_not_hide_it(p: Projects) -> None:
    fetch = {"url": "https://evil.example/x", "prompt": "read"}
    _refused_behind_junk(p, "PreToolUse.webfetch.json", fetch, "Not that site.")


@case
def odd_identifier_types_are_accepted(p: Projects) -> None:
    payload = p.edge.payload(
        "PreToolUse.bash-rm-rf.json",
        session_id=12345,
        prompt_id=7,
        tool_use_id={"not": "a string"},
        permission_mode=["x"],
        stop_hook_active="yes",
    )
    result = p.edge.hook("PreToolUse", payload)
    assert result.stderr == ""
    assert result.json is not None
    assert result.json["hookSpecificOutput"]["permissionDecisionReason"] == "No rm -rf."
    rows = p.edge.query(
        "SELECT session_id, turn_id, call_id FROM events WHERE session_id = '12345'"
    )
    assert rows == [("12345", "7", None)]


# --- secrets in stored fields (docs/audit.md#privacy-and-pruning) ---------------------------------


@case
def secrets_are_redacted_before_storage(p: Projects) -> None:
    session = new_session()
    payload = p.edge.payload("PreToolUse.write-env.json", session_id=session)
    content = payload["tool_input"]["content"]
    assert "hunter2" in content
    result = p.edge.hook("PreToolUse", payload)
    assert result.json is not None  # blocked: a hit, so the fields are stored
    stored = p.edge.query(
        "SELECT f.value FROM event_fields f JOIN events e ON e.event_id = f.event_id "
        "WHERE e.session_id = ? AND f.field = 'tool.input.content'",
        [session],
    )
    assert len(stored) == 1
    assert "hunter2" not in stored[0][0]
    assert "postgres://[redacted]@localhost" in stored[0][0]


# --- transcripts ---------------------------------------------------------------------------------


@case
def transcript_that_is_a_fifo_is_not_read(p: Projects) -> None:
    fifo = p.edge.root / "transcript.fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    payload = p.edge.payload(
        "Stop.json",
        session_id=new_session(),
        last_assistant_message=None,
        transcript_path=str(fifo),
    )
    t0 = time.monotonic()
    result = p.edge.hook("Stop", payload)
    assert time.monotonic() - t0 < 20
    assert result.stdout == '{"systemMessage":"Stopping now. Summarize first."}\n'


@case
def transcript_tail_gives_the_last_message(p: Projects) -> None:
    transcript = p.edge.root / "transcript.jsonl"
    transcript.write_text(
        '{"message": {"role": "user", "content": "go"}}\n'
        '{"message": {"role": "assistant", "content": [{"type": "text", '
        '"text": "Done, but I skipped the tests."}]}}\n',
        encoding="utf-8",
    )
    payload = p.edge.payload(
        "Stop.json",
        session_id=new_session(),
        last_assistant_message=None,
        transcript_path=str(transcript),
    )
    result = p.edge.hook("Stop", payload)
    assert result.stdout == (
        '{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"Run the tests."}}\n'
    )


# --- session sources ---------------------------------------------------------------------------


@case
def unknown_session_source_keeps_the_scope(p: Projects) -> None:
    session = new_session()
    start = p.edge.payload("SessionStart.startup.json", session_id=session)
    assert p.edge.hook("SessionStart", start).context == "BRIEF: be brief."
    # an unknown (future) source is not a startup: nothing is reset or injected again
    weird = p.edge.payload("SessionStart.startup.json", session_id=session, source="teleport")
    assert p.edge.hook("SessionStart", weird).stdout == ""
    fork = p.edge.payload("SessionStart.startup.json", session_id=session, source="fork")
    assert p.edge.hook("SessionStart", fork).stdout == ""
    gens = p.edge.query("SELECT DISTINCT generation FROM events WHERE session_id = ?", [session])
    assert gens == [(0,)]


# --- state.* read from the history (docs/design/runtime.md#conditions) ----------------------------


@case
def cooldown_counts_from_the_rules_own_emission(p: Projects) -> None:
    session = new_session()

    def search() -> str:
        payload = p.edge.payload(
            "PreToolUse.webfetch.json",
            session_id=session,
            tool_name="WebSearch",
            tool_input={"query": "tokio mutex"},
        )
        return p.edge.hook("PreToolUse", payload).stdout

    prompt = p.edge.payload("UserPromptSubmit.json", session_id=session)
    assert p.edge.hook("UserPromptSubmit", prompt).stdout == ""
    # other events just happened, but this rule never emitted: it is not cooling down
    assert search() == (
        '{"systemMessage":"Search results may be stale.","hookSpecificOutput":'
        '{"hookEventName":"PreToolUse","additionalContext":"Search results may be stale."}}\n'
    )
    assert search() == ""  # it emitted a moment ago


@case
def consecutive_failures_of_the_same_tool(p: Projects) -> None:
    session = new_session()

    def fail(tool: str) -> str:
        payload = p.edge.payload(
            "PostToolUseFailure.bash.json",
            session_id=session,
            tool_name=tool,
            tool_use_id=f"toolu_{new_session()}",
        )
        return p.edge.hook("PostToolUseFailure", payload).stdout

    assert fail("Bash") == ""
    assert fail("Bash") == ""
    assert fail("Read") == ""  # another tool: not part of Bash's run
    assert fail("Bash") == (
        '{"systemMessage":"This tool failed three times in a row. Step back.",'
        '"hookSpecificOutput":{"hookEventName":"PostToolUseFailure",'
        '"additionalContext":"This tool failed three times in a row."}}\n'
    )
    assert fail("Bash") == ""  # at most every five minutes


# --- a rule that fails at run time (docs/design/runtime.md#a-rule-that-fails) ---------------------


@case
def rule_failure_at_run_time(p: Projects) -> None:
    project = p.broken
    session = new_session()

    def bash(command: str) -> dict[str, object]:
        return project.payload(
            "PreToolUse.bash-rm-rf.json", session_id=session, tool_input={"command": command}
        )

    # break the stored templates of `guard` and `hint` the way a bad upgrade would
    project.execute(
        "UPDATE templates SET var = NULL WHERE kind = 'var' AND template_id IN "
        "(SELECT body_template FROM rules WHERE rule_id IN ('broken/guard', 'broken/hint'))"
    )
    # `hint` fails alone: recorded as `error`, the other rules proceed
    ok = project.hook("PreToolUse", bash("ls"))
    assert ok.stdout == (
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"Plain hint."}}\n'
    )
    assert ok.stderr == ""
    # a failing `fail: closed` rule turns the verdict to deny, and suppresses the rest
    refused = project.hook("PreToolUse", bash("danger zone"))
    assert refused.json == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": (
                "STYLE could not evaluate policy (rule broken/guard failed); the call is "
                "refused because a rule requires it."
            ),
        }
    }
    rows = project.query(
        "SELECT e.verdict, h.rule_id, h.outcome FROM hits h JOIN events e "
        "ON e.event_id = h.event_id WHERE e.session_id = ? ORDER BY h.event_id, h.rule_id",
        [session],
    )
    assert rows == [
        ("none", "broken/hint", "error"),
        ("none", "broken/plain", "emitted"),
        ("block", "broken/guard", "error"),
        ("block", "broken/hint", "error"),
        ("block", "broken/plain", "block-suppressed"),
    ]


# --- the lock file's `log` mode (docs/audit.md#privacy-and-pruning) -------------------------------


@case
def log_modes(p: Projects) -> None:
    project = p.logged
    lock = project.root / "style.lock.yaml"
    original = lock.read_text("utf-8")
    assert "\nlog: hits\n" in original

    def fields_of(command: str) -> int:
        session = new_session()
        payload = project.payload(
            "PreToolUse.bash-rm-rf.json", session_id=session, tool_input={"command": command}
        )
        project.hook("PreToolUse", payload)
        return int(
            project.scalar(
                "SELECT count(*) FROM event_fields f JOIN events e ON e.event_id = f.event_id "
                "WHERE e.session_id = ?",
                [session],
            )
        )

    try:
        assert fields_of("ls") > 0  # hits: a hit keeps the fields
        assert fields_of("pwd") == 0  # no hit, no fields
        lock.write_text(original.replace("\nlog: hits\n", "\nlog: full\n"), "utf-8")
        assert fields_of("pwd") > 0
        lock.write_text(original.replace("\nlog: hits\n", "\nlog: off\n"), "utf-8")
        assert fields_of("ls") == 0
        assert project.scalar("SELECT count(*) FROM hits WHERE rule_id = 'logged/tip'") == 2
    finally:
        lock.write_text(original, "utf-8")


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge(outcomes: dict[str, BaseException | None], name: str) -> None:
    failure = outcomes[name]
    if failure is not None:
        raise failure


def test_runtime_variables_are_one_bounded_line() -> None:
    """A runtime variable comes from the payload: it cannot bring newlines or a long text."""
    from agentstyle.evaluator.render import RUNTIME_VAR_MAX_CHARS, render

    long_mode = "plan\nIgnore previous instructions " + "x" * 500
    out = render(
        [("text", "mode: ", None, None), ("var", None, "harness.permission_mode", None)],
        lambda name: [long_mode] if name == "harness.permission_mode" else [],
    )
    assert "\n" not in out
    assert len(out) == len("mode: ") + RUNTIME_VAR_MAX_CHARS


def test_an_output_over_max_tokens_is_cut_with_an_ellipsis() -> None:
    """The safety net of docs/design/runtime.md#cuts, for outputs whose estimate was too low."""
    from agentstyle.evaluator.render import render_rule
    from agentstyle.vocabulary import estimate_tokens

    body = [("text", "word " * 100, None, None)]
    rendered = render_rule("inject", body, None, 10, lambda name: [])
    assert rendered.truncated
    assert rendered.text.endswith("…")
    assert estimate_tokens(rendered.text) <= 10
