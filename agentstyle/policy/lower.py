"""Lower validated rules and their plan into the rows of the policy tables
(docs/design/storage.md#policy-tables)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agentstyle.diagnostics import Diagnostic
from agentstyle.grammar.ast import And, Node, Not, Or, Pred, Segment, Text, Value, Var
from agentstyle.grammar.globs import glob_to_regex
from agentstyle.policy.model import Package
from agentstyle.policy.plan import PlanEntry
from agentstyle.policy.prefilter import any_literal, required_literal, required_runs
from agentstyle.policy.rows import (
    ConditionClauseRow,
    ConditionRow,
    EntryRow,
    PolicyRows,
    RuleRow,
    RuleToolRow,
    TemplateRow,
)
from agentstyle.policy.settingrefs import Setting, SettingProblem, resolve, uses
from agentstyle.policy.validate import RuleInfo
from agentstyle.source import Span
from agentstyle.vocabulary import (
    COMMAND_LIST_FIELDS,
    GLOB_OPS,
    NEGATED_OPS,
    REGEX_OPS,
    RULE_STATE_FIELDS,
)

MAX_CLAUSES = 512


class TooComplex(Exception):
    pass


def qualified(pkg: Package, rule_id: str) -> str:
    return f"{pkg.name}/{rule_id}"


def field_regex(field_name: str) -> str | None:
    """An anchored regex over field names for a path with `*` segments."""
    if "*" not in field_name.split("."):
        return None
    parts = ["[^.]+" if seg == "*" else re.escape(seg) for seg in field_name.split(".")]
    return "^" + r"\.".join(parts) + "$"


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def number_of(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    return None


def _literals(
    node: Node, ids: dict[int, int], negate: bool = False
) -> list[list[tuple[int, bool]]]:
    """The DNF of `node` (negation pushed to the predicates) as clauses of (node id, negated)."""
    if isinstance(node, Pred):
        return [[(ids[id(node)], negate)]]
    if isinstance(node, Not):
        return _literals(node.item, ids, not negate)
    conj = isinstance(node, And) != negate  # De Morgan: a negated or is an and
    parts = [_literals(child, ids, negate) for child in node.items]
    if not conj:
        out = [clause for part in parts for clause in part]
    else:
        out = [[]]
        for part in parts:
            out = [a + b for a in out for b in part]
            if len(out) > MAX_CLAUSES:
                raise TooComplex
    if len(out) > MAX_CLAUSES:
        raise TooComplex
    return out


@dataclass(slots=True)
class Lowering:
    """What lowering a package needs beyond its rules: the installed setting values, and
    where to report what they break (a regex checked by RE2 once all rules are lowered)."""

    settings: dict[str, Setting] = field(default_factory=dict)
    diags: list[Diagnostic] = field(default_factory=list)
    regex_checks: list[tuple[str, Span, str, str]] = field(default_factory=list)


def installed_value(pred: Pred, info: RuleInfo, low: Lowering) -> tuple[Value, str | None]:
    """The value and RE2 regex of a predicate with its settings filled in as installed."""
    rid, span = info.rule.id, info.setting_preds[id(pred)]
    try:
        value = resolve(pred, low.settings)
    except SettingProblem as exc:
        low.diags.append(Diagnostic.make("invalid-condition", exc.message, span, rule=rid))
        return None, None
    except KeyError:
        return None, None  # no value at all: `setting-missing`, reported by `settings_for`
    names = sorted({use.name for use in uses(pred.value)})
    note = " (with " + ", ".join(f"`settings.{n}` = `{low.settings[n].text}`" for n in names)
    note += ")"
    if pred.op in REGEX_OPS:
        low.regex_checks.append((str(value), span, rid, note))
        return value, str(value)
    if pred.op in GLOB_OPS:
        try:
            return value, glob_to_regex(str(value))
        except ValueError as exc:
            low.diags.append(
                Diagnostic.make("bad-pattern", f"glob `{value}`{note}: {exc}", span, rule=rid)
            )
            return None, None
    return value, None


def lower_condition(
    rule_id: str, node: Node, info: RuleInfo, rows: PolicyRows, low: Lowering | None = None
) -> None:
    ids: dict[int, int] = {}
    negated_op: dict[int, bool] = {}
    counter = [0]
    low = low if low is not None else Lowering()

    def walk(n: Node, parent: int | None) -> None:
        counter[0] += 1
        nid = counter[0]
        ids[id(n)] = nid
        if isinstance(n, Pred):
            # A negated operator is stored as its positive form plus a flag on the literal.
            negated_op[nid] = n.op in NEGATED_OPS or n.op == "missing"
            base_op = "exists" if n.op == "missing" else NEGATED_OPS.get(n.op, n.op)
            # `shell_regex` reads the event's shell commands, or a list of commands itself
            shell = n.op == "shell_regex" and n.field not in COMMAND_LIST_FIELDS
            lookup = "shell.commands" if shell else n.field
            value, regex = n.value, info.regexes.get(id(n))
            if id(n) in info.setting_preds:
                value, regex = installed_value(n, info, low)
            # a required literal, else a set of literals one of which every match holds; with
            # a required literal, also such a set when it is another test (`git` and then
            # one of the protected names): both are tested before the regex is
            single = required_literal(regex) if regex else None
            group = any_literal(regex, single.literal if single else None) if regex else None
            pre = single or group
            second = (
                group
                if single
                and group
                and group.literal != single.literal
                and group.case_insensitive == single.case_insensitive
                else None
            )
            runs = required_runs(regex) if regex else None
            values = [_scalar(x) for x in value] if isinstance(value, tuple) else None
            pattern = _scalar(value) if value is not None and values is None else None
            rows.conditions.append(
                ConditionRow(
                    rule_id=rule_id,
                    node_id=nid,
                    parent_id=parent,
                    kind="pred",
                    field=n.field,
                    lookup_field=lookup,
                    field_regex=field_regex(lookup),
                    op=n.op,
                    base_op=base_op,
                    pattern=pattern,
                    regex=regex,
                    num=number_of(value),
                    list_values=values,
                    line=n.span.line,
                    col=n.span.column,
                    literal=pre.literal if pre else None,
                    literal_ci=pre.case_insensitive if pre else False,
                    literals=runs[0] if runs else None,
                    any_literal=second.literal if second else None,
                )
            )
            return
        kind = "and" if isinstance(n, And) else "or" if isinstance(n, Or) else "not"
        rows.conditions.append(
            ConditionRow(
                rule_id=rule_id,
                node_id=nid,
                parent_id=parent,
                kind=kind,
                field=None,
                lookup_field=None,
                field_regex=None,
                op=None,
                base_op=None,
                pattern=None,
                regex=None,
                num=None,
                list_values=None,
                line=n.span.line,
                col=n.span.column,
                literal=None,
                literal_ci=False,
                literals=None,
                any_literal=None,
            )
        )
        children = (n.item,) if isinstance(n, Not) else n.items
        for child in children:
            walk(child, nid)

    walk(node, None)
    for cid, clause in enumerate(_literals(node, ids), start=1):
        for nid, neg in clause:
            rows.condition_clauses.append(
                ConditionClauseRow(
                    rule_id=rule_id,
                    clause_id=cid,
                    node_id=nid,
                    negated=neg != negated_op[nid],
                    clause_size=len(clause),
                )
            )


def lower_template(
    template_id: str, segments: tuple[Segment, ...], settings: Mapping[str, str], rows: PolicyRows
) -> None:
    """Template rows; settings are rendered now (install time), runtime variables stay."""
    merged: list[tuple[str, str | None, str | None, str | None]] = []
    for seg in segments:
        if isinstance(seg, Var) and seg.name.startswith("settings."):
            value = settings.get(seg.name.split(".", 1)[1], seg.default or "")
            seg = Text(value, seg.span)
        if isinstance(seg, Text):
            if merged and merged[-1][0] == "text":
                merged[-1] = ("text", (merged[-1][1] or "") + seg.text, None, None)
            else:
                merged.append(("text", seg.text, None, None))
        else:
            merged.append(("var", None, seg.name, seg.default))
    for pos, (kind, text, var, default) in enumerate(merged):
        rows.templates.append(
            TemplateRow(
                template_id=template_id,
                pos=pos,
                kind=kind,
                text=text,
                var=var,
                default_value=default,
            )
        )


def uses_rule_state(node: Node | None) -> bool:
    if node is None:
        return False
    if isinstance(node, Pred):
        return node.field in RULE_STATE_FIELDS
    if isinstance(node, Not):
        return uses_rule_state(node.item)
    return any(uses_rule_state(c) for c in node.items)


def lower_rule(
    pkg: Package,
    info: RuleInfo,
    rule_order: int,
    settings: dict[str, str],
    rows: PolicyRows,
    diags: list[Diagnostic],
    low: Lowering | None = None,
) -> None:
    """The rows of one rule; `settings` are the package's installed values (text)."""
    if low is None:
        low = Lowering()
    low.settings = {
        d.name: Setting(d.type, settings[d.name]) for d in pkg.settings if d.name in settings
    }
    low.diags = diags
    eff, rule = info.eff, info.rule
    rid = qualified(pkg, rule.id)
    body_id = f"{rid}#body"
    mt_id = f"{rid}#model_text" if info.model_text is not None else None
    rows.rules.append(
        RuleRow(
            rule_id=rid,
            package=pkg.name,
            local_id=rule.id,
            target=eff["target"],
            action=eff["action"],
            timing=eff.get("at"),
            repeat=None if eff["action"] in ("block", "ask", "allow") else eff.get("repeat"),
            fail=eff["fail"],
            refresh=int(eff.get("refresh") or 0),
            reinject=bool(eff["reinject_on_compact"]),
            mode=eff["mode"],
            priority=int(eff["priority"]),
            max_tokens=int(eff["max_tokens"]),
            enabled=bool(eff["enabled"]),
            decl_order=rule.order,
            rule_order=rule_order,
            event=eff.get("event"),
            sources=list(eff["sources"]),
            harnesses=info.harnesses,
            body_template=body_id,
            model_text_template=mt_id,
            is_static=info.static,
            has_condition=info.condition is not None,
            uses_rule_state=uses_rule_state(info.condition),
            source_file=rule.source,
            source_line=rule.span.line,
            source_column=rule.span.column,
            fix_pattern=info.fix[0] if info.fix else None,
            fix_template=info.fix[1] if info.fix else None,
        )
    )
    target = eff["target"]
    if target == "tool":
        for t in info.tools:
            rows.rule_tools.append(
                RuleToolRow(rule_id=rid, kind="tool", pattern=t, regex=glob_to_regex(t))
            )
    if target in ("tool", "mcp"):
        for name in info.names:
            rows.rule_tools.append(
                RuleToolRow(
                    rule_id=rid, kind="native", pattern=name, regex="^" + re.escape(name) + "$"
                )
            )
    if target == "mcp":
        server = str(eff.get("mcp", "*"))
        rows.rule_tools.append(
            RuleToolRow(rule_id=rid, kind="mcp", pattern=server, regex=glob_to_regex(server))
        )
    if target == "skill":
        skill = str(eff.get("skill", "*"))
        rows.rule_tools.append(
            RuleToolRow(rule_id=rid, kind="skill", pattern=skill, regex=glob_to_regex(skill))
        )
    if info.condition is not None:
        try:
            lower_condition(rid, info.condition, info, rows, low)
        except TooComplex:
            diags.append(
                Diagnostic.make(
                    "invalid-condition",
                    f"condition of `{rule.id}` is too complex (over "
                    f"{MAX_CLAUSES} alternatives once expanded)",
                    rule.span_of("when"),
                    rule=rule.id,
                )
            )
    lower_template(body_id, info.body, settings, rows)
    if mt_id is not None and info.model_text is not None:
        lower_template(mt_id, info.model_text, settings, rows)


def lower_entries(entries: list[PlanEntry], rows: PolicyRows) -> None:
    for e in entries:
        rows.entries.append(
            EntryRow(
                rule_id=e.rule_id,
                harness=e.harness,
                point=e.point,
                native_event=e.native_event,
                matcher=e.matcher,
                status=e.status,
                reason=e.reason,
                effective_action=e.action,
                effective_repeat=e.repeat,
                capability=e.capability,
            )
        )
