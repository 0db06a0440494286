"""YAML with positions: every mapping key and value knows the span it was written at."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from agentstyle.source import Span

# Aliases can make a small file expand into a huge tree ("billion laughs"); a package never
# needs this many nodes.
MAX_NODES = 200_000

_SIMPLE_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_BLANKS = " \t\n\r"


class _Source:
    """The text of one YAML document, to turn character indexes into lines and columns."""

    __slots__ = ("file", "line_starts", "text")

    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.file = file
        self.line_starts = [0]
        self.line_starts.extend(i + 1 for i, c in enumerate(text) if c == "\n")

    def span(self, index: int) -> Span:
        line = bisect.bisect_right(self.line_starts, index) - 1
        return Span(self.file, line + 1, index - self.line_starts[line] + 1)


@dataclass(slots=True)
class YNode:
    """A YAML value with its span; `style` is the scalar style (None, '"', "'", '|', '>').

    A node made from a plain text file (a rule file body) has no YAML source: its offsets
    map to the file line by line from `span`.
    """

    value: Any
    span: Span
    style: str | None = None
    end: Span | None = None
    _source: _Source | None = field(default=None, repr=False, compare=False)
    _start: int = field(default=0, repr=False, compare=False)
    _stop: int = field(default=0, repr=False, compare=False)
    _offsets: list[int] | None = field(default=None, repr=False, compare=False)

    def plain(self) -> Any:
        return self.value

    def source_text(self) -> str | None:
        """The scalar as written in the file (`no`, `"no"`), when it came from YAML."""
        if self._source is None:
            return None
        return self._source.text[self._start : self._stop]

    def locate(self, offset: int) -> Span:
        """The file span of character `offset` inside this scalar's string value.

        Quotes, escapes (`\\"`, `''`), folded lines and the indentation of block scalars are
        accounted for, so an error inside a string points at the character in the file.
        """
        text = self.value if isinstance(self.value, str) else ""
        if self._source is None:
            return self.span.shifted(text, offset)
        if self._offsets is None:
            self._offsets = _scalar_offsets(
                self._source.text, self._start, self._stop, self.style, text
            )
        if not self._offsets:
            return self.span
        index = self._offsets[max(0, min(offset, len(self._offsets) - 1))]
        return self._source.span(index)


@dataclass(slots=True)
class YMap(YNode):
    """A mapping; `items` keeps key nodes and value nodes in file order."""

    items: dict[str, tuple[YNode, YNode]] = field(default_factory=dict)

    def plain(self) -> dict[str, Any]:
        return {k: v.plain() for k, (_, v) in self.items.items()}

    def get(self, key: str) -> YNode | None:
        pair = self.items.get(key)
        return pair[1] if pair else None

    def key_span(self, key: str) -> Span:
        return self.items[key][0].span

    def __iter__(self) -> Iterator[str]:
        return iter(self.items)

    def __contains__(self, key: object) -> bool:
        return key in self.items


@dataclass(slots=True)
class YSeq(YNode):
    nodes: list[YNode] = field(default_factory=list)

    def plain(self) -> list[Any]:
        return [n.plain() for n in self.nodes]


class YamlError(Exception):
    def __init__(self, message: str, span: Span) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


def text_node(text: str, span: Span) -> YNode:
    """A node for text read from a file as it is (a rule body), starting at `span`."""
    return YNode(text, span)


# libyaml's parser keeps the same marks and is ~10x faster: 10,000 rule files need it.
_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[valid-type, misc]
    pass


def _units(source: str, start: int, stop: int, style: str | None) -> list[tuple[int, str]]:
    """The scalar's source as (index, produced text) units; blanks are one unit per character
    with produced text "" (their value depends on folding, so they are matched loosely)."""
    units: list[tuple[int, str]] = []
    i, end = start, stop
    if style in ("|", ">"):
        nl = source.find("\n", start, stop)
        i = stop if nl < 0 else nl + 1  # content starts on the line after the header
    elif style in ('"', "'"):
        i, end = start + 1, max(start + 1, stop - 1)
    while i < end:
        c = source[i]
        if style == "'" and c == "'" and source.startswith("''", i):
            units.append((i, "'"))
            i += 2
        elif style == '"' and c == "\\" and i + 1 < end:
            nxt = source[i + 1]
            if nxt in _HEX_ESCAPES:
                width = _HEX_ESCAPES[nxt]
                digits = source[i + 2 : i + 2 + width]
                try:
                    units.append((i, chr(int(digits, 16))))
                except ValueError:
                    units.append((i, nxt))
                i += 2 + width
            elif nxt in "\r\n":
                i += 2  # an escaped line break produces nothing
            else:
                units.append((i, _SIMPLE_ESCAPES.get(nxt, nxt)))
                i += 2
        elif c in _BLANKS:
            units.append((i, ""))
            i += 1
        else:
            units.append((i, c))
            i += 1
    return units


def _scalar_offsets(source: str, start: int, stop: int, style: str | None, value: str) -> list[int]:
    """For each character of `value` (and one past its end), its index in `source`.

    Non-blank characters are matched exactly against the scalar's source; blanks in the value
    (kept, folded or added by chomping) are matched to the nearest blank run of the source.
    """
    verbatim = _verbatim(source, start, stop, style, value)
    if verbatim is None and style == "|":
        verbatim = _verbatim_block(source, start, stop, value)
    if verbatim is not None:
        return verbatim
    units = _units(source, start, stop, style)
    out: list[int] = []
    u = 0
    for ch in value:
        while True:
            if u >= len(units):
                # Only blanks added at the end (a block scalar's final line break) are left.
                if ch not in _BLANKS:
                    return _fallback(source, start, stop, style, value)
                out.append(units[-1][0] if units else start)
                break
            index, produced = units[u]
            if produced == "":
                if ch in _BLANKS:
                    # A blank of the value: taken from this run unless the next unit produces
                    # exactly this character (an escape such as `\t` after a space).
                    nxt = units[u + 1] if u + 1 < len(units) else None
                    if nxt is not None and nxt[1] == ch:
                        u += 1
                        continue
                    out.append(index)
                    if nxt is not None and nxt[1] == "":
                        u += 1
                    break
                u += 1  # skip source blanks that produced nothing (indentation, folding)
                continue
            if produced == ch:
                out.append(index)
                u += 1
                break
            if ch in _BLANKS:
                # A blank made by folding where the source has no blank left (rare): keep
                # the position of the next character.
                out.append(index)
                break
            return _fallback(source, start, stop, style, value)
    last = out[-1] + 1 if out else (units[0][0] if units else start)
    out.append(min(last, len(source)))
    return out


def _verbatim(
    source: str, start: int, stop: int, style: str | None, value: str
) -> list[int] | None:
    """The offsets of a one-line scalar written exactly as its value (most conditions and
    patterns: no escape, no folding), without matching it character by character (what the
    matcher above finds for it, at a fraction of the cost: a long pattern is thousands of
    characters); None for any other scalar."""
    if not value or "\n" in value or "\r" in value:
        return None
    if style is None:
        base, end = start, stop
    elif (style == "'" and "'" not in value) or (style == '"' and "\\" not in value):
        base, end = start + 1, stop - 1
    else:
        return None
    if end - base != len(value) or not source.startswith(value, base):
        return None
    return [*range(base, end), min(end, len(source))]


def _verbatim_block(source: str, start: int, stop: int, value: str) -> list[int] | None:
    """The offsets of a literal block scalar (`|`, `|-`, `|+`) line by line: each line of the
    value is its source line without the block's indentation (a condition written over many
    lines, the built-in policy's among them); None where one is not, for the matcher above."""
    nl = source.find("\n", start, stop)
    if nl < 0:
        return None
    pos, indent = nl + 1, -1
    out: list[int] = []
    lines = value.split("\n")
    for k, line in enumerate(lines):
        last = k == len(lines) - 1
        if last and not line:
            break
        eol = source.find("\n", pos, stop)
        eol = stop if eol < 0 else eol
        written = source[pos:eol]
        if line:
            if indent < 0:
                indent = len(written) - len(written.lstrip(" "))
            if written[indent:] != line or written[:indent].strip(" "):
                return None
            out.extend(range(pos + indent, eol))
        elif written.strip(" "):
            return None
        if not last:
            out.append(eol)
        pos = eol + 1
    out.append(min(out[-1] + 1 if out else start, len(source)))
    return out


