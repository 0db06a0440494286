"""The validator's checks of a rule's `check`: its block, its placement, its condition's parts.

A check runs beside the session after its rule's event (docs/observers.md#checks): `run` or
`prompt`, a `timeout` and a `cooldown`; an observer's action, at a point a check can follow;
a condition whose part on the result stands apart from its part on the event."""

from __future__ import annotations

from agentstyle import codes
from agentstyle.diagnostics import did_you_mean
from agentstyle.policy.checks import (
    CHECK_KEYS,
    DEFAULT_PROMPT_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    MAX_COOLDOWN_S,
    MAX_TIMEOUT_S,
    CheckSpec,
    duration_s,
    reads_check,
    split,
)
from agentstyle.policy.manifest import INVALID
from agentstyle.policy.model import Rule
from agentstyle.policy.validconditions import PLACEMENT_FIELDS, RuleInfo
from agentstyle.policy.validtemplates import TemplateChecks
from agentstyle.policy.yamlpos import YMap
from agentstyle.vocabulary import CHECK_ACTIONS, CHECK_AFTER_POINTS, CHECK_POINT


class CheckChecks(TemplateChecks):
    """The validator with its checks of a rule's `check`."""

    def check(self, rule: Rule, info: RuleInfo, bad: set[str]) -> CheckSpec | None:
        """A rule's `check` (docs/observers.md#checks): `run` or `prompt`, a `timeout` and a
        `cooldown`; an observer's action, at a point a check can follow; a condition whose
        result part stands apart from its event part (`check-block`, `check-field`)."""
        rid = rule.id
        fv = rule.fields.get("check")
        if fv is None or fv.origin == INVALID or not isinstance(fv.node, YMap):
            return None  # the loader said it must be a mapping
        node = fv.node
        if self.unknown_block_key("check", node, CHECK_KEYS, codes.CHECK_BLOCK, rid):
            return None
        texts = {k: n for k in ("run", "prompt") if (n := node.get(k)) is not None}
        if len(texts) != 1:
            said = "both `run` and `prompt`" if texts else "neither `run` nor `prompt`"
            self.emit(codes.CHECK_BLOCK, f"`check` has {said}; give one", fv.span, rid)
            return None
        [(kind, text)] = texts.items()
        command = text.value
        if not isinstance(command, str) or not command.strip():
            self.emit(codes.CHECK_BLOCK, f"`check.{kind}` must be a command", text.span, rid)
            return None
        where = "`check.run`: the command"
        if (
            kind == "run"
            and self.fixed_settings(command, text, rid, codes.CHECK_BLOCK, where) is None
        ):
            return None
        limits = {"timeout": (DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S), "cooldown": (0, MAX_COOLDOWN_S)}
        seconds: dict[str, float] = {}
        for key, (default, most) in limits.items():
            part = node.get(key)
            value = duration_s(part.value) if part is not None else float(default)
            if part is not None and (value is None or value > most):
                self.emit(
                    codes.CHECK_BLOCK,
                    f"`check.{key}` must be a duration up to {most:g} s, like `300s` or `2m`",
                    part.span,
                    rid,
                )
                return None
            seconds[key] = value or 0.0
        spec = CheckSpec(
            command if kind == "run" else None,
            command if kind == "prompt" else None,
            seconds["timeout"] if node.get("timeout") is not None else _default_timeout(kind),
            seconds["cooldown"],
            fv.span,
        )
        self._check_placement(rule, info, bad, spec)
        return spec

    def unknown_block_key(
        self, block: str, node: YMap, keys: tuple[str, ...], code: str, rid: str, hint: bool = True
    ) -> bool:
        """Whether a rule's `block` mapping (`check`, `fix`, `redact`) has a key it does not take:
        said at the key, with the keys it takes (and the one probably meant, where `hint`)."""
        unknown = [k for k in node if k not in keys]
        if not unknown:
            return False
        named = [f"`{k}`" for k in keys]
        takes = " and ".join(named) if len(named) == 2 else ", ".join(named)
        self.emit(
            code,
            f"`{block}` has `{unknown[0]}`; it takes {takes}",
            node.key_span(unknown[0]),
            rid,
            did_you_mean(unknown[0], keys) if hint else None,
        )
        return True

    def _check_placement(self, rule: Rule, info: RuleInfo, bad: set[str], spec: CheckSpec) -> None:
        """Where a check can follow, with which action, and its condition's two parts."""
        rid, action = rule.id, info.eff["action"]
        own = [p for p in info.points if p != CHECK_POINT]
        if spec.prompt is not None:
            if not bad & {"target", "event", "action"} and (own != ["stop"] or action != "block"):
                self.emit(
                    codes.CHECK_BLOCK,
                    f"a `prompt` check asks the client's model whether the agent may stop: "
                    f"rule `{rid}` needs `target: event`, `event: stop` and `action: block`",
                    spec.span,
                    rid,
                )
        elif "action" not in bad and action not in CHECK_ACTIONS:
            self.emit(
                codes.CHECK_BLOCK,
                f"a check's result is said, not enforced: rule `{rid}` is `{action}`; use "
                "`inject` (the model) or `warn` (the person)",
                rule.span_of("action"),
                rid,
            )
        elif not bad & PLACEMENT_FIELDS and not set(own) <= CHECK_AFTER_POINTS:
            self.emit(
                codes.CHECK_BLOCK,
                f"rule `{rid}` runs a check at {', '.join(own)}; a check follows a finished "
                "call (`at: after`), a prompt or a stop",
                spec.span,
                rid,
            )
        _pre, _post, mixed = split(info.condition)
        if mixed is not None:
            self.emit(
                codes.CHECK_FIELD,
                "this part reads both the event and the check's result; join them with `and` "
                "so that the event part decides whether the check runs",
                mixed.span,
                rid,
            )
        if spec.prompt is not None and info.condition is not None and reads_check(info.condition):
            self.emit(
                codes.CHECK_FIELD,
                "a `prompt` check is answered by the client's model; its result is not readable",
                info.condition.span,
                rid,
            )
        if info.unless is not None and reads_check(info.unless):
            self.emit(
                codes.CHECK_FIELD,
                "`unless` cannot read the check's result; write it into `when`",
                info.unless.span,
                rid,
            )


def _default_timeout(kind: str) -> float:
    """A `run` check may take minutes (a test suite); a `prompt` is one model answer."""
    return float(DEFAULT_PROMPT_TIMEOUT_S if kind == "prompt" else DEFAULT_TIMEOUT_S)
