"""Translate path globs into anchored RE2-compatible regular expressions."""

from __future__ import annotations

import functools

__all__ = ["glob_to_regex", "is_glob"]

_GLOB_CHARS = frozenset("*?[{")
# Only these are escaped: RE2 rejects a backslash before a letter, digit or space that it does
# not know, so `re.escape` (which escapes spaces and more) is not safe to hand to DuckDB.
_REGEX_SPECIAL = frozenset("\\.^$*+?()[]{}|")
_CLASS_SPECIAL = frozenset("\\[]^")
_ANY_DIRS = "(?:[^/]*/)*"


def is_glob(text: str) -> bool:
    """Whether `text` uses any glob syntax (`*`, `?`, `[...]`, `{a,b}`, extglob's `@(a|b)`)."""
    return any(char in _GLOB_CHARS for char in text) or any(c + "(" in text for c in "!@+")


@functools.lru_cache(maxsize=1024)
def glob_to_regex(pattern: str) -> str:
    """A regex matching exactly the paths `pattern` matches (`/`-separated, fully anchored).

    `*` and `?` stay within one path segment, `**` crosses segments, and a `**/` segment
    matches zero or more directories. `[...]` and `[!...]` are classes, `{a,b}` alternatives
    (nestable); of bash's extglob, `!(a|b)` is any text within a segment that matches none of
    the patterns, `@(a|b)` one of them, `?(a|b)` at most one, `*(a|b)` any number in a row and
    `+(a|b)` at least one; `\\` escapes the next character. Raises ValueError on a malformed
    glob.
    """
    body, end = _sequence(pattern, 0, nested=False, segment_start=True)
    assert end == len(pattern)
    return f"^{body}$"


def _sequence(
    pattern: str, index: int, *, nested: bool, segment_start: bool, stops: str = ""
) -> tuple[str, int]:
    """Translate from `index` to the end, or inside braces to the next `,` or `}` at this level
    (inside `*( … )` to the next `|` or `)`: `stops`)."""
    out: list[str] = []
    size = len(pattern)
    at_segment_start = segment_start
    stops = stops or (",}" if nested else "")
    while index < size:
        char = pattern[index]
        if char in stops:
            break
        if char == "!" and pattern.startswith("(", index + 1):
            regex, index = _not_any(pattern, index)
            out.append(regex)
        elif char in _EXTGLOB and pattern.startswith("(", index + 1):
            regex, index = _extglob(pattern, index, at_segment_start)
            out.append(regex)
        elif char == "*":
            stars_end = index
            while stars_end < size and pattern[stars_end] == "*":
                stars_end += 1
            if stars_end - index == 1:
                out.append("[^/]*")
            elif at_segment_start and pattern.startswith("/", stars_end):
                out.append(_ANY_DIRS)
                index = stars_end + 1
                continue  # still at the start of a segment
            elif pattern.startswith("/", stars_end):
                # `**/` after other text (`*:**/.env`, a git REV:path) is any text that ends
                # a folder, or none: zero folders too, as at a segment's start
                out.append("(?:.*/)?")
                index = stars_end + 1
                continue
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


# extglob's pattern lists: `@(a|b)` one of them, `?(a|b)` at most one, `*(a|b)` any number,
# `+(a|b)` at least one (a `|` list needs no comma, so it fits a list setting's item)
_EXTGLOB = {"@": "", "?": "?", "*": "*", "+": "+"}


def _extglob(pattern: str, index: int, segment_start: bool) -> tuple[str, int]:
    """`@(a|b)`, `?(a|b)`, `*(a|b)` or `+(a|b)` starting at `index`."""
    repeat = _EXTGLOB[pattern[index]]
    options: list[str] = []
    index += 2
    while True:
        regex, index = _sequence(
            pattern, index, nested=True, segment_start=segment_start, stops="|)"
        )
        options.append(regex)
        if index >= len(pattern):
            raise ValueError("unclosed `(` in glob")
        if pattern[index] == ")":
            return "(?:" + "|".join(options) + ")" + repeat, index + 1
        index += 1  # the `|`


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