def _fallback(source: str, start: int, stop: int, style: str | None, value: str) -> list[int]:
    """A plain line-by-line mapping, for a scalar the matcher above does not understand."""
    base = start + (1 if style in ('"', "'") else 0)
    return [min(base + i, max(start, stop - 1)) for i in range(len(value) + 1)]


class _Builder:
    def __init__(self, loader: _Loader, source: _Source, duplicates: list[YamlError]) -> None:
        self.loader = loader
        self.source = source
        self.duplicates = duplicates
        self.count = 0
        self.active: set[int] = set()

    def span(self, mark: Any) -> Span:
        return Span(self.source.file, mark.line + 1, mark.column + 1)

    def build(self, node: yaml.Node) -> YNode:
        self.count += 1
        if self.count > MAX_NODES:
            raise YamlError(
                f"invalid YAML: more than {MAX_NODES} values (aliases expand too far)",
                self.span(node.start_mark),
            )
        span = self.span(node.start_mark)
        end = self.span(node.end_mark)
        if isinstance(node, yaml.MappingNode | yaml.SequenceNode):
            if id(node) in self.active:
                raise YamlError("invalid YAML: an alias refers to itself", span)
            self.active.add(id(node))
            try:
                return self.collection(node, span, end)
            finally:
                self.active.discard(id(node))
        value = self.loader.construct_object(node, deep=True)
        return YNode(
            value,
            span,
            getattr(node, "style", None),
            end,
            self.source,
            node.start_mark.index,
            node.end_mark.index,
        )

    def collection(self, node: yaml.Node, span: Span, end: Span) -> YNode:
        if isinstance(node, yaml.SequenceNode):
            seq = YSeq(None, span, end=end)
            seq.nodes = [self.build(n) for n in node.value]
            seq.value = seq.plain()
            return seq
        result = YMap(None, span, end=end)
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = self.loader.construct_object(key_node, deep=True)
            else:
                key = self.source.text[key_node.start_mark.index : key_node.end_mark.index]
            name = key if isinstance(key, str) else str(key)
            key_y = YNode(key, self.span(key_node.start_mark))
            value_y = self.build(value_node)
            if name in result.items:
                self.duplicates.append(
                    YamlError(f"duplicate key `{name}` (the first is ignored)", key_y.span)
                )
            result.items[name] = (key_y, value_y)
        result.value = result.plain()
        return result


