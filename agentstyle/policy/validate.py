"""Validate a loaded package: every semantic diagnostic of docs/diagnostics.md, at once.

Here a rule's structure and the rule as a whole; its conditions and templates are checked in
`validconditions.py` and `validtemplates.py`, the parts the validator is built on."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic, did_you_mean
from agentstyle.globs import glob_to_regex, is_glob
from agentstyle.grammar.ast import And, Node, Not, Or, Pred, Var
from agentstyle.policy.load import native_names, unknown_event
from agentstyle.policy.manifest import INVALID
from agentstyle.policy.model import ExceptionDecl, FieldValue, Package, Rule
from agentstyle.policy.rules import effective, evaluated_at_session_start, points, tool_list
from agentstyle.policy.settingrefs import (
    SettingProblem,
    fill_pattern,
    uses,
)
from agentstyle.policy.validchecks import CheckChecks
from agentstyle.policy.validconditions import (
    RuleInfo,
    predicates_of,
    resolve_tools,
)
from agentstyle.policy.validtemplates import CheckedTemplate
from agentstyle.policy.yamlpos import YMap, YNode, YSeq
from agentstyle.source import Span
from agentstyle.vocabulary import (
    BLOCK_REASON_TOKENS,
    DENY_POINTS,
    EVENTS,
    FAIL_CLOSED_POINTS,
    MCP_TOOL,
    REDACT_SEPARATOR,
    STOP_POINTS,
    TOOLS,
    VERDICT_ACTIONS,
)


def _model_span(info: RuleInfo) -> Span | None:
    """Where a rule first reads the model: a `model` condition or a `{{model}}` variable."""
    stack: list[Node] = [info.condition] if info.condition is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, Pred):
            if node.field == "model":
                return node.span
        elif isinstance(node, Not):
            stack.append(node.item)
        elif isinstance(node, (And, Or)):
            stack.extend(reversed(node.items))
    for segments in (info.body, info.model_text or ()):
        for seg in segments:
            if isinstance(seg, Var) and seg.name == "model":
                return seg.span
    return None


@dataclass(slots=True)
class ExceptionInfo:
    """A validated `exceptions:` entry: the rule it narrows and its condition, with what the
    condition's values lower as (`info`: regexes, command items' predicates)."""

    decl: ExceptionDecl
    condition: Node
    info: RuleInfo


@dataclass(slots=True)
class Validation:
    rules: list[RuleInfo]
    diagnostics: list[Diagnostic]
    exceptions: list[ExceptionInfo] = field(default_factory=list)


class _Validator(CheckChecks):
    """Every check of a package, collected at once."""

    # -- structure ----------------------------------------------------------------------------

    def structure(self, rule: Rule, eff: dict[str, Any], bad: set[str]) -> None:
        """Field/target consistency, actions, timing and dedup fields.

        `bad` holds the fields whose value failed its type check: checks that depend on them
        are skipped, since the loader already reported the cause.
        """
        self._placement(rule, eff, bad)
        self._verdict(rule, eff, bad)
        self._timing(rule, eff, bad)
        self._unused(rule, eff, bad)

    def _placement(self, rule: Rule, eff: dict[str, Any], bad: set[str]) -> None:
        """Which fields apply to the target, and where the rule runs (event, tools, names)."""
        rid, target = rule.id, eff["target"]
        fields = _valid(rule)
        # Written on this rule (not inherited from `defaults`, which apply wherever they can).
        own = {k for k, fv in fields.items() if fv.origin != "defaults"}
        wrong = {
            "tool": target != "tool",
            "names": target not in ("tool", "mcp"),
            "mcp": target != "mcp",
            "skill": target != "skill",
            "event": target != "event",
            "at": target not in ("tool", "mcp", "skill"),
        }
        if "target" not in bad:
            for name, is_wrong in wrong.items():
                if is_wrong and name in own:
                    self.emit(
                        codes.FIELD_TARGET,
                        f"field `{name}` does not apply to target `{target}`",
                        rule.span_of(name),
                        rid,
                    )
        if (
            target == "tool"
            and not bad & {"target", "tool", "names"}
            and "tool" not in fields
            and "names" not in fields
        ):
            self.emit(
                codes.TOOL_MISSING,
                f"tool rule `{rid}` needs `tool` or `names`",
                rule.span_of("target"),
                rid,
            )
        if target == "event" and not bad & {"target", "event"}:
            event = eff.get("event")
            if event is None:
                self.emit(
                    codes.UNKNOWN_EVENT,
                    f"event rule `{rid}` needs an `event`",
                    rule.span_of("target"),
                    rid,
                )
            elif event not in EVENTS:
                self.diags.append(unknown_event(event, rule.span_of("event"), rid))
            if event not in EVENTS:
                bad.add("event")  # where the rule runs is unknown: skip what depends on it
        if target == "tool" and "tool" in fields and not self.tool_names(rule, fields["tool"]):
            bad.add("tool")  # which tools the rule covers is unknown: skip what depends on it
        for name in ("mcp", "skill"):
            if target == name and name in fields:
                self.name_glob(rule, fields[name])

    def _verdict(self, rule: Rule, eff: dict[str, Any], bad: set[str]) -> None:
        """What a block/ask/allow rule can do where it runs."""
        rid, target, action = rule.id, eff["target"], eff["action"]
        fields = _valid(rule)
        own = {k for k, fv in fields.items() if fv.origin != "defaults"}
        pts = points(eff)
        verdict = action in VERDICT_ACTIONS
        if verdict and "action" not in bad:
            deny_ok = target in ("tool", "mcp", "skill") or (
                target == "event" and (not pts or pts[0] in DENY_POINTS)
            )
            if not deny_ok and not bad & {"target", "event"}:
                where = f"event `{pts[0]}`" if target == "event" and pts else f"target `{target}`"
                self.emit(
                    codes.ACTION_TARGET,
                    f"rule `{rid}` cannot `{action}` on {where}: it cannot deny",
                    rule.span_of("action"),
                    rid,
                )
            if (
                target in ("tool", "mcp", "skill")
                and "at" in fields
                and eff["at"] == "after"
                and "target" not in bad
            ):
                self.emit(
                    codes.BLOCK_AFTER,
                    f"rule `{rid}` is a {action} rule and cannot run at: after",
                    rule.span_of("at"),
                    rid,
                )
            if "repeat" in own:
                self.emit(
                    codes.BLOCK_REPEAT,
                    f"`repeat` is ignored on {action} rule `{rid}`",
                    rule.span_of("repeat"),
                    rid,
                )

    def _timing(self, rule: Rule, eff: dict[str, Any], bad: set[str]) -> None:
        """`fail: closed`, `refresh` and `reinject_on_compact` against where and how it runs."""
        rid, target, action = rule.id, eff["target"], eff["action"]
        fields = _valid(rule)
        own = {k for k, fv in fields.items() if fv.origin != "defaults"}
        pts = points(eff)
        if eff["fail"] == "closed" and not bad & {"target", "at", "event", "refresh"}:
            ok = bool(pts) and all(p in FAIL_CLOSED_POINTS for p in pts) and target != "system"
            if not ok:
                self.emit(
                    codes.FAIL_CLOSED_TARGET,
                    f"rule `{rid}` uses `fail: closed` where the point cannot deny",
                    rule.span_of("fail"),
                    rid,
                )
        refresh = eff.get("refresh")
        depends = {"action", "repeat", "mode", "target", "event"}
        if isinstance(refresh, int) and refresh > 0 and not bad & depends:
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
                    codes.REFRESH_INCOMPATIBLE,
                    f"positive `refresh` cannot be used with {problem}",
                    rule.span_of("refresh"),
                    rid,
                )
        if (
            "reinject_on_compact" in own
            and eff["reinject_on_compact"] is True
            and eff.get("repeat") != "session"
            and not bad & {"action", "repeat"}
        ):
            self.emit(
                codes.REINJECT_UNUSED,
                f"`reinject_on_compact` has no effect without `repeat: "
                f"session` (rule `{rid}` repeats `{eff.get('repeat')}`)",
                rule.span_of("reinject_on_compact"),
                rid,
            )

    def _unused(self, rule: Rule, eff: dict[str, Any], bad: set[str]) -> None:
        """Fields that do nothing on this rule, and repeated injections without a reason."""
        rid, action = rule.id, eff["action"]
        fields = _valid(rule)
        refresh = eff.get("refresh")
        if (
            "sources" in fields
            and not evaluated_at_session_start(eff)
            and not bad & {"target", "event", "refresh"}
        ):
            self.emit(
                codes.SOURCES_UNUSED,
                f"`sources` has no effect: rule `{rid}` is not evaluated at session.start",
                rule.span_of("sources"),
                rid,
            )
        if "model_text" in fields and action != "warn" and "action" not in bad:
            self.emit(
                codes.MODEL_TEXT_UNUSED,
                f"`model_text` is only used by warn rules, rule `{rid}` is `{action}`",
                rule.span_of("model_text"),
                rid,
            )
        repeated = eff.get("repeat") in ("every", "turn") or (
            isinstance(refresh, int) and refresh > 0
        )
        if (
            action == "inject"
            and repeated
            and "reason" not in rule.fields
            and not bad & {"action", "repeat", "refresh"}
        ):
            self.emit(
                codes.REPEATED_INJECT_NO_REASON,
                f"rule `{rid}` injects repeatedly; add a `reason` saying why",
                rule.span,
                rid,
            )

    def tool_names(self, rule: Rule, fv: FieldValue) -> bool:
        """`unknown-tool` for names that are not normalized tools, `bad-pattern` for globs;
        whether every entry was understood."""
        node = fv.node
        items = node.nodes if isinstance(node, YSeq) else [node]
        ok = True
        for item in items:
            name = item.value
            if not isinstance(name, str):
                continue
            if is_glob(name):
                try:
                    glob_to_regex(name)
                except ValueError as exc:
                    self.emit(codes.BAD_PATTERN, f"tool glob `{name}`: {exc}", item.span, rule.id)
                    ok = False
            elif name not in TOOLS and name != MCP_TOOL:
                ok = False
                native = native_names()[1].get(name)
                if native is not None:
                    self.emit(
                        codes.UNKNOWN_TOOL,
                        f"`{name}` is a native tool name (match it with `names: [{name}]`)",
                        item.span,
                        rule.id,
                        f"did you mean `{native}`?",
                    )
                elif (typo := did_you_mean(name, TOOLS)) is not None:
                    self.emit(
                        codes.UNKNOWN_TOOL,
                        f"`{name}` is not a normalized tool",
                        item.span,
                        rule.id,
                        typo,
                    )
                else:
                    self.emit(
                        codes.UNKNOWN_TOOL,
                        f"`{name}` is not a normalized tool; use `names` for native tool names",
                        item.span,
                        rule.id,
                    )
        return ok

    def name_glob(self, rule: Rule, fv: FieldValue) -> None:
        if not isinstance(fv.value, str):
            return
        try:
            glob_to_regex(fv.value)
        except ValueError as exc:
            self.emit(codes.BAD_PATTERN, f"glob `{fv.value}`: {exc}", fv.span, rule.id)

    # -- whole rule ---------------------------------------------------------------------------

    def fix(self, rule: Rule, info: RuleInfo, bad: set[str]) -> tuple[str, str] | None:
        """A rule's `fix`: a mapping of `replace` (an RE2 pattern) and `with`, on a `block`
        rule for shell calls; the pattern and the replacement are checked by RE2 at the end
        (`validate_package`), as evaluation will apply them."""
        fv = rule.fields["fix"]
        node = fv.node
        rid = rule.id
        action, target = info.eff.get("action"), info.eff.get("target")
        if not {"action", "target", "tool"} & bad and (
            action != "block" or target != "tool" or info.tools != ["shell"] or info.names
        ):
            what = f"`{action}`" if action != "block" else "not a `tool: shell` rule"
            self.emit(
                codes.FIX_NOT_BLOCK,
                f"`fix` needs a `block` rule on shell calls; rule `{rid}` is {what}",
                fv.span,
                rid,
                "a fix rewrites a refused shell command: use `action: block` and `tool: shell`",
            )
            return None
        if not isinstance(node, YMap):
            return None  # the loader said it must be a mapping
        if self.unknown_block_key(
            "fix", node, ("replace", "with"), codes.FIX_NOT_BLOCK, rid, hint=False
        ):
            return None
        return self.rewrite("fix", node, fv.span, rid, codes.FIX_NOT_BLOCK, "replace")

    def redact(self, rule: Rule, info: RuleInfo, bad: set[str]) -> tuple[str, str] | None:
        """A `redact` rule: it runs after a tool call (`redact-point`) and carries a mapping of
        `pattern` (an RE2 pattern) and `with` (`redact-block`), checked by RE2 at the end as
        evaluation will apply them (docs/actions.md#redact)."""
        rid = rule.id
        action, target = info.eff.get("action"), info.eff.get("target")
        fv = rule.fields.get("redact")
        if action != "redact":
            if fv is not None and fv.origin != INVALID and "action" not in bad:
                self.emit(
                    codes.REDACT_BLOCK,
                    f"`redact` needs `action: redact`; rule `{rid}` is `{action}`",
                    fv.span,
                    rid,
                )
            return None
        if not bad & {"target", "at"} and (
            target not in ("tool", "mcp") or info.eff.get("at") != "after"
        ):
            where = "`at: before`" if target in ("tool", "mcp") else f"target `{target}`"
            self.emit(
                codes.REDACT_POINT,
                f"rule `{rid}` cannot redact on {where}: only a finished tool call has output",
                rule.span_of("at" if target in ("tool", "mcp") else "target"),
                rid,
                "a redact rule runs after the call: `target: tool` or `mcp`, no `at: before`",
            )
        if fv is None:
            self.emit(
                codes.REDACT_BLOCK,
                f"redact rule `{rid}` needs `redact: {{pattern, with}}`",
                rule.span_of("action"),
                rid,
            )
            return None
        node = fv.node
        if fv.origin == INVALID or not isinstance(node, YMap):
            return None  # the loader said it must be a mapping
        keys = ("pattern", "patterns", "with", "keep")
        if self.unknown_block_key("redact", node, keys, codes.REDACT_BLOCK, rid):
            return None
        if "keep" in node:
            kept = self.pattern_list(node, "keep", rid)
            info.redact_keep = REDACT_SEPARATOR.join(kept[0]) if kept else None
        if "patterns" not in node:
            return self.rewrite("redact", node, fv.span, rid, codes.REDACT_BLOCK, "pattern")
        return self.redact_patterns(node, fv.span, rid)

    def redact_settings(self, pattern: str, node: YNode, rid: str) -> str | None:
        """A redact pattern as RE2 checks it: its `{{settings.NAME}}` (declared settings only,
        filled in at install: settingrefs.fill_pattern) given their defaults, a setting
        without one standing in as `x`. None after saying what is wrong."""
        where = "a redact pattern: the pattern"
        refs = self.fixed_settings(pattern, node, rid, codes.REDACT_BLOCK, where)
        if refs is None:
            return None
        if not refs:
            return pattern
        values = {setting: self.defaults[setting] for _offset, setting in refs}
        try:
            return fill_pattern(pattern, values)
        except SettingProblem as exc:
            self.emit(codes.REDACT_BLOCK, exc.message, node.span, rid)
            return None

    def redact_patterns(self, node: YMap, span: Span, rid: str) -> tuple[str, str] | None:
        """`redact.patterns`: a list of RE2 patterns, one a line, each applied in turn with the
        one `with` (docs/actions.md#redact); instead of `pattern`, never beside it. Each is
        checked on its own, at its line. Kept joined by REDACT_SEPARATOR (rows.py)."""
        if "pattern" in node:
            self.emit(
                codes.REDACT_BLOCK,
                "`redact` has both `pattern` and `patterns`; give one",
                node.key_span("patterns"),
                rid,
                "a list of patterns goes under `patterns`, one pattern alone under `pattern`",
            )
            return None
        with_node = node.get("with")
        if with_node is None or not isinstance(with_node.value, str):
            where = span if with_node is None else with_node.span
            self.emit(codes.REDACT_BLOCK, "`redact` needs `with`, a string", where, rid)
            return None
        listed = self.pattern_list(node, "patterns", rid)
        if listed is None:
            return None
        written, filled = listed
        replacement = with_node.value
        for pattern in filled:
            self.rewrite_checks.append((pattern, replacement, with_node, rid, "redact.patterns"))
        return REDACT_SEPARATOR.join(written), with_node.value

    def pattern_list(self, node: YMap, key: str, rid: str) -> tuple[list[str], list[str]] | None:
        """`redact.patterns` or `redact.keep`: a list of RE2 patterns, one a line, each checked
        on its own at its line; the patterns as written and with their settings filled in as
        RE2 checks them. None after saying what is wrong."""
        seq = node.get(key)
        if not isinstance(seq, YSeq) or not seq.nodes:
            where = node.key_span(key) if seq is None else seq.span
            self.emit(codes.REDACT_BLOCK, f"`redact.{key}` must be a list of patterns", where, rid)
            return None
        written: list[str] = []
        filled: list[str] = []
        for n, item in enumerate(seq.nodes, 1):
            if not isinstance(item.value, str) or not item.value or REDACT_SEPARATOR in item.value:
                self.emit(
                    codes.REDACT_BLOCK,
                    f"`redact.{key}` item {n} must be a non-empty pattern",
                    item.span,
                    rid,
                )
                return None
            checked = self.redact_settings(item.value, item, rid)
            if checked is None:
                return None
            written.append(item.value)
            filled.append(checked)
            self.regex_checks.append((checked, item.value, item.span, rid, "", id(item)))
        return written, filled

    def rewrite(
        self, name: str, node: YMap, span: Span, rid: str, code: str, pattern_key: str
    ) -> tuple[str, str] | None:
        """The pattern (under `pattern_key`) and the `with` of a `fix` or `redact` mapping
        (`name`), each a string, the pattern a non-empty one, queued for the RE2 checks at the
        end; None where a part is missing or no string (said, at `span` or at the part)."""
        parts: dict[str, YNode] = {}
        for key in (pattern_key, "with"):
            part = node.get(key)
            if part is None:
                self.emit(code, f"`{name}` needs `{key}`", span, rid)
                return None
            if not isinstance(part.value, str) or (key == pattern_key and not part.value):
                kind = "a non-empty pattern" if key == pattern_key else "a string"
                self.emit(code, f"`{name}.{key}` must be {kind}", part.span, rid)
                return None
            parts[key] = part
        pattern, replacement = str(parts[pattern_key].value), str(parts["with"].value)
        checked = pattern
        if name == "redact":
            filled = self.redact_settings(pattern, parts[pattern_key], rid)
            if filled is None:
                return None
            checked = filled
        self.regex_checks.append((checked, pattern, parts[pattern_key].span, rid, "", id(node)))
        self.rewrite_checks.append((checked, replacement, parts["with"], rid, name))
        return pattern, replacement

    def rule(self, rule: Rule) -> RuleInfo:
        eff = effective(rule, self.pkg)
        bad = {k for k, fv in rule.fields.items() if fv.origin == INVALID}
        self.structure(rule, eff, bad)
        names = eff.get("names") or []
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
        self.conditions(rule, info, bad)
        body, model_text = self.texts(rule, eff, info, bad)
        worst = body.worst
        if model_text is not None and eff["action"] == "warn":
            worst += model_text.worst
        info.worst_tokens = worst
        dynamic = body.first_event is not None or body.uses_runtime
        if model_text is not None:
            dynamic = dynamic or model_text.first_event is not None or model_text.uses_runtime
        info.static = eff["target"] == "system" and info.condition is None and not dynamic
        # The body is what is too large; an empty placeholder body points at its rule.
        where = rule.body_node.span if rule.body else rule.span
        self.budgets(rule, eff, worst, where, bad)
        info.model_span = _model_span(info)
        if info.model_span is not None and "session.start" in info.points:
            self.emit(
                codes.MODEL_UNKNOWN_AT_START,
                f"rule `{rule.id}` reads the model at session.start, where Claude Code and "
                "Gemini CLI do not name it yet: there it is `unknown` when a session starts",
                info.model_span,
                rule.id,
            )
        # A stop's block reason is the agent's next instruction: the history list it names
        # (the files left untested) is what it acts on, so only the rest counts as wording.
        reason = worst - body.state_tokens if set(info.points) <= STOP_POINTS else worst
        if eff["action"] == "block" and reason > BLOCK_REASON_TOKENS:
            self.emit(
                codes.BLOCK_REASON_LONG,
                f"block reason of `{rule.id}` is about {reason} tokens; keep it "
                f"under {BLOCK_REASON_TOKENS}",
                where,
                rule.id,
            )
        return info

    def conditions(self, rule: Rule, info: RuleInfo, bad: set[str]) -> None:
        """A rule's `when` and `unless` checked and parsed into `info`, then its `fix`,
        `redact` and `check`."""
        info.condition, info.harnesses = self.when(rule)
        if info.condition is not None:
            self.check_tree(info.condition, info, bad)
        if "unless" in rule.fields:
            info.unless, unless_harnesses = self.when(rule, "unless")
            if unless_harnesses is not None:
                self.emit(
                    codes.INVALID_CONDITION,
                    "`unless` cannot name harnesses; narrow the rule with `when.harness`",
                    rule.span_of("unless"),
                    rule.id,
                )
            if info.unless is not None:
                self.check_tree(info.unless, info, bad)
        if "fix" in rule.fields and "fix" not in bad:
            info.fix = self.fix(rule, info, bad)
        if "action" not in bad:
            info.redact = self.redact(rule, info, bad)
        if "check" in rule.fields:
            info.check = self.check(rule, info, bad)

    def texts(
        self, rule: Rule, eff: dict[str, Any], info: RuleInfo, bad: set[str]
    ) -> tuple[CheckedTemplate, CheckedTemplate | None]:
        """A rule's body and its `model_text` (None: it has none, or an invalid one) checked
        as templates into `info`; a warn rule whose body reads the event needs a
        `model_text`."""
        body = self.template(rule.body, rule.body_node, info, bad)
        info.body = body.segments
        model_text: CheckedTemplate | None = None
        fv = rule.fields.get("model_text")
        if fv is not None and fv.origin != INVALID:
            model_text = self.template(fv.value, fv.node, info, bad)
            info.model_text = model_text.segments
        if (
            eff["action"] == "warn"
            and body.first_event is not None
            and "model_text" not in rule.fields
            and "action" not in bad
        ):
            self.emit(
                codes.EVENT_WARN_MODEL_TEXT,
                f"warn rule `{rule.id}` uses event content; add a `model_text` for the model",
                body.first_event,
                rule.id,
            )
        return body, model_text

    def budgets(
        self, rule: Rule, eff: dict[str, Any], worst: int, where: Span, bad: set[str]
    ) -> None:
        """A rule's worst-case tokens against its `max_tokens` and the package's
        `budget.per_event`."""
        max_tokens = eff["max_tokens"]
        if worst > max_tokens and "max_tokens" not in bad:
            self.emit(
                codes.BUDGET_RULE,
                f"rule `{rule.id}` may use {worst} tokens, over its `max_tokens` of {max_tokens}",
                where,
                rule.id,
            )
        if worst > self.pkg.per_event:
            self.emit(
                codes.BUDGET_EVENT,
                f"rule `{rule.id}` alone may use {worst} tokens, over "
                f"`budget.per_event` of {self.pkg.per_event}",
                where,
                rule.id,
            )

    def exception(self, decl: ExceptionDecl) -> ExceptionInfo | None:
        """Check one `exceptions:` entry's condition as a rule's `unless` is checked. Which
        rule it narrows is known only when it is installed beside it: its fields are not
        checked against that rule's tools here, and it may not use settings (they are the
        package's, while the condition is lowered into another package's rule)."""
        rule = Rule(
            id=decl.rule,
            span=decl.span,
            fields={"unless": FieldValue(decl.unless.value, decl.unless, "inline")},
            body="",
            body_node=decl.unless,
            order=-1,
            source=self.pkg.manifest,
        )
        info = RuleInfo(rule, {"target": "tool"}, [], None, None, (), None, ["*"], [], 0, False)
        condition, harnesses = self.when(rule, "unless")
        if harnesses is not None:
            self.emit(
                codes.INVALID_CONDITION,
                "an exception's `unless` cannot name harnesses",
                decl.unless.span,
                decl.rule,
            )
        if condition is None:
            return None
        before = len(self.diags)
        self.check_tree(condition, info, {"tool"})  # availability: the rule is not known here
        preds = [*predicates_of(condition), *info.item_preds.values()]
        if any(uses(p.value) for p in preds):
            self.emit(
                codes.INVALID_CONDITION,
                "an exception's condition cannot use settings: it is compiled into another "
                "package's rule",
                decl.unless.span,
                decl.rule,
            )
        if any(d.level == "error" for d in self.diags[before:]):
            return None
        return ExceptionInfo(decl, condition, info)

    def budget_sum(self, infos: list[RuleInfo]) -> None:
        """Warn where rules that can fire on one event could together pass `per_event`."""
        buckets: dict[tuple[str, str], list[RuleInfo]] = {}
        for info in infos:
            if not info.eff["enabled"] or info.eff["action"] in VERDICT_ACTIONS:
                continue
            if info.check is not None:
                continue  # its result speaks alone, at a point of its own (check.done)
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
                            codes.BUDGET_SUM,
                            f"rules at {point} could together use {total} "
                            f"tokens, over `budget.per_event` of {self.pkg.per_event}",
                            info.rule.span,
                            info.rule.id,
                        )
                    break


