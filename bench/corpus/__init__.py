"""The labelled guard corpus through the bundled guards (and beside a peer): precision and recall.

`tests/corpus/<category>.yaml` holds our cases by category: the six the bundled guards claim
(recursive deletes, destructive git, secrets, public one-way doors, identity, SQL drops), the
further families they are to learn (disks, system, git execution and history, containers,
Kubernetes, cloud, infrastructure, remote storage, registries, GitHub, dynamic execution) and
the kinds of harm no pack covers yet (code downloaded and run, network shells, exfiltration,
secret stores, runaway processes, the repository's metadata, and no-op calls that must pass) as
red-team cases. `tests/corpus/peers/<category>.yaml` holds cases taken from other projects'
test suites, each naming its `src`: guard tools (cc-safety-net, dcg, nah, claude-guard,
aca-safety-net), an approval hook (Dippy) and coding agents' command-safety tests (continue, Zed,
goose, OpenHands); each file's header names the repository, the commit and what was left out.
`tests/corpus/heldout/<category>.yaml` holds cases taken the same way from whole other sources
that are only measured, never fixed against one by one, and keep no floor
(`tests/corpus/heldout/README.md`). A case is a Bash command (`cmd`) or a file tool
call (`tool` + `input`), the verdict every bundled guard package (`guard-*`) installed together must
give (`block`, `ask` or `allow`), the syntax form it exercises (`form`, one of FORMS) and a
one-line `why`. Optional: `files` (project-relative path -> text) and `links` (symlink ->
target) written into the scratch project that is the payload's `cwd`, `issue` (the class of
issue 13's bypass list the case reproduces) and `rule` (the rule expected to answer).

`tests/corpus/floors.yaml` is the one table of floors: the precision and recall each category
keeps, for our cases and for the peers' (the held-out set has none). A category whose own
floor is at THRESHOLD is held per syntax form too (tests/test_shell_corpus.py); the others are
held at their floor (tests/test_corpus_floors.py) until their pack lands and the floor is
raised.

Each case runs the way Claude Code runs it: a PreToolUse payload is normalized by the Claude
Code adapter and evaluated by the SQL evaluator against the guard packages compiled into one
in-memory database (`tests/test_corpus_hook.py` proves on a sample that the installed hook
answers the same). `make corpus` also runs every case through cc-safety-net's hook (`peer.py`)
and writes the tables into `bench/RESULTS.md`.
"""

from __future__ import annotations

from bench.corpus.cases import (
    CATEGORIES,
    CLAIMED,
    CORPORA,
    CORPUS,
    FLOORS,
    FORMS,
    HELDOUT,
    PASSING,
    PEERS,
    THRESHOLD,
    VERDICTS,
    Case,
    CorpusError,
    Floor,
    held_categories,
    load,
    load_floors,
    load_heldout,
    load_peers,
)
from bench.corpus.guards import GUARDS, Outcome, guard_paths, prepare, run
from bench.corpus.measure import main, measure
from bench.corpus.report import SECTION, Measured, gaps, misses_text, section, table
from bench.corpus.scoring import Report, Score, below_floors, score

__all__ = [
    "CATEGORIES",
    "CLAIMED",
    "CORPORA",
    "CORPUS",
    "FLOORS",
    "FORMS",
    "GUARDS",
    "HELDOUT",
    "PASSING",
    "PEERS",
    "SECTION",
    "THRESHOLD",
    "VERDICTS",
    "Case",
    "CorpusError",
    "Floor",
    "Measured",
    "Outcome",
    "Report",
    "Score",
    "below_floors",
    "gaps",
    "guard_paths",
    "held_categories",
    "load",
    "load_floors",
    "load_heldout",
    "load_peers",
    "main",
    "measure",
    "misses_text",
    "prepare",
    "run",
    "score",
    "section",
    "table",
]
