"""Running the real `style` command for the CLI tests: `python -m agentstyle` in a subprocess,
with a fixed terminal width and an environment that steers nothing."""

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

from conftest import clean_env

WIDTH = "80"
TIMEOUT_S = 120


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


def environment(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = clean_env(home)
    env.pop("NO_COLOR", None)
    env["COLUMNS"] = WIDTH
    env.update(extra or {})
    return env


def style(
    *args: str,
    cwd: Path,
    home: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> Run:
    proc = subprocess.run(
        [sys.executable, "-m", "agentstyle", *args],
        cwd=cwd,
        env=environment(home or cwd, env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
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
        env=environment(home, env),
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
