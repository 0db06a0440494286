"""Command conditions in the policy: their names, options, `where` clauses and checks.

The names they match, their options in canonical spelling, their `where` as clauses, and their
checks (docs/conditions.md#command-conditions).

`command "git clean" where (option "-f")` is checked against git's grammar (an option or
subcommand it does not know is a warning with a did-you-mean; a program STYLE has no grammar
for is said once), its values like any other condition's (settings, RE2, globs), and lowered by
`policy/lower.py` from the clauses `where_clauses` gives: the `where` in disjunctive normal
form, with the path tests of one clause about one path when one of them is positive.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from agentstyle import codes
from agentstyle.commands.catalog import shipped_grammar
from agentstyle.commands.grammar import Grammar, Node, subtrees
from agentstyle.diagnostics import closest, suggestion
from agentstyle.grammar.ast import And, CommandItem, CommandPred, Not, Or, Pred
from agentstyle.grammar.ast import Node as Condition
from agentstyle.policy.conditiontree import leaves, normal_form


class Checks(Protocol):
    """What checking a command condition needs of the validator (policy/validate.py)."""

    def emit(
        self, code: str, message: str, span: Any, rule: str | None, hint: str | None = None
    ) -> None: ...

    def check_value(self, pred: Pred, info: Any) -> bool: ...


MAX_WHERE_CLAUSES = 256


class WhereTooComplex(Exception):
    pass


def program_name(word: str) -> str:
    """The program a command condition names, as the command model records it (basename)."""
    from agentstyle.shell.wrappers import command_name

    return command_name(word)


def heads_of(command: CommandPred) -> list[str]:
    """The names a command condition matches, as the model records them: `./deploy.sh prod`
    is `deploy.sh prod`, and a subcommand's alias its canonical name (`helm delete` is `helm
    uninstall`, as the model reads `helm delete x`); no name matches every command (`*`)."""
    if not command.names:
        return ["*"]
    out: list[str] = []
    for name in command.names:
        words = name.split()
        program = program_name(words[0])
        out.append(" ".join([program, *_canonical_words(program, words[1:])]))
    return list(dict.fromkeys(out))


def _canonical_words(program: str, words: list[str]) -> list[str]:
    """Subcommand words by their canonical names, as far as the program's grammar lists them."""
    grammar = shipped_grammar(program)
    node = grammar.root if grammar is not None else None
    out: list[str] = []
    for word in words:
        child = node.subcommands.get(word) if node is not None else None
        out.append(child.words[-1] if child is not None else word)
        node = child
    return out


def _node_of(head: str) -> tuple[Grammar | None, Node | None, list[str]]:
    """The grammar of a head's program, the node of its subcommand words (None when the
    grammar has no such node) and the words that did not resolve."""
    words = head.split()
    grammar = shipped_grammar(words[0])
    if grammar is None:
        return None, None, []
    node = grammar.root
    for k, word in enumerate(words[1:], start=1):
        child = node.subcommands.get(word)
        if child is None:
            # a program that takes any word as its subcommand (`words:`) knows this one too,
            # unless it looks like a misspelling of one it lists
            if node.depth and closest(word, sorted(node.subcommands)) is None:
                return grammar, node, []
            return grammar, None, words[k:]
        node = child
    return grammar, node, []


def _reachable(grammar: Grammar, head: str) -> list[Node]:
    """The nodes whose options a command named `head` may carry: the node, its ancestors (a
    global option before the subcommand) and its descendants (a deeper subcommand)."""
    words = head.split()[1:]
    chain = [grammar.root]
    node = grammar.root
    for word in words:
        child = node.subcommands.get(word)
        if child is None:
            break
        chain.append(child)
        node = child
    return chain + subtrees(list(node.subcommands.values()), {id(n) for n in chain})


def canonical_options(command: CommandPred, name: str) -> list[str]:
    """The canonical spellings `name` stands for under the command's names: `-f` under `git
    clean` is `--force`; a name no grammar resolves stays as written."""
    out: list[str] = []
    lookup = name + "=" if name.isalpha() else name  # `option "of"` for dd's `of=`
    for head in heads_of(command):
        grammar = shipped_grammar(head.split()[0]) if head != "*" else None
        found = False
        if grammar is not None:
            for node in _reachable(grammar, head):
                option = node.options.get(name) or node.options.get(lookup)
                if option is not None:
                    out.append(option.canonical.removesuffix("="))
                    found = True
        if not found:
            out.append(name)
    return list(dict.fromkeys(out))


def check_command(v: Checks, command: CommandPred, info: Any, bad: set[str], shell: bool) -> None:
    """Warnings for names and options the grammars do not know; the values' checks."""
    rid = info.rule.id
    if not shell:
        v.emit(
            codes.FIELD_UNAVAILABLE,
            f"a command condition reads the simple commands of shell calls, and rule `{rid}` "
            "is not about shell calls",
            command.span,
            rid,
        )
    for head in heads_of(command):
        if head == "*":
            continue
        grammar, node, unknown = _node_of(head)
        program = head.split()[0]
        if grammar is None:
            v.emit(
                codes.NO_GRAMMAR,
                f"no grammar for `{program}`: STYLE reads its options and operands with the "
                "generic split",
                command.span,
                rid,
            )
        elif node is None and unknown:
            parent = head.split()[: len(head.split()) - len(unknown)]
            known = _node_of(" ".join(parent))[1]
            names = sorted(known.subcommands) if known is not None else []
            v.emit(
                codes.UNKNOWN_SUBCOMMAND,
                f"`{' '.join(parent)}` has no subcommand `{unknown[0]}` in its grammar",
                command.span,
                rid,
                suggestion(closest(unknown[0], names)),
            )
    if command.where is None:
        return
    _check_flows(v, command.where, rid)
    _check_items(v, command, command.where, info)


def check_flow_places(v: Checks, tree: Condition, rid: str, negated: bool = False) -> None:
    """A command condition that reads a flow is not under a `not` (what no command fed another
    is not a guard's question, and the evaluator reads flows on the fed command's events)."""
    if isinstance(tree, CommandPred):
        flows = [i for i in items_of(tree.where)] if tree.where is not None else []
        if negated and any(i.kind == "flow" for i in flows):
            v.emit(
                codes.INVALID_CONDITION,
                "a command condition with `input from` or `code from` cannot be negated",
                tree.span,
                rid,
            )
    elif isinstance(tree, Not):
        check_flow_places(v, tree.item, rid, not negated)
    elif isinstance(tree, (And, Or)):
        for child in tree.items:
            check_flow_places(v, child, rid, negated)


def _check_items(v: Checks, command: CommandPred, where: Condition, info: Any) -> None:
    for item in items_of(where):
        if item.kind == "flow":
            # the command feeding this one: its names, and its parts under them
            source = CommandPred(item.names, item.inner, item.span)
            if item.inner is not None:
                _check_items(v, source, item.inner, info)
            continue
        if item.kind == "option" and item.name is not None:
            _check_option(v, command, item, info)
        if item.op in ("exists", "inside", "outside", "is", "listen", "connect", "stdin", "stdout"):
            continue
        proxy = Pred(f"command.{item.kind}", item.op, item.value, item.span)
        info.item_preds[id(item)] = proxy
        v.check_value(proxy, info)


def _check_flows(v: Checks, where: Condition, rid: str) -> None:
    """`input from` and `code from` say what reaches the command: one per command condition,
    never under a `not` (that some other command did not feed it is not what a guard asks)."""
    flows = [i for i in items_of(where) if i.kind == "flow"]
    if len(flows) > 1:
        v.emit(
            codes.INVALID_CONDITION,
            "one `input from` or `code from` per command condition; write another command "
            "condition for another flow",
            flows[1].span,
            rid,
        )
    for negated in _negated_items(where, False):
        if negated.kind == "flow":
            v.emit(
                codes.INVALID_CONDITION,
                f"`{negated.op} from` cannot be negated: say what the feeding command has",
                negated.span,
                rid,
            )


def _negated_items(node: Condition, negated: bool) -> Iterator[CommandItem]:
    if isinstance(node, CommandItem):
        if negated:
            yield node
    elif isinstance(node, Not):
        yield from _negated_items(node.item, not negated)
    elif isinstance(node, (And, Or)):
        for child in node.items:
            yield from _negated_items(child, negated)


def _check_option(v: Checks, command: CommandPred, item: CommandItem, info: Any) -> None:
    name = item.name or ""
    for head in heads_of(command):
        grammar = shipped_grammar(head.split()[0]) if head != "*" else None
        if grammar is None:
            continue
        lookup = name + "=" if name.isalpha() else name
        spelled = {n for node in _reachable(grammar, head) for n in node.options}
        if name in spelled or lookup in spelled:
            continue
        v.emit(
            codes.UNKNOWN_OPTION,
            f"`{head}` has no option `{name}` in its grammar",
            item.span,
            info.rule.id,
            suggestion(closest(name, sorted(spelled))),
        )


def items_of(node: Condition) -> list[CommandItem]:
    return leaves(node, CommandItem)


@dataclass(frozen=True, slots=True)
class Literal:
    """One literal of a `where` clause. A path literal is one or more path tests about one path
    (`tests`: each test and whether it is negated); `negated` says no part of the command
    passes it."""

    item: CommandItem | None  # None for a path literal (its items are in `tests`)
    negated: bool
    tests: tuple[tuple[CommandItem, bool], ...] = ()


def where_clauses(where: Condition | None) -> list[list[Literal]]:
    """The `where` in disjunctive normal form (a command matches when one clause holds). In a
    clause with a positive path test, every path test speaks of one path (`path outside
    project and not path glob "/opt/**"`: one path outside and not under /opt); a clause with
    only negated path tests says no path passes each."""
    # A command that does nothing (a dry run, help: an option its grammar marks `nothing`) is
    # not what a command condition is about, unless it says `runs nothing` itself.
    idle = None if where is not None and _says_nothing(where) else _NOTHING
    if where is None:
        return [[idle]] if idle is not None else [[]]
    out: list[list[Literal]] = []
    for clause in _dnf(where):
        paths = [(item, neg) for item, neg in clause if item.kind == "path"]
        rest = [Literal(item, neg) for item, neg in clause if item.kind != "path"]
        if any(not neg for _item, neg in paths):
            rest.append(Literal(None, False, tuple(paths)))
        else:
            rest.extend(Literal(None, True, ((item, False),)) for item, _neg in paths)
        if idle is not None:
            rest.append(idle)
        out.append(rest)
    return out


_NOTHING = Literal(CommandItem("runs", "exists", "nothing", None), True)  # type: ignore[arg-type]


def _says_nothing(where: Condition) -> bool:
    return any(i.kind == "runs" and i.value == "nothing" for i in items_of(where))


def _dnf(where: Condition) -> list[list[tuple[CommandItem, bool]]]:
    def leaf(node: Condition) -> CommandItem | None:
        return node if isinstance(node, CommandItem) else None

    return normal_form(where, leaf, MAX_WHERE_CLAUSES, WhereTooComplex, limit_alternatives=True)


# -- exceptions: a rule narrowed by `unless` (docs/rules.md#unless) -------------------------------


def narrowed(
    when: Condition | None, unless: Condition, span_of: Condition | None = None
) -> Condition:
    """`when` with `unless` taken out, per simple command where `unless` names a command.

    An `unless` that names no command, or a rule with no command condition it could narrow,
    turns the rule off for the whole event where `unless` holds: `when and not unless`. One
    that names a command narrows each command condition of `when` (those not under a `not`):
    the condition holds on a command only where `unless` does not hold on that same command.
    `unless`'s command conditions are read on that command (one naming other programs never
    holds there), its other parts on the event. So in `rm -rf /opt/cache/x && rm -rf /`, an
    exception for `rm` under /opt/cache leaves the second command refused; and since path
    tests of one clause speak of one path, `rm -rf /opt/cache/x /` is refused too.
    """
    anchor = unless
    if not leaves(unless, CommandPred) or when is None or not _positive_commands(when, False):
        base = [when] if when is not None else []
        return And((*base, Not(unless, _span(anchor))), _span(anchor))
    return _replace(when, unless, False)


def _span(node: Condition) -> Any:
    return node.span


def _positive_commands(node: Condition, negated: bool) -> bool:
    if isinstance(node, CommandPred):
        return not negated
    if isinstance(node, Not):
        return _positive_commands(node.item, not negated)
    if isinstance(node, (And, Or)):
        return any(_positive_commands(c, negated) for c in node.items)
    return False


def _replace(node: Condition, unless: Condition, negated: bool) -> Condition:
    if isinstance(node, CommandPred):
        return node if negated else _narrow_command(node, unless)
    if isinstance(node, Not):
        return Not(_replace(node.item, unless, not negated), node.span)
    if isinstance(node, And):
        return And(tuple(_replace(c, unless, negated) for c in node.items), node.span)
    if isinstance(node, Or):
        return Or(tuple(_replace(c, unless, negated) for c in node.items), node.span)
    return node


def _narrow_command(command: CommandPred, unless: Condition) -> Condition:
    """`command` where `unless` (read on the same command) does not hold: one command condition
    per clause of `not unless`, its event parts beside it (they do not depend on the command)."""
    restricted = _on_command(unless, command)
    out: list[Condition] = []
    for clause in _atoms_dnf(restricted, True):
        items: list[Condition] = []
        events: list[Condition] = []
        for atom, neg in clause:
            part = Not(atom, atom.span) if neg else atom
            (items if isinstance(atom, CommandItem) else events).append(part)
        where_parts = ([command.where] if command.where is not None else []) + items
        where = (
            None
            if not where_parts
            else where_parts[0]
            if len(where_parts) == 1
            else And(tuple(where_parts), command.span)
        )
        narrowed_command = CommandPred(command.names, where, command.span)
        out.append(And((narrowed_command, *events), command.span) if events else narrowed_command)
    if len(out) == 1:
        return out[0]
    return Or(tuple(out), command.span)  # empty: `unless` always holds on such a command


# A constant inside a restricted `unless`: True (an empty And) or False (an empty Or).
def _true(span: Any) -> Condition:
    return And((), span)


def _false(span: Any) -> Condition:
    return Or((), span)


def _on_command(node: Condition, command: CommandPred) -> Condition:
    """`node` read on one command that `command` matched: its command conditions become tests of
    that command's names and `where`; a name that cannot be the command's makes one false."""
    if isinstance(node, CommandPred):
        heads = heads_of(node)
        if "*" not in heads and not _compatible(heads, heads_of(command)):
            return _false(node.span)
        parts: list[Condition] = []
        if "*" not in heads:
            parts.append(CommandItem("head", "in", tuple(heads), node.span))
        if node.where is not None:
            parts.append(node.where)
        return And(tuple(parts), node.span) if parts else _true(node.span)
    if isinstance(node, Not):
        return Not(_on_command(node.item, command), node.span)
    if isinstance(node, And):
        return And(tuple(_on_command(c, command) for c in node.items), node.span)
    if isinstance(node, Or):
        return Or(tuple(_on_command(c, command) for c in node.items), node.span)
    return node


def _compatible(heads: list[str], of: list[str]) -> bool:
    """Whether a command named one of `of` may also be named one of `heads`: one name is the
    other's prefix word for word (`git` and `git clean`)."""
    if "*" in of:
        return True
    for a in heads:
        for b in of:
            wa, wb = a.split(), b.split()
            n = min(len(wa), len(wb))
            if wa[:n] == wb[:n]:
                return True
    return False


Atom = Any  # CommandItem | Pred


def _atoms_dnf(node: Condition, negate: bool) -> list[list[tuple[Atom, bool]]]:
    """The DNF of `node` (negated when `negate`) over command items and event predicates;
    the constants (empty And/Or) fold away."""

    def leaf(n: Condition) -> Atom | None:
        if isinstance(n, CommandPred):
            raise TypeError("a command condition left inside a restricted unless")
        return n if isinstance(n, (CommandItem, Pred)) else None

    return normal_form(node, leaf, MAX_WHERE_CLAUSES, WhereTooComplex, negate=negate)
