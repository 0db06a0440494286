"""The resident engine is believed only when it is the engine (issue: guards the agent cannot
switch off): a process that binds the socket and answers "allow" is not believed; malformed
requests are answered with an error, never a crash; a silent client holds nobody up."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentstyle.runtime import client
from tests.support.engine import IMPOSTOR, installed, shell_call, wait_engine
from tests.support.environment import clean_env
from tests.support.hooks import new_session
from tests.support.packages import NO_RM_RF, package_text
from tests.support.project import Project

PACKAGE = package_text("eng", NO_RM_RF, description="engine trust tests")
ENGINE_ON = {"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "60"}


@pytest.fixture
def engine_project(project: Project) -> Iterator[Project]:
    with installed(project, PACKAGE):
        yield project


def rm_rf(project: Project, session: str) -> dict[str, object]:
    return shell_call(project, "rm -rf /", session)


def start_engine(project: Project) -> dict[str, object]:
    project.hook("PreToolUse", rm_rf(project, new_session()), env=ENGINE_ON)
    return wait_engine(project)


def test_an_impostor_on_the_socket_is_not_believed(engine_project: Project) -> None:
    home = str(engine_project.style)
    start_engine(engine_project)
    assert client.stop_engine(home, wait_s=10)
    path = client.socket_path(home)
    fake = subprocess.Popen(
        [sys.executable, "-c", IMPOSTOR, path],
        stdout=subprocess.PIPE,
        text=True,
        env=clean_env(engine_project.home),
    )
    try:
        assert fake.stdout is not None and fake.stdout.readline().strip() == "ready"
        # What a hook would have been told, had it believed the socket:
        assert client.ping(home, 1.0) is None
        answer, why = client.request(home, {"op": "ping"}, 1.0)
        assert (answer, why) == (None, "untrusted")
        # The gate still refuses: the hook evaluated by itself.
        result = engine_project.hook(
            "PreToolUse", rm_rf(engine_project, new_session()), env=ENGINE_ON
        )
        assert result.json["hookSpecificOutput"]["permissionDecision"] == "deny"
    finally:
        fake.kill()
        fake.wait()


def _raw_request(home: str, message: object, timeout: float = 10.0) -> object:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(client.socket_path(home))
        client.send_message(sock, message)
        return client.recv_message(sock)
    finally:
        sock.close()


@pytest.mark.parametrize(
    "change",
    [
        {"budget_s": "soon"},
        {"budget_s": None},
        {"budget_s": True},
        {"budget_s": 1e9},
        {"stdin": 42},
        {"harness": ["claude-code"]},
        {"fail_closed": "yes"},
    ],
)
def test_a_malformed_request_gets_an_error_and_the_engine_lives_on(
    engine_project: Project, change: dict[str, object]
) -> None:
    home = str(engine_project.style)
    info = start_engine(engine_project)
    stdin = json.dumps(rm_rf(engine_project, new_session()))
    message = _hook_header(info, **{"stdin": stdin, "budget_s": 5.0, **change})
    answer = _raw_request(home, message)
    assert isinstance(answer, dict) and "error" in answer and "stdout" not in answer
    assert _raw_request(home, [1, 2, 3]) == {"error": "malformed request"}
    assert client.ping(home, 2.0) is not None  # still serving
    result = engine_project.hook("PreToolUse", rm_rf(engine_project, new_session()), env=ENGINE_ON)
    assert result.json["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_silent_client_holds_nobody_up(engine_project: Project) -> None:
    home = str(engine_project.style)
    info = start_engine(engine_project)
    served = int(info["served"])  # type: ignore[call-overload]
    idle = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(3)]
    try:
        for sock in idle:
            sock.connect(client.socket_path(home))  # connected, never a byte sent
        started = time.monotonic()
        for _ in range(3):
            result = engine_project.hook(
                "PreToolUse", rm_rf(engine_project, new_session()), env=ENGINE_ON
            )
            assert result.json["hookSpecificOutput"]["permissionDecision"] == "deny"
        elapsed = time.monotonic() - started
        after = client.ping(home, 2.0) or {}
        # served by the engine, not by direct evaluation behind a blocked engine
        assert int(after["served"]) == served + 3  # type: ignore[call-overload]
        assert elapsed < 30  # generous: the old engine waited 60 s on the first idle client
    finally:
        for sock in idle:
            sock.close()


def test_a_request_that_comes_in_pieces_is_served_and_holds_nobody_up(
    engine_project: Project,
) -> None:
    """One thread reads every connection as its bytes arrive (runtime/resident.py
    `Connections`): a request sent a few bytes at a time, its length prefix split, is answered
    once whole, and the hooks that come meanwhile are answered before it."""
    home = str(engine_project.style)
    info = start_engine(engine_project)
    served = int(info["served"])  # type: ignore[call-overload]
    header = json.dumps(_hook_header(info, oversized=False, budget_s=5.0, stdin_bytes=0))
    body = json.dumps(rm_rf(engine_project, new_session())).encode()
    head = header.replace('"stdin_bytes": 0', f'"stdin_bytes": {len(body)}').encode()
    data = struct.pack("!I", len(head)) + head + body
    pieces = [data[:2], data[2:30], data[30 : len(head)], data[len(head) : -5], data[-5:]]
    slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    slow.settimeout(30)
    try:
        slow.connect(client.socket_path(home))
        for piece in pieces[:-1]:
            slow.sendall(piece)
            result = engine_project.hook(
                "PreToolUse", rm_rf(engine_project, new_session()), env=ENGINE_ON
            )
            assert result.json["hookSpecificOutput"]["permissionDecision"] == "deny"
        slow.sendall(pieces[-1])
        answer = client.recv_answer(slow)
    finally:
        slow.close()
    out = json.loads(str(answer["stdout"]))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    after = client.ping(home, 2.0) or {}
    # every hook through the engine, not by direct evaluation behind a blocked engine
    assert int(after["served"]) == served + len(pieces)  # type: ignore[call-overload]


def test_the_engine_runs_isolated_from_the_project_folder(engine_project: Project) -> None:
    """Started `-I` with `/` as its folder: a module planted in the project cannot shadow
    STYLE's code in the engine."""
    info = start_engine(engine_project)
    pid = int(info["pid"])  # type: ignore[call-overload]
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert argv[1:4] == [b"-I", b"-m", b"agentstyle.runtime.resident"]
    assert os.readlink(f"/proc/{pid}/cwd") == "/"


