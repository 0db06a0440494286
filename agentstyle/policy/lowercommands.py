"""Lower command conditions (docs/design/commands.md#evaluation).

A clause of a rule's condition with one command condition (not under a `not`) is **inlined**:
per name the condition matches and per clause of its `where`, one clause of literals on the
command's own field rows (`command.opt:--force`, `command.path.tag`, …), routed by the name
(`cmd=git clean`, or `cmdpath=…` when a path test correlates one path). The evaluator gives each
simple command (and each of its paths) an event of its own carrying those rows, so the one
match statement decides them like any field (evaluator/commandrows.py). Anything else (a negated
command condition, two in one clause, a lone negated path test of a role) is lowered to the
two-level rows of migration 013 (`command_heads`, `command_literals`) that
sql/evaluate/commands.sql evaluates first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentstyle.grammar.ast import And, CommandItem, CommandPred, Node, Not, Or, Pred, Value
from agentstyle.policy.commandconds import Literal, canonical_options, heads_of, where_clauses
from agentstyle.policy.conditiontree import leaves, normal_form
from agentstyle.policy.lowervalues import Lowering, escaped, installed_value, number_of, scalar
from agentstyle.policy.rows import CommandHeadRow, CommandLiteralRow, ConditionRow, PolicyRows
from agentstyle.policy.validconditions import RuleInfo
from agentstyle.vocabulary import (
    COMMAND_KEY_PREFIX,
    NEGATED_OPS,
    SOURCE_FIELD,
    CommandField,
)


def command_row(rule_id: str, nid: int, parent: int | None, n: CommandPred) -> ConditionRow:
    """The `conditions` row of a command condition: a predicate on the field row its holding
    adds (sql/evaluate/commands.sql), found or not."""
    return ConditionRow(
        rule_id=rule_id,
        node_id=nid,
        parent_id=parent,
        kind="pred",
        field="command",
        lookup_field=f"{COMMAND_KEY_PREFIX}{rule_id}#{nid}",
        field_regex=None,
        op="command",
        base_op="exists",
        pattern=", ".join(heads_of(n)),
        regex=None,
        num=None,
        list_values=None,
        line=n.span.line,
        col=n.span.column,
        literal=None,
        literal_ci=False,
        literals=None,
        any_literal=None,
    )


def lower_command(
    rule_id: str, nid: int, command: CommandPred, info: RuleInfo, rows: PolicyRows, low: Lowering
) -> None:
    """The rows of one command condition: its names and its `where` as clauses of literals
    (docs/design/commands.md#evaluation)."""
    for head in heads_of(command):
        rows.command_heads.append(CommandHeadRow(rule_id=rule_id, node_id=nid, head=head))
    if command.where is not None and any(
        i.kind == "flow" for i in leaves(command.where, CommandItem)
    ):
        raise FlowNotInlined
    clauses = where_clauses(command.where)
    for cid, clause in enumerate(clauses, start=1):
        literals = [_command_literal(lit, command, info, low) for lit in clause]
        parts = [x for x in literals if x is not None] or [_NEVER]
        for kind, negated, fields_ in parts:
            rows.command_literals.append(
                CommandLiteralRow(
                    rule_id=rule_id,
                    node_id=nid,
                    clause_id=cid,
                    clause_size=len(parts),
                    negated=negated,
                    kind=kind,
                    line=command.span.line,
                    col=command.span.column,
                    **{**_NO_TEST, **fields_},
                )
            )


# A literal no command row has, negated: a clause with nothing else always holds.
_NEVER: tuple[str, bool, dict[str, Any]] = ("never", True, {})
_NO_TEST: dict[str, Any] = {
    "keys": None,
    "regex": None,
    "equals": None,
    "equals_num": None,
    "one_of": None,
    "num": None,
    "num_signs": None,
    "path_tests": None,
}
_ITEM_KINDS = {
    "option": "opt",
    "operand": "arg",
    "operands": "nargs",
    "subcommand": "sub",
    "text": "text",
    "head": "head",
    "env": "env",
}
_NUM_SIGNS = {"gt": [1], "gte": [0, 1], "lt": [-1], "lte": [-1, 0]}


def _command_literal(
    lit: Literal, command: CommandPred, info: RuleInfo, low: Lowering
) -> tuple[str, bool, dict[str, Any]] | None:
    """(kind, negated, the row's test columns) of one literal of a `where` clause."""
    if lit.item is None:
        tests = [_path_test(item, neg, info, low) for item, neg in lit.tests]
        return "path", lit.negated, {"path_tests": tests}
    item = lit.item
    fields_: dict[str, Any] = {}
    negated = lit.negated
    if item.kind == "runs":
        if item.value in ("remote", "nothing"):
            return str(item.value), negated, fields_
        what = ["script", "string", "stdin"] if item.value == "code" else [str(item.value)]
        return "runs", negated, {"one_of": what}
    if item.kind == "network":
        if item.op == "exists":
            return "net", negated, fields_
        if item.op in ("listen", "connect"):
            return "net", negated, {"one_of": [item.op]}
        if item.op in ("stdin", "stdout"):
            return "socket", negated, {"one_of": [item.op]}
        kind = "net.host" if item.name == "host" else "net.port"
    else:
        kind = _ITEM_KINDS[item.kind]
    if item.kind == "option":
        fields_["keys"] = canonical_options(command, item.name or "")
    elif item.kind == "env":
        fields_["keys"] = [item.name]
    if item.op == "exists":
        return kind, negated, fields_
    op, value, regex = item_value(item, info, low)
    if op in NEGATED_OPS:
        negated, op = not negated, NEGATED_OPS[op]
    fields_.update(_value_test(op, value, regex))
    return kind, negated, fields_


def item_value(item: CommandItem, info: RuleInfo, low: Lowering) -> tuple[str, Value, str | None]:
    """The item's operator, value (settings filled in) and RE2 regex, if its operator has one."""
    proxy = info.item_preds.get(id(item))
    if proxy is None:  # a head test an exception added: its value is its names
        return item.op, item.value, None
    value, regex = proxy.value, info.regexes.get(id(proxy))
    if id(proxy) in info.setting_preds:
        value, regex = installed_value(proxy, info, low)
    return item.op, value, regex


def _value_test(op: str, value: Value, regex: str | None) -> dict[str, Any]:
    if op in ("regex", "glob"):
        return {"regex": regex}
    if op in ("contains", "starts_with", "ends_with"):
        text = escaped(scalar(value))
        pattern = {"contains": text, "starts_with": "^" + text, "ends_with": text + "$"}[op]
        return {"regex": pattern}
    if op == "equals":
        return {"equals": scalar(value), "equals_num": number_of(value)}
    if op == "in":
        items = value if isinstance(value, tuple) else (value,)
        return {"one_of": [scalar(x) for x in items]}
    if op in _NUM_SIGNS:
        return {"num": number_of(value), "num_signs": _NUM_SIGNS[op]}
    raise ValueError(f"no test for operator `{op}`")


def _path_test(item: CommandItem, neg: bool, info: RuleInfo, low: Lowering) -> dict[str, Any]:
    """One test of a path literal: a role it has, a place, or a regex one of its forms
    (absolute, project-relative, `~/…`) matches."""
    test: dict[str, Any] = {"role": item.role, "tag": None, "regex": None, "neg": neg}
    if item.op in ("inside", "outside", "is"):
        test["tag"] = f"{item.op}:{item.value}"
    elif item.op != "exists":
        op, value, regex = item_value(item, info, low)
        if op in NEGATED_OPS:
            test["neg"], op = not neg, NEGATED_OPS[op]
        found = _value_test(op, value, regex)
        if "regex" in found:
            test["regex"] = found["regex"]
        elif "equals" in found:
            test["regex"] = "^" + escaped(str(found["equals"])) + "$"
        elif "one_of" in found:
            test["regex"] = "^(" + "|".join(escaped(str(x)) for x in found["one_of"]) + ")$"
        else:
            raise ValueError(f"a path cannot be compared with `{op}`")
    return test


# -- inlining ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Inlined:
    """One clause of a command condition read on one simple command: the name that routes it,
    which of the command's events it is read on (ROUTE_KINDS: the command, one of its paths,
    one command feeding it, one path of that one), and its literals (predicates on the event's
    field rows, each negated or not)."""

    head: str
    route: str
    atoms: list[tuple[Pred, bool]]
    # the RE2 regex of each atom that has one, by position in `atoms` (an atom is made here and
    # lives only while it is lowered, so nothing keyed by its identity may outlive it)
    regexes: dict[int, str]


def inlinable(command: CommandPred) -> bool:
    """A `where` whose every clause reads on one command's events: not a lone negated path test
    of a role (`not reads glob "…"`: no path that is read matches, which one event per path
    cannot say), and a flow (`input from`, `code from`) only outside a `not`."""
    for clause in where_clauses(command.where):
        for lit in clause:
            if lit.item is None and lit.negated and any(item.role for item, _n in lit.tests):
                return False
            if lit.item is not None and lit.item.kind == "flow" and lit.negated:
                return False
    flows = [i for i in leaves(command.where, CommandItem)] if command.where is not None else []
    return sum(1 for i in flows if i.kind == "flow") <= 1


def inline(command: CommandPred, info: RuleInfo, low: Lowering) -> list[Inlined]:
    """The clauses of `command` per name, on the command's field rows."""
    out: list[Inlined] = []
    span = command.span
    regexes: Regexes = {}  # id(atom) → its regex, while the atoms of one head live
    says_nothing = command.where is not None and any(
        i.kind == "runs" and i.value == "nothing" for i in leaves(command.where, CommandItem)
    )
    for head in heads_of(command):
        regexes.clear()
        parts: list[Node] = []
        if command.where is not None:
            parts.append(_atoms(command.where, head, info, low, regexes, ""))
        if not says_nothing:
            # a command that does nothing (a dry run, --help) is not what the condition is about
            parts.append(Not(Pred(CommandField.NOTHING, "exists", None, span), span))
        tree: Node = parts[0] if len(parts) == 1 else And(tuple(parts), span)
        for clause in _dnf(tree):
            found = {k: regexes[id(p)] for k, (p, _neg) in enumerate(clause) if id(p) in regexes}
            out.append(Inlined(head, _route(clause), clause, found))
    return out


def _route(clause: list[tuple[Pred, bool]]) -> str:
    """Which of a command's events a clause is read on: one command feeding it where it tests
    one (`command.flow`, `command.from.*`), and one path (of that one, or of the command) where
    one of its path tests is positive, so that its path tests speak of one path."""

    def positive(prefix: str) -> bool:
        return any(p.field.startswith(prefix) and not _negative(p, n) for p, n in clause)

    if any(p.field == CommandField.FLOW or p.field.startswith(SOURCE_FIELD) for p, _n in clause):
        return "cmdfrompath" if positive(SOURCE_FIELD + "path.") else "cmdfrom"
    return "cmdpath" if positive("command.path.") else "cmd"


def _negative(pred: Pred, negated: bool) -> bool:
    return negated != (pred.op in NEGATED_OPS or pred.op == "missing")


Regexes = dict[int, str]


def _atoms(node: Node, head: str, info: RuleInfo, low: Lowering, rx: Regexes, side: str) -> Node:
    """The `where` with each part as predicates on the command's field rows (`side` "" for the
    command's own, `from.` for the command feeding it)."""
    if isinstance(node, CommandItem):
        return _atom(node, head, info, low, rx, side)
    if isinstance(node, Not):
        return Not(_atoms(node.item, head, info, low, rx, side), node.span)
    if isinstance(node, (And, Or)):
        parts = tuple(_atoms(c, head, info, low, rx, side) for c in node.items)
        return And(parts, node.span) if isinstance(node, And) else Or(parts, node.span)
    raise TypeError(f"not a where node: {node!r}")


def _field(name: str, side: str) -> str:
    """`command.X` as the command's own row, or as the row of the command feeding it."""
    return "command." + side + name.removeprefix("command.")


def _atom(
    item: CommandItem, head: str, info: RuleInfo, low: Lowering, rx: Regexes, side: str
) -> Node:
    span = item.span

    def valued(name: str) -> Pred:
        return _valued(_field(name, side), item, info, low, rx)

    def pred(name: str, op: str, value: Value) -> Pred:
        return Pred(_field(name, side), op, value, span)

    if item.kind == "option":
        names = canonical_options(CommandPred((head,), None, span), item.name or "")
        preds = [valued(CommandField.OPT + name) for name in names]
        return preds[0] if len(preds) == 1 else Or(tuple(preds), span)
    if item.kind == "env":
        return valued(CommandField.ENV + (item.name or ""))
    if item.kind == "operand":
        return valued(CommandField.ARG)
    if item.kind == "subcommand":
        return valued(CommandField.SUB)
    if item.kind == "operands":
        return valued(CommandField.NARGS)
    if item.kind == "text":
        return valued(CommandField.TEXT)
    if item.kind == "runs":
        if item.value == "nothing":
            return pred(CommandField.NOTHING, "exists", None)
        if item.value == "remote":
            return pred(CommandField.REMOTE, "exists", None)
        if item.value == "code":
            return pred(CommandField.RUNS, "in", ("script", "string", "stdin"))
        return pred(CommandField.RUNS, "equals", item.value)
    if item.kind == "network":
        if item.op == "exists":
            return pred(CommandField.NET, "exists", None)
        if item.op in ("listen", "connect"):
            return pred(CommandField.NET, "equals", item.op)
        if item.op in ("stdin", "stdout"):
            return pred(CommandField.SOCKET, "equals", item.op)
        return valued(CommandField.NET_HOST if item.name == "host" else CommandField.NET_PORT)
    if item.kind == "head":
        return pred(CommandField.HEAD, "in", item.value)
    if item.kind == "path":
        return _path_atom(item, pred, valued)
    if item.kind == "flow":
        return _flow_atom(item, info, low, rx)
    raise TypeError(f"not a command part: {item.kind}")


def _path_atom(
    item: CommandItem, pred: Callable[[str, str, Value], Pred], valued: Callable[[str], Pred]
) -> Node:
    """`path …`: its role, where it is (inside, outside, is), or its form."""
    span = item.span
    parts: list[Node] = []
    if item.role is not None:
        parts.append(pred(CommandField.PATH_ROLE, "in", (item.role, "path")))
    if item.op in ("inside", "outside", "is"):
        parts.append(pred(CommandField.PATH_TAG, "equals", f"{item.op}:{item.value}"))
    elif item.op != "exists":
        parts.append(valued(CommandField.PATH_FORM))
    if not parts:
        return pred(CommandField.PATH_ROLE, "exists", None)
    return parts[0] if len(parts) == 1 else And(tuple(parts), span)


def _flow_atom(item: CommandItem, info: RuleInfo, low: Lowering, rx: Regexes) -> Node:
    """`from …`: the command feeding this one: how its output arrives, its names, what it has."""
    span = item.span
    flow = (
        Pred(CommandField.FLOW, "equals", "code", span)
        if item.op == "code"
        else Pred(CommandField.FLOW, "exists", None, span)
    )
    parts: list[Node] = [flow]
    if item.names:
        source_heads = tuple(heads_of(CommandPred(item.names, None, span)))
        parts.append(Pred(SOURCE_FIELD + "head", "in", source_heads, span))
    if item.inner is not None:
        source = item.names[0] if item.names else "*"
        parts.append(_atoms(item.inner, source, info, low, rx, "from."))
    return parts[0] if len(parts) == 1 else And(tuple(parts), span)


def _valued(field: str, item: CommandItem, info: RuleInfo, low: Lowering, rx: Regexes) -> Pred:
    """A predicate on `field` with the item's test, its value filled in as installed (its
    regex in `rx`, by the predicate's identity while it lives)."""
    if item.op == "exists":
        return Pred(field, "exists", None, item.span)
    op, value, regex = item_value(item, info, low)
    pred = Pred(field, op, value, item.span)
    if regex is not None:
        rx[id(pred)] = regex
    return pred


def _dnf(node: Node) -> list[list[tuple[Pred, bool]]]:
    """Clauses of (predicate, negated) of a tree of predicates."""

    def leaf(n: Node) -> Pred | None:
        return n if isinstance(n, Pred) else None

    return normal_form(node, leaf, MAX_INLINED, InlineTooComplex)


MAX_INLINED = 256


class InlineTooComplex(Exception):
    pass


class FlowNotInlined(Exception):
    """A command condition with `input from`/`code from` in a place that is not inlined (under
    a `not`, or beside another command condition in one clause)."""