# -- `!(a|b)`: any text within a segment that matches none of the patterns ---------------------
#
# bash's extglob negation, for globs that name a family of files but its committed templates
# (`.env.!(example|sample)`) or a key but its public half (`id_rsa!(*.pub)`): one regex, so that
# a list of paths is tested path by path. RE2 has no look-around, so the complement is built:
# the patterns' automaton, made deterministic over the characters they name (and one symbol for
# every other character but `/`), its accepting states flipped, and read back as a regex.

_OTHER = ""  # the symbol of every character but `/` that no pattern names
Atom = tuple[frozenset[str], bool] | None  # a character set (negated or not); None is `*`


def _not_any(pattern: str, index: int) -> tuple[str, int]:
    """`!(p|q|…)` starting at `index` (the `!`) as a regex group."""
    end = pattern.find(")", index + 2)
    if end < 0:
        raise ValueError("unclosed `!(` in glob")
    alternatives = [_atoms(text) for text in pattern[index + 2 : end].split("|")]
    return "(?:" + _complement(alternatives) + ")", end + 1


def _atoms(text: str) -> list[Atom]:
    """One pattern of a `!( … )`: literals, `?`, `*` and classes, within one segment."""
    out: list[Atom] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "*":
            if not out or out[-1] is not None:
                out.append(None)
            i += 1
        elif char == "?":
            out.append((frozenset(), True))
            i += 1
        elif char == "[":
            members, negated, i = _class_members(text, i)
            out.append((members, negated))
        elif char == "\\" and i + 1 < len(text):
            out.append((frozenset(text[i + 1]), False))
            i += 2
        elif char in "/{}[]\\!(":
            raise ValueError(f"`{char}` inside `!( … )` in glob: only patterns within a segment")
        else:
            out.append((frozenset(char), False))
            i += 1
    return out


def _class_members(text: str, index: int) -> tuple[frozenset[str], bool, int]:
    """The characters of `[…]` / `[!…]` at `index`, ranges spelled out."""
    start = index + 1
    negated = start < len(text) and text[start] in "!^"
    if negated:
        start += 1
    end = start + 1 if start < len(text) and text[start] == "]" else start
    while end < len(text) and text[end] != "]":
        end += 1
    if end >= len(text):
        raise ValueError("unclosed `[` in glob")
    body, members = text[start:end], set[str]()
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            low, high = body[k], body[k + 2]
            if low > high:
                raise ValueError(f"bad range `{body[k : k + 3]}` in glob")
            members.update(chr(c) for c in range(ord(low), ord(high) + 1))
            k += 3
        else:
            members.add(body[k])
            k += 1
    members.discard("/")
    return frozenset(members), negated, end + 1


def _complement(alternatives: list[list[Atom]]) -> str:
    """A regex for the runs of characters but `/` that no alternative matches."""
    alphabet = [*sorted({c for atoms in alternatives for a in atoms if a for c in a[0]}), _OTHER]

    def closure(states: set[tuple[int, int]]) -> frozenset[tuple[int, int]]:
        todo, seen = list(states), set(states)
        while todo:
            n, k = todo.pop()
            if k < len(alternatives[n]) and alternatives[n][k] is None and (n, k + 1) not in seen:
                seen.add((n, k + 1))
                todo.append((n, k + 1))
        return frozenset(seen)

    def step(states: frozenset[tuple[int, int]], symbol: str) -> frozenset[tuple[int, int]]:
        out: set[tuple[int, int]] = set()
        for n, k in states:
            if k >= len(alternatives[n]):
                continue
            atom = alternatives[n][k]
            if atom is None:
                out.add((n, k))
            elif (symbol in atom[0]) != atom[1]:
                out.add((n, k + 1))
        return closure(out)

    start = closure({(n, 0) for n in range(len(alternatives))})
    ids: dict[frozenset[tuple[int, int]], int] = {start: 0}
    edges: dict[tuple[int, int], set[str]] = {}
    todo = [start]
    while todo:
        states = todo.pop()
        for symbol in alphabet:
            target = step(states, symbol)
            if target not in ids:
                ids[target] = len(ids)
                todo.append(target)
            edges.setdefault((ids[states], ids[target]), set()).add(symbol)
    # the complement accepts where no alternative is complete
    accepting = {i for s, i in ids.items() if not any(k == len(alternatives[n]) for n, k in s)}
    return _eliminate(*_minimal(len(ids), edges, accepting, alphabet), alphabet)


