"""Lower validated rules and their plan into the rows of the policy tables
(docs/design/storage.md#policy-tables)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentstyle.diagnostics import Diagnostic
from agentstyle.grammar.ast import (
    And,
    CommandItem,
    CommandPred,
    Node,
    Not,
    Or,
    Pred,
    Segment,
    Text,
    Value,
    Var,
)
from agentstyle.grammar.globs import glob_to_regex
from agentstyle.policy.commandconds import (
    Literal,
    WhereTooComplex,
    canonical_options,
    heads_of,
    narrowed,
    where_clauses,
)
from agentstyle.policy.model import Package
from agentstyle.policy.plan import PlanEntry
from agentstyle.policy.prefilter import any_literal, required_literal, required_runs
from agentstyle.policy.rows import (
    CommandHeadRow,
    CommandLiteralRow,
    ConditionClauseRow,
    ConditionRow,
    EntryRow,
    PolicyRows,
    RuleExceptionRow,
    RuleRow,
    RuleToolRow,
    TemplateRow,
)
from agentstyle.policy.settingrefs import Setting, SettingProblem, resolve, uses
from agentstyle.policy.validate import RuleInfo
from agentstyle.source import Span
from agentstyle.vocabulary import (
    COMMAND_KEY_PREFIX,
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
    if isinstance(node, (Pred, CommandPred)):
        return [[(ids[id(node)], negate)]]
    if isinstance(node, Not):
        return _literals(node.item, ids, not negate)
    if isinstance(node, CommandItem):
        raise TypeError("a command item outside a command condition")
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
    rule_id: str,
    node: Node,
    info: RuleInfo,
    rows: PolicyRows,
    low: Lowering | None = None,
    *,
    shadow: bool = False,
) -> None:
    """The `conditions` and `condition_clauses` rows of a condition tree. `shadow`: the rule's
    condition as written, beside its narrowed one (its nodes and clauses numbered after)."""
    ids: dict[int, int] = {}
    negated_op: dict[int, bool] = {}
    mine = [r for r in rows.conditions if r.rule_id == rule_id] if shadow else []
    counter = [max((r.node_id for r in mine), default=0)]
    first_clause = 1
    if shadow:
        taken = [c.clause_id for c in rows.condition_clauses if c.rule_id == rule_id]
        first_clause = max(taken, default=0) + 1
    low = low if low is not None else Lowering()

    def walk(n: Node, parent: int | None) -> None:
        counter[0] += 1
        nid = counter[0]
        ids[id(n)] = nid
        if isinstance(n, CommandPred):
            negated_op[nid] = False
            rows.conditions.append(_command_row(rule_id, nid, parent, n))
            lower_command(rule_id, nid, n, info, rows, low)
            return
        if isinstance(n, CommandItem):
            raise TypeError("a command item outside a command condition")
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
    for cid, clause in enumerate(_literals(node, ids), start=first_clause):
        for nid, neg in clause:
            rows.condition_clauses.append(
                ConditionClauseRow(
                    rule_id=rule_id,
                    clause_id=cid,
                    node_id=nid,
                    negated=neg != negated_op[nid],
                    clause_size=len(clause),
                    shadow=shadow,
                )
            )


def _command_row(rule_id: str, nid: int, parent: int | None, n: CommandPred) -> ConditionRow:
    """The `conditions` row of a command condition: a predicate on the field row its holding
    adds (sql/evaluate/commands.sql), found or not."""
    return ConditionRow(
        rule_id=rule_id,
        node_id=nid,
        parent_id=parent,
        kind="pred",
        field="command",
        lookup_field=f"{COMMAND_KEY_PREFIX}{rule_id}#{nid}",
        field_regex=None,
        op="command",
        base_op="exists",
        pattern=", ".join(heads_of(n)),
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


def lower_command(
    rule_id: str, nid: int, command: CommandPred, info: RuleInfo, rows: PolicyRows, low: Lowering
) -> None:
    """The rows of one command condition: its names and its `where` as clauses of literals
    (docs/design/commands.md#evaluation)."""
    for head in heads_of(command):
        rows.command_heads.append(CommandHeadRow(rule_id=rule_id, node_id=nid, head=head))
    try:
        clauses = where_clauses(command.where)
    except WhereTooComplex:
        raise TooComplex from None
    for cid, clause in enumerate(clauses, start=1):
        literals = [_command_literal(lit, command, info, low) for lit in clause]
        parts = [x for x in literals if x is not None] or [_NEVER]
        for kind, negated, fields_ in parts:
            rows.command_literals.append(
                CommandLiteralRow(
                    rule_id=rule_id,
                    node_id=nid,
                    clause_id=cid,
                    clause_size=len(parts),
                    negated=negated,
                    kind=kind,
                    line=command.span.line,
                    col=command.span.column,
                    **{**_NO_TEST, **fields_},
                )
            )


# A field no event has: `missing` on it always holds (the shadow of a rule without `when`).
_NEVER_FIELD = "style.never"
# A literal no command row has, negated: a clause with nothing else always holds.
_NEVER: tuple[str, bool, dict[str, Any]] = ("never", True, {})
_NO_TEST: dict[str, Any] = {
    "keys": None,
    "regex": None,
    "equals": None,
    "equals_num": None,
    "one_of": None,
    "num": None,
    "num_signs": None,
    "path_tests": None,
}
_ITEM_KINDS = {
    "option": "opt",
    "operand": "arg",
    "operands": "nargs",
    "text": "text",
    "head": "head",
    "env": "env",
}
_NUM_SIGNS = {"gt": [1], "gte": [0, 1], "lt": [-1], "lte": [-1, 0]}


def _command_literal(
    lit: Literal, command: CommandPred, info: RuleInfo, low: Lowering
) -> tuple[str, bool, dict[str, Any]] | None:
    """(kind, negated, the row's test columns) of one literal of a `where` clause."""
    if lit.item is None:
        tests = [_path_test(item, neg, info, low) for item, neg in lit.tests]
        return "path", lit.negated, {"path_tests": tests}
    item = lit.item
    kind = str(item.value) if item.kind == "runs" else _ITEM_KINDS[item.kind]
    fields_: dict[str, Any] = {}
    negated = lit.negated
    if item.kind == "option":
        fields_["keys"] = canonical_options(command, item.name or "")
    elif item.kind == "env":
        fields_["keys"] = [item.name]
    if item.op == "exists":
        return kind, negated, fields_
    op, value, regex = _item_value(item, info, low)
    if op in NEGATED_OPS:
        negated, op = not negated, NEGATED_OPS[op]
    fields_.update(_value_test(op, value, regex))
    return kind, negated, fields_


def _item_value(item: CommandItem, info: RuleInfo, low: Lowering) -> tuple[str, Value, str | None]:
    """The item's operator, value (settings filled in) and RE2 regex, if its operator has one."""
    proxy = info.item_preds.get(id(item))
    if proxy is None:  # a head test an exception added: its value is its names
        return item.op, item.value, None
    value, regex = proxy.value, info.regexes.get(id(proxy))
    if id(proxy) in info.setting_preds:
        value, regex = installed_value(proxy, info, low)
    return item.op, value, regex


def _value_test(op: str, value: Value, regex: str | None) -> dict[str, Any]:
    if op in ("regex", "glob"):
        return {"regex": regex}
    if op in ("contains", "starts_with", "ends_with"):
        text = _escaped(_scalar(value))
        pattern = {"contains": text, "starts_with": "^" + text, "ends_with": text + "$"}[op]
        return {"regex": pattern}
    if op == "equals":
        return {"equals": _scalar(value), "equals_num": number_of(value)}
    if op == "in":
        items = value if isinstance(value, tuple) else (value,)
        return {"one_of": [_scalar(x) for x in items]}
    if op in _NUM_SIGNS:
        return {"num": number_of(value), "num_signs": _NUM_SIGNS[op]}
    raise ValueError(f"no test for operator `{op}`")


def _path_test(item: CommandItem, neg: bool, info: RuleInfo, low: Lowering) -> dict[str, Any]:
    """One test of a path literal: a role it has, a place, or a regex one of its forms
    (absolute, project-relative, `~/…`) matches."""
    test: dict[str, Any] = {"role": item.role, "tag": None, "regex": None, "neg": neg}
    if item.op in ("inside", "outside", "is"):
        test["tag"] = f"{item.op}:{item.value}"
    elif item.op != "exists":
        op, value, regex = _item_value(item, info, low)
        if op in NEGATED_OPS:
            test["neg"], op = not neg, NEGATED_OPS[op]
        found = _value_test(op, value, regex)
        if "regex" in found:
            test["regex"] = found["regex"]
        elif "equals" in found:
            test["regex"] = "^" + _escaped(str(found["equals"])) + "$"
        elif "one_of" in found:
            test["regex"] = "^(" + "|".join(_escaped(str(x)) for x in found["one_of"]) + ")$"
        else:
            raise ValueError(f"a path cannot be compared with `{op}`")
    return test


def _escaped(text: str) -> str:
    """`text` as a literal RE2 pattern."""
    return re.sub(r"([\\.^$*+?()\[\]{}|])", r"\\\1", text)


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
    if node is None or isinstance(node, (CommandPred, CommandItem)):
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
    excepted: Sequence[tuple[Package, Any]] = (),
) -> None:
    """The rows of one rule; `settings` are the package's installed values (text); `excepted`
    the exceptions packages make to it, with their package (docs/packages.md#exceptions)."""
    if low is None:
        low = Lowering()
    low.settings = {
        d.name: Setting(d.type, settings[d.name]) for d in pkg.settings if d.name in settings
    }
    low.diags = diags
    eff, rule = info.eff, info.rule
    rid = qualified(pkg, rule.id)
    condition = info.condition
    unlesses = [*([info.unless] if info.unless is not None else [])]
    unlesses += [exc.condition for _pkg, exc in excepted]
    for unless in unlesses:
        condition = narrowed(condition, unless)
    for owner, exc in excepted:
        rows.rule_exceptions.append(
            RuleExceptionRow(
                rule_id=rid,
                package=owner.name,
                reason=exc.decl.reason,
                source_file=exc.decl.span.file,
                source_line=exc.decl.span.line,
            )
        )
    if info.unless is not None:
        rows.rule_exceptions.append(
            RuleExceptionRow(
                rule_id=rid,
                package=pkg.name,
                reason="its own `unless`",
                source_file=rule.span_of("unless").file,
                source_line=rule.span_of("unless").line,
            )
        )
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
            has_condition=condition is not None,
            uses_rule_state=uses_rule_state(condition),
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
    if condition is not None:
        try:
            lower_condition(rid, condition, info, rows, low)
            if unlesses:
                # the condition as written: where it holds and the narrowed one does not, an
                # exception took effect (match.sql's `excepted`)
                written = info.condition or Pred(_NEVER_FIELD, "missing", None, rule.span)
                lower_condition(rid, written, info, rows, low, shadow=True)
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
