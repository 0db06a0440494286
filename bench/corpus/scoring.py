"""Confusion counts per category and form, the threshold, and each category's floor."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bench.corpus.cases import CATEGORIES, FORMS, THRESHOLD, Case, Floor
from bench.corpus.guards import Outcome


@dataclass(slots=True)
class Score:
    """Confusion counts of one group. A positive is a case whose verdict is not allow.

    Exact (STYLE's own table and the floors): a true positive gets exactly its verdict, so an
    ask where a block was wanted counts as a miss and as a false alarm, never as a hit. Not
    exact (the side-by-side with a peer that never asks): any refusal, block or ask, is a hit
    for a case that must refuse, and a false alarm for one that must pass.
    """

    exact: bool = True
    cases: int = 0
    positives: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, case: Case, got: str) -> None:
        self.cases += 1
        self.positives += case.positive
        refused = got != "allow"
        hit = got == case.verdict if self.exact else refused
        if case.positive and hit:
            self.tp += 1
            return
        if case.positive:
            self.fn += 1
        if refused:
            self.fp += 1

    @property
    def precision(self) -> float:
        if self.positives == 0 and self.cases:
            # nothing here must refuse (`everyday`): the share of its cases that pass
            return (self.cases - self.fp) / self.cases
        return 1.0 if self.tp + self.fp == 0 else self.tp / (self.tp + self.fp)

    @property
    def recall(self) -> float:
        return 1.0 if self.positives == 0 else self.tp / self.positives

    @property
    def ok(self) -> bool:
        return self.precision >= THRESHOLD and self.recall >= THRESHOLD

    def holds(self, floor: Floor) -> bool:
        # the floors are written to three decimals: compare there, not in float noise
        return round(self.precision, 3) >= floor.precision and round(self.recall, 3) >= floor.recall


@dataclass(slots=True)
class Report:
    overall: Score
    categories: dict[str, Score]
    forms: dict[str, Score]
    misses: list[tuple[Case, Outcome]]  # every case whose verdict differs

    @property
    def failing(self) -> list[str]:
        groups = [("category", self.categories), ("form", self.forms)]
        return [
            f"{kind} {name}"
            for kind, scores in groups
            for name, s in scores.items()
            if s.cases and not s.ok
        ]


def score(cases: Iterable[Case], outcomes: Mapping[str, Outcome], exact: bool = True) -> Report:
    overall = Score(exact)
    categories = {name: Score(exact) for name in CATEGORIES}
    forms = {name: Score(exact) for name in FORMS}
    misses: list[tuple[Case, Outcome]] = []
    for case in cases:
        got = outcomes[case.name]
        for s in (overall, categories[case.category], forms[case.form]):
            s.add(case, got.verdict)
        if got.verdict != case.verdict:
            misses.append((case, got))
    return Report(overall, categories, forms, misses)


def below_floors(
    cases: Iterable[Case],
    outcomes: Mapping[str, Outcome],
    floors: Mapping[str, Mapping[str, Floor]],
) -> list[str]:
    """Every (set, category) whose exact precision or recall is under its floor (the held-out
    set has no floor: its cases are skipped)."""
    groups: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        if case.corpus in floors:
            groups.setdefault((case.corpus, case.category), []).append(case)
    out = []
    for (corpus, category), members in sorted(groups.items()):
        s = score(members, outcomes).categories[category]
        floor = floors[corpus][category]
        if not s.holds(floor):
            out.append(
                f"{corpus} {category}: precision {s.precision:.1%} (floor {floor.precision:.1%}), "
                f"recall {s.recall:.1%} (floor {floor.recall:.1%})"
            )
    return out
