"""Minimal-edit JSON text editing: add and remove STYLE's hook groups in a settings file."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeAlias

from agentstyle.source import Span

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
IsOurs: TypeAlias = Callable[[dict[str, Any]], bool]
# One splice of the original text: replace text[start:end] with the string.
Edit: TypeAlias = tuple[int, int, str]

__all__ = [
    "JsonEditError",
    "Member",
    "Node",
    "append_to_hooks",
    "install_hooks",
    "installed_handlers",
    "parse_with_spans",
    "uninstall_hooks",
]

_WS = " \t\n\r"
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_ESCAPES = '"\\/bfnrtu'
# Far deeper than any settings file; keeps the recursive parser clear of RecursionError.
_MAX_DEPTH = 400
_DEFAULT_UNIT = "  "


class JsonEditError(Exception):
    """A settings file STYLE must not rewrite: invalid JSON or an unexpected shape."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(f"{span}: {message}" if span else message)
        self.message = message
        self.span = span


def _span_at(text: str, pos: int, name: str) -> Span:
    line = text.count("\n", 0, pos) + 1
    return Span(name, line, pos - (text.rfind("\n", 0, pos) + 1) + 1)


# ---------------------------------------------------------------------------------------------
# Parsing with spans


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


def _show(ch: str) -> str:
    return f"`{ch}`" if ch.isprintable() and ch != "`" else repr(ch)


class _Parser:
    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name
        self.pos = 0

    def fail(self, message: str, pos: int | None = None) -> NoReturn:
        at = self.pos if pos is None else pos
        raise JsonEditError(f"invalid JSON: {message}", _span_at(self.text, at, self.name))

    def skip(self) -> None:
        text, pos, n = self.text, self.pos, len(self.text)
        while pos < n and text[pos] in _WS:
            pos += 1
        self.pos = pos

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expected(self, what: str) -> NoReturn:
        if self.text.startswith(("//", "/*"), self.pos):
            self.fail("comments are not allowed")
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
        start = self.pos
        if depth > _MAX_DEPTH:
            self.fail("nesting too deep")
        self.pos += 1
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
            self.skip()
            if self.peek() == ",":
                commas.append(self.pos)
                self.pos += 1
                continue
            if self.peek() == "}":
                self.pos += 1
                return Node(
                    "object", start, self.pos, value, members=tuple(members), commas=tuple(commas)
                )
            self.expected("`,` or `}`")

    def array(self, depth: int) -> Node:
        start = self.pos
        if depth > _MAX_DEPTH:
            self.fail("nesting too deep")
        self.pos += 1
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
            self.skip()
            if self.peek() == ",":
                commas.append(self.pos)
                self.pos += 1
                continue
            if self.peek() == "]":
                self.pos += 1
                return Node(
                    "array",
                    start,
                    self.pos,
                    [i.value for i in items],
                    items=tuple(items),
                    commas=tuple(commas),
                )
            self.expected("`,` or `]`")


def parse_with_spans(text: str, *, name: str = "settings.json") -> Node:
    """Parse strict JSON (RFC 8259) into spanned nodes; a leading byte order mark is kept aside.

    Raises `JsonEditError` with `name:line:column` on the first syntax error.
    """
    parser = _Parser(text, name)
    if text.startswith("\ufeff"):
        parser.pos = 1
    node = parser.value(0)
    parser.skip()
    if parser.pos != len(text):
        parser.fail("unexpected text after the JSON value")
    return node


def _parse_object(text: str, name: str) -> Node:
    root = parse_with_spans(text, name=name)
    if root.kind != "object":
        raise JsonEditError(
            f"the top level must be a JSON object, found {_kind_name(root)}",
            _span_at(text, root.start, name),
        )
    return root


def _kind_name(node: Node) -> str:
    return {"true": "a boolean", "false": "a boolean", "null": "null"}.get(
        node.kind, f"an {node.kind}" if node.kind[0] in "aeiou" else f"a {node.kind}"
    )


