"""The validator's checks of a rule's conditions, in each form `when` takes.

`when` in each of its forms (mapping items, expressions, `model`, `harness`, commands), the
predicates' fields, operators and values, the settings a condition reads, and what can never be
present where the rule is evaluated.

The validator is one class in parts (`validconditions` → `validtemplates` → `validate`),
each built on the one before."""

from __future__ import annotations

import fnmatch
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic, closest, did_you_mean, suggestion
from agentstyle.globs import glob_to_regex
from agentstyle.grammar.ast import (
    And,
    CommandItem,
    CommandPred,
    GrammarError,
    Node,
    Not,
    Or,
    Pred,
    Segment,
    Value,
)
from agentstyle.grammar.parse import Locate, parse_condition, parse_where
from agentstyle.grammar.transformer import operator_hint
from agentstyle.harnesses.facts import spec_for
from agentstyle.policy.checks import CheckSpec
from agentstyle.policy.commandconds import check_command, check_flow_places
from agentstyle.policy.conditiontree import leaves
from agentstyle.policy.manifest import HARNESSES, INVALID, quote_hint, recover_keys
from agentstyle.policy.model import Package, Rule
from agentstyle.policy.re2 import any_of
from agentstyle.policy.settingrefs import (
    EMBEDDED,
    SettingProblem,
    Use,
    composed,
    declared,
    embedded,
    placeholder,
    resolve,
    uses,
)
from agentstyle.policy.yamlpos import YMap, YNode, YSeq
from agentstyle.source import Span
from agentstyle.vocabulary import (
    CHECK_FIELDS,
    COMMAND_LIST_FIELDS,
    CONDITION_FIELDS,
    EVENT_PATH_VARS,
    EVENT_VARS,
    GLOB_OPS,
    NEGATED_OPS,
    NUMERIC_OPS,
    OPERATORS,
    PATH_FIELDS,
    REGEX_OPS,
    RUNTIME_VARS,
    TOOL_POINTS,
    TOOLS,
    Availability,
)

WHEN_KEYS = ("model", "harness", "conditions", "any", "expr")

CONDITION_KEYS = ("field", "op", "pattern", "value", "command", "where")

# Fields that decide where a rule is evaluated: while one is invalid, availability is unknown.
PLACEMENT_FIELDS = frozenset({"target", "at", "event", "tool", "names", "mcp", "skill", "refresh"})

# What follows a field and its operator in an expression, up to the value.
_OPERATOR = re.compile(r"\s*(?:==|!=|<=|>=|<|>|[A-Za-z_][A-Za-z0-9_]*)\s*")


@dataclass(slots=True)
class RuleInfo:
    """A validated rule: effective fields, points, condition tree and parsed templates."""

    rule: Rule
    eff: dict[str, Any]
    points: list[str]
    condition: Node | None
    harnesses: list[str] | None
    body: tuple[Segment, ...]
    model_text: tuple[Segment, ...] | None
    tools: list[str]
    names: list[str]
    worst_tokens: int
    static: bool
    regexes: dict[int, str] = field(default_factory=dict)  # id(pred) → RE2 used in SQL
    # where the rule reads the model (`when.model`, a `model` condition, `{{model}}`), if it does
    model_span: Span | None = None
    # id(pred) → where its first setting is used, for predicates that use settings: lowering
    # fills the installed values in (and reports a regex they break at that place).
    setting_preds: dict[int, Span] = field(default_factory=dict)
    # `fix`: (RE2 pattern, replacement) applied to the simple commands the rule refused
    # (docs/design/runtime.md#fixes); None when the rule has none or it is invalid
    fix: tuple[str, str] | None = None
    # `redact`: (RE2 pattern, replacement) applied to the call's output before the model reads
    # it (docs/actions.md#redact); None when the rule is no redact rule or the block is invalid
    redact: tuple[str, str] | None = None
    # `redact.keep`: RE2 patterns joined by REDACT_SEPARATOR, tested against each match; a
    # match one of them finds in stays (docs/actions.md#keep); None: every match goes
    redact_keep: str | None = None
    # `check`: the slow read-only check run after the rule's event (docs/observers.md#checks);
    # None when the rule has none or its block is invalid
    check: CheckSpec | None = None
    # `unless`: where it holds, the rule does not fire (docs/rules.md#unless)
    unless: Node | None = None
    # id(CommandItem) → the predicate its value test is checked and lowered as (settings, RE2)
    item_preds: dict[int, Pred] = field(default_factory=dict)


