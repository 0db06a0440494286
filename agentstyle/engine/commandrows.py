"""The command model of a batch's shell calls as rows for sql/evaluate/commands.sql
(docs/design/commands.md#evaluation).

Each simple command of a shell call becomes rows of kinds `head` (every name a `command "…"`
condition may use, and `*`), `opt` (canonical name, value), `arg` (an operand), `nargs` (how
many operands it has), `path` (its role as key, its text, its places and the forms a glob is
tried on), `text` (the command as `shell.commands` holds it) and `remote`. The program
grammars come from the compiled policy (`program_grammars`), read once per engine or per event
for the programs the event names.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from agentstyle.commands.catalog import Catalog
from agentstyle.commands.model import Command, build, program_of
from agentstyle.vocabulary import PLACES

# places a path is judged against; `unknown` is a state, not a folder to be outside of
_FOLDERS = tuple(p for p in PLACES if p != "unknown")
COLUMNS = ("c_seq", "c_cmd", "c_kind", "c_key", "c_value", "c_tags", "c_forms")


def commands_of(event: Any, catalog: Catalog) -> list[Command]:
    """The command model of one event (none for an event that is not a shell call)."""
    parsed = event.shell
    if parsed is None or not parsed.runs:
        return []
    root = _real(event.cwd) if event.cwd else None
    return build(parsed.runs, root, catalog)


def programs_in(events: Sequence[Any]) -> list[str]:
    """Every program the batch's shell calls run: the grammars to read."""
    found: dict[str, None] = {}
    for event in events:
        parsed = event.shell
        if parsed is not None:
            for run in parsed.runs:
                if run.argv:
                    found[program_of(run.argv[0])] = None
    return list(found)


def rows_of(batch: Sequence[list[Command]]) -> dict[str, list[Any]]:
    """The rows of every event's commands, as the statement's lists by name."""
    out: dict[str, list[Any]] = {name: [] for name in COLUMNS}

    def add(
        seq: int,
        cmd: int,
        kind: str,
        key: str | None,
        value: str | None,
        tags: list[str] | None = None,
        forms: list[str] | None = None,
    ) -> None:
        out["c_seq"].append(seq)
        out["c_cmd"].append(cmd)
        out["c_kind"].append(kind)
        out["c_key"].append(key)
        out["c_value"].append(value)
        out["c_tags"].append(tags)
        out["c_forms"].append(forms)

    for seq, commands in enumerate(batch):
        for n, command in enumerate(commands):
            add(seq, n, "head", None, "*")
            for head in command.heads:
                add(seq, n, "head", None, head)
            for name, value in command.options:
                add(seq, n, "opt", name, value)
            for operand in command.operands:
                add(seq, n, "arg", None, operand)
            add(seq, n, "nargs", None, str(len(command.operands)))
            for use in command.paths:
                add(
                    seq,
                    n,
                    "path",
                    use.role,
                    use.place.text,
                    place_tags(use.place.tags),
                    list(use.place.forms),
                )
            add(seq, n, "text", None, command.text)
            if command.remote:
                add(seq, n, "remote", None, "true")
            if command.does_nothing:
                add(seq, n, "nothing", None, ",".join(command.does_nothing))
            for assignment in command.env:
                name, _eq, value = assignment.partition("=")
                add(seq, n, "env", name.removesuffix("+"), value)
    return out


def place_tags(tags: frozenset[str]) -> list[str]:
    """A path's places with `outside:P` for every place it is neither in nor at."""
    out = sorted(tags)
    for place in _FOLDERS:
        if f"is:{place}" not in tags and f"inside:{place}" not in tags:
            out.append(f"outside:{place}")
    return out


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path
