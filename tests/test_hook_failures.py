"""Handler failures (docs/design/runtime.md#handler-failure): bad input, unknown events, missing or
locked databases, and the internal deadline. Every answer is the documented fail-open / fail-closed
one, with one line on stderr, no traceback, at most one JSON object on stdout, and a line in
`.style/logs/errors.log`. A fail-open answer also tells the person (Claude Code's
`systemMessage`), once per session and cause: tests/test_fail_open_notice.py has the "once".
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agentstyle.limits import DEADLINE_ENV
from agentstyle.runtime import hookcall
from tests.support.environment import clean_env
from tests.support.hooks import HookResult, feed, finish, lock_held, new_session
from tests.support.packages import package_text
from tests.support.project import Project

OPEN_PKG = package_text(
    "open",
    """
- id: tips
  target: tool
  tool: shell
  at: before
  text: "Prefer rg over grep."
""",
    description="fail open",
    version="0.1.0",
)

# `fail: closed` protects the whole native event, whether or not `when` would match.
CLOSED_PKG = package_text(
    "closed",
    """
- id: guard
  target: tool
  tool: shell
  action: block
  fail: closed
  when: 'tool.input.command contains "never-typed-by-anyone"'
  text: "Guarded."
""",
    description="fail closed",
    version="0.1.0",
)

CLOSED_REASON = (
    "STYLE could not evaluate policy ({cause}); the call is refused because a rule requires it."
)
INSTALL_REASON = (
    "STYLE could not evaluate policy ({cause}); the call is refused because STYLE was "
    "installed to refuse when it cannot check (--fail-closed, or a `fail: closed` rule at "
    "this event)."
)
DEADLINE = "internal deadline passed"
LOCKED = "the rules database stayed locked past the deadline"
NO_DB = "no rules database (run `style install`)"
# What the person reads when a call ran unchecked, by the cause's first words.
WHY = {
    "no rules database": "no rules database is installed here",
    "the rules database stayed locked": "the rules database is locked by another process",
    "the rules database could not be read": "the rules database could not be read",
    "payload over": "its input is over 16 MiB",
    "malformed JSON": "the harness sent input STYLE could not read",
    "empty stdin": "the harness sent input STYLE could not read",
    "stdin is not a JSON object": "the harness sent input STYLE could not read",
    "internal deadline passed": "it ran out of time",
}


def notice(cause: str, what: str = "call") -> str:
    [why] = [text for start, text in WHY.items() if cause.startswith(start)]
    return f"STYLE could not check this {what} ({why}); it was allowed. Run `style doctor`."


def notice_json(cause: str, what: str = "call") -> str:
    return json.dumps({"systemMessage": notice(cause, what)}, separators=(",", ":")) + "\n"


def fail_open(result: HookResult, cause: str, what: str = "call") -> None:
    """Allowed, the one stderr line, and the notice in the answer Claude Code shows."""
    assert (result.stdout, result.code) == (notice_json(cause, what), 0)
    one_line_stderr(result, cause, "allowed (fail open)")


def forget_notices(project: Project) -> None:
    """A payload that names no session shares one notice per hour: start afresh."""
    shutil.rmtree(project.style / "logs" / "notified", ignore_errors=True)


def logged(project: Project, tail: str) -> bool:
    """The last errors.log line: `<time> claude-code <event> <outcome> <cause>`."""
    return log_lines(project)[-1].split(" ", 1)[1] == tail


def pre_tool_deny(reason: str) -> str:
    return (
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )
        + "\n"
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Project]:
    """The three projects of this module, installed at once."""

    def install(base: Path, package: str, *flags: str) -> Project:
        project = Project(base / "proj", base / "home")
        project.write_package(package, "pkg")
        project.install("pkg", *flags)
        return project

    specs = {
        "open": (OPEN_PKG,),
        "closed": (CLOSED_PKG,),
        "fc": (OPEN_PKG, "--fail-closed"),
    }
    # the folders first, in this thread: pytest's temporary folders are not thread-safe
    bases = {name: tmp_path_factory.mktemp(name) for name in specs}
    with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(install, bases[name], *spec) for name, spec in specs.items()}
        return {name: f.result() for name, f in futures.items()}


@pytest.fixture(scope="module")
def open_project(installed: dict[str, Project]) -> Project:
    return installed["open"]


@pytest.fixture(scope="module")
def closed_project(installed: dict[str, Project]) -> Project:
    return installed["closed"]


@pytest.fixture(scope="module")
def fc_project(installed: dict[str, Project]) -> Project:
    """Installed with `style install --fail-closed`."""
    return installed["fc"]


@contextlib.contextmanager
def database_replaced(
    project: Project, content: bytes | None, *, lock_too: bool = False
) -> Iterator[None]:
    """The project's database gone (None) or replaced by `content`, restored afterwards.

    `lock_too`: `style.lock.yaml` gone as well, so the hook cannot build the database again.
    """
    saved = project.database.read_bytes()
    lock = project.root / "style.lock.yaml"
    saved_lock = lock.read_bytes()
    wal = project.database.with_name(project.database.name + ".wal")
    assert not wal.exists()
    try:
        if lock_too:
            lock.unlink()
        if content is None:
            project.database.unlink()
        else:
            project.database.write_bytes(content)
        yield
    finally:
        project.database.write_bytes(saved)
        lock.write_bytes(saved_lock)


def log_lines(project: Project) -> list[str]:
    if not project.error_log.exists():
        return []
    return project.error_log.read_text("utf-8").splitlines()


def one_line_stderr(result: HookResult, cause: str, tail: str) -> None:
    assert result.stderr == f"STYLE: {cause}; {tail}\n"


def bash(project: Project, command: str = "ls") -> dict[str, object]:
    return project.payload(
        "PreToolUse.bash-rm-rf.json",
        session_id=new_session(),
        tool_input={"command": command},
    )


BAD_INPUTS: dict[str, tuple[bytes, str]] = {
    "garbage": (b"this is not json {", "malformed JSON on stdin (Expecting value at line 1)"),
    "empty": (b"", "empty stdin"),
    "blank": (b" \n\t\n", "empty stdin"),
    "invalid-utf8": (b"\xff\xfe\x80{\xc3(", "malformed JSON on stdin (Expecting value at line 1)"),
    "array": (b"[1, 2, 3]", "stdin is not a JSON object"),
    "truncated": (b'{"session_id": "s", "tool_name": "Ba', "malformed JSON on stdin"),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "malformed JSON on stdin"),
    # 20 MB: over the 16 MiB read limit
    "20MB": (
        json.dumps({"tool_name": "Bash", "tool_input": {"command": "x" * (20 << 20)}}).encode(),
        "payload over 16 MiB",
    ),
}
KINDS = ("open", "closed")


@pytest.fixture(scope="module")
def bad_answers(
    open_project: Project, closed_project: Project
) -> dict[tuple[str, str], HookResult]:
    """Every bad input on PreToolUse in both projects, all hooks started at once."""
    projects = {"open": open_project, "closed": closed_project}
    before = {kind: len(log_lines(p)) for kind, p in projects.items()}
    started = {
        (kind, name): projects[kind].start_hook("PreToolUse", data)
        for kind in KINDS
        for name, (data, _) in BAD_INPUTS.items()
    }
    # Every payload goes in now: a hook's deadline runs from its start, reading stdin included.
    for proc, data in started.values():
        feed(proc, data)
    answers = {key: finish(proc, b"") for key, (proc, _) in started.items()}
    for kind, project in projects.items():  # one errors.log line per failed call
        assert len(log_lines(project)) == before[kind] + len(BAD_INPUTS)
    return answers


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input(
    bad_answers: dict[tuple[str, str], HookResult],
    open_project: Project,
    closed_project: Project,
    kind: str,
    name: str,
) -> None:
    """Fail open, or deny with the documented reason where a `fail: closed` rule covers the
    native event (CLOSED_PKG's guard is a PreToolUse rule whose `when` never matches)."""
    result = bad_answers[(kind, name)]
    expect = BAD_INPUTS[name][1]
    cause = result.stderr.removeprefix("STYLE: ").split("; ")[0]
    assert cause.startswith(expect), result.stderr
    if kind == "closed":
        assert result.stdout == pre_tool_deny(CLOSED_REASON.format(cause=cause))
        one_line_stderr(result, cause, "refused (fail: closed)")
        outcome = "refused"
    else:
        # all started at once: of the inputs naming no session, one per cause gets the notice
        assert result.stdout in ("", notice_json(cause))
        one_line_stderr(result, cause, "allowed (fail open)")
        outcome = "fail-open"
    assert result.code == 0
    project = closed_project if kind == "closed" else open_project
    pattern = re.compile(rf"\S+Z claude-code PreToolUse {outcome} " + re.escape(cause))
    assert any(pattern.fullmatch(line) for line in log_lines(project))


def test_bad_inputs_notice_once_per_cause(bad_answers: dict[tuple[str, str], HookResult]) -> None:
    """The open project's bad inputs, all at once: the unreadable ones name no session and
    share one notice (an hour's), the truncated one names session `s`, the oversized one is
    a cause of its own."""
    noticed = sorted(name for (kind, name), r in bad_answers.items() if kind == "open" and r.stdout)
    unreadable = [n for n in noticed if n not in ("truncated", "20MB")]
    assert len(unreadable) == 1, noticed
    assert "truncated" in noticed and "20MB" in noticed


def test_failures_are_recorded_in_the_events_table(
    closed_project: Project, bad_answers: dict[tuple[str, str], HookResult]
) -> None:
    closed_project.hook("PreToolUse", b"nope")
    rows = closed_project.query(
        "SELECT native_event, verdict, error FROM events WHERE error IS NOT NULL "
        "ORDER BY event_id DESC LIMIT 1"
    )
    assert rows == [("PreToolUse", "block", "malformed JSON on stdin (Expecting value at line 1)")]
    assert closed_project.scalar("SELECT count(*) FROM events WHERE error LIKE 'payload over%'")


def test_fail_closed_covers_only_its_native_event(closed_project: Project) -> None:
    """The guard is a PreToolUse rule: a broken UserPromptSubmit still fails open."""
    forget_notices(closed_project)
    result = closed_project.hook("UserPromptSubmit", b"{{{")
    cause = "malformed JSON on stdin (Expecting property name enclosed in double quotes at line 1)"
    fail_open(result, cause, "prompt")


def test_invalid_utf8_inside_a_valid_payload_is_replaced(open_project: Project) -> None:
    """Invalid bytes are replaced (docs/design/runtime.md#decode); the event is evaluated
    normally."""
    payload = json.dumps(bash(open_project, "ls INVALID")).encode()
    payload = payload.replace(b"INVALID", b"\xff\xfe\xc3(")
    result = open_project.hook("PreToolUse", payload)
    assert result.stderr == ""
    assert result.context == "Prefer rg over grep."
    value = open_project.scalar(
        "SELECT value FROM event_fields WHERE field = 'tool.input.command' "
        "ORDER BY event_id DESC LIMIT 1"
    )
    assert value == "ls \ufffd\ufffd\ufffd("


def test_lone_surrogates_in_json_strings(open_project: Project) -> None:
    payload = json.dumps(bash(open_project, "ls \ud800 end"))
    assert "\\ud800" in payload
    result = open_project.hook("PreToolUse", payload)
    assert result.stderr == ""
    assert result.context == "Prefer rg over grep."


def test_unknown_event(open_project: Project, closed_project: Project) -> None:
    for project in (open_project, closed_project):
        result = project.hook("PreToolUseX", bash(project))
        assert (result.stdout, result.code) == ("", 0)
        # no answer field is known for an unknown event: the notice goes to stderr
        assert result.stderr == (
            "STYLE: unknown event `PreToolUseX`; allowed (fail open)\n"
            "STYLE could not check this event (the hook is installed for an event STYLE does "
            "not know); its rules did not run. Run `style doctor`.\n"
        )
        assert logged(project, "claude-code PreToolUseX fail-open unknown event `PreToolUseX`")


def test_unknown_harness(open_project: Project) -> None:
    argv = open_project.hook_argv("PreToolUse")
    argv[argv.index("claude-code")] = "nonesuch"
    out = subprocess.run(
        argv,
        input=json.dumps(bash(open_project)).encode(),
        capture_output=True,
        cwd=open_project.root,
        env=clean_env(open_project.home),
        timeout=60,
    )
    assert out.stdout == b""
    assert out.returncode == 0
    assert out.stderr == b"STYLE: unknown harness `nonesuch`; allowed (fail open)\n"


def test_missing_database(closed_project: Project) -> None:
    # no database and no lock to build one from: no rule can be read, so `fail: closed`
    # cannot apply (docs/design/runtime.md#fail-modes); the hook command's own flag is what refuses
    # then
    with database_replaced(closed_project, None, lock_too=True):
        result = closed_project.hook("PreToolUse", bash(closed_project))
    fail_open(result, NO_DB)
    assert logged(closed_project, f"claude-code PreToolUse fail-open {NO_DB}")


def test_a_deleted_database_is_built_again_from_the_lock(closed_project: Project) -> None:
    with database_replaced(closed_project, None):
        result = closed_project.hook("PreToolUse", bash(closed_project))
        assert closed_project.database.is_file()
    assert result.code == 0
    assert "built this machine's rules database from style.lock.yaml" in result.stderr
    assert "fail open" not in result.stderr


def test_fail_closed_install(fc_project: Project) -> None:
    project = fc_project
    before = len(log_lines(project))
    command = project.installed_command("PreToolUse")
    assert "--event PreToolUse --fail-closed; " in command
    extra = ("--fail-closed",)

    # with the database: a working hook answers normally
    ok = project.hook("PreToolUse", bash(project), extra=extra)
    assert ok.context == "Prefer rg over grep."
    # a handler error on a gate event is refused, exit 1 (docs/design/runtime.md#fail-modes)
    bad = project.hook("PreToolUse", b"garbage", extra=extra)
    cause = "malformed JSON on stdin (Expecting value at line 1)"
    assert bad.stdout == pre_tool_deny(INSTALL_REASON.format(cause=cause))
    assert bad.code == 1
    one_line_stderr(bad, cause, "refused (--fail-closed)")
    # recorded as the refusal it was, so `style audit errors` does not count it as failing open
    assert project.query(
        "SELECT verdict FROM events WHERE error IS NOT NULL ORDER BY event_id DESC LIMIT 1"
    ) == [("block",)]

    # no database (and no lock to build one from): deny and exit 1
    with database_replaced(project, None, lock_too=True):
        result = project.hook("PreToolUse", bash(project), extra=extra)
        prompt = project.hook(
            "UserPromptSubmit", project.payload("UserPromptSubmit.json"), extra=extra
        )
        # events that cannot refuse still fail open
        start = project.hook(
            "SessionStart",
            project.payload("SessionStart.startup.json", session_id=new_session()),
            extra=extra,
        )
    assert result.stdout == pre_tool_deny(INSTALL_REASON.format(cause=NO_DB))
    assert result.code == 1
    one_line_stderr(result, NO_DB, "refused (--fail-closed)")
    assert prompt.json == {
        "decision": "block",
        "reason": INSTALL_REASON.format(cause=NO_DB),
    }
    assert prompt.code == 1
    assert (start.json, start.code) == (
        {
            "systemMessage": "STYLE could not check this event (no rules database is installed "
            "here); its rules did not run. Run `style doctor`."
        },
        0,
    )
    one_line_stderr(start, NO_DB, "allowed (fail open)")
    assert [line.split(" ", 3)[2:] for line in log_lines(project)[before:]] == [
        ["PreToolUse", f"refused {cause}"],
        ["PreToolUse", f"refused {NO_DB}"],
        ["UserPromptSubmit", f"refused {NO_DB}"],
        ["SessionStart", f"fail-open {NO_DB}"],
    ]


def test_no_style_folder_at_all_is_nothing_to_do(make_project: Callable[[str], Project]) -> None:
    """No `.style/`, no `style.lock.yaml` anywhere and no policy of the user's own: the hook
    has nothing to do and answers nothing, at once (hook.py `nothing_to_do`)."""
    project = make_project("bare")
    result = project.hook("PreToolUse", bash(project))
    assert (result.stdout, result.stderr, result.code) == ("", "", 0)
    assert not (Path(project.home) / ".style").exists()


def test_no_style_folder_with_fail_closed_logs_in_the_user_home(
    make_project: Callable[[str], Project],
) -> None:
    """A handler installed `--fail-closed` with no database in sight refuses, and the line goes
    to the user's own errors.log."""
    project = make_project("bare")
    result = project.hook("PreToolUse", bash(project), extra=("--fail-closed",))
    assert result.code == 1 and result.stdout == pre_tool_deny(INSTALL_REASON.format(cause=NO_DB))
    one_line_stderr(result, NO_DB, "refused (--fail-closed)")
    log = Path(project.home) / ".style" / "logs" / "errors.log"
    assert log.read_text("utf-8").endswith(f"claude-code PreToolUse refused {NO_DB}\n")


def test_corrupt_database(closed_project: Project) -> None:
    with database_replaced(closed_project, b"not a duckdb file" * 1000):
        result = closed_project.hook("PreToolUse", bash(closed_project))
    fail_open(result, "the rules database could not be read (IOException)")
    assert "duckdb" not in result.stderr.lower()


# --- locks and the internal deadline -----------------------------------------------------------


def test_duckdb_lock_never_leaks(closed_project: Project) -> None:
    """Another program holds DuckDB's own file lock (not STYLE's): the hook waits until its
    deadline, then answers without DuckDB's message."""
    import duckdb

    conn = duckdb.connect(str(closed_project.database))
    try:
        result = closed_project.hook(
            "PreToolUse", bash(closed_project), env={"STYLE_DEADLINE_S": "0.5"}
        )
    finally:
        conn.close()
    # the database could not be read, so no rule is known: fail open
    # (docs/design/runtime.md#fail-modes)
    fail_open(result, LOCKED)
    for leak in ("Conflicting lock", "IO Error", "duckdb", "PID"):
        assert leak not in result.stderr + result.stdout
    assert logged(closed_project, f"claude-code PreToolUse fail-open {LOCKED}")


class hold_lock:
    """The project's lock held by a process that looks like STYLE (a slow install): hooks wait
    for it until their deadline."""

    def __init__(self, project: Project, *, as_style: bool = True) -> None:
        self._held = lock_held(project.style / "style.lock", as_style=as_style)
        self.pid = self._held.__enter__()


def release(held: hold_lock) -> None:
    held._held.__exit__(None, None, None)


def test_deadline_while_locked_fails_open(open_project: Project) -> None:
    fd = hold_lock(open_project)
    try:
        t0 = time.monotonic()
        result = open_project.hook(
            "PreToolUse", bash(open_project), env={"STYLE_DEADLINE_S": "0.3"}
        )
        elapsed = time.monotonic() - t0
    finally:
        release(fd)
    fail_open(result, LOCKED)
    # generous (a hook's start alone takes seconds on a busy machine): far below the 55 s
    # deadline it would wait out if the 0.3 s one were not honoured
    assert elapsed < 30


LOCKED_WAIT_S = 5.0


def test_deadline_while_locked_refuses_for_fail_closed(closed_project: Project) -> None:
    """The hook cannot finish in time (the lock is held past its deadline); the lock comes free
    while it records the failure, so it reads the `fail: closed` rule and refuses."""
    fd = hold_lock(closed_project)
    try:
        # A deadline of 5 s, and 1 s from giving up to record the failure
        # (hookcall.grace_seconds). The deadline is long so that the hook is still in its first
        # wait when it is stopped below, however long a loaded machine takes to start it and
        # to see it waiting: stopped after that first wait, the stop would eat the grace.
        proc, data = closed_project.start_hook(
            "PreToolUse", bash(closed_project), env={"STYLE_DEADLINE_S": str(LOCKED_WAIT_S)}
        )
        feed(proc, data)
        # Once the hook waits for the lock (its deadline clock runs), stop it past the
        # deadline (which is less than LOCKED_WAIT_S after it was seen waiting); resumed, it
        # finds the lock still held, gives up, and waits again to record the failure: then the
        # lock comes free.
        lock = (closed_project.style / "style.lock").resolve()
        give_up = time.monotonic() + 30
        while not opened_by(proc.pid, lock):
            assert time.monotonic() < give_up and proc.poll() is None
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGSTOP)
        time.sleep(LOCKED_WAIT_S + 0.2)
        os.kill(proc.pid, signal.SIGCONT)
        time.sleep(0.3)
    finally:
        release(fd)
    result = finish(proc, b"")
    # (a hook slowed down past the lock's release finds it free, then its deadline passed)
    cause = result.stderr.removeprefix("STYLE: ").split("; ")[0]
    assert cause in (LOCKED, DEADLINE), result.stderr
    assert result.stdout == pre_tool_deny(CLOSED_REASON.format(cause=cause))
    assert result.code == 0
    one_line_stderr(result, cause, "refused (fail: closed)")


