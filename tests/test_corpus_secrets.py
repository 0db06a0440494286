"""The secret-output corpus (tests/corpus/output/): `guard-secrets-output` takes out the
secrets of our cases and leaves ordinary output alone, at the issue's goals; the peers' cases
(public scanners' own tests) and the held-out part (written before the rules were measured) are
held at today's figures, so that no rule change loses what it catches there
(bench/corpus/secrets.py, `make corpus`). The held-out peer is measured by `make corpus` alone."""

from __future__ import annotations

import pytest

from bench.corpus.secrets import PRECISION_GOAL, RECALL_GOAL, Score, load, run, score, section

# Today's held-out figures (bench/RESULTS.md): a floor, not a goal.
HELDOUT_FLOOR = (0.60, 0.92)  # recall, precision


# Today's figures on the peers' cases, each source (bench/RESULTS.md): a floor, not a goal.
PEER_FLOOR = (0.95, 0.95)  # recall, precision


@pytest.fixture(scope="module")
def measured() -> dict[str, Score]:
    parts = {part: load(part) for part in ("ours", "peers", "heldout")}
    results = run([case for cases in parts.values() for case in cases])
    scores: dict[str, Score] = {}
    at = 0
    for part, cases in parts.items():
        scores[part] = score(cases, results[at : at + len(cases)])
        at += len(cases)
    for source in sorted({c.source for c in parts["peers"]}):
        pairs = [
            (c, r)
            for c, r in zip(parts["peers"], results[len(parts["ours"]) :], strict=False)
            if c.source == source
        ]
        scores[source] = score([c for c, _ in pairs], [r for _, r in pairs])
    return scores


def test_the_corpus_has_both_kinds_of_output() -> None:
    ours = load()
    kinds = {c.kind for c in ours}
    assert {"aws", "gcp", "azure", "github", "private-key", "jwt", "assignment"} <= kinds
    assert {"commit-hashes", "uuids", "base64", "hex-digests", "npm-pip-logs"} <= kinds
    assert sum(1 for c in ours if c.secrets) >= 70 and sum(1 for c in ours if not c.secrets) >= 50


def test_ours_meet_the_goals(measured: dict[str, Score]) -> None:
    ours = measured["ours"]
    assert ours.recall >= RECALL_GOAL, ours
    assert ours.precision >= PRECISION_GOAL, ours


def test_the_held_out_part_stays_above_todays_floor(measured: dict[str, Score]) -> None:
    held = measured["heldout"]
    assert held.secret >= 20 and held.ordinary >= 15
    assert held.recall >= HELDOUT_FLOOR[0] and held.precision >= HELDOUT_FLOOR[1], held


def test_each_peer_stays_above_todays_floor(measured: dict[str, Score]) -> None:
    peers = {c.source for c in load("peers")}
    assert {"gitleaks", "detect-secrets"} <= peers
    for source in peers:
        s = measured[source]
        assert s.secret >= 30 and s.ordinary >= 20, (source, s)
        assert s.recall >= PEER_FLOOR[0] and s.precision >= PEER_FLOOR[1], (source, s)


def test_the_report_names_each_peer_and_keeps_the_held_out_misses_unnamed() -> None:
    ours = [c for c in load("ours") if c.kind in {"aws", "uuids"}]
    peers = load("peers")
    held = load("heldout-peers")
    cases = [*ours, *peers[:40], *peers[-40:], *held]
    text = section(cases, run(cases))
    assert "| **ours** |" in text and "| **heldout-peers** |" in text
    assert "| peers: gitleaks |" in text and "| peers: detect-secrets |" in text
    assert not any(c.note in text for c in held)
