"""Helpers for the harness tests: a scratch project any harness can be installed into, payloads
from the shared fixtures of each harness, and the hook run as each harness runs it.

Every hook is a real subprocess: `python -m agentstyle.hook --harness H --event E` (or the
exact command written into the harness's config, run with `sh -c`), against the project's own
`.style/style.duckdb`. The `style` commands run their own code in the test process
(`HarnessProject.cli`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import (
    FIXTURE_CWD,
    HARNESS_FIXTURES,
    HookResult,
    Project,
    _encode,
    clean_env,
    finish,
    style_in_process,
)

from agentstyle.harnesses import SUPPORTED, adapter_for, project_dir_env
from agentstyle.harnesses.install import is_style_command

FIXTURES = HARNESS_FIXTURES
DATA = Path(__file__).resolve().parent / "data" / "harness"
# Every harness the tests run over: SUPPORTED, so a harness added there is tested here.
HARNESSES = SUPPORTED
# The folder of each harness's sample payloads under tests/fixtures/ (a harness without one
# fails every test that reads them: add its fixtures with it).
FOLDER = {name: name for name in HARNESSES} | {"gemini-cli": "gemini"}
# The project config install writes for each harness (its adapter's `config_file`).
CONFIG = {name: adapter_for(name).config_file for name in HARNESSES}
# The project folder a harness names to its hooks (Codex runs them in the session's cwd).
PROJECT_ENV = {name: env for name in HARNESSES if (env := project_dir_env(name)) is not None}


def fixture_text(harness: str, name: str) -> str:
    return (FIXTURES / FOLDER[harness] / name).read_text("utf-8")


class HarnessProject(Project):
    """A scratch project; every harness can be installed into it."""

    def cli(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """`style ARGS`, its real code run in the test process (conftest.style_in_process): the
        harness tests are about what the commands say and write, not about their process."""
        return style_in_process(self.root, self.home, *args, env=env)

    def config(self, harness: str) -> Path:
        return self.root / CONFIG[harness]

    def fixture(self, harness: str, name: str, **overrides: Any) -> dict[str, Any]:
        """A shared fixture of a harness, its project folder rewritten to this project."""
        text = fixture_text(harness, name).replace(FIXTURE_CWD, self.root.as_posix())
        data: dict[str, Any] = json.loads(text)
        for key, value in overrides.items():
            if value is None:
                data.pop(key, None)
            else:
                data[key] = value
        return data

    def hook_as(
        self,
        harness: str,
        event: str,
        payload: dict[str, Any] | bytes | str,
        *,
        extra: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        check: bool = True,
    ) -> HookResult:
        """`python -m agentstyle.hook --harness H --event E` with the payload on stdin."""
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "agentstyle.hook",
                "--harness",
                harness,
                "--event",
                event,
                *extra,
            ],
            cwd=self.root,
            env=clean_env(self.home, {**self.hook_env, **(env or {})}),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        return finish(proc, _encode(payload), check=check)

    def installed_command(self, native_event: str, harness: str = "claude-code") -> str:
        """STYLE's handler command for a native event, as written into the harness's config."""
        doc = json.loads(self.config(harness).read_text("utf-8"))
        entries = doc["hooks"][native_event]
        commands = []
        for entry in entries:
            handlers = entry.get("hooks", [entry])
            commands += [h["command"] for h in handlers if is_style_command(h["command"])]
        [command] = commands
        assert isinstance(command, str)
        return command

    def run_command(
        self, harness: str, command: str, payload: dict[str, Any], *, check: bool = True
    ) -> HookResult:
        """A handler command run as the harnesses run one: `sh -c`, cwd the project."""
        env = {PROJECT_ENV[harness]: str(self.root)} if harness in PROJECT_ENV else None
        proc = subprocess.Popen(
            ["/bin/sh", "-c", command],
            cwd=self.root,
            env=clean_env(self.home, {**self.hook_env, **(env or {})}),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        return finish(proc, _encode(payload), check=check)

    def run_installed_as(
        self, harness: str, native_event: str, payload: dict[str, Any]
    ) -> HookResult:
        return self.run_command(harness, self.installed_command(native_event, harness), payload)


def test_every_harness_has_fixtures() -> None:
    for harness in HARNESSES:
        assert list((FIXTURES / FOLDER[harness]).glob("*.json")), harness
