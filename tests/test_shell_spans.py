"""Where simple commands stand in a command line: the places a rule's fix may rewrite."""

from __future__ import annotations

import pytest

from agentstyle.shell.spans import simple_command_spans

CASES = [
    ("git push --force origin feat", ["git push --force origin feat"]),
    ("cd x && git push --force origin feat", ["cd x", "git push --force origin feat"]),
    ("git push -f origin feat | tee log  # note", ["git push -f origin feat", "tee log"]),
    ("echo $(git push -f) > out", ["echo $(git push -f) > out", "git push -f"]),
    ("FOO=1 git push -f", ["FOO=1 git push -f"]),
    ("if true; then git push -f; fi", ["true", "git push -f"]),
    ("(cd a; rm -rf b) &", ["cd a", "rm -rf b"]),
    ("x=$(rm -rf y)", ["rm -rf y"]),
    # a string a shell runs later is parsed from a copy: only the outer command has a place
    ('bash -c "git push -f"', ['bash -c "git push -f"']),
    ("echo `rm -rf z`", ["echo `rm -rf z`"]),
    ("git   push  'origin'  --force", ["git   push  'origin'  --force"]),
]


@pytest.mark.parametrize(("text", "wanted"), CASES, ids=[c[0] for c in CASES])
def test_each_simple_command_is_found_where_it_is_written(text: str, wanted: list[str]) -> None:
    assert [text[a:b] for a, b in simple_command_spans(text)] == wanted


@pytest.mark.parametrize("text", ['echo "unterminated', "if true; then x", "a && "])
def test_a_line_that_needed_repairs_has_no_places(text: str) -> None:
    assert simple_command_spans(text) == []
