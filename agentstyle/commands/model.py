"""The command model: each simple command as a record a rule can read
(docs/design/commands.md#the-model).

For every simple command the shell would run (`shell.Run`): its program (after wrappers, by
basename), the command names a rule may use (`git`, `git clean`), its options in one canonical
spelling with their values, its operands, and the paths it touches with where each lands. The
records become rows (`rows`) that the evaluator joins against the rules' command conditions.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agentstyle.commands.argv import Parsed, read_words
from agentstyle.commands.grammar import PATH_ROLES, Grammar
from agentstyle.commands.paths import Place, Where, machine, place

Grammars = Callable[[str], Grammar | None]

# Paths a command may name before the model stops taking more (a generous bound: a command line
# with more is already past the analysis's other limits).
MAX_PATHS = 512
RUNTIME_WORD = "(words xargs reads at run time)"


@dataclass(frozen=True, slots=True)
class PathUse:
    """A path a command names: the word, what the program does with it, where it lands."""

    word: str
    role: str  # grammar.PATH_ROLES: reads, writes, deletes, runs, cwd, path
    place: Place


@dataclass(slots=True)
class Command:
    """One simple command as rules see it."""

    program: str
    words: list[str]  # the program and its subcommand words, canonical: ["docker", "volume", "rm"]
    heads: list[str]  # the names a `command "…"` condition matches: "docker", "docker volume", …
    options: list[tuple[str, str | None]]
    operands: list[str]
    paths: list[PathUse] = field(default_factory=list)
    remote: bool = False
    text: str = ""
    does_nothing: list[str] = field(default_factory=list)  # options that make it do nothing
    grammar: str | None = None  # the family file that read it; None: the generic split
    env: tuple[str, ...] = ()  # the NAME=value words it runs with


def program_of(word: str) -> str:
    """`/usr/bin/git` → `git`, `./deploy.sh` → `deploy.sh`, `git.exe` → `git`."""
    from agentstyle.shell.wrappers import command_name

    return command_name(word)


def build(runs: Sequence[object], root: str | None, grammars: Grammars) -> list[Command]:
    """The records of `runs` (shell.Run, in the order the shell meets them)."""
    from agentstyle.shell import Run

    where = machine(root)
    out: list[Command] = []
    budget = MAX_PATHS
    for run in runs:
        assert isinstance(run, Run)
        if not run.argv:
            if run.redirs:  # `> /dev/sda` alone: no program, yet the shell opens the file
                out.append(_opened(run, where))
            continue
        program = program_of(run.argv[0])
        parsed = read_words(program, list(run.argv[1:]), grammars(program))
        command = Command(
            program=program,
            words=parsed.words,
            heads=parsed.heads,
            options=parsed.options,
            operands=[w for w, _role in parsed.operands],
            remote=run.remote,
            text=run.text,
            does_nothing=parsed.does_nothing,
            grammar=parsed.grammar,
            env=run.env,
        )
        if budget > 0:
            command.paths = _paths(parsed, run, where)[:budget]
            budget -= len(command.paths)
        if program == "ln":
            _links(parsed, run, where)
        out.append(command)
        if command.does_nothing and run.redirs:
            # `ls --help > /dev/sda` prints its help, but the shell opens (and empties) the
            # file whatever the program then does
            out.append(_opened(run, where))
    return out


def _opened(run: object, where: Where) -> Command:
    """The files the shell opens for a run's redirections, as a command of no name: only a
    condition that names no command (`command where ( … )`) sees it."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    parsed = Parsed(words=[], heads=[])
    paths = _paths(parsed, Run((), run.dirs, remote=run.remote, redirs=run.redirs), where)
    return Command(
        program="",
        words=[],
        heads=[],
        options=[],
        operands=[],
        paths=paths,
        remote=run.remote,
        text=run.text,
        env=run.env,
    )


def _dirs(parsed: Parsed, run: object) -> list[str]:
    """The folders the command's relative paths start from: where it runs, moved by a `cwd`
    option (`git -C sub`, `make -C dir`)."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    dirs = list(run.dirs) or [""]
    for _name, value, role in parsed.option_values:
        if role == "cwd" and value:
            dirs = [_moved(d, value) for d in dirs]
    return dirs


def _moved(directory: str, value: str) -> str:
    if value.startswith(("/", "~", "$")):
        return value
    if not directory:
        return posixpath.normpath(value)
    return posixpath.normpath(posixpath.join(directory, value))


def _paths(parsed: Parsed, run: object, where: Where) -> list[PathUse]:
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    dirs = _dirs(parsed, run)
    words: list[tuple[str, str]] = [(w, r) for w, r in parsed.operands if r in PATH_ROLES]
    words += [(v, r) for _n, v, r in parsed.option_values if r in PATH_ROLES and r != "cwd"]
    for op, target in run.redirs:
        if target == "/dev/null" or not target:
            continue
        words.append((target, "reads" if op.lstrip("0123456789").startswith("<") else "writes"))
    out: list[PathUse] = []
    seen: set[tuple[str, str, str]] = set()
    for word, role in words:
        for d in dirs:
            for found in place(word, d, where, remote=run.remote):
                key = (word, role, found.text)
                if key not in seen:
                    seen.add(key)
                    out.append(PathUse(word, role, found))
    takes_paths = any(r.removesuffix("...") in PATH_ROLES for r in _operand_roles(parsed))
    if run.runtime_args and takes_paths:
        unknown = Place(RUNTIME_WORD, (RUNTIME_WORD,), frozenset({"is:unknown"}))
        out.append(PathUse(RUNTIME_WORD, _operand_roles(parsed)[-1].removesuffix("..."), unknown))
    return out


def _operand_roles(parsed: Parsed) -> list[str]:
    if parsed.grammar is None:
        return ["path..."]
    return [r for _w, r in parsed.operands] or ["path..."]


def _links(parsed: Parsed, run: object, where: Where) -> None:
    """`ln -s TARGET LINK`: later commands of the line that go through LINK reach TARGET."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    names = {name for name, _v in parsed.options}
    if not names & {"--symbolic", "-s"} or run.remote:
        return
    operands = [w for w, _r in parsed.operands]
    if len(operands) < 2:
        return
    target, link = operands[0], operands[-1]
    for d in run.dirs or [""]:
        at = place(link, d, where)[0]
        if not at.text.startswith("/"):
            continue
        to = place(target, posixpath.dirname(at.text), where)[0]
        if to.text.startswith("/"):
            where.links[at.text] = to.text


def describe(command: Command) -> str:
    """One line of `style explain` (docs/commands.md#style-explain): the command as rules read
    it: its names, options with their canonical names and values, operands, and each path with
    what the program does to it and where it lands."""
    if not command.heads:
        parts = ["redirections"]  # the files the shell opens, whatever runs (`_opened`)
    else:
        parts = [f"command {json.dumps(command.heads[-1], ensure_ascii=False)}"]
        if command.grammar is None:
            parts.append("grammar=none")
    if command.options:
        shown = [n if v is None else f"{n}={v}" for n, v in command.options]
        parts.append("options=" + json.dumps(shown, ensure_ascii=False))
    if command.operands:
        parts.append("operands=" + json.dumps(command.operands, ensure_ascii=False))
    for use in command.paths:
        places = sorted(t for t in use.place.tags if not t.startswith("outside:"))
        where = ",".join(places) or "outside every place"
        parts.append(f"path={json.dumps(use.place.text, ensure_ascii=False)}({use.role}; {where})")
    if command.does_nothing:
        parts.append("does-nothing=" + ",".join(command.does_nothing))
    if command.remote:
        parts.append("runs=remote")
    return " ".join(parts)
