"""The observer lane's promises, held by real processes: a rule's `check` validated and planned,
installed (Claude Code's background and prompt handlers, and nothing of the kind where the
client has none), run beside the session by a detached runner or Claude Code's background hook,
bounded (its timeout, a crash, the session's end, its cooldown), allowed per person, and its
result recorded in the history and given once to the next event that can carry it
(docs/observers.md).

Every hook is a real process with the harness's payload on stdin, every check a real command
in the project; nothing is mocked. The checks write marker files the tests poll with generous
deadlines: nothing here asserts how fast anything is.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.support import waiting
from tests.support.environment import CROWD_ENV, CROWD_TIMEOUT_S, clean_env
from tests.support.harness import HarnessProject
from tests.support.hooks import HookResult, feed, finish
from tests.support.packages import package_text

# Long enough for a crowded 2-core machine (`make test` on every core, other work beside it).
DEADLINE_S = 90.0
FENCE = "<style-untrusted-event"
FAILING = "CHECK-FAILS-MARK"
SAID = "OBSERVER-SAYS"
GEMINI = "gemini-cli"


def check_rule(
    rule_id: str,
    run: str,
    when: str = "check.exit != 0",
    text: str = f"{SAID} the check failed: {{{{check.output_tail}}}}",
    *,
    tool: str = "shell",
    timeout: str = "60s",
    cooldown: str | None = None,
    repeat: str = "every",
) -> str:
    """A rule that runs `run` after a finished call of `tool` and speaks when `when` holds."""
    block = f"run: {json.dumps(run)}, timeout: {timeout}"
    if cooldown is not None:
        block += f", cooldown: {cooldown}"
    return (
        f"- id: {rule_id}\n  target: tool\n  tool: {tool}\n  action: inject\n  at: after\n"
        f"  repeat: {repeat}\n  check: {{{block}}}\n  when: {json.dumps(when)}\n"
        f"  text: {json.dumps(text)}\n"
    )


def observed(root: Path, *rules: str) -> HarnessProject:
    """A project at `root` (its home beside it) with `rules` written as package `obs`."""
    p = HarnessProject(root / "proj", root / "home")
    p.write_package(package_text("obs", *rules, description="observers under test"))
    return p


def poll(what: str, done: Callable[[], Any]) -> Any:
    """`done()` once it is truthy, within this module's deadline."""
    return waiting.poll(what, done, DEADLINE_S)


def lines(path: Path) -> list[str]:
    return path.read_text("utf-8").splitlines() if path.exists() else []


def results(p: HarnessProject) -> list[tuple[Any, ...]]:
    """The history's check results: (event id, its rule, exit, timed out, crashed, notes)."""
    if not p.database.exists():
        return []
    return p.query(
        "SELECT e.event_id,"
        " max(f.value) FILTER (WHERE f.field = 'check.rule'),"
        " max(f.value) FILTER (WHERE f.field = 'check.exit'),"
        " max(f.value) FILTER (WHERE f.field = 'check.timed_out'),"
        " max(f.value) FILTER (WHERE f.field = 'check.crashed'),"
        " e.error"
        " FROM events e LEFT JOIN event_fields f USING (event_id)"
        " WHERE e.point = 'check.done' GROUP BY e.event_id, e.error ORDER BY e.event_id"
    )


def hits_on(p: HarnessProject, event_id: int) -> list[tuple[str, str]]:
    return [
        (str(r), str(o))
        for r, o in p.query(
            "SELECT rule_id, outcome FROM hits WHERE event_id = ? ORDER BY rule_id", [event_id]
        )
    ]


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie has ended: it only waits to be reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def gemini_after(p: HarnessProject, session: str | None = None) -> HookResult:
    payload = p.fixture(GEMINI, "AfterTool.run_shell_command.json")
    if session is not None:
        payload["session_id"] = session
    return p.hook_as(GEMINI, "AfterTool", payload)


def gemini_prompt(p: HarnessProject) -> HookResult:
    return p.hook_as(GEMINI, "BeforeAgent", p.fixture(GEMINI, "BeforeAgent.json"))


