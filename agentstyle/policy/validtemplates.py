"""The validator's checks of a rule's templates: `message`, `context`, a fix's `with`.

Each `{{ variable }}` known, available where the rule is evaluated, and given a default where it
may be empty."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from agentstyle import codes
from agentstyle.diagnostics import closest, suggestion
from agentstyle.globs import glob_to_regex
from agentstyle.grammar.ast import GrammarError, Segment, Text, Var
from agentstyle.grammar.parse import parse_template
from agentstyle.policy.manifest import INVALID
from agentstyle.policy.settingrefs import embedded
from agentstyle.policy.validconditions import (
    ConditionChecks,
    RuleInfo,
    event_base,
    unavailable_at,
)
from agentstyle.policy.yamlpos import YNode
from agentstyle.source import Span
from agentstyle.vocabulary import (
    CHECK_FIELDS,
    CHECK_OUTPUT_VARS,
    CHECK_OUTPUT_WORST_TOKENS,
    CONDITION_FIELDS,
    DEDUP_BREAKING_VARS,
    EVENT_PATH_VARS,
    EVENT_VAR_WORST_TOKENS,
    EVENT_VARS,
    RUNTIME_VAR_WORST_TOKENS,
    RUNTIME_VARS,
    STATE_LIST_VARS,
    STATE_VAR_WORST_TOKENS,
    estimate_tokens,
)

# Runtime variables that a harness may leave empty (var-no-default); harness.name is always set.
MAYBE_EMPTY_VARS = RUNTIME_VARS - {"harness.name"}


class TemplateChecks(ConditionChecks):
    """The validator with its checks of templates."""

    # -- templates ----------------------------------------------------------------------------

    def fixed_settings(
        self, text: str, node: YNode, rid: str, code: str, where: str
    ) -> list[tuple[int, str]] | None:
        """The settings a text fixed at install fills in (`{{settings.NAME}}`: a `check.run`
        command, a redact pattern), as (offset, NAME); None after saying a reference that is no
        declared setting or has a filter (nothing known later can be filled in there). `where`
        names the text and what it is: "`check.run`: the command"."""
        found: list[tuple[int, str]] = []
        for offset, name, filtered in embedded(text):
            setting = name[len("settings.") :] if name.startswith("settings.") else None
            if setting is None or filtered:
                self.emit(
                    code,
                    f"`{{{{{name}}}}}` in {where} is fixed at install, so it can fill in "
                    "`{{settings.NAME}}` only (no filter)",
                    node.locate(offset),
                    rid,
                )
                return None
            if setting not in self.settings:
                meant = closest(setting, list(self.settings))
                self.emit(
                    codes.UNDECLARED_VAR,
                    f"`{{{{{name}}}}}` uses undeclared setting `{setting}`",
                    node.locate(offset),
                    rid,
                    suggestion(meant and f"{{{{settings.{meant}}}}}"),
                )
                return None
            found.append((offset, setting))
        return found

    def template(self, text: str, node: YNode, info: RuleInfo, bad: set[str]) -> CheckedTemplate:
        """Parse and check one body or `model_text`; its worst-case size and what it uses."""
        rid = info.rule.id
        locate: Callable[[int], Span] = node.locate
        try:
            segments = parse_template(text, locate)
        except GrammarError as exc:
            self.emit(codes.INVALID_TEMPLATE, exc.message, exc.span, rid, exc.hint)
            return CheckedTemplate((), estimate_tokens(text))
        out = CheckedTemplate(segments, 0)
        static_bytes = 0
        dynamic_tokens = 0
        for seg in segments:
            if isinstance(seg, Text):
                static_bytes += len(seg.text.encode())
                continue
            kind = self.variable(seg, info, bad)
            if kind == "setting":
                setting = self.settings.get(seg.name.split(".", 1)[1])
                value = setting.default if setting is not None else ""
                static_bytes += len(str(value if value is not None else "").encode())
            elif kind == "event" and event_base(seg.name) in STATE_LIST_VARS:
                if out.first_event is None:
                    out.first_event = seg.span
                dynamic_tokens += STATE_VAR_WORST_TOKENS
                out.state_tokens += STATE_VAR_WORST_TOKENS
            elif kind == "event":
                if out.first_event is None:
                    out.first_event = seg.span
                dynamic_tokens += EVENT_VAR_WORST_TOKENS
            elif kind == "runtime":
                out.uses_runtime = True
                dynamic_tokens += RUNTIME_VAR_WORST_TOKENS
            elif kind == "check":
                out.uses_runtime = True
                big = seg.name in CHECK_OUTPUT_VARS
                dynamic_tokens += CHECK_OUTPUT_WORST_TOKENS if big else RUNTIME_VAR_WORST_TOKENS
        out.worst = (static_bytes + 3) // 4 + dynamic_tokens
        return out

    def variable(self, var: Var, info: RuleInfo, bad: set[str]) -> str:
        rid, name = info.rule.id, var.name
        if name.startswith("settings."):
            setting = name.split(".", 1)[1]
            if setting not in self.settings:
                self.emit(
                    codes.UNDECLARED_VAR,
                    f"`{{{{{name}}}}}` uses undeclared setting `{setting}`",
                    var.span,
                    rid,
                    self.var_hint(name),
                )
                return "error"
            return "setting"
        if name in RUNTIME_VARS:
            if name in DEDUP_BREAKING_VARS:
                self.emit(
                    codes.HARNESS_ID_IN_TEXT,
                    f"`{{{{{name}}}}}` changes on every event and defeats dedup",
                    var.span,
                    rid,
                )
            if var.default is None and name in MAYBE_EMPTY_VARS and not self.guaranteed(name, info):
                self.emit(
                    codes.VAR_NO_DEFAULT,
                    f'`{{{{{name}}}}}` may be empty; add `| default: "…"`',
                    var.span,
                    rid,
                )
            return "runtime"
        if name in CHECK_FIELDS:
            # a check's result (docs/observers.md#what-a-check-gives): a rule with a `check`
            where = unavailable_at(CONDITION_FIELDS[name], info, bad)
            if where is not None:
                self.emit(
                    codes.CHECK_FIELD,
                    f"`{{{{{name}}}}}` is a check's result; rule `{rid}` has no `check`",
                    var.span,
                    rid,
                )
                return "error"
            return "check"
        if name.startswith("event."):
            base = event_base(name)
            if base != name and not _template_path(name[len(base) + 1 :]):
                self.emit(
                    codes.UNDECLARED_VAR,
                    f"`{{{{{name}}}}}`: a path segment in a "
                    "template is letters, digits and `_` only",
                    var.span,
                    rid,
                )
                return "error"
            if base not in EVENT_VARS:
                return self.unknown_var(var, rid)
            where = unavailable_at(CONDITION_FIELDS[base[len("event.") :]], info, bad)
            if where is not None:
                self.emit(
                    codes.EVENT_VAR_UNAVAILABLE,
                    f"`{{{{{name}}}}}` is not available at {where}",
                    var.span,
                    rid,
                )
            return "event"
        if event_base("event." + name) in EVENT_VARS:
            # Event content written without its prefix (`{{prompt}}`, `{{tool.input.x}}`).
            self.emit(
                codes.EVENT_VAR_IN_TEMPLATE,
                f"event content needs the `event.` prefix: `{{{{event.{name}}}}}`",
                var.span,
                rid,
            )
            return "error"
        return self.unknown_var(var, rid)

    def unknown_var(self, var: Var, rid: str) -> str:
        """`undeclared-var` for a name no setting, runtime or event variable has, with the one
        it probably meant; the variable's kind is then "error"."""
        name = var.name
        self.emit(
            codes.UNDECLARED_VAR,
            f"unknown variable `{{{{{name}}}}}`",
            var.span,
            rid,
            self.var_hint(name),
        )
        return "error"

    def var_hint(self, name: str) -> str | None:
        """The template variable `name` probably meant: a declared setting, a runtime or an
        event variable (`event.tool.inptu.x` keeps its path below the corrected prefix)."""
        known = [*sorted(RUNTIME_VARS), *sorted(EVENT_VARS), *sorted(CHECK_FIELDS)]
        known += [f"settings.{s}" for s in self.settings]
        parts = name.split(".")
        meant: str | None = None
        if len(parts) > 3 and parts[0] == "event":
            prefix = closest(".".join(parts[:3]), EVENT_PATH_VARS)
            meant = f"{prefix}.{'.'.join(parts[3:])}" if prefix else None
        meant = meant or closest(name, known)
        return suggestion(f"{{{{{meant}}}}}" if meant else None)

    def guaranteed(self, name: str, info: RuleInfo) -> bool:
        """`when.model` without `unknown` guarantees `{{model}}`
        (docs/templates.md#runtime-variables)."""
        if name != "model":
            return False
        fv = info.rule.fields.get("when")
        when = fv.value if fv is not None and fv.origin != INVALID else None
        if not isinstance(when, dict) or "model" not in when:
            return False
        globs = when["model"] if isinstance(when["model"], list) else [when["model"]]
        return bool(globs) and all(_cannot_match_unknown(g) for g in globs)


@dataclass(slots=True)
class CheckedTemplate:
    """A parsed body or `model_text`: segments, worst-case tokens, what it uses."""

    segments: tuple[Segment, ...]
    worst: int
    first_event: Span | None = None  # the first `event.*` variable
    uses_runtime: bool = False
    state_tokens: int = 0  # of `worst`: the history lists (STATE_LIST_VARS) at their worst


def _template_path(path: str) -> bool:
    return all(seg and all(c.isalnum() or c == "_" for c in seg) for seg in path.split("."))


def _cannot_match_unknown(glob: object) -> bool:
    if not isinstance(glob, str):
        return False
    try:
        return re.fullmatch(glob_to_regex(glob), "unknown") is None
    except ValueError:
        return False
