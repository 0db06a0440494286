"""State over what the session did (docs/conditions.md#what-the-session-did-commands-and-edits):
`state.commands_since_edit`, `state.files_edited`, `state.commands_failed`, and the handlers install
adds for them and for `state.failures`.

Each scenario is real hook subprocesses with Claude Code's JSON on stdin against a project
that `style install` set up (the bundled `tests-before-stop`, or a package written here), and
the project's own DuckDB file read afterwards (`style plan`, `validate`, `audit` and `replay`
run in the test process: what they say is under test, not their process). The replay test
drives the same events through `style replay`'s evaluator in batches and one at a time and gets
the hook's verdicts.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentstyle.audit import replay as rp
from agentstyle.audit.transcripts import Recorded
from agentstyle.harnesses import SUPPORTED
from agentstyle.harnesses.facts import Can, spec_for
from agentstyle.install.selfprotect import plan_packages
from tests.support.cli import style_in_process
from tests.support.harness import DATA, HarnessProject
from tests.support.hooks import new_session
from tests.support.packages import package_text
from tests.support.project import Project

PACKAGE = "tests-before-stop"

FAILURES_PKG = package_text(
    "retry",
    """
- id: third-try
  target: tool
  tool: shell
  action: block
  reason: two failures in a row of the same tool
  when: 'state.failures >= 2'
  text: "STYLE third-try: this command failed twice; read the error first."