# ---------------------------------------------------------------------------------------------
# The file's formatting


@dataclass(frozen=True, slots=True)
class _Layout:
    newline: str  # "\n" or "\r\n", from the first line break
    unit: str  # one indentation step
    key_sep: str  # between a key and its value, e.g. ": "
    item_sep: str  # after a comma inside one-line containers
    # A one-line non-empty document gets one-line inserts. The same rule must hold before and
    # after an install, which it does: compact inserts keep the document on one line.
    compact: bool


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _line_indent(text: str, pos: int) -> str:
    start = _line_start(text, pos)
    end = start
    while end < pos and text[end] in " \t":
        end += 1
    return text[start:end]


def _starts_line(text: str, pos: int) -> bool:
    return text[_line_start(text, pos) : pos].strip(" \t") == ""


def _walk(node: Node) -> list[Node]:
    out: list[Node] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.kind in ("object", "array"):
            out.append(n)
            children = [m.value for m in n.members] if n.kind == "object" else list(n.items)
            stack.extend(reversed(children))
    return out


def _layout(text: str, root: Node) -> _Layout:
    first_nl = text.find("\n")
    newline = "\r\n" if first_nl > 0 and text[first_nl - 1] == "\r" else "\n"
    containers = _walk(root)
    unit = key_sep = item_sep = None
    for c in containers:
        base = _line_indent(text, c.start)
        for start, _ in c.spans:
            if unit is None and _starts_line(text, start):
                own = _line_indent(text, start)
                if own.startswith(base) and len(own) > len(base):
                    unit = own[len(base) :]
        for m in c.members:
            sep = text[m.key_end : m.value.start]
            if key_sep is None and "\n" not in sep and "\r" not in sep:
                key_sep = sep
        for comma, (start, _) in zip(c.commas, c.spans[1:], strict=True):
            sep = text[comma + 1 : start]
            if item_sep is None and "\n" not in sep and "\r" not in sep:
                item_sep = sep
    key_sep = ": " if key_sep is None else key_sep
    if item_sep is None:
        item_sep = " " if key_sep.endswith(" ") else ""
    compact = bool(root.spans) and "\n" not in text[root.start : root.end]
    return _Layout(newline, unit or _DEFAULT_UNIT, key_sep, item_sep, compact)


def _render(value: JsonValue, indent: str, layout: _Layout, *, compact: bool) -> str:
    if compact:
        return json.dumps(
            value, ensure_ascii=False, separators=("," + layout.item_sep, layout.key_sep)
        )
    pretty = json.dumps(
        value, ensure_ascii=False, indent=layout.unit, separators=(",", layout.key_sep)
    )
    # json.dumps escapes line breaks inside strings, so every "\n" here is layout.
    return pretty.replace("\n", layout.newline + indent)


def _render_element(
    key: str | None, value: JsonValue, indent: str, layout: _Layout, *, compact: bool
) -> str:
    body = _render(value, indent, layout, compact=compact)
    if key is None:
        return body
    return json.dumps(key, ensure_ascii=False) + layout.key_sep + body


# ---------------------------------------------------------------------------------------------
# Insertion and removal as splices
#
# Appending to a non-empty container inserts `,<sep><element>` right after the last element,
# so removing it again is deleting from the previous element's end to its own end.
#
# Filling an empty container `[W]` keeps the user's inner whitespace W verbatim, and marks
# the fill so that uninstall can tell "the user had this event list / `hooks` object empty"
# (keep it, restore W) from "STYLE created this key" (delete the member); nothing but layout
# can carry that mark, as the harness may reject unknown keys. A container STYLE writes ends
# with S = line break + the indent of its bracket's line. A filled one ends with a blank line
# before S: `{elements}` NL W S `]` when W is on one line, `{elements}` NL S W `]` when it
# spans lines (one space before W in one-line files). Either way the line holding `]` keeps
# the indent it had, so later bracket lines, which the decoding reads, keep theirs too. The
# top-level object always stays: `{` P members S W `}` needs no mark.


