"""Plan: where each rule runs on a harness (point, native event, matcher, status, reason)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from agentstyle.engine.validate import RuleInfo, resolve_tools
from agentstyle.grammar.globs import glob_to_regex
from agentstyle.harnesses.base import ALLOW, ASK, CONTEXT, DENY, MESSAGE, HarnessSpec
from agentstyle.vocabulary import TOOL_POINTS

RUNNING_STATUSES = ("native", "partial", "degraded")


@dataclass(frozen=True, slots=True)
class PlanEntry:
    rule_id: str
    harness: str
    point: str | None
    native_event: str | None
    matcher: str | None
    status: str
    reason: str | None
    action: str
    repeat: str | None
    capability: str | None

    @property
    def runs(self) -> bool:
        return self.status in RUNNING_STATUSES


def _other_point(point: str) -> str | None:
    return {"tool.pre": "tool.post", "tool.post": "tool.pre"}.get(point)


def _capability(action: str, caps: frozenset[str]) -> tuple[str | None, str | None]:
    """(capability used, status) for an action at a point; status None = missing."""
    if action == "inject":
        return (CONTEXT, "native") if CONTEXT in caps else (None, None)
    if action == "warn":
        if CONTEXT in caps and MESSAGE in caps:
            return "context+message", "native"
        if CONTEXT in caps:
            return CONTEXT, "partial"
        if MESSAGE in caps:
            return MESSAGE, "partial"
        return None, None
    need = {"block": DENY, "ask": ASK, "allow": ALLOW}[action]
    return (need, "native") if need in caps else (None, None)


def mcp_matcher(server_glob: str) -> str:
    """`mcp__<server>__<tool>` names as a regex fragment for a server glob."""
    inner = glob_to_regex(server_glob)[1:-1]  # drop the anchors; the matcher anchors once
    return f"mcp__{inner}__.*"


def tool_matcher(info: RuleInfo, spec: HarnessSpec) -> str | None:
    """The narrowest native matcher for the tools a tool-point rule needs (None = all)."""
    eff = info.eff
    target = eff["target"]
    exact: list[str] = []
    patterns: list[str] = []
    if target == "tool":
        tools = resolve_tools(info.tools)
        if info.tools and ("other" in tools or not tools):
            return None
        for tool in sorted(tools):
            exact.extend(spec.tool_names.get(tool, ()))
    elif target == "mcp":
        patterns.append(mcp_matcher(str(eff.get("mcp", "*"))))
    elif target == "skill":
        exact.append("Skill")
    else:
        return None
    exact.extend(info.names)
    return combine_matchers(exact, patterns)


def combine_matchers(exact: list[str], patterns: list[str]) -> str | None:
    """One Claude-style matcher: a `|` list of names, or an anchored regex when needed."""
    names = list(dict.fromkeys(exact))
    if not names and not patterns:
        return None
    if not patterns and all(re.fullmatch(r"[A-Za-z0-9_\- ]+", n) for n in names):
        return "|".join(names)
    parts = [re.escape(n) for n in names] + list(dict.fromkeys(patterns))
    # Anything but a plain name list is an unanchored JavaScript regex: anchor it.
    return "^(" + "|".join(parts) + ")$"


def plan_rule(info: RuleInfo, qualified: str, spec: HarnessSpec) -> list[PlanEntry]:
    eff = info.eff
    action, repeat = eff["action"], eff.get("repeat")
    repeat = None if action in ("block", "ask", "allow") else repeat

    def entry(
        point: str | None,
        status: str,
        reason: str | None = None,
        act: str = action,
        rep: str | None = repeat,
        cap: str | None = None,
    ) -> PlanEntry:
        ps = spec.points.get(point) if point else None
        matcher = None
        if ps is not None and point is not None and status in RUNNING_STATUSES:
            if point in TOOL_POINTS:
                matcher = tool_matcher(info, spec)
            elif ps.matcher == "source":
                matcher = "|".join(eff["sources"])
        return PlanEntry(
            qualified,
            spec.name,
            point,
            ps.native_event if ps else None,
            matcher,
            status,
            reason,
            act,
            rep,
            cap,
        )

    if not eff["enabled"]:
        return [entry(None, "skipped", "disabled")]
    if info.harnesses is not None and spec.name not in info.harnesses:
        return [entry(None, "skipped", f"when.harness excludes {spec.name}")]
    fail_closed = eff["fail"] == "closed"
    if (
        info.static
        and eff["mode"] == "replace"
        and not eff["refresh"]
        and not fail_closed
        and spec.instruction_file
    ):
        return [
            PlanEntry(
                qualified,
                spec.name,
                "session.start",
                spec.instruction_file,
                None,
                "static",
                None,
                action,
                None,
                "instructions",
            )
        ]
    if not info.points:
        return [entry(None, "install-error", "point-unavailable")]
    return [plan_point(info, point, spec, entry) for point in info.points]


def plan_point(
    info: RuleInfo, point: str, spec: HarnessSpec, entry: Callable[..., PlanEntry]
) -> PlanEntry:
    eff = info.eff
    action, fallback, fail_closed = eff["action"], eff["fallback"], eff["fail"] == "closed"
    ps = spec.points.get(point)
    if ps is None:
        other = _other_point(point)
        if fail_closed:
            return entry(point, "install-error", "fail-closed-unsupported")
        if (
            fallback == "degrade"
            and other
            and other in spec.points
            and action not in ("block", "ask", "allow")
        ):
            cap, _ = _capability(action, spec.points[other].capabilities)
            if cap:
                return entry(
                    other, "degraded", f"point-unavailable: {point} runs at {other}", cap=cap
                )
        if fallback == "skip":
            return entry(point, "skipped", "point-unavailable")
        return entry(point, "install-error", "point-unavailable")
    caps = ps.capabilities
    cap, status = _capability(action, caps)
    if fail_closed and DENY not in caps:
        return entry(point, "install-error", "fail-closed-unsupported")
    if status is not None:
        return entry(point, status, None, cap=cap)
    if fail_closed:
        return entry(point, "install-error", "fail-closed-unsupported")
    if fallback == "degrade":
        if action == "ask" and DENY in caps:
            return entry(
                point,
                "degraded",
                "ask became block; approve with `style allow`",
                act="block",
                rep=None,
                cap=DENY,
            )
        if action == "block" and (CONTEXT in caps or MESSAGE in caps):
            warn_cap, _ = _capability("warn", caps)
            return entry(
                point,
                "degraded",
                "block became warn (the point cannot deny)",
                act="warn",
                rep="every",
                cap=warn_cap,
            )
        other = _other_point(point)
        if other and other in spec.points and action in ("inject", "warn"):
            other_cap, _ = _capability(action, spec.points[other].capabilities)
            if other_cap:
                return entry(
                    other,
                    "degraded",
                    f"capability-missing at {point}: runs at {other}",
                    cap=other_cap,
                )
    if fallback == "skip":
        return entry(point, "skipped", "capability-missing")
    return entry(point, "install-error", "capability-missing")


def refresh_lines(info: RuleInfo, spec: HarnessSpec) -> list[str]:
    """The refresh strategy lines of seed 000's `style plan` example."""
    n = info.eff.get("refresh") or 0
    if not n:
        return []
    turns = "turn" if n == 1 else f"{n} submitted turns"
    lines = [
        f"  refresh: every {turns} since last emission; first match immediately; matched "
        "points only; full per-emission budget"
    ]
    if not spec.native_turn_ids:
        lines.append("     prompt-count-fallback without native turn IDs")
    if not spec.child_prompt_callbacks:
        lines.append("     no child cadence without child prompt callbacks")
    lines.append("     due output waits for its original matching point")
    return lines