def context_of(result: HookResult) -> str:
    return result.context or ""


def end_session(p: HarnessProject, harness: str = GEMINI, session: str | None = None) -> None:
    """The session's end, as the client reports it."""
    if harness == "codex":
        payload = p.fixture("codex", "SessionEnd.json")
    else:
        payload = p.fixture(GEMINI, "BeforeAgent.json", hook_event_name="SessionEnd", prompt=None)
        payload["reason"] = "exit"
    if session is not None:
        payload["session_id"] = session
    p.hook_as(harness, "SessionEnd", payload)


@pytest.fixture
def ending() -> Iterator[list[tuple[HarnessProject, str]]]:
    """Projects whose sessions a test leaves with checks running or waiting: each is ended
    (its checks' process groups and runners stopped) when the test ends, whatever happened."""
    left: list[tuple[HarnessProject, str]] = []
    yield left
    for p, harness in left:
        end_session(p, harness)


# -- validation and plan ------------------------------------------------------------------------


def _rule(body: str, action: str = "inject", at: str | None = "after") -> str:
    head = f"- id: r\n  target: tool\n  tool: file.edit\n  action: {action}\n"
    return head + (f"  at: {at}\n" if at else "") + body + "  text: T\n"


BAD_CHECKS = {
    "unknown-key": (
        _rule("  check: {run: 'pytest', every: 2m}\n  when: 'check.exit != 0'\n"),
        ["11:28 check-block"],
    ),
    "run-and-prompt": (
        _rule("  check: {run: 'pytest', prompt: 'ok?'}\n  when: 'check.exit != 0'\n"),
        ["11:12 check-block"],
    ),
    "bad-timeout": (
        _rule("  check: {run: 'pytest', timeout: soon}\n  when: 'check.exit != 0'\n"),
        ["11:37 check-block"],
    ),
    "not-an-observer": (
        _rule("  check: {run: 'pytest'}\n  when: 'check.exit != 0'\n", action="block", at=None),
        ["9:13 check-block"],
    ),
    "before-the-call": (
        _rule("  check: {run: 'pytest'}\n  when: 'check.exit != 0'\n", at="before"),
        ["11:12 check-block"],
    ),
    "mixed-condition": (
        _rule("  check: {run: 'pytest'}\n  when: 'file.path glob \"src/**\" or check.exit != 0'\n"),
        ["12:12 check-field"],
    ),
    "no-check": (_rule("  when: 'check.exit != 0'\n"), ["11:12 check-field"]),
    "result-in-unless": (
        _rule(
            "  check: {run: 'pytest'}\n  when: 'check.exit != 0'\n"
            "  unless: 'check.timed_out == true'\n"
        ),
        ["13:14 check-field"],
    ),
}


@pytest.mark.parametrize("case", list(BAD_CHECKS))
def test_a_bad_check_is_diagnosed_where_it_is_wrong(tmp_path: Path, case: str) -> None:
    rule, expected = BAD_CHECKS[case]
    p = observed(tmp_path)
    p.write_package(package_text("bad", rule, description="a bad check"), "bad")
    proc = p.cli("validate", "bad")
    assert proc.returncode == 1, proc.stdout
    found = [
        f"{line.split(':')[1]}:{line.split(':')[2]} {line.split()[2].rstrip(':')}"
        for line in proc.stdout.splitlines()
        if line.startswith("bad/STYLE.yaml:")
    ]
    assert found == expected, proc.stdout


PROMPT_CHECK = """
- id: ran-tests
  target: event
  event: stop
  action: block
  check: {prompt: 'Did the agent run the tests it says it ran?'}
  text: Run the tests you said you ran.
"""


