"""The bundled `observers` package (agentstyle/library/observers) in real hooks, and what its
check needs of the compiler: a `check.run` that fills in `{{settings.NAME}}` at install, and
a result that only its own rule reads (docs/observers.md).

`tests-after-edit` is driven on Gemini CLI, which has no background hooks: the edit's hook
leaves a ticket and starts STYLE's runner detached, the runner runs the check and hands the
result back through a real hook call, and the text rides on the session's next event. The
tests poll for it with generous deadlines and never time it. `stuck-tool` is driven on
Claude Code, a hook process per failed call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import HarnessProject
from tests.support.hooks import HookResult, new_session
from tests.support.packages import package_text
from tests.support.waiting import poll

PACKAGE = "observers"
TEST_COMMAND = "python3 run_tests.py"
FAILING = "OBSERVED-FAILURE test_add: expected 3, got 4"
# The project's "test suite": fails while src/calc.py holds a bug; says each time it ran.
SUITE = f"""import pathlib, sys
root = pathlib.Path(__file__).parent
with open(root / "runs.log", "a") as log:
    log.write("run\\n")
if "bug" in (root / "src" / "calc.py").read_text():
    print("collected 1 item")
    print("{FAILING}")
    sys.exit(1)
print("1 passed")
"""
SAID = "the tests fail since your last edit"
# Generous: a detached runner and two hook processes on a crowded 2-core machine.
DEADLINE_S = 120.0


def _project(tmp_path: Path, *, breaks: bool) -> HarnessProject:
    p = HarnessProject(tmp_path / "acme", tmp_path / "home")
    (p.root / "src").mkdir()
    body = "    return a + b + 1  # bug\n" if breaks else "    return a + b\n"
    (p.root / "src" / "calc.py").write_text("def add(a, b):\n" + body)
    (p.root / "run_tests.py").write_text(SUITE)
    p.install(PACKAGE, "--harness", "gemini-cli", "--set", f"test_command={TEST_COMMAND}")
    return p


class GeminiSession:
    """One Gemini CLI session against the project, a hook process per event."""

    def __init__(self, project: HarnessProject) -> None:
        self.project = project
        self.sid = new_session()

    def after_tool(self, tool: str, tool_input: dict[str, Any], output: str = "ok") -> HookResult:
        payload = {
            "session_id": self.sid,
            "cwd": str(self.project.root),
            "hook_event_name": "AfterTool",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_response": {"llmContent": output, "returnDisplay": output},
        }
        return self.project.hook_as("gemini-cli", "AfterTool", payload)

    def write(self, path: str) -> str:
        """A file written; what its answer gives the model ("" for nothing)."""
        target = str(self.project.root / path)
        return _context(self.after_tool("write_file", {"file_path": target, "content": "x\n"}))

    def look(self) -> str:
        """A harmless call; what its answer gives the model ("" for nothing)."""
        path = str(self.project.root / "x")
        return _context(self.after_tool("read_file", {"absolute_path": path}))


def _context(result: HookResult) -> str:
    answer = json.loads(result.stdout or "{}")
    return str(answer.get("hookSpecificOutput", {}).get("additionalContext", ""))


def _runs(p: HarnessProject) -> int:
    log = p.root / "runs.log"
    return len(log.read_text().splitlines()) if log.exists() else 0


def _results(p: HarnessProject, sid: str) -> list[tuple[str, str]]:
    """The check results recorded for a session, each with the outcome of its rule."""
    rows = p.query(
        "SELECT e.native_event, coalesce(h.outcome, '') FROM events e "
        "LEFT JOIN hits h ON h.event_id = e.event_id AND h.rule_id = ? "
        "WHERE e.session_id = ? AND e.point = 'check.done' ORDER BY e.event_id",
        [f"{PACKAGE}/tests-after-edit", sid],
    )
    return [(str(r[0]), str(r[1])) for r in rows]


def test_a_failing_run_after_a_code_edit_reaches_the_model_once(tmp_path: Path) -> None:
    p = _project(tmp_path, breaks=True)
    s = GeminiSession(p)
    assert s.write("src/calc.py") == ""  # the edit's own answer says nothing yet
    # the runner hands the result back; the next event that takes context carries it
    context = poll(
        "the failure", lambda: (out := s.look()) and SAID in out and out, DEADLINE_S, 0.5
    )
    assert f"STYLE tests-after-edit: {SAID} (`{TEST_COMMAND}`, " in context
    assert FAILING in context  # the output's end, fenced as event content
    assert "<style-untrusted-event" in context
    assert SAID not in s.look()  # given once
    assert _runs(p) == 1
    assert _results(p, s.sid) == [("AfterTool", "emitted")]


def test_a_passing_run_says_nothing(tmp_path: Path) -> None:
    p = _project(tmp_path, breaks=False)
    s = GeminiSession(p)
    assert s.write("src/calc.py") == ""
    poll("the check's result recorded", lambda: _results(p, s.sid), DEADLINE_S, 0.5)
    assert _results(p, s.sid) == [("AfterTool", "")]  # recorded; its rule said nothing
    assert s.look() == ""
    assert _runs(p) == 1


def test_an_edit_of_another_file_runs_nothing(tmp_path: Path) -> None:
    p = _project(tmp_path, breaks=True)
    s = GeminiSession(p)
    assert s.write("README.md") == ""
    assert not list((p.style / "checks" / "due").glob("*.json"))  # no ticket was left
    assert s.look() == ""
    assert _runs(p) == 0


def test_install_asks_for_the_test_command(tmp_path: Path) -> None:
    """No default: the command runs on the person's machine by itself, so they name it."""
    p = HarnessProject(tmp_path / "acme", tmp_path / "home")
    done = p.install(PACKAGE, "--harness", "gemini-cli", check=False)
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "setting `test_command` of `observers` has no default" in said
    assert "--set test_command=VALUE" in said
    assert not (p.root / ".gemini" / "settings.json").exists()


