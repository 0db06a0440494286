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
from agentstyle.vocabulary import COMPARISONS, OPERATOR_SYNONYMS, OPERATORS

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


class ConditionTransformer(Transformer[Token, Node]):
    """Builds `Pred`/`And`/`Or`/`Not` with spans; flattens nested `and`s and `or`s."""

    def __init__(self, locate: Locate) -> None:
        super().__init__(visit_tokens=False)
        self._locate = locate

    def _span(self, meta: Meta) -> Span:
        return self._locate(meta.start_pos)

    @v_args(meta=True)
    def or_expr(self, meta: Meta, items: list[Node]) -> Or:
        flat: list[Node] = []
        for item in items:
            flat.extend(item.items if isinstance(item, Or) else (item,))
        return Or(tuple(flat), self._span(meta))

    @v_args(meta=True)
    def and_expr(self, meta: Meta, items: list[Node]) -> And:
        flat: list[Node] = []
        for item in items:
            flat.extend(item.items if isinstance(item, And) else (item,))
        return And(tuple(flat), self._span(meta))

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
