"""The bundled guards give every harness the verdict they give Claude Code, on the guard
corpus's shell cases.

Every `guard-*` package is compiled for each supported harness (its own plan: an `ask` becomes
a refusal where the harness cannot ask). Each sampled shell case is put into that harness's own
shell-call payload (its fixture in tests/fixtures/), read by its adapter, evaluated, and
answered in its wire format; the verdict is read back out of that answer. It must be the
verdict Claude Code's hook gives the same command (bench/corpus.py's reference, which
`make corpus` counts): a block is a block everywhere, an ask an ask where the harness's shell
gate can ask and otherwise a refusal that tells the person how to allow it, an allow an allow.
What differs per harness is then only what its contract says (docs/design/harnesses.md).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from agentstyle.evaluator.compiled import memory_policy
from agentstyle.evaluator.decision import Wire
from agentstyle.evaluator.evaluate import evaluate
from agentstyle.evaluator.store import rolled_back
from agentstyle.harnesses import SUPPORTED, adapter_for
from agentstyle.harnesses.facts import spec_for
from agentstyle.harnesses.facts.base import Can
from bench.corpus import Case, guard_paths, load, load_heldout, run
from tests.support.harness import shell_payload

PER_KIND = 4  # cases sampled for each (category, form, verdict) of the corpus


def sample() -> list[Case]:
    """Shell cases of every kind of harm, syntax form and verdict, ours and the held-out part;
    only those that need no files of their own (they share one scratch folder)."""
    picked: dict[tuple[str, str, str, str], list[Case]] = defaultdict(list)
    for case in load() + load_heldout():
        key = (case.corpus, case.category, case.form, case.verdict)
        shared_folder = not case.files and not case.links
        if case.cmd is not None and shared_folder and len(picked[key]) < PER_KIND:
            picked[key].append(case)
    return [case for cases in picked.values() for case in cases]


SAMPLE = sample()


def wire_verdict(wire: Wire) -> tuple[str, str]:
    """(block | ask | allow, the answer's text) read out of any harness's answer to a call."""
    if wire.exit_code == 2:
        return "block", wire.stderr
    doc = json.loads(wire.stdout) if wire.stdout.strip() else {}
    specific = doc.get("hookSpecificOutput") or {}
    said = {doc.get("permissionDecision"), doc.get("permission"), doc.get("decision")}
    said.add(specific.get("permissionDecision"))
    if said & {"deny", "block"}:
        return "block", wire.stdout
    if "ask" in said:
        return "ask", wire.stdout
    return "allow", wire.stdout


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Claude Code's verdict on each sampled case, as the corpus report counts it."""
    outcomes = run(SAMPLE, tmp_path_factory.mktemp("reference"))
    return {name: outcome.verdict for name, outcome in outcomes.items()}


def test_the_sample_covers_every_verdict_kind_and_form() -> None:
    assert {c.verdict for c in SAMPLE} == {"block", "ask", "allow"}
    assert {c.corpus for c in SAMPLE} == {"ours", "heldout"}
    assert len({c.category for c in SAMPLE}) >= 20
    assert len({c.form for c in SAMPLE}) >= 18


@pytest.mark.parametrize("harness", SUPPORTED)
def test_every_harness_gives_the_guards_verdicts(
    harness: str, reference: dict[str, str], tmp_path: Path
) -> None:
    adapter = adapter_for(harness)
    native_event, _ = shell_payload(harness, "true")
    point = spec_for(harness).spec_of(native_event)
    assert point is not None, f"{harness}: {native_event} is no point of its facts"
    can_ask = Can.ASK in point.capabilities
    conn, _ = memory_policy(guard_paths(), harness)
    try:
        events = [
            adapter.normalize(
                shell_payload(harness, case.cmd or "", tmp_path, f"corpus-{case.name}")[1],
                native_event,
            )
            for case in SAMPLE
        ]
        with rolled_back(conn):
            evaluations = evaluate(conn, events)
    finally:
        conn.close()
    differ = []
    for case, evaluation in zip(SAMPLE, evaluations, strict=True):
        got, text = wire_verdict(
            adapter.answer(evaluation.decision, native_event, evaluation.event)
        )
        want = reference[case.name]
        if want == "ask" and not can_ask:
            # a refusal that says how to let it through once
            want, ok = "block", "style allow" in text
        else:
            ok = True
        if got != want or not ok:
            differ.append(
                f"{case.name}: {harness} {got}, Claude Code {reference[case.name]}: {case.cmd}"
            )
    assert differ == [], "\n".join(differ)
