"""Never hold the agent (docs/design/runtime.md#hook-budget): a hook answers within its 2 s budget
whatever fails, as an attacker or a broken machine would make it fail.

Every hook that must give a fail answer here runs with the real default budget (no
STYLE_DEADLINE_S, which the other hook tests raise for a loaded machine: support.environment
`clean_env`); those whose answer is an evaluation keep that room, and what they assert is the
time (a hook that waited for what never comes would take the 20 s). What is asserted per
failure: the answer came within BOUND_S measured around the subprocess, it is the fail mode's
answer (open: allowed with a notice; closed: refused), exactly one line on stderr naming the
cause, exactly one new line in errors.log.

BOUND_S is the 2 s budget plus 1.5 s for the interpreter's own start on a loaded machine (the
suite runs on every core beside other work): the budget runs from the hook's first line, the
bound from `Popen`. The hook's own figure without load is in bench/hook_bench.py.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentstyle.limits import BUDGET_S, DEADLINE_ENV
from agentstyle.runtime import client
from tests.support.engine import installed
from tests.support.environment import ENGINE_ON, clean_env
from tests.support.hooks import lock_held, new_session
from tests.support.packages import NO_RM_RF, package_text
from tests.support.project import Project

BOUND_S = BUDGET_S + 1.5
PACKAGE = package_text("budget", NO_RM_RF, description="budget tests")
NOTICE = "STYLE could not check this call ({why}); it was allowed. Run `style doctor`."
INSTALL_REASON = (
    "STYLE could not evaluate policy ({cause}); the call is refused because STYLE was "
    "installed to refuse when it cannot check (--fail-closed, or a `fail: closed` rule at "
    "this event)."
)


@dataclass
class Run:
    stdout: str
    stderr: str
    code: int
    elapsed: float
    new_log: list[str]

    @property
    def json(self) -> dict[str, object] | None:
        return json.loads(self.stdout) if self.stdout.strip() else None


def budget_env(project: Project, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The hook's environment with the real default budget (no deadline override)."""
    env = clean_env(project.home, extra)
    env.pop(DEADLINE_ENV, None)
    return env


def log_lines(project: Project) -> list[str]:
    try:
        return project.error_log.read_text("utf-8").splitlines()
    except OSError:
        return []


