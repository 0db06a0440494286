"""Turn lark parse trees of conditions and templates into the typed nodes of `ast.py`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lark import Token, Transformer, v_args
from lark.tree import Meta

from agentstyle.diagnostics import did_you_mean, suggestion
from agentstyle.grammar.ast import (
    And,
    CommandItem,
    CommandPred,
    GrammarError,
    Item,
    Node,
    Not,
    Or,
    Pred,
    Segment,
    SettingRef,
    Text,
    Value,
    Var,
)
from agentstyle.source import Span
from agentstyle.vocabulary import (
    COMPARISONS,
    NETWORK_KINDS,
    NETWORK_PARTS,
    NETWORK_STDIO,
    OPERATOR_SYNONYMS,
    OPERATORS,
    PATH_ROLES,
    PLACE_OPS,
    PLACES,
    RUNS_WORDS,
    VALUE_OPS,
)

Locate = Callable[[int], Span]

# JSON's escapes plus `\'`, so a single-quoted string can hold its own quote.
_ESCAPES = {
    '"': '"',
    "'": "'",
    "\\": "\\",
    "/": "/",
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "b": "\b",
    "f": "\f",
}
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")
_INTEGER = re.compile(r"-?[0-9]+")


def unknown_operator(word: Token, locate: Locate) -> GrammarError:
    """The error for an operator word that is not in the vocabulary (also used on parse errors)."""
    return GrammarError(f"unknown operator `{word}`", locate(_start(word)), operator_hint(word))


def operator_hint(word: str) -> str | None:
    """The operator a misspelled or foreign operator word (`shell_regx`, `matches`) means."""
    synonym = OPERATOR_SYNONYMS.get(word.lower())
    return suggestion(synonym) if synonym else did_you_mean(word, sorted(OPERATORS))


def unknown_filter(word: Token, locate: Locate) -> GrammarError:
    """The error for a template filter other than `default`."""
    return GrammarError(
        f"unknown filter `{word}` in template, only `default` is supported", locate(_start(word))
    )


def _start(token: Token) -> int:
    return token.start_pos or 0


def _value_op(op: Token, locate: Locate) -> str:
    """The operator of a command part's value test (`==` is `equals`)."""
    if op.type == "CMP":
        return COMPARISONS[str(op)]
    if op not in VALUE_OPS:
        hint = operator_hint(str(op)) if str(op) not in OPERATORS else None
        raise GrammarError(
            f"`{op}` is not an operator of a command's parts",
            locate(_start(op)),
            hint or did_you_mean(str(op), sorted(VALUE_OPS)),
        )
    return str(op)


def _name(value: Any, span: Span) -> str:
    if not isinstance(value, str) or not value:
        raise GrammarError('`option` names an option as text: `option "--force"`', span)
    return value


def _unescape(token: Token, locate: Locate) -> str:
    body = str(token)[1:-1]
    if "\\" not in body:
        return body

    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] == "u":
            return chr(int(code[1:], 16))
        if code in _ESCAPES:
            return _ESCAPES[code]
        raise GrammarError(
            f'unknown escape `\\{code}` in string, use a raw string r"..." to keep backslashes',
            locate(_start(token) + 1 + match.start()),
        )

    text = _ESCAPE.sub(replace, body)
    if any("\ud800" <= char <= "\udfff" for char in text):
        # `\ud83d\ude00` is how JSON spells one character outside the BMP.
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _spliced(items: list[Node], kind: type[And] | type[Or]) -> tuple[Node, ...]:
    """The operands of an `and` or an `or`, each of the same kind spliced in: `a or (b or c)`
    is one `or` of three."""
    return tuple(x for item in items for x in (item.items if isinstance(item, kind) else (item,)))


def _names_and_where(children: list[Any]) -> tuple[tuple[str, ...], Node | None]:
    """The parts of `command NAMES where ( … )` (and of a flow's `from`): the names (none: any
    command) and the `where`, each optional."""
    names: tuple[str, ...] = ()
    where: Node | None = None
    for child in children:
        if isinstance(child, tuple):
            names = child
        elif child is not None:
            where = child
    return names, where


