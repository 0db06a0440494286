"""Walks over a condition tree: its leaves of one kind, and its disjunctive normal form.

The validator and the lowering share them (a rule's condition, a command condition's `where`,
an exception's): the normal form's clauses are those of which one must hold whole."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from agentstyle.grammar.ast import And, Node, Not, Or

L = TypeVar("L")
Clauses = list[list[tuple[L, bool]]]


def leaves(node: Node, kind: type[L] | tuple[type[L], ...]) -> list[L]:
    """The nodes of `kind` under `and`, `or` and `not`, in order; what stands inside another
    leaf (a command condition's `where`) is not walked."""
    if isinstance(node, kind):
        return [node]
    if isinstance(node, Not):
        return leaves(node.item, kind)
    if isinstance(node, (And, Or)):
        return [leaf for child in node.items for leaf in leaves(child, kind)]
    return []


def normal_form(
    node: Node,
    leaf: Callable[[Node], L | None],
    limit: int,
    too_complex: type[Exception],
    *,
    limit_alternatives: bool = False,
    negate: bool = False,
) -> Clauses[L]:
    """The clauses of (leaf, negated) whose one holding whole makes `node` hold (negated when
    `negate`): a `not` is pushed down to the leaves, an `and` is multiplied out. `leaf` gives a
    node's leaf value, None for `and`, `or` and `not` (it raises on a node that may not stand
    there). A product over `limit` clauses raises `too_complex`; with `limit_alternatives`, so
    does an `or` over it."""

    def walk(n: Node, negated: bool) -> Clauses[L]:
        found = leaf(n)
        if found is not None:
            return [[(found, negated)]]
        if isinstance(n, Not):
            return walk(n.item, not negated)
        if not isinstance(n, (And, Or)):
            raise TypeError(f"not a condition tree: {n!r}")
        conj = isinstance(n, And) != negated  # De Morgan: a negated `or` is an `and`
        parts = [walk(child, negated) for child in n.items]
        out: Clauses[L]
        if not conj:
            out = [clause for part in parts for clause in part]
        else:
            out = [[]]
            for part in parts:
                out = [a + b for a in out for b in part]
                if len(out) > limit:
                    raise too_complex
        if limit_alternatives and len(out) > limit:
            raise too_complex
        return out

    return walk(node, negate)
