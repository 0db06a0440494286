"""The hook handlers an install writes, grouped as the harness's config holds them.

Which native events a plan needs, grouped as the harness's config holds them (matcher, command,
timeout), and the static blocks of the rules a harness can refuse without running STYLE."""

from __future__ import annotations

from typing import Any

from agentstyle.grammar.ast import Text
from agentstyle.harnesses import adapter_for
from agentstyle.harnesses.facts import HarnessSpec, spec_for
from agentstyle.install.hookcommand import hook_command
from agentstyle.policy.compile import Compiled
from agentstyle.policy.model import Package
from agentstyle.policy.plan import PlanEntry, format_matcher, split_matcher
from agentstyle.vocabulary import CHECK_ENTRY, PROMPT_ENTRY

# Handlers `--fail-closed` protects (onFailure / failClosed + the flag): the tool gates always
# (docs/design/runtime.md#fail-modes: PreToolUse), another gate event (a prompt gate) only when a
# gate rule runs there, so a broken handler does not refuse every prompt of a project that never
# asked for it.
GATE_ACTIONS = ("block", "ask", "allow")


Parts = tuple[list[str], list[str]] | None  # (exact names, patterns); None = every tool


def is_gate(native_event: str, entries: list[PlanEntry], spec: HarnessSpec) -> bool:
    if native_event not in spec.gate_events:
        return False
    if spec.point_of(native_event) == "tool.pre":
        return True
    return any(e.action in GATE_ACTIONS for e in entries)


def routed(entry: PlanEntry, spec: HarnessSpec) -> list[tuple[str, Parts]]:
    """The native events an entry's handlers go to, each with the matcher parts it needs.

    Without routes that is the entry's own event; on a routed point (Cursor's tool.pre) its
    native tool names are split over the gates that own them.
    """
    assert entry.point is not None and entry.native_event is not None
    routes = spec.routes.get(entry.point, ())
    if not routes:
        return [(entry.native_event, split_matcher(entry.matcher) if entry.matcher else None)]
    default = spec.points[entry.point].native_event
    if entry.matcher is None:
        every: list[tuple[str, Parts]] = [(r.spec.native_event, None) for r in routes]
        return [*every, (default, None)]
    exact, patterns = split_matcher(entry.matcher)
    by_key = {n: k for k, names in spec.tool_names.items() for n in names}
    by_key.update({n: "mcp" for n in spec.mcp_names or ()})
    out: dict[str, tuple[list[str], list[str]]] = {}
    for name in exact:
        key = by_key.get(name, "mcp" if name.startswith("mcp__") else "other")
        gate = spec.route_of(entry.point, key)
        out.setdefault(gate.native_event if gate else default, ([], []))[0].append(name)
    for pattern in patterns:
        gate = spec.route_of(entry.point, "mcp")
        out.setdefault(gate.native_event if gate else default, ([], []))[1].append(pattern)
    return [(native, parts) for native, parts in out.items()]


def handler_groups(
    plan: list[PlanEntry], harness: str, fail_closed: bool, scope: str = "project"
) -> dict[str, list[dict[str, Any]]]:
    """One handler per native event that has entries, with the narrowest matcher
    (docs/design/harnesses.md#install)."""
    spec = spec_for(harness)
    adapter = adapter_for(harness)
    by_event: dict[str, list[tuple[PlanEntry, Parts]]] = {}
    for e in plan:
        if e.harness == harness and e.hooked and e.native_event and e.point:
            if e.action == PROMPT_ENTRY:
                continue  # the client's own prompt hook (_observer_groups), not STYLE's
            for native, parts in routed(e, spec):
                by_event.setdefault(native, []).append((e, parts))
    groups: dict[str, list[dict[str, Any]]] = {}
    if not by_event:
        _observer_groups(plan, spec, scope, groups)
        return groups
    # the session clock, and the events only the audit reads (`HarnessSpec.audited`)
    for native in (*spec.bookkeeping, *spec.audit_events):
        by_event.setdefault(native, [])
    order = spec.native_events()
    for native in sorted(by_event, key=lambda n: order.index(n) if n in order else 99):
        items = by_event[native]
        entries = [e for e, _ in items]
        ps = spec.spec_of(native)
        gate = fail_closed and is_gate(native, entries, spec)
        # A `fail: closed` rule here: the command says so, so the config (which survives a
        # broken or deleted database) still refuses when STYLE cannot evaluate.
        closed = gate or (any(e.fail_closed for e in entries) and adapter.can_refuse(native))
        handler = adapter.handler(hook_command(harness, native, closed, scope), native, gate)
        matcher = None
        if (
            ps is not None
            and ps.matcher == "tool"
            and items
            and all(parts is not None for _, parts in items)
        ):
            exact = [n for _, parts in items if parts for n in parts[0]]
            patterns = [p for _, parts in items if parts for p in parts[1]]
            matcher = format_matcher(spec, exact, patterns)
        groups[native] = [adapter.group(handler, matcher)]
    _observer_groups(plan, spec, scope, groups)
    return groups


