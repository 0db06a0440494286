"""Qwen Code run headless (`qwen -p`) against the mock's Anthropic Messages API.

Qwen Code takes an Anthropic-compatible endpoint (`--auth-type anthropic`, `ANTHROPIC_BASE_URL`),
so it talks to the same mock wire as Claude Code. It needs Node 22, which `install_clients.py`
keeps in `.e2e-cache/node-<version>/` for it alone: that Node goes first on its PATH here. Its
own background model requests (the managed memory's extraction and "dream" passes, the session
title) are switched off in the throwaway HOME, so every request the mock sees is the
conversation's.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from e2e import install_clients, mockapi

if TYPE_CHECKING:
    from e2e.clients import Run, Session

NAME = "qwen-code"
# What its user settings say in every throwaway HOME (a user-scope install merges beside them).
HOME_SETTINGS = {
    "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


class QwenCode:
    config = ".qwen/settings.json"
    api = "anthropic"

    @staticmethod
    def prepare_home(s: Session) -> None:
        folder = s.home / ".qwen"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "settings.json").write_text(json.dumps(HOME_SETTINGS, indent=2) + "\n")

    @staticmethod
    def command(
        s: Session, prompt: str, resume: bool, extra: list[str]
    ) -> tuple[list[str], dict[str, str], Path | None]:
        from e2e.clients import binary

        spec = install_clients.pinned()[NAME]
        # the developer's own Qwen Code settings never reach the run
        env = {k: v for k, v in s.env().items() if not k.startswith("QWEN")}
        env.update(
            PATH=os.pathsep.join([str(install_clients.node_bin(spec["node"])), env["PATH"]]),
            ANTHROPIC_BASE_URL=s.server.url,
            ANTHROPIC_API_KEY="e2e-dummy",
            QWEN_DISABLE_AUTO_TITLE="1",
            QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
        )
        argv = [
            str(binary(NAME)),
            "-p",
            prompt,
            "--auth-type",
            "anthropic",
            "-m",
            mockapi.ANTHROPIC_MODEL,
            "--output-format",
            "stream-json",
            "--yolo",
        ]
        if resume:
            argv.append("--continue")
        return argv + extra, env, None

    @staticmethod
    def durations(s: Session, run: Run) -> list[tuple[str, float]]:
        return []
