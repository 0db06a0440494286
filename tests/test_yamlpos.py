"""Every character of a scalar's value is located at the character of the file it was written
as: what a diagnostic inside a long condition or pattern points at."""

from __future__ import annotations

import pytest

from agentstyle.policy.yamlpos import YMap, load_yaml

SCALARS = {
    "literal": "when: |\n  a == 1\n    and b == 2\n\n  or c\n",
    "literal-strip": "when: |-\n  a == 1\n  and b\nnext: 1\n",
    "literal-keep": "when: |+\n  a == 1\n  and b\n\n\nnext: 1\n",
    "literal-trailing-blank": "when: |\n  x\n   \n  y\n",
    "folded": "when: >\n  a == 1\n  and b\n\n  c\n",
    "single": "when: 'it''s a \"test\"'\n",
    "double": 'when: "tab\\there \\u00e9 \\\\ end"\n',
    "plain": "when: a == 1 and b\n",
}


def char_at(text: str, line: int, column: int) -> str:
    return text.splitlines(keepends=True)[line - 1][column - 1]


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_each_character_is_located_where_it_was_written(name: str) -> None:
    text = SCALARS[name]
    doc = load_yaml(text, "p.yaml")
    assert isinstance(doc, YMap)
    node = doc.get("when")
    assert node is not None and isinstance(node.value, str)
    escapes = {"\t": "\\", "é": "\\"}  # an escape is located at its backslash
    for offset, ch in enumerate(node.value):
        span = node.locate(offset)
        written = char_at(text, span.line, span.column)
        if ch in "\n ":
            assert written in "\n ", (offset, span)  # a blank at a blank (folding moves them)
        else:
            assert written == escapes.get(ch, ch), (offset, ch, span)


def test_a_literal_block_locates_indented_lines_at_their_column() -> None:
    text = "rule:\n  when: |\n    a == 1\n      and b\n"
    doc = load_yaml(text, "p.yaml")
    assert isinstance(doc, YMap)
    rule = doc.get("rule")
    assert isinstance(rule, YMap)
    node = rule.get("when")
    assert node is not None
    value = node.value
    offset = value.index("and")
    span = node.locate(offset)
    assert (span.line, span.column) == (4, 7)
    final_newline = node.locate(len(value) - 1)
    assert (final_newline.line, final_newline.column) == (4, 12)