def _valid(rule: Rule) -> dict[str, FieldValue]:
    return {k: fv for k, fv in rule.fields.items() if fv.origin != INVALID}


def validate_package(pkg: Package) -> Validation:
    from agentstyle.policy.re2 import regex_errors  # duckdb is the RE2 that will run them

    v = _Validator(pkg)
    infos = [v.rule(rule) for rule in pkg.rules]
    v.budget_sum(infos)
    exceptions = [e for e in map(v.exception, pkg.exceptions) if e is not None]
    for decl in pkg.exceptions:
        _check_target(v, decl)
    errors: dict[str, str] = {}
    if v.regex_checks:
        errors = regex_errors(sorted({c[0] for c in v.regex_checks}))
        reported: set[int] = set()
        for pattern, shown, span, rid, note, group in v.regex_checks:
            if pattern in errors and group not in reported:
                reported.add(group)
                problem = errors[pattern]
                if shown != pattern:  # RE2 quotes the text with stand-ins: not what was written
                    problem = problem.split(": ", 1)[0]
                v.emit(codes.BAD_PATTERN, f"regex `{shown}`{note}: {problem}", span, rid)
    if v.rewrite_checks:
        _check_rewrites(v, errors)
    return Validation(infos, v.diags, exceptions)


def _check_target(v: _Validator, decl: ExceptionDecl) -> None:
    """An exception for a rule of this package or of a bundled one names a rule it has."""
    package, _, rule = decl.rule.partition("/")
    ids = [r.id for r in v.pkg.rules] if package == v.pkg.name else _bundled_rule_ids(package)
    if ids is None or rule in ids:
        return  # another package's: whether it is installed is known at install (compile.py)
    v.emit(
        codes.EXCEPTION_TARGET,
        f"exception for `{decl.rule}`: package `{package}` has no rule `{rule}`",
        decl.rule_span,
        None,
        did_you_mean(rule, ids),
    )