def resolve_tools(patterns: list[str]) -> set[str]:
    """Normalized tools a list of tool names/globs covers."""
    out: set[str] = set()
    for p in patterns:
        out.update(t for t in TOOLS if fnmatch.fnmatchcase(t, p))
    return out


def field_availability(name: str) -> Availability | None:
    if name in CONDITION_FIELDS:
        return CONDITION_FIELDS[name]
    for prefix in PATH_FIELDS:
        if name.startswith(prefix + "."):
            return CONDITION_FIELDS[prefix]
    return None


def field_hint(name: str) -> str | None:
    """What an unknown condition field probably meant."""
    if name.startswith("settings."):
        return f"a setting is a value, not a field: compare a field with `{name}`"
    if name.startswith("event.") and field_availability(name[len("event.") :]) is not None:
        return f"conditions name event content without `event.`: did you mean `{name[6:]}`?"
    head, _, rest = name.partition(".")
    second, _, tail = rest.partition(".")
    if tail:
        # `tool.inptu.command`: the path below `tool.input` is free, its prefix is not.
        prefix = closest(f"{head}.{second}", PATH_FIELDS)
        if prefix is not None:
            return suggestion(f"{prefix}.{tail}")
    return did_you_mean(name, list(CONDITION_FIELDS))


def is_available(
    avail: Availability,
    info_points: list[str],
    eff: dict[str, Any],
    tools: set[str],
    names: list[str],
) -> bool:
    """Whether a field can have a value at one of the rule's points for its tools."""
    target = eff["target"]
    for point in info_points:
        if point not in avail.points:
            continue
        if point not in TOOL_POINTS or target == "event":
            return True
        if avail.mcp_only:
            if target == "mcp" or (target == "tool" and names):
                return True
            continue
        if avail.skill_only:
            if target == "skill":
                return True
            continue
        if avail.tools is None:
            return True
        if target == "tool" and (tools & avail.tools or "other" in tools or names):
            return True
    return False


def unavailable_at(avail: Availability, info: RuleInfo, bad: set[str]) -> str | None:
    """Where the rule runs, said for a message, when a field or variable of availability `avail`
    can have no value there; None when it can, or when the rule's placement fields are in error
    (`bad`: said already)."""
    if bad & PLACEMENT_FIELDS or is_available(
        avail, info.points, info.eff, resolve_tools(info.tools), info.names
    ):
        return None
    return ", ".join(info.points) or "no point"


