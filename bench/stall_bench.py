"""Direct evaluations while a resident engine runs: what they cost instead of the engine's
lifetime (issue "no stalls"). The engine holds the database lock while it lives; each case is a
new hook process, as the harness runs it, with an engine up before it starts:

- `STYLE_ENGINE=off`: the hook asks the engine to step aside, then evaluates directly;
- a 17 MiB payload: handed to the engine as a flagged request, answered per `fail`;
- a 17 MiB payload under `STYLE_ENGINE=off`: the engine steps aside, the failure is recorded
  directly;
- for scale: the same small call through the warm engine, and directly with no engine.

`tamper_run`: the `fail: closed` set of issue 14, each case the gated call through the command
`style install` wrote (`--fail-closed`), timed until its refusal: the database deleted
(rebuilt from style.lock.yaml), the database corrupted, the lock held by another program, the
engine stopped with SIGSTOP, an impostor answering "allow" on the engine's socket.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.hook_bench import _env

PACKAGE = """spec: style/v0.3
name: stall
version: 1.0.0
description: stall bench
rules:
  - id: no-rm
    target: tool
    tool: shell
    action: block
    fail: closed
    when: 'tool.input.command shell_regex "^rm .*-rf"'
    text: No recursive deletes.
"""
HOOK = [
    sys.executable,
    "-m",
    "agentstyle.hook",
    "--harness",
    "claude-code",
    "--event",
    "PreToolUse",
]


def _timed(data: bytes, cwd: Path, env: dict[str, str]) -> float:
    """Wall seconds of one hook process. The hook reads at most 16 MiB + 1 byte of a larger
    payload, answers and exits: the rest of the write meets a closed pipe."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        HOOK,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    os.waitpid(proc.pid, 0)
    proc.returncode = 0
    return time.perf_counter() - t0


def _wait_engine(home: Path, up: bool) -> None:
    from agentstyle.runtime import client

    deadline = time.monotonic() + 30
    while (client.ping(str(home), 1.0) is not None) != up:
        if time.monotonic() > deadline:
            raise RuntimeError("the engine did not " + ("start" if up else "stop"))
        time.sleep(0.02)


def _installed(tmp: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    """A scratch project in `tmp` with the bench's package installed: (project, the hook
    environment with the engine off, the same with it on)."""
    project, home = tmp / "proj", tmp / "home"
    (project / "pkg").mkdir(parents=True)
    home.mkdir()
    (project / "pkg" / "STYLE.yaml").write_text(PACKAGE, "utf-8")
    off = _env(home, STYLE_ENGINE="off")
    on = _env(home, STYLE_ENGINE="on", STYLE_ENGINE_IDLE_S="600")
    subprocess.run(
        [sys.executable, "-m", "agentstyle", "install", "pkg"],
        cwd=project,
        env=off,
        check=True,
        capture_output=True,
    )
    return project, off, on


def run(rounds: int = 10) -> dict[str, float]:
    from agentstyle.runtime import client

    tmp = Path(tempfile.mkdtemp(prefix="style-stall-bench-"))
    try:
        project, off, on = _installed(tmp)
        style = project / ".style"
        call = {
            "session_id": "bench",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf /"},
        }
        small = json.dumps(call).encode()
        huge = json.dumps({**call, "tool_input": {"command": "x" * (17 << 20)}}).encode()

        def engine_up() -> None:
            if client.ping(str(style), 1.0) is None:
                client.start_engine(str(style))
                _wait_engine(style, True)

        for _ in range(3):  # bytecode caches, the engine
            engine_up()
            _timed(small, project, on)
        samples: dict[str, list[float]] = {
            "warm_engine": [],
            "no_engine": [],
            "engine_off_while_running": [],
            "oversized_while_running": [],
            "oversized_off_while_running": [],
        }
        for _ in range(rounds):
            engine_up()
            _timed(small, project, on)  # a fresh engine's first request warms its statements
            samples["warm_engine"].append(_timed(small, project, on))
            samples["oversized_while_running"].append(_timed(huge, project, on))
            samples["engine_off_while_running"].append(_timed(small, project, off))
            _wait_engine(style, False)
            samples["no_engine"].append(_timed(small, project, off))
            engine_up()
            samples["oversized_off_while_running"].append(_timed(huge, project, off))
        client.stop_engine(str(style))
        out = {f"{k}_ms": statistics.median(v) * 1000 for k, v in samples.items()}
        out.update({f"{k}_max_ms": max(v) * 1000 for k, v in samples.items()})
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# A program that is not STYLE holding the lock (`flock .style/style.lock sleep 300`).
STRANGER = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)
# Binds the engine's socket and answers "allow" to everything.
IMPOSTOR = (
    "import json, os, socket, struct, sys\n"
    "path = sys.argv[1]\n"
    "os.path.lexists(path) and os.unlink(path)\n"
    "server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
    "server.bind(path)\n"
    "server.listen(8)\n"
    "print('locked', flush=True)\n"
    "while True:\n"
    "    conn, _ = server.accept()\n"
    "    body = json.dumps({'stdout': '', 'stderr': '', 'exit': 0}).encode()\n"
    "    conn.sendall(struct.pack('!I', len(body)) + body)\n"
    "    conn.close()\n"
)


