"""Translate path globs into anchored RE2-compatible regular expressions."""

from __future__ import annotations

__all__ = ["glob_to_regex", "is_glob"]

_GLOB_CHARS = frozenset("*?[{")
# Only these are escaped: RE2 rejects a backslash before a letter, digit or space that it does
# not know, so `re.escape` (which escapes spaces and more) is not safe to hand to DuckDB.
_REGEX_SPECIAL = frozenset("\\.^$*+?()[]{}|")
_CLASS_SPECIAL = frozenset("\\[]^")
_ANY_DIRS = "(?:[^/]*/)*"


def is_glob(text: str) -> bool:
    """Whether `text` uses any glob syntax (`*`, `?`, `[...]`, `{a,b}`)."""
    return any(char in _GLOB_CHARS for char in text)


def glob_to_regex(pattern: str) -> str:
    """A regex matching exactly the paths `pattern` matches (`/`-separated, fully anchored).

    `*` and `?` stay within one path segment, `**` crosses segments, and a `**/` segment
    matches zero or more directories. `[...]` and `[!...]` are classes, `{a,b}` alternatives
    (nestable), and `\\` escapes the next character. Raises ValueError on a malformed glob.
    """
    body, end = _sequence(pattern, 0, nested=False, segment_start=True)
    assert end == len(pattern)
    return f"^{body}$"


def _sequence(pattern: str, index: int, *, nested: bool, segment_start: bool) -> tuple[str, int]:
    """Translate from `index` to the end, or inside braces to the next `,` or `}` at this level."""
    out: list[str] = []
    size = len(pattern)
    at_segment_start = segment_start
    while index < size:
        char = pattern[index]
        if nested and char in ",}":
            break
        if char == "*":
            stars_end = index
            while stars_end < size and pattern[stars_end] == "*":
                stars_end += 1
            if stars_end - index == 1:
                out.append("[^/]*")
            elif at_segment_start and pattern.startswith("/", stars_end):
                out.append(_ANY_DIRS)
                index = stars_end + 1
                continue  # still at the start of a segment
            else:
                out.append(".*")
            index = stars_end
        elif char == "?":
            out.append("[^/]")
            index += 1
        elif char == "[":
            regex, index = _char_class(pattern, index)
            out.append(regex)
        elif char == "{":
            regex, index = _alternatives(pattern, index, at_segment_start)
            out.append(regex)
        elif char == "}":
            raise ValueError("unmatched `}` in glob")
        elif char == "\\":
            if index + 1 == size:
                raise ValueError("trailing `\\` in glob")
            out.append(_literal(pattern[index + 1]))
            index += 2
        else:
            out.append(_literal(char))
            index += 1
        at_segment_start = char == "/"
    return "".join(out), index


def _alternatives(pattern: str, index: int, segment_start: bool) -> tuple[str, int]:
    """`{a,b,...}` starting at `index` (the `{`) as a non-capturing group."""
    options: list[str] = []
    index += 1
    while True:
        regex, index = _sequence(pattern, index, nested=True, segment_start=segment_start)
        options.append(regex)
        if index >= len(pattern):
            raise ValueError("unclosed `{` in glob")
        if pattern[index] == "}":
            return "(?:" + "|".join(options) + ")", index + 1
        index += 1  # the `,`


def _char_class(pattern: str, index: int) -> tuple[str, int]:
    """`[...]` or `[!...]` starting at `index` (the `[`) as a regex class."""
    size = len(pattern)
    start = index + 1
    negated = start < size and pattern[start] in "!^"
    if negated:
        start += 1
    end = start
    if end < size and pattern[end] == "]":
        end += 1  # a `]` right after the opening bracket is literal
    while end < size and pattern[end] != "]":
        end += 1
    if end >= size:
        raise ValueError("unclosed `[` in glob")
    members = pattern[start:end]
    for pos in range(1, len(members) - 1):
        if members[pos] == "-" and members[pos - 1] > members[pos + 1]:
            raise ValueError(f"bad range `{members[pos - 1 : pos + 2]}` in glob")
    body = "".join("\\" + c if c in _CLASS_SPECIAL else c for c in members)
    # A negated class must not match `/`, or `[!a]` would cross segments.
    return ("[^/" if negated else "[") + body + "]", end + 1


def _literal(char: str) -> str:
    return "\\" + char if char in _REGEX_SPECIAL else char