def test_a_good_check_package_validates_clean_and_plan_says_each_delivery(
    tmp_path: Path,
) -> None:
    p = observed(
        tmp_path,
        check_rule(
            "tests",
            "pytest -x -q",
            tool="file.edit",
            timeout="300s",
            cooldown="2m",
            repeat="session",
        ),
        PROMPT_CHECK,
    )
    proc = p.cli("validate", "pkg")
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stdout
    assert proc.stderr.startswith("0 error(s), 0 warning(s)")

    def plan(harness: str) -> dict[str, dict[str, Any]]:
        out = p.cli("plan", "pkg", "--harness", harness, "--format", "json")
        assert out.returncode == 0, out.stderr
        return {r["rule"]: r for r in json.loads(out.stdout)}

    claude, gemini = plan("claude-code"), plan(GEMINI)
    for rules in (claude, gemini):
        assert rules["obs/tests"]["check"] == [
            "check runs `pytest -x -q` in the project (timeout 300 s, cooldown 120 s)"
        ]
        start, done, end = rules["obs/tests"]["entries"]
        # its session's end stops a check still running
        assert (end["point"], end["status"]) == ("session.end", "history")
        assert (start["point"], start["action"], start["status"]) == (
            "tool.post",
            "check",
            "native",
        )
        assert (done["point"], done["action"]) == ("check.done", "inject")
    done_cc = claude["obs/tests"]["entries"][1]
    assert (done_cc["status"], done_cc["reason"]) == (
        "native",
        "when ready: a background hook wakes the model",
    )
    done_gm = gemini["obs/tests"]["entries"][1]
    assert (done_gm["status"], done_gm["reason"]) == (
        "degraded",
        "when ready: given at the session's next event",
    )
    asked, seen = claude["obs/ran-tests"]["entries"]
    assert (asked["native_event"], asked["action"], asked["status"]) == ("Stop", "prompt", "native")
    # STYLE's own Stop handler records the stops, for the audit's count of those it continued
    assert (seen["native_event"], seen["status"]) == ("Stop", "history")
    [skipped] = gemini["obs/ran-tests"]["entries"]
    assert (skipped["status"], skipped["reason"]) == (
        "skipped",
        "no prompt hooks: nothing asks a model",
    )
    text = p.cli("plan", "pkg", "--harness", GEMINI).stdout
    assert "check runs `pytest -x -q` in the project (timeout 300 s, cooldown 120 s)" in text


# -- install ------------------------------------------------------------------------------------


def _background(doc: dict[str, Any]) -> list[tuple[str | None, dict[str, Any]]]:
    return [
        (group.get("matcher"), h)
        for groups in doc.get("hooks", {}).values()
        for group in groups
        for h in group.get("hooks", [group])
        if "--checks" in str(h.get("command", "")) or h.get("async")
    ]


def test_claude_code_gets_a_background_and_a_prompt_handler_and_uninstall_gives_bytes_back(
    tmp_path: Path,
) -> None:
    p = observed(
        tmp_path,
        check_rule("tests", "pytest -x -q", tool="file.edit", timeout="300s", cooldown="2m"),
        PROMPT_CHECK,
    )
    settings = p.config("claude-code")
    settings.parent.mkdir(parents=True)
    original = (
        b'{\n  "model": "opus",\n  "hooks": {\n    "Stop": [\n'
        b'      {"hooks": [{"type": "command", "command": "echo bye"}]}\n    ]\n  }\n}\n'
    )
    settings.write_bytes(original)
    p.install("pkg", "--harness", "claude-code")
    doc = json.loads(settings.read_text("utf-8"))
    [(matcher, handler)] = _background(doc)
    assert handler["command"].endswith(
        "exec style-hook --harness claude-code --event PostToolUse --checks; exit 0"
    )
    assert (handler["type"], handler["async"], handler["asyncRewake"]) == ("command", True, True)
    assert handler["timeout"] >= 300 + 120
    assert matcher is not None and set(matcher.split("|")) >= {"Edit", "MultiEdit"}
    assert "Bash" not in matcher.split("|")
    prompts = [h for g in doc["hooks"]["Stop"] for h in g["hooks"] if h["type"] == "prompt"]
    assert prompts == [
        {
            "type": "prompt",
            "prompt": "Did the agent run the tests it says it ran?\n\n"
            "(asked by STYLE rule `obs/ran-tests`)",
            "timeout": 30,
        }
    ]
    # the person's own Stop hook is still there, beside STYLE's
    assert {"type": "command", "command": "echo bye"} in doc["hooks"]["Stop"][0]["hooks"]
    # a session's end stops its checks: the event is hooked
    assert "SessionEnd" in doc["hooks"]
    p.cli("uninstall", "--harness", "claude-code")
    assert settings.read_bytes() == original


