"""The guard packages hold the patterns tests/guard_patterns.py builds, and those are cheap.

Every `pattern:` line marked `# gen: NAME` in agentstyle/library/*/STYLE.yaml must equal the
generated pattern (regenerate with `python tests/guard_patterns.py --write`). The complement
builders are checked against brute force. And since the evaluator compiles a regex for every
value it runs on (skipping values that lack the regex's required literal), a pattern without
such a literal must stay small: it runs on every element of every command.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
import yaml
from guard_patterns import PATTERNS, differences, marked_lines, not_prefixed, not_words

from agentstyle.policy.prefilter import any_literal, required_literal

LIBRARY = Path(__file__).resolve().parents[1] / "agentstyle" / "library"
# A pattern with no literal to test first runs on every element; this bounds its size.
MAX_UNFILTERED_CHARS = 1_400


def test_marked_patterns_are_generated() -> None:
    assert differences() == []
    names = {name for _path, _line, name, _body in marked_lines()}
    assert names == set(PATTERNS), "every generated pattern is used, and only those"


@pytest.mark.parametrize(
    "words",
    [["ab"], ["example", "sample", "template"], ["a", "ab", "abc", "b"], ["ls", "lsof", "l"]],
)
def test_not_words_is_the_complement(words: list[str]) -> None:
    complement = re.compile(not_words(words) + r"\Z")
    alphabet = [*sorted(set("".join(words))), "x"]
    for n in range(1, 6):
        for letters in itertools.product(alphabet, repeat=n):
            word = "".join(letters)
            assert bool(complement.match(word)) is (word not in words), word


@pytest.mark.parametrize("words", [["--include", "-g"], ["ab", "b"], ["a"]])
def test_not_prefixed_is_the_complement(words: list[str]) -> None:
    complement = re.compile(not_prefixed(words) + r"\Z")
    alphabet = [*sorted(set("".join(words))), "x"]
    for n in range(1, 5):
        for letters in itertools.product(alphabet, repeat=n):
            word = "".join(letters)
            assert bool(complement.match(word)) is (not word.startswith(tuple(words))), word


def _library_patterns() -> list[tuple[str, str]]:
    found = []
    for path in sorted(LIBRARY.glob("guard-*/STYLE.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for rule in doc["rules"]:
            when = rule.get("when")
            if isinstance(when, dict):
                for item in (when.get("any") or []) + (when.get("conditions") or []):
                    if item.get("op") in ("regex", "shell_regex"):
                        found.append((f"{path.parent.name}/{rule['id']}", item["pattern"]))
    return found


def test_unfiltered_patterns_stay_small() -> None:
    heavy = [
        f"{rule}: {len(pattern)} characters and no literal tested first"
        for rule, pattern in _library_patterns()
        if required_literal(pattern) is None
        and any_literal(pattern) is None
        and len(pattern) > MAX_UNFILTERED_CHARS
    ]
    assert heavy == []
