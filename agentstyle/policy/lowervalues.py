"""What a condition's value lowers to: settings filled in as installed, its RE2 regex, the
scalars as the rows store them (used by policy/lower.py and policy/lowercommands.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agentstyle.diagnostics import Diagnostic
from agentstyle.grammar.ast import Pred, Value
from agentstyle.grammar.globs import glob_to_regex
from agentstyle.policy.settingrefs import Setting, SettingProblem, resolve, uses
from agentstyle.policy.validate import RuleInfo
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


def escaped(text: str) -> str:
    """`text` as a literal RE2 pattern."""
    return re.sub(r"([\\.^$*+?()\[\]{}|])", r"\\\1", text)
