"""Program grammars: how a program reads its words (docs/design/commands.md#grammars).

A grammar is data, one YAML file per program family under `commands/programs/`: the program's
subcommands, its options with every spelling and whether they take a value, and what its
operands are (paths it reads, writes or deletes, or plain words). This module turns that data
into `Grammar` objects. The files are read when a policy is compiled (`load_files`) and kept in
the rules database as JSON (`program_grammars`), so the evaluator builds grammars with the
standard library alone (`from_data`).

An option is written as its usage line: `-f, --force`, `-C <dir>` (a value, attached or the
next word), `--color[=<when>]` (a value only when attached), `-fprintf <file> <format>` (a
value and the words after it), `-exec <command>... ;|+` (every word up to one of the
terminators), `of=<file>` (a keyword operand, `dd of=…`). Its attributes
are words: the role of its value (`reads`, `writes`, `deletes`, `path`, `cwd`, `runs`, `url`,
`code`, `host`, `port`, `data`, `address`; an operand may also be `command`: the words of a
command it runs), `nothing` (the program then does nothing: a dry run, help, a version),
`persistent` (also valid after the subcommand, as kubectl's global flags are), `target` (its
value is where the operands go, so every operand takes the repeating role: `cp -t DIR a b`),
`listen` (the program then listens for connections: `nc -l`), `saves` (it then saves each URL
to a file named after the URL's last part: `curl -O`), `recursive` (it then reads the files under
the folders it reads: `grep -r`), `hidden` (and the hidden ones too: `rg --hidden`), `include`
/ `exclude` (its value is a glob of file names it then reads, or leaves: `--include=*.py`),
`flat` (it then reads a folder without what is under it: `tar --no-recursion`), `output` (the
file an option of role `path` names is then one it writes: `tar -c -f x.tar`), `extracts` (it
then writes into the folder it runs in: `tar -x`, moved by `-C`), `inplace` (it then writes
the files it reads, in place: gawk's `-i inplace`; an option with a value only when the value
names the `inplace` library), `removes` (it then deletes the files it reads, and what is under
them: find's `-delete`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

# What an operand or an option's value is. `word` is not a path; the others are, and say what
# the program does with it (`path`: the grammar does not say).
PATH_ROLES = frozenset({"path", "reads", "writes", "deletes", "runs", "cwd"})
# `data`: a value that names a file it reads when it starts with `@` (`curl -d @file`); `address`:
# one of socat's (`TCP-LISTEN:4444`, `EXEC:/bin/sh`); `command`: the operands are a command the
# program runs (`yarn BIN …`, `corepack pnpm …`): the model reads them as a command of its own
# (docs/design/commands.md#the-model)
ROLES = PATH_ROLES | frozenset(
    {"word", "url", "code", "host", "port", "data", "address", "command", "names"}
)
OPTION_FLAGS = frozenset(
    {
        "nothing",
        "persistent",
        "target",
        "listen",
        "saves",
        "recursive",
        "hidden",
        "include",
        "exclude",
        "flat",
        "output",
        "extracts",
        "inplace",
        "removes",
    }
)
NODE_KEYS = frozenset(
    {
        "summary",
        "options",
        "subcommands",
        "operands",
        "words",
        "permute",
        "clusters",
        "abbreviations",
        "negations",
        "dashdash",
        "stdin",
        "saves",
        "recursive",
        "hostpaths",
        "oldstyle",
        "into",
        "unfollowed",
    }
)

_NAME = re.compile(r"-{1,2}[A-Za-z0-9?@#.][-A-Za-z0-9_.?@#]*|[A-Za-z][A-Za-z0-9_-]*=")
_VALUE = re.compile(
    r"^(?P<opt>\[=<[^>]+>\])$|^ <[^>]+>(?P<until>\.\.\. (?P<terms>\S+))?$|^=<[^>]+>$|^<[^>]+>$"
    r"|^ <[^>]+>(?P<more>( <[^>]+>)+)$"
)


class GrammarProblem(ValueError):
    """A grammar file that does not read: where (program, node, key) and what."""


@dataclass(frozen=True, slots=True)
class Option:
    """One option of one node: every spelling, its value and its attributes."""

    canonical: str
    names: tuple[str, ...]
    value: str = ""  # "" (a flag) | "required" | "optional" (attached only) | "until"
    until: tuple[str, ...] = ()  # the words that end an "until" value
    role: str | None = None  # what its value is (ROLES), when it takes one
    flags: frozenset[str] = frozenset()  # OPTION_FLAGS
    extra: int = 0  # words after its value that it takes too (`-fprintf <file> <format>`)

    @property
    def does_nothing(self) -> bool:
        return "nothing" in self.flags


@dataclass(slots=True)
class Node:
    """A program or one of its subcommands."""

    words: tuple[str, ...]  # the canonical words from the program: ("git", "clean")
    options: dict[str, Option] = field(default_factory=dict)  # by every spelling
    subcommands: dict[str, Node] = field(default_factory=dict)  # by every spelling
    operands: tuple[str, ...] = ("word...",)  # roles; one may repeat (`reads...`)
    depth: int = 0  # leading words taken as subcommand words where none is listed (aws: 2)
    permute: bool = True  # options may follow operands (GNU); False: the first operand ends them
    clusters: bool = True  # `-abc` is `-a -b -c`
    abbreviations: bool = False  # a long option may be shortened to a unique prefix
    negations: bool = False  # `--no-NAME` undoes an earlier `--NAME` and back: the last wins
    dashdash: str | None = None  # the role of operands after `--`, when it differs
    # `stdin: code`: given no script and no code word, it runs the program it reads on stdin
    stdin_code: bool = False
    # `saves: url`: without an option naming where, it saves each URL to a file named after it
    saves_urls: bool = False
    # `recursive: always` (rg, tar) or `recursive: unhidden` (rg: not hidden files unless an
    # option marked `hidden` says so): it reads the files under the folders it reads
    recursive: str | None = None
    hostpaths: bool = False  # a path written `host:path`, `host::module`, `scheme://…` is remote
    # `oldstyle: true`: a first word without a dash is a cluster of options (`tar czf x.tgz d`)
    oldstyle: bool = False
    # `into: folder` (cp, mv): where the destination is a folder, each source lands in it under
    # its own name (`cp -r x/.git .` writes `./.git`); `into: always` (rsync): a source without
    # a trailing slash always does
    into: str | None = None
    # `unfollowed: true` (rm, unlink, mv): an operand it deletes that is a symbolic link is the
    # link itself (`rm -rf link` removes the link, not what it leads to; `link/` is followed)
    unfollowed: bool = False
    summary: str = ""

    def option(self, name: str) -> Option | None:
        return self.options.get(name)

    def longs(self) -> list[str]:
        return [n for n in self.options if n.startswith("--")]


@dataclass(slots=True)
class Grammar:
    """One program's grammar: its root node and the family file it came from."""

    program: str
    family: str
    root: Node

    def node(self, words: tuple[str, ...]) -> Node | None:
        """The node of `words` after the program (canonical or any spelling), if declared."""
        node = self.root
        for word in words:
            found = node.subcommands.get(word)
            if found is None:
                return None
            node = found
        return node

    def nodes(self) -> list[Node]:
        """Every node, the root first."""
        return subtrees([self.root], set())


