"""Unlabeled real text through guard-secrets-output: what it would take out of ordinary output.

The secret-output corpus (bench/corpus/secrets.py) measures cases someone wrote and labelled.
This sweep reads text nobody wrote for STYLE, as a tool call would print it: Python sources and
documents in the virtual environment, the machine's `/etc`, C headers, Debian's copyright files
and package documents (not this repository's history: its tests hold fake keys on purpose).
Nearly all of it is ordinary, so every firing is worth a look by eye: a false alarm of a kind a
team would meet (fix the kind, with a case of ours in `tests/corpus/output/`), or a real secret
the machine ships (Debian's Chromium API key). It labels nothing and asserts nothing: the
figure is how many outputs a rule changed, and the list says which rule took what.

    python -m bench.corpus.sweep [--files N] [--seed S]

Each file gives its first 6,000 characters (a Read of a long file, a `cat` piped to `head`);
N files are drawn from each source (the same ones for the same seed and machine).
"""

from __future__ import annotations

import argparse
import difflib
import glob
import random
import sys
import sysconfig
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from bench.corpus.secrets import PACKAGE, bash_output

CHUNK = 6000
MAX_BYTES = 2_000_000


def sources(files: int, rng: random.Random) -> Iterator[tuple[str, str, str]]:
    """(source, where, text) for each output of the sweep."""
    site = sysconfig.get_paths()["purelib"]
    stdlib = sysconfig.get_paths()["stdlib"]
    globs = {
        "python-sources": [f"{site}/**/*.py", f"{stdlib}/**/*.py"],
        "python-docs": [f"{site}/**/*.md", f"{site}/**/*.rst", f"{site}/*.dist-info/RECORD"],
        "etc": ["/etc/**/*"],
        "c-headers": ["/usr/include/**/*.h"],
        "copyright": ["/usr/share/doc/*/copyright"],
        "docs": ["/usr/share/doc/**/*.txt", "/usr/share/doc/**/README*", "/usr/share/doc/**/*.md"],
    }
    for source, patterns in globs.items():
        found = sorted({p for pattern in patterns for p in glob.glob(pattern, recursive=True)})
        rng.shuffle(found)
        taken = 0
        for path in found:
            if taken >= files:
                break
            text = _text(Path(path))
            if text:
                taken += 1
                yield source, path, text[:CHUNK]


def _text(path: Path) -> str:
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return ""
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "" if "\x00" in text[:2000] else text


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.corpus.sweep")
    parser.add_argument("--files", type=int, default=500, help="files drawn from each source")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)

    from agentstyle.evaluator.compiled import memory_policy
    from agentstyle.evaluator.evaluate import decide
    from agentstyle.evaluator.store import rolled_back
    from agentstyle.harnesses.claude_code import ADAPTER

    conn, _ = memory_policy([str(PACKAGE)], "claude-code")
    seen: Counter[str] = Counter()
    changed: Counter[str] = Counter()
    for source, where, text in sources(args.files, random.Random(args.seed)):
        seen[source] += 1
        event = ADAPTER.normalize(bash_output(text, "/home/dev/project"), "PostToolUse")
        with rolled_back(conn):
            [evaluation] = decide(conn, [event])
        redaction = evaluation.decision.redaction
        if redaction is None:
            continue
        changed[source] += 1
        rules = ", ".join(r.split("/")[-1] for r in redaction.rules)
        print(f"{source}  {where}  [{rules}]")
        after = redaction.output.get("stdout", "") if isinstance(redaction.output, dict) else ""
        for line in _changed_lines(text, str(after)):
            print(f"    - {line[:160]!r}")
    print()
    print("| source | outputs | changed |")
    print("|---|---|---|")
    for source, count in seen.items():
        print(f"| {source} | {count} | {changed[source]} |")
    print(f"| all | {sum(seen.values())} | {sum(changed.values())} |")
    return 0


def _changed_lines(before: str, after: str) -> list[str]:
    """The lines of `before` a redaction changed (at most three)."""
    diff = difflib.ndiff(before.splitlines(), after.splitlines())
    return [line[2:] for line in diff if line.startswith("- ")][:3]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
