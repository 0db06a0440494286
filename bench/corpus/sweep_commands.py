"""Unlabeled command lines through every bundled guard: what they would refuse.

The guard corpus (bench/corpus/) measures commands someone labelled. This sweep reads a file of
command lines nobody wrote for STYLE, one a line, and lists each the guards refuse, grouped by
rule, to be sorted by eye into intended refusals and false alarms: a false alarm of a kind a
team would meet is fixed by kind (a program's grammar, an effect, a flow) with a case of ours in
`tests/corpus/`, never by listing the command. Sources used so far (not shipped: fetch them):
NL2Bash's one-liners (TellinaTool/nl2bash, `data/bash/all.cm`: 12,607 lines) and tldr-pages'
examples (tldr-pages/tldr, the backquoted lines of `pages/*/*.md`, `{{…}}` filled in).

    python -m bench.corpus.sweep_commands FILE [--rule RULE]

Each line runs as a Claude Code PreToolUse Bash call in an empty scratch project, as the
corpus's cases do. The figure is how many lines a guard refused; the list says which rule.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

from bench.corpus.cases import Case
from bench.corpus.guards import run


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.corpus.sweep_commands")
    parser.add_argument("file", type=Path, help="command lines, one a line")
    parser.add_argument("--rule", help="list only this rule's refusals (`guard-x/rule-id`)")
    args = parser.parse_args(argv)
    try:
        text = args.file.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        print(f"error: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 2
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    cases = [
        Case("everyday", n, "allow", "plain", "unlabeled", cmd=line, corpus="sweep")
        for n, line in enumerate(lines, 1)
    ]
    outcomes = run(cases)
    by_rule: dict[str, list[str]] = defaultdict(list)
    verdicts: Counter[str] = Counter()
    for case in cases:
        outcome = outcomes[case.name]
        if outcome.verdict == "allow":
            continue
        verdicts[outcome.verdict] += 1
        for rule in outcome.rules or ("(no rule named)",):
            by_rule[rule].append(f"{outcome.verdict:5}  {case.cmd}")
    for rule, refused in sorted(by_rule.items(), key=lambda item: -len(item[1])):
        if args.rule and rule != args.rule:
            continue
        print(f"## {rule}: {len(refused)}")
        for line in refused:
            print(f"    {line[:200]}")
    refusals = sum(verdicts.values())
    print(f"\n{len(lines)} command lines, {refusals} refused", end="")
    print(f" ({', '.join(f'{n} {v}' for v, n in verdicts.most_common())})" if refusals else "")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
