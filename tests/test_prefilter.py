"""The regex prefilter never rules out a string the regex matches."""

from __future__ import annotations

import random
import re

import pytest

from agentstyle.policy.prefilter import SEPARATOR, any_literal, required_literal

CASES = {
    r"^git push .*(--force|-f)": "git push ",
    r"^rm .*-[a-zA-Z]*r[a-zA-Z]*f": "rm ",
    r"\.unwrap\(\)": ".unwrap()",
    r"(?i)drop\s+table": "table",
    r"^tool12 .*--danger": "--danger",
    r"a|b": None,
    r"(abc)+": None,
    r"ab?cdef": "cdef",
    r"abcd*e": "abc",
    r"x{0,3}yyyzz": "yyyzz",
    r"[abc]def": "def",
    r"\d+ items": " items",
    r"(?x)abc": None,
}


@pytest.mark.parametrize(("pattern", "literal"), list(CASES.items()))
def test_required_literal(pattern: str, literal: str | None) -> None:
    got = required_literal(pattern)
    assert (got.literal if got else None) == literal


@pytest.mark.parametrize("pattern", list(CASES))
def test_the_literal_appears_in_every_match(pattern: str) -> None:
    """Generate strings around the pattern's pieces; every regex match contains the literal."""
    pre = required_literal(pattern)
    if pre is None:
        return
    rng = random.Random(7)
    alphabet = "abcdefgirmstuxyz -.()0123456789"
    rx = re.compile(pattern)
    pieces = [pre.literal, "git push -f", "rm -rf x", ".unwrap()", "drop table", "tool12 --danger"]
    for _ in range(3000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        s += rng.choice(pieces) + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        if rx.search(s):
            hay = s.lower() if pre.case_insensitive else s
            assert pre.literal in hay, (pattern, s)


ANY_CASES = {
    r"(\S*/)?\.claude|(\S*/)?\.style": [".claude", ".style"],
    r"^(rm|mv)( \S+)* (x/settings\.json|\.style(/\S*)?)( |$)": [".style", "x/settings.json"],
    r"^(a|bcd)": ["a", "bcd"],  # short literals still rule rows out
    r"^(a?|bcd)": None,  # one branch needs nothing
    r"(?i:claude)|style": None,  # a case-insensitive group is not reasoned about
    r"(abc)+x|defg": ["abc", "defg"],
    r"(abc)*x|defg": ["defg", "x"],
    r"(abc)*|defg": None,
}


@pytest.mark.parametrize(("pattern", "literals"), list(ANY_CASES.items()))
def test_any_literal(pattern: str, literals: list[str] | None) -> None:
    got = any_literal(pattern)
    assert (got.literal.split(SEPARATOR) if got else None) == literals


@pytest.mark.parametrize("pattern", list(ANY_CASES))
def test_one_of_the_literals_appears_in_every_match(pattern: str) -> None:
    pre = any_literal(pattern)
    if pre is None:
        return
    literals = pre.literal.split(SEPARATOR)
    rng = random.Random(11)
    alphabet = "abcdefgrmvx /.-"
    rx = re.compile(pattern)
    pieces = [*literals, "rm ", "mv ", ".clau", "x/settings", "abcab", "def"]
    for _ in range(3000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        s += rng.choice(pieces) + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        if rx.search(s):
            assert any(lit in s for lit in literals), (pattern, s)
