"""A guard that cannot decide never allows silently (docs/design/runtime.md#handler-failure): each
cause of a fail-open answer, made for real, shows the person a notice in the field the harness shows
(`systemMessage`; Cursor's `user_message`), naming the cause and `style doctor`; a second event
of the same session with the same cause has none; another session, or another cause, is told
again. stdout stays one JSON object. `style doctor` then lists the week's fail-open answers.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from agentstyle.harnesses import adapter_for, codex
from agentstyle.harnesses.facts import SUPPORTED, spec_for
from agentstyle.limits import DEADLINE_ENV
from agentstyle.runtime import notified
from tests.support.harness import HarnessProject
from tests.support.hooks import HookResult, new_session
from tests.support.packages import package_text

OPEN = package_text(
    "tips",
    """
- id: careful
  target: tool
  tool: shell
  action: warn
  when: 'tool.input.command contains "rm "'
  text: Careful with rm.
""",
    description="one warning on shell calls, nothing that refuses",
    version="0.1.0",
)
# The gate event of each harness and its shell-call fixture: every harness has one (a harness
# added to SUPPORTED fails here until its fixture is named).
SHELL_FIXTURE = {
    "claude-code": "PreToolUse.bash-rm-rf.json",
    "codex": "PreToolUse.bash-rm-rf.json",
    "cursor": "beforeShellExecution.rm-rf.json",
    "gemini-cli": "BeforeTool.run_shell_command-rm-rf.json",
    "copilot-cli": "PreToolUse.bash-rm-rf.json",
    "qwen-code": "PreToolUse.run_shell_command-rm-rf.json",
    "opencode": "tool.execute.before.bash-rm-rf.json",
}


def _gate(harness: str) -> tuple[str, str]:
    route = spec_for(harness).route_of("tool.pre", "shell")
    assert route is not None
    return route.native_event, SHELL_FIXTURE[harness]


GATES = {harness: _gate(harness) for harness in SUPPORTED}
SESSION_KEY = {"cursor": "conversation_id"}
# What the notice says in its parentheses, per cause.
WHY = {
    "no-database": "no rules database is installed here",
    "corrupt": "the rules database could not be read",
    "locked": "the rules database is locked by another process",
    "deadline": "it ran out of time",
    "payload": "the harness sent input STYLE could not read",
    "oversized": "its input is over 16 MiB",
    "internal": "an internal error: OSError: [Errno 40] Too many levels of symbolic links:",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> HarnessProject:
    base = tmp_path_factory.mktemp("notice")
    p = HarnessProject(base / "proj", base / "home")
    p.write_package(OPEN, "tips")
    for harness in GATES:
        proc = p.cli("install", "tips", "--harness", harness)
        assert proc.returncode == 0, proc.stderr
    return p


def payload(p: HarnessProject, harness: str, session: str) -> dict[str, Any]:
    key = SESSION_KEY.get(harness, "session_id")
    data = p.fixture(harness, GATES[harness][1])
    data.pop(key, None)
    return {key: session, **data}  # the session first: the head of a huge payload names it


def shown(harness: str, result: HookResult) -> str | None:
    """The text the harness shows the person from this answer (one JSON object); where its
    gate's answer has no field for it (Copilot CLI's), the notice's line on stderr."""
    adapter = adapter_for(harness)
    if GATES[harness][0] not in adapter.notice_events:
        lines = [ln for ln in result.stderr.splitlines() if ln.startswith("STYLE could not")]
        return lines[0] if lines else None
    result.check_clean()
    field = "user_message" if harness == "cursor" else "systemMessage"
    value = (result.json or {}).get(field)
    return value if isinstance(value, str) else None


def expected(cause: str) -> str:
    return f"STYLE could not check this call ({WHY[cause]}"


def tail(cause: str) -> str:
    return "); it was allowed. Run `style doctor`."


# -- the broken states, each made for real and undone -------------------------------------------


