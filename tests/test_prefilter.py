"""The regex prefilter never rules out a string the regex matches."""

from __future__ import annotations

import random
import re
from pathlib import Path
from re import _parser as sre
from typing import Any

import pytest

from agentstyle.policy import retree
from agentstyle.policy.prefilter import (
    SEPARATOR,
    Prefilter,
    _flags,
    any_literal,
    required_literal,
    unquoted,
)

LIBRARY = Path(__file__).resolve().parent.parent / "agentstyle" / "library"

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
    # a case-insensitive group: its literals and the others, all tested without case
    r"(?i:claude)|style": ["claude", "style"],
    r"(?i:claude)|Style|(?:x/set)": ["claude", "style", "x/set"],
    r"(abc)+x|defg": ["abc", "defg"],
    r"(abc)*x|defg": ["defg", "x"],
    r"(abc)*|defg": None,
    # A path's components: the longest that is no common word of commands (python, bin).
    r"/+work/+(\./+)*app/+(\./+)*\.venv/+(\./+)*bin/+(\./+)*python3\.11": [".venv"],
    r"/+opt/+py/+bin/+python|/+srv/+(\./+)*tools/+node": ["opt", "tools"],
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
    pieces = [*literals, "rm ", "mv ", ".clau", "CLAUDE", "Style", "x/settings", "abcab", "def"]
    for _ in range(3000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        s += rng.choice(pieces) + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        if rx.search(s):
            hay = s.lower() if pre.case_insensitive else s
            assert any(lit in hay for lit in literals), (pattern, s)


SECOND = """\
spec: style/v0.3
name: second
version: 1.0.0
description: a regex with a short required literal and a set of longer ones
rules:
  - id: no-git-on-state
    target: tool
    tool: shell
    action: block
    when: 'tool.input.command shell_regex r"^git (checkout|rm) .*(\\.style|style\\.lock\\.yaml)"'
    text: Leave STYLE's files alone.
"""


def test_a_required_literal_and_a_set_are_both_tested(tmp_path: Path) -> None:
    """`git` alone would send every git command to the regex: the index keeps the set of
    names one of which a match needs as a second test, and the verdicts stay the regex's."""
    from agentstyle.evaluator.compiled import compile_checked
    from agentstyle.evaluator.evaluate import decide
    from agentstyle.evaluator.store import memory_store, replace_policy
    from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE_CODE

    (tmp_path / "second").mkdir()
    (tmp_path / "second" / "STYLE.yaml").write_text(SECOND, encoding="utf-8")
    db = memory_store()
    replace_policy(db, compile_checked([str(tmp_path / "second")], ["claude-code"]).rows)
    rows = db.execute(
        "SELECT DISTINCT literal, any_literals FROM match_rows WHERE rule_id = ?",
        ["second/no-git-on-state"],
    ).fetchall()
    assert rows == [("git ", [".style", "style.lock.yaml"])]
    verdicts = {}
    for command in (
        "git checkout -- .style/style.duckdb",
        "git rm style.lock.yaml",
        "git status",
        "git checkout main",
        "echo .style",
    ):
        payload = {
            "session_id": "s",
            "cwd": "/p",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "t",
        }
        [e] = decide(db, [CLAUDE_CODE.normalize(payload, "PreToolUse")])
        verdicts[command] = e.decision.verdict
    assert verdicts == {
        "git checkout -- .style/style.duckdb": "block",
        "git rm style.lock.yaml": "block",
        "git status": None,
        "git checkout main": None,
        "echo .style": None,
    }


def test_besides_the_required_literal_the_set_is_another() -> None:
    # `grep ` is required, but every grep call holds it: the set of names is the second test
    pattern = r"^grep (\S+ )*(\S*/)?(\.env|id_rsa|\.npmrc)( |$)"
    assert required_literal(pattern) == Prefilter("grep ", False)
    assert any_literal(pattern) == Prefilter("grep ", False)
    got = any_literal(pattern, besides="grep ")
    assert got is not None and sorted(got.literal.split(SEPARATOR)) == [".env", ".npmrc", "id_rsa"]
    # with no other set, the required one stays the answer
    assert any_literal(r"^grep \S+$", besides="grep ") == Prefilter("grep ", False)


def _plain(tree: Any) -> Any:
    """A parse tree as nested lists and tuples (the standard parser's `SubPattern`s, lists)."""
    if isinstance(tree, list | sre.SubPattern):
        return [_plain(x) for x in tree]
    if isinstance(tree, tuple):
        return tuple(_plain(x) for x in tree)
    return tree


def shipped_patterns(tmp_path: Path) -> list[str]:
    """The regexes STYLE ships: the built-in self-protection as installed in a project, and
    every bundled package's."""
    from agentstyle.install.selfprotect import package_text, protected_for

    texts = [package_text(protected_for(tmp_path, {}))]
    texts += [p.read_text("utf-8") for p in sorted(LIBRARY.rglob("STYLE.yaml"))]
    found = {m for t in texts for m in re.findall(r'regex r"((?:[^"\\]|\\.)*)"', t)}
    # a package setting as install puts it in (a group of its value); RE2's `\\Q…\\E` as the
    # escaped text it stands for; a leading flag group aside, as any_literal reads them
    found = {unquoted(SETTING.sub("(?:s)", pattern)) for pattern in found}
    return sorted(stripped[0] for stripped in map(_flags, found) if stripped)


SETTING = re.compile(r"\{\{settings\.[A-Za-z_][A-Za-z0-9_]*\}\}")


RETREE_CASES = [
    r"abc|abd",  # the shared prefix moves out, the rest becomes a set
    r"(?:ab|ac)d",  # a plain group is unpacked into its place
    r"a(?:bc)+d",  # and a repeated one is the repeat's body
    r"(?P<x>a)|[.]|[^b]|[a-c\]-]|\x41\u0042|\s\S\d\b",
    r"x{2}y{1,}z{,3}w*?v+?",
    r"(?i:ab)(?-i:cd)(?s:.)",
    r"[]a]|[^]b]",
]


@pytest.mark.parametrize("pattern", RETREE_CASES)
def test_the_fast_reader_gives_the_standard_tree(pattern: str) -> None:
    assert _plain(retree.parse(pattern)) == _plain(sre.parse(pattern))


@pytest.mark.parametrize("pattern", [r"a{x", r"(?=a)b", r"(a)\1", r"\0", r"a**", r"(?x)a b"])
def test_what_the_fast_reader_leaves_to_the_standard_parser(pattern: str) -> None:
    with pytest.raises(retree.Unsupported):
        retree.parse(pattern)


def test_every_shipped_pattern_reads_as_the_standard_parser_reads_it(tmp_path: Path) -> None:
    """The literals any_literal finds come from the fast reader for nearly every pattern
    STYLE ships (what it leaves, the standard parser reads), and its tree is the standard one."""
    patterns = shipped_patterns(tmp_path)
    assert len(patterns) > 50
    left = []
    for pattern in patterns:
        try:
            fast = retree.parse(pattern)
        except retree.Unsupported:
            left.append(pattern)
            continue
        assert _plain(fast) == _plain(sre.parse(pattern)), pattern
    # only a flag group past the start, which the standard parser refuses too
    for pattern in left:
        with pytest.raises(re.error, match="global flags not at the start"):
            sre.parse(pattern)
    assert len(left) <= 2, left


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"(?i)^user\.email=\Qbad@example.com\E>?$", "user.email=bad@example.com"),
        (r"^x=\Qa.b(c)|d", "x=a.b(c)|d"),  # no \E: to the end
        (r"^\Qab\E(x|y)\Qcde\E", "cde"),
    ],
)
def test_re2_literal_quotes_are_read_as_their_text(pattern: str, literal: str) -> None:
    found = required_literal(pattern)
    assert found is not None and found.literal.lower() == literal.lower()
