"""JSON parsed into spanned nodes, in the dialect a harness's own reader accepts for one file.

Every value keeps its `[start, end)` in the text, so edits are splices of the original. Where
the client reads comments (Gemini CLI's `settings.json`), they are trivia: the parser records
each one and skips it like whitespace, so spans never include a comment that lies between
tokens, and the editor can keep every comment where the user wrote it.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NoReturn, TypeAlias

from agentstyle.source import Span

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"

__all__ = [
    "STRICT",
    "Comment",
    "Dialect",
    "Document",
    "JsonEditError",
    "JsonValue",
    "Member",
    "Node",
    "parse_document",
    "parse_with_spans",
]

_WS = " \t\n\r"
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_ESCAPES = '"\\/bfnrtu'
# Far deeper than any settings file; keeps the recursive parser clear of RecursionError.
_MAX_DEPTH = 400


@dataclass(frozen=True, slots=True)
class Dialect:
    """What one client's reader accepts in one of its files, beyond RFC 8259.

    `comments`: `//` and `/* */` as whitespace, the way `strip-json-comments` (Gemini CLI's
    settings loader) treats them. No supported client accepts trailing commas, so none is
    accepted here. `unreadable_in_comments`: characters the client's comment stripper leaves
    in place of a comment, which its JSON parse then fails on. `bom`: a leading byte order mark
    is read (and kept aside); a reader that fails on one (serde_json, `JSON.parse`) refuses the
    file, so STYLE refuses it too. `client` names the reader in refusals.
    """

    client: str | None = None
    comments: bool = False
    unreadable_in_comments: str = ""
    bom: bool = True


# RFC 8259 with a byte order mark tolerated: what STYLE assumed before it knew each reader.
STRICT = Dialect()


class JsonEditError(Exception):
    """A settings file STYLE must not rewrite: invalid JSON or an unexpected shape."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(f"{span}: {message}" if span else message)
        self.message = message
        self.span = span


def span_at(text: str, pos: int, name: str) -> Span:
    line = text.count("\n", 0, pos) + 1
    return Span(name, line, pos - (text.rfind("\n", 0, pos) + 1) + 1)


@dataclass(frozen=True, slots=True)
class Member:
    """One `"key": value` of an object; its span runs from the key's quote to the value's end."""

    key: str
    key_start: int
    key_end: int
    value: Node

    @property
    def start(self) -> int:
        return self.key_start

    @property
    def end(self) -> int:
        return self.value.end


