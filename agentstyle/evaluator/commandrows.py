"""The command model of a batch's shell calls as rows for sql/evaluate/commands.sql.

See docs/design/commands.md#evaluation.

Each simple command of a shell call becomes rows of kinds `head` (every name a `command "…"`
condition may use, and `*`), `sub` (each of its subcommand words), `opt` (canonical name,
value), `arg` (an operand), `nargs` (how many operands it has), `path` (its role as key, its
text, its places and the forms a glob is tried on), `text` (the command as `shell.commands`
holds it) and `remote`. The program
grammars come from the compiled policy (`program_grammars`), read once per engine or per event
for the programs the event names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentstyle.commands.catalog import Catalog
from agentstyle.commands.model import Command, PathUse, build, program_of
from agentstyle.commands.paths import real_path
from agentstyle.vocabulary import (
    PLACES,
    ROUTE_KINDS,
    SOURCE_FIELD,
    CommandField,
)

# places a path is judged against; `unknown` is a state, not a folder to be outside of
_FOLDERS = tuple(p for p in PLACES if p != "unknown")
COLUMNS = ("c_seq", "c_cmd", "c_kind", "c_key", "c_value", "c_tags", "c_forms")


def commands_of(event: Any, catalog: Catalog) -> list[Command]:
    """The command model of one event (none for an event that is not a shell call)."""
    parsed = event.shell
    if parsed is None or not parsed.runs:
        return []
    root = real_path(event.cwd) if event.cwd else None
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
            for word in command.words[1:]:
                add(seq, n, "sub", None, word)
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
            for end in command.network:
                add(seq, n, "net", None, end.kind)
                add(seq, n, "net.host", None, end.host)
                add(seq, n, "net.port", None, end.port)
            for what in sorted(command.runs):
                add(seq, n, "runs", None, what)
            for stream in sorted(command.sockets):
                add(seq, n, "socket", None, stream)
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


@dataclass(slots=True)
class CommandEvent:
    """A simple command's own event (docs/design/commands.md#evaluation): the batch event it
    belongs to, the route keys of its names for one kind of event (the command, one of its
    paths, one command feeding it, one path of that one), and its field rows: the command's
    own, the feeding command's as `command.from.*`, and the event's fields its conditions read
    beside them."""

    seq: int
    event: Any
    routes: list[str]
    rows: list[tuple[str, str]]


def command_events(events: Sequence[Any], catalog: Catalog, need: Any) -> list[CommandEvent]:
    """The events of every simple command of the batch's shell calls: of the command, of each
    path it names, of each command whose output reaches it, and of each path of that one, each
    only where a condition reads what it is for. Only the rows some condition reads
    (`need.keys`) are made."""
    keys: frozenset[str] = need.keys
    per_path = bool(keys & _PATH_FIELDS)
    flows = CommandField.FLOW in keys
    source_paths = any(k.startswith(SOURCE_FIELD + "path.") for k in keys)
    out: list[CommandEvent] = []
    for seq, event in enumerate(events):
        commands = commands_of(event, catalog)
        if not commands:
            continue
        beside = [(f, v) for f, _i, v in event.fields if f in need.command_keys]
        for command in commands:
            own = _own_rows(command, keys, "command.") + beside
            paths = [_path_rows(use, keys, "command.") for use in command.paths]
            names = [*command.heads, "*"]
            every_path = [row for rows in paths for row in rows]
            routes = {kind: [f"{kind}={name}" for name in names] for kind in ROUTE_KINDS}
            out.append(CommandEvent(seq, event, routes["cmd"], own + every_path))
            if per_path:
                out.extend(CommandEvent(seq, event, routes["cmdpath"], own + p) for p in paths)
            if not flows:
                continue
            for source, kinds in command.inputs.items():
                feeding = commands[source]
                base = own + every_path + [(CommandField.FLOW, kind) for kind in sorted(kinds)]
                base += _own_rows(feeding, keys, SOURCE_FIELD)
                base += [(SOURCE_FIELD + "head", head) for head in feeding.heads]
                theirs = [_path_rows(use, keys, SOURCE_FIELD) for use in feeding.paths]
                all_theirs = [row for rows in theirs for row in rows]
                out.append(CommandEvent(seq, event, routes["cmdfrom"], base + all_theirs))
                if source_paths:
                    out.extend(
                        CommandEvent(seq, event, routes["cmdfrompath"], base + p) for p in theirs
                    )
    return out


_PATH_FIELDS = frozenset({CommandField.PATH_ROLE, CommandField.PATH_TAG, CommandField.PATH_FORM})


def _own_rows(command: Command, keys: frozenset[str], prefix: str) -> list[tuple[str, str]]:
    """A command's rows that some condition reads, its fields named with `prefix` (`command.`
    for its own, `command.from.` as the command feeding another)."""
    rows: list[tuple[str, str]] = []

    def add(name: str, value: str) -> None:
        field = prefix + name.removeprefix("command.")
        if field in keys:
            rows.append((field, value))

    for head in command.heads:
        add(CommandField.HEAD, head)
    for name, value in command.options:
        add(CommandField.OPT + name, value if value is not None else "")
    for word in command.words[1:]:
        add(CommandField.SUB, word)
    add(CommandField.NARGS, str(len(command.operands)))
    for operand in command.operands:
        add(CommandField.ARG, operand)
    add(CommandField.TEXT, command.text)
    if command.remote:
        add(CommandField.REMOTE, "true")
    if command.does_nothing:
        add(CommandField.NOTHING, ",".join(command.does_nothing))
    for assignment in command.env:
        name, _eq, value = assignment.partition("=")
        add(CommandField.ENV + name.removesuffix("+"), value)
    for end in command.network:
        add(CommandField.NET, end.kind)
        if end.host:
            add(CommandField.NET_HOST, end.host)
        if end.port:
            add(CommandField.NET_PORT, end.port)
    for what in sorted(command.runs):
        add(CommandField.RUNS, what)
    for stream in sorted(command.sockets):
        add(CommandField.SOCKET, stream)
    return rows


def _path_rows(use: PathUse, keys: frozenset[str], prefix: str) -> list[tuple[str, str]]:
    def field(name: str) -> str:
        return prefix + name.removeprefix("command.")

    rows = [(field(CommandField.PATH_ROLE), use.role)]
    if field(CommandField.PATH_TAG) in keys:
        rows.extend((field(CommandField.PATH_TAG), tag) for tag in place_tags(use.place.tags))
    if field(CommandField.PATH_FORM) in keys:
        rows.extend((field(CommandField.PATH_FORM), form) for form in use.place.forms)
    return rows