def run_hook(
    project: Project,
    payload: dict[str, object] | bytes,
    *,
    fail_closed: bool = False,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    keep_stdin_open: bool = False,
) -> Run:
    """The hook as the harness starts it, timed from `Popen` to its exit."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    before = len(log_lines(project))
    argv = project.hook_argv("PreToolUse", *(["--fail-closed"] if fail_closed else []))
    t0 = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd or project.root,
        env=env if env is not None else budget_env(project),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    proc.stdin.write(data)
    proc.stdin.flush()
    if not keep_stdin_open:
        proc.stdin.close()
    try:
        out, err = _communicate(proc, timeout=30)
        elapsed = time.monotonic() - t0
    finally:
        if keep_stdin_open:
            proc.stdin.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return Run(
        out.decode("utf-8"),
        err.decode("utf-8"),
        proc.returncode,
        elapsed,
        log_lines(project)[before:],
    )


def _communicate(proc: subprocess.Popen[bytes], timeout: float) -> tuple[bytes, bytes]:
    """stdout and stderr to their end, stdin left as it is (open, where the test keeps it)."""
    got: dict[str, bytes] = {}

    def drain(name: str, stream: object) -> None:
        got[name] = stream.read()  # type: ignore[attr-defined]

    threads = [
        threading.Thread(target=drain, args=("out", proc.stdout)),
        threading.Thread(target=drain, args=("err", proc.stderr)),
    ]
    for t in threads:
        t.start()
    proc.wait(timeout=timeout)
    for t in threads:
        t.join(timeout)
    return got.get("out", b""), got.get("err", b"")


def bash(project: Project, command: str = "rm -rf build") -> dict[str, object]:
    return project.payload(
        "PreToolUse.bash-rm-rf.json", session_id=new_session(), tool_input={"command": command}
    )


def assert_fail_open(run: Run, cause: str, why: str) -> None:
    assert run.elapsed < BOUND_S, run
    assert run.json == {"systemMessage": NOTICE.format(why=why)}, run
    assert run.code == 0
    assert run.stderr.splitlines() == [f"STYLE: {cause}; allowed (fail open)"], run
    assert len(run.new_log) == 1 and run.new_log[0].split(" ", 1)[1] == (
        f"claude-code PreToolUse fail-open {cause}"
    ), run.new_log


def assert_refused(run: Run, cause: str) -> None:
    assert run.elapsed < BOUND_S, run
    specific = (run.json or {}).get("hookSpecificOutput") or {}
    assert specific == {  # type: ignore[comparison-overlap]
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": INSTALL_REASON.format(cause=cause),
    }, run
    assert run.code == 1  # Claude Code's `onFailure: block` refuses even unreadable JSON
    assert run.stderr.splitlines() == [f"STYLE: {cause}; refused (--fail-closed)"], run
    assert len(run.new_log) == 1 and run.new_log[0].split(" ", 1)[1] == (
        f"claude-code PreToolUse refused {cause}"
    ), run.new_log


@pytest.fixture
def guarded(project: Project) -> Iterator[Project]:
    with installed(project, PACKAGE):
        yield project


@pytest.fixture
def planted_fifo(guarded: Project, request: pytest.FixtureRequest) -> Iterator[Project]:
    """The database or its lock replaced by a FIFO that no one ever writes."""
    target = guarded.style / str(request.param)
    saved = target.with_name(target.name + ".saved")
    if target.exists():
        target.rename(saved)
    os.mkfifo(target)
    yield guarded
    target.unlink()
    if saved.exists():
        saved.rename(target)


UNREADABLE = "the rules database could not be read"


@pytest.mark.parametrize("planted_fifo", ["style.duckdb", "style.lock"], indirect=True)
def test_a_fifo_in_place_of_the_database_or_its_lock(planted_fifo: Project) -> None:
    name = next(n for n in ("style.duckdb", "style.lock") if (planted_fifo.style / n).is_fifo())
    cause = f"{UNREADABLE} (.style/{name} is a FIFO, not a file)"
    assert_fail_open(run_hook(planted_fifo, bash(planted_fifo)), cause, UNREADABLE)
    assert_refused(run_hook(planted_fifo, bash(planted_fifo), fail_closed=True), cause)


def test_a_folder_in_place_of_the_database_is_one_line(guarded: Project) -> None:
    guarded.database.rename(guarded.database.with_name("saved.duckdb"))
    guarded.database.mkdir()
    cause = f"{UNREADABLE} (.style/style.duckdb is a folder, not a file)"
    assert_fail_open(run_hook(guarded, bash(guarded)), cause, UNREADABLE)


def test_open_stdin_with_the_payload_written_is_evaluated(guarded: Project) -> None:
    """The harness wrote the payload and never closed stdin: the hook reads the object as soon
    as it is complete and answers it, evaluated."""
    # The ordinary tests' room: what is asserted is the time (no wait for an end of input that
    # never comes), not that a cold evaluation on a loaded machine fits the 1.5 s deadline.
    run = run_hook(guarded, bash(guarded), keep_stdin_open=True, env=clean_env(guarded.home))
    assert run.elapsed < BOUND_S, run
    specific = (run.json or {}).get("hookSpecificOutput") or {}
    assert specific.get("permissionDecisionReason") == "No recursive deletes.", run  # type: ignore[union-attr]
    assert run.stderr == "" and run.new_log == []


def test_open_stdin_with_half_a_payload(guarded: Project) -> None:
    """Half an object and stdin left open: at the deadline the hook stops reading and answers
    per fail mode."""
    half = json.dumps(bash(guarded)).encode()[:60]
    cause = "internal deadline passed (stdin did not end)"
    assert_fail_open(run_hook(guarded, half, keep_stdin_open=True), cause, "it ran out of time")
    run = run_hook(guarded, half, keep_stdin_open=True, fail_closed=True)
    assert_refused(run, cause)


def test_a_silent_socket_at_the_engines_place(guarded: Project) -> None:
    """A socket that accepts and never answers, where the engine listens: the hook never sends
    it the payload (it is not STYLE's engine) and evaluates by itself, within the budget."""
    path = client.socket_path(str(guarded.style))
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept)
    thread.start()
    try:
        # (the ordinary room, as above: the time is what is asserted)
        run = run_hook(guarded, bash(guarded), env=clean_env(guarded.home, ENGINE_ON))
    finally:
        stop.set()
        thread.join()
        for conn in accepted:
            conn.close()
        server.close()
        os.unlink(path)
    assert run.elapsed < BOUND_S, run
    specific = (run.json or {}).get("hookSpecificOutput") or {}
    assert specific.get("permissionDecisionReason") == "No recursive deletes.", run  # type: ignore[union-attr]
    assert run.new_log == []


