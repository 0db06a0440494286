"""The bundled library is policy a person reads (docs/writing-a-guard.md): every guard rule
says in words what it refuses and lets through (`reason`), its conditions are written by hand
(no generated lines), and no pattern in it is longer than a person reads at a glance."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from agentstyle.install.library import LIBRARY

MAX_PATTERN_CHARS = 200
# A string literal of the condition language: "…", '…', r"…" (docs/conditions.md).
LITERAL = re.compile(r"""r?"((?:[^"\\]|\\.)*)"|r?'((?:[^'\\]|\\.)*)'""")
EXPRESSION_KEYS = ("when", "unless", "where", "expr")


def _documents() -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in sorted(LIBRARY.rglob("*")):
        if path.name == "STYLE.yaml":
            yield path, yaml.safe_load(path.read_text("utf-8"))
        elif path.suffix == ".md" and path.parent.name == "rules":
            text = path.read_text("utf-8")
            if text.startswith("---"):
                yield path, {"rules": [yaml.safe_load(text.split("---", 2)[1])]}


def _patterns(node: Any, key: str = "") -> Iterator[str]:
    """Every pattern a condition under `node` writes: a mapping item's `pattern`, and each
    string literal of an expression (`when`, `unless`, a command's `where`, `expr`)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _patterns(v, str(k))
    elif isinstance(node, list):
        for v in node:
            yield from _patterns(v, key)
    elif isinstance(node, str) and key == "pattern":
        yield node
    elif isinstance(node, str) and key in EXPRESSION_KEYS:
        yield from literals(node)


def literals(expression: str) -> list[str]:
    return [a or b for a, b in LITERAL.findall(expression)]


def test_no_generated_lines() -> None:
    marked = [
        f"{p.relative_to(LIBRARY)}:{n}"
        for p in sorted(LIBRARY.rglob("*"))
        if p.is_file() and p.suffix in (".yaml", ".md")
        for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
        if "# gen:" in line
    ]
    assert marked == []


def test_no_pattern_longer_than_a_person_reads() -> None:
    long = [
        f"{path.relative_to(LIBRARY)} {item.get('id') or item.get('rule')}: {len(p)} characters"
        for path, doc in _documents()
        for key in ("rules", "exceptions")
        for item in doc.get(key) or []
        for p in _patterns(item)
        if len(p) > MAX_PATTERN_CHARS
    ]
    assert long == []


def test_every_guard_rule_says_what_it_refuses() -> None:
    silent = [
        f"{path.parent.name}/{rule.get('id')}"
        for path, doc in _documents()
        if path.name == "STYLE.yaml" and path.parent.name.startswith("guard-")
        for rule in doc.get("rules") or []
        if "id" in rule and len(str(rule.get("reason") or "").split()) < 8
    ]
    assert silent == []


def test_the_reader_finds_the_patterns_a_rule_writes() -> None:
    rule = {
        "when": 'command "rm" where (path regex r"' + "a" * 201 + '")',
        "unless": {"any": [{"field": "x", "op": "regex", "pattern": "b" * 7}]},
    }
    assert sorted(len(p) for p in _patterns(rule)) == [2, 7, 201]


# A redact rule's shapes are written one a line (docs/writing-a-guard.md, "Many shapes"): a
# line of its condition, and each of its patterns, a person reads at a glance.
MAX_REDACT_LINE = 150
MAX_REDACT_PATTERN = MAX_PATTERN_CHARS


def test_redact_rules_write_their_shapes_one_a_line() -> None:
    long = [
        f"{path.relative_to(LIBRARY)} {rule['id']}: {len(text)} characters: {text[:40]}…"
        for path, doc in _documents()
        for rule in doc.get("rules") or []
        if rule.get("action") == "redact"
        for text, limit in [
            *((line, MAX_REDACT_LINE) for k in ("when", "unless") for line in _lines(rule.get(k))),
            *((p, MAX_REDACT_PATTERN) for p in (rule.get("redact") or {}).get("patterns") or []),
            *((p, MAX_REDACT_PATTERN) for p in [(rule.get("redact") or {}).get("pattern")] if p),
        ]
        if len(text) > limit
    ]
    assert long == []


def _lines(condition: Any) -> list[str]:
    return condition.splitlines() if isinstance(condition, str) else []