def subtrees(todo: list[Node], seen: set[int]) -> list[Node]:
    """The nodes of `todo` and every subcommand under them, depth first, each once (a node two
    subcommands share, an alias) and none whose id is in `seen` (which this extends)."""
    out: list[Node] = []
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        todo.extend(node.subcommands.values())
    return out


def parse_option(spec: str, attributes: Any, where: str) -> Option:
    """An option from its usage line and its attribute words."""
    spec = spec.strip()
    names: list[str] = []
    rest = spec
    while True:
        m = _NAME.match(rest)
        if m is None:
            raise GrammarProblem(f"{where}: option `{spec}` does not start with an option name")
        names.append(m.group(0))
        rest = rest[m.end() :]
        if rest.startswith(", "):
            rest = rest[2:]
            continue
        break
    value, until, extra = "", (), 0
    if names[-1].endswith("="):
        value = "required"  # `of=<file>`: the keyword and its value are one word
        rest = rest.strip()
        if rest and not re.fullmatch(r"<[^>]+>", rest):
            raise GrammarProblem(f"{where}: option `{spec}`: unexpected `{rest}`")
    elif rest:
        m = _VALUE.match(rest)
        if m is None:
            raise GrammarProblem(f"{where}: option `{spec}`: cannot read the value `{rest}`")
        if m.group("opt"):
            value = "optional"
        elif m.group("until"):
            value, until = "until", tuple(m.group("terms").split("|"))
        elif m.group("more"):
            value, extra = "required", m.group("more").count(" <")
        else:
            value = "required"
    words = _words(attributes, where, spec)
    roles = [w for w in words if w in ROLES]
    flags = frozenset(w for w in words if w in OPTION_FLAGS)
    unknown = [w for w in words if w not in ROLES and w not in OPTION_FLAGS]
    if unknown:
        raise GrammarProblem(f"{where}: option `{spec}`: unknown attribute `{unknown[0]}`")
    if len(roles) > 1:
        raise GrammarProblem(f"{where}: option `{spec}`: more than one role")
    if roles and not value:
        raise GrammarProblem(f"{where}: option `{spec}` takes no value, so it has no role")
    canonical = next((n for n in names if n.startswith("--")), names[0])
    role = roles[0] if roles else None
    return Option(canonical, tuple(names), value, until, role, flags, extra)


