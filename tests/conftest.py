"""Shared helpers for the hook tests: scratch projects, `style install`, the real hook command.

Everything runs for real: every hook is a subprocess started with `sys.executable`, against the
project's own `.style/style.duckdb`. Nothing is mocked.

Two cheaper real paths, for tests that check answers and records rather than a process:
`style_in_process` runs a command's own code in the test process (typer's CliRunner, the same
environment and working folder; `Project.install` does so unless asked for the process), and
`Project.engine()` has the project's hooks (still subprocesses) hand their events to a resident
engine, as a user's hooks do.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
# Sample payloads of every harness and the answers expected for them (tests/fixtures/README.md).
HARNESS_FIXTURES = REPO / "tests" / "fixtures"
FIXTURES = HARNESS_FIXTURES / "claude-code"
DATA = Path(__file__).resolve().parent / "data" / "hook"
FIXTURE_CWD = "/home/dev/acme-api"
HOOK_TIMEOUT_S = 60.0
# For a crowd of hooks whose answers are under test, not their deadlines: on a busy machine
# (`make test` on every core, other work beside it) dozens of hooks on one database can need
# more than a tool call's 55 s. The deadline (STYLE_DEADLINE_S) and the wait for the answer.
CROWD_DEADLINE_S = 240.0
CROWD_TIMEOUT_S = CROWD_DEADLINE_S + 60.0
CROWD_ENV = {"STYLE_DEADLINE_S": str(CROWD_DEADLINE_S)}
ORDINARY_DEADLINE_S = "20"
# Hooks that hand their events to the project's resident engine, as a user's hooks do: for tests
# that run many hooks for their answers and records, not for the direct path. A warm hook costs
# its process a tenth of a direct one's CPU (no duckdb import, no database open).
ENGINE_ON = {"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "300"}
BIN = str(Path(sys.executable).parent)  # the environment's scripts: style, style-hook
PYCACHE = Path(tempfile.gettempdir()) / f"agentstyle-test-pycache-{os.getuid()}"
# The same for the processes that copy this environment instead of building one (the demo in a
# clone, the golden CLI runs): with the cache outside the repository, writing it costs nothing.
os.environ["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def fixture_names() -> list[str]:
    return sorted(p.name for p in FIXTURES.glob("*.json"))


def clean_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without anything that would steer STYLE or Claude Code."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("STYLE_", "CLAUDE_"))
        and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    }
    env["HOME"] = str(home)
    # STYLE installed as a user has it: `style-hook` (what a committed hook config runs) on PATH.
    env["PATH"] = os.pathsep.join([BIN, *(p for p in env.get("PATH", "").split(os.pathsep) if p)])
    # Bytecode as a real installation has it, kept outside the repository: every hook is a new
    # interpreter, and compiling the package each time would dominate the suite's run time.
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    # Direct evaluation: no resident engine outliving a test and holding the database.
    env["STYLE_ENGINE"] = "off"
    # The hook's 2 s budget is a promise for an idle machine; under `make test` (every core, other
    # work beside it) a hook's first evaluation can take longer, so ordinary tests get room.
    # tests/test_budget.py removes this and runs the real default.
    env["STYLE_DEADLINE_S"] = ORDINARY_DEADLINE_S
    env.update(extra or {})
    return env


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


class Project:
    """A scratch project folder with a package installed through `style install`."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home
        # added to every hook's environment (`engine()` sets it for its block)
        self.hook_env: dict[str, str] = {}
        self.root.mkdir(parents=True, exist_ok=True)
        self.home.mkdir(parents=True, exist_ok=True)

    # -- setup ---------------------------------------------------------------------------------
    def write_package(self, yaml_text: str, name: str = "pkg") -> Path:
        folder = self.root / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "STYLE.yaml").write_text(textwrap.dedent(yaml_text).lstrip(), encoding="utf-8")
        return folder

    def install(
        self, *args: str, check: bool = True, process: bool = False
    ) -> subprocess.CompletedProcess[str]:
        """`style install ARGS` in this project. Most tests need what it installs, not its
        process: by default the command's real code runs in the test process
        (`style_in_process`, the same environment and folder), which saves an interpreter
        start and the imports, most of an install's CPU. `process=True` runs
        `python -m agentstyle install` as a subprocess, for a test about that process."""
        if not process:
            proc = style_in_process(self.root, self.home, "install", *args)
            if check and proc.returncode != 0:
                raise AssertionError(f"style install failed:\n{proc.stdout}\n{proc.stderr}")
            return proc
        proc = subprocess.run(
            [sys.executable, "-m", "agentstyle", "install", *args],
            cwd=self.root,
            env=clean_env(self.home),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"style install failed:\n{proc.stdout}\n{proc.stderr}")
        return proc

    @property
    def style(self) -> Path:
        return self.root / ".style"

    @property
    def database(self) -> Path:
        return self.style / "style.duckdb"

    @property
    def error_log(self) -> Path:
        return self.style / "logs" / "errors.log"

    def installed_command(self, native_event: str) -> str:
        """The command `style install` wrote into .claude/settings.json for an event."""
        settings = json.loads((self.root / ".claude" / "settings.json").read_text("utf-8"))
        [group] = settings["hooks"][native_event]
        [handler] = group["hooks"]
        command = handler["command"]
        assert isinstance(command, str)
        return command

    # -- payloads ------------------------------------------------------------------------------
    def payload(self, fixture: str, **overrides: Any) -> dict[str, Any]:
        """A fixture with its project folder rewritten to this project; keys overridden."""
        text = (FIXTURES / fixture).read_text("utf-8").replace(FIXTURE_CWD, self.root.as_posix())
        data: dict[str, Any] = json.loads(text)
        for key, value in overrides.items():
            if value is None:
                data.pop(key, None)
            else:
                data[key] = value
        return data

    # -- the hook --------------------------------------------------------------------------------
    def hook_argv(self, event: str, *extra: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            "agentstyle.hook",
            "--harness",
            "claude-code",
            "--event",
            event,
            *extra,
        ]

    def start_hook(
        self,
        event: str,
        payload: dict[str, Any] | bytes | str,
        *,
        env: dict[str, str] | None = None,
        extra: Sequence[str] = (),
    ) -> tuple[subprocess.Popen[bytes], bytes]:
        data = _encode(payload)
        proc = subprocess.Popen(
            self.hook_argv(event, *extra),
            cwd=self.root,
            env=clean_env(self.home, {**self.hook_env, **(env or {})}),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        return proc, data

    def hook(
        self,
        event: str,
        payload: dict[str, Any] | bytes | str,
        *,
        env: dict[str, str] | None = None,
        extra: Sequence[str] = (),
        check: bool = True,
    ) -> HookResult:
        """Run `python -m agentstyle.hook --harness claude-code --event E` with the payload."""
        proc, data = self.start_hook(event, payload, env=env, extra=extra)
        return finish(proc, data, check=check)

    def start_engine(self) -> dict[str, object]:
        """`style engine start` (which waits until the engine answers), and the running
        engine's ping: its pid, what it has served."""
        from agentstyle.runtime import client

        proc = subprocess.run(
            [sys.executable, "-m", "agentstyle", "engine", "start"],
            cwd=self.root,
            env=clean_env(self.home, ENGINE_ON),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.stdout.startswith("engine: running"), proc.stdout + proc.stderr
        info = client.ping(str(self.style))
        assert info is not None
        return info

    @contextmanager
    def engine(self) -> Iterator[dict[str, str]]:
        """A resident engine for this project, started by `style engine start` (which waits
        until it answers); the project's hooks hand their events to it inside the block (the
        environment yielded does the same for other processes). On leaving, the engine is
        stopped and has let go of the database, so the test may read it.
        """
        self.start_engine()
        self.hook_env = dict(ENGINE_ON)
        try:
            yield ENGINE_ON
        finally:
            self.hook_env = {}
            from agentstyle.runtime import client

            client.stop_engine(str(self.style), wait_s=20)

    def run_installed(
        self,
        event: str,
        payload: dict[str, Any] | bytes | str,
        *,
        env: dict[str, str] | None = None,
    ) -> HookResult:
        """The handler `style install` wrote for `event`, run as Claude Code runs a command
        without `args`: `sh -c COMMAND`, cwd the project, the payload on stdin."""
        proc = subprocess.Popen(
            ["/bin/sh", "-c", self.installed_command(event)],
            cwd=self.root,
            env=clean_env(self.home, {**self.hook_env, **(env or {})}),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        return finish(proc, _encode(payload))

    def hooks_parallel(
        self, calls: Sequence[tuple[str, dict[str, Any] | bytes | str]]
    ) -> list[HookResult]:
        """Start every call at once, then wait for all (independent sessions only), with the
        crowd's room (CROWD_DEADLINE_S)."""
        started = [self.start_hook(event, payload, env=CROWD_ENV) for event, payload in calls]
        # Every payload goes in now: a hook's deadline runs from its start, and one fed only
        # once the hooks before it had answered spent its time waiting for its stdin.
        for proc, data in started:
            feed(proc, data)
        return [finish(proc, b"", timeout=CROWD_TIMEOUT_S) for proc, _ in started]

    # -- the database --------------------------------------------------------------------------
    def _engine_let_go(self) -> None:
        """Inside `engine()` the engine holds the database: ask it to stop first, as STYLE's
        own commands do (a later hook starts it again)."""
        if self.hook_env:
            from agentstyle.runtime import client

            client.stop_engine(str(self.style), wait_s=20)

    @contextmanager
    def db(self) -> Iterator[Any]:
        """The project's database, opened read-only under STYLE's own OS lock."""
        import duckdb

        from agentstyle.engine.locking import FileLock

        self._engine_let_go()
        with FileLock(self.style / "style.lock", time.monotonic() + 30):
            conn = duckdb.connect(str(self.database), read_only=True)
            try:
                yield conn
            finally:
                conn.close()

    def execute(self, statement: str, params: Sequence[Any] = ()) -> None:
        """Change the database the way another STYLE process would: under the OS lock."""
        import duckdb

        from agentstyle.engine.locking import FileLock

        self._engine_let_go()
        with FileLock(self.style / "style.lock", time.monotonic() + 30):
            conn = duckdb.connect(str(self.database))
            try:
                conn.execute(statement, list(params))
            finally:
                conn.close()

    def query(self, query: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self.db() as conn:
            rows: list[tuple[Any, ...]] = conn.execute(query, list(params)).fetchall()
            return rows

    def scalar(self, query: str, params: Sequence[Any] = ()) -> Any:
        [(value,)] = self.query(query, params)
        return value


class Saved:
    """A folder built once (a project installed through the real `style install`, its home)
    and put back byte for byte, at the same path, before each test that changes it.

    The same path, not a copy elsewhere: the rules database and the hook configs name the
    project's absolute path (self-protection), so a copy at another path would be another,
    wrongly built project. Modes and mtimes come back too (`.style/built-from` holds the lock
    file's mtime). Tests of one module run one after another in one worker, so none sees
    another's changes.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._copy = folder.with_name(folder.name + ".saved")
        shutil.copytree(folder, self._copy, symlinks=True)

    def restore(self) -> Path:
        shutil.rmtree(self.folder)
        shutil.copytree(self._copy, self.folder, symlinks=True)
        return self.folder


_IN_PROCESS = threading.Lock()


def _build_command_once() -> None:
    """typer's CliRunner builds the Click command from the app on every `invoke` (50 ms: every
    command's parameters read from its signature again); the app does not change while the
    tests run, so it is built once per process. The name is typer.testing's own (typer 0.19 to
    0.29); were it gone, every invoke would build the command again, as before."""
    import typer.testing

    build = getattr(typer.testing, "_get_command", None)
    if build is None or getattr(build, "built_once", False):
        return
    built: dict[int, Any] = {}

    def once(app: Any) -> Any:
        if id(app) not in built:
            built[id(app)] = build(app)
        return built[id(app)]

    once.built_once = True  # type: ignore[attr-defined]
    typer.testing._get_command = once  # type: ignore[attr-defined]


_build_command_once()


def style_in_process(
    cwd: Path, home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`style ARGS` run by the real command code in this process (typer's CliRunner), with the
    environment (`clean_env`) and working folder a subprocess would have, its stdout and stderr
    apart. For tests of what a command says and does, not of its process (exit codes over a
    pipe, stdio, signals): it saves the interpreter start and imports, most of a report's CPU.
    An exception the command lets out is raised here, traceback and all.
    """
    from typer.testing import CliRunner

    from agentstyle.cli.app import app

    wanted = clean_env(home, env)
    changes: dict[str, str | None] = {k: None for k in os.environ if k not in wanted}
    changes.update(wanted)
    with _IN_PROCESS:  # the working folder and the environment are the process's own
        before = os.getcwd()
        os.chdir(cwd)
        try:
            result = CliRunner().invoke(app, list(args), env=changes, prog_name="style")
        finally:
            os.chdir(before)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(
        ["style", *args], result.exit_code, result.stdout, result.stderr
    )


def _encode(payload: dict[str, Any] | bytes | str) -> bytes:
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


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "proj", tmp_path / "home")


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[str], Project]:
    """A factory for projects of one test (nothing installed yet)."""

    def make(name: str) -> Project:
        return Project(tmp_path / name, tmp_path / f"{name}-home")

    return make


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