def test_gemini_cli_gets_no_background_handler(tmp_path: Path) -> None:
    p = observed(tmp_path, check_rule("tests", "pytest -x -q"), PROMPT_CHECK)
    p.install("pkg", "--harness", GEMINI)
    text = p.config(GEMINI).read_text("utf-8")
    doc = json.loads(text)
    assert _background(doc) == []
    assert "--checks" not in text and '"type": "prompt"' not in text
    # the check starts at the call's end, and the session's end stops it
    assert {"AfterTool", "SessionEnd"} <= set(doc["hooks"])


# -- results delivered at the next event ---------------------------------------------------------


def test_a_failing_check_is_said_once_at_the_next_event_that_takes_context(
    tmp_path: Path,
) -> None:
    p = observed(
        tmp_path,
        check_rule("fails", f"echo run >> runs.log; echo {FAILING}; exit 3"),
    )
    p.install("pkg", "--harness", GEMINI)
    started = gemini_after(p)
    assert FAILING not in started.stdout and SAID not in started.stdout
    [(event_id, rule, code, timed_out, crashed, _notes)] = poll(
        "the check's result recorded", lambda: results(p)
    )
    assert (rule, code, timed_out, crashed) == ("obs/fails", "3", "false", None)
    assert hits_on(p, event_id) == [("obs/fails", "emitted")]
    # a call's start cannot carry context in Gemini CLI: the text waits for the prompt
    before = p.hook_as(GEMINI, "BeforeTool", p.fixture(GEMINI, "BeforeTool.replace-rs.json"))
    assert SAID not in before.stdout
    first = context_of(gemini_prompt(p))
    assert first.count(SAID) == 1, first
    assert f'{FENCE} field="check.output_tail"' in first
    assert FAILING in first.split(FENCE, 1)[1]  # the command's output only inside the fence
    assert SAID not in context_of(gemini_prompt(p))
    assert lines(p.root / "runs.log") == ["run"]
    # the export holds the result and the rule's outcome on it
    out = tmp_path / "export"
    assert p.cli("audit", "export", "--out", str(out)).returncode == 0
    conn = duckdb.connect()
    try:
        events = conn.execute(
            f"SELECT event_id, point FROM read_parquet('{out}/**/events.parquet')"
            " WHERE point = 'check.done'"
        ).fetchall()
        outcome = conn.execute(
            f"SELECT rule_id, outcome FROM read_parquet('{out}/**/hits.parquet')"
            " WHERE event_id = ?",
            [event_id],
        ).fetchall()
    finally:
        conn.close()
    assert events == [(event_id, "check.done")]
    assert outcome == [("obs/fails", "emitted")]


def test_a_passing_check_is_recorded_and_says_nothing(tmp_path: Path) -> None:
    p = observed(tmp_path, check_rule("passes", "echo run >> runs.log; echo fine"))
    p.install("pkg", "--harness", GEMINI)
    gemini_after(p)
    [(event_id, rule, code, timed_out, crashed, notes)] = poll(
        "the check's result recorded", lambda: results(p)
    )
    assert (rule, code, timed_out, crashed, notes) == ("obs/passes", "0", "false", None, None)
    assert hits_on(p, event_id) == []
    assert gemini_prompt(p).stdout.strip() == "{}"
    assert lines(p.root / "runs.log") == ["run"]