def _syntax_error(exc: yaml.MarkedYAMLError, text: str) -> tuple[str, int]:
    """A YAML parser error as one line that says what to change, and the index it points at.

    libyaml names the parser state ("while scanning a simple key"); the user needs the
    mistake in their terms (a tab, an unclosed quote, a `:` inside a plain value).
    """
    mark = exc.problem_mark or exc.context_mark
    at = mark.index if mark is not None else 0
    ctx = exc.context_mark.index if exc.context_mark is not None else at
    ctx_line = exc.context_mark.line + 1 if exc.context_mark is not None else 1
    problem = (exc.problem or exc.context or "invalid YAML").strip()
    context = (exc.context or "").strip()
    char = text[at] if at < len(text) else ""
    if "tab character" in problem or (char == "\t" and "cannot start any token" in problem):
        return "a tab cannot indent YAML; indent with spaces", at
    if "cannot start any token" in problem and char:
        return f"`{char}` cannot start a plain value; quote the value", at
    if "end of stream" in problem and "quoted scalar" in context:
        return f"the string opened with `{text[ctx]}` here is never closed", ctx
    if "unknown escape" in problem:
        escape = text[at : at + 2]
        return (
            f"unknown escape `{escape}` in a double-quoted string; "
            "use single quotes to keep backslashes",
            at,
        )
    if "mapping values are not allowed" in problem:
        return "unexpected `:` in a plain value; quote a value that contains `: `", at
    if "could not find expected ':'" in problem:
        word = text[ctx:].split("\n", 1)[0].strip()
        return f"`{_clip(word)}` has no `:`; a mapping entry is `key: value`", ctx
    if "did not find expected key" in problem or "expected '-' indicator" in problem:
        line_start = text.rfind("\n", 0, at) + 1
        if text[line_start:at].strip():
            return f"unexpected `{_clip(text[at:].split()[0])}` after a value", at
        block = "mapping" if "key" in problem else "list"
        if block == "mapping" and text.startswith("-", at):
            return f"a `-` list item inside a mapping (it starts at line {ctx_line})", at
        return f"bad indentation: this line lines up with no {block} above it", at
    for opener, closer, what in (("[", "]", "flow sequence"), ("{", "}", "flow mapping")):
        if what in context:
            return (
                f"expected `,` or `{closer}`: the `{opener}` at line {ctx_line} is not closed",
                at,
            )
    if "undefined alias" in problem:
        name = text[at:].split(None, 1)[0] if text[at:].strip() else "*"
        return f"alias `{_clip(name)}` refers to no anchor (`&name`)", at
    if "another document" in problem:
        return "a second document (`---`) in one file; a package file holds one", at
    if "duplicate anchor" in context:
        return f"anchor defined twice (first at line {ctx_line})", at
    if context and exc.context_mark is not None and mark is not None and ctx_line != mark.line + 1:
        problem += f" ({context} at line {ctx_line})"
    return problem, at


def _clip(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load_yaml(text: str, file: str, duplicates: list[YamlError] | None = None) -> YNode | None:
    """Parse one YAML document; None for an empty document. Raises YamlError with a span.

    Keys given twice in one mapping are collected in `duplicates` (the last one wins).
    """
    loader = _Loader(text)
    source = _Source(text, file)
    try:
        root = loader.get_single_node()
        if root is None:
            return None
        return _Builder(loader, source, duplicates if duplicates is not None else []).build(root)
    except yaml.MarkedYAMLError as exc:
        message, index = _syntax_error(exc, text)
        raise YamlError(f"invalid YAML: {message}", source.span(index)) from None
    except yaml.reader.ReaderError as exc:
        char = exc.character
        code = ord(char) if isinstance(char, str) and len(char) == 1 else char
        what = f"character U+{code:04X}" if isinstance(code, int) else "a character"
        raise YamlError(
            f"invalid YAML: {what} is not allowed (not printable)", source.span(exc.position)
        ) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"invalid YAML: {exc}", Span(file)) from None
    except RecursionError:
        raise YamlError("invalid YAML: nested too deeply", Span(file)) from None
    finally:
        loader.dispose()
