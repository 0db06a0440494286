"""The rows of the policy tables: one NamedTuple per table, its fields named as the columns."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple, get_args, get_type_hints

# Each class's fields are its table's columns, in the table's order (tests/test_rows.py holds
# it): the rows are stored by name (sql/policy/insert_<table>.sql), so a field that drifts from
# its column fails the test, not a later query.


class PackageRow(NamedTuple):
    name: str
    version: str
    priority: int
    source: str
    digest: str
    pkg_order: int  # evaluation order: priority desc, then name
    per_rule: int
    per_event: int
    allow_code: bool
    layer: str = "project"  # managed | user | project (docs/design/storage.md#layers)


class RuleRow(NamedTuple):
    rule_id: str  # qualified: package/rule
    package: str
    local_id: str
    target: str
    action: str
    timing: str | None  # `at`: before | after
    repeat: str | None
    fail: str
    refresh: int
    reinject: bool
    mode: str
    priority: int
    max_tokens: int
    enabled: bool
    decl_order: int  # position in its package
    rule_order: int  # global order: package order, then decl_order
    event: str | None
    sources: list[str]
    harnesses: list[str] | None  # when.harness; None: every harness
    body_template: str
    model_text_template: str | None
    is_static: bool
    has_condition: bool
    uses_rule_state: bool
    source_file: str
    source_line: int
    source_column: int
    fix_pattern: str | None  # `fix.replace` (docs/design/runtime.md#fixes); None: no fix
    fix_template: str | None  # `fix.with`
    layer: str = "project"  # its package's layer: managed | user | project
    # `redact.pattern`, or `redact.patterns` joined by vocabulary.REDACT_SEPARATOR
    # (docs/actions.md#redact); None: no redaction
    redact_pattern: str | None = None
    redact_with: str | None = None  # `redact.with`
    # `check` (docs/observers.md#checks); None: the rule runs no check
    check_run: str | None = None
    check_prompt: str | None = None
    check_timeout_s: float | None = None
    check_cooldown_s: float | None = None
    # `redact.keep` as one RE2 alternation (docs/actions.md#keep); None: every match goes
    redact_keep: str | None = None


class RuleToolRow(NamedTuple):
    rule_id: str
    kind: str  # tool | native | mcp | skill
    pattern: str
    regex: str


class ConditionRow(NamedTuple):
    rule_id: str
    node_id: int
    parent_id: int | None
    kind: str  # pred | and | or | not
    field: str | None
    lookup_field: str | None
    field_regex: str | None
    op: str | None
    base_op: str | None
    pattern: str | None
    regex: str | None
    num: float | None
    list_values: list[str] | None
    line: int
    col: int
    literal: str | None
    literal_ci: bool
    literals: list[str] | None
    any_literal: str | None


class ConditionClauseRow(NamedTuple):
    rule_id: str
    clause_id: int
    node_id: int
    negated: bool
    clause_size: int
    shadow: bool = False  # a clause of the condition as written, before its exceptions
    # an inlined command condition's clause (policy/lowercommands.py): the name that routes it
    # to a simple command's own events, and which of them (cmd, cmdpath, cmdfrom, cmdfrompath)
    route_head: str | None = None
    route_kind: str | None = None


class TemplateRow(NamedTuple):
    template_id: str
    pos: int
    kind: str  # text | var
    text: str | None
    var: str | None
    default_value: str | None


class SettingRow(NamedTuple):
    package: str
    name: str
    value: str


class EntryRow(NamedTuple):
    rule_id: str
    harness: str
    point: str | None
    native_event: str | None
    matcher: str | None
    status: str
    reason: str | None
    effective_action: str
    effective_repeat: str | None
    capability: str | None
    check_s: float | None = None  # a check's background hook: its longest run (schema 015)
    prompt: str | None = None  # a `prompt` check's prompt


class ProgramGrammarRow(NamedTuple):
    program: str
    family: str
    grammar: str  # the program's entry of its family file, as JSON


class CommandHeadRow(NamedTuple):
    rule_id: str
    node_id: int
    head: str  # a program and its subcommand words; `*` for every command


class CommandLiteralRow(NamedTuple):
    rule_id: str
    node_id: int
    clause_id: int
    clause_size: int
    negated: bool
    kind: str  # opt | arg | sub | path | text | remote | head | never
    keys: list[str] | None
    regex: str | None
    equals: str | None
    equals_num: float | None
    one_of: list[str] | None
    num: float | None
    num_signs: list[int] | None
    # path: (role, tag, regex, negated) tests one path passes together
    path_tests: list[dict[str, Any]] | None
    line: int
    col: int


class RuleExceptionRow(NamedTuple):
    """Where a rule is narrowed: its own `unless`, or a package's `exceptions:` entry."""

    rule_id: str
    package: str  # the package that narrows it
    reason: str
    source_file: str
    source_line: int


@dataclass(slots=True)
class PolicyRows:
    """Rows per policy table, each field named as its table (and stored in this order)."""

    packages: list[PackageRow] = field(default_factory=list)
    rules: list[RuleRow] = field(default_factory=list)
    rule_tools: list[RuleToolRow] = field(default_factory=list)
    conditions: list[ConditionRow] = field(default_factory=list)
    condition_clauses: list[ConditionClauseRow] = field(default_factory=list)
    templates: list[TemplateRow] = field(default_factory=list)
    settings: list[SettingRow] = field(default_factory=list)
    entries: list[EntryRow] = field(default_factory=list)
    program_grammars: list[ProgramGrammarRow] = field(default_factory=list)
    command_heads: list[CommandHeadRow] = field(default_factory=list)
    command_literals: list[CommandLiteralRow] = field(default_factory=list)
    rule_exceptions: list[RuleExceptionRow] = field(default_factory=list)

    def tables(self) -> Iterator[tuple[str, tuple[str, ...], list[Any]]]:
        """(table, its columns, its rows) for every policy table."""
        for table in POLICY_TABLES:
            yield table, ROW_TYPES[table]._fields, getattr(self, table)


POLICY_TABLES = tuple(f.name for f in fields(PolicyRows))

# table → the class of its rows, as PolicyRows names it (`list[PackageRow]`)
ROW_TYPES: dict[str, type[NamedTuple]] = {
    table: get_args(hint)[0] for table, hint in get_type_hints(PolicyRows).items()
}