""",
    description="stop a tool that keeps failing",
    version="0.1.0",
)


class Session:
    """One Claude Code session against an installed project, a hook process per event."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.sid = new_session()
        self.n = 0
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def send(self, native: str, **fields: Any) -> Any:
        payload = {
            "session_id": self.sid,
            "cwd": self.project.root.as_posix(),
            "hook_event_name": native,
            **fields,
        }
        self.sent.append((native, payload))
        return self.project.hook(native, payload)

    def _call(self, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
        self.n += 1
        return {"tool_name": tool, "tool_use_id": f"toolu_{self.n:02d}", "tool_input": tool_input}

    def edit(self, path: str) -> None:
        call = self._call("Edit", {"file_path": path, "old_string": "a", "new_string": "b"})
        assert self.send("PostToolUse", **call, tool_response={"filePath": path}).stdout == ""

    def write(self, path: str) -> None:
        call = self._call("Write", {"file_path": path, "content": "fn main() {}\n"})
        assert self.send("PostToolUse", **call, tool_response={"filePath": path}).stdout == ""

    def bash(self, command: str, *, fails: bool = False) -> None:
        call = self._call("Bash", {"command": command})
        if fails:
            result = self.send("PostToolUseFailure", **call, error="Exit code 101\nFAILED")
        else:
            out = {"stdout": "ok", "stderr": "", "interrupted": False}
            result = self.send("PostToolUse", **call, tool_response=out)
        assert result.stdout == ""

    def stop(self, *, active: bool = False) -> str | None:
        """The reason the stop is refused with, or None when the agent may stop."""
        result = self.send("Stop", stop_hook_active=active, last_assistant_message="Done.")
        if not result.stdout:
            return None
        specific = json.loads(result.stdout)["hookSpecificOutput"]
        assert specific["hookEventName"] == "Stop"
        reason = specific["additionalContext"]
        assert isinstance(reason, str)
        return reason

    def outcomes(self, rule: str) -> list[str]:
        rows = self.project.query(
            "SELECT h.outcome FROM hits h JOIN events e USING (event_id) "
            "WHERE e.session_id = ? AND h.rule_id = ? ORDER BY e.event_id",
            [self.sid, f"{PACKAGE}/{rule}"],
        )
        return [str(r[0]) for r in rows]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """tests-before-stop installed; its hooks hand their events to a resident engine, as a
    user's do (the tests on `project` below keep the direct path)."""
    base = tmp_path_factory.mktemp("history")
    project = Project(base / "acme", base / "home")
    project.install(PACKAGE, "--harness", "claude-code", "--set", "test_command=cargo test")
    with project.engine():
        yield project


def test_install_adds_the_handlers_the_history_needs(installed: Project) -> None:
    settings = json.loads((installed.root / ".claude" / "settings.json").read_text("utf-8"))
    hooks = settings["hooks"]
    for native in ("PostToolUse", "PostToolUseFailure"):
        [group] = hooks[native]
        assert set(group["matcher"].split("|")) >= {"Bash", "Edit", "Write", "MultiEdit"}
    assert "Stop" in hooks
    done = style_in_process(
        installed.root, installed.home, "plan", PACKAGE, "--harness", "claude-code"
    )
    assert done.returncode == 0, done.stderr
    plan = done.stdout
    rows = [line for line in plan.splitlines() if " history " in line]
    assert len(rows) == 4  # two rules, PostToolUse and PostToolUseFailure each
    assert all("records the calls that `state.commands_failed`" in r for r in rows)


def test_an_edit_then_a_passing_test_run_may_stop(installed: Project) -> None:
    s = Session(installed)
    s.edit(f"{installed.root}/src/auth/session.rs")
    s.bash("cd crates/auth && cargo test -p acme-auth")
    assert s.stop() is None
    assert s.outcomes("edited-without-tests") == []


def test_an_edit_then_a_stop_is_refused_naming_the_file_and_the_command(
    installed: Project,
) -> None:
    s = Session(installed)
    s.edit(f"{installed.root}/src/auth/session.rs")
    reason = s.stop()
    assert reason is not None
    assert reason.startswith("STYLE edited-without-tests: no test ran since these files changed")
    assert '"src/auth/session.rs"' in reason  # relative to the project, fenced
    assert "Run `cargo test` before finishing." in reason  # the setting chosen at install


def test_an_edit_after_the_test_run_needs_a_new_one(installed: Project) -> None:
    s = Session(installed)
    s.edit("src/lib.rs")
    s.bash("cargo test")
    s.write("src/token.rs")
    reason = s.stop()
    assert reason is not None and "edited-without-tests" in reason
    assert "src/lib.rs, src/token.rs" in reason
    s.bash("cargo test")
    assert s.stop() is None


def test_a_command_that_only_mentions_the_tests_is_no_run(installed: Project) -> None:
    s = Session(installed)
    s.edit("src/lib.rs")
    s.bash("echo 'cargo test: 14 passed'")
    s.bash("grep -r 'cargo test' README.md")
    assert s.stop() is not None


def test_a_failed_test_run_does_not_count(installed: Project) -> None:
    s = Session(installed)
    s.edit("src/lib.rs")
    s.bash("cargo test", fails=True)
    reason = s.stop()
    assert reason is not None and reason.startswith("STYLE tests-failing: a test run failed")
    assert s.outcomes("edited-without-tests") == []
    # the history holds the failed run, and the refused stop's fields say what state was read
    facts = installed.query(
        "SELECT kind, value, failed FROM session_facts WHERE session_id = ? ORDER BY event_id",
        [s.sid],
    )
    assert facts == [("edit", "src/lib.rs", False), ("command", "cargo test", True)]
    stored = installed.query(
        "SELECT f.field, f.value FROM event_fields f JOIN events e USING (event_id) "
        "WHERE e.session_id = ? AND e.point = 'stop' AND f.field LIKE 'state.%' ORDER BY ALL",
        [s.sid],
    )
    assert stored == [("state.commands_failed", "cargo test"), ("state.files_edited", "src/lib.rs")]
    # the same command passing clears it
    s.bash("cargo test")
    assert s.stop() is None


def test_no_edits_may_stop(installed: Project) -> None:
    s = Session(installed)
    assert s.stop() is None
    s.bash("ls -la")
    s.bash("cargo test", fails=True)  # a failing run but nothing edited: not this package's
    assert s.stop() is None


def test_the_loop_guard_lets_the_agent_stop_the_second_time(installed: Project) -> None:
    s = Session(installed)
    s.edit("src/lib.rs")
    assert s.stop() is not None
    assert s.stop(active=True) is None
    assert s.outcomes("edited-without-tests") == ["blocked", "loop-guard"]


def test_the_installed_command_records_the_history(installed: Project) -> None:
    """The handler `style install` wrote, run as Claude Code runs it (`sh -c`)."""
    sid = new_session()
    root = installed.root.as_posix()
    edit = {
        "session_id": sid,
        "cwd": root,
        "hook_event_name": "PostToolUse",
        "tool_name": "MultiEdit",
        "tool_use_id": "toolu_x",
        "tool_input": {"file_path": f"{root}/src/main.rs", "edits": []},
        "tool_response": {},
    }
    assert installed.run_installed("PostToolUse", edit).stdout == ""
    stop = {"session_id": sid, "cwd": root, "hook_event_name": "Stop", "stop_hook_active": False}
    assert "src/main.rs" in (installed.run_installed("Stop", stop).context or "")


def test_a_policy_without_such_rules_keeps_no_facts(project: Project) -> None:
    project.write_package(FAILURES_PKG, "retry")
    project.install("retry", "--harness", "claude-code")
    s = Session(project)
    s.bash("cargo test")
    s.edit("src/lib.rs")
    assert project.scalar("SELECT count(*) FROM events WHERE session_id = ?", [s.sid]) == 2
    assert project.scalar("SELECT count(*) FROM session_facts") == 0


def test_state_failures_at_tool_pre_counts_with_the_handlers_installed(project: Project) -> None:
    project.write_package(FAILURES_PKG, "retry")
    project.install("retry", "--harness", "claude-code")
    hooks = json.loads((project.root / ".claude" / "settings.json").read_text("utf-8"))["hooks"]
    assert hooks["PostToolUse"][0]["matcher"] == hooks["PostToolUseFailure"][0]["matcher"]
    assert "Bash" in hooks["PostToolUseFailure"][0]["matcher"].split("|")
    s = Session(project)

    def pre(command: str) -> str:
        call = s._call("Bash", {"command": command})
        s.n -= 1  # the tool.post that follows is the same call
        out = s.send("PreToolUse", **call).stdout
        return str(json.loads(out)["hookSpecificOutput"]["permissionDecision"]) if out else "none"

    assert pre("cargo build") == "none"
    s.bash("cargo build", fails=True)
    assert pre("cargo build") == "none"  # one failure so far
    s.bash("cargo build", fails=True)
    assert pre("cargo build") == "deny"  # two in a row
    s.bash("cargo build")  # (the person ran it anyway) a success ends the run
    assert pre("cargo build") == "none"


def test_log_off_keeps_the_facts_the_rule_reads_and_no_field_values(project: Project) -> None:
    (project.root / "style.lock.yaml").write_text('log: "off"\n', encoding="utf-8")
    project.install(PACKAGE, "--harness", "claude-code")
    s = Session(project)
    s.edit("src/lib.rs")
    assert s.stop() is not None
    assert project.scalar("SELECT count(*) FROM session_facts WHERE session_id = ?", [s.sid]) == 1
    assert project.scalar("SELECT count(*) FROM event_fields") == 0


def test_a_replay_of_the_session_gives_the_hooks_verdicts(installed: Project) -> None:
    s = Session(installed)
    s.edit("src/lib.rs")
    s.stop()
    s.stop(active=True)
    s.bash("cargo test", fails=True)
    s.stop()
    s.bash("echo cargo test")
    s.bash("cargo test")
    s.stop()
    s.write("src/b.rs")
    s.stop()
    s.bash("make test")
    s.stop()
    expected = installed.query(
        "SELECT verdict FROM events WHERE session_id = ? ORDER BY event_id", [s.sid]
    )
    assert [v for (v,) in expected].count("block") == 3
    recorded = [
        Recorded(native, payload, 1.0e9 + i, f"{s.sid}:{i}", s.sid)
        for i, (native, payload) in enumerate(s.sent)
    ]
    packages, settings = rp.installed_packages(installed.root)
    for batch in (1, 1000):
        with plan_packages("claude-code", installed.root) as builtin:
            policy = rp.load_policy(packages + builtin, "claude-code", settings)
        try:
            result = rp.replay(policy, recorded, batch_size=batch)
            assert result.cuts == 0  # the batch reads its own earlier facts: nothing to cut
            assert result.verdicts == [v for (v,) in expected]
            facts = "SELECT kind, value, failed FROM session_facts ORDER BY event_id, value"
            replayed = result.conn.execute(facts).fetchall()
        finally:
            policy.close()
        hooked = installed.query(
            "SELECT kind, value, failed FROM session_facts WHERE session_id = ? "
            "ORDER BY event_id, value",
            [s.sid],
        )
        assert replayed == hooked


def _validate(tmp_path: Path, rule: str) -> list[dict[str, Any]]:
    folder = tmp_path / "pkg"
    folder.mkdir(exist_ok=True)
    head = "spec: style/v0.3\nname: pkg\nversion: 0.1.0\ndescription: case\nrules:\n"
    (folder / "STYLE.yaml").write_text(head + textwrap.indent(textwrap.dedent(rule), "  "))
    done = style_in_process(tmp_path, tmp_path, "validate", str(folder), "--format", "json")
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


def test_the_history_fields_are_unavailable_at_a_session_start(tmp_path: Path) -> None:
    found = _validate(
        tmp_path,
        """
        - id: early
          target: event
          event: session.start
          when: 'state.files_edited glob "src/**"'
          text: "Files were edited: {{event.state.files_edited}}."
        """,
    )
    codes = {(d["code"], d["message"]) for d in found}
    assert (
        "field-unavailable",
        "field `state.files_edited` cannot exist at session.start for rule `early`",
    ) in codes
    assert (
        "event-var-unavailable",
        "`{{event.state.files_edited}}` is not available at session.start",
    ) in codes


def _stop_gate(when: str, text: str) -> str:
    """A rule that blocks the stop when `when` holds, saying `text`."""
    return (
        f"- id: gate\n  target: event\n  event: stop\n  action: block\n"
        f"  when: '{when}'\n  text: {json.dumps(text)}\n"
    )


def test_shell_regex_reads_a_command_list_at_stop(tmp_path: Path) -> None:
    """`shell_regex` on a history list is not `field-never-present` (it reads the list, not
    the event's shell commands), and a stop reason naming the list stays under T005."""
    edited = "state.files_edited exists and not"
    found = _validate(
        tmp_path,
        _stop_gate(
            f'{edited} state.commands_since_edit shell_regex "^pytest"',
            "Edited {{event.state.files_edited}}; run pytest.",
        ),
    )
    assert found == []
    found = _validate(
        tmp_path, _stop_gate(f'{edited} shell.commands shell_regex "^pytest"', "Run pytest.")
    )
    assert [d["code"] for d in found] == ["field-unavailable"]


def test_a_replay_of_the_sessions_export_gives_the_hooks_verdicts(
    project: Project, tmp_path: Path
) -> None:
    """`log: hits` keeps no field values of the tool results without a hit; the export carries
    their session facts, so `style replay` of it refuses the same stops."""
    project.install(PACKAGE, "--harness", "claude-code")
    installed = project
    s = Session(installed)
    s.edit("src/export.rs")
    s.stop()
    s.stop(active=True)  # the loop guard lets it stop: so must the replay
    s.edit("src/export.rs")
    s.bash("cargo test")
    s.stop()
    out = tmp_path / "export"

    def style(*args: str) -> subprocess.CompletedProcess[str]:
        return style_in_process(installed.root, installed.home, *args)

    done = style("audit", "export", "--out", str(out))
    assert done.returncode == 0, done.stderr
    done = style("replay", str(out), "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = {r["rule"]: r for r in json.loads(done.stdout)["rules"]["rows"]}
    audit = style("audit", "rules", "--format", "json")
    recorded = {r["rule"]: r for r in json.loads(audit.stdout)["rows"]}
    for rule in (f"{PACKAGE}/edited-without-tests", f"{PACKAGE}/tests-failing"):
        for column in ("candidates", "fired", "blocked"):
            assert rows[rule][column] == recorded[rule][column], (rule, column)
    assert recorded[f"{PACKAGE}/edited-without-tests"]["blocked"] == 1
    assert recorded[f"{PACKAGE}/edited-without-tests"]["loop_guarded"] == 1


# Per harness: the native event and payload of an edit, a test run failing and passing, a stop.
HARNESS_EVENTS: dict[str, dict[str, dict[str, Any]]] = yaml.safe_load(
    (DATA / "turn_events.yaml").read_text("utf-8")
)


@pytest.mark.parametrize("harness", SUPPORTED)
def test_every_harness_refuses_the_untested_stop(harness: str, tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    if Can.DENY not in spec_for(harness).points["stop"].capabilities:
        # a stop it cannot continue (OpenCode's `session.idle`): install refuses the rule
        # rather than install one that never holds the agent
        refused = p.cli("install", PACKAGE, "--harness", harness)
        assert refused.returncode == 1
        assert f"install-error on {harness} at stop: capability-missing" in refused.stderr
        return
    assert harness in HARNESS_EVENTS, f"write {harness}'s events into turn_events.yaml"
    assert p.cli("install", PACKAGE, "--harness", harness).returncode == 0
    config = p.config(harness).read_text("utf-8")
    tool_post = spec_for(harness).points["tool.post"].native_event
    assert f'"{tool_post}"' in config  # the history handler is installed
    sid = new_session()
    root = p.root.as_posix()
    events = HARNESS_EVENTS[harness]

    def send(step: str, n: int = 0) -> str:
        native, given = events[step]["event"], events[step]["payload"]
        payload = json.loads(json.dumps(given).replace("{root}", root))
        ids = {"conversation_id": sid} if harness == "cursor" else {"session_id": sid}
        call = {"tool_use_id": f"call_{n}"} if step != "stop" else {}
        payload = {**ids, "cwd": root, "hook_event_name": native, **call, **payload}
        return p.hook_as(harness, native, payload).stdout

    assert send("edit", 1).strip() in ("", "{}")
    refused = send("stop")
    assert "STYLE edited-without-tests" in refused and "src/lib.rs" in refused
    if "fail" in events:
        send("fail", 2)
        assert "STYLE tests-failing" in send("stop")
    send("pass", 3)
    assert "STYLE" not in send("stop")
