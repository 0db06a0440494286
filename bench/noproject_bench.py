"""Nothing to do costs nothing: the hook in a folder with no STYLE project, beside the bare
interpreter (`python -c pass`).

A user-scope install runs the hook for every call in every folder; where no project is in
sight (no `.style/` or `style.lock.yaml` upwards of the working folder, the payload's `cwd` and
the harness's project folder, no `~/.style` policy) it must exit at once (hook.py
`nothing_to_do`). What every install runs is measured: the `style-hook` console script (found
on PATH by a project install, by its absolute path in a personal one); beside it the form that
personal installs wrote before, `python -m agentstyle.hook`. Rounds interleave the three
commands, so drift on a shared machine hits each alike; medians of ROUNDS, their
difference and ratio to the bare interpreter.

`python -m bench.noproject_bench` prints the figures.
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

ROUNDS = 300
BIN = Path(sys.executable).parent


def _timed(argv: list[str], data: bytes, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child: the CPU time (user + system) is what a shared
    machine's load changes least."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
        proc.stdin.close()
    except BrokenPipeError:  # `python -c pass` exits without reading it
        pass
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, argv
    return elapsed, usage.ru_utime + usage.ru_stime


def run(rounds: int = ROUNDS) -> dict[str, float]:
    """Median milliseconds per form (wall, and CPU), and the hooks' difference and ratio to
    `python -c pass`."""
    with tempfile.TemporaryDirectory(prefix="style-noproject-") as tmp:
        root = Path(tmp)
        home, folder = root / "home", root / "work" / "some-repo"
        home.mkdir()
        folder.mkdir(parents=True)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("STYLE_", "CLAUDE_", "CURSOR_", "GEMINI_"))
        }
        env["HOME"] = str(home)
        # Bytecode as an install has it: written by the warm-up round below, then read (with
        # PYTHONDONTWRITEBYTECODE set, every start would compile the standard library's modules
        # and STYLE's again).
        env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        payload = {
            "session_id": "bench-noproject",
            "transcript_path": str(home / "t.jsonl"),
            "cwd": str(folder),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls -la"},
        }
        data = json.dumps(payload).encode()
        args = ["--harness", "claude-code", "--event", "PreToolUse"]
        forms = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "style-hook": [str(BIN / "style-hook"), *args],
            "python -m agentstyle.hook": [sys.executable, "-m", "agentstyle.hook", *args],
        }
        for argv in forms.values():  # warm the bytecode cache and the page cache
            _timed(argv, data, folder, env)
        times: dict[str, list[float]] = {name: [] for name in forms}
        cpu: dict[str, list[float]] = {name: [] for name in forms}
        for _ in range(rounds):
            for name, argv in forms.items():
                wall, used = _timed(argv, data, folder, env)
                times[name].append(wall)
                cpu[name].append(used)
        # what the hook answered there: nothing, and nothing written
        check = subprocess.run(
            forms["style-hook"], input=data, cwd=folder, env=env, capture_output=True
        )
        assert (check.stdout, check.stderr, check.returncode) == (b"", b"", 0), check
        assert not (home / ".style").exists()
    medians = {name: statistics.median(ts) * 1000 for name, ts in times.items()}
    bare = medians["python -c pass"]
    out = {f"{name} ms": value for name, value in medians.items()}
    for name in ("style-hook", "python -m agentstyle.hook"):
        out[f"{name} over bare ms"] = medians[name] - bare
        out[f"{name} ratio"] = medians[name] / bare
    for name, ts in cpu.items():
        out[f"{name} cpu ms"] = statistics.median(ts) * 1000
    return out


def section() -> str:
    f = run()
    rows = "".join(
        f"| `{name}` | {f[f'{name} ms']:.2f} ms | "
        + (
            "—"
            if name == "python -c pass"
            else f"+{f[f'{name} over bare ms']:.2f} ms ({f[f'{name} ratio']:.2f}×)"
        )
        + f" | {f[f'{name} cpu ms']:.2f} ms |\n"
        for name in ("python -c pass", "style-hook", "python -m agentstyle.hook")
    )
    return (
        "## No project: nothing to do costs nothing\n\n"
        "Method (`bench/noproject_bench.py`): a folder with no `.style/`, no `style.lock.yaml` "
        "and no `~/.style`; a Claude Code `PreToolUse` payload on stdin; the three commands "
        f"interleaved for {ROUNDS} rounds, wall time from `Popen` to exit and the child's CPU "
        "time, medians. The target: at most 2 ms over the bare interpreter. `style-hook` is what "
        "every install runs (a personal scope by its absolute path); `python -m agentstyle.hook` "
        "is the form personal scopes wrote before.\n\n"
        "| command | median | over `python -c pass` | CPU (user + system) |\n|---|---|---|---|\n"
        + rows
    )


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key}: {value:.3f}")