def _closing(text: str, node: Node, layout: _Layout) -> str:
    return "" if layout.compact else layout.newline + _line_indent(text, node.start)


def _filled_tail(inner: str, closing: str, layout: _Layout, *, top: bool) -> str:
    """What follows the elements written into an empty container whose inner text was `inner`."""
    if top:
        return closing + inner
    if layout.compact:
        return " " + inner
    if "\n" in inner:
        return layout.newline + closing + inner
    return layout.newline + inner + closing


def _unfilled_inner(tail: str, closing: str, layout: _Layout, *, top: bool) -> str | None:
    """Inverse of `_filled_tail`: the user's inner text, or None for a container STYLE wrote."""
    if top:
        return tail.removeprefix(closing)
    if layout.compact:
        return tail[1:] if tail.startswith(" ") else None
    mark = layout.newline
    if tail.startswith(mark + closing) and "\n" in tail[len(mark + closing) :]:
        return tail[len(mark + closing) :]
    middle = tail[len(mark) : len(tail) - len(closing)]
    fits = len(tail) >= len(mark + closing) and tail.startswith(mark) and tail.endswith(closing)
    if fits and "\n" not in middle:
        return middle
    if tail.count("\n") >= 2:
        # Marked, but the bracket's line was re-indented since: the user's, now plain empty.
        return ""
    return None


def _append(
    text: str,
    node: Node,
    elements: Sequence[tuple[str | None, JsonValue]],
    layout: _Layout,
    *,
    top: bool,
) -> Edit:
    spans = node.spans
    if spans:
        last_start, last_end = spans[-1]
        if "\n" not in text[node.start : node.end]:
            parts = [_render_element(k, v, "", layout, compact=True) for k, v in elements]
            return (last_end, last_end, "".join("," + layout.item_sep + p for p in parts))
        if "\n" not in text[last_end : node.end - 1]:
            # `}]`-style closing: what follows the insertion lands on the new element's last
            # line, so give that line the indent it had; bracket lines keep their indent,
            # which is how uninstall recognises the containers it filled.
            indent = _line_indent(text, last_end)
        elif _starts_line(text, last_start):
            indent = _line_indent(text, last_start)
        else:
            indent = _line_indent(text, node.start) + layout.unit
        parts = [_render_element(k, v, indent, layout, compact=False) for k, v in elements]
        return (last_end, last_end, "".join("," + layout.newline + indent + p for p in parts))
    inner = text[node.start + 1 : node.end - 1]
    tail = _filled_tail(inner, _closing(text, node, layout), layout, top=top)
    if layout.compact:
        parts = [_render_element(k, v, "", layout, compact=True) for k, v in elements]
        body = ("," + layout.item_sep).join(parts)
    else:
        indent = _line_indent(text, node.start) + layout.unit
        parts = [_render_element(k, v, indent, layout, compact=False) for k, v in elements]
        body = layout.newline + indent + ("," + layout.newline + indent).join(parts)
    return (node.start + 1, node.end - 1, body + tail)


def _emptied_inner(text: str, node: Node, layout: _Layout, *, top: bool) -> str | None:
    """What stays between the brackets once every element is gone; None: STYLE made it."""
    tail = text[node.spans[-1][1] : node.end - 1]
    return _unfilled_inner(tail, _closing(text, node, layout), layout, top=top)


def _splice_out(node: Node, drop: Sequence[bool]) -> list[Edit]:
    """Edits deleting the dropped elements of a container that keeps at least one."""
    spans = node.spans
    first_kept = drop.index(False)
    edits: list[Edit] = []
    if first_kept:
        # Elements before the first kept one (an older STYLE put its entries first): take
        # them with the comma and whitespace that follow, so the kept one moves up in place.
        edits.append((spans[0][0], spans[first_kept][0], ""))
    for i in range(first_kept + 1, len(spans)):
        if drop[i]:
            edits.append((spans[i - 1][1], spans[i][1], ""))
    return edits