@dataclass(frozen=True, slots=True)
class Node:
    """A JSON value with its character span `[start, end)` and, for containers, its parts.

    `commas` holds the offsets of the commas between elements (one fewer than elements).
    """

    kind: str  # object | array | string | number | true | false | null
    start: int
    end: int
    value: JsonValue
    members: tuple[Member, ...] = ()
    items: tuple[Node, ...] = ()
    commas: tuple[int, ...] = ()

    @property
    def spans(self) -> list[tuple[int, int]]:
        """The `[start, end)` of every element (members of an object, items of an array)."""
        parts: Sequence[Member | Node] = self.members if self.kind == "object" else self.items
        return [(p.start, p.end) for p in parts]

    def last(self, key: str) -> Member | None:
        """The member that wins for `key` (the last one, as `json.loads` keeps)."""
        found = [m for m in self.members if m.key == key]
        return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment's `[start, end)`; a line comment ends before its line break."""

    start: int
    end: int
    line: bool


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed file: the text, its top-level value and every comment, in order."""

    text: str
    root: Node
    comments: tuple[Comment, ...] = ()
    _starts: tuple[int, ...] = field(default=(), repr=False)

    @classmethod
    def of(cls, text: str, root: Node, comments: Sequence[Comment]) -> Document:
        return cls(text, root, tuple(comments), tuple(c.start for c in comments))

    def comments_in(self, start: int, end: int) -> list[Comment]:
        """The comments lying wholly inside `[start, end)`."""
        i = bisect.bisect_left(self._starts, start)
        out: list[Comment] = []
        while i < len(self.comments) and self.comments[i].end <= end:
            out.append(self.comments[i])
            i += 1
        return out

    def comment_at(self, pos: int) -> Comment | None:
        """The comment starting at `pos`, if one does."""
        i = bisect.bisect_left(self._starts, pos)
        if i < len(self._starts) and self._starts[i] == pos:
            return self.comments[i]
        return None

    def line_comment_ends_at(self, pos: int) -> bool:
        i = bisect.bisect_left(self._starts, pos) - 1
        return i >= 0 and self.comments[i].line and self.comments[i].end == pos


def _show(ch: str) -> str:
    return f"`{ch}`" if ch.isprintable() and ch != "`" else repr(ch)


class _Parser:
    def __init__(self, text: str, name: str, dialect: Dialect) -> None:
        self.text = text
        self.name = name
        self.dialect = dialect
        self.pos = 0
        self.comments: list[Comment] = []
        # Where a `/*` never closed: strip-json-comments runs such a comment to the end of the
        # file, which Gemini CLI accepts after the top-level value and nowhere else.
        self.open_comment: int | None = None
        bad = dialect.unreadable_in_comments
        self.unreadable = re.compile(f"[{re.escape(bad)}]") if bad else None

    def fail(self, message: str, pos: int | None = None) -> NoReturn:
        at = self.pos if pos is None else pos
        raise JsonEditError(f"invalid JSON: {message}", span_at(self.text, at, self.name))

    def skip(self) -> None:
        text, pos, n = self.text, self.pos, len(self.text)
        while pos < n:
            ch = text[pos]
            if ch in _WS:
                pos += 1
            elif ch == "/" and self.dialect.comments and text.startswith(("//", "/*"), pos):
                pos = self.comment(pos)
            else:
                break
        self.pos = pos

    def comment(self, start: int) -> int:
        text = self.text
        if text[start + 1] == "/":
            # Ends at "\n" as the client's reader has it; the "\r" of a CRLF stays outside, so
            # an insertion after the comment never splits a line break.
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            if end > start and text[end - 1] == "\r" and end < len(text):
                end -= 1
            return self.record(Comment(start, end, line=True))
        close = text.find("*/", start + 2)
        if close < 0:
            self.open_comment = start
            return self.record(Comment(start, len(text), line=False))
        return self.record(Comment(start, close + 2, line=False))

    def record(self, comment: Comment) -> int:
        if self.unreadable is not None:
            found = self.unreadable.search(self.text, comment.start, comment.end)
            if found is not None:
                self.fail(
                    f"{self.dialect.client or 'the client'} cannot read U+{ord(found.group()):04X}"
                    " inside a comment; replace it with a plain space",
                    found.start(),
                )
        self.comments.append(comment)
        return comment.end

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expected(self, what: str) -> NoReturn:
        if self.open_comment is not None:
            self.fail("unterminated comment", self.open_comment)
        if self.text.startswith(("//", "/*"), self.pos):
            reader = self.dialect.client
            self.fail(
                "comments are not allowed"
                + (f" in a file {reader} reads as strict JSON" if reader else "")
            )
        if self.pos >= len(self.text):
            self.fail(f"expected {what}, found end of file")
        self.fail(f"expected {what}")

    def value(self, depth: int) -> Node:
        self.skip()
        ch = self.peek()
        if ch == "{":
            return self.object(depth + 1)
        if ch == "[":
            return self.array(depth + 1)
        if ch == '"':
            return self.string()
        if ch == "-" or "0" <= ch <= "9":
            return self.number()
        for word, literal in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(word, self.pos):
                start = self.pos
                self.pos += len(word)
                return Node(word, start, self.pos, literal)
        if ch and not self.text.startswith(("//", "/*"), self.pos):
            self.fail(f"expected a value, found {_show(ch)}")
        self.expected("a value")

    def string(self) -> Node:
        text, start = self.text, self.pos
        match = _STRING.match(text, start)
        if match is None:
            self.string_error(start)
        self.pos = match.end()
        raw = match.group()
        value = raw[1:-1] if "\\" not in raw else json.loads(raw)
        return Node("string", start, self.pos, value)

    def string_error(self, start: int) -> NoReturn:
        text, pos = self.text, start + 1
        while pos < len(text):
            ch = text[pos]
            if ch == '"':
                break
            if ch < " ":
                self.fail("control character in string", pos)
            if ch == "\\":
                nxt = text[pos + 1 : pos + 2]
                if nxt not in _ESCAPES or not nxt:
                    self.fail(f"invalid escape `\\{nxt}`", pos)
                if nxt == "u" and not re.fullmatch(r"[0-9a-fA-F]{4}", text[pos + 2 : pos + 6]):
                    self.fail("`\\u` needs four hex digits", pos)
                pos += 2
                continue
            pos += 1
        self.fail("unterminated string", start)

    def number(self) -> Node:
        start = self.pos
        match = _NUMBER.match(self.text, start)
        if match is None or self.text[match.end() : match.end() + 1] in set("0123456789.eE+-"):
            self.fail("invalid number", start)
        self.pos = match.end()
        raw = match.group()
        value: int | float = float(raw) if any(c in raw for c in ".eE") else int(raw)
        return Node("number", start, self.pos, value)

    def object(self, depth: int) -> Node:
        start = self.opened(depth)
        members: list[Member] = []
        commas: list[int] = []
        value: dict[str, JsonValue] = {}
        self.skip()
        if self.peek() == "}":
            self.pos += 1
            return Node("object", start, self.pos, value)
        while True:
            self.skip()
            if self.peek() != '"':
                if commas and self.peek() == "}":
                    self.fail("trailing comma is not allowed", commas[-1])
                self.expected("a string key" if commas else "a string key or `}`")
            key = self.string()
            self.skip()
            if self.peek() != ":":
                self.expected("`:`")
            self.pos += 1
            member_value = self.value(depth)
            assert isinstance(key.value, str)
            members.append(Member(key.value, key.start, key.end, member_value))
            value[key.value] = member_value.value
            if self.closed("}", commas):
                return Node(
                    "object", start, self.pos, value, members=tuple(members), commas=tuple(commas)
                )

    def array(self, depth: int) -> Node:
        start = self.opened(depth)
        items: list[Node] = []
        commas: list[int] = []
        self.skip()
        if self.peek() == "]":
            self.pos += 1
            return Node("array", start, self.pos, [])
        while True:
            self.skip()
            if commas and self.peek() == "]":
                self.fail("trailing comma is not allowed", commas[-1])
            items.append(self.value(depth))
            if self.closed("]", commas):
                return Node(
                    "array",
                    start,
                    self.pos,
                    [i.value for i in items],
                    items=tuple(items),
                    commas=tuple(commas),
                )

    def opened(self, depth: int) -> int:
        """Past an object's or an array's opening bracket (nested too deep: an error): where
        the container starts."""
        if depth > _MAX_DEPTH:
            self.fail("nesting too deep")
        self.pos += 1
        return self.pos - 1

    def closed(self, close: str, commas: list[int]) -> bool:
        """After an object's member or an array's item: a `,` (its place kept in `commas`, more
        to come) or the `close` that ends the container (True)."""
        self.skip()
        if self.peek() == ",":
            commas.append(self.pos)
            self.pos += 1
            return False
        if self.peek() == close:
            self.pos += 1
            return True
        self.expected(f"`,` or `{close}`")


def parse_document(
    text: str, *, name: str = "settings.json", dialect: Dialect = STRICT
) -> Document:
    """Parse `text` as `dialect` reads it; a leading byte order mark is kept aside.

    Raises `JsonEditError` with `name:line:column` on the first syntax error.
    """
    parser = _Parser(text, name, dialect)
    if text.startswith("\ufeff"):
        if not dialect.bom:
            reader = dialect.client or "the client"
            parser.fail(f"the file starts with a byte order mark, which {reader} cannot read")
        parser.pos = 1
    node = parser.value(0)
    parser.skip()
    if parser.pos != len(text):
        parser.fail("unexpected text after the JSON value")
    return Document.of(text, node, parser.comments)


def parse_with_spans(text: str, *, name: str = "settings.json", dialect: Dialect = STRICT) -> Node:
    """The top-level value of `parse_document`."""
    return parse_document(text, name=name, dialect=dialect).root