def test_a_result_speaks_only_for_its_own_rule(tmp_path: Path) -> None:
    """Two checks after one call: the failing one's rule speaks once, the passing one's says
    nothing (a result is never decided by a rule it was not run for)."""
    p = observed(
        tmp_path,
        check_rule("fails", f"echo {FAILING}; exit 1", text=f"{SAID}-FAILS"),
        check_rule("passes", "exit 0", text=f"{SAID}-PASSES"),
    )
    p.install("pkg", "--harness", GEMINI)
    gemini_after(p)
    done = poll("both results recorded", lambda: len(results(p)) == 2 and results(p))
    assert sorted((r[1], r[2]) for r in done) == [("obs/fails", "1"), ("obs/passes", "0")]
    spoke = [hits_on(p, r[0]) for r in done]
    assert sorted(h for hs in spoke for h in hs) == [("obs/fails", "emitted")]
    said = context_of(gemini_prompt(p))
    assert said.count(f"{SAID}-FAILS") == 1 and f"{SAID}-PASSES" not in said


# -- bounded: timeout, crash, session end, cooldown ------------------------------------------------


SLEEPER = "sleep 120 & echo $! > sleeper.pid; echo $$ > shell.pid; wait"


def test_a_check_that_hangs_is_killed_at_its_timeout_and_recorded_timed_out(
    tmp_path: Path,
) -> None:
    p = observed(
        tmp_path,
        check_rule(
            "hangs",
            SLEEPER,
            when="check.timed_out == true",
            text=f"{SAID} timed out after {{{{check.duration}}}} s",
            timeout="1s",
        ),
    )
    p.install("pkg", "--harness", GEMINI)
    gemini_after(p)
    shell = int(poll("the check started", lambda: lines(p.root / "shell.pid"))[0])
    sleeper = int(lines(p.root / "sleeper.pid")[0])
    [(event_id, rule, code, timed_out, crashed, _)] = poll(
        "the check's result recorded", lambda: results(p)
    )
    assert (rule, code, timed_out, crashed) == ("obs/hangs", "124", "true", None)
    # the whole process group ended, the command's own child too
    poll("the check's processes gone", lambda: not alive(sleeper) and not alive(shell))
    assert hits_on(p, event_id) == [("obs/hangs", "emitted")]
    assert f"{SAID} timed out" in context_of(gemini_prompt(p))


def test_a_check_that_crashes_is_recorded_and_its_rule_says_nothing(tmp_path: Path) -> None:
    p = observed(
        tmp_path,
        check_rule("crashes", "echo run >> runs.log; kill -SEGV $$", when="check.exit != 0"),
    )
    p.install("pkg", "--harness", GEMINI)
    gemini_after(p)
    [(event_id, rule, code, _timed_out, crashed, notes)] = poll(
        "the check's result recorded", lambda: results(p)
    )
    assert (rule, code, crashed) == ("obs/crashes", "-11", "ended by SIGSEGV")
    assert notes == "check crashed: ended by SIGSEGV"
    assert hits_on(p, event_id) == []
    assert gemini_prompt(p).stdout.strip() == "{}"


def test_ten_edits_in_a_second_start_one_check(
    tmp_path: Path, ending: list[tuple[HarnessProject, str]]
) -> None:
    """With a cooldown longer than the test, ten calls at once run the check once: the first
    runs it, the others coalesce into one run after the cooldown (stopped by the session's
    end)."""
    p = observed(
        tmp_path,
        check_rule("once", "echo run >> runs.log; exit 0", cooldown="10m"),
    )
    p.install("pkg", "--harness", GEMINI)
    ending.append((p, GEMINI))
    payload = p.fixture(GEMINI, "AfterTool.run_shell_command.json")
    started = [p.start_hook("AfterTool", payload, env=CROWD_ENV, harness=GEMINI) for _ in range(10)]
    for proc, data in started:  # every payload in at once, as ten quick calls' hooks have it
        feed(proc, data)
    answers = [finish(proc, b"", timeout=CROWD_TIMEOUT_S) for proc, _ in started]
    assert [a.code for a in answers] == [0] * 10
    poll("a check ran", lambda: results(p))
    assert p.scalar("SELECT count(*) FROM hits WHERE outcome = 'check-due'") == 10
    # Every runner the ten calls started has taken its ticket by now: none is left waiting.
    poll("every ticket taken", lambda: not list((p.style / "checks" / "due").glob("*.json")))
    assert lines(p.root / "runs.log") == ["run"]
    assert len(results(p)) == 1


