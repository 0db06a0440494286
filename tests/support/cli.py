"""Running `style` in a test, two ways and no other:

- `style_in_process`: the command's real code in the test process (typer's CliRunner), with the
  environment and working folder a process would have. For what a command says and writes.
- `style_process`: `python -m agentstyle` as a process of its own. For what only a process
  shows: exit codes over a pipe, stdio, signals, a terminal (`style_on_a_terminal`).

Both run in `clean_env` (tests/support/environment.py).
"""

from __future__ import annotations

import json
import os
import pty
import shlex
import subprocess
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.environment import clean_env, terminal_env

TIMEOUT_S = 120


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


def style_process(
    cwd: Path,
    home: Path | None,
    *args: str,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    terminal: bool = False,
    timeout: float = TIMEOUT_S,
) -> subprocess.CompletedProcess[str]:
    """`python -m agentstyle ARGS` as a process of its own, in `clean_env` (with `terminal`,
    as an 80-column terminal has it), from `cwd`. No `home`: a folder of its own beside `cwd`
    (`cwd-home`), never the developer's."""
    if home is None:
        home = cwd.with_name(cwd.name + "-home")
        home.mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "agentstyle", *args],
        cwd=cwd,
        env=(terminal_env if terminal else clean_env)(home, env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@dataclass(frozen=True, slots=True)
class Run:
    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        """stdout as exactly one JSON document (json.loads refuses anything after it)."""
        return json.loads(self.stdout)

    def __str__(self) -> str:
        return f"style {' '.join(self.args)} -> {self.code}\n{self.stdout}\n{self.stderr}"


def style(
    *args: str,
    cwd: Path,
    home: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> Run:
    """`style ARGS` as a process on an 80-column terminal's environment, for the CLI tests: no
    traceback allowed."""
    proc = style_process(cwd, home or cwd, *args, env=env, stdin=stdin, terminal=True)
    assert "Traceback" not in proc.stderr, proc.stderr
    return Run(tuple(args), proc.returncode, proc.stdout, proc.stderr)


def style_many(
    runs: Sequence[tuple[str, ...]], *, cwd: Path, home: Path | None = None
) -> list[Run]:
    """Independent runs side by side (each is a whole interpreter start)."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda args: style(*args, cwd=cwd, home=home), runs))


def style_on_a_terminal(
    *args: str, cwd: Path, home: Path, env: dict[str, str] | None = None, bash: bool = False
) -> tuple[int, str]:
    """`style ARGS` with its stdout on a pseudo-terminal, as in an interactive shell (started by
    bash with `bash`): the exit code and what the terminal received."""
    argv = [sys.executable, "-m", "agentstyle", *args]
    if bash:  # two commands, so bash stays the parent (completion looks at it)
        argv = ["bash", "-c", " ".join(shlex.quote(a) for a in argv) + "; exit $?"]
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=terminal_env(home, env),
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:  # read as it comes: a full pty buffer would block the command
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the command closed its end
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        _, err = proc.communicate(timeout=TIMEOUT_S)
    finally:
        reader.join(TIMEOUT_S)
        os.close(master)
    assert b"Traceback" not in err, err
    return proc.returncode, b"".join(chunks).decode("utf-8", errors="replace")
