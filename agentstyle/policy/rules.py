"""Effective rule fields: built-in defaults applied, evaluation points and tool patterns derived."""

from __future__ import annotations

from typing import Any

from agentstyle.policy.manifest import INVALID
from agentstyle.policy.model import Package, Rule
from agentstyle.vocabulary import BEHAVIOUR_FIELDS, CHECK_POINT, default_value

# The fields given their built-in default when the rule and its package's `defaults` leave them
# unset, in this order: a later field's default reads the earlier ones (`default_value`).
EFFECTIVE_FIELDS = ("target", *BEHAVIOUR_FIELDS, "enabled", "mode")


def effective(rule: Rule, pkg: Package) -> dict[str, Any]:
    """Every behaviour field of a rule with the package defaults applied
    (docs/packages.md#defaults)."""
    # A field that failed its type check was reported by the loader; its default stands in.
    eff: dict[str, Any] = {k: fv.value for k, fv in rule.fields.items() if fv.origin != INVALID}
    for name in EFFECTIVE_FIELDS:
        if name not in eff:
            eff[name] = default_value(name, eff)
    eff.setdefault("priority", pkg.priority)
    eff.setdefault("max_tokens", pkg.per_rule)
    if "sources" not in eff:
        sources = ["startup", "resume", "clear"]
        if eff["reinject_on_compact"]:
            sources.append("compact")
        eff["sources"] = sources
    elif eff["reinject_on_compact"] and "compact" not in eff["sources"]:
        # docs/actions.md#compaction: reinject_on_compact adds `compact` to a session.start rule's
        # sources.
        eff["sources"] = [*eff["sources"], "compact"]
    return eff


def points(eff: dict[str, Any]) -> list[str]:
    """The evaluation points of a rule (docs/rules.md#target)."""
    target = eff["target"]
    if target == "system":
        pts = ["session.start"]
        if isinstance(eff.get("refresh"), int) and eff["refresh"] > 0:
            pts.append("prompt.submitted")
        return pts
    if target in ("tool", "mcp", "skill"):
        pts = ["tool.pre" if eff["at"] == "before" else "tool.post"]
    else:
        event = eff.get("event")
        pts = [event] if isinstance(event, str) else []
    if isinstance(eff.get("check"), dict) and "run" in eff["check"]:
        # where its check's result speaks (docs/observers.md#checks); a `prompt` check is the
        # client's own hook at the rule's point
        pts.append(CHECK_POINT)
    return pts


def evaluated_at_session_start(eff: dict[str, Any]) -> bool:
    return "session.start" in points(eff)


def tool_list(eff: dict[str, Any]) -> list[str]:
    tool = eff.get("tool")
    if tool is None:
        return []
    return [tool] if isinstance(tool, str) else list(tool)
