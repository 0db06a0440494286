"""The standard library's parse tree of a regex, read fast for the plain subset STYLE writes.

`prefilter.any_literal` reads a pattern's tree from Python's own parser (`re._parser`), whose
per-character tokenizer dominated `style install`: the self-protection rules alone are about
120 KB of regex per install. This reader builds the same tree (the same tuples, and the same
two rewrites the standard parser makes of an alternation: a prefix every branch shares is
moved out, single-character branches become a set) for literals, escapes, sets, groups and
repeats, and gives up (`Unsupported`) on anything else, which the standard parser then reads.
tests/test_prefilter.py holds that both give the same tree for every pattern STYLE ships.
"""

from __future__ import annotations

import re
from re import _parser as c  # private, and stable since 3.11
from typing import Any

SPECIAL = frozenset(".\\[{()*+?^$|")
LITERAL = c.LITERAL
# a run of characters that stand for themselves (the standard parser's SPECIAL_CHARS aside)
PLAIN = re.compile(r"[^.\\\[{()*+?^$|]+")
HEX = frozenset("0123456789abcdefABCDEF")
# `\x41`, `\u0041`, `\U00000041`: exactly this many hex digits
HEX_WIDTH = {"x": 2, "u": 4, "U": 8}
REPEAT = frozenset("*+?{")
# a whole `[...]` as the standard parser reads it (a `]` first in it is one of its characters);
# the same few sets (`[^/\s]`) recur thousands of times, so each is read once per process
CLASS = re.compile(r"\[\^?\]?(?:[^\]\\]|\\.)*\]")
_CLASSES: dict[str, Any] = {}
DIGITS = frozenset("0123456789")
# group flags the reader knows: they only change how characters match, never how it reads
GROUP_FLAGS = {"i": c.SRE_FLAG_IGNORECASE, "m": c.SRE_FLAG_MULTILINE, "s": c.SRE_FLAG_DOTALL}
ASCII_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


class Unsupported(Exception):
    """A construct this reader leaves to the standard parser."""


class Seq(list[Any]):
    """A parsed sequence. Compared by identity, as the standard parser's `SubPattern` is: a
    group or a repeat is never another branch's shared prefix."""

    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__  # type: ignore[assignment]


def parse(pattern: str) -> Seq:
    """The tree `re._parser.parse(pattern)` gives (as plain lists); `Unsupported` when the
    pattern uses anything beyond the subset."""
    reader = _Reader(pattern)
    tree = reader.alternation()
    if reader.pos != len(pattern):
        raise Unsupported  # an unbalanced `)`
    return tree


