"""Every corpus category keeps its floor: our cases and the peers', exact verdicts.

tests/corpus/floors.yaml holds, per category, the precision and recall the bundled guards must
keep on our own cases (tests/corpus/<category>.yaml) and on the cases taken from other guard
projects' tests (tests/corpus/peers/<category>.yaml). A guard author landing a pack raises the
category's floors; at 97% a category's own cases also join the per-form test in
tests/test_shell_corpus.py. The rest of this file holds the corpus format itself: the peers'
cases name their source and never mix with ours, bad files give one-line errors, and a peer
hook's answers are read from its wire output.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from bench.corpus import (
    CATEGORIES,
    CLAIMED,
    FLOORS,
    HELDOUT,
    PASSING,
    PEERS,
    Case,
    CorpusError,
    Outcome,
    below_floors,
    held_categories,
    load,
    load_floors,
    load_heldout,
    load_peers,
    run,
    score,
)
from bench.corpus.peer import command, run_hook

OURS = load()
PEER_CASES = load_peers()
HELDOUT_CASES = load_heldout()
FLOOR = load_floors()


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return run([*OURS, *PEER_CASES])


def test_every_category_holds_its_floor(outcomes: dict[str, Outcome]) -> None:
    broken = below_floors([*OURS, *PEER_CASES], outcomes, FLOOR)
    for corpus, cases in (("ours", OURS), ("peers", PEER_CASES)):
        report = score(cases, outcomes)
        rows = [
            f"{corpus:5} {name:16} {s.cases:4} precision {s.precision:6.1%} recall {s.recall:6.1%}"
            for name, s in report.categories.items()
            if s.cases
        ]
        print("\n" + "\n".join(rows))
    assert broken == []


def test_the_claimed_categories_are_held_and_the_new_ones_have_red_team_cases() -> None:
    assert set(CLAIMED) <= set(held_categories(FLOOR))
    counts = Counter((c.category, c.positive) for c in OURS)
    for category in CATEGORIES:
        if category in CLAIMED or category in PASSING:
            continue
        assert counts[(category, True)] >= 30, f"{category}: too few red-team refusals"
        assert counts[(category, False)] >= 30, f"{category}: too few red-team passes"


def test_peer_cases_name_their_source_and_stay_apart_from_ours() -> None:
    assert len(PEER_CASES) >= 2_000
    sources = {
        "cc-safety-net",
        "dcg",
        "nah",
        "dippy",
        "continue",
        "claude-guard",
        "zed",
        "goose",
        "aca-safety-net",
        "openhands",
    }
    assert sources <= {c.peer for c in PEER_CASES}
    assert all(c.corpus == "peers" and c.src for c in PEER_CASES)
    assert all(c.corpus == "ours" and c.src is None for c in OURS)
    names = [c.name for c in [*OURS, *PEER_CASES, *HELDOUT_CASES]]
    assert len(set(names)) == len(names)
    keys = [(c.category, c.text) for c in PEER_CASES]
    assert len(set(keys)) == len(keys), [k for k, n in Counter(keys).items() if n > 1]
    assert {p.stem for p in PEERS.glob("*.yaml")} <= set(CATEGORIES)


def test_the_held_out_cases_are_whole_sources_of_their_own() -> None:
    """The held-out set: at least two projects, every case naming its source, no project that
    also gives peer cases (a source is held out whole), no case twice, and a README that says
    what the folder is. It keeps no floor: it is only measured."""
    projects = {c.peer for c in HELDOUT_CASES}
    assert len(projects) >= 2
    assert all(c.corpus == "heldout" and c.src for c in HELDOUT_CASES)
    assert projects.isdisjoint({c.peer for c in PEER_CASES})
    keys = [(c.category, c.text) for c in HELDOUT_CASES]
    assert len(set(keys)) == len(keys), [k for k, n in Counter(keys).items() if n > 1]
    assert {p.stem for p in HELDOUT.glob("*.yaml")} <= set(CATEGORIES)
    assert (HELDOUT / "README.md").exists()
    assert set(load_floors()) == {"ours", "peers"}, "the held-out set keeps no floor"


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


CASE = '{verdict: block, form: plain, cmd: "rm -rf /", why: "root"'


@pytest.mark.parametrize(
    ("folder", "name", "text", "message"),
    [
        ("peers", "secrets.yaml", f"cases:\n  - {CASE}}}\n", "names its `src`"),
        ("heldout", "secrets.yaml", f"cases:\n  - {CASE}}}\n", "names its `src`"),
        ("ours", "secrets.yaml", f'cases:\n  - {CASE}, src: "dcg x"}}\n', "belongs in peers/"),
        ("ours", "secrets.yaml", f"cases:\n  - {CASE}, colour: red}}\n", "unknown keys"),
        ("ours", "widgets.yaml", "cases: []\n", "not a category"),
        ("ours", "secrets.yaml", "cases: [\n", "not valid YAML"),
        ("ours", "secrets.yaml", "- just a list\n", "needs a `cases` list"),
    ],
)
def test_bad_corpus_files_give_one_line_errors(
    tmp_path: Path, folder: str, name: str, text: str, message: str
) -> None:
    _write(tmp_path / folder, name, text)
    loader = {"peers": load_peers, "heldout": load_heldout}.get(folder, load)
    with pytest.raises(CorpusError) as caught:
        loader(tmp_path / folder)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_bad_floors_give_one_line_errors(tmp_path: Path) -> None:
    good = FLOORS.read_text(encoding="utf-8")
    for text, message in [
        (good.replace("everyday:", "weekday:"), "`weekday` is not a category"),
        ("\n".join(line for line in good.splitlines() if not line.startswith("cloud:")), "cloud"),
        (good.replace("dynamic-exec: {ours: [", "dynamic-exec: {ours: [2, "), "between 0 and 1"),
    ]:
        path = _write(tmp_path, "floors.yaml", text)
        with pytest.raises(CorpusError) as caught:
            load_floors(path)
        assert message in str(caught.value) and "\n" not in str(caught.value)


HOOK = """\
import json, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as calls:
    calls.write(payload["tool_input"].get("command", "") + "\\n")
