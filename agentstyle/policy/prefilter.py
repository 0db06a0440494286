"""A required literal of a regex, so SQL can skip the regex where the literal is absent.

Evaluating a regular expression whose pattern is a column compiles it for every row; a cheap
`contains` test on a substring every match must include rules most rows out first (the idea
of RE2::Set and Aho-Corasick prefilters). The analysis is conservative: when unsure, no
literal, and the regex decides alone.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from agentstyle.policy import retree

SPECIAL = set(".^$*+?()[]{}|\\")
MIN_LITERAL = 3


@dataclass(frozen=True, slots=True)
class Prefilter:
    literal: str
    case_insensitive: bool


# RE2's literal quote: every character from `\\Q` to `\\E` (or the end) stands for itself
_QUOTE = re.compile(r"\\Q(.*?)(?:\\E|\Z)", re.S)


def unquoted(pattern: str) -> str:
    """`pattern` with RE2's `\\Q…\\E` written out as escaped characters, which Python's
    parser and the readers here take (a setting may go in as `\\Q{{settings.x}}\\E`)."""
    if "\\Q" not in pattern:
        return pattern
    return _QUOTE.sub(lambda m: re.escape(m.group(1)), pattern)


# A leading group that sets no flag for what follows it: `(?:…)`, `(?i:…)` (a list of patterns
# whose flags differ starts so: policy/re2.py `any_of`). The readers below see it as a group.
_SCOPED_GROUP = re.compile(r"\(\?[imsU]*:")


def _flags(pattern: str) -> tuple[str, bool] | None:
    """Strip a leading `(?flags)` group; None when flags we cannot reason about appear."""
    if not pattern.startswith("(?") or _SCOPED_GROUP.match(pattern):
        return pattern, False
    end = pattern.find(")")
    flags = pattern[2:end] if end > 0 else ""
    if not flags or not all(c in "imsU" for c in flags):
        return None
    return pattern[end + 1 :], "i" in flags


def required_literal(pattern: str) -> Prefilter | None:
    """The longest run of literal characters every match of `pattern` must contain."""
    found = required_runs(pattern)
    if found is None:
        return None
    runs, ci = found
    return Prefilter(max(runs, key=len), ci)


def required_runs(pattern: str) -> tuple[list[str], bool] | None:
    """Every run of at least MIN_LITERAL literal characters that each match of `pattern`
    contains (lower case when the pattern is case-insensitive), and whether it is; None when
    there is none. The index picks the run fewest of the policy's patterns share
    (sql/policy/index_match_rows.sql): a run shared by every rule filters nothing."""
    stripped = _flags(unquoted(pattern))
    if stripped is None:
        return None
    body, ci = stripped
    runs: list[str] = []
    current: list[str] = []
    depth = 0
    i = 0
    n = len(body)

    def close() -> None:
        if current:
            runs.append("".join(current))
            current.clear()

    while i < n:
        ch = body[i]
        literal: str | None = None
        if ch == "\\":
            if i + 1 >= n:
                return None
            nxt = body[i + 1]
            if nxt in SPECIAL or nxt in "/-_ '\"#%&,:;<=>@`~!":
                literal = nxt
            i += 2
        elif ch == "(":
            depth += 1
            close()
            i += 1
            continue
        elif ch == ")":
            depth -= 1
            close()
            i += 1
            continue
        elif ch == "|":
            if depth == 0:
                return None  # a top-level alternative need not contain any run
            i += 1
            continue
        elif ch == "[":
            close()
            j = i + 1
            if j < n and body[j] == "^":
                j += 1
            if j < n and body[j] == "]":
                j += 1
            while j < n and body[j] != "]":
                j += 2 if body[j] == "\\" else 1
            i = j + 1
            continue
        elif ch in ".^$":
            close()
            i += 1
            continue
        elif ch == "{":
            end = body.find("}", i)
            i = end + 1 if end > 0 else n
            continue
        elif ch in "*+?":
            i += 1
            continue
        else:
            literal = ch
            i += 1
        if depth > 0:
            continue  # inside a group: may be optional or one of several alternatives
        if literal is None:
            close()
            continue
        # A quantifier after the character decides whether it is required.
        q = body[i] if i < n else ""
        if q in ("*", "?") or (q == "{" and body[i : i + 3] in ("{0,", "{0}")):
            close()
        elif q in ("+", "{"):
            current.append(literal)
            close()
        else:
            current.append(literal)
    close()
    kept = list(dict.fromkeys(r.lower() if ci else r for r in runs if len(r) >= MIN_LITERAL))
    return (kept, ci) if kept else None


# A set of literals, one of which every match contains, is stored as one string joined by
# this separator (the `literal` column; the evaluation index splits it into `any_literals`:
# sql/policy/index_match_rows.sql).
SEPARATOR = "\x1f"
MAX_LITERALS = 64
# Words most shell commands contain (interpreters, system folders): as a path's one required
# literal they let nearly every command through to the regex, which DuckDB compiles per row
# (`/work/app/.venv/bin/python` needs `python`, `.venv`, `app`…: `.venv` rules out more).
COMMON_WORDS = frozenset(
    {"bin", "lib", "usr", "local", "share", "python", "python3", "node", "npm", "src", "tmp"}
)


@functools.lru_cache(maxsize=4096)
def any_literal(pattern: str, besides: str | None = None) -> Prefilter | None:
    """Literals one of which every match of `pattern` must contain, for a pattern with no
    single required literal: `(\\S*/)?\\.claude|(\\S*/)?\\.style` needs `.claude` or `.style`.
    With `besides` (the required literal, tested anyway), another set is chosen where there
    is one: `^grep .* (\\.env|id_rsa)` gives `.env` or `id_rsa`, not `grep ` again.

    The pattern is read with Python's parser (the RE2 subset STYLE accepts reads the same);
    a sequence needs what any one of its parts needs, an alternation the union of what each
    branch needs, a repeat what its body needs when it repeats at least once. Case-insensitive
    groups, and anything it cannot parse, give no literal.

    Remembered per pattern (the answer is immutable): reading the tree was a third of a
    compile, and one process compiles the same patterns again and again: `style install`
    and `sync` once per harness, the bundled library's patterns in every policy that uses it,
    the resident engine's rebuilds.
    """
    stripped = _flags(unquoted(pattern))
    if stripped is None:
        return None
    body, ci = stripped
    tree = parse_tree(body)
    if tree is None:
        return None
    try:
        found = _needs(list(tree), besides)
        if found is None and "(?" in body:
            # a case-insensitive part (`(?i:npm_…)|ghp_…`): its literals, all tested without
            # case, still rule out every row no match could be in
            found, ci = _needs(list(tree), besides, fold=True), True
    except RecursionError:
        return None
    if not found or len(found) > MAX_LITERALS:
        return None
    literals = sorted({s.lower() if ci else s for s in found})
    if any(SEPARATOR in s for s in literals):
        return None
    return Prefilter(SEPARATOR.join(literals), ci)


def parse_tree(body: str) -> list[Any] | None:
    """The standard parser's tree of `body`, from the fast reader where it can (policy/retree.py:
    the standard tokenizer was a quarter of `style install`); None when it does not parse."""
    try:
        return retree.parse(body)
    except retree.Unsupported:
        pass
    except RecursionError:
        return None
    try:
        return list(_parser().parse(body))
    except (re.error, RecursionError, OverflowError):
        return None


def _parser() -> Any:
    """The standard library's own regex parser (private, untyped; constants included)."""
    import importlib

    return importlib.import_module("re._parser")


