"""What the portable hook command costs to start, beside the forms it could have been.

A committed hook config runs `sh -c 'command -v style-hook … && exec style-hook …'`: a shell,
a PATH lookup, then the console script. Measured side by side, round-robin, a new process each
time, with a payload on stdin and no STYLE project around (so every form exits as soon as it
has found there is no work): the bare interpreter, `python -m agentstyle.hook` (the absolute
form personal scopes keep), the `style-hook` script, and the full portable command.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentstyle.install.hookcommand import hook_command

ROUNDS = 30


def run() -> dict[str, float]:
    bin_dir = str(Path(sys.executable).parent)
    payload = json.dumps(
        {
            "session_id": "b",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        }
    ).encode()
    forms = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -m agentstyle.hook": [
            sys.executable,
            "-m",
            "agentstyle.hook",
            "--harness",
            "claude-code",
            "--event",
            "PreToolUse",
        ],
        "style-hook": [
            os.path.join(bin_dir, "style-hook"),
            "--harness",
            "claude-code",
            "--event",
            "PreToolUse",
        ],
        "sh -c (portable command)": [
            "/bin/sh",
            "-c",
            hook_command("claude-code", "PreToolUse", False, "project"),
        ],
    }
    times: dict[str, list[float]] = {name: [] for name in forms}
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "PATH": os.pathsep.join([bin_dir, "/usr/bin", "/bin"]),
            "HOME": tmp,
            "STYLE_ENGINE": "off",
            "PYTHONPYCACHEPREFIX": os.path.join(tmp, "pycache"),
        }
        for _ in range(ROUNDS + 2):
            for name, argv in forms.items():
                t0 = time.perf_counter()
                subprocess.run(argv, input=payload, cwd=tmp, env=env, capture_output=True)
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts[2:]) * 1000 for name, ts in times.items()}


def section() -> str:
    figures = run()
    base = figures["python -m agentstyle.hook"]
    rows = "".join(f"| {name} | {ms:.1f} ms | {ms / base:.2f}x |\n" for name, ms in figures.items())
    return (
        "## Start cost of the hook command\n\n"
        "Method (`bench/command_bench.py`): a new process per run, round-robin, median of "
        f"{ROUNDS}, a PreToolUse payload on stdin, no STYLE project around (each form exits once "
        "it finds no work): what each way of starting the hook costs before any evaluation.\n\n"
        "| form | median | vs `python -m agentstyle.hook` |\n|---|---|---|\n" + rows
    )


if __name__ == "__main__":
    print(section())