@functools.cache
def _bundled_rule_ids(name: str) -> list[str] | None:
    """The rule ids of a bundled library package, or None when no bundled package has that
    name."""
    from importlib import resources

    from agentstyle.policy.load import load_package

    folder = resources.files("agentstyle").joinpath("library").joinpath(name)
    if not folder.joinpath("STYLE.yaml").is_file():
        return None
    loaded = load_package(str(folder))
    return [r.id for r in loaded.package.rules] if loaded.package is not None else None


_REWRITE_ESCAPE = re.compile(r"\\(.?)", re.S)


def _check_rewrites(v: _Validator, pattern_errors: dict[str, str]) -> None:
    """Each fix's replacement as RE2 will apply it: a group the pattern lacks or a backslash
    RE2 does not take is reported at its character (`fix-rewrite`)."""
    from agentstyle.policy.re2 import rewrite_errors

    checks = [c for c in v.rewrite_checks if c[0] not in pattern_errors]
    errors = rewrite_errors([(c[0], c[1]) for c in checks])
    for pattern, replacement, node, rid, block in checks:
        problem = errors.get((pattern, replacement))
        if problem is None:
            continue
        groups = errors_groups(problem)
        offset, shown = 0, ""
        for m in _REWRITE_ESCAPE.finditer(replacement):
            ref = m.group(1)
            if (ref.isdigit() and groups is not None and int(ref) > groups) or (
                not ref.isdigit() and ref != "\\"
            ):
                offset, shown = m.start(), m.group(0)
                break
        if groups is not None:
            plural = "group" if groups == 1 else "groups"
            written = {"fix": "`replace`", "redact": "`pattern`"}.get(block, f"`{pattern}`")
            name = block.split(".")[0]
            message = f"`{name}.with` uses `{shown}`, but {written} has {groups} {plural}"
        else:
            message = (
                f"`{block.split('.')[0]}.with` has `{shown or replacement}`: after a backslash "
                "RE2 takes only a digit (`\\0` to `\\9`) or another backslash"
            )
        code = codes.FIX_REWRITE if block == "fix" else codes.REDACT_BLOCK
        v.emit(code, message, node.locate(offset), rid)


_GROUPS = re.compile(r"only has (\d+) parenthesized")


def errors_groups(problem: str) -> int | None:
    """The number of groups RE2 says the pattern has, when that is the problem."""
    m = _GROUPS.search(problem)
    return int(m.group(1)) if m else None
