"""The loaded package as plain data: rules with every field's value and where it was written."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.policy.yamlpos import YNode
from agentstyle.source import Span


@dataclass(slots=True)
class FieldValue:
    """One rule field as written; `origin` tells which layer of the precedence set it."""

    value: Any
    node: YNode
    origin: str  # defaults | front-matter | override | inline

    @property
    def span(self) -> Span:
        return self.node.span


@dataclass(slots=True)
class Rule:
    id: str
    span: Span  # where the rule is declared (inline item, or the rule file's first line)
    fields: dict[str, FieldValue]
    body: str
    body_node: YNode  # locates offsets of the body in its file
    order: int
    source: str  # display path of the file that declares the rule
    rule_file: str | None = None  # path under rules/ for rule-file rules

    def get(self, name: str, default: Any = None) -> Any:
        fv = self.fields.get(name)
        return fv.value if fv is not None else default

    def span_of(self, name: str) -> Span:
        fv = self.fields.get(name)
        return fv.span if fv is not None else self.span


@dataclass(slots=True)
class NativeHook:
    id: str
    event: str
    command: str
    matcher: str | None
    timeout: int | None
    harness: str | None
    span: Span


@dataclass(slots=True)
class SettingDecl:
    name: str
    default: Any
    description: str
    type: str
    values: list[Any]
    span: Span
    has_default: bool


@dataclass(slots=True)
class ExceptionDecl:
    """`exceptions:` in a package: a rule of an installed package (`pkg/rule`) narrowed where
    `unless` holds (docs/packages.md#exceptions)."""

    rule: str  # the qualified id of the rule it narrows
    unless: YNode  # the condition, as written (an expression or a mapping, like `when`)
    reason: str
    span: Span  # the entry
    rule_span: Span  # its `rule`


@dataclass(slots=True)
class Package:
    name: str
    version: str
    description: str
    root: Path
    manifest: str  # display path of STYLE.yaml (or the single-file package)
    priority: int = 50
    per_rule: int = 400
    per_event: int = 1200
    allow_code: bool = False  # its refusals offer `style allow CODE` (evaluator/allowances.py)
    settings: list[SettingDecl] = field(default_factory=list)
    requires: dict[str, Any] = field(default_factory=dict)
    rules: list[Rule] = field(default_factory=list)
    native_hooks: list[NativeHook] = field(default_factory=list)
    exceptions: list[ExceptionDecl] = field(default_factory=list)
    digest: str = ""
    single_file: bool = False
    manifest_span: Span | None = None