class _Reader:
    __slots__ = ("groups", "names", "pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.groups = 0
        self.names: set[str] = set()

    def alternation(self) -> Seq:
        """`a|b|c` up to a `)` or the end, with the standard parser's two rewrites."""
        items = [self.sequence()]
        text = self.text
        while self.pos < len(text) and text[self.pos] == "|":
            self.pos += 1
            items.append(self.sequence())
        if len(items) == 1:
            return items[0]
        out = Seq()
        while True:  # a prefix every branch starts with moves out of the branch
            prefix = None
            for item in items:
                if not item:
                    break
                if prefix is None:
                    prefix = item[0]
                elif item[0] != prefix:
                    break
            else:
                for item in items:
                    del item[0]
                out.append(prefix)
                continue
            break
        chars: list[Any] = []
        for item in items:  # single characters or sets: one set
            if len(item) != 1:
                break
            op, av = item[0]
            if op is c.LITERAL:
                chars.append((op, av))
            elif op is c.IN and av[0][0] is not c.NEGATE:
                chars.extend(av)
            else:
                break
        else:
            out.append((c.IN, list(dict.fromkeys(chars))))
            return out
        out.append((c.BRANCH, (None, items)))
        return out

    def sequence(self) -> Seq:
        text, n = self.text, len(self.text)
        seq = Seq()
        append = seq.append
        plain = PLAIN.match
        unpack = False
        while self.pos < n:
            ch = text[self.pos]
            if ch not in SPECIAL:  # most of a pattern: characters that stand for themselves
                run = plain(text, self.pos)
                assert run is not None
                seq.extend([(LITERAL, ord(x)) for x in run.group()])
                self.pos = run.end()
            elif ch in "|)":
                break
            elif ch == "\\":
                append(self.escape())
            elif ch == "[":
                append(self.charset())
            elif ch in REPEAT:
                self.repeat(seq)
            elif ch == ".":
                append((c.ANY, None))
                self.pos += 1
            elif ch == "^":
                append((c.AT, c.AT_BEGINNING))
                self.pos += 1
            elif ch == "$":
                append((c.AT, c.AT_END))
                self.pos += 1
            else:  # "("
                group = self.group()
                append(group)
                unpack = unpack or group[1][0] is None
        if unpack:  # a plain `(?:...)` is unpacked into its place
            for i in range(len(seq) - 1, -1, -1):
                op, av = seq[i]
                if op is c.SUBPATTERN and av[0] is None and not av[1] and not av[2]:
                    seq[i : i + 1] = av[3]
        return seq

    def escape(self) -> Any:
        key = self.text[self.pos : self.pos + 2]
        if len(key) < 2:
            raise Unsupported
        self.pos += 2
        code = c.CATEGORIES.get(key) or c.ESCAPES.get(key)
        if code:
            return code
        if key[1] in HEX_WIDTH:
            return self.hex_escape(key[1])
        if key[1] in ASCII_ALNUM:
            raise Unsupported  # octal, back-references, named characters, bad escapes
        return (c.LITERAL, ord(key[1]))

    def class_item(self) -> Any:
        text = self.text
        ch = text[self.pos]
        if ch != "\\":
            self.pos += 1
            return (c.LITERAL, ord(ch))
        key = text[self.pos : self.pos + 2]
        if len(key) < 2:
            raise Unsupported
        self.pos += 2
        code = c.ESCAPES.get(key)
        if code:
            return code
        code = c.CATEGORIES.get(key)
        if code and code[0] is c.IN:
            return code
        if key[1] in HEX_WIDTH:
            return self.hex_escape(key[1])
        if key[1] in ASCII_ALNUM:
            raise Unsupported
        return (c.LITERAL, ord(key[1]))

    def hex_escape(self, kind: str) -> Any:
        """The character of `\\xHH`, `\\uHHHH` or `\\UHHHHHHHH` (the `\\x` already read)."""
        width = HEX_WIDTH[kind]
        digits = self.text[self.pos : self.pos + width]
        if len(digits) != width or not all(d in HEX for d in digits):
            raise Unsupported
        self.pos += width
        value = int(digits, 16)
        if value > 0x10FFFF:
            raise Unsupported
        return (c.LITERAL, value)

    def charset(self) -> Any:
        whole = CLASS.match(self.text, self.pos)
        if whole is None:
            raise Unsupported  # unterminated
        known = _CLASSES.get(whole.group())
        if known is None:
            known = self._charset()
            if self.pos != whole.end():
                raise Unsupported
            _CLASSES[whole.group()] = known
        self.pos = whole.end()
        return known

    def _charset(self) -> Any:
        text, n = self.text, len(self.text)
        self.pos += 1
        negate = self.pos < n and text[self.pos] == "^"
        if negate:
            self.pos += 1
        items: list[Any] = []
        while True:
            if self.pos >= n:
                raise Unsupported
            if text[self.pos] == "]" and items:
                self.pos += 1
                break
            first = self.class_item()
            if self.pos < n and text[self.pos] == "-":
                self.pos += 1
                if self.pos >= n:
                    raise Unsupported
                if text[self.pos] == "]":
                    self.pos += 1
                    items.append(first[1][0] if first[0] is c.IN else first)
                    items.append((c.LITERAL, ord("-")))
                    break
                second = self.class_item()
                if first[0] is not c.LITERAL or second[0] is not c.LITERAL:
                    raise Unsupported
                if second[1] < first[1]:
                    raise Unsupported
                items.append((c.RANGE, (first[1], second[1])))
            else:
                items.append(first[1][0] if first[0] is c.IN else first)
        items = list(dict.fromkeys(items))
        if len(items) == 1 and items[0][0] is c.LITERAL:
            return (c.NOT_LITERAL, items[0][1]) if negate else items[0]
        if negate:
            items.insert(0, (c.NEGATE, None))
        return (c.IN, items)

    def repeat(self, seq: Seq) -> None:
        text, n = self.text, len(self.text)
        ch = text[self.pos]
        self.pos += 1
        if ch == "?":
            low, high = 0, 1
        elif ch == "*":
            low, high = 0, c.MAXREPEAT
        elif ch == "+":
            low, high = 1, c.MAXREPEAT
        else:  # "{m,n}"; a `{` that is not a count is left to the standard parser
            start = self.pos
            while self.pos < n and text[self.pos] in DIGITS:
                self.pos += 1
            lo = text[start : self.pos]
            if self.pos < n and text[self.pos] == ",":
                self.pos += 1
                mid = self.pos
                while self.pos < n and text[self.pos] in DIGITS:
                    self.pos += 1
                hi = text[mid : self.pos]
            else:
                hi = lo
            if self.pos >= n or text[self.pos] != "}" or (not lo and not hi):
                raise Unsupported
            self.pos += 1
            low = int(lo) if lo else 0
            high = int(hi) if hi else c.MAXREPEAT
            if low >= c.MAXREPEAT or (hi and high >= c.MAXREPEAT) or high < low:
                raise Unsupported
        if not seq or seq[-1][0] is c.AT or seq[-1][0] in c._REPEATCODES:
            raise Unsupported  # nothing to repeat, a repeat repeated
        item: Any = Seq(seq[-1:])
        if item[0][0] is c.SUBPATTERN:
            group, add, remove, body = item[0][1]
            if group is None and not add and not remove:
                item = body
        op = c.MAX_REPEAT
        if self.pos < n and text[self.pos] in "?+":
            op = c.MIN_REPEAT if text[self.pos] == "?" else c.POSSESSIVE_REPEAT
            self.pos += 1
        seq[-1] = (op, (low, high, item))

    def group(self) -> Any:
        text, n = self.text, len(self.text)
        self.pos += 1
        group: int | None = None
        add = remove = 0
        if text.startswith("?:", self.pos):
            self.pos += 2
        elif text.startswith("?P<", self.pos):
            end = text.find(">", self.pos + 3)
            name = text[self.pos + 3 : end]
            if end < 0 or not name.isidentifier() or name in self.names:
                raise Unsupported
            self.names.add(name)
            self.pos = end + 1
            group = self._open()
        elif text.startswith("?", self.pos):
            end = text.find(":", self.pos + 1)
            if end < 0:
                raise Unsupported
            on, minus, off = text[self.pos + 1 : end].partition("-")
            letters = on + off
            if (
                not letters
                or (minus and not off)
                or any(f not in GROUP_FLAGS for f in letters)
                or set(on) & set(off)
            ):
                raise Unsupported  # lookarounds, comments, global flags, verbose
            for f in on:
                add |= GROUP_FLAGS[f]
            for f in off:
                remove |= GROUP_FLAGS[f]
            self.pos = end + 1
        else:
            group = self._open()
        body = self.alternation()
        if self.pos >= n or text[self.pos] != ")":
            raise Unsupported
        self.pos += 1
        return (c.SUBPATTERN, (group, add, remove, body))

    def _open(self) -> int:
        self.groups += 1
        return self.groups