class ConditionTransformer(Transformer[Token, Node]):
    """Builds `Pred`/`And`/`Or`/`Not` with spans; flattens nested `and`s and `or`s."""

    def __init__(self, locate: Locate) -> None:
        super().__init__(visit_tokens=False)
        self._locate = locate

    def _span(self, meta: Meta) -> Span:
        return self._locate(meta.start_pos)

    @v_args(meta=True)
    def or_expr(self, meta: Meta, items: list[Node]) -> Or:
        return Or(_spliced(items, Or), self._span(meta))

    @v_args(meta=True)
    def and_expr(self, meta: Meta, items: list[Node]) -> And:
        return And(_spliced(items, And), self._span(meta))

    where_or = or_expr
    where_and = and_expr

    @v_args(meta=True)
    def negation(self, meta: Meta, children: list[Node]) -> Not:
        return Not(children[0], self._span(meta))

    # Predicates take their span from their first token: cheaper than `meta`, and the same.
    def op_pred(self, children: list[Any]) -> Pred:
        field, op, value = children
        if op not in OPERATORS:
            raise unknown_operator(op, self._locate)
        return Pred(str(field), str(op), value, self._locate(_start(field)))

    def cmp_pred(self, children: list[Any]) -> Pred:
        field, cmp, value = children
        return Pred(str(field), COMPARISONS[cmp], value, self._locate(_start(field)))

    def presence_pred(self, children: list[Token]) -> Pred:
        field, op = children
        return Pred(str(field), str(op), None, self._locate(_start(field)))

    def exists_call(self, children: list[Token]) -> Pred:
        keyword, field = children
        return Pred(str(field), "exists", None, self._locate(_start(keyword)))

    # -- command conditions (docs/conditions.md#command-conditions) ---------------------------

    @v_args(meta=True)
    def command_pred(self, meta: Meta, children: list[Any]) -> CommandPred:
        names, where = _names_and_where(children)
        return CommandPred(names, where, self._span(meta))

    @v_args(meta=True)
    def command_names(self, meta: Meta, children: list[Any]) -> tuple[str, ...]:
        (value,) = children
        items: tuple[Any, ...] = (
            (_unescape(value, self._locate),) if isinstance(value, Token) else value
        )
        names: list[str] = []
        for item in items:
            if not isinstance(item, str) or not item.split():
                raise GrammarError(
                    "a command is named by its program and subcommand words, as text",
                    self._span(meta),
                )
            names.append(" ".join(item.split()))
        return tuple(names)

    def option_name(self, children: list[Token]) -> str:
        return _unescape(children[0], self._locate)

    @v_args(meta=True)
    def option_value(self, meta: Meta, children: list[Any]) -> CommandItem:
        name, op, value = children
        span = self._span(meta)
        return CommandItem(
            "option", _value_op(op, self._locate), value, span, name=_name(name, span)
        )

    @v_args(meta=True)
    def option_present(self, meta: Meta, children: list[Any]) -> CommandItem:
        (name,) = children
        span = self._span(meta)
        return CommandItem("option", "exists", None, span, name=_name(name, span))

    @v_args(meta=True)
    def env_value(self, meta: Meta, children: list[Any]) -> CommandItem:
        name, op, value = children
        span = self._span(meta)
        return CommandItem("env", _value_op(op, self._locate), value, span, name=name)

    @v_args(meta=True)
    def env_present(self, meta: Meta, children: list[Any]) -> CommandItem:
        (name,) = children
        return CommandItem("env", "exists", None, self._span(meta), name=name)

    @v_args(meta=True)
    def operand_value(self, meta: Meta, children: list[Any]) -> CommandItem:
        op, value = children
        return CommandItem("operand", _value_op(op, self._locate), value, self._span(meta))

    @v_args(meta=True)
    def subcommand_value(self, meta: Meta, children: list[Any]) -> CommandItem:
        op, value = children
        return CommandItem("subcommand", _value_op(op, self._locate), value, self._span(meta))

    @v_args(meta=True)
    def operand_count(self, meta: Meta, children: list[Any]) -> CommandItem:
        op, count = children
        span = self._span(meta)
        name = _value_op(op, self._locate)
        if name not in ("equals", "not_equals", "gt", "gte", "lt", "lte"):
            raise GrammarError("`operands` counts: compare it with a number (`operands < 2`)", span)
        return CommandItem("operands", name, self.number([count]), span)

    @v_args(meta=True)
    def path_place(self, meta: Meta, children: list[Token]) -> CommandItem:
        word, op, place = children
        if op not in PLACE_OPS:
            if str(op) in VALUE_OPS:
                raise GrammarError(
                    f'`{word} {op}` takes a quoted value: `{word} {op} "…"`',
                    self._locate(_start(place)),
                )
            raise GrammarError(
                f"unknown path test `{op}`: use inside, outside, is or an operator",
                self._locate(_start(op)),
                did_you_mean(str(op), sorted({*PLACE_OPS, *VALUE_OPS})),
            )
        if place not in PLACES:
            raise GrammarError(
                f"unknown place `{place}`",
                self._locate(_start(place)),
                did_you_mean(str(place), list(PLACES)),
            )
        return CommandItem(
            "path", str(op), str(place), self._span(meta), role=PATH_ROLES[str(word)]
        )

    @v_args(meta=True)
    def path_value(self, meta: Meta, children: list[Any]) -> CommandItem:
        word, op, value = children
        if op in PLACE_OPS:
            raise GrammarError(
                f"`{word} {op}` takes a place ({', '.join(PLACES)}), not a string",
                self._locate(_start(op)),
            )
        return CommandItem(
            "path",
            _value_op(op, self._locate),
            value,
            self._span(meta),
            role=PATH_ROLES[str(word)],
        )

    @v_args(meta=True)
    def path_any(self, meta: Meta, children: list[Token]) -> CommandItem:
        (word,) = children
        return CommandItem("path", "exists", None, self._span(meta), role=PATH_ROLES[str(word)])

    @v_args(meta=True)
    def runs_pred(self, meta: Meta, children: list[Token]) -> CommandItem:
        (word,) = children
        if word not in RUNS_WORDS:
            raise GrammarError(
                f"unknown `runs` test `{word}`",
                self._locate(_start(word)),
                did_you_mean(str(word), sorted(RUNS_WORDS)),
            )
        return CommandItem("runs", "exists", str(word), self._span(meta))

    @v_args(meta=True)
    def network_any(self, meta: Meta, children: list[Token]) -> CommandItem:
        return CommandItem("network", "exists", None, self._span(meta))

    @v_args(meta=True)
    def network_kind(self, meta: Meta, children: list[Token]) -> CommandItem:
        (word,) = children
        if word not in NETWORK_KINDS | NETWORK_STDIO:
            raise GrammarError(
                f"unknown network test `{word}`: use listen, connect, stdin, stdout, host or port",
                self._locate(_start(word)),
                did_you_mean(str(word), sorted(NETWORK_KINDS | NETWORK_STDIO | NETWORK_PARTS)),
            )
        return CommandItem("network", str(word), None, self._span(meta))

    @v_args(meta=True)
    def network_value(self, meta: Meta, children: list[Any]) -> CommandItem:
        part, op, value = children
        if part not in NETWORK_PARTS:
            raise GrammarError(
                f"`network {part}` takes no value: compare `network host` or `network port`",
                self._locate(_start(part)),
                did_you_mean(str(part), sorted(NETWORK_PARTS)),
            )
        op_name = _value_op(op, self._locate)
        return CommandItem("network", op_name, value, self._span(meta), name=str(part))

    @v_args(meta=True)
    def flow_where(self, meta: Meta, children: list[Any]) -> CommandItem:
        word, inner = children
        return CommandItem("flow", str(word), None, self._span(meta), inner=inner)

    @v_args(meta=True)
    def flow_command(self, meta: Meta, children: list[Any]) -> CommandItem:
        word, *rest = children
        names, inner = _names_and_where(rest)
        return CommandItem("flow", str(word), None, self._span(meta), inner=inner, names=names)

    @v_args(meta=True)
    def text_value(self, meta: Meta, children: list[Any]) -> CommandItem:
        op, value = children
        return CommandItem("text", _value_op(op, self._locate), value, self._span(meta))

    def value_list(self, items: list[Item]) -> Value:
        return tuple(items)

    def setting_ref(self, children: list[Token]) -> SettingRef:
        token = children[0]
        return SettingRef(str(token).split(".", 1)[1], self._locate(_start(token)))

    def dq_string(self, children: list[Token]) -> str:
        return _unescape(children[0], self._locate)

    def sq_string(self, children: list[Token]) -> str:
        return _unescape(children[0], self._locate)

    def raw_string(self, children: list[Token]) -> str:
        return str(children[0])[2:-1]

    def number(self, children: list[Token]) -> int | float:
        text = str(children[0])
        return int(text) if _INTEGER.fullmatch(text) else float(text)

    def true(self, _: list[Token]) -> bool:
        return True

    def false(self, _: list[Token]) -> bool:
        return False


class TemplateTransformer(Transformer[Token, tuple[Segment, ...]]):
    """Builds `Text`/`Var` segments; adjacent literal pieces (text, `\\{{`) become one `Text`."""

    def __init__(self, locate: Locate) -> None:
        super().__init__(visit_tokens=False)
        self._locate = locate

    def start(self, pieces: list[Token | Var]) -> tuple[Segment, ...]:
        segments: list[Segment] = []
        literal: list[str] = []
        literal_start = 0
        for piece in pieces:
            if isinstance(piece, Var):
                if literal:
                    segments.append(Text("".join(literal), self._locate(literal_start)))
                    literal = []
                segments.append(piece)
                continue
            if not literal:
                literal_start = _start(piece)
            literal.append("{{" if piece.type == "ESCAPED_OPEN" else str(piece))
        if literal:
            segments.append(Text("".join(literal), self._locate(literal_start)))
        return tuple(segments)

    def var(self, children: list[Token]) -> Var:
        opener, name, *default = children
        if not default:
            return Var(str(name), None, self._locate(_start(opener)))
        word, value = default
        if word != "default":
            raise unknown_filter(word, self._locate)
        return Var(str(name), str(value)[1:-1], self._locate(_start(opener)))