def _refused(data: bytes, cwd: Path, env: dict[str, str]) -> tuple[float, bool]:
    """Wall seconds of the installed hook (`--fail-closed`) and whether it refused."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [*HOOK, "--fail-closed"], input=data, cwd=cwd, env=env, capture_output=True, timeout=120
    )
    elapsed = time.perf_counter() - t0
    return elapsed, b'"permissionDecision":"deny"' in proc.stdout


def _holder(script: str, arg: str, env: dict[str, str]) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", script, arg],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def _end(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait()


def tamper_run(rounds: int = 5) -> dict[str, float]:
    """Median and worst seconds to refusal per case, and `refused`/`calls` over all cases."""
    import signal

    from agentstyle.runtime import client

    tmp = Path(tempfile.mkdtemp(prefix="style-tamper-bench-"))
    try:
        project, off, on = _installed(tmp)
        style = project / ".style"
        database, lock = style / "style.duckdb", style / "style.lock"
        call = {
            "session_id": "tamper-bench",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "rm -rf /"},
        }
        data = json.dumps(call).encode()
        _refused(data, project, off)  # bytecode caches; the session has seen its database
        good = database.read_bytes()
        samples: dict[str, list[float]] = {
            k: [] for k in ("db_deleted", "db_corrupted", "lock_stranger", "engine_stopped")
        }
        samples["impostor"] = []
        refused = calls = 0

        def record(case: str, result: tuple[float, bool]) -> None:
            nonlocal refused, calls
            samples[case].append(result[0])
            calls += 1
            refused += result[1]

        for _ in range(rounds):
            database.unlink()
            record("db_deleted", _refused(data, project, off))
            database.write_bytes(os.urandom(64 << 10))
            record("db_corrupted", _refused(data, project, off))
            database.write_bytes(good)
            stranger = _holder(STRANGER, str(lock), off)
            try:
                record("lock_stranger", _refused(data, project, off))
            finally:
                _end(stranger)
            client.start_engine(str(style))
            _wait_engine(style, True)
            info = client.ping(str(style), 1.0) or {}
            pid = int(info["pid"])
            os.kill(pid, signal.SIGSTOP)
            try:
                record("engine_stopped", _refused(data, project, on))
            finally:
                os.kill(pid, signal.SIGCONT)
            client.stop_engine(str(style))
            _wait_engine(style, False)
            fake = _holder(IMPOSTOR, client.socket_path(str(style)), off)
            try:
                record("impostor", _refused(data, project, on))
            finally:
                _end(fake)
        out = {f"{k}_ms": statistics.median(v) * 1000 for k, v in samples.items()}
        out.update({f"{k}_max_ms": max(v) * 1000 for k, v in samples.items()})
        out.update({"refused": float(refused), "calls": float(calls)})
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for key, value in run(5).items():
        print(f"{key}: {value:.0f}")
    for key, value in tamper_run(3).items():
        print(f"{key}: {value:.0f}")
