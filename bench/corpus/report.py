"""The corpus's tables in Markdown: STYLE's verdicts, STYLE beside a peer, and the gaps list."""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.corpus.cases import CATEGORIES, CLAIMED, PASSING, ROOT, THRESHOLD, Case
from bench.corpus.guards import GUARDS, Outcome
from bench.corpus.scoring import Report, Score, score

RESULTS = ROOT / "bench" / "RESULTS.md"
SECTION = "## Guard corpus: precision and recall"


def _row(name: str, s: Score) -> str:
    return (
        f"| {name} | {s.cases} | {s.positives} | {s.tp} | {s.fp} | {s.fn} | "
        f"{s.precision:.1%} | {s.recall:.1%} |"
    )


def table(report: Report) -> str:
    head = "| {} | cases | must refuse | hit | false alarm | missed | precision | recall |\n"
    rule = "|---|---|---|---|---|---|---|---|\n"
    by_cat = "\n".join(_row(f"`{n}`", s) for n, s in report.categories.items() if s.cases)
    by_form = "\n".join(_row(f"`{n}`", s) for n, s in report.forms.items() if s.cases)
    return (
        head.format("category")
        + rule
        + by_cat
        + "\n"
        + _row("**all**", report.overall)
        + "\n\n"
        + head.format("syntax form")
        + rule
        + by_form
        + "\n"
    )


def misses_text(report: Report, limit: int = 60) -> str:
    lines = [
        f"- {case.name}: wanted {case.verdict}, got {got.verdict}: `{_one_line(case.text)}`"
        for case, got in report.misses[:limit]
    ]
    if len(report.misses) > limit:
        lines.append(f"- … and {len(report.misses) - limit} more")
    return "\n".join(lines)


def _one_line(text: str, limit: int = 110) -> str:
    line = " ".join(text.split()).replace("`", "'").replace("|", "\\|")
    return line if len(line) <= limit else line[: limit - 1] + "…"


# ---------------------------------------------------------------------------------------------
# STYLE beside a peer: refusals, block or ask alike (a peer that never asks still refuses).


def _pair(name: str, style: Score, peer: Score | None) -> str:
    peer_cells = f"{peer.recall:.1%} | {peer.precision:.1%}" if peer is not None else "– | –"
    return (
        f"| {name} | {style.cases} | {style.positives} | {style.recall:.1%} | "
        f"{style.precision:.1%} | {peer_cells} |"
    )


def side_by_side(
    cases: Sequence[Case],
    style: Mapping[str, Outcome],
    peer: Mapping[str, Outcome] | None,
    peer_label: str,
    extra_groups: Sequence[tuple[str, Sequence[Case]]] = (),
) -> str:
    """One row per category with cases, then the claimed six, the new families and all."""
    head = (
        f"| category | cases | must refuse | STYLE recall | STYLE precision | "
        f"{peer_label} recall | {peer_label} precision |\n|---|---|---|---|---|---|---|\n"
    )
    by_cat: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        by_cat[case.category].append(case)
    groups: list[tuple[str, Sequence[Case]]] = [
        (f"`{c}`", by_cat[c]) for c in CATEGORIES if by_cat.get(c)
    ]
    claimed = [c for c in cases if c.category in CLAIMED]
    families = [c for c in cases if c.category not in CLAIMED and c.category not in PASSING]
    groups += [
        ("**the six categories the guards claim**", claimed),
        ("**the further families**", families),
        *extra_groups,
        ("**all**", cases),
    ]
    rows = []
    for name, members in groups:
        if not members:
            continue
        s = score(members, style, exact=False).overall
        p = score(members, peer, exact=False).overall if peer is not None else None
        rows.append(_pair(name, s, p))
    return head + "\n".join(rows) + "\n"


def _cell(s: Score | None) -> str:
    if s is None or not s.cases:
        return "–"
    return f"{s.recall:.1%} / {s.precision:.1%}"


