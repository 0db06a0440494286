"""Validate a loaded package: every semantic diagnostic of docs/diagnostics.md, collected at
once."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentstyle.diagnostics import Diagnostic, closest, did_you_mean, suggestion
from agentstyle.globs import glob_to_regex, is_glob
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
    Text,
    Value,
    Var,
)
from agentstyle.grammar.parse import parse_condition, parse_template, parse_where
from agentstyle.grammar.transformer import operator_hint
from agentstyle.harnesses.facts import spec_for
from agentstyle.policy.commandconds import check_command, check_flow_places
from agentstyle.policy.load import (
    HARNESSES,
    INVALID,
    native_names,
    quote_hint,
    recover_keys,
    unknown_event,
)
from agentstyle.policy.model import ExceptionDecl, FieldValue, Package, Rule
from agentstyle.policy.rules import effective, evaluated_at_session_start, points, tool_list
from agentstyle.policy.settingrefs import (
    EMBEDDED,
    Setting,
    SettingProblem,
    Use,
    embedded,
    placeholder,
    resolve,
    setting_text,
    uses,
)
from agentstyle.policy.yamlpos import YMap, YNode, YSeq
from agentstyle.source import Span
from agentstyle.vocabulary import (
    BLOCK_REASON_TOKENS,
    COMMAND_LIST_FIELDS,
    CONDITION_FIELDS,
    DEDUP_BREAKING_VARS,
    DENY_POINTS,
    EVENT_PATH_VARS,
    EVENT_VAR_WORST_TOKENS,
    EVENT_VARS,
    EVENTS,
    FAIL_CLOSED_POINTS,
    GLOB_OPS,
    NEGATED_OPS,
    NUMERIC_OPS,
    OPERATORS,
    PATH_FIELDS,
    REGEX_OPS,
    RUNTIME_VAR_WORST_TOKENS,
    RUNTIME_VARS,
    STATE_LIST_VARS,
    STATE_VAR_WORST_TOKENS,
    STOP_POINTS,
    TOOL_POINTS,
    TOOLS,
    VERDICT_ACTIONS,
    Availability,
    estimate_tokens,
)

# Runtime variables that a harness may leave empty (var-no-default); harness.name is always set.
MAYBE_EMPTY_VARS = RUNTIME_VARS - {"harness.name"}
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
    # `unless`: where it holds, the rule does not fire (docs/rules.md#unless)
    unless: Node | None = None
    # id(CommandItem) → the predicate its value test is checked and lowered as (settings, RE2)
    item_preds: dict[int, Pred] = field(default_factory=dict)


def _model_span(info: RuleInfo) -> Span | None:
    """Where a rule first reads the model: a `model` condition or a `{{model}}` variable."""
    stack: list[Node] = [info.condition] if info.condition is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, Pred):
            if node.field == "model":
                return node.span
        elif isinstance(node, Not):
            stack.append(node.item)
        elif isinstance(node, (And, Or)):
            stack.extend(reversed(node.items))
    for segments in (info.body, info.model_text or ()):
        for seg in segments:
            if isinstance(seg, Var) and seg.name == "model":
                return seg.span
    return None


@dataclass(slots=True)
class ExceptionInfo:
    """A validated `exceptions:` entry: the rule it narrows and its condition, with what the
    condition's values lower as (`info`: regexes, command items' predicates)."""

    decl: ExceptionDecl
    condition: Node
    info: RuleInfo


@dataclass(slots=True)
class Validation:
    rules: list[RuleInfo]
    diagnostics: list[Diagnostic]
    exceptions: list[ExceptionInfo] = field(default_factory=list)


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


class _Validator:
    def __init__(self, pkg: Package) -> None:
        self.pkg = pkg
        self.diags: list[Diagnostic] = []
        # pattern checked, pattern shown, span, rule, note, group: one error per group
        self.regex_checks: list[tuple[str, str, Span, str, str, int]] = []
        # a fix's (pattern, replacement, the replacement's node, rule): RE2 checks both at once
        self.rewrite_checks: list[tuple[str, str, YNode, str]] = []
        self.settings = {s.name: s for s in pkg.settings}
        # id(pred) → (span of its field, span of its pattern) for predicates of the mapping
        # form; predicates of an expression are found again in their string (`value_span`).
        self.item_spans: dict[int, tuple[Span, Span]] = {}
        self.expr_nodes: dict[int, YNode] = {}
        self.pattern_nodes: dict[int, YNode] = {}  # id(pred) → `pattern` of a mapping item

    def emit(
        self, code: str, message: str, span: Span | None, rule: str | None, hint: str | None = None
    ) -> None:
        self.diags.append(Diagnostic.make(code, message, span, rule=rule).hinted(hint))

    # -- structure ----------------------------------------------------------------------------

    def structure(self, rule: Rule, eff: dict[str, Any], bad: set[str]) -> None:
        """Field/target consistency, actions, timing and dedup fields.

        `bad` holds the fields whose value failed its type check: checks that depend on them
        are skipped, since the loader already reported the cause.
        """
        rid, target, action = rule.id, eff["target"], eff["action"]
        fields = _valid(rule)
        # Written on this rule (not inherited from `defaults`, which apply wherever they can).
        own = {k for k, fv in fields.items() if fv.origin != "defaults"}
        wrong = {
            "tool": target != "tool",
            "names": target not in ("tool", "mcp"),
            "mcp": target != "mcp",
            "skill": target != "skill",
            "event": target != "event",
            "at": target not in ("tool", "mcp", "skill"),
        }
        if "target" not in bad:
            for name, is_wrong in wrong.items():
                if is_wrong and name in own:
                    self.emit(
                        "field-target",
                        f"field `{name}` does not apply to target `{target}`",
                        rule.span_of(name),
                        rid,
                    )
        if (
            target == "tool"
            and not bad & {"target", "tool", "names"}
            and "tool" not in fields
            and "names" not in fields
        ):
            self.emit(
                "tool-missing",
                f"tool rule `{rid}` needs `tool` or `names`",
                rule.span_of("target"),
                rid,
            )
        if target == "event" and not bad & {"target", "event"}:
            event = eff.get("event")
            if event is None:
                self.emit(
                    "unknown-event",
                    f"event rule `{rid}` needs an `event`",
                    rule.span_of("target"),
                    rid,
                )
            elif event not in EVENTS:
                self.diags.append(unknown_event(event, rule.span_of("event"), rid))
            if event not in EVENTS:
                bad.add("event")  # where the rule runs is unknown: skip what depends on it
        if target == "tool" and "tool" in fields and not self.tool_names(rule, fields["tool"]):
            bad.add("tool")  # which tools the rule covers is unknown: skip what depends on it
        for name in ("mcp", "skill"):
            if target == name and name in fields:
                self.name_glob(rule, fields[name])
        pts = points(eff)
        verdict = action in VERDICT_ACTIONS
        if verdict and "action" not in bad:
            deny_ok = target in ("tool", "mcp", "skill") or (
                target == "event" and (not pts or pts[0] in DENY_POINTS)
            )
            if not deny_ok and not bad & {"target", "event"}:
                where = f"event `{pts[0]}`" if target == "event" and pts else f"target `{target}`"
                self.emit(
                    "action-target",
                    f"rule `{rid}` cannot `{action}` on {where}: it cannot deny",
                    rule.span_of("action"),
                    rid,
                )
            if (
                target in ("tool", "mcp", "skill")
                and "at" in fields
                and eff["at"] == "after"
                and "target" not in bad
            ):
                self.emit(
                    "block-after",
                    f"rule `{rid}` is a {action} rule and cannot run at: after",
                    rule.span_of("at"),
                    rid,
                )
            if "repeat" in own:
                self.emit(
                    "block-repeat",
                    f"`repeat` is ignored on {action} rule `{rid}`",
                    rule.span_of("repeat"),
                    rid,
                )
        if eff["fail"] == "closed" and not bad & {"target", "at", "event", "refresh"}:
            ok = bool(pts) and all(p in FAIL_CLOSED_POINTS for p in pts) and target != "system"
            if not ok:
                self.emit(
                    "fail-closed-target",
                    f"rule `{rid}` uses `fail: closed` where the point cannot deny",
                    rule.span_of("fail"),
                    rid,
                )
        refresh = eff.get("refresh")
        depends = {"action", "repeat", "mode", "target", "event"}
        if isinstance(refresh, int) and refresh > 0 and not bad & depends:
            problem = None
            if action not in ("inject", "warn"):
                problem = f"a `{action}` rule"
            elif eff.get("repeat") != "session":
                problem = f"`repeat: {eff.get('repeat')}`"
            elif eff["mode"] == "replace":
                problem = "`mode: replace`"
            elif target == "event" and eff.get("event") == "subagent.start":
                problem = "`subagent.start`"
            if problem:
                self.emit(
                    "refresh-incompatible",
                    f"positive `refresh` cannot be used with {problem}",
                    rule.span_of("refresh"),
                    rid,
                )
        if (
            "reinject_on_compact" in own
            and eff["reinject_on_compact"] is True
            and eff.get("repeat") != "session"
            and not bad & {"action", "repeat"}
        ):
            self.emit(
                "reinject-unused",
                f"`reinject_on_compact` has no effect without `repeat: "
                f"session` (rule `{rid}` repeats `{eff.get('repeat')}`)",
                rule.span_of("reinject_on_compact"),
                rid,
            )
        if (
            "sources" in fields
            and not evaluated_at_session_start(eff)
            and not bad & {"target", "event", "refresh"}
        ):
            self.emit(
                "sources-unused",
                f"`sources` has no effect: rule `{rid}` is not evaluated at session.start",
                rule.span_of("sources"),
                rid,
            )
        if "model_text" in fields and action != "warn" and "action" not in bad:
            self.emit(
                "model-text-unused",
                f"`model_text` is only used by warn rules, rule `{rid}` is `{action}`",
                rule.span_of("model_text"),
                rid,
            )
        repeated = eff.get("repeat") in ("every", "turn") or (
            isinstance(refresh, int) and refresh > 0
        )
        if (
            action == "inject"
            and repeated
            and "reason" not in rule.fields
            and not bad & {"action", "repeat", "refresh"}
        ):
            self.emit(
                "T007",
                f"rule `{rid}` injects repeatedly; add a `reason` saying why",
                rule.span,
                rid,
            )

    def tool_names(self, rule: Rule, fv: FieldValue) -> bool:
        """`unknown-tool` for names that are not normalized tools, `bad-pattern` for globs;
        whether every entry was understood."""
        node = fv.node
        items = node.nodes if isinstance(node, YSeq) else [node]
        ok = True
        for item in items:
            name = item.value
            if not isinstance(name, str):
                continue
            if is_glob(name):
                try:
                    glob_to_regex(name)
                except ValueError as exc:
                    self.emit("bad-pattern", f"tool glob `{name}`: {exc}", item.span, rule.id)
                    ok = False
            elif name not in TOOLS:
                ok = False
                native = native_names()[1].get(name)
                if native is not None:
                    self.emit(
                        "unknown-tool",
                        f"`{name}` is a native tool name (match it with `names: [{name}]`)",
                        item.span,
                        rule.id,
                        f"did you mean `{native}`?",
                    )
                elif (typo := did_you_mean(name, TOOLS)) is not None:
                    self.emit(
                        "unknown-tool",
                        f"`{name}` is not a normalized tool",
                        item.span,
                        rule.id,
                        typo,
                    )
                else:
                    self.emit(
                        "unknown-tool",
                        f"`{name}` is not a normalized tool; use `names` for native tool names",
                        item.span,
                        rule.id,
                    )
        return ok

    def name_glob(self, rule: Rule, fv: FieldValue) -> None:
        if not isinstance(fv.value, str):
            return
        try:
            glob_to_regex(fv.value)
        except ValueError as exc:
            self.emit("bad-pattern", f"glob `{fv.value}`: {exc}", fv.span, rule.id)

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
            code="invalid-condition",
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
                        "invalid-condition", "`when.expr` must be a string", value.span, rule.id
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
                "invalid-condition",
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
            self.emit("invalid-condition", "`when.harness` is an empty list", value.span, rule.id)
        for n in nodes:
            if not isinstance(n.value, str) or n.value not in HARNESSES:
                self.emit(
                    "invalid-condition",
                    f"unknown harness `{n.value}` in `when.harness` (expected one of: "
                    f"{', '.join(HARNESSES)})",
                    n.span,
                    rule.id,
                    did_you_mean(n.value, HARNESSES),
                )
        return [n.value for n in nodes if isinstance(n.value, str) and n.value in HARNESSES]

    def parse_expr(self, node: YNode, rule: Rule) -> Node | None:
        try:
            tree = parse_condition(node.value, node.locate)
        except GrammarError as exc:
            self.emit("invalid-condition", exc.message, exc.span, rule.id, exc.hint)
            return None
        for pred in _preds(tree):
            self.expr_nodes[id(pred)] = node
        return tree

    def items(self, value: YNode, rule: Rule, key: str) -> list[Node]:
        if not isinstance(value, YSeq):
            self.emit(
                "invalid-condition",
                f"`when.{key}` must be a list of conditions",
                value.span,
                rule.id,
            )
            return []
        out: list[Node] = []
        for item in value.nodes:
            if not isinstance(item, YMap):
                self.emit(
                    "invalid-condition",
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
                code="invalid-condition",
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
                self.emit("invalid-condition", "condition item needs a `field`", where, rule.id)
                continue
            if op is None or not isinstance(op.value, str):
                where = op.span if op is not None else item.span
                self.emit("invalid-condition", "condition item needs an `op`", where, rule.id)
                continue
            if op.value not in OPERATORS:
                self.emit(
                    "invalid-condition",
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
                    "invalid-condition",
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
                "invalid-condition",
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
                    "invalid-condition",
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
                    "invalid-condition",
                    "`where` is the inside of a `where ( … )`, as a string",
                    where_node.span,
                    rule.id,
                )
                return None
            try:
                where = parse_where(where_node.value, where_node.locate)
            except GrammarError as exc:
                self.emit("invalid-condition", exc.message, exc.span, rule.id, exc.hint)
                return None
        span = names_node.span if names_node is not None else item.span
        return CommandPred(tuple(names), where, span)

    def check_tree(self, node: Node, info: RuleInfo, bad: set[str]) -> None:
        for pred in _preds(node):
            if self.check_pred(pred, info, bad) and not bad & PLACEMENT_FIELDS:
                self.never_present(pred, info, node)
        commands = _commands(node)
        if not commands:
            return
        shell = bool(bad & PLACEMENT_FIELDS) or is_available(
            CONDITION_FIELDS["shell.commands"],
            info.points,
            info.eff,
            resolve_tools(info.tools),
            info.names,
        )
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
        self.emit("field-never-present", message, pred.span, rid, hint)

    # -- settings in conditions ---------------------------------------------------------

    def only_settings_embedded(self, pred: Pred, info: RuleInfo) -> bool:
        """A `{{variable}}` inside a condition string other than a setting is an error: the
        condition is compiled at install, when no event is known."""
        items = pred.value if isinstance(pred.value, tuple) else (pred.value,)
        for index, item in enumerate(items):
            if not isinstance(item, str):
                continue
            for offset, name, _ in embedded(item):
                if name in RUNTIME_VARS or _event_base(name) in EVENT_VARS:
                    at = index if isinstance(pred.value, tuple) else None
                    self.emit(
                        "invalid-condition",
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
                    "undeclared-var",
                    f"`{spelled}` uses undeclared setting `{use.name}`",
                    self.use_span(pred, use),
                    rid,
                    suggestion(meant and spelled.replace(use.name, meant)),
                )
                return None
        values = {}
        for name in {use.name for use in refs}:
            decl = self.settings[name]
            if decl.has_default:
                values[name] = Setting(decl.type, setting_text(decl.type, decl.default))
            else:
                values[name] = placeholder(decl.type)
        try:
            value = resolve(pred, values)
        except SettingProblem as exc:
            self.emit("invalid-condition", exc.message, self.use_span(pred, exc.use), rid)
            return None
        # A value that breaks the pattern is reported at the (first) setting; the pattern
        # with stand-ins is checked first, so a mistake of the pattern itself is reported
        # as such, at the pattern.
        info.setting_preds[id(pred)] = self.use_span(pred, refs[0])
        if pred.op in REGEX_OPS:
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
                "invalid-condition",
                f"unknown field `{pred.field}`",
                pred.span,
                rid,
                field_hint(pred.field),
            )
            return False
        available = True
        if not bad & PLACEMENT_FIELDS and not is_available(
            avail, info.points, info.eff, resolve_tools(info.tools), info.names
        ):
            where = ", ".join(info.points) or "no point"
            self.emit(
                "field-unavailable",
                f"field `{pred.field}` cannot exist at {where} for rule `{rid}`",
                pred.span,
                rid,
            )
            available = False
        return self.check_value(pred, info) and available

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
        if (
            op in REGEX_OPS
            or op in GLOB_OPS
            or op in ("contains", "not_contains", "starts_with", "ends_with")
        ) and not isinstance(value, str):
            self.emit(
                "invalid-condition",
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
                "invalid-condition",
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
                self.emit("bad-pattern", f"glob `{value}`{note}: {exc}", self.value_span(pred), rid)
        elif op in NUMERIC_OPS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.emit(
                    "invalid-condition",
                    f"operator `{op}` needs a number",
                    self.value_span(pred),
                    rid,
                )
        elif op == "in" and not isinstance(value, tuple):
            self.emit("invalid-condition", "operator `in` needs a list", self.value_span(pred), rid)
        return True

    # -- templates ----------------------------------------------------------------------------

    def template(self, text: str, node: YNode, info: RuleInfo, bad: set[str]) -> _Template:
        """Parse and check one body or `model_text`; its worst-case size and what it uses."""
        rid = info.rule.id
        locate: Callable[[int], Span] = node.locate
        try:
            segments = parse_template(text, locate)
        except GrammarError as exc:
            self.emit("invalid-template", exc.message, exc.span, rid, exc.hint)
            return _Template((), estimate_tokens(text))
        out = _Template(segments, 0)
        static_bytes = 0
        dynamic_tokens = 0
        for seg in segments:
            if isinstance(seg, Text):
                static_bytes += len(seg.text.encode())
                continue
            kind = self.variable(seg, info, bad)
            if kind == "setting":
                setting = self.settings.get(seg.name.split(".", 1)[1])
                value = setting.default if setting is not None else ""
                static_bytes += len(str(value if value is not None else "").encode())
            elif kind == "event" and _event_base(seg.name) in STATE_LIST_VARS:
                if out.first_event is None:
                    out.first_event = seg.span
                dynamic_tokens += STATE_VAR_WORST_TOKENS
                out.state_tokens += STATE_VAR_WORST_TOKENS
            elif kind == "event":
                if out.first_event is None:
                    out.first_event = seg.span
                dynamic_tokens += EVENT_VAR_WORST_TOKENS
            elif kind == "runtime":
                out.uses_runtime = True
                dynamic_tokens += RUNTIME_VAR_WORST_TOKENS
        out.worst = (static_bytes + 3) // 4 + dynamic_tokens
        return out

    def variable(self, var: Var, info: RuleInfo, bad: set[str]) -> str:
        rid, name = info.rule.id, var.name
        if name.startswith("settings."):
            setting = name.split(".", 1)[1]
            if setting not in self.settings:
                self.emit(
                    "undeclared-var",
                    f"`{{{{{name}}}}}` uses undeclared setting `{setting}`",
                    var.span,
                    rid,
                    self.var_hint(name),
                )
                return "error"
            return "setting"
        if name in RUNTIME_VARS:
            if name in DEDUP_BREAKING_VARS:
                self.emit(
                    "T006",
                    f"`{{{{{name}}}}}` changes on every event and defeats dedup",
                    var.span,
                    rid,
                )
            if var.default is None and name in MAYBE_EMPTY_VARS and not self.guaranteed(name, info):
                self.emit(
                    "var-no-default",
                    f'`{{{{{name}}}}}` may be empty; add `| default: "…"`',
                    var.span,
                    rid,
                )
            return "runtime"
        if name.startswith("event."):
            base = _event_base(name)
            if base != name and not _template_path(name[len(base) + 1 :]):
                self.emit(
                    "undeclared-var",
                    f"`{{{{{name}}}}}`: a path segment in a "
                    "template is letters, digits and `_` only",
                    var.span,
                    rid,
                )
                return "error"
            if base not in EVENT_VARS:
                self.emit(
                    "undeclared-var",
                    f"unknown variable `{{{{{name}}}}}`",
                    var.span,
                    rid,
                    self.var_hint(name),
                )
                return "error"
            avail = CONDITION_FIELDS[base[len("event.") :]]
            if not bad & PLACEMENT_FIELDS and not is_available(
                avail, info.points, info.eff, resolve_tools(info.tools), info.names
            ):
                where = ", ".join(info.points) or "no point"
                self.emit(
                    "event-var-unavailable",
                    f"`{{{{{name}}}}}` is not available at {where}",
                    var.span,
                    rid,
                )
            return "event"
        if _event_base("event." + name) in EVENT_VARS:
            # Event content written without its prefix (`{{prompt}}`, `{{tool.input.x}}`).
            self.emit(
                "event-var-in-template",
                f"event content needs the `event.` prefix: `{{{{event.{name}}}}}`",
                var.span,
                rid,
            )
            return "error"
        self.emit(
            "undeclared-var",
            f"unknown variable `{{{{{name}}}}}`",
            var.span,
            rid,
            self.var_hint(name),
        )
        return "error"

    def var_hint(self, name: str) -> str | None:
        """The template variable `name` probably meant: a declared setting, a runtime or an
        event variable (`event.tool.inptu.x` keeps its path below the corrected prefix)."""
        known = [*sorted(RUNTIME_VARS), *sorted(EVENT_VARS)]
        known += [f"settings.{s}" for s in self.settings]
        parts = name.split(".")
        meant: str | None = None
        if len(parts) > 3 and parts[0] == "event":
            prefix = closest(".".join(parts[:3]), EVENT_PATH_VARS)
            meant = f"{prefix}.{'.'.join(parts[3:])}" if prefix else None
        meant = meant or closest(name, known)
        return suggestion(f"{{{{{meant}}}}}" if meant else None)

    def guaranteed(self, name: str, info: RuleInfo) -> bool:
        """`when.model` without `unknown` guarantees `{{model}}`
        (docs/templates.md#runtime-variables)."""
        if name != "model":
            return False
        fv = info.rule.fields.get("when")
        when = fv.value if fv is not None and fv.origin != INVALID else None
        if not isinstance(when, dict) or "model" not in when:
            return False
        globs = when["model"] if isinstance(when["model"], list) else [when["model"]]
        return bool(globs) and all(_cannot_match_unknown(g) for g in globs)

    # -- whole rule ---------------------------------------------------------------------------

    def fix(self, rule: Rule, info: RuleInfo, bad: set[str]) -> tuple[str, str] | None:
        """A rule's `fix`: a mapping of `replace` (an RE2 pattern) and `with`, on a `block`
        rule for shell calls; the pattern and the replacement are checked by RE2 at the end
        (`validate_package`), as evaluation will apply them."""
        fv = rule.fields["fix"]
        node = fv.node
        rid = rule.id
        action, target = info.eff.get("action"), info.eff.get("target")
        if not {"action", "target", "tool"} & bad and (
            action != "block" or target != "tool" or info.tools != ["shell"] or info.names
        ):
            what = f"`{action}`" if action != "block" else "not a `tool: shell` rule"
            self.emit(
                "fix-not-block",
                f"`fix` needs a `block` rule on shell calls; rule `{rid}` is {what}",
                fv.span,
                rid,
                "a fix rewrites a refused shell command: use `action: block` and `tool: shell`",
            )
            return None
        if not isinstance(node, YMap):
            return None  # the loader said it must be a mapping
        unknown = [k for k in node if k not in ("replace", "with")]
        if unknown:
            self.emit(
                "fix-not-block",
                f"`fix` has `{unknown[0]}`; it takes `replace` and `with`",
                node.key_span(unknown[0]),
                rid,
            )
            return None
        parts: dict[str, YNode] = {}
        for key in ("replace", "with"):
            part = node.get(key)
            if part is None:
                self.emit("fix-not-block", f"`fix` needs `{key}`", fv.span, rid)
                return None
            if not isinstance(part.value, str) or (key == "replace" and not part.value):
                kind = "a non-empty pattern" if key == "replace" else "a string"
                self.emit("fix-not-block", f"`fix.{key}` must be {kind}", part.span, rid)
                return None
            parts[key] = part
        pattern, replacement = str(parts["replace"].value), str(parts["with"].value)
        self.regex_checks.append((pattern, pattern, parts["replace"].span, rid, "", id(node)))
        self.rewrite_checks.append((pattern, replacement, parts["with"], rid))
        return pattern, replacement

    def rule(self, rule: Rule) -> RuleInfo:
        eff = effective(rule, self.pkg)
        bad = {k for k, fv in rule.fields.items() if fv.origin == INVALID}
        self.structure(rule, eff, bad)
        names = eff.get("names") or []
        info = RuleInfo(
            rule,
            eff,
            points(eff),
            None,
            None,
            (),
            None,
            tool_list(eff),
            list(names) if isinstance(names, list) else [names],
            0,
            False,
        )
        info.condition, info.harnesses = self.when(rule)
        if info.condition is not None:
            self.check_tree(info.condition, info, bad)
        if "unless" in rule.fields:
            info.unless, unless_harnesses = self.when(rule, "unless")
            if unless_harnesses is not None:
                self.emit(
                    "invalid-condition",
                    "`unless` cannot name harnesses; narrow the rule with `when.harness`",
                    rule.span_of("unless"),
                    rule.id,
                )
            if info.unless is not None:
                self.check_tree(info.unless, info, bad)
        if "fix" in rule.fields and "fix" not in bad:
            info.fix = self.fix(rule, info, bad)
        body = self.template(rule.body, rule.body_node, info, bad)
        info.body = body.segments
        worst = body.worst
        model_text: _Template | None = None
        fv = rule.fields.get("model_text")
        if fv is not None and fv.origin != INVALID:
            model_text = self.template(fv.value, fv.node, info, bad)
            info.model_text = model_text.segments
            if eff["action"] == "warn":
                worst += model_text.worst
        if (
            eff["action"] == "warn"
            and body.first_event is not None
            and "model_text" not in rule.fields
            and "action" not in bad
        ):
            self.emit(
                "event-warn-model-text",
                f"warn rule `{rule.id}` uses event content; add a `model_text` for the model",
                body.first_event,
                rule.id,
            )
        info.worst_tokens = worst
        dynamic = body.first_event is not None or body.uses_runtime
        if model_text is not None:
            dynamic = dynamic or model_text.first_event is not None or model_text.uses_runtime
        info.static = eff["target"] == "system" and info.condition is None and not dynamic
        max_tokens = eff["max_tokens"]
        # The body is what is too large; an empty placeholder body points at its rule.
        where = rule.body_node.span if rule.body else rule.span
        if worst > max_tokens and "max_tokens" not in bad:
            self.emit(
                "budget-rule",
                f"rule `{rule.id}` may use {worst} tokens, over its `max_tokens` of {max_tokens}",
                where,
                rule.id,
            )
        if worst > self.pkg.per_event:
            self.emit(
                "budget-event",
                f"rule `{rule.id}` alone may use {worst} tokens, over "
                f"`budget.per_event` of {self.pkg.per_event}",
                where,
                rule.id,
            )
        info.model_span = _model_span(info)
        if info.model_span is not None and "session.start" in info.points:
            self.emit(
                "model-unknown-at-start",
                f"rule `{rule.id}` reads the model at session.start, where Claude Code and "
                "Gemini CLI do not name it yet: there it is `unknown` when a session starts",
                info.model_span,
                rule.id,
            )
        # A stop's block reason is the agent's next instruction: the history list it names
        # (the files left untested) is what it acts on, so only the rest counts as wording.
        reason = worst - body.state_tokens if set(info.points) <= STOP_POINTS else worst
        if eff["action"] == "block" and reason > BLOCK_REASON_TOKENS:
            self.emit(
                "T005",
                f"block reason of `{rule.id}` is about {reason} tokens; keep it "
                f"under {BLOCK_REASON_TOKENS}",
                where,
                rule.id,
            )
        return info

    def exception(self, decl: ExceptionDecl) -> ExceptionInfo | None:
        """Check one `exceptions:` entry's condition as a rule's `unless` is checked. Which
        rule it narrows is known only when it is installed beside it: its fields are not
        checked against that rule's tools here, and it may not use settings (they are the
        package's, while the condition is lowered into another package's rule)."""
        rule = Rule(
            id=decl.rule,
            span=decl.span,
            fields={"unless": FieldValue(decl.unless.value, decl.unless, "inline")},
            body="",
            body_node=decl.unless,
            order=-1,
            source=self.pkg.manifest,
        )
        info = RuleInfo(rule, {"target": "tool"}, [], None, None, (), None, ["*"], [], 0, False)
        condition, harnesses = self.when(rule, "unless")
        if harnesses is not None:
            self.emit(
                "invalid-condition",
                "an exception's `unless` cannot name harnesses",
                decl.unless.span,
                decl.rule,
            )
        if condition is None:
            return None
        before = len(self.diags)
        self.check_tree(condition, info, {"tool"})  # availability: the rule is not known here
        preds = [*_preds(condition), *info.item_preds.values()]
        if any(uses(p.value) for p in preds):
            self.emit(
                "invalid-condition",
                "an exception's condition cannot use settings: it is compiled into another "
                "package's rule",
                decl.unless.span,
                decl.rule,
            )
        if any(d.level == "error" for d in self.diags[before:]):
            return None
        return ExceptionInfo(decl, condition, info)

    def budget_sum(self, infos: list[RuleInfo]) -> None:
        """Warn where rules that can fire on one event could together pass `per_event`."""
        buckets: dict[tuple[str, str], list[RuleInfo]] = {}
        for info in infos:
            if not info.eff["enabled"] or info.eff["action"] in VERDICT_ACTIONS:
                continue
            target = info.eff["target"]
            if target == "tool":
                keys = sorted(resolve_tools(info.tools)) or ["other"]
            elif target in ("mcp", "skill"):
                keys = [target]
            else:
                keys = ["*"]
            for point in info.points:
                for key in keys:
                    buckets.setdefault((point, key), []).append(info)
        warned: set[str] = set()
        for (point, key), members in sorted(buckets.items()):
            if key != "*":
                members = members + buckets.get((point, "*"), [])
            total = 0
            for info in sorted(members, key=lambda i: i.rule.order):
                total += info.worst_tokens
                if total > self.pkg.per_event and len(members) > 1:
                    if point not in warned:
                        warned.add(point)
                        self.emit(
                            "budget-sum",
                            f"rules at {point} could together use {total} "
                            f"tokens, over `budget.per_event` of {self.pkg.per_event}",
                            info.rule.span,
                            info.rule.id,
                        )
                    break


@dataclass(slots=True)
class _Template:
    """A parsed body or `model_text`: segments, worst-case tokens, what it uses."""

    segments: tuple[Segment, ...]
    worst: int
    first_event: Span | None = None  # the first `event.*` variable
    uses_runtime: bool = False
    state_tokens: int = 0  # of `worst`: the history lists (STATE_LIST_VARS) at their worst


def _valid(rule: Rule) -> dict[str, FieldValue]:
    return {k: fv for k, fv in rule.fields.items() if fv.origin != INVALID}


def _preds(node: Node) -> list[Pred]:
    """The field predicates of a condition (not those inside a command condition)."""
    if isinstance(node, Pred):
        return [node]
    if isinstance(node, (CommandPred, CommandItem)):
        return []
    if isinstance(node, Not):
        return _preds(node.item)
    return [p for child in node.items for p in _preds(child)]


def _commands(node: Node) -> list[CommandPred]:
    """The command conditions of a condition tree."""
    if isinstance(node, CommandPred):
        return [node]
    if isinstance(node, (Pred, CommandItem)):
        return []
    if isinstance(node, Not):
        return _commands(node.item)
    return [c for child in node.items for c in _commands(child)]


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


def _event_base(name: str) -> str:
    """`event.tool.input.a.b` → `event.tool.input`; other names unchanged."""
    for prefix in EVENT_PATH_VARS:
        if name.startswith(prefix + "."):
            return prefix
    return name


def _template_path(path: str) -> bool:
    return all(seg and all(c.isalnum() or c == "_" for c in seg) for seg in path.split("."))


def _cannot_match_unknown(glob: object) -> bool:
    if not isinstance(glob, str):
        return False
    try:
        return re.fullmatch(glob_to_regex(glob), "unknown") is None
    except ValueError:
        return False


def validate_package(pkg: Package) -> Validation:
    from agentstyle.policy.re2 import regex_errors  # duckdb is the RE2 that will run them

    v = _Validator(pkg)
    infos = [v.rule(rule) for rule in pkg.rules]
    v.budget_sum(infos)
    exceptions = [e for e in map(v.exception, pkg.exceptions) if e is not None]
    for decl in pkg.exceptions:
        _check_target(v, decl)
    errors: dict[str, str] = {}
    if v.regex_checks:
        errors = regex_errors(sorted({c[0] for c in v.regex_checks}))
        reported: set[int] = set()
        for pattern, shown, span, rid, note, group in v.regex_checks:
            if pattern in errors and group not in reported:
                reported.add(group)
                problem = errors[pattern]
                if shown != pattern:  # RE2 quotes the text with stand-ins: not what was written
                    problem = problem.split(": ", 1)[0]
                v.emit("bad-pattern", f"regex `{shown}`{note}: {problem}", span, rid)
    if v.rewrite_checks:
        _check_rewrites(v, errors)
    return Validation(infos, v.diags, exceptions)


def _check_target(v: _Validator, decl: ExceptionDecl) -> None:
    """An exception for a rule of this package or of a bundled one names a rule it has."""
    package, _, rule = decl.rule.partition("/")
    ids = [r.id for r in v.pkg.rules] if package == v.pkg.name else _bundled_rule_ids(package)
    if ids is None or rule in ids:
        return  # another package's: whether it is installed is known at install (compile.py)
    v.emit(
        "exception-target",
        f"exception for `{decl.rule}`: package `{package}` has no rule `{rule}`",
        decl.rule_span,
        None,
        did_you_mean(rule, ids),
    )


@functools.cache
def _bundled_rule_ids(name: str) -> list[str] | None:
    """The rule ids of a bundled library package, or None when no bundled package has that
    name."""
    from importlib import resources

    from agentstyle.policy.load import load_package

    folder = resources.files("agentstyle").joinpath("library").joinpath(name)
    if not folder.joinpath("STYLE.yaml").is_file():
        return None
    loaded = load_package(str(folder))
    return [r.id for r in loaded.package.rules] if loaded.package is not None else None


_REWRITE_ESCAPE = re.compile(r"\\(.?)", re.S)


def _check_rewrites(v: _Validator, pattern_errors: dict[str, str]) -> None:
    """Each fix's replacement as RE2 will apply it: a group the pattern lacks or a backslash
    RE2 does not take is reported at its character (`fix-rewrite`)."""
    from agentstyle.policy.re2 import rewrite_errors

    checks = [c for c in v.rewrite_checks if c[0] not in pattern_errors]
    errors = rewrite_errors([(pattern, replacement) for pattern, replacement, _n, _r in checks])
    for pattern, replacement, node, rid in checks:
        problem = errors.get((pattern, replacement))
        if problem is None:
            continue
        groups = errors_groups(problem)
        offset, shown = 0, ""
        for m in _REWRITE_ESCAPE.finditer(replacement):
            ref = m.group(1)
            if (ref.isdigit() and groups is not None and int(ref) > groups) or (
                not ref.isdigit() and ref != "\\"
            ):
                offset, shown = m.start(), m.group(0)
                break
        if groups is not None:
            plural = "group" if groups == 1 else "groups"
            message = f"`fix.with` uses `{shown}`, but `replace` has {groups} {plural}"
        else:
            message = (
                f"`fix.with` has `{shown or replacement}`: after a backslash RE2 takes only "
                "a digit (`\\0` to `\\9`) or another backslash"
            )
        v.emit("fix-rewrite", message, node.locate(offset), rid)


_GROUPS = re.compile(r"only has (\d+) parenthesized")


def errors_groups(problem: str) -> int | None:
    """The number of groups RE2 says the pattern has, when that is the problem."""
    m = _GROUPS.search(problem)
    return int(m.group(1)) if m else None
