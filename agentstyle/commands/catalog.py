"""The program grammars STYLE ships, and the catalog the evaluator reads them from.

See docs/design/commands.md#grammars.

`shipped()` reads the family files under `commands/programs/` (YAML; when a policy is compiled).
The compiled policy keeps each program's entry as JSON in `program_grammars`; a `Catalog` built
from those rows gives the evaluator each program's `Grammar`, built once on first use.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from agentstyle.commands.grammar import Grammar, GrammarProblem, from_data, programs_of

PROGRAMS = "programs"


@cache
def shipped() -> dict[str, tuple[str, Any]]:
    """Program → (family, its entry) over every shipped family file."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: dict[str, tuple[str, Any]] = {}
    folder = resources.files(__package__).joinpath(PROGRAMS)
    for item in sorted(folder.iterdir(), key=lambda f: f.name):
        if not item.name.endswith(".yaml"):
            continue
        family = item.name.removesuffix(".yaml")
        data = _keys_as_text(yaml.load(item.read_text("utf-8"), Loader=loader))
        for program, entry in programs_of(data, family).items():
            if program in out:
                raise GrammarProblem(f"{family}: `{program}` is also in {out[program][0]}")
            out[program] = (family, entry)
    return out


def _keys_as_text(data: Any) -> Any:
    """YAML reads an option written `-4:` as the number -4: every key is the text written."""
    if isinstance(data, dict):
        return {str(k): _keys_as_text(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_keys_as_text(v) for v in data]
    return data


@cache
def shipped_grammar(program: str) -> Grammar | None:
    """The shipped grammar of `program` (for validation and compile-time names)."""
    found = shipped().get(program)
    return from_data(program, found[0], found[1]) if found else None


def shipped_rows() -> list[tuple[str, str, str]]:
    """(program, family, entry as JSON) of every shipped grammar: what a compiled policy keeps."""
    return [
        (program, family, json.dumps(entry, sort_keys=True, separators=(",", ":")))
        for program, (family, entry) in sorted(shipped().items())
    ]


class Catalog:
    """Grammars by program from stored rows (program → (family, JSON)); each built once.
    `fetch` reads the row of a program the rows do not hold (a command another one runs,
    `yarn prisma …`, whose name the shell analysis did not list)."""

    def __init__(
        self,
        rows: dict[str, tuple[str, str]],
        fetch: Callable[[str], tuple[str, str] | None] | None = None,
    ) -> None:
        self.rows = rows
        self.fetch = fetch
        self.built: dict[str, Grammar | None] = {}

    def __call__(self, program: str) -> Grammar | None:
        if program in self.built:
            return self.built[program]
        row = self.rows.get(program)
        if row is None and self.fetch is not None:
            row = self.fetch(program)
        try:
            grammar = from_data(program, row[0], json.loads(row[1])) if row else None
        except (GrammarProblem, ValueError):
            # a stored grammar that no longer reads (a database from another STYLE): the
            # program is read by the generic split, which still finds its options and paths
            grammar = None
        self.built[program] = grammar
        return grammar

    def __contains__(self, program: str) -> bool:
        return program in self.rows