def _needs(
    items: list[tuple[Any, Any]], besides: str | None = None, fold: bool = False
) -> frozenset[str] | None:
    """What a sequence of parsed items needs (None: nothing known); at the top, a set other
    than the one literal run holding `besides` when there is another. With `fold`, the
    literals of case-insensitive groups too (the caller then tests them all without case)."""
    c = _parser()

    candidates: list[frozenset[str]] = []
    run: list[str] = []

    def close() -> None:
        # Any length will do: even one character rules rows out, and the choice below
        # prefers the longest.
        if run:
            candidates.append(frozenset(["".join(run)]))
        run.clear()

    for op, av in items:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        close()
        need: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            _group, add_flags, _del_flags, sub = av
            if fold or not add_flags & re.IGNORECASE:
                need = _needs(list(sub), fold=fold)
        elif op is c.BRANCH:
            branches = [_needs(list(b), fold=fold) for b in av[1]]
            if all(b is not None for b in branches):
                need = frozenset().union(*(b for b in branches if b is not None))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, _high, sub = av
            if low >= 1:
                need = _needs(list(sub), fold=fold)
        if need is not None and need and len(need) <= MAX_LITERALS:
            candidates.append(need)
    close()
    if besides is not None:
        others = [c for c in candidates if not (len(c) == 1 and besides in next(iter(c)))]
        candidates = others or candidates
    if not candidates:
        return None
    # The most selective: no common word, then its shortest literal longest, then the fewest
    # literals.
    return max(candidates, key=lambda s: (not _common(s), min(map(len, s)), -len(s)))


def _common(literals: frozenset[str]) -> bool:
    """Whether a set holds a word most commands contain (`python3.11` counts as `python`)."""
    return any(lit.lower().rstrip("0123456789.") in COMMON_WORDS for lit in literals)
