"""Helpers for the harness tests: a scratch project any harness can be installed into, payloads
from the shared fixtures of each harness, and the hook run as each harness runs it.

Every hook is a real subprocess: `python -m agentstyle.hook --harness H --event E` (or the
exact command written into the harness's config, run with `sh -c`), against the project's own
`.style/style.duckdb`. The `style` commands run their own code in the test process
(`Project.cli`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agentstyle.harnesses import HARNESSES as HOOK_FACTS
from agentstyle.harnesses import SUPPORTED, adapter_for, project_dir_env
from agentstyle.harnesses.install import is_style_command
from tests.support.environment import REPO
from tests.support.hooks import HARNESS_FIXTURES, HookResult, load_fixture, run_handler
from tests.support.project import Project, Saved

FIXTURES = HARNESS_FIXTURES
DATA = REPO / "tests" / "data" / "harness"
# Every harness the tests run over: SUPPORTED, so a harness added there is tested here.
HARNESSES = SUPPORTED
# The folder of each harness's sample payloads under tests/fixtures/ (a harness without one
# fails every test that reads them: add its fixtures with it).
FOLDER = {name: name for name in HARNESSES} | {"gemini-cli": "gemini"}
# The project config install writes for each harness (its adapter's `config_file`).
CONFIG = {name: adapter_for(name).config_file for name in HARNESSES}
# The project folder a harness names to its hooks (Codex runs them in the session's cwd).
PROJECT_ENV = {name: env for name in HARNESSES if (env := project_dir_env(name)) is not None}


# One shell-call fixture per harness and where its command lives (every harness has one: a
# harness added to SUPPORTED fails the tests that read it until it does).
SHELL_FIXTURES = {
    "claude-code": ("PreToolUse.bash-rm-rf.json", ("tool_input", "command")),
    "codex": ("PreToolUse.bash-rm-rf.json", ("tool_input", "command")),
    "cursor": ("beforeShellExecution.rm-rf.json", ("command",)),
    "gemini-cli": ("BeforeTool.run_shell_command-rm-rf.json", ("tool_input", "command")),
    "copilot-cli": ("PreToolUse.bash-rm-rf.json", ("tool_input", "command")),
    "qwen-code": ("PreToolUse.run_shell_command-rm-rf.json", ("tool_input", "command")),
    "opencode": ("tool.execute.before.bash-rm-rf.json", ("tool_input", "command")),
}


def shell_payload(
    harness: str, command: str, root: Path | None = None, session: str | None = None
) -> tuple[str, dict[str, Any]]:
    """(native event, payload) of the harness's own shell call running `command`: its shell
    fixture with the command put in its place, the project folder rewritten to `root` and the
    session id to `session` where given."""
    name, path = SHELL_FIXTURES[harness]
    fixture = FIXTURES / FOLDER[harness] / name
    payload = (
        load_fixture(fixture, root, {}) if root is not None else json.loads(fixture.read_text())
    )
    target = payload
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = command
    if session is not None:
        payload[HOOK_FACTS[harness].session_key] = session
    return str(payload["hook_event_name"]), payload


def config_doc(harness: str, text: str) -> dict[str, Any]:
    """The JSON document a harness's config holds: the file itself, or, where STYLE writes the
    whole file as a plugin of its own (OpenCode's, a `.js` file), its handler table as
    `{"hooks": …}`."""
    if CONFIG[harness].endswith(".js"):
        from agentstyle.harnesses.opencode import plugin_handlers

        return {"hooks": plugin_handlers(text, CONFIG[harness])}
    doc: dict[str, Any] = json.loads(text)
    return doc


def fixture_text(harness: str, name: str) -> str:
    return (FIXTURES / FOLDER[harness] / name).read_text("utf-8")


class HarnessProject(Project):
    """A scratch project; every harness can be installed into it."""

    def config(self, harness: str) -> Path:
        return self.root / CONFIG[harness]

    def fixture(self, harness: str, name: str, **overrides: Any) -> dict[str, Any]:
        """A shared fixture of a harness, its project folder rewritten to this project."""
        return load_fixture(FIXTURES / FOLDER[harness] / name, self.root, overrides)

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
        return self.hook(event, payload, extra=extra, env=env, check=check, harness=harness)

    def installed_command(self, native_event: str, harness: str = "claude-code") -> str:
        """STYLE's handler command for a native event, as written into the harness's config."""
        doc = config_doc(harness, self.config(harness).read_text("utf-8"))
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
        return run_handler(command, payload, cwd=self.root, env=self.hook_env_for(env), check=check)

    def run_installed_as(
        self, harness: str, native_event: str, payload: dict[str, Any]
    ) -> HookResult:
        return self.run_command(harness, self.installed_command(native_event, harness), payload)

    def install_cross(self, *harnesses: str) -> None:
        """The cross-harness package (tests/data/harness/cross) installed as `xh` for each of
        `harnesses`."""
        shutil.copytree(DATA / "cross", self.root / "xh")
        for harness in harnesses:
            proc = self.cli("install", "xh", "--harness", harness)
            assert proc.returncode == 0, proc.stderr


def cross_project(base: Path, *harnesses: str, name: str = "proj") -> HarnessProject:
    """A scratch project `base/name` (its home `base/home`) holding the cross-harness package
    as `xh`, installed for each of `harnesses`."""
    p = HarnessProject(base / name, base / "home")
    p.install_cross(*harnesses)
    return p


def saved_cross_install(
    tmp_path_factory: pytest.TempPathFactory, name: str, *harnesses: str
) -> Saved:
    """The cross-harness package installed for `harnesses` once (`Saved`: each test gets it
    back as it was, `saved.project(HarnessProject)`)."""

    def setup(base: Path) -> None:
        cross_project(base, *harnesses)

    return Saved.build(tmp_path_factory, name, setup)
