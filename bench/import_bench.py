"""Import benchmark: a generated 10,000-row CSV imported (read, converted, validated, written)."""

from __future__ import annotations

import csv
import tempfile
import time
from pathlib import Path

from agentstyle.imports.importer import import_rules


def row(i: int) -> dict[str, str]:
    """One of four realistic rule shapes as a CSV row, varied by index."""
    kind = i % 4
    rid = f"rule-{i:05d}"
    if kind == 0:
        return {
            "id": rid,
            "target": "tool",
            "tool": "shell",
            "action": "block",
            "when": f'tool.input.command shell_regex "^tool{i} .*--danger"',
            "text": f"Command tool{i} with --danger is not allowed.",
        }
    if kind == 1:
        return {
            "id": rid,
            "target": "tool",
            "tool": "file.edit|file.write",
            "when": f'file.path glob "src/mod{i}/**/*.rs" and tool.added regex r"\\.unwrap\\(\\)"',
            "text": f"Module mod{i} returns errors with ? instead of unwrap().",
        }
    if kind == 2:
        return {
            "id": rid,
            "target": "event",
            "event": "prompt.submitted",
            "when": f'prompt contains "ticket-{i}"',
            "text": f"Ticket {i} has a runbook in docs/runbooks/{i}.md.",
        }
    return {
        "id": rid,
        "target": "tool",
        "tool": "web.fetch",
        "action": "block",
        "when": f'tool.input.url regex "^https?://blocked{i}\\\\.example"',
        "text": f"Host blocked{i}.example is not allowed.",
    }


COLUMNS = ["id", "target", "tool", "event", "action", "when", "text"]


def write_csv(path: Path, n: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        for i in range(n):
            writer.writerow(row(i))
    return path


def run(n: int = 10_000) -> dict[str, float]:
    """Seconds per pass of one import of `n` rows into an empty package, then a re-import."""
    with tempfile.TemporaryDirectory() as tmp:
        src = write_csv(Path(tmp) / "rules.csv", n)
        pkg = Path(tmp) / "pkg"
        t0 = time.perf_counter()
        report = import_rules("csv", [str(src)], str(pkg))
        total = time.perf_counter() - t0
        assert report.written and report.totals()["created"] == n, report.totals()
        t0 = time.perf_counter()
        again = import_rules("csv", [str(src)], str(pkg))
        reimport = time.perf_counter() - t0
        assert again.totals()["unchanged"] == n
    return {**report.timings, "total": total, "reimport": reimport}


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:<10} {value:.2f} s")
