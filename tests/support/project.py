"""A scratch project for a test (`Project`): a folder and a home of its own, packages written
into it, `style` run in it, the hook run against it, its database read under STYLE's own lock.
`Saved`: a project installed once per module and put back before each test that changes it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.support.cli import style_in_process, style_process
from tests.support.environment import CROWD_ENV, CROWD_TIMEOUT_S, ENGINE_ON, clean_env
from tests.support.hooks import (
    FIXTURES,
    HookResult,
    encode,
    feed,
    finish,
    hook_argv,
    load_fixture,
    run_handler,
    start,
)


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
        proc = (self.process if process else self.cli)("install", *args)
        if check and proc.returncode != 0:
            raise AssertionError(f"style install failed:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def cli(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`style ARGS` from this project, its real code run in the test process."""
        return style_in_process(self.root, self.home, *args, env=env)

    def process(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        """`python -m agentstyle ARGS` from this project, as a process of its own."""
        return style_process(self.root, self.home, *args, env=env, timeout=timeout)

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
        """A Claude Code fixture with its project folder rewritten to this project; keys
        overridden (None removes one)."""
        return load_fixture(FIXTURES / fixture, self.root, overrides)

    # -- the hook --------------------------------------------------------------------------------
    def hook_env_for(self, env: dict[str, str] | None = None) -> dict[str, str]:
        """The environment of this project's hooks: `clean_env`, `hook_env`, then `env`."""
        return clean_env(self.home, {**self.hook_env, **(env or {})})

    def hook_argv(self, event: str, *extra: str, harness: str = "claude-code") -> list[str]:
        return hook_argv(harness, event, *extra)

    def start_hook(
        self,
        event: str,
        payload: dict[str, Any] | bytes | str,
        *,
        env: dict[str, str] | None = None,
        extra: Sequence[str] = (),
        harness: str = "claude-code",
    ) -> tuple[subprocess.Popen[bytes], bytes]:
        argv = hook_argv(harness, event, *extra)
        return start(argv, self.root, self.hook_env_for(env)), encode(payload)

    def hook(
        self, event: str, payload: dict[str, Any] | bytes | str, *, check: bool = True, **how: Any
    ) -> HookResult:
        """Run `python -m agentstyle.hook --harness H --event E` with the payload on stdin and
        wait for its answer; `how`: what `start_hook` takes (env, extra, harness)."""
        proc, data = self.start_hook(event, payload, **how)
        return finish(proc, data, check=check)

    def start_engine(self) -> dict[str, object]:
        """`style engine start` (which waits until the engine answers), and the running
        engine's ping: its pid, what it has served."""
        from agentstyle.runtime import client

        proc = self.process("engine", "start", env=ENGINE_ON, timeout=60)
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
        command = self.installed_command(event)
        return run_handler(command, payload, cwd=self.root, env=self.hook_env_for(env))

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

        from agentstyle.evaluator.locking import FileLock

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

        from agentstyle.evaluator.locking import FileLock

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


P = TypeVar("P", bound=Project)


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

    @classmethod
    def build(
        cls, tmp_path_factory: pytest.TempPathFactory, name: str, setup: Callable[[Path], object]
    ) -> Saved:
        """A new folder `name`, made by `setup(folder)` (a project in `folder/proj`, its home in
        `folder/home`), saved."""
        base = tmp_path_factory.mktemp(name)
        setup(base)
        return cls(base)

    def restore(self) -> Path:
        shutil.rmtree(self.folder)
        shutil.copytree(self._copy, self.folder, symlinks=True)
        return self.folder

    def project(self, kind: type[P]) -> P:
        """The folder put back, as the project `setup` made in it."""
        base = self.restore()
        return kind(base / "proj", base / "home")