def test_a_lock_held_by_a_foreign_process(guarded: Project) -> None:
    with lock_held(guarded.style / "style.lock", as_style=False) as pid:
        opened = run_hook(guarded, bash(guarded))
        refused = run_hook(guarded, bash(guarded), fail_closed=True)
    cause = f"the rules database lock is held by another program (pid {pid}: python3)"
    locked = "the rules database stayed locked past the deadline"
    why = "the rules database is locked by another process"
    # The stranger is named once it kept the lock without the database for 1.5 s; a loaded
    # machine may reach the deadline first.
    said = [run.stderr.removeprefix("STYLE: ").split("; ")[0] for run in (opened, refused)]
    assert all(one in (cause, locked) for one in said), (opened, refused)
    assert_fail_open(opened, said[0], why)
    assert_refused(refused, said[1])


def test_a_lock_held_by_a_style_process_past_the_deadline(guarded: Project) -> None:
    """A STYLE process (a slow install) keeps the lock: waited for until the deadline only."""
    with lock_held(guarded.style / "style.lock", as_style=True):
        opened = run_hook(guarded, bash(guarded))
        refused = run_hook(guarded, bash(guarded), fail_closed=True)
    locked = "the rules database stayed locked past the deadline"
    assert_fail_open(opened, locked, "the rules database is locked by another process")
    assert_refused(refused, locked)


def test_a_lock_held_by_a_stopped_engine(guarded: Project) -> None:
    """STYLE's own engine, stopped (SIGSTOP): it holds the lock and its socket still accepts,
    but it answers nothing; the hook does not wait for it."""
    pid = int(guarded.start_engine()["pid"])  # type: ignore[call-overload]
    os.kill(pid, signal.SIGSTOP)
    try:
        env = budget_env(guarded, ENGINE_ON)
        opened = run_hook(guarded, bash(guarded), env=env)
        refused = run_hook(guarded, bash(guarded), env=env, fail_closed=True)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.kill(pid, signal.SIGCONT)
    name = os.path.basename(sys.executable)
    cause = f"the rules database lock is held by a stopped process (pid {pid}: {name})"
    why = "the rules database is locked by another process"
    assert_fail_open(opened, cause, why)
    assert_refused(refused, cause)


def test_a_hook_started_outside_the_project_reaches_its_engine(
    guarded: Project, tmp_path: Path
) -> None:
    """No project variable, the process in a sibling folder, the payload's cwd in the guarded
    project, its engine running and holding the lock: the payload's cwd leads to the engine,
    which answers, instead of a wait for the lock it holds."""
    guarded.start_engine()
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    # With the ordinary tests' 20 s deadline, a hook that waited for the lock would be seen.
    run = run_hook(guarded, bash(guarded), env=clean_env(guarded.home, ENGINE_ON), cwd=sibling)
    assert run.elapsed < BOUND_S, run
    specific = (run.json or {}).get("hookSpecificOutput") or {}
    assert specific.get("permissionDecisionReason") == "No recursive deletes.", run  # type: ignore[union-attr]
    assert run.stderr == "" and run.new_log == []


def test_a_deleted_database_is_logged_once(guarded: Project) -> None:
    """A database this session saw, deleted: the call is refused (--fail-closed), with one
    errors.log line, and the rebuild from style.lock.yaml goes on for the next calls."""
    session = new_session()
    # (the session's first, working call with the ordinary tests' room: it is set-up here)
    first = run_hook(
        guarded, {**bash(guarded, "ls"), "session_id": session}, env=clean_env(guarded.home)
    )
    assert first.code == 0 and first.new_log == [], first
    guarded.database.unlink()
    run = run_hook(guarded, {**bash(guarded), "session_id": session}, fail_closed=True)
    assert run.elapsed < BOUND_S, run
    deleted = [line for line in run.new_log if "deleted" in line]
    assert len(deleted) == 1, run
    # a loaded machine may run out of the budget evaluating after the rebuild: that refusal
    # is a line of its own, and the deletion is still told once
    rest = [line for line in run.new_log if line not in deleted]
    assert len(rest) <= 1 and all("internal deadline passed" in line for line in rest), run
    if " rebuilt " in deleted[0]:
        # The rebuild finished within the budget (an idle machine): the call was evaluated by
        # the rebuilt rules, which refuse it, and the tampering is told and logged.
        specific = (run.json or {}).get("hookSpecificOutput") or {}
        assert specific.get("permissionDecision") == "deny", run  # type: ignore[union-attr]
        assert "deleted" in run.new_log[0] and "deleted" in run.stderr, run
    else:
        assert run.code == 1, run
        assert len(run.stderr.splitlines()) == 1, run
        assert "refused (--fail-closed)" in run.stderr


