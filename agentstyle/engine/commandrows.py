"""The command model of a batch's shell calls as rows for sql/evaluate/commands.sql
(docs/design/commands.md#evaluation).

Each simple command of a shell call becomes rows of kinds `head` (every name a `command "…"`
condition may use, and `*`), `opt` (canonical name, value), `arg` (an operand), `path` (its role
as key, its text, its places and the forms a glob is tried on), `text` (the command as
`shell.commands` holds it) and `remote`. The program grammars come from the compiled policy
(`program_grammars`), read once per engine or per event for the programs the event names.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentstyle.commands.catalog import Catalog
from agentstyle.commands.model import Command, PathUse, build, program_of
from agentstyle.vocabulary import (
    COMMAND_ROUTE,
    FIELD_ARG,
    FIELD_ENV,
    FIELD_HEAD,
    FIELD_NOTHING,
    FIELD_OPT,
    FIELD_PATH_FORM,
    FIELD_PATH_ROLE,
    FIELD_PATH_TAG,
    FIELD_REMOTE,
    FIELD_TEXT,
    PATH_ROUTE,
    PLACES,
)

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


@dataclass(slots=True)
class CommandEvent:
    """A simple command's own event (docs/design/commands.md#evaluation): the batch event it
    belongs to, the route keys of its names (or of one of its paths), and its field rows: the
    command's own, and the event's fields its conditions read beside them."""

    seq: int
    event: Any
    routes: list[str]
    rows: list[tuple[str, str]]


def command_events(events: Sequence[Any], catalog: Catalog, need: Any) -> list[CommandEvent]:
    """The events of every simple command of the batch's shell calls, and of each path one
    names (for the clauses whose path tests speak of one path). Only the rows some condition
    reads (`need.keys`) are made."""
    keys: frozenset[str] = need.keys
    paths_read = bool(keys & {FIELD_PATH_ROLE, FIELD_PATH_TAG, FIELD_PATH_FORM})
    out: list[CommandEvent] = []
    for seq, event in enumerate(events):
        commands = commands_of(event, catalog)
        if not commands:
            continue
        beside = [(f, v) for f, _i, v in event.fields if f in need.command_keys]
        for command in commands:
            own = _own_rows(command, keys)
            paths = [_path_rows(use, keys) for use in command.paths] if paths_read else []
            names = [*command.heads, "*"]
            routes = [COMMAND_ROUTE + name for name in names]
            every_path = [row for rows in paths for row in rows]
            out.append(CommandEvent(seq, event, routes, own + every_path + beside))
            per_path = [PATH_ROUTE + name for name in names]
            out.extend(CommandEvent(seq, event, per_path, own + rows + beside) for rows in paths)
    return out


def _own_rows(command: Command, keys: frozenset[str]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    if FIELD_HEAD in keys:
        rows.extend((FIELD_HEAD, head) for head in command.heads)
    for name, value in command.options:
        if FIELD_OPT + name in keys:
            rows.append((FIELD_OPT + name, value if value is not None else ""))
    if FIELD_ARG in keys:
        rows.extend((FIELD_ARG, operand) for operand in command.operands)
    if FIELD_TEXT in keys:
        rows.append((FIELD_TEXT, command.text))
    if command.remote and FIELD_REMOTE in keys:
        rows.append((FIELD_REMOTE, "true"))
    if command.does_nothing and FIELD_NOTHING in keys:
        rows.append((FIELD_NOTHING, ",".join(command.does_nothing)))
    for assignment in command.env:
        name, _eq, value = assignment.partition("=")
        if FIELD_ENV + name.removesuffix("+") in keys:
            rows.append((FIELD_ENV + name.removesuffix("+"), value))
    return rows


def _path_rows(use: PathUse, keys: frozenset[str]) -> list[tuple[str, str]]:
    rows = [(FIELD_PATH_ROLE, use.role)]
    if FIELD_PATH_TAG in keys:
        rows.extend((FIELD_PATH_TAG, tag) for tag in place_tags(use.place.tags))
    if FIELD_PATH_FORM in keys:
        rows.extend((FIELD_PATH_FORM, form) for form in use.place.forms)
    return rows