Decide: TypeAlias = Callable[[int], "list[Edit] | None"]


def _clean(
    text: str, node: Node, decide: Decide, layout: _Layout, *, top: bool = False
) -> list[Edit] | None:
    """Edits removing what `decide` drops (it returns None) from a container.

    Returns None when the container itself should go: it became empty and STYLE created it.
    """
    results = [decide(i) for i in range(len(node.spans))]
    drop = [r is None for r in results]
    if not any(drop):
        return [e for r in results if r for e in r]
    if all(drop):
        inner = _emptied_inner(text, node, layout, top=top)
        return None if inner is None else [(node.start + 1, node.end - 1, inner)]
    kept = [e for r in results if r for e in r]
    return kept + _splice_out(node, drop)


def _is_style_group(group: Node, is_ours: IsOurs) -> bool:
    """A matcher group whose (winning) handler list is non-empty and all STYLE's."""
    if group.kind != "object":
        return False
    handlers = group.last("hooks")
    if handlers is None or handlers.value.kind != "array" or not handlers.value.items:
        return False
    return all(_is_our_handler(h, is_ours) for h in handlers.value.items)


def _is_our_handler(handler: Node, is_ours: IsOurs) -> bool:
    return isinstance(handler.value, dict) and is_ours(handler.value)


def _uninstall_edits(text: str, root: Node, layout: _Layout, is_ours: IsOurs) -> list[Edit]:
    def handler_list(node: Node) -> list[Edit]:
        def decide(i: int) -> list[Edit] | None:
            return None if _is_our_handler(node.items[i], is_ours) else []

        edits = _clean(text, node, decide, layout)
        # A user group that also held STYLE handlers keeps its (now empty) list.
        return [(node.start + 1, node.end - 1, "")] if edits is None else edits

    def group(node: Node) -> list[Edit] | None:
        if _is_style_group(node, is_ours):
            return None
        if node.kind != "object":
            return []
        return [
            e
            for m in node.members
            if m.key == "hooks" and m.value.kind == "array"
            for e in handler_list(m.value)
        ]

    def event_list(node: Node) -> list[Edit] | None:
        return _clean(text, node, lambda i: group(node.items[i]), layout)

    def hooks_object(node: Node) -> list[Edit] | None:
        def decide(i: int) -> list[Edit] | None:
            value = node.members[i].value
            return event_list(value) if value.kind == "array" else []

        return _clean(text, node, decide, layout)

    def top(i: int) -> list[Edit] | None:
        member = root.members[i]
        if member.key == "hooks" and member.value.kind == "object":
            return hooks_object(member.value)
        return []

    return _clean(text, root, top, layout, top=True) or []


def _apply(text: str, edits: list[Edit]) -> str:
    out = text
    last = len(text) + 1
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        assert end <= last, "overlapping edits"
        out = out[:start] + new + out[end:]
        last = start
    return out


# ---------------------------------------------------------------------------------------------
# Public operations


def uninstall_hooks(text: str, *, is_ours: IsOurs, name: str = "settings.json") -> str:
    """Remove every handler `is_ours` recognises, and what holds only them, as splices.

    A matcher group left without handlers goes; an event list or `hooks` object left empty
    goes when STYLE created it and is restored byte for byte when the user had it empty.
    A file STYLE created from nothing comes back as `{}` plus its newline: the caller, which
    knows whether the file existed, deletes it. A `hooks` value that is not an object cannot
    hold STYLE's handlers and is left alone.
    """
    root = _parse_object(text, name)
    return _apply(text, _uninstall_edits(text, root, _layout(text, root), is_ours))