# The watchdog itself: a blocking call that no step of the hook foresaw, inside DuckDB's C code.
WATCHED = """
import sys
import duckdb
from agentstyle import hook
from agentstyle.runtime import budget
from agentstyle.runtime.hookcall import HookCall

call = HookCall.from_argv(sys.argv[2:])
budget.arm(call, hook._out_of_time)
budget.note("opening the rules database", sys.stdin.buffer.read())
duckdb.connect(sys.argv[1])  # a FIFO: blocks in C until someone writes it
print("not reached")
"""


@pytest.mark.parametrize("fail_closed", [False, True])
def test_the_watchdog_fires_while_duckdb_blocks_on_a_fifo(
    guarded: Project, tmp_path: Path, fail_closed: bool
) -> None:
    fifo = tmp_path / "blocking.duckdb"
    os.mkfifo(fifo)
    before = len(log_lines(guarded))
    argv = ["--harness", "claude-code", "--event", "PreToolUse"]
    argv += ["--fail-closed"] if fail_closed else []
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", WATCHED, str(fifo), *argv],
        input=json.dumps(bash(guarded)).encode(),
        cwd=guarded.root,
        env=budget_env(guarded),
        capture_output=True,
        timeout=30,
    )
    elapsed = time.monotonic() - t0
    run = Run(
        proc.stdout.decode(),
        proc.stderr.decode(),
        proc.returncode,
        elapsed,
        log_lines(guarded)[before:],
    )
    cause = "internal deadline passed (opening the rules database)"
    assert "not reached" not in run.stdout
    if fail_closed:
        assert_refused(run, cause)
    else:
        assert_fail_open(run, cause, "it ran out of time")


@pytest.mark.parametrize(
    ("payload", "cwd"),
    [
        (b'{"session_id":"s","cwd":"/p/a","tool_input":{"cwd":"/elsewhere"}}', "/p/a"),
        (b'{"tool_input":{"cwd":"/nested/only"},"session_id":"s"}', None),
        (b'{"cwd": "/p/with \\"quote\\""}', '/p/with "quote"'),
        (b'{"c\\u0077d":"/escaped/key"}', "/escaped/key"),
        (b'{"cwd":"/first","cwd":"/second"}', "/second"),  # as `json` reads it: the last
        (b'["cwd", "/not/an/object"]', None),
        (b'{"cwd": 7}', None),
        (b'{"workspace_roots":["/cursor/root"]}', "/cursor/root"),
    ],
)
def test_the_payloads_cwd_is_read_as_the_evaluation_reads_it(
    payload: bytes, cwd: str | None
) -> None:
    """The hook finds the engine (and decides there is nothing to do) from the payload's cwd
    before it decodes the payload: the cheap scan must agree with the decoder
    (runtime/hookrun.py `_cwd`), or the engine of another project could answer."""
    from agentstyle.runtime import payloadin
    from agentstyle.runtime.hookrun import _cwd, decode

    assert payloadin.payload_cwd(payload) == cwd
    try:
        decoded = decode(payload)
    except Exception:
        decoded = {}
    assert _cwd(decoded) == cwd


def test_stdin_read_what_is_there_then_what_comes() -> None:
    """`payloadin.read` on a real pipe: a payload written and closed is read at once; one that
    comes in two parts is read to its end; the descriptor is left blocking as it was."""
    from agentstyle.runtime import payloadin

    payload = json.dumps({"session_id": "s", "cwd": "/p", "tool_input": {"x": "y" * 5000}})
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, payload.encode())
        os.close(write_end)
        assert payloadin.read(read_end, time.monotonic() + 5, 1 << 20) == (payload.encode(), False)
        assert os.get_blocking(read_end)
    finally:
        os.close(read_end)

    read_end, write_end = os.pipe()
    head, tail = payload.encode()[:100], payload.encode()[100:]
    os.write(write_end, head)

    def rest() -> None:
        time.sleep(0.3)
        os.write(write_end, tail)
        os.close(write_end)

    writer = threading.Thread(target=rest)
    writer.start()
    try:
        assert payloadin.read(read_end, time.monotonic() + 10, 1 << 20) == (head + tail, False)
        assert os.get_blocking(read_end)
    finally:
        writer.join()
        os.close(read_end)
