"""The hook as the harnesses run it: a real process (`python -m agentstyle.hook --harness H
--event E`, or an installed handler command under `sh -c`) with the harness's JSON on stdin, and
its answer (`HookResult`). Also the sample payloads every harness sends (tests/fixtures/).
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.environment import HOOK_TIMEOUT_S, REPO

# Sample payloads of every harness and the answers expected for them (tests/fixtures/README.md).
HARNESS_FIXTURES = REPO / "tests" / "fixtures"
FIXTURES = HARNESS_FIXTURES / "claude-code"
DATA = REPO / "tests" / "data" / "hook"
FIXTURE_CWD = "/home/dev/acme-api"


def fixture_names() -> list[str]:
    return sorted(p.name for p in FIXTURES.glob("*.json"))


def load_fixture(path: Path, root: Path, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """A sample payload with its project folder rewritten to `root`; keys overridden (None
    removes one)."""
    text = path.read_text("utf-8").replace(FIXTURE_CWD, root.as_posix())
    data: dict[str, Any] = json.loads(text)
    for key, value in overrides.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


@dataclass(slots=True)
class HookResult:
    stdout: str
    stderr: str
    code: int

    @property
    def json(self) -> dict[str, Any] | None:
        return json.loads(self.stdout) if self.stdout.strip() else None

    @property
    def context(self) -> str | None:
        data = self.json or {}
        specific = data.get("hookSpecificOutput") or {}
        value = specific.get("additionalContext")
        return value if isinstance(value, str) else None

    def check_clean(self) -> None:
        """The answer rules every invocation obeys: at most one JSON line, no traceback."""
        assert "Traceback" not in self.stderr, self.stderr
        assert "Traceback" not in self.stdout, self.stdout
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        assert len(lines) <= 1, self.stdout
        if lines:
            obj = json.loads(lines[0])
            assert isinstance(obj, dict)
            assert lines[0] == json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def bash_call(root: Path, session: str, command: str, call: str) -> dict[str, Any]:
    """Claude Code's PreToolUse payload for a Bash call `call` of `command`, written out (no
    fixture): the project folder `root`."""
    return {
        "session_id": session,
        "cwd": root.as_posix(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call,
    }


def hook_argv(harness: str, event: str, *extra: str) -> list[str]:
    """The hook command line as a harness's config names it, run by this interpreter."""
    return [sys.executable, "-m", "agentstyle.hook", "--harness", harness, "--event", event, *extra]


def start(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A hook process with all three pipes, as a harness starts one."""
    return subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def run_handler(
    command: str,
    payload: dict[str, Any] | bytes | str,
    *,
    cwd: Path,
    env: dict[str, str],
    check: bool = True,
) -> HookResult:
    """An installed handler command run as the harnesses run one without `args`: `sh -c
    COMMAND`, the payload on stdin."""
    return finish(start(["/bin/sh", "-c", command], cwd, env), encode(payload), check=check)


def encode(payload: dict[str, Any] | bytes | str) -> bytes:
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode("utf-8")
    return json.dumps(payload).encode("utf-8")


def feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    """Write the whole payload and close stdin now (the hook starts reading at once)."""
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    proc.stdin = None


def finish(
    proc: subprocess.Popen[bytes],
    data: bytes,
    *,
    check: bool = True,
    timeout: float = HOOK_TIMEOUT_S,
) -> HookResult:
    try:
        out, err = proc.communicate(data if proc.stdin is not None else None, timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    result = HookResult(
        out.decode("utf-8", errors="replace"),
        err.decode("utf-8", errors="replace"),
        proc.returncode,
    )
    if check:
        result.check_clean()
    return result


def run_all(
    tasks: dict[str, Callable[[], None]], workers: int = 4
) -> dict[str, BaseException | None]:
    """Run independent scenarios at once (threads: each hook call is its own process anyway);
    name → its failure or None. Tests re-raise their own entry."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {name: pool.submit(task) for name, task in tasks.items()}
        return {name: f.exception() for name, f in futures.items()}


def new_session() -> str:
    return str(uuid.uuid4())


_LOCK_HOLDER = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[2], os.O_RDWR | os.O_CREAT, 0o600)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "db = [os.open(p, os.O_RDONLY) for p in sys.argv[3:] if os.path.exists(p)]\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)


@contextmanager
def lock_held(path: Path, *, as_style: bool = True) -> Iterator[int]:
    """`path` locked by another process until the block ends; its pid is yielded.

    `as_style`: the holder does what a STYLE process holding the lock does, it has the rules
    database open (a slow install, another hook), so a hook waits for it until its deadline;
    otherwise it is a stranger (`flock … sleep 300`), which a hook gives up on at once
    (runtime/peer.py `StrangerCheck`).
    """
    name = "agentstyle-test-lock-holder" if as_style else "some-other-program"
    database = [str(path.parent / "style.duckdb")] if as_style else []
    proc = subprocess.Popen(
        [sys.executable, "-c", _LOCK_HOLDER, name, str(path), *database],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    try:
        yield proc.pid
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=20)
