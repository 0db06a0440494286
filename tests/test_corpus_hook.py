"""A sample of the guard corpus through the real hook: the corpus's in-process answers are the
answers Claude Code gets.

Every bundled guard package (`guard-*`) is installed into a scratch project with `style install
--harness claude-code`; each sampled case's PreToolUse payload then goes to the handler
command `style install` wrote into .claude/settings.json, run as Claude Code runs it (`sh -c
COMMAND`, the payload on stdin; the hook hands it to the project's resident engine). The
verdict read from the hook's JSON must equal the verdict bench/corpus.py computes in-process
for the same case, which is what the corpus report counts.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.corpus import Case, guard_paths, load, run
from tests.support.project import Project

PER_FORM_AND_VERDICT = 1  # cases sampled for each (form, verdict) pair


def sample() -> list[Case]:
    """A few cases of every form and verdict; only cases that need no files of their own,
    since they share one installed project."""
    picked: dict[tuple[str, str], list[Case]] = defaultdict(list)
    for case in load():
        key = (case.form, case.verdict)
        if not case.files and not case.links and len(picked[key]) < PER_FORM_AND_VERDICT:
            picked[key].append(case)
    return [case for cases in picked.values() for case in cases]


SAMPLE = sample()


def wire_verdict(stdout: str) -> str:
    if not stdout.strip():
        return "allow"
    specific = json.loads(stdout).get("hookSpecificOutput") or {}
    decision = specific.get("permissionDecision")
    return {"deny": "block", "ask": "ask"}.get(decision, "allow")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """The guards installed; the hooks hand their events to the project's resident engine, as
    a user's hooks do (the verdicts are under test; the direct path's answers are the golden
    suites', tests/test_hook_fixtures.py and tests/test_cross_harness.py)."""
    base = tmp_path_factory.mktemp("corpus-hook")
    project = Project(base / "project", base / "home")
    project.install(*guard_paths(), "--harness", "claude-code")
    with project.engine():
        yield project


def test_the_sample_covers_every_form_and_verdict() -> None:
    forms = {c.form for c in SAMPLE}
    assert len(forms) >= 18
    assert {c.verdict for c in SAMPLE} == {"block", "ask", "allow"}


def test_the_installed_hook_answers_as_the_corpus_counts(project: Project, tmp_path: Path) -> None:
    in_process = run(SAMPLE, tmp_path)
    differ = []
    for case in SAMPLE:
        result = project.run_installed("PreToolUse", case.payload(str(project.root)))
        got = wire_verdict(result.stdout)
        if got != in_process[case.name].verdict:
            differ.append(f"{case.name}: hook {got}, in-process {in_process[case.name].verdict}")
    assert differ == []
