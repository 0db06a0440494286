"""The one `from` entry an import adds to STYLE.yaml, as a minimal text edit (or a new file)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from agentstyle.diagnostics import StyleError
from agentstyle.globs import glob_to_regex
from agentstyle.policy.yamlpos import YamlError, YMap, YNode, YSeq, load_yaml

NEW_MANIFEST = """\
spec: style/v0.3
name: {name}
version: 0.1.0
description: Rules imported with style import
rules:
  - from: {pattern}
"""


@dataclass(slots=True)
class ManifestPlan:
    text: str  # the STYLE.yaml text after the import
    action: str  # created | added | present | covered
    covering: str | None = None  # the existing `from` glob that already selects the files
    overrides: tuple[str, ...] = ()  # fields that covering entry overrides


def _existing_from(rules: YSeq) -> list[tuple[str, tuple[str, ...]]]:
    out = []
    for item in rules.nodes:
        if isinstance(item, YMap) and isinstance(item.get("from"), YNode):
            value = item.items["from"][1].value
            if isinstance(value, str):
                out.append((value.strip(), tuple(k for k in item if k != "from")))
    return out


def _normalized(glob: str) -> str:
    g = glob.strip()
    while g.startswith("./"):
        g = g[2:]
    return g


def plan_manifest(text: str | None, name: str, pattern: str, rels: list[str]) -> ManifestPlan:
    """How STYLE.yaml gets a `from: pattern` entry selecting `rels` (paths of rule files)."""
    if text is None:
        return ManifestPlan(NEW_MANIFEST.format(name=name, pattern=pattern), "created")
    try:
        top = load_yaml(text, "STYLE.yaml")
    except YamlError as exc:
        raise StyleError(f"STYLE.yaml:{exc.span.line}: {exc.message}") from None
    if not isinstance(top, YMap):
        raise StyleError("STYLE.yaml is not a mapping of package fields; fix it before importing")
    rules = top.get("rules")
    if isinstance(rules, YSeq):
        for glob, overrides in _existing_from(rules):
            if _normalized(glob) == pattern:
                return ManifestPlan(text, "present", glob, overrides)
        for glob, overrides in _existing_from(rules):
            try:
                regex = re.compile(glob_to_regex(_normalized(glob)))
            except (ValueError, re.error):
                continue
            hits = [r for r in rels if regex.fullmatch(r)]
            if rels and len(hits) == len(rels):
                return ManifestPlan(text, "covered", glob, overrides)
            if hits:
                raise StyleError(
                    f"`from: {glob}` in STYLE.yaml selects some imported files but not all; "
                    f"narrow it or add `from: {pattern}` in its place"
                )
    new = _insert(text, top, rules, pattern)
    _check(text, new, pattern)
    return ManifestPlan(new, "added")


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _offset(lines: list[str], line: int, column: int) -> int:
    """Character offset of a 1-based line and column in the text split by `keepends` lines."""
    return sum(len(x) for x in lines[: line - 1]) + column - 1


def _insert(text: str, top: YMap, rules: YNode | None, pattern: str) -> str:
    nl = _newline(text)
    lines = text.splitlines(keepends=True)
    if rules is None:
        tail = "" if not text or text.endswith("\n") else nl
        return f"{text}{tail}rules:{nl}  - from: {pattern}{nl}"
    if isinstance(rules, YSeq) and rules.end is not None and _is_flow(text, lines, rules):
        end = _offset(lines, rules.end.line, rules.end.column)
        close = text.rfind("]", 0, end)
        entry = f"{{from: {pattern}}}"
        sep = ", " if rules.nodes else ""
        return text[:close] + sep + entry + text[close:]
    if isinstance(rules, YSeq) and rules.nodes:
        first = rules.nodes[0].span.line
        dash_col = len(lines[first - 1]) - len(lines[first - 1].lstrip(" "))
        last = first
        for index in range(first, len(lines)):
            content = lines[index].rstrip("\r\n")
            stripped = content.lstrip(" ")
            if not stripped or stripped.startswith("#"):
                continue
            indent = len(content) - len(stripped)
            if indent > dash_col or (indent == dash_col and stripped.startswith("-")):
                last = index + 1
                continue
            break
        entry = f"{' ' * dash_col}- from: {pattern}{nl}"
        before = "".join(lines[:last])
        if before and not before.endswith("\n"):
            before += nl
        return before + entry + "".join(lines[last:])
    if rules.value is None:
        key_line = top.key_span("rules").line
        if lines[key_line - 1].rstrip("\r\n").rstrip().endswith(":"):
            before = "".join(lines[:key_line])
            if not before.endswith("\n"):
                before += nl
            return before + f"  - from: {pattern}{nl}" + "".join(lines[key_line:])
    raise StyleError(
        f"cannot add `- from: {pattern}` to `rules` in STYLE.yaml automatically; add it yourself"
    )


def _is_flow(text: str, lines: list[str], rules: YSeq) -> bool:
    start = _offset(lines, rules.span.line, rules.span.column)
    return text[start : start + 1] == "["


def _check(old: str, new: str, pattern: str) -> None:
    """The edit added exactly one entry and changed nothing else the loader reads."""
    try:
        before = yaml.safe_load(old) or {}
        after = yaml.safe_load(new) or {}
    except yaml.YAMLError:
        after = None
    ok = isinstance(after, dict) and isinstance(before, dict)
    if ok:
        assert isinstance(after, dict) and isinstance(before, dict)
        old_rules = before.get("rules") or []
        ok = {k: v for k, v in after.items() if k != "rules"} == {
            k: v for k, v in before.items() if k != "rules"
        } and after.get("rules") == [*old_rules, {"from": pattern}]
    if not ok:
        raise StyleError(
            f"cannot add `- from: {pattern}` to `rules` in STYLE.yaml automatically; "
            "add it yourself"
        )