class ConditionChecks:
    """The validator's state and its checks of conditions."""

    def __init__(self, pkg: Package) -> None:
        self.pkg = pkg
        self.diags: list[Diagnostic] = []
        # pattern checked, pattern shown, span, rule, note, group: one error per group
        self.regex_checks: list[tuple[str, str, Span, str, str, int]] = []
        # a fix's (pattern, replacement, the replacement's node, rule): RE2 checks both at once
        # and a redaction's, the last item naming the block (`fix`, `redact`)
        self.rewrite_checks: list[tuple[str, str, YNode, str, str]] = []
        self.settings = {s.name: s for s in pkg.settings}
        # the settings at their defaults, pattern settings composed: what conditions are
        # checked with (each filled in at install with the values chosen)
        self.defaults = composed(declared(pkg.settings))
        # id(pred) → (span of its field, span of its pattern) for predicates of the mapping
        # form; predicates of an expression are found again in their string (`value_span`).
        self.item_spans: dict[int, tuple[Span, Span]] = {}
        self.expr_nodes: dict[int, YNode] = {}
        self.pattern_nodes: dict[int, YNode] = {}  # id(pred) → `pattern` of a mapping item

    def emit(
        self, code: str, message: str, span: Span | None, rule: str | None, hint: str | None = None
    ) -> None:
        self.diags.append(Diagnostic.make(code, message, span, rule=rule).hinted(hint))

    # -- conditions ---------------------------------------------------------------------------

    def when(self, rule: Rule, key: str = "when") -> tuple[Node | None, list[str] | None]:
        """The condition tree of `when` (or of `unless`: the same forms) and its harnesses."""
        fv = rule.fields.get(key)
        if fv is None or fv.origin == INVALID:
            return None, None
        node = fv.node
        if isinstance(node.value, str):
            return self.parse_expr(node, rule), None
        if not isinstance(node, YMap):
            return None, None
        parts: list[Node] = []
        harnesses: list[str] | None = None
        node = recover_keys(
            node,
            WHEN_KEYS,
            f"`{key}` key",
            self.diags.append,
            rule.id,
            code=codes.INVALID_CONDITION,
            listing=True,
        )
        for key in node:
            value = node.items[key][1]
            if key == "model":
                model = self.model_globs(value, rule)
                if model is not None:
                    parts.append(model)
            elif key == "harness":
                harnesses = self.harness_list(value, rule)
            elif key in ("conditions", "any"):
                items = self.items(value, rule, key)
                if not items:
                    continue
                if key == "conditions":
                    parts.extend(items)
                else:
                    parts.append(items[0] if len(items) == 1 else Or(tuple(items), value.span))
            elif key == "expr":
                if not isinstance(value.value, str):
                    self.emit(
                        codes.INVALID_CONDITION, "`when.expr` must be a string", value.span, rule.id
                    )
                    continue
                parsed = self.parse_expr(value, rule)
                if parsed is not None:
                    parts.append(parsed)
        if not parts:
            return None, harnesses
        return (parts[0] if len(parts) == 1 else And(tuple(parts), node.span)), harnesses

    def model_globs(self, value: YNode, rule: Rule) -> Node | None:
        nodes = value.nodes if isinstance(value, YSeq) else [value]
        if not nodes or not all(isinstance(n.value, str) for n in nodes):
            self.emit(
                codes.INVALID_CONDITION,
                "`when.model` must be a glob or a list of globs",
                value.span,
                rule.id,
            )
            return None
        preds: list[Node] = []
        for n in nodes:
            pred = Pred("model", "glob", n.value, n.span)
            self.item_spans[id(pred)] = (n.span, n.span)
            preds.append(pred)
        return preds[0] if len(preds) == 1 else Or(tuple(preds), value.span)

    def harness_list(self, value: YNode, rule: Rule) -> list[str]:
        nodes = value.nodes if isinstance(value, YSeq) else [value]
        if not nodes:
            self.emit(
                codes.INVALID_CONDITION, "`when.harness` is an empty list", value.span, rule.id
            )
        for n in nodes:
            if not isinstance(n.value, str) or n.value not in HARNESSES:
                self.emit(
                    codes.INVALID_CONDITION,
                    f"unknown harness `{n.value}` in `when.harness` (expected one of: "
                    f"{', '.join(HARNESSES)})",
                    n.span,
                    rule.id,
                    did_you_mean(n.value, HARNESSES),
                )
        return [n.value for n in nodes if isinstance(n.value, str) and n.value in HARNESSES]

    def parsed(self, node: YNode, parse: Callable[[str, Locate], Node], rule: Rule) -> Node | None:
        """A condition string's tree (`parse_condition`, or `parse_where` for a command
        condition's `where`), or None after saying why it has none."""
        try:
            tree = parse(node.value, node.locate)
        except GrammarError as exc:
            self.emit(codes.INVALID_CONDITION, exc.message, exc.span, rule.id, exc.hint)
            return None
        if folded_away(node, parse):
            self.emit(codes.INVALID_CONDITION, FOLDED_COMMENT, node.span, rule.id, FOLDED_HINT)
            return None
        return tree

    def parse_expr(self, node: YNode, rule: Rule) -> Node | None:
        tree = self.parsed(node, parse_condition, rule)
        if tree is None:
            return None
        for pred in predicates_of(tree):
            self.expr_nodes[id(pred)] = node
        return tree

    def items(self, value: YNode, rule: Rule, key: str) -> list[Node]:
        if not isinstance(value, YSeq):
            self.emit(
                codes.INVALID_CONDITION,
                f"`when.{key}` must be a list of conditions",
                value.span,
                rule.id,
            )
            return []
        out: list[Node] = []
        for item in value.nodes:
            if not isinstance(item, YMap):
                self.emit(
                    codes.INVALID_CONDITION,
                    "a condition item is a mapping {field, op, pattern}",
                    item.span,
                    rule.id,
                )
                continue
            # A key that was not understood may be the missing `field` or `op`: reported once.
            had_unknown = any(k not in CONDITION_KEYS for k in item)
            item = recover_keys(
                item,
                CONDITION_KEYS,
                "condition key",
                self.diags.append,
                rule.id,
                code=codes.INVALID_CONDITION,
                listing=True,
            )
            if item.get("command") is not None or item.get("where") is not None:
                command = self.command_item(item, rule)
                if command is not None:
                    out.append(command)
                continue
            fld, op = item.get("field"), item.get("op")
            if had_unknown and (fld is None or op is None):
                continue
            if fld is None or not isinstance(fld.value, str):
                where = fld.span if fld is not None else item.span
                self.emit(codes.INVALID_CONDITION, "condition item needs a `field`", where, rule.id)
                continue
            if op is None or not isinstance(op.value, str):
                where = op.span if op is not None else item.span
                self.emit(codes.INVALID_CONDITION, "condition item needs an `op`", where, rule.id)
                continue
            if op.value not in OPERATORS:
                self.emit(
                    codes.INVALID_CONDITION,
                    f"unknown operator `{op.value}`",
                    op.span,
                    rule.id,
                    operator_hint(op.value),
                )
                continue
            pat = item.get("pattern")
            if pat is None:
                pat = item.get("value")
            raw = pat.value if pat is not None else None
            val: Any = tuple(raw) if isinstance(raw, list) else raw
            if op.value not in ("exists", "missing") and pat is None:
                self.emit(
                    codes.INVALID_CONDITION,
                    f"operator `{op.value}` needs a `pattern`",
                    op.span,
                    rule.id,
                )
                continue
            pred = Pred(fld.value, op.value, val, fld.span)
            self.item_spans[id(pred)] = (fld.span, pat.span if pat is not None else op.span)
            if pat is not None:
                self.pattern_nodes[id(pred)] = pat
            out.append(pred)
        return out

    def command_item(self, item: YMap, rule: Rule) -> CommandPred | None:
        """`{command: "git clean", where: 'option "--force"'}`: the mapping form of a command
        condition (docs/conditions.md#command-conditions)."""
        names_node, where_node = item.get("command"), item.get("where")
        others = [k for k in item if k not in ("command", "where")]
        if others:
            self.emit(
                codes.INVALID_CONDITION,
                f"a command condition item has `command` and `where`, not `{others[0]}`",
                item.items[others[0]][0].span,
                rule.id,
            )
            return None
        names: list[str] = []
        if names_node is not None:
            raw = names_node.value
            written = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else None
            if not written or not all(isinstance(n, str) and n.split() for n in written):
                self.emit(
                    codes.INVALID_CONDITION,
                    "`command` names a program and its subcommand words, or a list of them",
                    names_node.span,
                    rule.id,
                )
                return None
            names = [" ".join(n.split()) for n in written]
        where: Node | None = None
        if where_node is not None:
            if not isinstance(where_node.value, str):
                self.emit(
                    codes.INVALID_CONDITION,
                    "`where` is the inside of a `where ( … )`, as a string",
                    where_node.span,
                    rule.id,
                )
                return None
            where = self.parsed(where_node, parse_where, rule)
            if where is None:
                return None
        span = names_node.span if names_node is not None else item.span
        return CommandPred(tuple(names), where, span)

    def check_tree(self, node: Node, info: RuleInfo, bad: set[str]) -> None:
        for pred in predicates_of(node):
            if self.check_pred(pred, info, bad) and not bad & PLACEMENT_FIELDS:
                self.never_present(pred, info, node)
        commands = leaves(node, CommandPred)
        if not commands:
            return
        shell = unavailable_at(CONDITION_FIELDS["shell.commands"], info, bad) is None
        for command in commands:
            check_command(self, command, info, bad, shell)
        check_flow_places(self, node, info.rule.id)

    def never_present(self, pred: Pred, info: RuleInfo, root: Node) -> None:
        """`field-never-present`: a field no tool of the rule carries, on any harness.

        `shell_regex` reads the shell commands whatever field it names (but a list of commands
        of the session's history, which it reads itself), so a rule without a shell tool
        cannot match it; `tool.input.<key>` is checked against the native input
        keys of each tool on each harness that has it (the capability tables), only where
        every such shape is known.
        """
        tools = resolve_tools(info.tools)
        shown = ", ".join(sorted(tools)) or info.eff["target"]
        if info.eff["target"] == "tool" and (not tools or "other" in tools or info.names):
            return
        if pred.op == "shell_regex" and pred.field not in COMMAND_LIST_FIELDS:
            if is_available(
                CONDITION_FIELDS["shell.commands"], info.points, info.eff, tools, info.names
            ):
                return
            what = f"`shell_regex` matches shell commands, and its tools ({shown}) run none"
            self.emit_never(pred, info, root, what)
            return
        if not pred.field.startswith("tool.input.") or info.eff["target"] != "tool":
            return
        key = pred.field.split(".")[2]
        carried = input_keys(tools, info.harnesses or list(HARNESSES))
        if key == "*" or key.isdigit() or carried is None or key in carried:
            return
        what = f"its tools ({shown}) never carry `{pred.field}`"
        meant = closest(key, sorted(carried))
        self.emit_never(pred, info, root, what, suggestion(meant and f"tool.input.{meant}"))

    def emit_never(
        self, pred: Pred, info: RuleInfo, root: Node, what: str, hint: str | None = None
    ) -> None:
        """Say what the absent field does to the rule: with the test fixed at the value an
        absent field gives it, the whole condition may be decided (never, or always, fires)."""
        rid = info.rule.id
        fixed = pred.op in NEGATED_OPS or pred.op == "missing"  # `not_*` of nothing holds
        outcome = _decided(root, pred, fixed)
        if outcome is False:
            message = f"rule `{rid}` can never fire: {what}"
        elif outcome is True:
            message = f"rule `{rid}` always fires: {what}"
        else:
            holds = "always" if fixed else "never"
            message = f"in rule `{rid}`, {what}, so this test {holds} holds"
        self.emit(codes.FIELD_NEVER_PRESENT, message, pred.span, rid, hint)

    # -- settings in conditions ---------------------------------------------------------

    def only_settings_embedded(self, pred: Pred, info: RuleInfo) -> bool:
        """A `{{variable}}` inside a condition string other than a setting is an error: the
        condition is compiled at install, when no event is known."""
        items = pred.value if isinstance(pred.value, tuple) else (pred.value,)
        for index, item in enumerate(items):
            if not isinstance(item, str):
                continue
            for offset, name, _ in embedded(item):
                if name in RUNTIME_VARS or event_base(name) in EVENT_VARS:
                    at = index if isinstance(pred.value, tuple) else None
                    self.emit(
                        codes.INVALID_CONDITION,
                        f"`{{{{{name}}}}}` is known only when the hook runs; a condition can "
                        "fill in `{{settings.NAME}}` only",
                        self.use_span(pred, Use(name, None, offset, at), name),
                        info.rule.id,
                    )
                    return False
        return True

    def settings_in_when(self, pred: Pred, info: RuleInfo) -> tuple[Value, str] | None:
        """The predicate's value with the settings' defaults filled in, to check it as it will
        be installed by default; a setting without a default stands in as `x` (or 0), which
        checks the pattern around it. None after reporting a problem."""
        rid = info.rule.id
        refs = uses(pred.value)
        for use in refs:
            if use.name not in self.settings:
                spelled = f"settings.{use.name}" if use.ref else f"{{{{settings.{use.name}}}}}"
                meant = closest(use.name, list(self.settings))
                self.emit(
                    codes.UNDECLARED_VAR,
                    f"`{spelled}` uses undeclared setting `{use.name}`",
                    self.use_span(pred, use),
                    rid,
                    suggestion(meant and spelled.replace(use.name, meant)),
                )
                return None
        values = {use.name: self.defaults[use.name] for use in refs}
        try:
            value = resolve(pred, values)
        except SettingProblem as exc:
            self.emit(codes.INVALID_CONDITION, exc.message, self.use_span(pred, exc.use), rid)
            return None
        # A value that breaks the pattern is reported at the (first) setting; the pattern
        # with stand-ins is checked first, so a mistake of the pattern itself is reported
        # as such, at the pattern.
        info.setting_preds[id(pred)] = self.use_span(pred, refs[0])
        if pred.op in REGEX_OPS and not isinstance(value, tuple):  # a list: each item's own
            frame = resolve(pred, {n: placeholder(self.settings[n].type) for n in values})
            written = str(pred.value)
            self.regex_checks.append(
                (str(frame), written, self.value_span(pred), rid, "", id(pred))
            )
        shown = ", ".join(f"`settings.{n}` = `{values[n].text}`" for n in sorted(values))
        return value, f" (with {shown})"

    def use_span(self, pred: Pred, use: Use, name: str | None = None) -> Span:
        """Where a setting reference was written: a bare `settings.x` has its own span; a
        `{{…}}` is found in its string (the mapping form's node, or the expression text)."""
        if use.ref is not None:
            return use.ref.span
        node = self.pattern_nodes.get(id(pred))
        if node is not None:
            if use.item is not None and isinstance(node, YSeq) and use.item < len(node.nodes):
                node = node.nodes[use.item]
            return node.locate(use.offset)
        expr = self.expr_nodes.get(id(pred))
        if expr is None or not isinstance(expr.value, str):
            return self.value_span(pred)
        # The n-th `{{name}}` of this name after the predicate's field, in the source text.
        text, start = expr.value, self.value_offset(pred)
        if start is None:
            return self.value_span(pred)
        target = name or f"settings.{use.name}"
        refs = [u for u in uses(pred.value) if u.name == use.name] if name is None else [use]
        nth = next((i for i, u in enumerate(refs) if u == use), 0)
        found = [m for m in EMBEDDED.finditer(text, start) if m.group(1) == target]
        return expr.locate(found[nth].start()) if nth < len(found) else self.value_span(pred)

    def value_offset(self, pred: Pred) -> int | None:
        """The offset of a predicate's value in its expression text, if found."""
        node = self.expr_nodes.get(id(pred))
        if node is None or not isinstance(node.value, str):
            return None
        text = node.value
        start = text.find(pred.field)
        while start >= 0:
            if node.locate(start) == pred.span:
                op = _OPERATOR.match(text, start + len(pred.field))
                return op.end() if op else None
            start = text.find(pred.field, start + 1)
        return None

    def value_span(self, pred: Pred) -> Span:
        """Where the pattern of a predicate was written (its field, if it cannot be found)."""
        if id(pred) in self.item_spans:
            return self.item_spans[id(pred)][1]
        node = self.expr_nodes.get(id(pred))
        offset = self.value_offset(pred)
        if node is None or offset is None:
            return pred.span
        return node.locate(offset)

    def check_pred(self, pred: Pred, info: RuleInfo, bad: set[str]) -> bool:
        """Check one predicate; whether it was sound enough to look further (field known and
        available, value of the right type)."""
        rid = info.rule.id
        avail = field_availability(pred.field)
        if avail is None:
            self.emit(
                codes.INVALID_CONDITION,
                f"unknown field `{pred.field}`",
                pred.span,
                rid,
                field_hint(pred.field),
            )
            return False
        where = unavailable_at(avail, info, bad)
        if where is not None and pred.field in CHECK_FIELDS:
            self.emit(
                codes.CHECK_FIELD,
                f"`{pred.field}` is a check's result; rule `{rid}` has no `check`",
                pred.span,
                rid,
            )
        elif where is not None:
            self.emit(
                codes.FIELD_UNAVAILABLE,
                f"field `{pred.field}` cannot exist at {where} for rule `{rid}`",
                pred.span,
                rid,
            )
        return self.check_value(pred, info) and where is None

    def check_value(self, pred: Pred, info: RuleInfo) -> bool:
        """Check a predicate's value for its operator (settings filled in, RE2, globs,
        numbers, lists); whether it was sound."""
        rid = info.rule.id
        op, value = pred.op, pred.value
        note = ""
        if not self.only_settings_embedded(pred, info):
            return False
        if uses(value):
            filled = self.settings_in_when(pred, info)
            if filled is None:
                return False
            value, note = filled
        pattern_node = self.pattern_nodes.get(id(pred))
        quote = quote_hint(pattern_node) if pattern_node is not None else None
        if op in REGEX_OPS and isinstance(value, tuple):
            return self.regex_list(pred, info, value, note)
        if (
            op in REGEX_OPS
            or op in GLOB_OPS
            or op in ("contains", "not_contains", "starts_with", "ends_with")
        ) and not isinstance(value, str):
            self.emit(
                codes.INVALID_CONDITION,
                f"operator `{op}` needs a string pattern",
                self.value_span(pred),
                rid,
                quote,
            )
            return False
        raw = pattern_node.source_text() if pattern_node is not None else None
        if quote and isinstance(value, bool) and raw and raw.lower() not in ("true", "false"):
            # `pattern: on` compares with `true`: YAML 1.1 read a word as a boolean.
            self.emit(
                codes.INVALID_CONDITION,
                f"`{raw}` is not a string here",
                self.value_span(pred),
                rid,
                quote,
            )
            return False
        if op in REGEX_OPS:
            span = info.setting_preds.get(id(pred), self.value_span(pred))
            self.regex_checks.append((str(value), str(value), span, rid, note, id(pred)))
            info.regexes[id(pred)] = str(value)
        elif op in GLOB_OPS:
            try:
                info.regexes[id(pred)] = glob_to_regex(str(value))
            except ValueError as exc:
                self.emit(
                    codes.BAD_PATTERN, f"glob `{value}`{note}: {exc}", self.value_span(pred), rid
                )
        elif op in NUMERIC_OPS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.emit(
                    codes.INVALID_CONDITION,
                    f"operator `{op}` needs a number",
                    self.value_span(pred),
                    rid,
                )
        elif op == "in" and not isinstance(value, tuple):
            self.emit(
                codes.INVALID_CONDITION, "operator `in` needs a list", self.value_span(pred), rid
            )
        return True

    def regex_list(self, pred: Pred, info: RuleInfo, items: tuple[Any, ...], note: str) -> bool:
        """A regex operator given a list of patterns (docs/conditions.md#a-list-of-patterns):
        it holds where any of them matches. Each is a non-empty string and is checked by RE2
        on its own, so an error names the pattern written; the rule tests them as one."""
        rid, span = info.rule.id, self.value_span(pred)
        if not items:
            self.emit(
                codes.INVALID_CONDITION,
                f"operator `{pred.op}` needs at least one pattern in its list",
                span,
                rid,
            )
            return False
        for n, item in enumerate(items):
            if not isinstance(item, str) or not item:
                self.emit(
                    codes.INVALID_CONDITION,
                    f"operator `{pred.op}`: item {n + 1} of the list is `{item!r}`, not a pattern"
                    " (each item is a regex string)",
                    self.list_item_span(pred, n),
                    rid,
                )
                return False
        for n, item in enumerate(items):
            where = self.list_item_span(pred, n)
            self.regex_checks.append((item, item, where, rid, note, id(pred)))
        info.regexes[id(pred)] = any_of(list(items))
        return True

    def list_item_span(self, pred: Pred, index: int) -> Span:
        """Where item `index` of a predicate's list value was written: its YAML item in the
        mapping form, the index-th value after `[` in an expression (comments skipped)."""
        node = self.pattern_nodes.get(id(pred))
        if isinstance(node, YSeq) and index < len(node.nodes):
            return node.nodes[index].span
        expr, start = self.expr_nodes.get(id(pred)), self.value_offset(pred)
        if expr is None or start is None or not isinstance(expr.value, str):
            return self.value_span(pred)
        bracket = expr.value.find("[", start)
        values = [m for m in _LIST_TOKEN.finditer(expr.value, bracket + 1) if m.group(1)]
        if bracket < 0 or index >= len(values):
            return self.value_span(pred)
        return expr.locate(values[index].start())


