"""Validate a loaded package: every semantic diagnostic of diagnostics.md, collected at once."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentstyle.diagnostics import Diagnostic
from agentstyle.engine.load import HARNESSES
from agentstyle.engine.model import Package, Rule
from agentstyle.engine.rules import effective, evaluated_at_session_start, points, tool_list
from agentstyle.engine.yamlpos import YMap, YNode, YSeq
from agentstyle.grammar.ast import And, GrammarError, Node, Not, Or, Pred, Segment, Text, Var
from agentstyle.grammar.globs import glob_to_regex, is_glob
from agentstyle.grammar.parse import parse_condition, parse_template
from agentstyle.source import Span
from agentstyle.vocabulary import (
    BLOCK_REASON_TOKENS,
    CONDITION_FIELDS,
    DEDUP_BREAKING_VARS,
    DENY_POINTS,
    EVENT_VAR_WORST_TOKENS,
    EVENT_VARS,
    EVENTS,
    FAIL_CLOSED_POINTS,
    GLOB_OPS,
    NUMERIC_OPS,
    OPERATORS,
    PATH_FIELDS,
    REGEX_OPS,
    RUNTIME_VAR_WORST_TOKENS,
    RUNTIME_VARS,
    TOOL_POINTS,
    TOOLS,
    VERDICT_ACTIONS,
    Availability,
    estimate_tokens,
)

# Runtime variables that a harness may leave empty (var-no-default); harness.name is always set.
MAYBE_EMPTY_VARS = RUNTIME_VARS - {"harness.name"}
WHEN_KEYS = ("model", "harness", "conditions", "any", "expr")


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


@dataclass(slots=True)
class Validation:
    rules: list[RuleInfo]
    diagnostics: list[Diagnostic]


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
        self.regex_checks: list[tuple[str, Span, str]] = []
        self.settings = {s.name: s for s in pkg.settings}

    def emit(self, code: str, message: str, span: Span | None, rule: str | None) -> None:
        self.diags.append(Diagnostic.make(code, message, span, rule=rule))

    # -- structure ----------------------------------------------------------------------------

    def structure(self, rule: Rule, eff: dict[str, Any]) -> None:
        rid, target, action = rule.id, eff["target"], eff["action"]
        wrong = {
            "tool": target != "tool",
            "names": target not in ("tool", "mcp"),
            "mcp": target != "mcp",
            "skill": target != "skill",
            "event": target != "event",
            "at": target not in ("tool", "mcp", "skill"),
        }
        for name, is_wrong in wrong.items():
            if is_wrong and name in rule.fields:
                self.emit(
                    "field-target",
                    f"field `{name}` does not apply to target `{target}`",
                    rule.span_of(name),
                    rid,
                )
        if target == "tool" and "tool" not in rule.fields and "names" not in rule.fields:
            self.emit(
                "tool-missing",
                f"tool rule `{rid}` needs `tool` or `names`",
                rule.span_of("target"),
                rid,
            )
        if target == "event":
            event = eff.get("event")
            if event is None:
                self.emit(
                    "unknown-event",
                    f"event rule `{rid}` needs an `event`",
                    rule.span_of("target"),
                    rid,
                )
            elif event not in EVENTS:
                self.emit(
                    "unknown-event",
                    f"`{event}` is not a normalized event name",
                    rule.span_of("event"),
                    rid,
                )
        for t in tool_list(eff):
            if t not in TOOLS and not is_glob(t):
                self.emit(
                    "unknown-tool",
                    f"`{t}` is not a normalized tool; use `names` for native tool names",
                    rule.span_of("tool"),
                    rid,
                )
        pts = points(eff)
        verdict = action in VERDICT_ACTIONS
        if verdict:
            if target == "system" or (target == "event" and pts and pts[0] not in DENY_POINTS):
                where = f"event `{pts[0]}`" if target == "event" and pts else f"target `{target}`"
                self.emit(
                    "action-target",
                    f"rule `{rid}` cannot `{action}` on {where}: it cannot deny",
                    rule.span_of("action"),
                    rid,
                )
            if "at" in rule.fields and eff["at"] == "after":
                self.emit(
                    "block-after",
                    f"rule `{rid}` is a {action} rule and cannot run at: after",
                    rule.span_of("at"),
                    rid,
                )
            if "repeat" in rule.fields:
                self.emit(
                    "block-repeat",
                    f"`repeat` is ignored on {action} rule `{rid}`",
                    rule.span_of("repeat"),
                    rid,
                )
        if eff["fail"] == "closed":
            ok = bool(pts) and all(p in FAIL_CLOSED_POINTS for p in pts) and target != "system"
            if not ok:
                self.emit(
                    "fail-closed-target",
                    f"rule `{rid}` uses `fail: closed` where the point cannot deny",
                    rule.span_of("fail"),
                    rid,
                )
        refresh = eff.get("refresh")
        if isinstance(refresh, int) and not isinstance(refresh, bool) and refresh > 0:
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
        if rule.get("reinject_on_compact") is True and eff.get("repeat") != "session":
            self.emit(
                "reinject-unused",
                f"`reinject_on_compact` has no effect without `repeat: "
                f"session` (rule `{rid}` repeats `{eff.get('repeat')}`)",
                rule.span_of("reinject_on_compact"),
                rid,
            )
        if "sources" in rule.fields and not evaluated_at_session_start(eff):
            self.emit(
                "sources-unused",
                f"`sources` has no effect: rule `{rid}` is not evaluated at session.start",
                rule.span_of("sources"),
                rid,
            )
        if "model_text" in rule.fields and action != "warn":
            self.emit(
                "model-text-unused",
                f"`model_text` is only used by warn rules, rule `{rid}` is `{action}`",
                rule.span_of("model_text"),
                rid,
            )
        repeated = eff.get("repeat") in ("every", "turn") or (
            isinstance(refresh, int) and refresh > 0
        )
        if action == "inject" and repeated and "reason" not in rule.fields:
            self.emit(
                "T007",
                f"rule `{rid}` injects repeatedly; add a `reason` saying why",
                rule.span,
                rid,
            )

    # -- conditions ---------------------------------------------------------------------------

    def when(self, rule: Rule) -> tuple[Node | None, list[str] | None]:
        fv = rule.fields.get("when")
        if fv is None:
            return None, None
        node = fv.node
        if isinstance(node.value, str):
            return self.parse_expr(node, rule), None
        if not isinstance(node, YMap):
            return None, None
        parts: list[Node] = []
        harnesses: list[str] | None = None
        for key in node:
            value = node.items[key][1]
            if key not in WHEN_KEYS:
                self.emit(
                    "invalid-condition",
                    f"unknown `when` key `{key}` (expected one of: {', '.join(WHEN_KEYS)})",
                    node.key_span(key),
                    rule.id,
                )
            elif key == "model":
                globs = value.value if isinstance(value.value, list) else [value.value]
                if not all(isinstance(g, str) for g in globs) or not globs:
                    self.emit(
                        "invalid-condition",
                        "`when.model` must be a glob or a list of globs",
                        value.span,
                        rule.id,
                    )
                    continue
                preds: list[Node] = [Pred("model", "glob", g, value.span) for g in globs]
                parts.append(preds[0] if len(preds) == 1 else Or(tuple(preds), value.span))
            elif key == "harness":
                names = value.value if isinstance(value.value, list) else [value.value]
                bad = [h for h in names if h not in HARNESSES]
                if bad:
                    self.emit(
                        "invalid-condition",
                        f"unknown harness `{bad[0]}` in `when.harness`",
                        value.span,
                        rule.id,
                    )
                harnesses = [h for h in names if h in HARNESSES]
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

    def parse_expr(self, node: YNode, rule: Rule) -> Node | None:
        try:
            return parse_condition(node.value, node.locate)
        except GrammarError as exc:
            self.emit("invalid-condition", exc.message, exc.span, rule.id)
            return None

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
            unknown = [k for k in item if k not in ("field", "op", "pattern", "value")]
            if unknown:
                self.emit(
                    "invalid-condition",
                    f"unknown condition key `{unknown[0]}`",
                    item.key_span(unknown[0]),
                    rule.id,
                )
                continue
            fld, op = item.get("field"), item.get("op")
            if fld is None or not isinstance(fld.value, str):
                self.emit("invalid-condition", "condition item needs a `field`", item.span, rule.id)
                continue
            if op is None or not isinstance(op.value, str):
                self.emit("invalid-condition", "condition item needs an `op`", item.span, rule.id)
                continue
            if op.value not in OPERATORS:
                self.emit("invalid-condition", f"unknown operator `{op.value}`", op.span, rule.id)
                continue
            pat = item.get("pattern") or item.get("value")
            raw = pat.value if pat is not None else None
            val: Any = tuple(raw) if isinstance(raw, list) else raw
            if op.value not in ("exists", "missing") and pat is None:
                self.emit(
                    "invalid-condition",
                    f"operator `{op.value}` needs a `pattern`",
                    item.span,
                    rule.id,
                )
                continue
            out.append(Pred(fld.value, op.value, val, pat.span if pat is not None else item.span))
        return out

    def check_tree(self, node: Node, info: RuleInfo) -> None:
        if isinstance(node, (And, Or)):
            for child in node.items:
                self.check_tree(child, info)
            return
        if isinstance(node, Not):
            self.check_tree(node.item, info)
            return
        self.check_pred(node, info)

    def check_pred(self, pred: Pred, info: RuleInfo) -> None:
        rid = info.rule.id
        avail = field_availability(pred.field)
        if avail is None:
            self.emit("invalid-condition", f"unknown field `{pred.field}`", pred.span, rid)
            return
        if not is_available(avail, info.points, info.eff, resolve_tools(info.tools), info.names):
            where = ", ".join(info.points) or "no point"
            self.emit(
                "field-unavailable",
                f"field `{pred.field}` cannot exist at {where} for rule `{rid}`",
                pred.span,
                rid,
            )
        op, value = pred.op, pred.value
        if (
            op in REGEX_OPS
            or op in GLOB_OPS
            or op in ("contains", "not_contains", "starts_with", "ends_with")
        ) and not isinstance(value, str):
            self.emit(
                "invalid-condition", f"operator `{op}` needs a string pattern", pred.span, rid
            )
            return
        if op in REGEX_OPS:
            self.regex_checks.append((str(value), pred.span, rid))
            info.regexes[id(pred)] = str(value)
        elif op in GLOB_OPS:
            try:
                info.regexes[id(pred)] = glob_to_regex(str(value))
            except ValueError as exc:
                self.emit("bad-pattern", f"glob `{value}`: {exc}", pred.span, rid)
        elif op in NUMERIC_OPS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                self.emit("invalid-condition", f"operator `{op}` needs a number", pred.span, rid)
        elif op == "in" and not isinstance(value, tuple):
            self.emit("invalid-condition", "operator `in` needs a list", pred.span, rid)

    # -- templates ----------------------------------------------------------------------------

    def template(
        self, text: str, node: YNode, info: RuleInfo, *, model_text: bool
    ) -> tuple[tuple[Segment, ...], int, bool, bool]:
        """(segments, worst-case tokens, uses event content, uses runtime variables)."""
        rid = info.rule.id
        locate: Callable[[int], Span] = node.locate
        try:
            segments = parse_template(text, locate)
        except GrammarError as exc:
            self.emit("invalid-template", exc.message, exc.span, rid)
            return (), estimate_tokens(text), False, False
        static_bytes = 0
        dynamic_tokens = 0
        uses_event = uses_runtime = False
        for seg in segments:
            if isinstance(seg, Text):
                static_bytes += len(seg.text.encode())
                continue
            kind = self.variable(seg, info)
            if kind == "setting":
                setting = self.settings.get(seg.name.split(".", 1)[1])
                value = setting.default if setting is not None else ""
                static_bytes += len(str(value if value is not None else "").encode())
            elif kind == "event":
                uses_event = True
                dynamic_tokens += EVENT_VAR_WORST_TOKENS
            elif kind == "runtime":
                uses_runtime = True
                dynamic_tokens += RUNTIME_VAR_WORST_TOKENS
        return segments, (static_bytes + 3) // 4 + dynamic_tokens, uses_event, uses_runtime

    def variable(self, var: Var, info: RuleInfo) -> str:
        rid, name = info.rule.id, var.name
        if name.startswith("settings."):
            setting = name.split(".", 1)[1]
            if setting not in self.settings:
                self.emit(
                    "undeclared-var",
                    f"`{{{{{name}}}}}` uses undeclared setting `{setting}`",
                    var.span,
                    rid,
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
            base = name
            for prefix in ("event.tool.input", "event.tool.output"):
                if name.startswith(prefix + "."):
                    base = prefix
                    path = name[len(prefix) + 1 :].split(".")
                    if not all(seg and all(c.isalnum() or c == "_" for c in seg) for seg in path):
                        self.emit(
                            "undeclared-var",
                            f"`{{{{{name}}}}}`: a path segment in a "
                            "template is letters, digits and `_` only",
                            var.span,
                            rid,
                        )
                        return "error"
            if base not in EVENT_VARS:
                self.emit("undeclared-var", f"unknown variable `{{{{{name}}}}}`", var.span, rid)
                return "error"
            avail = CONDITION_FIELDS[base[len("event.") :]]
            if not is_available(
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
        if field_availability(name) is not None and not name.startswith("state."):
            self.emit(
                "event-var-in-template",
                f"event content needs the `event.` prefix: `{{{{event.{name}}}}}`",
                var.span,
                rid,
            )
            return "error"
        self.emit("undeclared-var", f"unknown variable `{{{{{name}}}}}`", var.span, rid)
        return "error"

    def guaranteed(self, name: str, info: RuleInfo) -> bool:
        """`when.model` without `unknown` guarantees `{{model}}` (seed 002)."""
        if name != "model":
            return False
        when = info.rule.get("when")
        if not isinstance(when, dict) or "model" not in when:
            return False
        globs = when["model"] if isinstance(when["model"], list) else [when["model"]]
        return all(isinstance(g, str) and not fnmatch.fnmatchcase("unknown", g) for g in globs)

    # -- whole rule ---------------------------------------------------------------------------

    def rule(self, rule: Rule) -> RuleInfo:
        eff = effective(rule, self.pkg)
        self.structure(rule, eff)
        names = rule.get("names") or []
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
            self.check_tree(info.condition, info)
        body_segments, worst, body_event, body_runtime = self.template(
            rule.body, rule.body_node, info, model_text=False
        )
        info.body = body_segments
        mt_event = mt_runtime = False
        if "model_text" in rule.fields:
            fv = rule.fields["model_text"]
            segs, mt_worst, mt_event, mt_runtime = self.template(
                fv.value, fv.node, info, model_text=True
            )
            info.model_text = segs
            if eff["action"] == "warn":
                worst += mt_worst
        if eff["action"] == "warn" and body_event and "model_text" not in rule.fields:
            self.emit(
                "event-warn-model-text",
                f"warn rule `{rule.id}` uses event content; add a `model_text` for the model",
                rule.span,
                rule.id,
            )
        info.worst_tokens = worst
        info.static = (
            eff["target"] == "system"
            and info.condition is None
            and not (body_event or body_runtime or mt_event or mt_runtime)
        )
        max_tokens = eff["max_tokens"]
        if worst > max_tokens:
            self.emit(
                "budget-rule",
                f"rule `{rule.id}` may use {worst} tokens, over its `max_tokens` of {max_tokens}",
                rule.span,
                rule.id,
            )
        if worst > self.pkg.per_event:
            self.emit(
                "budget-event",
                f"rule `{rule.id}` alone may use {worst} tokens, over "
                f"`budget.per_event` of {self.pkg.per_event}",
                rule.span,
                rule.id,
            )
        if eff["action"] == "block" and worst > BLOCK_REASON_TOKENS:
            self.emit(
                "T005",
                f"block reason of `{rule.id}` is about {worst} tokens; keep it "
                f"under {BLOCK_REASON_TOKENS}",
                rule.body_node.span,
                rule.id,
            )
        return info

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


def validate_package(pkg: Package) -> Validation:
    from agentstyle.engine.store import regex_errors  # duckdb is the RE2 that will run them

    v = _Validator(pkg)
    infos = [v.rule(rule) for rule in pkg.rules]
    v.budget_sum(infos)
    if v.regex_checks:
        errors = regex_errors(sorted({p for p, _, _ in v.regex_checks}))
        for pattern, span, rid in v.regex_checks:
            if pattern in errors:
                v.emit("bad-pattern", f"regex `{pattern}`: {errors[pattern]}", span, rid)
    return Validation(infos, v.diags)