def opened_by(pid: int, path: Path) -> bool:
    """Whether process `pid` has `path` open (Linux /proc)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                return True
    return False


def test_deadline_while_locked_with_fail_closed_install(fc_project: Project) -> None:
    fd = hold_lock(fc_project)
    try:
        result = fc_project.hook(
            "PreToolUse",
            bash(fc_project),
            env={"STYLE_DEADLINE_S": "0.3"},
            extra=("--fail-closed",),
        )
    finally:
        release(fd)
    assert result.stdout == pre_tool_deny(INSTALL_REASON.format(cause=LOCKED))
    assert result.code == 1
    one_line_stderr(result, LOCKED, "refused (--fail-closed)")


def test_deadline_during_evaluation(open_project: Project, closed_project: Project) -> None:
    """A deadline that passes before the event is committed: nothing of the event is kept, the
    failure is recorded, and the answer follows `fail`."""
    env = {"STYLE_DEADLINE_S": "0"}
    session = new_session()
    payload = bash(closed_project)
    payload["session_id"] = session
    result = closed_project.hook("PreToolUse", payload, env=env)
    assert result.stdout == pre_tool_deny(CLOSED_REASON.format(cause=DEADLINE))
    one_line_stderr(result, DEADLINE, "refused (fail: closed)")
    rows = closed_project.query("SELECT verdict, error FROM events WHERE session_id = ?", [session])
    assert rows == [("block", DEADLINE)]
    assert (
        closed_project.scalar("SELECT count(*) FROM sessions WHERE session_id = ?", [session]) == 0
    )  # the evaluation's own writes were rolled back

    result = open_project.hook("PreToolUse", bash(open_project), env=env)
    fail_open(result, DEADLINE)


def test_deadline_defaults() -> None:
    """90% of the harness's timeout for the event, at most 1.5 s: the 2 s budget's deadline
    (docs/design/runtime.md#internal-deadline)."""
    saved = os.environ.pop(DEADLINE_ENV, None)
    try:
        assert hookcall.deadline_seconds(600.0) == 1.5
        assert hookcall.deadline_seconds(4.0) == 1.5
        assert hookcall.deadline_seconds(1.0) == pytest.approx(0.9)
        os.environ[DEADLINE_ENV] = "0.25"
        assert hookcall.deadline_seconds(600.0) == 0.25
        os.environ[DEADLINE_ENV] = "soon"
        assert hookcall.deadline_seconds(30.0) == 1.5
    finally:
        os.environ.pop(DEADLINE_ENV, None)
        if saved is not None:
            os.environ[DEADLINE_ENV] = saved


def test_a_stranger_holding_the_lock_is_not_waited_for(
    open_project: Project, fc_project: Project
) -> None:
    """`flock .style/style.lock sleep 300`: the hook does not wait out its deadline (55 s
    here) for a program that is not STYLE; it answers at once, per `fail`, naming it."""
    with lock_held(open_project.style / "style.lock", as_style=False) as pid:
        t0 = time.monotonic()
        opened = open_project.hook("PreToolUse", bash(open_project), env={"STYLE_DEADLINE_S": "55"})
        open_elapsed = time.monotonic() - t0
    with lock_held(fc_project.style / "style.lock", as_style=False) as pid2:
        refused = fc_project.hook(
            "PreToolUse",
            bash(fc_project),
            env={"STYLE_DEADLINE_S": "55"},
            extra=("--fail-closed",),
        )
    cause = f"the rules database lock is held by another program (pid {pid}: python3)"
    assert opened.stderr.startswith(f"STYLE: {cause}; allowed (fail open)")
    assert "could not check this call" in str(opened.json["systemMessage"])
    assert open_elapsed < 30  # generous: far below the 55 s deadline it used to wait out
    cause2 = f"the rules database lock is held by another program (pid {pid2}: python3)"
    assert refused.stdout == pre_tool_deny(INSTALL_REASON.format(cause=cause2))


def test_an_oversized_payload_is_read_to_its_end(open_project: Project) -> None:
    """A harness writing a payload far over the read limit finishes writing (no broken pipe,
    which it could report as the hook failing) and gets the hook's one answer."""
    forget_notices(open_project)  # the notice is told once per cause: earlier tests told it
    data = json.dumps({"tool_name": "Bash", "tool_input": {"command": "x" * (40 << 20)}}).encode()
    proc, _ = open_project.start_hook("PreToolUse", b"")
    assert proc.stdin is not None and proc.stdout is not None
    broken: list[BaseException] = []

    def write() -> None:
        assert proc.stdin is not None
        try:
            for at in range(0, len(data), 1 << 20):
                proc.stdin.write(data[at : at + (1 << 20)])
            proc.stdin.close()
        except BrokenPipeError as exc:
            broken.append(exc)

    writer = threading.Thread(target=write)
    writer.start()
    out = proc.stdout.read()  # the writer owns stdin: no communicate(), which would close it
    writer.join(timeout=60)
    assert proc.wait(timeout=60) == 0
    assert broken == []
    [line] = out.decode().splitlines()
    assert "could not check this call" in json.loads(line)["systemMessage"]  # fails open
    assert open_project.scalar("SELECT count(*) FROM events WHERE error LIKE 'payload over%'")