# A value of a written list, a comment (skipped) or its end: where its n-th item starts.
_LIST_TOKEN = re.compile(r"""(r?"(?:[^"\\\n]|\\.)*"|r?'(?:[^'\\\n]|\\.)*'|[^\s,\]#]+)|#[^\n]*""")


FOLDED_COMMENT = (
    "a `#` comment in a folded condition (`>`) runs to the end of the whole condition: YAML "
    "joins the lines, so what follows the comment is dropped"
)
FOLDED_HINT = "write the condition as a literal block (`|`), which keeps its lines"


def folded_away(node: YNode, parse: Callable[[str, Locate], Node]) -> bool:
    """Whether YAML's folding (`>`) let a `#` comment swallow what followed it on later lines:
    the condition read with its lines kept (as `|` keeps them) means something else."""
    raw = node.source_text()
    text = node.value
    if raw is None or not isinstance(text, str) or "#" not in text:
        return False
    if not raw.lstrip().startswith(">"):
        return False
    kept = textwrap.dedent("\n".join(raw.split("\n")[1:])).strip("\n")
    here: Locate = lambda _offset: node.span  # noqa: E731 — the same span for both readings
    try:
        return repr(parse(text, here)) != repr(parse(kept, here))
    except GrammarError:
        return True  # kept whole, the lines do not even parse alike


