"""`make bench`: every benchmark in one run on this machine, written to bench/RESULTS.md."""

from __future__ import annotations

import importlib
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from bench import batch_bench, command_bench, compile_bench, corpus, hook_bench, stall_bench

ROOT = Path(__file__).resolve().parent.parent
E2E_SECTION = "## Hook durations the real clients logged"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def hook_section() -> str:
    figures = hook_bench.run()
    head = (
        "| rules | `python -c pass` | hand-written hook | STYLE warm (engine) | ratio warm / "
        "hand-written | STYLE cold (no engine) | engine eval alone | RSS client | RSS "
        "cold hook | RSS engine |\n|---|---|---|---|---|---|---|---|---|---|\n"
    )
    rows = "".join(
        f"| {n:,} | {f['bare_ms']:.1f} ms | {f['handwritten_ms']:.1f} ms | {f['warm_ms']:.1f} ms | "
        f"{f['warm_vs_handwritten']:.2f}x | {f['cold_ms']:.0f} ms | "
        f"{f['engine_eval_us'] / 1000:.1f} ms | {f['rss_warm_hook_client_mib']:.0f} MiB | "
        f"{f['rss_cold_hook_mib']:.0f} MiB | {f['rss_engine_mib']:.0f} MiB |\n"
        for n, f in figures.items()
    )
    return (
        "## Hook latency as the harness sees it\n\n"
        "Method (`bench/hook_bench.py`): for each rule count a generated package (five rule "
        "shapes) is installed into a scratch project; then one loop runs, round-robin, a new "
        "process per event with a PreToolUse Bash payload on stdin: the bare interpreter, a "
        "hand-written standard-library hook (reads the JSON, tests 10 regexes), the installed "
        "STYLE hook with a warm resident engine, and (every other round) the STYLE hook with no "
        "engine. Bytecode is cached as in a real install. Medians of 20 rounds (10 cold). "
        "'Engine eval alone' is one request over the socket without a process start. RSS is "
        "the peak resident set (wait4 for the hook processes, VmHWM for the engine).\n\n"
        + head
        + rows
    )


def stall_section() -> str:
    f = stall_bench.run()
    cases = (
        ("warm_engine", "a small call through the warm engine (for scale)"),
        ("no_engine", "the same call, no engine: direct evaluation (for scale)"),
        ("engine_off_while_running", "`STYLE_ENGINE=off` while an engine runs (it steps aside)"),
        (
            "oversized_while_running",
            "a 17 MiB payload while an engine runs (it answers per `fail`)",
        ),
        (
            "oversized_off_while_running",
            "a 17 MiB payload under `STYLE_ENGINE=off` while an engine runs",
        ),
    )
    rows = "".join(
        f"| {label} | {f[key + '_ms']:.0f} ms | {f[key + '_max_ms']:.0f} ms |\n"
        for key, label in cases
    )
    return (
        "## Direct evaluation while an engine runs (no stalls)\n\n"
        "Method (`bench/stall_bench.py`): a one-rule `fail: closed` package; each case is a new "
        "hook process with a PreToolUse Bash payload on stdin, an engine running before it "
        "starts (it holds the database lock for its lifetime, and before this fix such hooks "
        "waited out the 55 s deadline). Median and worst of 10 rounds.\n\n"
        "| case | median | worst |\n|---|---|---|\n" + rows
    )


def tamper_section() -> str:
    f = stall_bench.tamper_run()
    cases = (
        ("db_deleted", "the database deleted (rebuilt from style.lock.yaml)"),
        ("db_corrupted", "the database overwritten with random bytes"),
        ("lock_stranger", "the lock held by another program (`flock … sleep 300`)"),
        ("engine_stopped", "the engine stopped with SIGSTOP"),
        ("impostor", "an impostor answering allow on the engine's socket"),
    )
    rows = "".join(
        f"| {label} | {f[key + '_ms']:.0f} ms | {f[key + '_max_ms']:.0f} ms |\n"
        for key, label in cases
    )
    return (
        "## A broken guard still refuses (`fail: closed`)\n\n"
        "Method (`bench/stall_bench.py` `tamper_run`): a one-rule `fail: closed` package; each "
        "case breaks the guard from outside, then times the gated call through the installed "
        "hook command (`--fail-closed`) until its refusal. Median and worst of 5 rounds; "
        f"refused {f['refused']:.0f} of {f['calls']:.0f} calls.\n\n"
        "| case | median | worst |\n|---|---|---|\n" + rows
    )


