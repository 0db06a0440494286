"""Minimal-edit JSON text editing: add and remove STYLE's hook groups in a settings file."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from agentstyle.configfiles.jsonspans import (
    STRICT,
    Dialect,
    Document,
    JsonEditError,
    JsonValue,
    Member,
    Node,
    parse_document,
    parse_with_spans,
    span_at,
)

IsOurs: TypeAlias = Callable[[dict[str, Any]], bool]
# One splice of the original text: replace text[start:end] with the string.
Edit: TypeAlias = tuple[int, int, str]

__all__ = [
    "STRICT",
    "Dialect",
    "JsonEditError",
    "Member",
    "Node",
    "all_ours",
    "append_to_hooks",
    "install_hooks",
    "installed_handlers",
    "parse_with_spans",
    "replace_ours",
    "uninstall_hooks",
]

_WS = " \t\n\r"
_DEFAULT_UNIT = "  "


def _parse_object(text: str, name: str, dialect: Dialect) -> Document:
    doc = parse_document(text, name=name, dialect=dialect)
    if doc.root.kind != "object":
        raise JsonEditError(
            f"the top level must be a JSON object, found {_kind_name(doc.root)}",
            span_at(text, doc.root.start, name),
        )
    return doc


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


def _ws_start(doc: Document, pos: int) -> int:
    """Where the run of whitespace that ends at `pos` begins (a line comment's own trailing
    spaces are the comment's)."""
    text = doc.text
    while pos > 0 and text[pos - 1] in _WS and not doc.line_comment_ends_at(pos):
        pos -= 1
    return pos


def _hspace_end(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos


def _at_line_break(text: str, pos: int) -> bool:
    return pos >= len(text) or text[pos] in "\r\n"


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


def _layout(doc: Document) -> _Layout:
    text, root = doc.text, doc.root
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
        # A separator holding a comment or a line break says nothing about spacing.
        for m in c.members:
            sep = text[m.key_end : m.value.start]
            if key_sep is None and not any(ch in sep for ch in "\n\r/"):
                key_sep = sep
        for comma, (start, _) in zip(c.commas, c.spans[1:], strict=True):
            sep = text[comma + 1 : start]
            if item_sep is None and not any(ch in sep for ch in "\n\r/"):
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
# so removing it again is deleting the comma and the whitespace run before the element with
# the element. A comment on the last element's line stays with that element: in a multi-line
# container the comma goes right after the element, the new ones after the comment; in a
# one-line container all of it goes after the comment.
#
# Filling an empty container `[W]` keeps the user's inner text W verbatim. When W holds
# comments and a line break after the last one, the elements go after that comment (where a
# human writes the first entry), and the container, which holds a user's comment, always stays.
# Otherwise the fill is marked so that uninstall can tell "the user had this event list /
# `hooks` object empty" (keep it, restore W) from "STYLE created this key" (delete the member);
# nothing but layout can carry that mark, as the harness may reject unknown keys. A container
# STYLE writes ends with S = line break + the indent of its bracket's line. A filled one ends
# with a blank line before S: `{elements}` NL W S `]` when W is on one line, `{elements}` NL S
# W `]` when it spans lines (one space before W in one-line files). Either way the line holding
# `]` keeps the indent it had, so later bracket lines, which the decoding reads, keep theirs
# too. The top-level object always stays: `{` P members S W `}` needs no mark.
#
# Removal never deletes a comment: STYLE writes none, so every comment is the user's. One
# inside or between removed elements is kept where they were, on its own line.


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


def _end_of_line_comments(doc: Document, pos: int) -> int:
    """The end of the comments that follow `pos` on its line (`pos` itself when none do)."""
    end = cur = pos
    while True:
        comment = doc.comment_at(_hspace_end(doc.text, cur))
        if comment is None:
            return end
        end = cur = comment.end
        if comment.line:
            return end


def _append(
    doc: Document,
    node: Node,
    elements: Sequence[tuple[str | None, JsonValue]],
    layout: _Layout,
    *,
    top: bool,
) -> list[Edit]:
    text = doc.text
    spans = node.spans
    if spans:
        last_start, last_end = spans[-1]
        eol = _end_of_line_comments(doc, last_end)
        if "\n" not in text[node.start : node.end]:
            parts = [_render_element(k, v, "", layout, compact=True) for k, v in elements]
            return [(eol, eol, "".join("," + layout.item_sep + p for p in parts))]
        if "\n" not in text[eol : node.end - 1]:
            # `}]`-style closing: what follows the insertion lands on the new element's last
            # line, so give that line the indent it had; bracket lines keep their indent,
            # which is how uninstall recognises the containers it filled.
            indent = _line_indent(text, eol)
        elif _starts_line(text, last_start):
            indent = _line_indent(text, last_start)
        else:
            indent = _line_indent(text, node.start) + layout.unit
        parts = [_render_element(k, v, indent, layout, compact=False) for k, v in elements]
        body = "".join(layout.newline + indent + p + "," for p in parts)[:-1]
        if eol == last_end:
            return [(last_end, last_end, "," + body)]
        return [(last_end, last_end, ","), (eol, eol, body)]
    inner = text[node.start + 1 : node.end - 1]
    comments = doc.comments_in(node.start + 1, node.end - 1)
    indent = _line_indent(text, node.start) + layout.unit
    if comments and "\n" in text[comments[-1].end : node.end - 1]:
        at = comments[-1].end
        parts = [_render_element(k, v, indent, layout, compact=False) for k, v in elements]
        return [(at, at, "".join(layout.newline + indent + p + "," for p in parts)[:-1])]
    tail = _filled_tail(inner, _closing(text, node, layout), layout, top=top)
    if layout.compact:
        parts = [_render_element(k, v, "", layout, compact=True) for k, v in elements]
        body = ("," + layout.item_sep).join(parts)
    else:
        parts = [_render_element(k, v, indent, layout, compact=False) for k, v in elements]
        body = layout.newline + indent + ("," + layout.newline + indent).join(parts)
    return [(node.start + 1, node.end - 1, body + tail)]


def _cut(doc: Document, layout: _Layout, start: int, end: int, indent: str) -> Edit:
    """Delete `text[start:end]` but the comments in it, which stay where it was."""
    kept = doc.comments_in(start, end)
    if not kept:
        return (start, end, "")
    text = doc.text
    own_lines = "\n" in text[start:end]
    sep = layout.newline + indent if own_lines else " "
    before = text[_line_start(text, start) : start]
    if before.strip(" \t") == "":
        lead = indent[len(before) :] if indent.startswith(before) else ""
    else:
        lead = sep
    if _at_line_break(text, _hspace_end(text, end)):
        trail = ""
        if kept[-1].line:  # spaces left after it would become part of the comment
            end = _hspace_end(text, end)
    else:
        trail = layout.newline + indent if own_lines or kept[-1].line else " "
    body = sep.join(text[c.start : c.end] for c in kept)
    return (start, end, lead + body + trail)


def _drop_last(
    doc: Document, node: Node, a: int, layout: _Layout, *, comma: bool = True
) -> list[Edit]:
    """Edits removing elements `a`… to the end, with the comma before them when `comma`."""
    text = doc.text
    spans = node.spans
    first, end = spans[a][0], spans[-1][1]
    indent = _line_indent(text, first)
    edits: list[Edit] = []
    if comma:
        edits.append((node.commas[a - 1], node.commas[a - 1] + 1, ""))
    ws = _ws_start(doc, first)
    if "\n" not in text[ws:first]:
        return [*edits, _cut(doc, layout, ws, end, indent)]
    after = _hspace_end(text, end)
    if doc.comment_at(after) is not None:
        # The user's comment on the removed element's last line stays, on a line of its own.
        return [*edits, _cut(doc, layout, first, after, indent)]
    if doc.line_comment_ends_at(ws):
        if not _at_line_break(text, after):
            # The line break ends a comment: without it the comment would swallow what follows.
            return [*edits, _cut(doc, layout, _line_start(text, first), end, indent)]
        # The removed line's trailing spaces go with it rather than onto the comment.
        return [*edits, _cut(doc, layout, ws, after, indent)]
    return [*edits, _cut(doc, layout, ws, end, indent)]


def _drop_before(doc: Document, node: Node, a: int, b: int, layout: _Layout) -> Edit:
    """The edit removing elements `a`…`b` and the comma after `b`, a kept element follows."""
    text = doc.text
    first = node.spans[a][0]
    after = _hspace_end(text, node.commas[b] + 1)
    indent = _line_indent(text, first)
    if _starts_line(text, first) and _at_line_break(text, after):
        return _cut(doc, layout, _ws_start(doc, first), after, indent)
    # What follows on the line (the next element, a comment) moves into the removed place.
    return _cut(doc, layout, first, after, indent)


def _holds(inner: str, comments: int) -> bool:
    """Whether `inner` between brackets is trivia keeping all the `comments`, each closed."""
    try:
        doc = parse_document("[" + inner + "]", dialect=Dialect(comments=True))
    except JsonEditError:
        return False
    return doc.root.value == [] and len(doc.comments) == comments


def _emptied(doc: Document, node: Node, layout: _Layout, *, top: bool) -> list[Edit] | None:
    """Edits emptying a container whose elements all go; None: STYLE made it, it goes too."""
    text = doc.text
    first, last = node.spans[0][0], node.spans[-1][1]
    if not doc.comments_in(node.start + 1, first):
        closing = _closing(text, node, layout)
        inner = _unfilled_inner(text[last : node.end - 1], closing, layout, top=top)
        after = len(doc.comments_in(last, node.end - 1))
        if inner is not None and after and not _holds(inner, after):
            inner = None  # not a fill STYLE can undo: the comments after the entries stay
        inside = doc.comments_in(first, last)
        if inner is not None and not inside:
            return [(node.start + 1, node.end - 1, inner)]
        if inner is not None:
            # The user's container, and the user's comments from inside the removed entries:
            # those first, each on its own line, then what the container held.
            indent = _line_indent(text, first)
            sep = " " if layout.compact else layout.newline + indent
            block = "".join(sep + text[c.start : c.end] for c in inside)
            own = inner.strip(_WS)
            rest = (sep + own if own else "") + (closing or " ")
            return [(node.start + 1, node.end - 1, block + rest)]
        if not doc.comments_in(node.start + 1, node.end - 1):
            return None
    # A comment of the user's is in it: the container stays, holding the comments.
    return _drop_last(doc, node, 0, layout, comma=False)


def _splice_out(doc: Document, node: Node, drop: Sequence[bool], layout: _Layout) -> list[Edit]:
    """Edits deleting the dropped elements of a container that keeps at least one."""
    edits: list[Edit] = []
    i, n = 0, len(drop)
    while i < n:
        if not drop[i]:
            i += 1
            continue
        a = i
        while i < n and drop[i]:
            i += 1
        if i == n:
            edits.extend(_drop_last(doc, node, a, layout))
        else:
            # Elements before a kept one (an older STYLE put its entries first, or the user
            # added theirs after STYLE's): they go with the comma that follows them.
            edits.append(_drop_before(doc, node, a, i - 1, layout))
    return edits


Decide: TypeAlias = Callable[[int], "list[Edit] | None"]


def _clean(
    doc: Document, node: Node, decide: Decide, layout: _Layout, *, top: bool = False
) -> list[Edit] | None:
    """Edits removing what `decide` drops (it returns None) from a container.

    Returns None when the container itself should go: it became empty and STYLE created it.
    """
    results = [decide(i) for i in range(len(node.spans))]
    drop = [r is None for r in results]
    kept = [e for r in results if r for e in r]
    if not any(drop):
        return kept
    if all(drop):
        return _emptied(doc, node, layout, top=top)
    return kept + _splice_out(doc, node, drop, layout)


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


def _hooks_edits(
    doc: Document, layout: _Layout, event_list: Callable[[Node], list[Edit] | None]
) -> list[Edit]:
    """The edits `event_list` makes to each event's list under the top-level `hooks` object."""
    root = doc.root

    def hooks_object(node: Node) -> list[Edit] | None:
        def decide(i: int) -> list[Edit] | None:
            value = node.members[i].value
            return event_list(value) if value.kind == "array" else []

        return _clean(doc, node, decide, layout)

    def top(i: int) -> list[Edit] | None:
        member = root.members[i]
        if member.key == "hooks" and member.value.kind == "object":
            return hooks_object(member.value)
        return []

    return _clean(doc, root, top, layout, top=True) or []


def _uninstall_edits(doc: Document, layout: _Layout, is_ours: IsOurs) -> list[Edit]:
    def handler_list(node: Node) -> list[Edit]:
        def decide(i: int) -> list[Edit] | None:
            return None if _is_our_handler(node.items[i], is_ours) else []

        edits = _clean(doc, node, decide, layout)
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
        return _clean(doc, node, lambda i: group(node.items[i]), layout)

    return _hooks_edits(doc, layout, event_list)


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


def uninstall_hooks(
    text: str, *, is_ours: IsOurs, name: str = "settings.json", dialect: Dialect = STRICT
) -> str:
    """Remove every handler `is_ours` recognises, and what holds only them, as splices.

    A matcher group left without handlers goes; an event list or `hooks` object left empty
    goes when STYLE created it and is restored byte for byte when the user had it empty.
    A file STYLE created from nothing comes back as `{}` plus its newline: the caller, which
    knows whether the file existed, deletes it. A `hooks` value that is not an object cannot
    hold STYLE's handlers and is left alone. Comments (where `dialect` reads them) all stay.
    """
    doc = _parse_object(text, name, dialect)
    return _apply(text, _uninstall_edits(doc, _layout(doc), is_ours))


def install_hooks(
    text: str | None,
    groups: Mapping[str, Sequence[dict[str, Any]]],
    *,
    is_ours: IsOurs,
    name: str = "settings.json",
    dialect: Dialect = STRICT,
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
            if not all_ours(handlers, is_ours):
                # Uninstall could not find such a handler again: installs would pile up.
                raise ValueError(f"group for `{event}` holds a handler `is_ours` rejects")
    return replace_ours(text, groups, uninstall_hooks, is_ours=is_ours, name=name, dialect=dialect)


def all_ours(handlers: Sequence[object], is_ours: IsOurs) -> bool:
    """Every one of `handlers` a handler `is_ours` recognises (what install may write)."""
    return all(isinstance(h, dict) and is_ours(h) for h in handlers)


def replace_ours(
    text: str | None,
    entries: Mapping[str, Sequence[dict[str, Any]]],
    uninstall: Callable[..., str],
    *,
    is_ours: IsOurs,
    name: str,
    dialect: Dialect,
) -> str:
    """Both layouts' install: STYLE's old entries removed with the layout's `uninstall`, then
    `entries` appended per event (`text` None or "": no file yet)."""
    base = text if text else "{}\n"
    cleaned = uninstall(base, is_ours=is_ours, name=name, dialect=dialect)
    return append_to_hooks(cleaned, entries, name=name, dialect=dialect)


def append_to_hooks(
    cleaned: str,
    entries: Mapping[str, Sequence[dict[str, Any]]],
    *,
    name: str,
    dialect: Dialect = STRICT,
) -> str:
    """Append `entries` (event → list items) at the end of each `hooks.<event>` array, creating
    the event key and the `hooks` key at the end of their objects when missing. Shared by both
    config layouts (matcher groups here, Cursor's flat handler lists in hookconfig)."""
    doc = _parse_object(cleaned, name, dialect)
    root = doc.root
    wanted_events = [(event, list(items)) for event, items in entries.items() if items]
    if not wanted_events:
        return cleaned
    layout = _layout(doc)
    hooks = root.last("hooks")
    if hooks is None:
        value: dict[str, JsonValue] = {e: _json(items) for e, items in wanted_events}
        return _apply(cleaned, _append(doc, root, [("hooks", value)], layout, top=True))
    if hooks.value.kind != "object":
        raise JsonEditError(
            f"`hooks` must be an object, found {_kind_name(hooks.value)}",
            span_at(cleaned, hooks.value.start, name),
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
                span_at(cleaned, member.value.start, name),
            )
        else:
            elements: list[tuple[str | None, JsonValue]] = [(None, _json(i)) for i in items]
            edits.extend(_append(doc, member.value, elements, layout, top=False))
    if new_members:
        edits.extend(_append(doc, hooks.value, new_members, layout, top=False))
    return _apply(cleaned, edits)


def _json(value: object) -> JsonValue:
    # A round trip through the encoder checks the caller's groups are plain JSON data.
    result: JsonValue = json.loads(json.dumps(value, ensure_ascii=False))
    return result


def installed_handlers(
    text: str, *, is_ours: IsOurs, name: str = "settings.json", dialect: Dialect = STRICT
) -> dict[str, list[dict[str, Any]]]:
    """STYLE's matcher groups per event as the harness reads the file (last duplicate wins).

    Each group is returned with only STYLE's handlers in its `hooks` list.
    """
    root = _parse_object(text, name, dialect).root
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