def install_hooks(
    text: str | None,
    groups: Mapping[str, Sequence[dict[str, Any]]],
    *,
    is_ours: IsOurs,
    name: str = "settings.json",
) -> str:
    """Replace STYLE's matcher groups: remove the old ones, append `groups` per event.

    `text` None or "" means no file yet. New text follows the file's indentation, newline
    style and separators. `uninstall_hooks(install_hooks(u, g))` gives back `u` exactly, and
    installing twice changes nothing the second time. Read and write the file with
    `newline=""` so that CRLF line ends reach this function.
    """
    for event, wanted in groups.items():
        for g in wanted:
            handlers = g.get("hooks")
            if not isinstance(handlers, list) or not handlers:
                raise ValueError(f"group for `{event}` has no `hooks` list")
            if not all(isinstance(h, dict) and is_ours(h) for h in handlers):
                # Uninstall could not find such a handler again: installs would pile up.
                raise ValueError(f"group for `{event}` holds a handler `is_ours` rejects")
    base = text if text else "{}\n"
    cleaned = uninstall_hooks(base, is_ours=is_ours, name=name)
    return append_to_hooks(cleaned, groups, name=name)


def append_to_hooks(
    cleaned: str, entries: Mapping[str, Sequence[dict[str, Any]]], *, name: str
) -> str:
    """Append `entries` (event → list items) at the end of each `hooks.<event>` array, creating
    the event key and the `hooks` key at the end of their objects when missing. Shared by both
    config layouts (matcher groups here, Cursor's flat handler lists in configedit)."""
    root = _parse_object(cleaned, name)
    wanted_events = [(event, list(items)) for event, items in entries.items() if items]
    if not wanted_events:
        return cleaned
    layout = _layout(cleaned, root)
    hooks = root.last("hooks")
    if hooks is None:
        value: dict[str, JsonValue] = {e: _json(items) for e, items in wanted_events}
        edit = _append(cleaned, root, [("hooks", value)], layout, top=True)
        return _apply(cleaned, [edit])
    if hooks.value.kind != "object":
        raise JsonEditError(
            f"`hooks` must be an object, found {_kind_name(hooks.value)}",
            _span_at(cleaned, hooks.value.start, name),
        )
    edits: list[Edit] = []
    new_members: list[tuple[str | None, JsonValue]] = []
    for event, items in wanted_events:
        member = hooks.value.last(event)
        if member is None:
            new_members.append((event, _json(items)))
        elif member.value.kind != "array":
            raise JsonEditError(
                f"`hooks.{event}` must be an array, found {_kind_name(member.value)}",
                _span_at(cleaned, member.value.start, name),
            )
        else:
            elements: list[tuple[str | None, JsonValue]] = [(None, _json(i)) for i in items]
            edits.append(_append(cleaned, member.value, elements, layout, top=False))
    if new_members:
        edits.append(_append(cleaned, hooks.value, new_members, layout, top=False))
    return _apply(cleaned, edits)


def _json(value: object) -> JsonValue:
    # A round trip through the encoder checks the caller's groups are plain JSON data.
    result: JsonValue = json.loads(json.dumps(value, ensure_ascii=False))
    return result


def installed_handlers(
    text: str, *, is_ours: IsOurs, name: str = "settings.json"
) -> dict[str, list[dict[str, Any]]]:
    """STYLE's matcher groups per event as the harness reads the file (last duplicate wins).

    Each group is returned with only STYLE's handlers in its `hooks` list.
    """
    root = _parse_object(text, name)
    assert isinstance(root.value, dict)
    hooks = root.value.get("hooks")
    found: dict[str, list[dict[str, Any]]] = {}
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            continue
        for g in groups:
            if not isinstance(g, dict) or not isinstance(g.get("hooks"), list):
                continue
            handlers = g["hooks"]
            assert isinstance(handlers, list)
            ours = [h for h in handlers if isinstance(h, dict) and is_ours(h)]
            if ours:
                found.setdefault(event, []).append({**g, "hooks": ours})
    return found
