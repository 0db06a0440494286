"""Lower validated rules and their plan into the rows of the policy tables.

See docs/design/storage.md#policy-tables."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic
from agentstyle.globs import glob_to_regex
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
    Var,
)
from agentstyle.policy.checks import filled_command, placed_condition
from agentstyle.policy.commandconds import WhereTooComplex, narrowed
from agentstyle.policy.conditiontree import leaves, normal_form
from agentstyle.policy.lowercommands import (
    FlowNotInlined,
    InlineTooComplex,
    command_row,
    inlinable,
    inline,
    lower_command,
)
from agentstyle.policy.lowervalues import (
    Lowering,
    installed_value,
    number_of,
    scalar,
    split_list_globs,
)
from agentstyle.policy.model import Package
from agentstyle.policy.plan import PlanEntry
from agentstyle.policy.prefilter import any_literal, required_literal, required_runs
from agentstyle.policy.re2 import any_of
from agentstyle.policy.rows import (
    ConditionClauseRow,
    ConditionRow,
    EntryRow,
    PolicyRows,
    RuleExceptionRow,
    RuleRow,
    RuleToolRow,
    TemplateRow,
)
from agentstyle.policy.settingrefs import Setting, SettingProblem, composed, fill_pattern
from agentstyle.policy.validconditions import RuleInfo
from agentstyle.source import Span
from agentstyle.vocabulary import (
    COMMAND_FIELD,
    COMMAND_LIST_FIELDS,
    MCP_TOOL,
    NEGATED_OPS,
    REDACT_SEPARATOR,
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


def _literals(node: Node, ids: dict[int, int]) -> list[list[tuple[int, bool]]]:
    """The DNF of `node` (negation pushed to the predicates) as clauses of (node id, negated)."""

    def leaf(n: Node) -> int | None:
        if isinstance(n, (Pred, CommandPred)):
            return ids[id(n)]
        if isinstance(n, CommandItem):
            raise TypeError("a command item outside a command condition")
        return None

    return normal_form(node, leaf, MAX_CLAUSES, TooComplex, limit_alternatives=True)


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
    condition as written, beside its narrowed one (its nodes and clauses numbered after).

    A clause with one command condition outside a `not` is inlined: one clause per name and
    per clause of its `where`, on the command's own rows (policy/lowercommands.py)."""
    ids: dict[int, int] = {}
    negated_op: dict[int, bool] = {}
    commands: dict[int, CommandPred] = {}  # node id → command condition
    two_level: set[int] = set()  # command conditions lowered to command_heads/literals
    mine = [r for r in rows.conditions if r.rule_id == rule_id] if shadow else []
    counter = [max((r.node_id for r in mine), default=0)]
    cid = 1
    if shadow:
        taken = [c.clause_id for c in rows.condition_clauses if c.rule_id == rule_id]
        cid = max(taken, default=0) + 1
    low = low if low is not None else Lowering()

    def walk(n: Node, parent: int | None) -> None:
        counter[0] += 1
        nid = counter[0]
        ids[id(n)] = nid
        if isinstance(n, CommandPred):
            negated_op[nid] = False
            commands[nid] = n
            rows.conditions.append(command_row(rule_id, nid, parent, n))
            return
        if isinstance(n, CommandItem):
            raise TypeError("a command item outside a command condition")
        if isinstance(n, Pred):
            row, negated_op[nid] = _pred_row(rule_id, nid, parent, n, info, low)
            rows.conditions.append(row)
            return
        kind = "and" if isinstance(n, And) else "or" if isinstance(n, Or) else "not"
        rows.conditions.append(_node_row(rule_id, nid, parent, kind, n.span))
        children = (n.item,) if isinstance(n, Not) else n.items
        for child in children:
            walk(child, nid)

    def emit(
        clause: list[tuple[int, bool]], head: str | None = None, route: str | None = None
    ) -> None:
        nonlocal cid
        for nid, neg in clause:
            rows.condition_clauses.append(
                ConditionClauseRow(
                    rule_id=rule_id,
                    clause_id=cid,
                    node_id=nid,
                    negated=neg != negated_op[nid],
                    clause_size=len(clause),
                    shadow=shadow,
                    route_head=head,
                    route_kind=route,
                )
            )
        cid += 1

    node = split_list_globs(node, info, low)
    walk(node, None)
    for clause in _literals(node, ids):
        found = [(nid, neg) for nid, neg in clause if nid in commands]
        if len(found) == 1 and not found[0][1] and inlinable(commands[found[0][0]]):
            nid = found[0][0]
            rest = [x for x in clause if x[0] != nid]
            try:
                inlined = inline(commands[nid], info, low)
            except InlineTooComplex:
                raise TooComplex from None
            for part in inlined:
                atoms: list[tuple[int, bool]] = []
                for k, (pred, neg) in enumerate(part.atoms):
                    counter[0] += 1
                    row, negated_op[counter[0]] = _pred_row(
                        rule_id, counter[0], nid, pred, info, low, part.regexes.get(k)
                    )
                    rows.conditions.append(row)
                    atoms.append((counter[0], neg))
                emit(rest + atoms, part.head, part.route)
            continue
        for nid, _neg in found:
            if nid not in two_level:
                two_level.add(nid)
                try:
                    lower_command(rule_id, nid, commands[nid], info, rows, low)
                except WhereTooComplex:
                    raise TooComplex from None
        emit(clause)