def main() -> int:
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    sections: list[str] = []
    print("hook latency (4 sizes) ...", flush=True)
    sections.append(hook_section())
    print("start cost of the hook command forms ...", flush=True)
    sections.append(command_bench.section())
    print("direct evaluations while an engine runs ...", flush=True)
    sections.append(stall_section())
    print("a broken guard still refuses ...", flush=True)
    sections.append(tamper_section())
    print("batch throughput: 100,000 events x 1,000 rules ...", flush=True)
    b = batch_bench.run()
    sections.append(
        "## Batch evaluation (the replay path)\n\n"
        "Method (`bench/batch_bench.py`): 100,000 normalized events of four shapes (Bash, Edit "
        "of a .rs file, prompt, Read), 50 sessions, evaluated through `evaluate()` in batches of "
        f"{b['batch']:,} inside transactions against {b['rules']:,} generated rules in an "
        "in-memory database (`log: off`, as replay runs).\n\n"
        f"| evaluate | normalize | end to end | outcomes recorded |\n|---|---|---|---|\n"
        f"| {b['evaluate_per_s']:,.0f} events/s | {b['normalize_per_s']:,.0f} events/s | "
        f"{b['end_to_end_per_s']:,.0f} events/s | {b['fired']:,} |\n"
    )
    print("compile: 10,000 generated rules (median of 3) ...", flush=True)
    figures = compile_bench.run(10_000, 3)
    rows = "\n".join(f"| {k} | {v:.2f} s |" for k, v in figures.items())
    sections.append(
        "## Compile 10,000 rules\n\n"
        "Method (`bench/compile_bench.py`): 10,000 rule files of five shapes loaded, validated "
        "(RE2 patterns compiled by DuckDB), planned for claude-code, lowered and stored into an "
        f"in-memory DuckDB. Median of 3 runs.\n\n| pass | median |\n|---|---|\n{rows}\n"
    )
    for name, title in (
        ("import_bench", "Import 10,000 CSV rows"),
        ("replay_bench", "Replay the bundled transcripts"),
    ):
        try:
            module = importlib.import_module(f"bench.{name}")
        except ImportError:
            continue
        print(f"{title} ...", flush=True)
        result = module.run()
        rows = "\n".join(
            f"| {k} | {v:,.2f} |" if isinstance(v, float) else f"| {k} | {v} |"
            for k, v in result.items()
        )
        sections.append(
            f"## {title}\n\n(`bench/{name}.py`)\n\n| measure | value |\n|---|---|\n{rows}\n"
        )
    print("shell parsing cost on the hook path ...", flush=True)
    shell = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "shell_import.py")],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    sections.append(
        "## Shell parsing on the hook path\n\n"
        "Method (`bench/shell_import.py`): fresh interpreters, median of 20: importing "
        "`agentstyle.engine.shell` and the shell_* modules it needs (paid only by shell "
        "events), first and later analyses of a typical compound command.\n\n"
        f"```\n{shell.stdout.strip()}\n```\n"
    )
    print("shell analysis: typical commands warm, worst cases, stress through the hook ...")
    from bench import shell_bench

    sections.append(
        "## Shell analysis: typical commands and worst cases\n\n"
        "Method (`bench/shell_bench.py`): each typical command analysed 300 times in one warm "
        "process (median per call; target under 1 ms); each worst case analysed 3 times "
        "(median); the issue's stress command once per new hook process.\n\n"
        + shell_bench.run()
        + "\n"
    )
    print("guard corpus: precision and recall ...", flush=True)
    report, seconds = corpus.measure()
    sections.append(corpus.section(report, seconds))
    text = (
        f"# Benchmark results\n\nOne `make bench` run, {started}, on {machine()}.\n\n"
        + "\n".join(sections)
    )
    results = ROOT / "bench" / "RESULTS.md"
    # `make e2e` measures the real clients' hook durations; a bench run keeps that section
    kept = results.read_text("utf-8").split(E2E_SECTION, 1) if results.exists() else []
    if len(kept) == 2:
        text = text.rstrip("\n") + "\n\n" + E2E_SECTION + kept[1]
    results.write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
