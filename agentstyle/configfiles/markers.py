"""Static rule text kept between `<!-- style:begin ID -->` and `<!-- style:end ID -->` lines."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from agentstyle.source import Span

__all__ = [
    "RESERVED",
    "MarkerError",
    "is_empty_after_removal",
    "place_blocks",
    "read_blocks",
    "remove_blocks",
]

# Rule bodies may not contain this (docs/diagnostics.md#marker-in-body): it is how blocks are found.
RESERVED = "<!-- style:"
_MARKER = re.compile(r"<!-- style:(begin|end) (\S+) -->")
_ID = re.compile(r"\S+")


class MarkerError(ValueError):
    """Markers STYLE cannot pair up safely, or a block it must not write; nothing is written."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(f"{span}: {message}" if span else message)
        self.message = message
        self.span = span


@dataclass(slots=True)
class _Line:
    content: str  # without the line break
    end: str  # "\n", "\r\n", or "" for a last line without one
    removed: bool = False
    replaced: bool = False  # a block rewritten in place: still there for its neighbours


@dataclass(frozen=True, slots=True)
class _Block:
    id: str
    begin: int  # line index of the begin marker
    end: int  # line index of the end marker
    body: str


def _lines(text: str) -> list[_Line]:
    parts = text.split("\n")
    lines = []
    for part in parts[:-1]:
        if part.endswith("\r"):
            lines.append(_Line(part[:-1], "\r\n"))
        else:
            lines.append(_Line(part, "\n"))
    if parts[-1]:
        lines.append(_Line(parts[-1], ""))
    return lines


def _newline(text: str) -> str:
    first = text.find("\n")
    if first < 0:
        # A trailing lone CR would fuse with an appended LF into a CRLF that uninstall reads
        # as one line break; appending CRLF keeps the CR the user's.
        return "\r\n" if text.endswith("\r") else "\n"
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _scan(lines: list[_Line], name: str) -> list[_Block]:
    blocks: list[_Block] = []
    opened: tuple[str, int] | None = None
    for i, line in enumerate(lines):
        stripped = line.content.strip()
        if not stripped.startswith(RESERVED):
            continue
        where = Span(name, i + 1, 1)
        match = _MARKER.fullmatch(stripped)
        if match is None:
            raise MarkerError(f"malformed STYLE marker `{stripped}`", where)
        kind, block_id = match.groups()
        if kind == "begin":
            if opened is not None:
                raise MarkerError(
                    f"`style:begin {block_id}` inside block `{opened[0]}` opened on line "
                    f"{opened[1] + 1}",
                    where,
                )
            opened = (block_id, i)
            continue
        if opened is None:
            raise MarkerError(f"`style:end {block_id}` without a matching `style:begin`", where)
        if opened[0] != block_id:
            raise MarkerError(
                f"`style:end {block_id}` closes `style:begin {opened[0]}` opened on line "
                f"{opened[1] + 1}",
                where,
            )
        body = "\n".join(line.content for line in lines[opened[1] + 1 : i])
        blocks.append(_Block(block_id, opened[1], i, body))
        opened = None
    if opened is not None:
        raise MarkerError(
            f"`style:begin {opened[0]}` has no matching `style:end {opened[0]}`",
            Span(name, opened[1] + 1, 1),
        )
    return blocks


def _check(blocks: Mapping[str, str]) -> None:
    for block_id, body in blocks.items():
        if not _ID.fullmatch(block_id) or "-->" in block_id:
            raise MarkerError(f"block id `{block_id}` cannot be written inside a marker")
        if RESERVED in body:
            raise MarkerError(f"block `{block_id}`: body contains the reserved marker `{RESERVED}`")


def _render(block_id: str, body: str) -> list[str]:
    body_lines = body.replace("\r\n", "\n").split("\n")
    return [f"<!-- style:begin {block_id} -->", *body_lines, f"<!-- style:end {block_id} -->"]


def _remove(lines: list[_Line], block: _Block) -> None:
    # Each block owns one blank line: the one STYLE put before it, or, for a block at the very
    # top of the file, the one after it. Taking exactly that one gives the user's text back.
    for line in lines[block.begin : block.end + 1]:
        line.removed = True
    before = next((lines[j] for j in range(block.begin - 1, -1, -1) if not lines[j].removed), None)
    if before is not None:
        if before.content == "":
            before.removed = True
        return
    after = lines[block.end + 1] if block.end + 1 < len(lines) else None
    if after is not None and not after.removed and after.content == "":
        after.removed = True


def place_blocks(text: str | None, blocks: Mapping[str, str], *, name: str = "<text>") -> str:
    """Write exactly `blocks` (id → body) into `text`, leaving every other line as it was.

    Existing blocks are rewritten in place, blocks not in `blocks` are removed, new ones are
    appended at the end after one blank line (blocks are separated by one blank line).
    `text` None means no file. Placing then removing gives back the original text byte for
    byte; placing twice changes nothing. Body line breaks follow the file's (CRLF or LF).
    """
    _check(blocks)
    source = text or ""
    newline = _newline(source)
    lines = _lines(source)
    found = _scan(lines, name)
    placed: set[str] = set()
    replacements: dict[int, list[_Line]] = {}
    for block in found:
        if block.id in blocks and block.id not in placed:
            placed.add(block.id)
            rendered = _render(block.id, blocks[block.id])
            new = [_Line(content, newline) for content in rendered]
            new[-1].end = lines[block.end].end
            replacements[block.begin] = new
            for line in lines[block.begin : block.end + 1]:
                line.replaced = True
        else:
            _remove(lines, block)
    out: list[_Line] = []
    for i, line in enumerate(lines):
        out.extend(replacements.get(i, []))
        if not (line.removed or line.replaced):
            out.append(line)
    if out and lines and lines[-1].end == "" and lines[-1].removed:
        # The file had no final line break and its last line went: drop the break STYLE put
        # after the user's last line (only that: a CR before it is the user's).
        full = out[-1].content + out[-1].end
        out[-1].content, out[-1].end = full.removesuffix(newline), ""
    result = "".join(line.content + line.end for line in out)
    new_blocks = [
        newline.join(_render(block_id, body))
        for block_id, body in blocks.items()
        if block_id not in placed
    ]
    if not new_blocks:
        return result
    joined = (newline + newline).join(new_blocks)
    if result == "":
        return joined + newline
    if result.endswith("\n"):
        return result + newline + joined + newline
    # No final line break in the user's file: the blank line goes in front, none at the end.
    return result + newline + newline + joined


def remove_blocks(text: str, *, name: str = "<text>") -> str:
    """`text` without any STYLE block; "" when the file held nothing else (see below)."""
    return place_blocks(text, {}, name=name)


def is_empty_after_removal(text: str, *, name: str = "<text>") -> bool:
    """True when `text` holds only STYLE blocks, so the caller that created the file may delete it.

    An existing empty file and a file STYLE created both come back as "": whether to delete
    is the caller's call, from its own record of what existed before install.
    """
    return remove_blocks(text, name=name) == ""


def read_blocks(text: str, *, name: str = "<text>") -> dict[str, str]:
    """The blocks in `text`, id → body with "\\n" line breaks; for a repeated id, the first."""
    found: dict[str, str] = {}
    for block in _scan(_lines(text), name):
        found.setdefault(block.id, block.body)
    return found