def _pred_row(
    rule_id: str,
    nid: int,
    parent: int | None,
    n: Pred,
    info: RuleInfo,
    low: Lowering,
    atom_regex: str | None = None,
) -> tuple[ConditionRow, bool]:
    """The `conditions` row of a predicate, and whether its operator is a negated one (stored as
    its positive form plus a flag on the literal). An inlined command part's predicate
    (policy/lowercommands.py) comes with its regex and its value already as installed."""
    negated = n.op in NEGATED_OPS or n.op == "missing"
    base_op = "exists" if n.op == "missing" else NEGATED_OPS.get(n.op, n.op)
    # `shell_regex` reads the event's shell commands, or a list of commands itself
    shell = n.op == "shell_regex" and n.field not in COMMAND_LIST_FIELDS
    lookup = "shell.commands" if shell else n.field
    if n.field.startswith(COMMAND_FIELD):
        value, regex = n.value, atom_regex
    else:
        value, regex = n.value, info.regexes.get(id(n))
        if id(n) in info.setting_preds:
            value, regex = installed_value(n, info, low)
    # a required literal, else a set of literals one of which every match holds; with a
    # required literal, also such a set when it is another test (`git` and then one of the
    # protected names): both are tested before the regex is
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
    if isinstance(value, tuple) and regex is not None:
        value = regex  # a list of patterns (`regex [...]`): tested as the one pattern of them all
    values = [scalar(x) for x in value] if isinstance(value, tuple) else None
    pattern = scalar(value) if value is not None and values is None else None
    row = ConditionRow(
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
    return row, negated


def _node_row(rule_id: str, nid: int, parent: int | None, kind: str, span: Span) -> ConditionRow:
    return ConditionRow(
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
        line=span.line,
        col=span.column,
        literal=None,
        literal_ci=False,
        literals=None,
        any_literal=None,
    )


# A field no event has: `missing` on it always holds (the shadow of a rule without `when`).
_NEVER_FIELD = "style.never"


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
    return node is not None and any(p.field in RULE_STATE_FIELDS for p in leaves(node, Pred))


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
    low.settings = composed(
        {d.name: Setting(d.type, settings[d.name]) for d in pkg.settings if d.name in settings}
    )
    low.diags = diags
    rid = qualified(pkg, info.rule.id)
    condition = info.condition
    unlesses = [*([info.unless] if info.unless is not None else [])]
    unlesses += [exc.condition for _pkg, exc in excepted]
    for unless in unlesses:
        condition = narrowed(condition, unless)
    if info.check is not None and info.check.run is not None:
        # one condition for both the check's start and its result (policy/checks.py)
        condition = placed_condition(condition, rid, info.check.span)
    _lower_exceptions(pkg, info, rid, excepted, rows)
    body_id = f"{rid}#body"
    mt_id = f"{rid}#model_text" if info.model_text is not None else None
    rows.rules.append(_rule_row(pkg, info, rid, rule_order, condition, body_id, mt_id, settings))
    _lower_tools(info, rid, rows)
    if condition is not None:
        _lower_conditions(info, rid, condition, bool(unlesses), rows, diags, low)
    lower_template(body_id, info.body, settings, rows)
    if mt_id is not None and info.model_text is not None:
        lower_template(mt_id, info.model_text, settings, rows)


def _lower_exceptions(
    pkg: Package,
    info: RuleInfo,
    rid: str,
    excepted: Sequence[tuple[Package, Any]],
    rows: PolicyRows,
) -> None:
    """The `rule_exceptions` rows: each package's exception to the rule, then its own `unless`."""
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
        span = info.rule.span_of("unless")
        rows.rule_exceptions.append(
            RuleExceptionRow(
                rule_id=rid,
                package=pkg.name,
                reason="its own `unless`",
                source_file=span.file,
                source_line=span.line,
            )
        )


def _rule_row(
    pkg: Package,
    info: RuleInfo,
    rid: str,
    rule_order: int,
    condition: Node | None,
    body_id: str,
    mt_id: str | None,
    settings: Mapping[str, str],
) -> RuleRow:
    """The `rules` row: the rule's effective settings, its templates and where it was written.
    `condition` is the narrowed one (its exceptions applied); `settings` the installed values
    a check's command fills in."""
    eff, rule = info.eff, info.rule
    run = info.check.run if info.check else None
    check_run = filled_command(run, settings) if run is not None else None
    return RuleRow(
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
        redact_pattern=_redact_patterns(info.redact[0] if info.redact else None, pkg, settings),
        redact_with=info.redact[1] if info.redact else None,
        redact_keep=_redact_keep(info, pkg, settings),
        check_run=check_run,
        check_prompt=info.check.prompt if info.check else None,
        check_timeout_s=info.check.timeout_s if info.check else None,
        check_cooldown_s=info.check.cooldown_s if info.check else None,
    )


def _lower_tools(info: RuleInfo, rid: str, rows: PolicyRows) -> None:
    """The `rule_tools` rows: the tools, native names, MCP server or skill the rule targets."""
    eff = info.eff
    target = eff["target"]
    if target == "tool":
        for t in info.tools:
            kind = "mcp" if t == MCP_TOOL else "tool"  # `mcp` in a tool list: any MCP call
            pattern = "*" if t == MCP_TOOL else t
            rows.rule_tools.append(
                RuleToolRow(rule_id=rid, kind=kind, pattern=pattern, regex=glob_to_regex(pattern))
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


def _lower_conditions(
    info: RuleInfo,
    rid: str,
    condition: Node,
    excepted: bool,
    rows: PolicyRows,
    diags: list[Diagnostic],
    low: Lowering,
) -> None:
    """The condition rows of the narrowed `condition` and, where the rule has exceptions, of the
    condition as written (its shadow); one that cannot be lowered is a diagnostic."""
    rule = info.rule
    try:
        lower_condition(rid, condition, info, rows, low)
        if excepted:
            # the condition as written: where it holds and the narrowed one does not, an
            # exception took effect (match.sql's `excepted`)
            written = info.condition or Pred(_NEVER_FIELD, "missing", None, rule.span)
            lower_condition(rid, written, info, rows, low, shadow=True)
    except TooComplex:
        diags.append(
            Diagnostic.make(
                codes.INVALID_CONDITION,
                f"condition of `{rule.id}` is too complex (over "
                f"{MAX_CLAUSES} alternatives once expanded)",
                rule.span_of("when"),
                rule=rule.id,
            )
        )
    except FlowNotInlined:
        diags.append(
            Diagnostic.make(
                codes.INVALID_CONDITION,
                f"in `{rule.id}`, a command condition with `input from` or `code from` "
                "stands under a `not` or beside another command condition",
                rule.span_of("when"),
                rule=rule.id,
            )
        )


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
                check_s=e.check_s,
                prompt=e.prompt,
            )
        )


def _redact_patterns(written: str | None, pkg: Package, settings: Mapping[str, str]) -> str | None:
    """`redact.pattern` (or `patterns`, or `keep`, joined) with its settings filled in as
    installed."""
    if written is None or "{{" not in written:
        return written
    values = composed(
        {d.name: Setting(d.type, settings[d.name]) for d in pkg.settings if d.name in settings}
    )
    try:
        filled = [fill_pattern(p, values) for p in written.split(REDACT_SEPARATOR)]
    except (SettingProblem, KeyError):
        return written  # said by validation (a setting's type, a missing value)
    return REDACT_SEPARATOR.join(filled)


def _redact_keep(info: RuleInfo, pkg: Package, settings: Mapping[str, str]) -> str | None:
    """`redact.keep` as one RE2 alternation, settings filled in: it is tested against each
    match as a whole (evaluate/redact_apply.sql)."""
    if info.redact is None or info.redact_keep is None:
        return None
    filled = _redact_patterns(info.redact_keep, pkg, settings)
    return any_of(filled.split(REDACT_SEPARATOR)) if filled else None
