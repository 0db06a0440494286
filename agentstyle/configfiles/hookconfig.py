"""Byte-preserving edits of the hook config layouts the adapters write.

Two layouts: `groups` (event → matcher group → handler list: Claude Code, Codex, Gemini CLI),
handled by `configfiles/jsonedit.py`, and `flat` (event → handler list: Cursor), handled here on
the same splice machinery. Besides the hooks, an adapter may need one more key set
(Cursor's top-level `version`, Gemini's `tools.enableHooks`): `ensure_key` sets it and returns a
marker naming what it changed, which install keeps in the lock file so that `undo_key` can put
the file back byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agentstyle.configfiles.jsonedit import (
    STRICT,
    Dialect,
    Edit,
    IsOurs,
    JsonEditError,
    Node,
    _append,
    _apply,
    _clean,
    _hooks_edits,
    _is_our_handler,
    _kind_name,
    _layout,
    _parse_object,
    all_ours,
    install_hooks,
    installed_handlers,
    replace_ours,
    uninstall_hooks,
)
from agentstyle.configfiles.jsonspans import Document, JsonValue, span_at

__all__ = [
    "STRICT",
    "Dialect",
    "JsonEditError",
    "ensure_key",
    "handlers_of",
    "install_flat",
    "install_groups",
    "installed",
    "undo_key",
    "uninstall_flat",
    "uninstall_groups",
]

install_groups = install_hooks
uninstall_groups = uninstall_hooks


# ---------------------------------------------------------------------------------------------
# The flat layout: `{"hooks": {"event": [handler, …]}}`


def uninstall_flat(
    text: str, *, is_ours: IsOurs, name: str = "hooks.json", dialect: Dialect = STRICT
) -> str:
    """Remove every handler `is_ours` recognises from a flat layout (the inverse of install)."""
    doc = _parse_object(text, name, dialect)

    def event_list(node: Node) -> list[Edit] | None:
        return _clean(
            doc, node, lambda i: None if _is_our_handler(node.items[i], is_ours) else [], layout
        )

    layout = _layout(doc)
    return _apply(text, _hooks_edits(doc, layout, event_list))


def install_flat(
    text: str | None,
    handlers: Mapping[str, Sequence[dict[str, Any]]],
    *,
    is_ours: IsOurs,
    name: str = "hooks.json",
    dialect: Dialect = STRICT,
) -> str:
    """Replace STYLE's handlers of a flat layout: remove the old ones, append `handlers`."""
    for event, wanted in handlers.items():
        if not all_ours(wanted, is_ours):
            raise ValueError(f"a handler for `{event}` is not recognised as STYLE's")
    return replace_ours(text, handlers, uninstall_flat, is_ours=is_ours, name=name, dialect=dialect)


def installed(
    text: str,
    *,
    is_ours: IsOurs,
    flat: bool,
    name: str = "settings.json",
    dialect: Dialect = STRICT,
) -> dict[str, list[dict[str, Any]]]:
    """STYLE's handlers per event as the harness reads the file.

    Groups layout: each group with only STYLE's handlers (`installed_handlers`); flat layout:
    the handlers themselves.
    """
    if not flat:
        return installed_handlers(text, is_ours=is_ours, name=name, dialect=dialect)
    root = _parse_object(text, name, dialect).root
    assert isinstance(root.value, dict)
    hooks = root.value.get("hooks")
    found: dict[str, list[dict[str, Any]]] = {}
    if not isinstance(hooks, dict):
        return found
    for event, items in hooks.items():
        if isinstance(items, list):
            ours = [h for h in items if isinstance(h, dict) and is_ours(h)]
            if ours:
                found[event] = ours
    return found


def handlers_of(group: dict[str, Any]) -> list[dict[str, Any]]:
    """The handlers of an event's list item: a group's `hooks` (groups layout), or the item
    itself, a handler (flat layout)."""
    hooks = group.get("hooks")
    return [h for h in hooks if isinstance(h, dict)] if isinstance(hooks, list) else [group]


# ---------------------------------------------------------------------------------------------
# One key an adapter needs set (Cursor `version`, Gemini `tools.enableHooks`)
#
# Markers: `+<path>` STYLE added the key (the first missing level of the path: removing it
# removes everything below), `=<path>=<json>` STYLE replaced the value that was there.


def _find(root: Node, path: Sequence[str]) -> tuple[Node, int]:
    """The deepest existing object along `path` and how many keys of `path` it resolved."""
    node = root
    depth = 0
    for key in path:
        member = node.last(key)
        if member is None:
            break
        node = member.value
        depth += 1
        if depth < len(path) and node.kind != "object":
            break
    return node, depth


def ensure_key(
    text: str,
    path: Sequence[str],
    value: JsonValue,
    *,
    name: str = "settings.json",
    dialect: Dialect = STRICT,
) -> tuple[str, str | None]:
    """`text` with `path` set to `value`, and the marker of what changed (None: nothing)."""
    doc = _parse_object(text, name, dialect)
    root = doc.root
    node, depth = _find(root, path)
    if depth == len(path):
        if node.value == value and type(node.value) is type(value):
            return text, None
        original = text[node.start : node.end]
        rendered = json.dumps(value, ensure_ascii=False)
        marker = "=" + ".".join(path) + "=" + original
        return text[: node.start] + rendered + text[node.end :], marker
    if node.kind != "object":
        where = ".".join(path[:depth])
        raise JsonEditError(
            f"`{where}` must be an object, found {_kind_name(node)}",
            span_at(text, node.start, name),
        )
    nested: JsonValue = value
    for key in reversed(path[depth + 1 :]):
        nested = {key: nested}
    edits = _append(doc, node, [(path[depth], nested)], _layout(doc), top=depth == 0)
    return _apply(text, edits), "+" + ".".join(path[: depth + 1])


def undo_key(
    text: str, marker: str, *, name: str = "settings.json", dialect: Dialect = STRICT
) -> str:
    """Undo what `ensure_key` did, per its marker; a file changed since is left as it is."""
    doc: Document = _parse_object(text, name, dialect)
    root = doc.root
    if marker.startswith("="):
        dotted, _, original = marker[1:].partition("=")
        node, depth = _find(root, dotted.split("."))
        if depth != len(dotted.split(".")):
            return text
        return text[: node.start] + original + text[node.end :]
    if not marker.startswith("+"):
        return text
    path = marker[1:].split(".")
    parent, depth = _find(root, path[:-1])
    if depth != len(path) - 1 or parent.kind != "object" or parent.last(path[-1]) is None:
        return text

    def decide(i: int) -> list[Edit] | None:
        return None if parent.members[i].key == path[-1] else []

    edits = _clean(doc, parent, decide, _layout(doc), top=parent is root)
    if edits is None:  # the parent held only this key and STYLE had created it: keep it empty
        edits = [(parent.start + 1, parent.end - 1, "")]
    return _apply(text, edits)