def _minimal(
    size: int, edges: dict[tuple[int, int], set[str]], accepting: set[int], alphabet: list[str]
) -> tuple[int, dict[tuple[int, int], set[str]], set[int]]:
    """The same automaton with equivalent states merged (Moore's partition refinement), so
    that the regex read back is small: every state that can no longer reach a pattern's end is
    one state."""
    move = {(p, symbol): q for (p, q), symbols in edges.items() for symbol in symbols}
    block = {state: int(state in accepting) for state in range(size)}
    while True:
        signature = {
            state: (block[state], *(block[move[(state, c)]] for c in alphabet))
            for state in range(size)
        }
        numbers: dict[tuple[int, ...], int] = {}
        for state in range(size):  # state 0 (the start) keeps block 0
            numbers.setdefault(signature[state], len(numbers))
        refined = {state: numbers[signature[state]] for state in range(size)}
        if len(numbers) == len(set(block.values())):
            break
        block = refined
    merged: dict[tuple[int, int], set[str]] = {}
    for (p, q), symbols in edges.items():
        merged.setdefault((refined[p], refined[q]), set()).update(symbols)
    return len(numbers), merged, {refined[state] for state in accepting}


def _symbols_regex(symbols: set[str], alphabet: list[str]) -> str:
    def esc(c: str) -> str:
        return "\\" + c if c in _CLASS_SPECIAL or c == "-" else c

    if _OTHER in symbols:
        rest = [c for c in alphabet if c != _OTHER and c not in symbols]
        return "[^/" + "".join(esc(c) for c in rest) + "]"
    chars = sorted(symbols)
    if len(chars) == 1:
        return _literal(chars[0])
    return "[" + "".join(esc(c) for c in chars) + "]"


def _eliminate(
    size: int, edges: dict[tuple[int, int], set[str]], accepting: set[int], alphabet: list[str]
) -> str:
    """The regex of an automaton (states 0..size-1, 0 the start), by state elimination."""
    begin, final = size, size + 1
    label: dict[tuple[int, int], str] = {
        pair: _symbols_regex(symbols, alphabet) for pair, symbols in edges.items()
    }
    label[(begin, 0)] = ""
    for state in accepting:
        label[(state, final)] = ""

    def union(a: str | None, b: str) -> str:
        return b if a is None or a == b else f"(?:{a}|{b})"

    def loop(r: str | None) -> str:
        if not r:
            return ""
        return r + "*" if len(r) == 1 or _one_class(r) else f"(?:{r})*"

    left = set(range(size))
    while left:
        # the state with the fewest and shortest paths through it first: the regex stays small
        ins_of: dict[int, list[int]] = {}
        outs_of: dict[int, list[int]] = {}
        for (p, q), r in label.items():
            if p != q:
                ins_of.setdefault(q, []).append(len(r) + 1)
                outs_of.setdefault(p, []).append(len(r) + 1)
        costs: dict[int, tuple[int, int]] = {}
        for state in left:
            came, went = ins_of.get(state, []), outs_of.get(state, [])
            costs[state] = (
                len(came) * len(went),
                sum(came) * len(went) + sum(went) * len(came),
            )
        k = min(left, key=costs.__getitem__)
        left.discard(k)
        through = loop(label.pop((k, k), None))
        ins = [(p, r) for (p, q), r in label.items() if q == k]
        outs = [(q, r) for (p, q), r in label.items() if p == k]
        for pair in [(p, k) for p, _ in ins] + [(k, q) for q, _ in outs]:
            label.pop(pair, None)
        for p, into in ins:
            for q, out in outs:
                label[(p, q)] = union(label.get((p, q)), _group(into) + through + _group(out))
    return label.get((begin, final), "[^\\s\\S]")


def _one_class(r: str) -> bool:
    """`r` is a single character class (`[^/a]`), which `*` repeats as a whole."""
    if not r.startswith("["):
        return False
    i = 1
    while i < len(r) and r[i] != "]":
        i += 2 if r[i] == "\\" else 1
    return i == len(r) - 1


def _group(r: str) -> str:
    """`r` safe to concatenate: one with an alternation in it gets a group of its own."""
    return f"(?:{r})" if "|" in r else r