CLOSED = PACKAGE.replace(
    "    text: No recursive deletes.", "    fail: closed\n    text: No recursive deletes."
)


def test_a_stopped_engine_is_not_waited_for(project: Project) -> None:
    """`kill -STOP <engine>`: the engine still holds the lock and the socket but never
    answers. A gate with a `fail: closed` rule refuses at once instead of waiting out its
    deadline; the installed command carries that (`--fail-closed`)."""
    project.install(str(project.write_package(CLOSED)))
    info = start_engine(project)
    pid = int(info["pid"])  # type: ignore[call-overload]
    os.kill(pid, signal.SIGSTOP)
    try:
        command = project.installed_command("PreToolUse")
        assert "--fail-closed" in command
        started = time.monotonic()
        result = project.run_installed("PreToolUse", ls(project, new_session()))
        elapsed = time.monotonic() - started
        # the same with the engine path on: the hook sees its peer stopped, does not wait
        started = time.monotonic()
        through = project.hook(
            "PreToolUse", ls(project, new_session()), env=ENGINE_ON, extra=("--fail-closed",)
        )
        through_elapsed = time.monotonic() - started
    finally:
        os.kill(pid, signal.SIGCONT)
        client.stop_engine(str(project.style), wait_s=5)
    specific = result.json["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "held by a stopped process" in specific["permissionDecisionReason"]
    assert elapsed < 30  # generous; it used to wait the whole deadline (55 s)
    assert through.json["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert through_elapsed < 30


def ls(project: Project, session: str) -> dict[str, object]:
    payload = project.payload("PreToolUse.bash-rm-rf.json", session_id=session)
    payload["tool_input"] = {"command": "ls"}
    return payload


def _hook_header(info: dict[str, object], **fields: object) -> dict[str, object]:
    """A hook request to the engine `info` describes (its version and digest), for a Claude Code
    PreToolUse, with `fields` added or changed."""
    return {
        "op": "hook",
        "version": info["version"],
        "digest": info["digest"],
        "harness": "claude-code",
        "event": "PreToolUse",
        "fail_closed": False,
        **fields,
    }


def _raw_hook(home: str, header: dict[str, object], body: bytes, timeout: float = 10.0) -> bytes:
    """A hook request as the hook writes it (a JSON header, then raw payload bytes); what the
    engine sent back before closing (b"" when it dropped the connection)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(client.socket_path(home))
        data = json.dumps(header).encode()
        sock.sendall(struct.pack("!I", len(data)) + data + body)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)
    except ConnectionResetError:  # closed with the request unread: dropped
        return b""
    finally:
        sock.close()


@pytest.mark.parametrize(
    "size", [-1, True, "12", 1.5, client.MAX_MESSAGE, 16 * 1024 * 1024 + 1, "short"]
)
def test_a_raw_payload_of_a_wrong_size_is_dropped_and_the_engine_lives_on(
    engine_project: Project, size: object
) -> None:
    """A hook request names its payload's size: a size that is no count, over the hook's own
    16 MiB limit, or more than is sent is never read as a payload; the engine goes on."""
    home = str(engine_project.style)
    info = start_engine(engine_project)
    body = json.dumps(rm_rf(engine_project, new_session())).encode()
    header = _hook_header(
        info,
        oversized=False,
        budget_s=5.0,
        stdin_bytes=len(body) + 100 if size == "short" else size,
    )
    assert _raw_hook(home, header, body) == b""
    after = client.ping(home, 2.0)
    assert after is not None and after["served"] == info["served"]
    result = engine_project.hook("PreToolUse", rm_rf(engine_project, new_session()), env=ENGINE_ON)
    assert result.json["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_raw_payload_is_answered_as_the_json_payload_is(engine_project: Project) -> None:
    """The raw form (client.send_hook) and the JSON form of one request get the same answer,
    a header with quotes, backslashes, control and non-ASCII characters read back intact."""
    home = str(engine_project.style)
    info = start_engine(engine_project)
    payload = rm_rf(engine_project, new_session())
    payload["tool_input"] = {"command": 'rm -rf "/tmp/a\\b"\n\t— é'}
    header = _hook_header(info, oversized=False, budget_s=5.0)
    raw, why = client.request(home, header, 10.0, stdin=json.dumps(payload).encode())
    assert raw is not None, why
    payload["session_id"] = new_session()
    text = _raw_request(home, {**header, "stdin": json.dumps(payload)})
    assert isinstance(text, dict)
    for answer in (raw, text):
        out = json.loads(str(answer["stdout"]))
        assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert answer["exit"] == 0
    odd = ['a"b', "c\\d", "e\nf\x00g\x1f", "h — é ✓", "", "\u2028"]
    assert [json.loads(client.json_text(s)) for s in odd] == odd
    assert json.loads(client.json_text(float("nan"))) is None
    assert [json.loads(client.json_text(v)) for v in (True, False, None, 7, 2.5)] == [
        True,
        False,
        None,
        7,
        2.5,
    ]


def test_an_engine_started_by_either_interpreter_name_is_believed(
    engine_project: Project,
) -> None:
    """A project install's `style-hook` script runs `bin/python3`, a personal install's
    `python -m agentstyle.hook` runs `bin/python`: an engine either started serves the other
    (it used to be taken for an impostor, and the other hook waited out its deadline)."""
    script = Path(sys.executable).parent / "style-hook"
    if not script.exists():
        pytest.skip("no style-hook script next to this interpreter")
    info = start_engine(engine_project)  # started by `sys.executable -m agentstyle.hook`
    proc = subprocess.run(
        [str(script), "--harness", "claude-code", "--event", "PreToolUse"],
        input=json.dumps(rm_rf(engine_project, new_session())).encode(),
        cwd=engine_project.root,
        env=clean_env(engine_project.home, ENGINE_ON),
        capture_output=True,
        timeout=60,
    )
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    after = client.ping(str(engine_project.style), 2.0)
    assert after is not None
    assert int(after["served"]) == int(info["served"]) + 1  # type: ignore[call-overload]


_HOLDER = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)


@pytest.mark.parametrize(("script", "stranger"), [("style-hook", False), ("other-tool", True)])
def test_a_style_hook_slow_to_open_the_database_is_no_stranger(
    tmp_path: Path, script: str, stranger: bool
) -> None:
    """A hook starved on a loaded machine holds the lock for seconds before it opens the
    database; one that waits for it must not give up on it as "another program" (a call would
    be let through unchecked). The same holder under another name is a stranger after the
    grace (runtime/peer.py)."""
    from agentstyle.runtime.peer import STRANGER_GRACE_S, StrangerCheck

    (tmp_path / script).write_text(_HOLDER)
    lock = tmp_path / ".style" / "style.lock"
    lock.parent.mkdir()
    holder = subprocess.Popen(
        [sys.executable, str(tmp_path / script), str(lock)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        check = StrangerCheck(str(lock))
        said = [check()]
        time.sleep(STRANGER_GRACE_S + 0.2)
        said.append(check())
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=20)
    assert said[0] is None  # nobody is a stranger at first sight
    if stranger:
        held = f"the rules database lock is held by another program (pid {holder.pid}: "
        assert (said[1] or "").startswith(held), said
    else:
        assert said[1] is None
