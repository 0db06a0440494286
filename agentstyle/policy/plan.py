"""Plan: where each rule runs on a harness (point, native event, matcher, status, reason)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from agentstyle.globs import glob_to_regex
from agentstyle.grammar.ast import CommandItem, CommandPred, Node, Not, Pred
from agentstyle.harnesses.facts import Can, HarnessSpec, PointSpec
from agentstyle.harnesses.facts.base import split_mcp_name
from agentstyle.policy.validconditions import RuleInfo, resolve_tools
from agentstyle.vocabulary import (
    ADDING_TOOLS,
    CHECK_ENTRY,
    CHECK_POINT,
    HANDLER_STATE_FIELDS,
    HISTORY_FIELDS,
    MCP_TOOL,
    PROMPT_ENTRY,
    TOOL_POINTS,
)

RUNNING_STATUSES = ("native", "partial", "degraded")
# An entry that does not run the rule: a handler the rule's `state.*` needs, so that the
# history holds the tool results it reads (install writes it, evaluation places nothing there).
HISTORY = "history"


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
    # `fail: closed`: where it runs, the hook command itself says so (install/hookcommand.py),
    # so a missing or unreadable database still refuses there.
    fail_closed: bool = False
    # A check's entry at its own point: the longest its run may take, cooldown included (the
    # background hook's timeout), and a `prompt` check's prompt (docs/observers.md).
    check_s: float | None = None
    prompt: str | None = None

    @property
    def runs(self) -> bool:
        return self.status in RUNNING_STATUSES

    @property
    def hooked(self) -> bool:
        """Install writes a handler for it: it runs, or the history needs its events."""
        return self.runs or self.status == HISTORY


def _other_point(point: str) -> str | None:
    return {"tool.pre": "tool.post", "tool.post": "tool.pre"}.get(point)


def _capability(action: str, caps: frozenset[str]) -> tuple[str | None, str | None]:
    """(capability used, status) for an action at a point; status None = missing."""
    if action == "inject":
        return (Can.CONTEXT, "native") if Can.CONTEXT in caps else (None, None)
    if action == "warn":
        if Can.CONTEXT in caps and Can.MESSAGE in caps:
            return "context+message", "native"
        if Can.CONTEXT in caps:
            return Can.CONTEXT, "partial"
        if Can.MESSAGE in caps:
            return Can.MESSAGE, "partial"
        return None, None
    if action == "redact":
        return (Can.REPLACE_OUTPUT, "native") if Can.REPLACE_OUTPUT in caps else (None, None)
    need = {"block": Can.DENY, "ask": Can.ASK, "allow": Can.ALLOW}[action]
    return (need, "native") if need in caps else (None, None)


def mcp_matcher(server_glob: str, naming: tuple[str, str] = ("mcp__", "__")) -> str:
    """The MCP tool names of a server glob as a regex fragment, in the client's `naming`
    (`HarnessSpec.mcp_naming`: `mcp__<server>__<tool>`, Gemini CLI's `mcp_<server>_<tool>`, …)."""
    inner = glob_to_regex(server_glob)[1:-1]  # drop the anchors; the matcher anchors once
    # `-` is left bare: outside a class JavaScript's unicode-mode regexes refuse `\-`
    prefix, sep = (re.escape(part).replace("\\-", "-") for part in naming)
    return f"{prefix}{inner}{sep}.*"


def matcher_parts(info: RuleInfo, spec: HarnessSpec) -> tuple[list[str], list[str]] | None:
    """(exact native names, regex patterns) a tool-point rule needs; None = every tool."""
    eff = info.eff
    target = eff["target"]
    exact: list[str] = []
    patterns: list[str] = []
    if target == "tool":
        tools = resolve_tools(info.tools)
        if info.tools and ("other" in tools or not (tools or MCP_TOOL in info.tools)):
            return None
        for tool in sorted(tools):
            exact.extend(spec.tool_names.get(tool, ()))
        if MCP_TOOL in info.tools:  # every MCP call, whatever its server
            exact.extend(spec.mcp_names or ())
            patterns.extend(() if spec.mcp_names is not None else [mcp_matcher("*")])
    elif target == "mcp":
        if spec.mcp_names is not None:
            exact.extend(spec.mcp_names)
        else:
            patterns.append(mcp_matcher(str(eff.get("mcp", "*")), spec.mcp_naming))
    elif target == "skill":
        exact.extend(spec.skill_names)
    else:
        return None
    exact.extend(info.names)
    if not exact and not patterns:
        return None
    return exact, patterns


def tool_matcher(info: RuleInfo, spec: HarnessSpec) -> str | None:
    """The narrowest native matcher for the tools a tool-point rule needs (None = all)."""
    parts = matcher_parts(info, spec)
    return None if parts is None else format_matcher(spec, *parts)


def format_matcher(spec: HarnessSpec, exact: list[str], patterns: list[str]) -> str | None:
    """A matcher in the harness's syntax (`matcher_style`)."""
    if spec.matcher_style == "regex":
        names = list(dict.fromkeys(exact))
        parts = [re.escape(n) for n in names] + list(dict.fromkeys(patterns))
        return "^(" + "|".join(parts) + ")$" if parts else None
    return combine_matchers(exact, patterns)


def split_matcher(matcher: str) -> tuple[list[str], list[str]]:
    """A matcher `format_matcher` wrote, back into (exact names, patterns)."""
    exact: list[str] = []
    patterns: list[str] = []
    if matcher.startswith("^(") and matcher.endswith(")$"):
        for part in _split_alternatives(matcher[2:-2]):
            if re.fullmatch(r"[A-Za-z0-9_\- ]+", part.replace("\\", "")):
                exact.append(part.replace("\\", ""))
            else:
                patterns.append(part)
    else:
        exact.extend(matcher.split("|"))
    return exact, patterns


def _split_alternatives(regex: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in regex:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


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


def route_keys(info: RuleInfo, spec: HarnessSpec) -> set[str] | None:
    """The tool classes a tool-point rule concerns (normalized tools, `mcp`, `skill`, `other`);
    None = every tool."""
    target = info.eff["target"]
    if target == "mcp":
        return {"mcp"}
    if target == "skill":
        return {"skill"}
    if target != "tool":
        return None
    tools = resolve_tools(info.tools)
    if info.tools and ("other" in tools or not (tools or MCP_TOOL in info.tools)):
        return None
    keys = set(tools) | ({"mcp"} if MCP_TOOL in info.tools else set())
    native = {n: t for t, names in spec.tool_names.items() for n in names}
    for name in info.names:
        mcp = split_mcp_name(name, spec.mcp_naming) is not None
        keys.add(native.get(name, "mcp" if mcp else "other"))
    return keys or None


def gates(info: RuleInfo, point: str, spec: HarnessSpec) -> list[PointSpec]:
    """The native events that gate this rule's calls at `point` (one unless routed)."""
    default = spec.points[point]
    routes = spec.routes.get(point, ())
    if not routes or point not in TOOL_POINTS:
        return [default]
    keys = route_keys(info, spec)
    if keys is None:
        return [*(r.spec for r in routes), default]
    out: list[PointSpec] = []
    for key in sorted(keys):
        gate = spec.route_of(point, key) or default
        if gate not in out:
            out.append(gate)
    return out


# A note on a rule that reads the model at session.start where the harness names no model
# there (HarnessSpec.model_at_first_start): it runs, and sees `unknown` at a new session.
MODEL_AT_START = "model-unknown-at-first-start: the model is `unknown` until the first answer"


def plan_rule(info: RuleInfo, qualified: str, spec: HarnessSpec) -> list[PlanEntry]:
    entries = _plan_rule(info, qualified, spec)
    if info.fix is None:
        return entries
    out = []
    for e in entries:  # where the rule refuses, say what its fix does on this harness
        if e.point == "tool.pre" and e.status in RUNNING_STATUSES and e.action == "block":
            runs = e.native_event in spec.rewrite_events
            how = "fix: the fixed command runs" if runs else "fix: the refusal names the command"
            e = replace(e, reason=f"{e.reason}; {how}" if e.reason else how)
        out.append(e)
    return out


def _plan_rule(info: RuleInfo, qualified: str, spec: HarnessSpec) -> list[PlanEntry]:
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
        native: str | None = None,
    ) -> PlanEntry:
        ps = spec.points.get(point) if point else None
        matcher = None
        if ps is not None and point is not None and status in RUNNING_STATUSES:
            if point in TOOL_POINTS:
                matcher = tool_matcher(info, spec)
            elif ps.matcher == "source":
                matcher = format_matcher(spec, list(eff["sources"]), [])
        return PlanEntry(
            qualified,
            spec.name,
            point,
            native or (ps.native_event if ps else None),
            matcher,
            status,
            reason,
            act,
            rep,
            cap,
            eff["fail"] == "closed",
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
    if info.check is not None:
        return check_entries(info, spec, entry)
    out = [plan_point(info, point, spec, entry) for point in info.points]
    if info.model_span is not None and not spec.model_at_first_start:
        for i, e in enumerate(out):
            if e.point == "session.start" and e.runs and e.reason is None:
                out[i] = dataclasses.replace(e, reason=MODEL_AT_START)
    if any(e.runs for e in out):
        out += history_entries(info, qualified, spec)
    return out


def fields_read(node: Node | None) -> set[str]:
    """The fields a condition reads."""
    if node is None:
        return set()
    if isinstance(node, Pred):
        return {node.field}
    if isinstance(node, (CommandPred, CommandItem)):
        return {"shell.commands"}
    if isinstance(node, Not):
        return fields_read(node.item)
    return set().union(*(fields_read(c) for c in node.items))


def history_entries(info: RuleInfo, qualified: str, spec: HarnessSpec) -> list[PlanEntry]:
    """The handlers a rule's state over the history needs
    (docs/conditions.md#state-conditions-over-the-sessions-history): the tool.post and tool.failed
    events of the shell and file-edit tools for the commands and edits `state.commands_since_edit`
    and the like read, and of the rule's own tools for `state.failures` (a success ends a run of
    failures). Without them the history never holds a tool result, and such a rule at `stop` or
    `tool.pre` could never fire."""
    reads = (fields_read(info.condition) | fields_read(info.unless)) & HANDLER_STATE_FIELDS
    if not reads:
        return []
    exact: list[str] = []
    patterns: list[str] = []
    every = False
    if reads & HISTORY_FIELDS:
        for tool in ("shell", *sorted(ADDING_TOOLS)):
            exact.extend(spec.tool_names.get(tool, ()))
    if "state.failures" in reads:
        parts = matcher_parts(info, spec)
        if parts is None:
            every = True
        else:
            exact.extend(parts[0])
            patterns.extend(parts[1])
    matcher = None if every else format_matcher(spec, exact, patterns)
    why = "records the calls that `" + "`, `".join(sorted(reads)) + "` read"
    if reads & HISTORY_FIELDS:
        why += " (kept with `log: off` too: the rule reads them)"
    if "tool.failed" not in spec.points and reads - {"state.files_edited"}:
        why += f"; {spec.name} reports no failed call, so every command counts as succeeded"
    out: list[PlanEntry] = []
    for point in ("tool.post", "tool.failed"):
        ps = spec.points.get(point)
        if ps is None or any(e.native_event == ps.native_event for e in out):
            continue  # Gemini CLI: one AfterTool event for both
        out.append(
            PlanEntry(
                qualified,
                spec.name,
                point,
                ps.native_event,
                matcher,
                HISTORY,
                why,
                info.eff["action"],
                None,
                None,
            )
        )
    return out


def check_entries(
    info: RuleInfo, spec: HarnessSpec, entry: Callable[..., PlanEntry]
) -> list[PlanEntry]:
    """A check rule on a harness: where its check starts and how its result is delivered
    (docs/observers.md#delivery); a `prompt` check where the client has prompt hooks."""
    assert info.check is not None
    own = [p for p in info.points if p != CHECK_POINT]
    if info.check.prompt is not None:
        ps = spec.points.get(own[0]) if own else None
        if ps is None or ps.native_event not in spec.prompt_hook_events:
            where = own[0] if own else None
            return [entry(where, "skipped", "no prompt hooks: nothing asks a model")]
        reason = "the client's model answers (a prompt hook)"
        asked = entry(own[0], "native", reason, act=PROMPT_ENTRY, rep=None)
        # STYLE's own handler there records the stops, so the audit counts the ones the
        # prompt continued (the client's `stop_hook_active` on the stop after)
        seen = replace(
            asked,
            status=HISTORY,
            action=info.eff["action"],
            reason="records the stops it continues",
        )
        return [replace(asked, prompt=info.check.prompt, check_s=info.check.timeout_s), seen]
    start = plan_point(info, own[0], spec, entry)
    if not start.runs:
        return [start]
    longest = info.check.timeout_s + info.check.cooldown_s
    start = replace(start, action=CHECK_ENTRY, repeat=None, capability=None, check_s=longest)
    if spec.background_hooks:
        done = entry(CHECK_POINT, "native", "when ready: a background hook wakes the model")
    else:
        done = entry(CHECK_POINT, "degraded", "when ready: given at the session's next event")
    cap, _status = _capability(info.eff["action"], frozenset({Can.CONTEXT, Can.MESSAGE}))
    out = [start, replace(done, native_event=None, capability=cap)]
    end = spec.points.get("session.end")
    if end is not None:  # its handler stops a check still running when the session ends
        stop = entry("session.end", HISTORY, "stops its check when the session ends", rep=None)
        out.append(replace(stop, native_event=end.native_event))
    return out


def _placed(
    info: RuleInfo, point: str, spec: HarnessSpec
) -> tuple[frozenset[str], str | None, list[PointSpec]]:
    """Capabilities of a point for this rule (all its gates have them), the native event."""
    used = gates(info, point, spec)
    caps = frozenset.intersection(*(g.capabilities for g in used))
    native = used[0].native_event if len(used) == 1 else spec.points[point].native_event
    return caps, native, used


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
            cap, _ = _capability(action, _placed(info, other, spec)[0])
            if cap:
                return entry(
                    other,
                    "degraded",
                    f"point-unavailable: {point} runs at {other}",
                    cap=cap,
                    native=_placed(info, other, spec)[1],
                )
        if fallback == "skip":
            return entry(point, "skipped", "point-unavailable")
        return entry(point, "install-error", "point-unavailable")
    sources = spec.session_sources
    if ps.matcher == "source" and sources is not None and not set(eff["sources"]) & sources:
        missing = ", ".join(sorted(eff["sources"]))
        reason = f"point-unavailable: {spec.name} never starts a session from {missing}"
        return entry(point, "skipped" if fallback == "skip" else "install-error", reason)
    caps, native, _used = _placed(info, point, spec)
    cap, status = _capability(action, caps)
    # A `fail: closed` rule over several gates (Cursor's shell and read gates) is promised on
    # each: install writes `--fail-closed` into the command of every gate it routes through
    # (install/hookcommand.py), so each refuses when STYLE cannot evaluate. `caps` is what all
    # of them offer, so each one can deny.
    if fail_closed and Can.DENY not in caps:
        return entry(point, "install-error", "fail-closed-unsupported", native=native)
    if status is not None:
        return entry(point, status, None, cap=cap, native=native)
    if fail_closed:
        return entry(point, "install-error", "fail-closed-unsupported", native=native)
    if fallback == "degrade":
        if action == "ask" and Can.DENY in caps:
            # Evaluated as an ask (so docs/design/runtime.md#precedence holds); the adapter delivers
            # it as a refusal whose reason tells the person `style allow --last`.
            return entry(
                point,
                "degraded",
                "ask became block; approve with `style allow --last`",
                rep=None,
                cap=Can.DENY,
                native=native,
            )
        if action == "redact" and Can.CONTEXT in caps:
            # The output reaches the model as it is; the model is told it held a secret it
            # must not repeat or use (harnesses/answer.py REDACT_NOTICE).
            return entry(
                point,
                "degraded",
                "redact became a notice (the client cannot replace output)",
                cap=Can.CONTEXT,
                native=native,
            )
        if action == "block" and (Can.CONTEXT in caps or Can.MESSAGE in caps):
            warn_cap, _ = _capability("warn", caps)
            return entry(
                point,
                "degraded",
                "block became warn (the point cannot deny)",
                act="warn",
                rep="every",
                cap=warn_cap,
                native=native,
            )
        other = _other_point(point)
        if other and other in spec.points and action in ("inject", "warn"):
            other_caps, other_native, _ = _placed(info, other, spec)
            other_cap, _ = _capability(action, other_caps)
            if other_cap:
                return entry(
                    other,
                    "degraded",
                    f"capability-missing at {point}: runs at {other}",
                    cap=other_cap,
                    native=other_native,
                )
    if fallback == "skip":
        return entry(point, "skipped", "capability-missing", native=native)
    return entry(point, "install-error", "capability-missing", native=native)


def check_lines(info: RuleInfo) -> list[str]:
    """What a rule's check runs, for `style plan` (docs/observers.md#checks): the person sees
    every command before allowing it."""
    c = info.check
    if c is None:
        return []
    if c.prompt is not None:
        return [f"    check asks the client's model: {c.prompt!r} (timeout {c.timeout_s:g} s)"]
    cooldown = f", cooldown {c.cooldown_s:g} s" if c.cooldown_s else ""
    return [f"    check runs `{c.run}` in the project (timeout {c.timeout_s:g} s{cooldown})"]


def refresh_lines(info: RuleInfo, spec: HarnessSpec) -> list[str]:
    """The refresh strategy lines `style plan` prints (docs/actions.md#refresh)."""
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


_NAME_LIST = re.compile(r"[A-Za-z0-9_\- ,|]+")


def matcher_accepts(matcher: str | None, tool_name: str) -> bool:
    """Whether a Claude-style matcher selects a tool name
    (docs/design/harnesses.md#claude-code-matchers)."""
    if matcher is None or matcher in ("", "*"):
        return True
    if _NAME_LIST.fullmatch(matcher):
        return tool_name in {n.strip() for n in re.split(r"[|,]", matcher)}
    try:
        return re.search(matcher, tool_name) is not None
    except re.error:
        return True  # a matcher Python cannot read: assume the harness delivers the call