def test_the_sessions_end_stops_its_running_check(
    tmp_path: Path, ending: list[tuple[HarnessProject, str]]
) -> None:
    p = observed(tmp_path, check_rule("long", SLEEPER, timeout="600s"))
    p.install("pkg", "--harness", "codex")
    ending.append((p, "codex"))
    p.hook_as("codex", "PostToolUse", p.fixture("codex", "PostToolUse.bash.json"))
    shell = int(poll("the check started", lambda: lines(p.root / "shell.pid"))[0])
    sleeper = int(lines(p.root / "sleeper.pid")[0])
    assert alive(sleeper) and alive(shell)
    end_session(p, "codex")
    poll("the check's processes gone", lambda: not alive(sleeper) and not alive(shell))


# -- acceptance ---------------------------------------------------------------------------------


def test_a_check_the_person_did_not_allow_does_not_run_until_they_do(tmp_path: Path) -> None:
    p = observed(tmp_path, check_rule("guarded", "echo run >> runs.log; exit 1"))
    p.install("pkg", "--harness", GEMINI)
    # as on a teammate's clone: the policy is there, this person never allowed its check
    allowed = list(p.home.rglob("agentstyle/checks/accepted/*.json"))
    assert len(allowed) == 1
    allowed[0].unlink()
    first = gemini_after(p)
    notice = (
        "STYLE: the check of rule `obs/guarded` did not run: it runs only after you allow it "
        "in your own terminal (`style allow --checks`)"
    )
    assert notice in first.stdout
    second = gemini_after(p)
    assert "did not run" not in second.stdout  # once per session
    assert not list((p.style / "checks" / "due").glob("*.json"))
    proc = p.cli("allow", "--checks")
    assert proc.returncode == 0, proc.stderr
    assert "allowed: obs/guarded runs `echo run >> runs.log; exit 1`" in proc.stdout
    gemini_after(p)
    poll("the allowed check's result recorded", lambda: results(p))
    # only the call after the allowing ran it
    assert lines(p.root / "runs.log") == ["run"]
    assert p.scalar("SELECT count(*) FROM hits WHERE outcome = 'check-due'") == 3


@pytest.mark.parametrize(
    "command",
    [
        "style allow --checks",
        "python3 -m agentstyle allow --checks",
        "echo '{{}}' > {accepted}/x.json",
    ],
)
def test_the_agent_cannot_allow_a_check_itself(tmp_path: Path, command: str) -> None:
    """An approval has to come from the person: self-protection refuses the command that allows
    checks, in its spellings, and a write to where the allowed ones are kept."""
    p = observed(tmp_path, check_rule("guarded", "exit 1"))
    p.install("pkg", "--harness", GEMINI)
    [accepted] = {f.parent for f in p.home.rglob("agentstyle/checks/accepted/*.json")}
    payload = p.fixture(GEMINI, "BeforeTool.run_shell_command-rm-rf.json")
    payload["tool_input"]["command"] = command.format(accepted=accepted)
    answer = p.hook_as(GEMINI, "BeforeTool", payload)
    assert '"decision":"deny"' in answer.stdout.replace(" ", ""), answer.stdout
    assert "STYLE self-protect" in answer.stdout


# -- the hook does not wait ------------------------------------------------------------------------


# The check starts, then waits until the test lets it go: a hook that waited for it could not
# answer at all.
HELD = (
    "echo started > started; while [ ! -e release ]; do sleep 0.1; done; echo {word}; exit {code}"
)


def test_the_hook_that_starts_a_check_answers_while_it_runs(tmp_path: Path) -> None:
    p = observed(tmp_path, check_rule("held", HELD.format(word=FAILING, code=1)))
    p.install("pkg", "--harness", GEMINI)
    answer = gemini_after(p)  # answered and exited
    assert answer.code == 0
    poll("the check started", lambda: (p.root / "started").exists())
    assert results(p) == []  # still running: its result is not in
    (p.root / "release").touch()
    poll("the check's result recorded", lambda: results(p))
    assert FAILING in context_of(gemini_prompt(p))


# -- Claude Code: the background hook -------------------------------------------------------