def _words(attributes: Any, where: str, spec: str) -> list[str]:
    if attributes is None:
        return []
    if isinstance(attributes, str):
        return attributes.split()
    raise GrammarProblem(f"{where}: option `{spec}`: attributes are words, not {attributes!r}")


def parse_operands(value: Any, where: str) -> tuple[str, ...]:
    """`deletes` (every operand) or a list of roles, one of which may repeat (`reads...`)."""
    items = [value] if isinstance(value, str) and " " not in value else value
    if isinstance(items, str):
        items = items.split()
    if not isinstance(items, list) or not items:
        raise GrammarProblem(f"{where}: operands are a role or a list of roles")
    roles: list[str] = []
    for item in items:
        role = str(item)
        base = role.removesuffix("...")
        if base not in ROLES:
            raise GrammarProblem(f"{where}: unknown operand role `{base}`")
        roles.append(role)
    if len(roles) == 1 and not roles[0].endswith("..."):
        roles[0] += "..."  # `operands: deletes`: every operand
    if sum(r.endswith("...") for r in roles) > 1:
        raise GrammarProblem(f"{where}: only one operand role may repeat")
    return tuple(roles)


# The keys that say what a program does beside its words: key → (the node's attribute, the
# values allowed, how they are said). A key of one value is a flag (True where given).
_EFFECT_KEYS = {
    "recursive": ("recursive", ("always", "unhidden"), "`always` or `unhidden`"),
    "saves": ("saves_urls", ("url",), "`url` (each URL to a file named after it)"),
    "into": ("into", ("folder", "always"), "`folder` or `always`"),
    "stdin": ("stdin_code", ("code",), "`code` (the program comes from stdin)"),
}


def _effect_keys(node: Node, data: dict[str, Any], where: str) -> None:
    """`recursive`, `saves`, `into`, `stdin` (_EFFECT_KEYS) onto the node."""
    for key, (attribute, allowed, said) in _EFFECT_KEYS.items():
        if key not in data:
            continue
        if data[key] not in allowed:
            raise GrammarProblem(f"{where}: `{key}` is {said}")
        setattr(node, attribute, True if len(allowed) == 1 else str(data[key]))


def build_node(words: tuple[str, ...], data: Any, inherit: Node | None, where: str) -> Node:
    """A node from its data; `inherit` passes the program's parsing style down."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise GrammarProblem(f"{where}: a program or subcommand is a mapping")
    unknown = sorted(set(data) - NODE_KEYS)
    if unknown:
        raise GrammarProblem(f"{where}: unknown key `{unknown[0]}`")
    node = Node(words=words)
    if inherit is not None:
        node.permute, node.clusters = inherit.permute, inherit.clusters
        node.abbreviations = inherit.abbreviations
        node.hostpaths = inherit.hostpaths
        node.negations = inherit.negations
    node.summary = str(data.get("summary", ""))
    for key in (
        "permute",
        "clusters",
        "abbreviations",
        "hostpaths",
        "negations",
        "oldstyle",
        "unfollowed",
    ):
        if key in data:
            if not isinstance(data[key], bool):
                raise GrammarProblem(f"{where}: `{key}` is true or false")
            setattr(node, key, data[key])
    if "words" in data:
        if not isinstance(data["words"], int) or data["words"] < 0:
            raise GrammarProblem(f"{where}: `words` is a number of words")
        node.depth = data["words"]
    if "operands" in data:
        node.operands = parse_operands(data["operands"], where)
    if "dashdash" in data:
        node.dashdash = parse_operands(data["dashdash"], where)[0].removesuffix("...")
    _effect_keys(node, data, where)
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise GrammarProblem(f"{where}: `options` is a mapping of usage lines to attributes")
    for spec, attributes in options.items():
        option = parse_option(str(spec), attributes, where)
        for name in option.names:
            node.options[name] = option
    subs = data.get("subcommands") or {}
    if not isinstance(subs, dict):
        raise GrammarProblem(f"{where}: `subcommands` is a mapping")
    for spelled, sub in subs.items():
        names = [n.strip() for n in str(spelled).split(",") if n.strip()]
        child = build_node((*words, names[0]), sub, node, f"{where} {names[0]}")
        for name in names:
            node.subcommands[name] = child
    return node


def from_data(program: str, family: str, data: Any) -> Grammar:
    """The grammar of `program` from its entry of a family file (as loaded from YAML or JSON)."""
    return Grammar(program, family, build_node((program,), data, None, program))


def programs_of(family_data: Any, family: str) -> dict[str, Any]:
    """Program name → its entry, from one family file (`docker, podman:` gives both)."""
    if not isinstance(family_data, dict):
        raise GrammarProblem(f"{family}: a family file is a mapping of programs")
    out: dict[str, Any] = {}
    for spelled, data in family_data.items():
        for name in (n.strip() for n in str(spelled).split(",")):
            if name:
                out[name] = data
    return out