def by_kind(
    corpora: Sequence[tuple[str, Sequence[Case]]],
    style: Mapping[str, Outcome],
    peer: Mapping[str, Outcome] | None,
    peer_label: str,
) -> str:
    """One row per kind of harm (category): for each set of cases (ours, the peers', the
    held-out) its size, STYLE's recall / precision and the peer's, any refusal counting."""
    head = "| category |"
    rule = "|---|"
    for name, _ in corpora:
        head += f" {name}: cases | {name}: STYLE | {name}: {peer_label} |"
        rule += "---|---|---|"
    scores = [
        (
            score(cases, style, exact=False).categories,
            score(cases, peer, exact=False).categories if peer is not None else None,
        )
        for _, cases in corpora
    ]
    rows = []
    for category in CATEGORIES:
        if not any(mine[category].cases for mine, _ in scores):
            continue
        row = f"| `{category}` |"
        for mine, theirs in scores:
            n = mine[category].cases
            row += f" {n or '–'} | {_cell(mine[category])} | "
            row += f"{_cell(theirs[category] if theirs is not None else None)} |"
        rows.append(row)
    return head + "\n" + rule + "\n" + "\n".join(rows) + "\n"


# ---------------------------------------------------------------------------------------------
# The gaps: what a guard author needs to fix, by category and kind.


def _kind(case: Case, got: str) -> str:
    if case.verdict == "allow":
        return f"false {got} (should pass)"
    if got == "allow":
        return f"missed (should {case.verdict})"
    return f"{got} where {case.verdict} is wanted"