def test_the_installed_check_is_the_command_chosen(tmp_path: Path) -> None:
    p = _project(tmp_path, breaks=False)
    [(run,)] = p.query("SELECT check_run FROM rules WHERE check_run IS NOT NULL")
    assert run == TEST_COMMAND
    allowed = p.cli("allow", "--checks", "--format", "json")
    assert allowed.returncode == 0, allowed.stderr
    checks = json.loads(allowed.stdout)["checks"]
    assert checks == [{"rule": f"{PACKAGE}/tests-after-edit", "run": TEST_COMMAND}]


# -- stuck-tool ---------------------------------------------------------------------------------


def _failure(p: HarnessProject, sid: str, n: int, tool: str = "Bash") -> HookResult:
    tool_input = {"command": "npm run build"} if tool == "Bash" else {"file_path": "a.txt"}
    payload = {
        "session_id": sid,
        "cwd": str(p.root),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": tool,
        "tool_use_id": f"toolu_{n:02d}",
        "tool_input": tool_input,
        "error": "Exit code 1",
    }
    return p.hook("PostToolUseFailure", payload)


def _success(p: HarnessProject, sid: str, n: int, tool: str) -> HookResult:
    payload = {
        "session_id": sid,
        "cwd": str(p.root),
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_use_id": f"toolu_{n:02d}",
        "tool_input": {"command": "ls"} if tool == "Bash" else {"file_path": "package.json"},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
    }
    return p.hook("PostToolUse", payload)


@pytest.fixture(scope="module")
def stuck(tmp_path_factory: pytest.TempPathFactory) -> HarnessProject:
    base = tmp_path_factory.mktemp("stuck")
    p = HarnessProject(base / "acme", base / "home")
    p.install(PACKAGE, "--harness", "claude-code", "--set", "test_command=true")
    return p


def test_a_third_failure_in_a_row_is_said_once_to_both(stuck: HarnessProject) -> None:
    sid = new_session()
    assert _failure(stuck, sid, 1).stdout == ""
    assert _failure(stuck, sid, 2).stdout == ""
    assert _success(stuck, sid, 3, "Read").stdout == ""  # another tool: Bash's row goes on
    third = json.loads(_failure(stuck, sid, 4).stdout)
    assert "STYLE stuck-tool: the same tool failed three times in a row" in third["systemMessage"]
    context = third["hookSpecificOutput"]["additionalContext"]
    assert "STYLE stuck-tool: the same tool failed three times in a row" in context
    # then quiet for five minutes, whichever tool fails
    assert _failure(stuck, sid, 5).stdout == ""
    for n in (6, 7, 8):
        assert _failure(stuck, sid, n, tool="Edit").stdout == ""