command = payload["tool_input"].get("command", "")
if "exit-two" in command:
    sys.exit(2)
decision = "deny" if "rm" in command else "ask" if "publish" in command else None
if decision:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                             "permissionDecision": decision}}))
"""


def test_a_peer_hook_is_read_from_its_answer_and_its_answers_are_cached(tmp_path: Path) -> None:
    """A real hook process per case: deny -> block, ask -> ask, exit 2 -> block, silence ->
    allow; a second run with the same cache starts no process for cases already answered."""
    script = _write(tmp_path, "hook.py", HOOK)
    calls = tmp_path / "calls.txt"
    peer = command(f"{sys.executable} {script} {calls}")
    cases = [
        Case("recursive-delete", 1, "block", "plain", "x", cmd="rm -rf /"),
        Case("one-way-doors", 1, "ask", "plain", "x", cmd="npm publish"),
        Case("everyday", 1, "allow", "plain", "x", cmd="ls"),
        Case("everyday", 2, "allow", "plain", "x", cmd="echo exit-two"),
    ]
    cache = tmp_path / "answers.json"
    first = run_hook(cases, peer, cache=cache)
    assert [first[c.name].verdict for c in cases] == ["block", "ask", "allow", "block"]
    assert len(calls.read_text().splitlines()) == 4
    assert len(json.loads(cache.read_text())) == 4
    more = Case("everyday", 3, "allow", "plain", "x", cmd="pwd")
    again = run_hook([*cases, more], peer, cache=cache)
    assert again[cases[0].name].verdict == "block"
    assert calls.read_text().splitlines()[4:] == ["pwd"], "only the new case ran"


def test_a_peers_cached_answers_hold_in_another_checkout(tmp_path: Path) -> None:
    """The cache knows the peer by its script's content, not its path: the same script in
    another folder (another checkout) starts no process; a changed script is asked again."""
    here, there = tmp_path / "a", tmp_path / "b"
    here.mkdir()
    there.mkdir()
    calls = tmp_path / "calls.txt"
    cases = [Case("recursive-delete", 1, "block", "plain", "x", cmd="rm -rf /")]
    cache = tmp_path / "answers.json"
    first = command(f"{sys.executable} {_write(here, 'hook.py', HOOK)} {calls}")
    assert run_hook(cases, first, cache=cache)[cases[0].name].verdict == "block"
    moved = command(f"{sys.executable} {_write(there, 'hook.py', HOOK)} {calls}")
    assert run_hook(cases, moved, cache=cache)[cases[0].name].verdict == "block"
    assert len(calls.read_text().splitlines()) == 1, "the moved script's answer was cached"
    changed_script = _write(there, "hook.py", HOOK + "# v2\n")
    changed = command(f"{sys.executable} {changed_script} {calls}")
    run_hook(cases, changed, cache=cache)
    assert len(calls.read_text().splitlines()) == 2, "a changed script is asked again"
