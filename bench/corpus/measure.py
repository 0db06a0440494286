"""The corpus run behind `make corpus`: STYLE and the peer over every case, the section."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.corpus import peer as peers
from bench.corpus.cases import (
    CATEGORIES,
    THRESHOLD,
    Case,
    held_categories,
    load,
    load_floors,
    load_heldout,
    load_peers,
)
from bench.corpus.guards import run
from bench.corpus.report import Measured, gaps, section, write_section
from bench.corpus.scoring import below_floors, score

USAGE = """usage: python -m bench.corpus [--no-write] [--no-peer | --peer CMD] [--gaps FILE]
                                [--floors]

  --no-write     print the section, leave bench/RESULTS.md alone
  --no-peer      STYLE only
  --peer CMD     another PreToolUse hook instead of the installed cc-safety-net
  --gaps FILE    write every case STYLE gets wrong, by category, kind and form, to FILE
                 (ours and the peers'; never the held-out cases)
  --floors       print today's floors in floors.yaml's shape (to raise a category's by hand)"""


def measured_floors(m: Measured) -> str:
    """Today's exact numbers as floors: rounded down to the percent, precision at most the
    threshold (a pack may land with a false alarm or two while its recall climbs)."""

    def pair(cases: list[Case], category: str) -> str:
        s = score(cases, m.style).categories[category]
        if not s.cases:
            return "[0.00, 0.00]"
        p = min(math.floor(s.precision * 100 + 1e-9) / 100, THRESHOLD)
        return f"[{p:.2f}, {math.floor(s.recall * 100 + 1e-9) / 100:.2f}]"

    lines = []
    for category in CATEGORIES:
        ours = "[0.97, 0.97]" if category in m.held else pair(m.ours, category)
        lines.append(f"{category}: {{ours: {ours}, peers: {pair(m.peers, category)}}}")
    return "\n".join(lines)


def measure(peer: peers.Peer | None = None, with_peer: bool = True) -> tuple[Measured, float]:
    """Every case of ours, the peers' and the held-out through STYLE, and through the peer
    when it is there."""
    ours, others, heldout = load(), load_peers(), load_heldout()
    everything = [*ours, *others, *heldout]
    floors = load_floors()
    started = time.perf_counter()
    style = run(everything)
    seconds = time.perf_counter() - started
    m = Measured(ours, others, held_categories(floors), style, seconds, heldout=heldout)
    m.below = tuple(below_floors([*ours, *others], style, floors))
    chosen = peer if peer is not None else (peers.installed() if with_peer else None)
    if chosen is None:
        m.peer_note = (
            "cc-safety-net is not installed (`make corpus` installs it into `.corpus-cache/`)"
            if with_peer
            else "no peer run (`--no-peer`)"
        )
        return m, seconds
    cache = peers.cache_file(chosen)
    m.peer_ran = peers.pending(everything, chosen, cache)
    started = time.perf_counter()
    m.peer = peers.run_hook(everything, chosen, cache=cache)
    m.peer_seconds = time.perf_counter() - started
    m.peer_label = chosen.label
    return m, seconds


def main(argv: Sequence[str] = ()) -> int:
    args = list(argv)
    if "-h" in args or "--help" in args:
        print(USAGE)
        return 0
    try:
        chosen = peers.command(args[args.index("--peer") + 1]) if "--peer" in args else None
        gaps_file = Path(args[args.index("--gaps") + 1]) if "--gaps" in args else None
    except IndexError:
        print(f"error: an option needs a value\n{USAGE}", file=sys.stderr)
        return 2
    m, seconds = measure(chosen, with_peer="--no-peer" not in args)
    text = section(m, seconds)
    if "--no-write" not in args:
        write_section(text)
    print(text)
    if "--floors" in args:
        print("today's floors:\n" + measured_floors(m))
    if gaps_file is not None:
        cases = [*m.ours, *m.peers]  # the held-out cases are measured, never listed to fix
        gaps_file.write_text(gaps(cases, m.style, m.peer, m.peer_label), encoding="utf-8")
        print(f"gaps: {gaps_file}")
    held = [c for c in m.ours if c.category in m.held]
    failing = score(held, m.style).failing
    if failing:
        print(f"below {THRESHOLD:.0%}: " + ", ".join(failing), file=sys.stderr)
    if m.below:
        print("below the floor: " + "; ".join(m.below), file=sys.stderr)
    return 1 if failing or m.below else 0
