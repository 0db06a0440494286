"""What a condition's value lowers to: settings filled in, its RE2 regex, its scalars.

Settings filled in as installed, its RE2 regex, the scalars as the rows store them (used by
policy/lower.py and policy/lowercommands.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic
from agentstyle.globs import glob_to_regex
from agentstyle.grammar.ast import And, CommandItem, CommandPred, Node, Not, Or, Pred, Value
from agentstyle.policy.re2 import any_of
from agentstyle.policy.settingrefs import LIST_TYPE, Setting, SettingProblem, resolve, uses
from agentstyle.policy.validconditions import RuleInfo
from agentstyle.source import Span
from agentstyle.vocabulary import GLOB_OPS, REGEX_OPS


def scalar(v: Any) -> str:
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


@dataclass(slots=True)
class Lowering:
    """What lowering a package needs beyond its rules: the installed setting values, and
    where to report what they break (a regex checked by RE2 once all rules are lowered)."""

    settings: dict[str, Setting] = field(default_factory=dict)
    diags: list[Diagnostic] = field(default_factory=list)
    regex_checks: list[tuple[str, Span, str, str]] = field(default_factory=list)
    # the predicates split_list_globs made: kept alive, since RuleInfo knows them by id()
    made: list[object] = field(default_factory=list)


def installed_value(pred: Pred, info: RuleInfo, low: Lowering) -> tuple[Value, str | None]:
    """The value and RE2 regex of a predicate with its settings filled in as installed."""
    rid, span = info.rule.id, info.setting_preds[id(pred)]
    try:
        value = resolve(pred, low.settings)
    except SettingProblem as exc:
        low.diags.append(Diagnostic.make(codes.INVALID_CONDITION, exc.message, span, rule=rid))
        return None, None
    except KeyError:
        return None, None  # no value at all: `setting-missing`, reported by `settings_for`
    names = sorted({use.name for use in uses(pred.value)})
    note = " (with " + ", ".join(f"`settings.{n}` = `{low.settings[n].text}`" for n in names)
    note += ")"
    if pred.op in REGEX_OPS and isinstance(value, tuple):  # a list of patterns: any of them
        items = [str(item) for item in value]
        low.regex_checks.extend((item, span, rid, note) for item in items)
        return value, any_of(items)
    if pred.op in REGEX_OPS:
        low.regex_checks.append((str(value), span, rid, note))
        return value, str(value)
    if pred.op in GLOB_OPS:
        try:
            return value, glob_to_regex(str(value))
        except ValueError as exc:
            low.diags.append(
                Diagnostic.make(codes.BAD_PATTERN, f"glob `{value}`{note}: {exc}", span, rule=rid)
            )
            return None, None
    return value, None


def escaped(text: str) -> str:
    """`text` as a literal RE2 pattern."""
    return re.sub(r"([\\.^$*+?()\[\]{}|])", r"\\\1", text)


# A glob holding a list setting (`path glob "{{settings.secret_files}}"`) is one predicate per
# item (docs/conditions.md#settings-in-conditions): each item's regex is small and has its own
# required literal, tested before the regex, where one regex of every item would be compiled
# for nearly every path (DuckDB compiles a column's regex per row). At most this many
# predicates come of one glob; past it the glob stays whole.
MAX_SPLIT = 64


def split_list_globs(node: Node, info: RuleInfo, low: Lowering) -> Node:
    """`node` with each positive glob that holds a list setting made an `or` of one glob per
    item (per combination of items, for several), as installed; the rest as it is."""
    if isinstance(node, Pred):
        return _split_pred(node, info, low)
    if isinstance(node, CommandItem):
        return _split_item(node, info, low)
    if isinstance(node, CommandPred):
        if node.where is None:
            return node
        return CommandPred(node.names, split_list_globs(node.where, info, low), node.span)
    if isinstance(node, Not):
        return Not(split_list_globs(node.item, info, low), node.span)
    kind = And if isinstance(node, And) else Or
    return kind(tuple(split_list_globs(n, info, low) for n in node.items), node.span)


def _alternatives(pred: Pred, low: Lowering) -> list[str] | None:
    """The glob's value once per combination of its list settings' items (None: not split)."""
    if pred.op != "glob" or not isinstance(pred.value, str):
        return None
    names = sorted({use.name for use in uses(pred.value)})
    lists = [n for n in names if n in low.settings and low.settings[n].type == LIST_TYPE]
    if not lists:
        return None
    combos: list[dict[str, Setting]] = [dict(low.settings)]
    for name in lists:
        items = low.settings[name].items()
        combos = [{**c, name: Setting(LIST_TYPE, item)} for c in combos for item in items]
        if len(combos) > MAX_SPLIT:
            return None
    try:
        return [str(resolve(pred, combo)) for combo in combos]
    except (SettingProblem, KeyError):
        return None


def _glob_alternatives(pred: Pred, low: Lowering) -> tuple[list[str], list[str]] | None:
    """The values a glob predicate's list setting splits it into, with their regexes; None when
    it does not split (one value, too many, or a glob that does not translate: that is
    reported where the whole glob is lowered)."""
    values = _alternatives(pred, low)
    if values is None or len(values) < 2:
        return None
    try:
        return values, [glob_to_regex(value) for value in values]
    except ValueError:
        return None


def _split_pred(pred: Pred, info: RuleInfo, low: Lowering) -> Node:
    if id(pred) not in info.setting_preds:
        return pred
    split = _glob_alternatives(pred, low)
    if split is None:
        return pred
    values, regexes = split
    parts = [Pred(pred.field, pred.op, value, pred.span) for value in values]
    for one, regex in zip(parts, regexes, strict=True):
        info.regexes[id(one)] = regex
    low.made.extend(parts)
    return Or(tuple(parts), pred.span)


def _split_item(item: CommandItem, info: RuleInfo, low: Lowering) -> Node:
    proxy = info.item_preds.get(id(item))
    if proxy is None or id(proxy) not in info.setting_preds:
        return item
    split = _glob_alternatives(proxy, low)
    if split is None:
        return item
    values, regexes = split
    parts = [replace(item, value=value) for value in values]
    for one, value, regex in zip(parts, values, regexes, strict=True):
        stand_in = Pred(proxy.field, proxy.op, value, proxy.span)
        info.regexes[id(stand_in)] = regex
        info.item_preds[id(one)] = stand_in
        low.made.extend((one, stand_in))
    return Or(tuple(parts), item.span)
