"""Edits of a package's files that `style suggest` proposes, made on the text itself.

A proposal must show exactly what would change, so the files are edited as text (the rest of
the file, comments and layout included, stays byte for byte) at the positions PyYAML's
composer gives: a rule's `when` is replaced or added, a key such as `enabled` or `repeat` is
set, a rule entry is appended to `rules:`, an entry to `exceptions:`. Each edit returns the
new text, or None when the file is written in a form this module does not edit (a flow-style
mapping, a rule whose condition comes from a `from` entry); the caller then proposes nothing
rather than something wrong. The result is always loaded again by the package loader before it
is shown (audit/suggest_files.py), so a mistake here cannot reach a proposal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

FRONT = re.compile(r"\A---[ \t]*\r?\n")
FRONT_END = re.compile(r"^---[ \t]*$", re.MULTILINE)
PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*")


@dataclass(frozen=True, slots=True)
class Located:
    """A rule's mapping in one file: the file's text, the mapping node, and the offset of the
    YAML document inside the text (a rule file's front matter starts after `---`)."""

    text: str
    node: yaml.MappingNode
    offset: int


def scalar(value: str, *, quoted: bool = True) -> str:
    """`value` as one YAML flow scalar as PyYAML writes it: single-quoted (double-quoted when
    it holds a line break), or plain where YAML allows it and `quoted` is false."""
    style: str | None = '"' if "\n" in value or "\r" in value else "'"
    if not quoted and PLAIN.fullmatch(value):
        style = None
    dumped = yaml.safe_dump(
        {"k": value}, default_style=style, width=1_000_000, allow_unicode=True
    ).rstrip("\n")
    _key, _sep, rest = dumped.partition(": ")
    return rest


def _key_node(mapping: yaml.MappingNode, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    for k, v in mapping.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return k, v
    return None


def _front_matter(text: str) -> tuple[str, int] | None:
    start = FRONT.match(text)
    if start is None:
        return None
    end = FRONT_END.search(text, start.end())
    if end is None:
        return None
    return text[start.end() : end.start()], start.end()


def locate_inline(text: str, local_id: str) -> Located | None:
    """The inline entry of rule `local_id` in a STYLE.yaml's `rules:`."""
    root = yaml.compose(text)
    if not isinstance(root, yaml.MappingNode):
        return None
    found = _key_node(root, "rules")
    if found is None or not isinstance(found[1], yaml.SequenceNode):
        return None
    for item in found[1].value:
        if not isinstance(item, yaml.MappingNode) or item.flow_style:
            continue
        ident = _key_node(item, "id")
        if (
            ident is not None
            and isinstance(ident[1], yaml.ScalarNode)
            and ident[1].value == local_id
        ):
            return Located(text, item, 0)
    return None


def locate_front_matter(text: str) -> Located | None:
    """The front matter mapping of a rule file or a single-file package."""
    front = _front_matter(text)
    if front is None:
        return None
    body, offset = front
    node = yaml.compose(body) if body.strip() else None
    if not isinstance(node, yaml.MappingNode) or node.flow_style:
        return None
    return Located(text, node, offset)


def _end_of(node: yaml.Node) -> int:
    """Where a node's text ends. A block collection's end mark is where the next token starts
    (possibly on a later line), so it is read from its last scalar or flow node instead."""
    while isinstance(node, yaml.MappingNode | yaml.SequenceNode) and not node.flow_style:
        if not node.value:
            break
        last = node.value[-1]
        node = last[1] if isinstance(last, tuple) else last
    return int(node.end_mark.index)


def _line_end(text: str, index: int) -> int:
    """Where a new line goes after the node ending at `index`: the start of the next line."""
    if index > 0 and text[index - 1] == "\n":
        return index
    newline = text.find("\n", index)
    return len(text) if newline < 0 else newline + 1


def _insert_key(loc: Located, key: str, value: str, mapping: yaml.MappingNode) -> str | None:
    """`key: value` as a new last key of a block mapping."""
    if mapping.flow_style or not mapping.value:
        return None
    first_key = mapping.value[0][0]
    indent = " " * first_key.start_mark.column
    at = _line_end(loc.text, loc.offset + _end_of(mapping.value[-1][1]))
    prefix = "" if at == 0 or loc.text[at - 1] == "\n" else "\n"
    return loc.text[:at] + f"{prefix}{indent}{key}: {value}\n" + loc.text[at:]


def _replace(loc: Located, node: yaml.Node, value: str) -> str:
    start = loc.offset + node.start_mark.index
    end = loc.offset + node.end_mark.index
    old = loc.text[start:end]
    # a block scalar's span ends after its last line: keep that line break
    tail = "\n" if old.endswith("\n") else ""
    return loc.text[:start] + value + tail + loc.text[end:]


def set_key(loc: Located, key: str, value: str) -> str | None:
    """The rule's `key` set to the YAML scalar text `value` (added when it is missing)."""
    found = _key_node(loc.node, key)
    if found is None:
        return _insert_key(loc, key, value, loc.node)
    if not isinstance(found[1], yaml.ScalarNode):
        return None
    return _replace(loc, found[1], value)


def add_exception(loc: Located, exception: str) -> str | None:
    """The rule's condition ANDed with `not (exception)`: in the expression form the whole
    string, in the mapping form its `expr` (docs/conditions.md#two-forms-one-meaning)."""
    found = _key_node(loc.node, "when")
    negated = f"not ({exception})"
    if found is None:
        return _insert_key(loc, "when", scalar(negated), loc.node)
    when = found[1]
    if isinstance(when, yaml.ScalarNode):
        return _replace(loc, when, scalar(f"({when.value}) and {negated}"))
    if not isinstance(when, yaml.MappingNode) or when.flow_style:
        return None
    expr = _key_node(when, "expr")
    if expr is None:
        return _insert_key(loc, "expr", scalar(negated), when)
    if not isinstance(expr[1], yaml.ScalarNode):
        return None
    return _replace(loc, expr[1], scalar(f"({expr[1].value}) and {negated}"))


def _append_item(
    manifest: str, items: list[yaml.Node], fields: list[tuple[str, str]]
) -> str | None:
    """A new block mapping entry (`fields`: key and YAML scalar text, in order) after the last
    entry of a block list, indented as its first entry is."""
    if not items or not isinstance(items[0], yaml.MappingNode) or items[0].flow_style:
        return None
    column = items[0].value[0][0].start_mark.column
    dash = " " * max(0, column - 2)
    lines = [f"{dash}- {fields[0][0]}: {fields[0][1]}"]
    lines += [f"{' ' * column}{k}: {v}" for k, v in fields[1:]]
    at = _line_end(manifest, _end_of(items[-1]))
    prefix = "" if at == 0 or manifest[at - 1] == "\n" else "\n"
    return manifest[:at] + prefix + "\n".join(lines) + "\n" + manifest[at:]


def _block_list(
    manifest: str, key: str
) -> tuple[yaml.MappingNode, yaml.SequenceNode | None] | None:
    """The manifest's top-level mapping and its block list `key` (None when the key is
    missing); None when the file is not a block mapping or `key` is not a block list."""
    root = yaml.compose(manifest)
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        return None
    found = _key_node(root, key)
    if found is None:
        return root, None
    if not isinstance(found[1], yaml.SequenceNode) or found[1].flow_style:
        return None
    return root, found[1]


def append_rule(manifest: str, fields: list[tuple[str, str]]) -> str | None:
    """A new inline rule (`fields`: key and YAML scalar text, in order) after the last entry of
    a STYLE.yaml's block `rules:` list."""
    found = _block_list(manifest, "rules")
    if found is None or found[1] is None:
        return None
    return _append_item(manifest, found[1].value, fields)


def append_exception(manifest: str, fields: list[tuple[str, str]]) -> str | None:
    """A new entry of a STYLE.yaml's `exceptions:` (docs/packages.md#exceptions), after its last
    one, or the list itself added at the end of the file."""
    found = _block_list(manifest, "exceptions")
    if found is None:
        return None
    root, items = found
    if items is not None:
        return _append_item(manifest, items.value, fields)
    indent = " " * root.value[0][0].start_mark.column if root.value else ""
    lines = [f"{indent}exceptions:", f"{indent}  - {fields[0][0]}: {fields[0][1]}"]
    lines += [f"{indent}    {k}: {v}" for k, v in fields[1:]]
    prefix = "" if not manifest or manifest.endswith("\n") else "\n"
    return manifest + prefix + "\n".join(lines) + "\n"


def rule_file(package: Path, local_id: str) -> Path | None:
    """The file a rule of a directory package is written in: `rules/<id>.md` when it exists."""
    candidate = package / "rules" / f"{local_id}.md"
    return candidate if candidate.is_file() else None