@pytest.mark.parametrize("fails", [True, False], ids=["failing", "passing"])
def test_claude_codes_background_hook_wakes_the_model_only_when_the_check_fails(
    tmp_path: Path, fails: bool
) -> None:
    """The sync hook and the background hook (`--checks`) of one PostToolUse, started together
    as Claude Code starts them: the sync one answers while the check is held; the background
    one runs it and exits 2 with the rule's text on stderr when it fails, 0 and silent when it
    passes."""
    code = 1 if fails else 0
    p = observed(
        tmp_path,
        check_rule("edits", HELD.format(word=FAILING, code=code), tool="file.write"),
    )
    p.install("pkg", "--harness", "claude-code")
    payload = p.payload("PostToolUse.write.json")
    background, bg_data = p.start_hook("PostToolUse", payload, extra=["--checks"])
    sync, sync_data = p.start_hook("PostToolUse", payload)
    feed(background, bg_data)
    feed(sync, sync_data)
    answered = finish(sync, b"")
    assert answered.code == 0 and SAID not in answered.stdout
    poll("the check started", lambda: (p.root / "started").exists())
    assert background.poll() is None  # still waiting for the check
    (p.root / "release").touch()
    woke = finish(background, b"", timeout=DEADLINE_S)
    assert woke.stdout == ""
    if fails:
        assert woke.code == 2
        assert woke.stderr.count(SAID) == 1
        assert FENCE in woke.stderr and FAILING in woke.stderr.split(FENCE, 1)[1]
    else:
        assert (woke.code, woke.stderr) == (0, "")
    [(event_id, rule, exit_code, *_)] = results(p)
    assert (rule, exit_code) == ("obs/edits", str(code))
    assert hits_on(p, event_id) == ([("obs/edits", "emitted")] if fails else [])


# -- imports --------------------------------------------------------------------------------------