@contextlib.contextmanager
def no_database(p: HarnessProject) -> Iterator[dict[str, str]]:
    """No database, and no `style.lock.yaml` a first hook could build it from."""
    saved = p.database.read_bytes()
    lock = p.root / "style.lock.yaml"
    aside = lock.with_name("style.lock.yaml.aside")
    p.database.unlink()
    lock.rename(aside)
    try:
        yield {}
    finally:
        p.database.write_bytes(saved)
        aside.rename(lock)


@contextlib.contextmanager
def corrupt(p: HarnessProject) -> Iterator[dict[str, str]]:
    saved = p.database.read_bytes()
    p.database.write_bytes(b"not a duckdb file\n" * 1000)
    try:
        yield {}
    finally:
        p.database.write_bytes(saved)


@contextlib.contextmanager
def locked(p: HarnessProject) -> Iterator[dict[str, str]]:
    fd = os.open(p.style / "style.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield {"STYLE_DEADLINE_S": "0.3"}
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


@contextlib.contextmanager
def deadline(p: HarnessProject) -> Iterator[dict[str, str]]:
    yield {"STYLE_DEADLINE_S": "0"}


@contextlib.contextmanager
def lock_is_a_loop(p: HarnessProject) -> Iterator[dict[str, str]]:
    """Anything that raises inside STYLE: here opening its lock file fails (a link to itself;
    a folder or a FIFO there is refused as an unreadable database before it is opened)."""
    lock = p.style / "style.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(lock)
    try:
        yield {}
    finally:
        lock.unlink()


@contextlib.contextmanager
def nothing(p: HarnessProject) -> Iterator[dict[str, str]]:
    yield {}


def truncated(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()[:-20]


def oversized(data: dict[str, Any]) -> bytes:
    return json.dumps({**data, "padding": "x" * (17 << 20)}).encode()


def whole(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


State = Callable[[HarnessProject], contextlib.AbstractContextManager[dict[str, str]]]
CAUSES: dict[str, tuple[State, Callable[[dict[str, Any]], bytes]]] = {
    "no-database": (no_database, whole),
    "corrupt": (corrupt, whole),
    "locked": (locked, whole),
    "deadline": (deadline, whole),
    "payload": (nothing, truncated),
    "oversized": (nothing, oversized),
    "internal": (lock_is_a_loop, whole),
}


def run_cause(p: HarnessProject, cause: str) -> dict[str, list[HookResult]]:
    """Per harness: the first event of a session, the second of the same session, the first
    of another session, all with the cause."""
    state, body = CAUSES[cause]

    def calls(harness: str, env: dict[str, str]) -> list[HookResult]:
        event = GATES[harness][0]
        one, two = new_session(), new_session()
        return [
            p.hook_as(harness, event, body(payload(p, harness, s)), env=env, check=False)
            for s in (one, one, two)
        ]

    with state(p) as given:
        # Seven harnesses' hooks at once on a busy machine can wait on one another's lock past
        # the 2 s budget, which would tell `locked` instead of the cause under test: a generous
        # deadline where the state sets none (the locked and deadline causes set their own).
        env = {DEADLINE_ENV: "10", **given}
        if cause == "deadline":  # a deadline of 0 must not meet another hook holding the lock
            return {h: calls(h, env) for h in GATES}
        with ThreadPoolExecutor(max_workers=len(GATES)) as pool:
            futures = {h: pool.submit(calls, h, env) for h in GATES}
            return {h: f.result() for h, f in futures.items()}


class Answers(dict[str, dict[str, list[HookResult]]]):
    """Each cause's answers, run when a test first asks for them: a worker of `make test` that
    runs only some of the tests below runs only their causes (each is seconds of hooks)."""

    def __init__(self, project: HarnessProject) -> None:
        super().__init__()
        self.project = project

    def __missing__(self, cause: str) -> dict[str, list[HookResult]]:
        self[cause] = found = run_cause(self.project, cause)
        return found


@pytest.fixture(scope="module")
def answers(project: HarnessProject) -> Answers:
    return Answers(project)


@pytest.mark.parametrize("harness", SUPPORTED)
@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_told_once_per_session_and_cause(
    answers: dict[str, dict[str, list[HookResult]]], cause: str, harness: str
) -> None:
    first, again, other = answers[cause][harness]
    for result in (first, again, other):
        assert result.code == 0, result.stderr
        assert "allowed (fail open)" in result.stderr  # the stderr line stays
    told = shown(harness, first)
    assert told is not None, (first.stdout, first.stderr)
    assert told.startswith(expected(cause)) and told.endswith(tail(cause)), told
    assert shown(harness, again) is None, again.stdout
    assert shown(harness, other) == told  # another session is told again
    # the rest of the answer is the harness's own "no opinion"
    no_opinion = adapter_for(harness).no_opinion(GATES[harness][0]).stdout
    assert again.stdout.strip() == no_opinion


def test_another_cause_in_the_same_session_is_told(project: HarnessProject) -> None:
    session = new_session()
    data = whole(payload(project, "claude-code", session))
    with locked(project) as env:
        first = project.hook_as("claude-code", "PreToolUse", data, env=env)
    second = project.hook_as("claude-code", "PreToolUse", data, env={"STYLE_DEADLINE_S": "0"})
    assert (shown("claude-code", first) or "").startswith(expected("locked"))
    assert (shown("claude-code", second) or "").startswith(expected("deadline"))


def test_session_start_tells_and_the_tool_call_after_it_is_quiet(project: HarnessProject) -> None:
    """The first event of a session carries the notice, whichever it is."""
    session = new_session()
    start = project.fixture("claude-code", "SessionStart.startup.json", session_id=session)
    with no_database(project):
        began = project.hook_as("claude-code", "SessionStart", start)
        call = project.hook_as(
            "claude-code", "PreToolUse", payload(project, "claude-code", session)
        )
    assert shown("claude-code", began) == (
        "STYLE could not check this event (no rules database is installed here); its rules did "
        "not run. Run `style doctor`."
    )
    assert (call.stdout, call.code) == ("", 0)


def test_a_warning_and_the_notice_share_one_system_message() -> None:
    """A handler error after the warn rule matched cannot happen on one event, but the merge
    the notice uses is the adapters' own: a warn answer gets the notice after its text."""
    from agentstyle.evaluator.decision import Decision

    for harness in SUPPORTED:
        adapter = adapter_for(harness)
        event = GATES[harness][0]
        wire = adapter.answer(Decision(messages=["Careful with rm."]), event)
        merged = adapter.with_notice(wire, event, "STYLE could not check.")
        if event not in adapter.notice_events:  # no field for the person: stderr, the answer kept
            assert merged.stdout == wire.stdout, harness
            assert merged.stderr.endswith("STYLE could not check.\n"), harness
            assert adapter.wire_problem(event, merged.stdout, merged.exit_code) is None, harness
            continue
        # where the gate's answer shows the warning (not Cursor's beforeShellExecution, nor
        # Qwen Code's PreToolUse, which answers nothing), the notice follows it in the same field
        warned = json.loads(wire.stdout or "{}").get(adapter.notice_field)
        assert warned in (None, "Careful with rm."), harness
        assert (
            json.loads(merged.stdout)[adapter.notice_field]
            == ("Careful with rm.\n\n" if warned else "") + "STYLE could not check."
        ), harness
        assert merged.stdout.count("\n") == 0
        assert adapter.wire_problem(event, merged.stdout, 0) is None, harness


def test_codex_never_gets_a_key_its_schema_rejects() -> None:
    """Codex fails a hook over any key an event does not accept: the notice goes where the
    schema has `systemMessage`, and to stderr elsewhere."""
    adapter = codex.ADAPTER
    for event in (*codex.ALLOWED_KEYS, "Interrupt"):
        wire = adapter.with_notice(adapter.no_opinion(event), event, "STYLE could not check.")
        assert adapter.wire_problem(event, wire.stdout, 0) is None, event
        assert ("STYLE could not check." in wire.stdout) == (event in codex.NOTICE_EVENTS)
        assert ("STYLE could not check." in wire.stderr) != (event in codex.NOTICE_EVENTS)


def test_input_naming_no_session_is_told_once_an_hour(project: HarnessProject) -> None:
    shutil.rmtree(project.style / "logs" / "notified", ignore_errors=True)
    results = [project.hook_as("gemini-cli", "BeforeTool", b"garbage") for _ in range(2)]
    assert (shown("gemini-cli", results[0]) or "").startswith(expected("payload"))
    assert results[1].json == {}
    # the next hour is another "session"
    assert notified.marker_name(None, "k", 0.0) != notified.marker_name(None, "k", 3600.0)
    assert notified.marker_name(None, "k", 10.0) == notified.marker_name(None, "k", 3599.0)


def test_markers_are_pruned(tmp_path: Path) -> None:
    folder = tmp_path / "logs" / "notified"
    assert notified.first_time(tmp_path, "s", "k")
    assert not notified.first_time(tmp_path, "s", "k")
    old = folder / notified.marker_name("s", "k")
    week_ago = time.time() - notified.KEEP_S - 60
    os.utime(old, (week_ago, week_ago))
    for i in range(notified.MAX_MARKERS + 5):
        (folder / f"m{i:05d}").touch()
    assert notified.first_time(tmp_path, "s2", "k")  # a new marker prunes
    names = {p.name for p in folder.iterdir()}
    assert old.name not in names
    assert len(names) == notified.MAX_MARKERS
    assert notified.marker_name("s2", "k") in names


# -- style doctor ---------------------------------------------------------------------------------

CLOSED_PROMPT = package_text(
    "mixed",
    """
- id: prompt-guard
  target: event
  event: prompt.submitted
  action: block
  fail: closed
  when: 'prompt contains "never-typed-by-anyone"'
  text: Guarded.
- id: tip
  target: tool
  tool: shell
  at: before
  text: Prefer rg.
""",
    description="a prompt gate that must hold, a shell tip that may fail open",
    version="0.1.0",
)


def test_doctor_lists_the_weeks_fail_open_answers_per_cause(tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    p.write_package(CLOSED_PROMPT, "mixed")
    assert p.cli("install", "mixed", "--harness", "claude-code").returncode == 0
    for _ in range(2):
        p.hook_as("claude-code", "PreToolUse", b"garbage")
    p.hook_as(
        "claude-code", "PreToolUse", payload(p, "claude-code", "s"), env={"STYLE_DEADLINE_S": "0"}
    )
    refused = p.hook_as("claude-code", "UserPromptSubmit", b"garbage")
    assert "refused (fail: closed)" in refused.stderr
    with p.error_log.open("a", encoding="utf-8") as log:
        # a line from before outcomes were logged, and one older than the week
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
        log.write(f"{stamp} codex PreToolUse no rules database (run `style install`)\n")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 8 * 86400))
        log.write(f"{stamp} codex PreToolUse fail-open internal deadline passed\n")
    proc = p.cli("doctor", "--no-fire")
    assert proc.returncode == 0, proc.stdout
    lines = [line for line in proc.stdout.splitlines() if "in the last 7 days" in line]
    assert len(lines) == 3, proc.stdout
    assert lines[0].startswith(
        "warning: 2 call(s) allowed unchecked in the last 7 days: input that could not be read "
        "(last "
    )
    assert lines[0].endswith(
        "claude-code PreToolUse: malformed JSON on stdin (Expecting value at line 1)); see "
        ".style/logs/errors.log"
    )
    assert lines[1].startswith(
        "warning: 1 call(s) allowed unchecked in the last 7 days: the internal deadline passed"
    )
    assert lines[2].startswith(
        "warning: 1 handler error(s), outcome not logged, in the last 7 days: no rules database"
    )