def test_a_success_of_the_tool_ends_its_row(stuck: HarnessProject) -> None:
    sid = new_session()
    assert _failure(stuck, sid, 1).stdout == ""
    assert _failure(stuck, sid, 2).stdout == ""
    assert _success(stuck, sid, 3, "Bash").stdout == ""
    assert _failure(stuck, sid, 4).stdout == ""
    assert _failure(stuck, sid, 5).stdout == ""
    assert "stuck-tool" in _failure(stuck, sid, 6).stdout  # the third of the new row


def test_failures_of_different_tools_are_no_row(stuck: HarnessProject) -> None:
    sid = new_session()
    for n, tool in enumerate(("Bash", "Edit", "Bash", "Edit"), start=1):
        assert _failure(stuck, sid, n, tool=tool).stdout == ""


# -- the compiler ---------------------------------------------------------------------------------

TWO_CHECKS = package_text(
    "two",
    """
- id: lint
  target: tool
  tool: file.edit
  action: inject
  repeat: every
  check: {run: 'make lint'}
  when: 'check.exit != 0'
  text: "LINT-FAILS {{check.output_tail}}"
- id: tests
  target: tool
  tool: file.edit
  action: inject
  repeat: every
  check: {run: '{{settings.test_command}}'}
  when: 'check.exit != 0'
  text: "TESTS-FAIL {{check.output_tail}}"
""",
    description="two checks on one edit",
    head="settings:\n  - name: test_command\n    default: make test\n",
)
EDIT = {
    "tool_name": "Edit",
    "tool_use_id": "toolu_01",
    "tool_input": {"file_path": "src/a.py", "old_string": "a", "new_string": "b"},
    "tool_response": {"filePath": "src/a.py"},
}
TWO_CASES = {
    "cases": [
        {
            "note": "one edit starts both checks",
            "event": "PostToolUse",
            "payload": EDIT,
            "expect": {"verdict": "none", "checks": ["lint", "tests"]},
        },
        {
            "note": "the lint result speaks for lint only",
            "event": "PostToolUse",
            "payload": EDIT,
            "check": {"rule": "lint", "exit": 2, "output": "E501"},
            "expect": {"fires": ["lint"], "silent": ["tests"], "output_contains": "LINT-FAILS"},
        },
        {
            "note": "a crashed result names no rule: both stay silent",
            "event": "PostToolUse",
            "payload": EDIT,
            "check": {"rule": "tests", "exit": 1, "crashed": "ended by SIGKILL"},
            "expect": {"verdict": "none", "silent": ["lint", "tests"], "stdout": ""},
        },
    ]
}


def test_a_result_is_read_by_its_own_rule_only(tmp_path: Path) -> None:
    from tests.support.cli import style_in_process

    folder = tmp_path / "two"
    (folder / "tests").mkdir(parents=True)
    (folder / "STYLE.yaml").write_text(TWO_CHECKS)
    (folder / "tests" / "two.yaml").write_text(json.dumps(TWO_CASES))
    done = style_in_process(tmp_path, tmp_path / "home", "test", str(folder), "--format", "json")
    report = json.loads(done.stdout)
    failures = [f"{c['note']}: {c['failures']}" for c in report["cases"] if not c["ok"]]
    assert done.returncode == 0 and not failures, failures
    plan = style_in_process(tmp_path, tmp_path / "home", "plan", str(folder))
    assert "check runs `{{settings.test_command}}` in the project" in plan.stdout


@pytest.mark.parametrize(
    ("run", "code", "said"),
    [
        ("{{settings.test_cmd}}", "undeclared-var", "uses undeclared setting `test_cmd`"),
        ("pytest {{event.file.path}}", "check-block", "the command is fixed at install"),
        ("{{settings.test_command | default: 'x'}}", "check-block", "no filter"),
    ],
)
def test_a_check_command_fills_in_declared_settings_only(
    tmp_path: Path, run: str, code: str, said: str
) -> None:
    from tests.support.cli import style_in_process

    text = TWO_CHECKS.replace("'{{settings.test_command}}'", json.dumps(run))
    (tmp_path / "STYLE.yaml").write_text(text)
    done = style_in_process(tmp_path, tmp_path / "home", "validate", str(tmp_path))
    assert done.returncode == 1
    assert f"error {code}:" in done.stdout and said in done.stdout, done.stdout