def test_a_hook_of_a_project_without_checks_loads_no_observer_module(tmp_path: Path) -> None:
    """The direct hook (no engine) of a project whose policy has no check: the observer lane's
    modules stay unloaded (a warm hook loads none either: tests/test_architecture.py
    WARM_HOOK_IMPORTS)."""
    p = observed(tmp_path, "- id: note\n  target: tool\n  tool: shell\n  at: after\n  text: N\n")
    p.install("pkg", "--harness", GEMINI)
    payload = json.dumps(p.fixture(GEMINI, "AfterTool.run_shell_command.json"))
    argv = [sys.executable, "-X", "importtime", "-m", "agentstyle.hook"]
    proc = subprocess.run(
        [*argv, "--harness", GEMINI, "--event", "AfterTool"],
        input=payload,
        capture_output=True,
        text=True,
        cwd=p.root,
        env=clean_env(p.home),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "N" in proc.stdout  # it did evaluate the rule
    loaded = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    observer = {m for m in loaded if m.startswith(("agentstyle.observe", "agentstyle.runtime.obs"))}
    assert observer == set()
    assert not (p.style / "checks").exists()


def test_the_detached_runner_leaves_no_process_behind(tmp_path: Path) -> None:
    """A check run by the detached runner: once its result is in, neither the runner nor the
    check's process group is left running."""
    p = observed(tmp_path, check_rule("quick", "echo $$ > shell.pid; exit 0"))
    p.install("pkg", "--harness", GEMINI)
    gemini_after(p)
    poll("the check's result recorded", lambda: results(p))
    shell = int(lines(p.root / "shell.pid")[0])
    poll("the check's shell gone", lambda: not alive(shell))
    slots = list((p.style / "checks" / "slots").rglob("*.json"))
    assert slots

    def states() -> list[dict[str, Any]]:
        return [json.loads(s.read_text()) for s in slots]

    # the runner lets go of its slot when it is done: no process and no group named there
    poll("the slot let go", lambda: all(not s.get("pid") and not s.get("pgid") for s in states()))


# -- the history: audit, replay, explain -----------------------------------------------------------


def test_audit_replay_and_explain_speak_about_checks(tmp_path: Path) -> None:
    """Three checks after one call (one fails, one hangs past its timeout, one crashes): the
    audit counts each rule's runs; a replay of the export runs none, says so, and leaves the
    recorded results out; explain shows a result's check fields."""
    p = observed(
        tmp_path,
        check_rule("fails", f"echo {FAILING}; exit 3"),
        check_rule("hangs", "sleep 60", when="check.timed_out == true", timeout="1s"),
        check_rule("crashes", "kill -SEGV $$"),
    )
    p.install("pkg", "--harness", GEMINI)
    gemini_after(p)
    poll("three results recorded", lambda: len(results(p)) == 3)
    gemini_prompt(p)

    report = p.cli("audit", "rules", "--format", "json")
    assert report.returncode == 0, report.stderr
    rows = {r["rule"]: r for r in json.loads(report.stdout)["rows"]}
    counts = {
        rule: tuple(rows[f"obs/{rule}"][c] for c in ("fired", "checks_run", "checks_spoke"))
        + tuple(rows[f"obs/{rule}"][c] for c in ("checks_timed_out", "checks_crashed"))
        for rule in ("fails", "hangs", "crashes")
    }
    # fired counts what a rule said, not the call that started its check
    assert counts == {
        "fails": (1, 1, 1, 0, 0),
        "hangs": (1, 1, 1, 1, 0),
        "crashes": (0, 1, 0, 0, 1),
    }
    assert rows["style/self-protect/commands"]["checks_run"] == 0
    text = p.cli("audit", "rules").stdout
    assert "CHECKS RUN" in text and "CHECKS CRASHED" in text

    out = tmp_path / "export"
    assert p.cli("audit", "export", "--out", str(out)).returncode == 0
    replayed = p.cli("replay", str(out), "--harness", GEMINI)
    assert replayed.returncode == 0, replayed.stderr
    assert "3 check(s) would have started; replay does not run checks" in replayed.stdout
    assert "3 recorded check result(s) left out: not harness events" in replayed.stdout
    doc = json.loads(p.cli("replay", str(out), "--harness", GEMINI, "--format", "json").stdout)
    assert (doc["recorded"], doc["evaluated"]) == (5, 2)
    assert (doc["check_results"], doc["checks_due"], doc["not_delivered"]) == (3, 3, 0)
    replay_rows = {r["rule"]: r for r in doc["rules"]["rows"]}
    assert [replay_rows[f"obs/{r}"]["fired"] for r in ("fails", "hangs", "crashes")] == [0, 0, 0]
    assert {e["outcome"] for e in doc["examples"]["obs/fails"]} == {"check-due"}

    result = p.fixture(GEMINI, "AfterTool.run_shell_command.json")
    result["style_check"] = {
        "rule": "obs/fails",
        "exit": 3,
        "output": f"{FAILING}\n",
        "duration_s": 0.25,
        "timed_out": False,
        "crashed": None,
    }
    (tmp_path / "result.json").write_text(json.dumps(result))
    explained = p.cli("explain", "--harness", GEMINI, "--payload", str(tmp_path / "result.json"))
    assert explained.returncode == 0, explained.stderr
    trace = explained.stdout.splitlines()
    assert trace[0].startswith("event gemini-cli AfterTool point=check.done tool=shell")
    assert (
        f'check rule="obs/fails" exit="3" duration="0.2" timed_out="false" '
        f'output_tail="{FAILING}\\n"' in trace
    )
    assert any(
        line.startswith('entry "obs/fails@check.done"') and "match=true" in line for line in trace
    )
    assert any(
        line.startswith('entry "obs/hangs@check.done"') and "match=false" in line for line in trace
    )
    assert trace[-2].startswith('wire stdout="{\\"style_check\\": ')
    trigger = tmp_path / "trigger.json"
    trigger.write_text(json.dumps(p.fixture(GEMINI, "AfterTool.run_shell_command.json")))
    before = p.cli("explain", "--harness", GEMINI, "--payload", str(trigger)).stdout
    assert (
        'entry "obs/fails@tool.post" status=native action=check match=true block=none '
        "repeat=not-evaluated output=check-due" in before.splitlines()
    )