def gaps(
    cases: Sequence[Case],
    style: Mapping[str, Outcome],
    peer: Mapping[str, Outcome] | None,
    peer_label: str,
) -> str:
    """Every case STYLE gets wrong, by category, kind of error and syntax form."""
    tree: dict[str, dict[str, dict[str, list[Case]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for case in cases:
        got = style[case.name].verdict
        if got != case.verdict:
            tree[case.category][_kind(case, got)][case.form].append(case)
    out = []
    for category in CATEGORIES:
        kinds = tree.get(category)
        if not kinds:
            continue
        total = sum(len(v) for forms in kinds.values() for v in forms.values())
        out.append(f"## `{category}`: {total} case(s) STYLE gets wrong\n")
        for kind, forms in sorted(kinds.items()):
            n = sum(len(v) for v in forms.values())
            out.append(f"### {kind}: {n}\n")
            for form, members in sorted(forms.items(), key=lambda kv: -len(kv[1])):
                out.append(f"- form `{form}` ({len(members)}):")
                for case in members:
                    mark = ""
                    if peer is not None:
                        theirs = peer[case.name].verdict
                        mark = f" [{peer_label}: {theirs}]"
                    where = f" ({case.src})" if case.src else f" ({case.name})"
                    out.append(f"  - `{_one_line(case.text, 160)}`{mark}{where}")
            out.append("")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# The RESULTS.md section.


@dataclass(slots=True)
class Measured:
    ours: list[Case]
    peers: list[Case]
    held: tuple[str, ...]  # the categories held at the threshold per category and form
    style: dict[str, Outcome]
    seconds: float  # STYLE's time for every case
    peer: dict[str, Outcome] | None = None
    peer_label: str = "peer"
    peer_seconds: float = 0.0
    peer_ran: int = 0  # cases whose answer was not cached and started a hook process
    peer_note: str = ""
    below: tuple[str, ...] = ()  # the floors broken
    heldout: list[Case] = field(default_factory=list)  # measured only, no floor


def _sources(cases: Sequence[Case]) -> str:
    """The projects a set of cases comes from, with their counts, largest first."""
    counts: dict[str, int] = defaultdict(int)
    for case in cases:
        counts[case.peer or "?"] += 1
    return ", ".join(f"{name} ({n:,})" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def section(m: Measured, seconds: float) -> str:
    """The section, with STYLE's time for the whole corpus (`make bench` passes its own)."""
    date = datetime.date.today().isoformat()
    held = [c for c in m.ours if c.category in m.held]
    report = score(held, m.style)
    own = score(m.ours, m.style)
    misses = misses_text(report) if report.misses else "None."
    guards = ", ".join(f"`{g}`" for g in GUARDS)
    peer = (
        f"{m.peer_label} (npm registry, installed by `make corpus` into `.corpus-cache/`) as a "
        "Claude Code PreToolUse hook: one process per case with the same payload on stdin and "
        "the case's scratch project as its working directory, the verdict read from its answer "
        f"(`permissionDecision` deny or ask, exit code 2). Its answers are cached by its version "
        f"and the call: {m.peer_ran:,} case(s) ran now ({m.peer_seconds:.0f} s), the rest came "
        "from earlier runs"
        if m.peer is not None
        else m.peer_note or "no peer was run"
    )
    by_peer = [
        (f"from {name}'s tests", [c for c in m.peers if c.peer == name])
        for name in sorted({c.peer for c in m.peers if c.peer})
    ]
    by_heldout = [
        (f"from {name}'s tests", [c for c in m.heldout if c.peer == name])
        for name in sorted({c.peer for c in m.heldout if c.peer})
    ]
    corpora = [("ours", m.ours), ("peers", m.peers)]
    if m.heldout:
        corpora.append(("held-out", m.heldout))
    heldout_text = (
        "\nThe held-out cases (`tests/corpus/heldout/`: whole sources only measured, never fixed "
        "against one by one, no floor):\n\n"
        + side_by_side(m.heldout, m.style, m.peer, m.peer_label, by_heldout)
        if m.heldout
        else ""
    )
    return (
        f"{SECTION}\n\n"
        f"Method (`bench/corpus/`, `make corpus`, {date}): every case as a Claude Code "
        f"PreToolUse payload through the adapter and the evaluator, with the bundled guard "
        f"packages ({guards}) installed together; `tests/test_corpus_hook.py` shows on a sample "
        f"that the installed hook gives the same answers. {len(m.ours):,} cases of our own "
        f"(`tests/corpus/*.yaml`, written for STYLE; the further families as red-team cases), "
        f"{len(m.peers):,} taken from other projects' test suites (`tests/corpus/peers/`: "
        f"{_sources(m.peers)}) and {len(m.heldout):,} held out (`tests/corpus/heldout/`: "
        f"{_sources(m.heldout) or 'none'}); their expectations translated into STYLE's, each "
        f"source's own policy choices left out: each file's header names the repository and "
        f"commit and says what was left out and why. {seconds:.1f} s for STYLE over all of "
        f"them. Beside it: {peer}.\n\n"
        f"**STYLE's verdicts on our cases.** A case must refuse when its verdict is block or "
        f"ask; a hit is exactly that verdict (an ask for a block is both a miss and a false "
        f"alarm). The held categories ({', '.join(f'`{c}`' for c in m.held)}) must reach "
        f"{THRESHOLD:.0%} precision and recall per category and per syntax form "
        f"(`tests/test_shell_corpus.py`); every category, ours and the peers', keeps its floor "
        f"in `tests/corpus/floors.yaml` (`tests/test_corpus_floors.py`), raised to "
        f"{THRESHOLD:.0%} as its pack lands.\n\n"
        + table(own)
        + "\nHeld cases whose verdict differs:\n\n"
        + misses
        + "\n\n"
        f"**STYLE beside {m.peer_label}.** Positive = the case must refuse (block or ask); "
        "recall = refused and should / should; precision = refused and should / refused. Any "
        "refusal counts here, since the peer never asks.\n\n"
        "By kind of harm (each cell recall / precision):\n\n"
        + by_kind(corpora, m.style, m.peer, m.peer_label)
        + "\nThe peers' cases (`tests/corpus/peers/`):\n\n"
        + side_by_side(m.peers, m.style, m.peer, m.peer_label, by_peer)
        + heldout_text
        + "\nOur cases (`tests/corpus/`):\n\n"
        + side_by_side(m.ours, m.style, m.peer, m.peer_label)
        + (
            "\nFloors broken: " + "; ".join(m.below) + "\n"
            if m.below
            else "\nEvery category holds its floor.\n"
        )
    )


def write_section(text: str, path: Path = RESULTS, heading: str = SECTION) -> None:
    """Replace the section under `heading` of RESULTS.md (or append it), leaving the others
    alone (the secret-output corpus has its own: bench/corpus/secrets.py)."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    start = old.find(heading)
    if start < 0:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        end = old.find("\n## ", start + len(heading))
        rest = old[end + 1 :] if end >= 0 else ""
        new = old[:start] + text.rstrip("\n") + ("\n\n" + rest if rest else "\n")
    path.write_text(new.rstrip("\n") + "\n", encoding="utf-8")
