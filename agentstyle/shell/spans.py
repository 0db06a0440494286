"""Where each simple command of a command line stands in its text: what a rule's fix rewrites.

A fix (docs/design/runtime.md#fixes) replaces text inside the simple commands a refusing rule
matched and keeps every other byte of the line as written: quoting, `cd x && …`, pipes,
comments. So it needs the place of each simple command in the original text, not the
normalized element of `shell.commands`. Only commands written in the line itself have a place:
one inside a quoted string that a shell runs later (`bash -c '…'`, backticks, `eval`) is
parsed from a copy of that string and is left out, so a fix never rewrites text it cannot map
back byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator

from agentstyle.shell.syntax import parse
from agentstyle.shell.tree import (
    AndOr,
    Case,
    Cond,
    Coproc,
    For,
    FuncDef,
    Group,
    If,
    Loop,
    Node,
    Pipeline,
    ProcSub,
    Seq,
    Simple,
    Sub,
    Subshell,
    Word,
)


def simple_command_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every simple command written in `text`, in text order, from its first
    word or assignment to the end of its last word or redirection target; nested ones (inside
    `$(…)`, `( … )`, `{ …; }`, `if` and loop bodies) included. Empty when the text did not
    parse cleanly: a fix is applied only to a line the analysis took whole."""
    parsed = parse(text)
    if parsed.issues:
        return []
    spans = {span for span in _spans(parsed.tree, text) if span[1] > span[0]}
    return sorted(spans)


def _spans(node: Node | None, text: str) -> Iterator[tuple[int, int]]:
    if node is None:
        return
    if isinstance(node, Simple):
        words = [w for w in node.words if w.src is text]
        targets = [r.target for r in node.redirs if r.target is not None and r.target.src is text]
        ends = [w.end for w in words] + [t.end for t in targets]
        if ends and (not node.words or node.words[0].src is text):
            yield node.start, max(ends)
        for word in words + targets:
            yield from _word_spans(word, text)
        for assign in node.assigns:
            if assign.value is not None and assign.value.src is text:
                yield from _word_spans(assign.value, text)
        return
    for child in _children(node):
        yield from _spans(child, text)


def _word_spans(word: Word, text: str) -> Iterator[tuple[int, int]]:
    """The commands inside a word's `$(…)` and `<(…)` (backticks are parsed from a copy)."""
    for part in word.parts:
        if isinstance(part, (Sub, ProcSub)) and part.src is text:
            yield from _spans(part.body, text)


def _children(node: Node) -> list[Node | None]:
    if isinstance(node, Seq):
        return list(node.items)
    if isinstance(node, AndOr):
        return list(node.items)
    if isinstance(node, Pipeline):
        return list(node.cmds)
    if isinstance(node, (Subshell, Group)):
        return [node.body]
    if isinstance(node, If):
        out: list[Node | None] = []
        for cond, body in node.arms:
            out += [cond, body]
        return [*out, node.orelse]
    if isinstance(node, Loop):
        return [node.cond, node.body]
    if isinstance(node, For):
        return [node.body]
    if isinstance(node, Case):
        return [body for _patterns, body in node.arms]
    if isinstance(node, (FuncDef, Coproc)):
        return [node.body]
    if isinstance(node, Cond):
        return []
    return []
