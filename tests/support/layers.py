"""A machine with layered policies for the layer tests: an organisation's policy folder and its
system-wide client configs moved under the test's folder (STYLE_MANAGED_HOME,
STYLE_MANAGED_CONFIG_ROOT: /etc is never touched), a home folder for `--scope user`, and a
project. Every install is the real `style install`; every handler runs as the installed config
says (`sh -c COMMAND`, the payload on stdin)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

from tests.support.cli import style_in_process, style_process
from tests.support.environment import clean_env
from tests.support.hooks import FIXTURE_CWD, FIXTURES, HookResult, feed, finish, start
from tests.support.packages import no_rm, package_text
from tests.support.project import Project

CLAUDE_MANAGED = "etc/claude-code/managed-settings.json"

# The organisation's rule: deletes are refused, whatever the project says.
ORG = package_text(
    "org",
    no_rm("ORG no-rm: the organisation forbids deletes."),
    description="the organisation's guards",
)


class Machine:
    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.home = tmp_path / "home"
        self.managed = tmp_path / "managed"
        self.system = tmp_path / "system"
        self.project = Project(tmp_path / "proj", self.home)
        self.env = {
            "STYLE_MANAGED_HOME": str(self.managed),
            "STYLE_MANAGED_CONFIG_ROOT": str(self.system),
        }
        self.project.hook_env = dict(self.env)

    # -- packages and installs -------------------------------------------------------------------
    def package(self, name: str, text: str) -> Path:
        folder = self.tmp / "packages" / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "STYLE.yaml").write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        return folder

    def style(
        self,
        *args: str,
        cwd: Path | None = None,
        check: bool = True,
        process: bool = False,
        **env: str,
    ) -> subprocess.CompletedProcess[str]:
        """`style ARGS` with this machine's layers: the command's own code in the test process
        (`style_in_process`), or with `process` as a process of its own."""
        where, environment = cwd or self.project.root, {**self.env, **env}
        if process:
            proc = style_process(where, self.home, *args, env=environment)
        else:
            proc = style_in_process(where, self.home, *args, env=environment)
        if check and proc.returncode != 0:
            raise AssertionError(f"style {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
        return proc

    def install_managed(self, package: Path) -> subprocess.CompletedProcess[str]:
        return self.style("install", "--scope", "managed", str(package), cwd=self.tmp)

    def install_user(self, package: Path) -> subprocess.CompletedProcess[str]:
        return self.style("install", "--scope", "user", str(package), cwd=self.home)

    def install_project(
        self, package: Path, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        return self.style("install", str(package), check=check)

    # -- the configs -----------------------------------------------------------------------------
    @property
    def managed_settings(self) -> Path:
        return self.system / CLAUDE_MANAGED

    @property
    def user_settings(self) -> Path:
        return self.home / ".claude" / "settings.json"

    @property
    def project_settings(self) -> Path:
        return self.project.root / ".claude" / "settings.json"

    def commands(self, settings: Path, event: str) -> list[str]:
        """The STYLE handler commands a Claude Code settings file runs for `event`."""
        if not settings.is_file():
            return []
        hooks = json.loads(settings.read_text("utf-8")).get("hooks", {})
        return [h["command"] for group in hooks.get(event, []) for h in group["hooks"]]

    # -- the handlers ----------------------------------------------------------------------------
    def payload(self, fixture: str, **overrides: Any) -> bytes:
        text = (FIXTURES / fixture).read_text("utf-8")
        data = json.loads(text.replace(FIXTURE_CWD, self.project.root.as_posix()))
        data.update(overrides)
        return json.dumps(data).encode("utf-8")

    def run_together(self, commands: list[str], payload: bytes, **env: str) -> list[HookResult]:
        """Every handler started at once, as the client starts the matching hooks of one event,
        each with the same payload."""
        environment = clean_env(
            self.home, {**self.env, "CLAUDE_PROJECT_DIR": str(self.project.root), **env}
        )
        procs = [
            start(["/bin/sh", "-c", command], self.project.root, environment)
            for command in commands
        ]
        for proc in procs:
            feed(proc, payload)
        return [finish(proc, b"") for proc in procs]
