"""Typed nodes of the condition and template languages; every node carries its source span."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from agentstyle.source import Span


@dataclass(frozen=True, slots=True)
class SettingRef:
    """`settings.NAME` written as a value; its value is chosen at install (policy/settingrefs)."""

    name: str
    span: Span = field(compare=False)


Scalar: TypeAlias = str | int | float | bool
Item: TypeAlias = Scalar | SettingRef
Value: TypeAlias = Item | tuple[Item, ...] | None


@dataclass(frozen=True, slots=True)
class Pred:
    """`field op value`; `op` is a name from vocabulary.OPERATORS (comparisons already mapped)."""

    field: str
    op: str
    value: Value
    span: Span


@dataclass(frozen=True, slots=True)
class CommandItem:
    """One part of a `where ( … )`: what one simple command has
    (docs/conditions.md#command-conditions).

    `kind` is `option` (`name` the option as written, `op`/`value` its value's test, or
    `exists`), `operand`, `operands` (how many: `op` a comparison, `value` a number),
    `subcommand` (one of its subcommand words), `path` (`role` one of reads/writes/deletes or
    None for any; `op` is `inside`/`outside`/`is` with a place as `value`, or a string
    operator), `runs` (`value` the word after it: `remote`, `code`, …), `text`, `env`,
    `network` (`op` `exists`, `listen`, `connect`, `stdin`, `stdout`, or a value test with
    `name` `host`/`port`), or `flow` (`op` `input`/`code`).
    """

    kind: str
    op: str
    value: Value
    span: Span
    name: str | None = None
    role: str | None = None
    # `input from ( … )` / `code from ( … )` (kind `flow`, op `input`/`code`): what the command
    # the data comes from has, and the names it must have (none: any command)
    inner: Node | None = None
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CommandPred:
    """`command "WORDS" where ( … )`: a simple command runs whose program and leading subcommand
    words are one of `names` (any command when empty) and of which `where` holds."""

    names: tuple[str, ...]
    where: Node | None
    span: Span


@dataclass(frozen=True, slots=True)
class And:
    items: tuple[Node, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Or:
    items: tuple[Node, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Not:
    item: Node
    span: Span


Node: TypeAlias = Pred | CommandPred | CommandItem | And | Or | Not


@dataclass(frozen=True, slots=True)
class Text:
    """Literal template text (an escaped `\\{{` arrives here as `{{`)."""

    text: str
    span: Span


@dataclass(frozen=True, slots=True)
class Var:
    """`{{name}}` or `{{name | default: "value"}}`."""

    name: str
    default: str | None
    span: Span


Segment: TypeAlias = Text | Var


class GrammarError(Exception):
    """A syntax error at a span inside the package file (not just inside the string)."""

    def __init__(self, message: str, span: Span, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint  # a likely fix ("did you mean `regex`?"), shown after the message


def strip_spans(node: Node) -> object:
    """The tree without positions, for comparing two spellings of one condition."""
    if isinstance(node, Pred):
        return ("pred", node.field, node.op, node.value)
    if isinstance(node, CommandPred):
        where = strip_spans(node.where) if node.where is not None else None
        return ("command", node.names, where)
    if isinstance(node, CommandItem):
        inner = strip_spans(node.inner) if node.inner is not None else None
        return ("item", node.kind, node.name, node.role, node.op, node.value, inner, node.names)
    if isinstance(node, Not):
        return ("not", strip_spans(node.item))
    kind = "and" if isinstance(node, And) else "or"
    return (kind, tuple(strip_spans(i) for i in node.items))
