"""Shell analysis cost: warm medians of typical commands, and the worst cases of its limits.

Typical: each command analysed 300 times in one warm process, the median per call reported
(target: under 1 ms). Worst cases: one analysis each (median of 3) of the inputs that hit the
limits, and the issue's stress command (20,000 simple commands, `$(` nested 500 deep, 1 MB of
heredocs) through a real hook process with guard-destructive installed (the harness's view).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

TYPICAL = {
    "git status": "git status",
    "and-list": "cargo fmt && git commit -am 'wip' && GIT_TRACE=0 git push -f origin main",
    "pipeline": "pytest -q tests/ 2>&1 | tail -20",
    "cd + build": "cd frontend && npm run build",
    "find -exec": "find . -name '*.pyc' -exec rm -f {} +",
    "bash -lc": "bash -lc 'cd repo && make test'",
    "for loop": 'for f in src/*.py; do ruff check "$f"; done',
    "heredoc commit": "git commit -m \"$(cat <<'EOF'\nFix the parser\n\nDetails.\nEOF\n)\"",
    "python heredoc": "python3 - <<'PY'\nimport subprocess\nsubprocess.run(['ls'])\nPY",
    "curl piped to sh": "curl -fsSL https://example.com/install.sh | sh",
    "sudo env": "sudo -u app env A=1 timeout 5 nice -n 5 ./deploy.sh --prod",
    "xargs": "git ls-files -z '*.py' | xargs -0 -n 50 ruff format",
}


def stress_command() -> str:
    segments = "\n".join(f"echo step{i} && touch out/f{i}" for i in range(10_000))
    deep = "echo " + "$(" * 500 + "git reset --hard" + ")" * 500
    line = "lorem ipsum dolor sit amet " * 4 + "\n"
    docs = "".join(f"cat > d{i}.txt <<'E{i}'\n" + line * 95 + f"E{i}\n" for i in range(100))
    return "rm -rf /\n" + segments + "\n" + deep + "\n" + docs + "rm -rf ~\n"


WORST = {
    "stress (20k commands, $( x500, 1 MB heredocs)": stress_command,
    "$( nested 500 deep": lambda: "$(" * 500 + "rm -rf /" + ")" * 500,
    "1 MB heredoc into bash (60k commands)": lambda: (
        "bash <<'EOF'\n" + "echo hello world\n" * 60_000 + "rm -rf /\nEOF\n"
    ),
    "50,500-stage pipeline (element limit)": lambda: " | ".join(f"a{i}" for i in range(50_500)),
    "25,000 `<<` (hostile redirections)": lambda: "cat <<E; ls\nE\n" + "<<" * 25_000,
    "1 MB python heredoc": lambda: "python3 <<'EOF'\n" + "print('x')\n" * 95_000 + "EOF",
}


def warm_medians(rounds: int) -> dict[str, float]:
    from agentstyle.shell import parse_shell

    out: dict[str, float] = {}
    for name, command in TYPICAL.items():
        for _ in range(20):
            parse_shell(command, str(ROOT))
        samples = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            parse_shell(command, str(ROOT))
            samples.append(time.perf_counter() - t0)
        out[name] = statistics.median(samples) * 1e3
    return out


def worst_cases() -> dict[str, tuple[float, int, str]]:
    from agentstyle.shell import parse_shell

    out: dict[str, tuple[float, int, str]] = {}
    for name, build in WORST.items():
        command = build()
        times = []
        result = parse_shell(command)
        for _ in range(3):
            t0 = time.perf_counter()
            result = parse_shell(command)
            times.append(time.perf_counter() - t0)
        issues = " ".join(sorted({i.split("@")[0] for i in result.issues})) or "complete"
        out[name] = (statistics.median(times), len(result.commands), issues)
    return out


def hook_stress(runs: int) -> float:
    """Median wall seconds of the stress payload through a new hook process."""
    with tempfile.TemporaryDirectory(prefix="shell-bench-") as tmp:
        project = Path(tmp) / "proj"
        home = Path(tmp) / "home"
        project.mkdir()
        home.mkdir()
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("STYLE_", "CLAUDE_")) and k != "PYTHONDONTWRITEBYTECODE"
        }
        env.update(HOME=str(home), PYTHONPYCACHEPREFIX=str(home / "pycache"), STYLE_ENGINE="off")
        guard = ROOT / "agentstyle" / "library" / "guard-destructive"
        subprocess.run(
            [sys.executable, "-m", "agentstyle", "install", str(guard)],
            cwd=project,
            env=env,
            check=True,
            capture_output=True,
        )
        payload = {
            "session_id": "bench",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": stress_command()},
            "tool_use_id": "toolu_bench",
        }
        data = json.dumps(payload).encode()
        argv = [sys.executable, "-m", "agentstyle.hook", "--harness", "claude-code"]
        argv += ["--event", "PreToolUse"]
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            proc = subprocess.run(argv, cwd=project, env=env, input=data, capture_output=True)
            times.append(time.perf_counter() - t0)
            if b'"deny"' not in proc.stdout:
                raise SystemExit(f"the stress payload was not refused: {proc.stdout[:200]!r}")
        shutil.rmtree(home, ignore_errors=True)
        return statistics.median(times)


def run(rounds: int = 300, hook_runs: int = 3) -> str:
    """The section of bench/RESULTS.md."""
    lines = ["| typical command | median per analysis (warm) |", "|---|---|"]
    warm = warm_medians(rounds)
    for name, ms in warm.items():
        lines.append(f"| {name} | {ms * 1000:.0f} µs |")
    lines.append(
        f"| **median of the medians** | **{statistics.median(warm.values()) * 1000:.0f} µs** |"
    )
    lines += ["", "| worst case | analysis | elements | flagged |", "|---|---|---|---|"]
    for name, (seconds, count, issues) in worst_cases().items():
        lines.append(f"| {name} | {seconds:.2f} s | {count:,} | {issues} |")
    hook = hook_stress(hook_runs)
    lines += [
        "",
        f"Stress payload through a new hook process (guard-destructive installed, no engine, "
        f"median of {hook_runs}): {hook:.2f} s, refused. The shortest hook timeout STYLE "
        "writes is 10 s (Codex).",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--hook-runs", type=int, default=3)
    args = parser.parse_args()
    print(run(args.rounds, args.hook_runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