# The background hook outlives its check by this much: its own start, the tickets' wait and
# the result's evaluation.
_BACKGROUND_SPARE_S = 60


def _observer_groups(
    plan: list[PlanEntry], spec: HarnessSpec, scope: str, groups: dict[str, list[dict[str, Any]]]
) -> None:
    """Where the client runs hooks in the background, one that runs the due checks of each
    native event that starts some; where it has prompt hooks, one per `prompt` check
    (docs/observers.md#delivery)."""
    adapter = adapter_for(spec.name)
    checks: dict[str, list[PlanEntry]] = {}
    for e in plan:
        if e.harness == spec.name and e.runs and e.native_event:
            if e.action == CHECK_ENTRY and spec.background_hooks:
                checks.setdefault(e.native_event, []).append(e)
            elif e.action == PROMPT_ENTRY and e.prompt is not None:
                prompt = f"{e.prompt}\n\n(asked by STYLE rule `{e.rule_id}`)"
                handler = adapter.prompt_handler(prompt, e.check_s or 30)
                groups.setdefault(e.native_event, []).append(adapter.group(handler, e.matcher))
    for native, entries in checks.items():
        seconds = max(e.check_s or 0 for e in entries) + _BACKGROUND_SPARE_S
        command = hook_command(spec.name, native, False, scope, checks=True)
        handler = adapter.background_handler(command, seconds)
        parts = [split_matcher(e.matcher) if e.matcher else None for e in entries]
        matcher = None
        if all(p is not None for p in parts):
            exact = [n for p in parts if p for n in p[0]]
            patterns = [x for p in parts if p for x in p[1]]
            matcher = format_matcher(spec, exact, patterns)
        groups.setdefault(native, []).append(adapter.group(handler, matcher))


def native_groups(
    packages: list[Package], harness: str, notes: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """The packages' `native_hooks` for a harness, as they are (docs/packages.md#native_hooks)."""
    spec = spec_for(harness)
    adapter = adapter_for(harness)
    groups: dict[str, list[dict[str, Any]]] = {}
    for pkg in packages:
        for hook in pkg.native_hooks:
            if hook.harness is not None and hook.harness != harness:
                continue
            ps = spec.points.get(hook.event)
            if ps is None:
                notes.append(
                    f"native hook `{pkg.name}/{hook.id}`: {harness} has no `{hook.event}` "
                    "event; not installed"
                )
                continue
            handler: dict[str, Any] = {"type": "command", "command": hook.command}
            if hook.timeout is not None:
                handler["timeout"] = hook.timeout
            groups.setdefault(ps.native_event, []).append(adapter.group(handler, hook.matcher))
    return groups


def static_blocks(compiled: Compiled, harness: str, own: set[str] | None = None) -> dict[str, str]:
    """Bodies of `static` entries, settings rendered, for the instruction file (`own`: of
    these packages only)."""
    static = {
        e.rule_id
        for e in compiled.plan
        if e.harness == harness
        and e.status == "static"
        and (own is None or e.rule_id.split("/", 1)[0] in own)
    }
    blocks: dict[str, str] = {}
    values = {}
    for row in compiled.rows.settings:
        values[(row.package, row.name)] = row.value
    for cp in compiled.packages:
        for info in cp.rules:
            rid = f"{cp.package.name}/{info.rule.id}"
            if rid in static:
                parts = []
                for seg in info.body:
                    if isinstance(seg, Text):
                        parts.append(seg.text)
                    else:
                        name = seg.name.split(".", 1)[1]
                        parts.append(values.get((cp.package.name, name), seg.default or ""))
                blocks[rid] = "".join(parts)
    return blocks
