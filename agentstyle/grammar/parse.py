"""Parse condition expressions and rule-body templates into typed nodes, with friendly errors."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from importlib import resources
from typing import TypeVar

from lark import Lark, Token, Transformer, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.exceptions import VisitError

from agentstyle.grammar.ast import GrammarError, Node, Segment, Text
from agentstyle.grammar.transformer import (
    ConditionTransformer,
    Locate,
    TemplateTransformer,
    unknown_filter,
    unknown_operator,
)
from agentstyle.vocabulary import OPERATORS

__all__ = ["Locate", "parse_condition", "parse_template", "parse_where"]

_VALUE_TERMINALS = frozenset({"DQ_STRING", "SQ_STRING", "RAW_STRING", "NUMBER", "_TRUE", "_FALSE"})
# A bare word lexed where a value was due: the root lexer calls it a field or an operator.
_WORD_TERMINALS = frozenset({"FIELD", "OPWORD"})
_KEYWORDS = frozenset({"and", "or", "not"})
_WORD_OR_CHAR = re.compile(r"[A-Za-z0-9_.-]+|\{\{|\}\}|\"[^\"\n]*\"|'[^'\n]*'|\S")
_SHOWN_CHARS = 30
_QUOTES = ("'", '"')
T = TypeVar("T")


@functools.cache
def _parser(grammar: str) -> Lark:
    """The LALR parser for `<grammar>.lark`, built once per process."""
    source = resources.files(__package__).joinpath(f"{grammar}.lark").read_text(encoding="utf-8")
    return Lark(
        source,
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=False,
        start=["start", "where_start"] if grammar == "condition" else "start",
    )


def parse_condition(text: str, locate: Locate) -> Node:
    """The tree of a `when` expression; `locate(offset)` maps an offset in `text` to its span.

    Raises GrammarError at the offending token on any syntax error.
    """
    return _condition(text, locate, "start")


def parse_where(text: str, locate: Locate) -> Node:
    """The tree of the inside of a `where ( … )` alone: a command condition item's `where`
    (docs/conditions.md#command-conditions). Raises GrammarError like `parse_condition`."""
    return _condition(text, locate, "where_start")


def _condition(text: str, locate: Locate, start: str) -> Node:
    """The condition grammar from its rule `start`, its tree transformed to typed nodes."""
    return _parse(text, locate, "condition", start, _condition_error, ConditionTransformer)


def parse_template(text: str, locate: Locate) -> tuple[Segment, ...]:
    """The segments of a rule body; `locate(offset)` maps an offset in `text` to its span.

    Raises GrammarError at the offending token on any syntax error.
    """
    if "{{" not in text:
        # Most bodies are plain text; skipping the parser keeps loading large packages fast.
        return (Text(text, locate(0)),) if text else ()
    return _parse(text, locate, "template", "start", _template_error, TemplateTransformer)


def _parse(
    text: str,
    locate: Locate,
    grammar: str,
    start: str,
    error: Callable[[str, UnexpectedInput, Locate], GrammarError],
    transformer: Callable[[Locate], Transformer[Token, T]],
) -> T:
    """`text` parsed by `<grammar>.lark` from its rule `start` and transformed to typed nodes; a
    syntax error is `error`'s GrammarError, one a transformer callback raises is itself."""
    try:
        tree = _parser(grammar).parse(text, start=start)
    except UnexpectedInput as err:
        raise error(text, err, locate) from None
    try:
        return transformer(locate).transform(tree)
    except VisitError as err:
        raise _unwrap(err) from None


def _unwrap(err: VisitError) -> Exception:
    # lark wraps whatever a transformer callback raises; ours are GrammarErrors.
    return err.orig_exc if isinstance(err.orig_exc, GrammarError) else err


def _condition_error(text: str, err: UnexpectedInput, locate: Locate) -> GrammarError:
    if isinstance(err, UnexpectedCharacters):
        offset = err.pos_in_stream or 0
        char = text[offset]
        if char in _QUOTES:
            return GrammarError("unterminated string in condition", locate(offset))
        if char == "=":
            return GrammarError("unexpected `=` in condition, compare with `==`", locate(offset))
        if char == "-" and text[:offset].rstrip().endswith("option"):
            word = text[offset:].split(maxsplit=1)[0].rstrip(")")
            return GrammarError(
                f'unquoted option `{word}`, write `option "{word}"`', locate(offset)
            )
        return GrammarError(f"unexpected `{char}` in condition", locate(offset))
    assert isinstance(err, UnexpectedToken)
    token: Token = err.token
    prev = _previous_token(err)
    if prev is not None and prev.type == "OPWORD" and prev not in OPERATORS:
        return unknown_operator(prev, locate)
    at_end = token.type == "$END"
    offset = _offset(token)
    expected = set(err.expected)
    after = f" after `{prev}`" if prev is not None else ""
    if token.type in _WORD_TERMINALS and token == "r" and text[offset + 1 : offset + 2] in _QUOTES:
        return GrammarError("unterminated string in condition", locate(offset))
    if (
        prev is not None
        and prev.type in ("EXISTS", "MISSING")
        and token.type in _VALUE_TERMINALS | {"_LSQB"}
        and "_LPAR" not in expected
    ):
        return GrammarError(f"`{prev}` takes no value", locate(offset))
    if expected & _VALUE_TERMINALS:
        if not at_end and token.type in _WORD_TERMINALS:
            return GrammarError(
                f'unquoted string `{token}` in condition, write `"{token}"`', locate(offset)
            )
        return GrammarError(f"expected a value{after}", locate(offset))
    if expected & {"OPWORD", "CMP"}:
        return GrammarError(f"expected an operator{after}", locate(offset))
    if "FIELD" in expected:
        if prev is None and at_end:
            return GrammarError("empty condition", locate(offset))
        what = "a condition" if "_LPAR" in expected else "a field"
        if prev is not None:
            return GrammarError(f"expected {what}{after}", locate(offset))
    if at_end:
        for opener in ("_LPAR", "_LSQB"):
            open_token = _unclosed(err, opener)
            if open_token is not None:
                return GrammarError(
                    f"unclosed `{open_token}` in condition", locate(_offset(open_token))
                )
        return GrammarError("unexpected end of condition", locate(offset))
    if token.type in _WORD_TERMINALS and token.lower() in _KEYWORDS:
        return GrammarError(
            f"unexpected `{token}` in condition, keywords are lowercase", locate(offset)
        )
    return GrammarError(f"unexpected `{_shown(token)}` in condition", locate(offset))


def _template_error(text: str, err: UnexpectedInput, locate: Locate) -> GrammarError:
    if isinstance(err, UnexpectedCharacters):
        offset = err.pos_in_stream or 0
        return GrammarError(f"unexpected `{text[offset]}` in template", locate(offset))
    assert isinstance(err, UnexpectedToken)
    token: Token = err.token
    prev = _previous_token(err)
    if prev is not None and prev.type == "FILTER" and prev != "default":
        return unknown_filter(prev, locate)
    opener = _unclosed(err, "OPEN")
    if token.type == "$END" and opener is not None:
        return GrammarError("unclosed `{{` in template", locate(_offset(opener)))
    # Whitespace inside the braces is part of the punctuation tokens, so a bad token's
    # position may be the blank before it.
    offset = _offset(token)
    while offset < len(text) and text[offset].isspace():
        offset += 1
    expected = set(err.expected)
    # The root lexer's catch-all TEXT token may run past the bad spot; show one word or mark.
    match = _WORD_OR_CHAR.match(text, offset)
    found = _shown(match.group() if match else token)
    if "NAME" in expected:
        if text.startswith("}}", offset) and opener is not None:
            return GrammarError("empty `{{}}` in template", locate(_offset(opener)))
        return GrammarError(
            f"expected a variable name after `{{{{`, found `{found}`", locate(offset)
        )
    if "FILTER" in expected:
        return GrammarError(f"expected a filter after `|`, found `{found}`", locate(offset))
    if "_COLON" in expected:
        return GrammarError(f"expected `:` after `{prev}`, found `{found}`", locate(offset))
    if "STRING" in expected:
        if text[offset : offset + 1] in _QUOTES:
            return GrammarError("unterminated string in template", locate(offset))
        return GrammarError(f"default value `{found}` must be quoted", locate(offset))
    if "_CLOSE" in expected:
        wanted = "`|` or `}}`" if "_PIPE" in expected else "`}}`"
        return GrammarError(f"expected {wanted} after `{prev}`, found `{found}`", locate(offset))
    return GrammarError(f"unexpected `{found}` in template", locate(offset))


def _offset(token: Token) -> int:
    # The parser reports end of input as a `$END` token that borrows the last token's position.
    if token.type == "$END":
        return token.end_pos or 0
    return token.start_pos or 0


def _stack(err: UnexpectedToken) -> list[object]:
    # lark calls `state` opaque, but its value stack is the only record of the tokens before
    # the error; if lark changes it, messages lose their "after `x`" and tests say so.
    stack = getattr(err.state, "value_stack", None)
    return stack if isinstance(stack, list) else []


def _previous_token(err: UnexpectedToken) -> Token | None:
    """The token accepted just before the error, if it has not been reduced into a subtree."""
    stack = _stack(err)
    return stack[-1] if stack and isinstance(stack[-1], Token) else None


def _unclosed(err: UnexpectedToken, opener: str) -> Token | None:
    # Closed brackets have already been reduced into subtrees, so any opener left is unclosed.
    for value in reversed(_stack(err)):
        if isinstance(value, Token) and value.type == opener:
            return value
    return None


def _shown(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"
