"""Hook latency as the harness sees it: a new process per event, the payload on stdin.

For 10, 100, 1,000 and 10,000 installed rules, one loop runs, round-robin so drift hits all
alike: the bare interpreter (`python -c pass`), a hand-written standard-library hook that reads
the JSON and tests 10 regexes (what a user writes instead), the STYLE hook with a warm resident
engine, and the STYLE hook with no engine (cold: it imports DuckDB and opens the database).
Also: engine evaluation alone (a request over the socket, no process start), peak RSS of the
hook client and of the engine.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.generate import write_package

HANDWRITTEN = r"""
import json, re, sys
payload = json.load(sys.stdin)
command = payload.get("tool_input", {}).get("command", "")
patterns = [re.compile(p) for p in (
    r"^rm .*-[a-zA-Z]*r", r"git push .*(--force|-f)", r"git reset --hard", r"DROP TABLE",
    r"\.env", r"id_rsa", r"^sudo ", r"curl .*\| *sh", r"chmod 777", r"npm unpublish")]
for p in patterns:
    if p.search(command):
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
              "permissionDecision": "deny", "permissionDecisionReason": "refused"}}))
        break
"""


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("STYLE_", "CLAUDE_")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    env["HOME"] = str(home)
    env["PYTHONPYCACHEPREFIX"] = str(home / "pycache")  # bytecode as a real install has it
    env.update(extra)
    return env


def _timed(argv: list[str], data: bytes, cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (KiB) of one child process."""
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
    proc.stdin.write(data)
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return time.perf_counter() - t0, int(usage.ru_maxrss)


def _engine_rss(home: Path) -> int:
    from agentstyle.runtime import client

    info = client.ping(str(home))
    if not info:
        return 0
    try:
        for line in Path(f"/proc/{info['pid']}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def bench_rules(n: int, runs: int, tmp: Path) -> dict[str, float]:
    project = tmp / f"project-{n}"
    project.mkdir()
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    write_package(tmp / f"pkg-{n}", n)
    subprocess.run(
        [sys.executable, "-m", "agentstyle", "install", str(tmp / f"pkg-{n}")],
        cwd=project,
        env=_env(home, STYLE_ENGINE="off"),
        check=True,
        capture_output=True,
    )
    payload = json.dumps(
        {
            "session_id": "bench",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "cargo test -p acme-auth && ls -la"},
            "tool_use_id": "toolu_bench",
        }
    ).encode()
    hook = [
        sys.executable,
        "-m",
        "agentstyle.hook",
        "--harness",
        "claude-code",
        "--event",
        "PreToolUse",
    ]
    script = tmp / "handwritten.py"
    script.write_text(HANDWRITTEN, "utf-8")
    warm_env = _env(home, STYLE_ENGINE="on", STYLE_ENGINE_IDLE_S="600")
    cold_env = _env(home, STYLE_ENGINE="off")
    # warm up: bytecode caches, the engine
    for _ in range(3):
        _timed([sys.executable, str(script)], payload, project, warm_env)
        _timed(hook, payload, project, warm_env)
    from agentstyle.runtime import client

    deadline = time.monotonic() + 30
    while client.ping(str(project / ".style")) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    samples: dict[str, list[float]] = {"bare": [], "handwritten": [], "warm": [], "cold": []}
    rss: dict[str, int] = {}
    cold_every = 2  # a cold hook costs ~10x a warm one: sample it every other round
    for i in range(runs):
        samples["bare"].append(_timed([sys.executable, "-c", "pass"], b"", project, warm_env)[0])
        samples["handwritten"].append(
            _timed([sys.executable, str(script)], payload, project, warm_env)[0]
        )
        seconds, kib = _timed(hook, payload, project, warm_env)
        samples["warm"].append(seconds)
        rss["warm hook client"] = max(rss.get("warm hook client", 0), kib)
        if i % cold_every == 0:
            client.stop_engine(str(project / ".style"))
            seconds, kib = _timed(hook, payload, project, cold_env)
            samples["cold"].append(seconds)
            rss["cold hook"] = max(rss.get("cold hook", 0), kib)
            _timed(hook, payload, project, warm_env)  # bring the engine back
            deadline = time.monotonic() + 30
            while client.ping(str(project / ".style")) is None and time.monotonic() < deadline:
                time.sleep(0.02)
    # engine evaluation alone: requests over the socket, no process start
    message = {
        "op": "hook",
        "version": client.engine_version(),
        "digest": client.read_digest(str(project / ".style")),
        "harness": "claude-code",
        "event": "PreToolUse",
        "fail_closed": False,
        "stdin": payload.decode(),
        "budget_s": 30.0,
    }
    engine_times = []
    for _ in range(max(50, runs)):
        t0 = time.perf_counter()
        answer, _ = client.request(str(project / ".style"), message, 30)
        engine_times.append(time.perf_counter() - t0)
        assert answer is not None
    rss["engine"] = _engine_rss(project / ".style")
    client.stop_engine(str(project / ".style"))
    out = {f"{k}_ms": statistics.median(v) * 1000 for k, v in samples.items()}
    out["engine_eval_us"] = statistics.median(engine_times) * 1e6
    out["warm_vs_handwritten"] = out["warm_ms"] / out["handwritten_ms"]
    for k, v in rss.items():
        out[f"rss_{k.replace(' ', '_')}_mib"] = v / 1024
    return out


def run(sizes: tuple[int, ...] = (10, 100, 1000, 10_000), runs: int = 20) -> dict[int, dict]:
    tmp = Path(tempfile.mkdtemp(prefix="style-hook-bench-"))
    try:
        return {n: bench_rules(n, runs, tmp) for n in sizes}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for n, figures in run(runs=10).items():
        print(n, {k: round(v, 2) for k, v in figures.items()})