def predicates_of(node: Node) -> list[Pred]:
    """The field predicates of a condition (not those inside a command condition)."""
    return leaves(node, Pred)


def _decided(node: Node, pred: Pred, value: bool) -> bool | None:
    """The condition's value when `pred` is `value` and every other test is unknown (None):
    three-valued logic, so `a and P` with P false is false whatever `a` is."""
    if isinstance(node, (Pred, CommandPred, CommandItem)):
        return value if node is pred else None
    if isinstance(node, Not):
        inner = _decided(node.item, pred, value)
        return None if inner is None else not inner
    values = [_decided(child, pred, value) for child in node.items]
    short = isinstance(node, Or)  # the value that decides an `or` (true) or an `and` (false)
    if short in values:
        return short
    return (not short) if all(v is not None for v in values) else None


def input_keys(tools: set[str], harnesses: list[str]) -> set[str] | None:
    """Every native `tool_input` key the tools can carry on these harnesses; None when one
    tool's shape on one harness that has it is not known (nothing can be said then)."""
    keys: set[str] = set()
    for harness in harnesses:
        spec = spec_for(harness)
        for tool in tools:
            if tool not in spec.tool_names:
                continue  # the harness has no such tool: it adds no call
            shape = spec.input_keys.get(tool)
            if shape is None:
                return None
            keys |= shape
    return keys or None


def event_base(name: str) -> str:
    """`event.tool.input.a.b` → `event.tool.input`; other names unchanged."""
    for prefix in EVENT_PATH_VARS:
        if name.startswith(prefix + "."):
            return prefix
    return name
