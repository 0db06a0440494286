"""A rule's `check`: its block read and checked, and its condition split at the check.

A check rule's condition is two conditions joined by `and`: the one on the event decides
whether the check runs, the one on `check.*` (the result) whether the rule then speaks
(docs/observers.md#checks). Lowering makes both one condition of the rule, told apart by the
`check.rule` row only a check's result carries (`placed_condition`), so the evaluator needs
nothing new to decide either."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from agentstyle.grammar.ast import And, CommandItem, CommandPred, Node, Or, Pred
from agentstyle.policy.conditiontree import leaves
from agentstyle.policy.settingrefs import EMBEDDED
from agentstyle.source import Span
from agentstyle.vocabulary import CHECK_FIELDS

CHECK_KEYS = ("run", "prompt", "timeout", "cooldown")
DEFAULT_TIMEOUT_S = 300
DEFAULT_PROMPT_TIMEOUT_S = 30
MAX_TIMEOUT_S = 3600
MAX_COOLDOWN_S = 86_400
# The field only a check's result carries: the qualified id of the rule it was run for.
RULE_FIELD = "check.rule"
# The field a result carries when its check crashed (could not start, ended by a signal): why.
CRASHED_FIELD = "check.crashed"

_DURATION = re.compile(r"^(\d+)\s*(ms|s|m|h)?$")
_UNIT_S = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """A valid `check` block: a command run in the project, or a prompt the client's model
    answers, with its timeout and its cooldown in seconds."""

    run: str | None
    prompt: str | None
    timeout_s: float
    cooldown_s: float
    span: Span


def duration_s(value: object) -> float | None:
    """Seconds of `300s`, `2m`, `1h`, `500ms` or a whole number of seconds; None: not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return float(value) if value >= 0 else None
    if not isinstance(value, str):
        return None
    m = _DURATION.match(value.strip())
    if m is None:
        return None
    return int(m.group(1)) * _UNIT_S[m.group(2)]


def filled_command(run: str, settings: Mapping[str, str]) -> str:
    """The command a `run` check runs as installed: each `{{settings.NAME}}` replaced by the
    setting's text as written (shell text the person chose: docs/observers.md#checks). A
    setting with no value stays as written (a plan before install; install itself refuses
    it, `setting-missing`)."""

    def value(m: re.Match[str]) -> str:
        name = m.group(1)
        if not name.startswith("settings.") or m.group(2) is not None:
            return m.group(0)  # validation refused it
        return settings.get(name[len("settings.") :], m.group(0))

    return EMBEDDED.sub(value, run)


def reads_check(node: Node) -> bool:
    """Whether a condition reads a check's result anywhere in it."""
    return any(p.field in CHECK_FIELDS or p.field == RULE_FIELD for p in leaves(node, Pred))


def _only_check(node: Node) -> bool:
    """Every leaf of `node` reads the check's result (no event field, no command)."""
    if leaves(node, (CommandPred, CommandItem)):
        return False
    return all(p.field in CHECK_FIELDS for p in leaves(node, Pred))


def split(node: Node | None) -> tuple[Node | None, Node | None, Node | None]:
    """(on the event, on the result, the first part that mixes both) of a check rule's
    condition: its `and`-ed parts are one or the other; a part that reads both (an `or` of an
    event field and a result) cannot be decided before the check has run."""
    if node is None or not reads_check(node):
        return node, None, None
    parts = list(node.items) if isinstance(node, And) else [node]
    pre = [p for p in parts if not reads_check(p)]
    post = [p for p in parts if reads_check(p)]
    mixed = next((p for p in post if not _only_check(p)), None)
    return _joined(pre, node.span), _joined(post, node.span), mixed


def _joined(parts: list[Node], span: Span) -> Node | None:
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else And(tuple(parts), span)


def placed_condition(node: Node | None, rule_id: str, span: Span) -> Node:
    """The condition lowered for a check rule `rule_id` (qualified): at its own point, where no
    event carries `check.rule`, the part on the event decides that the check runs; at
    `check.done`, the result of this rule's check is decided by the whole condition, unless the
    check crashed. Every result carries `check.rule`, so no result (of this rule's check or of
    another's) starts a check or speaks for a rule it was not run for."""
    pre, post, _mixed = split(node)
    mine = Pred(RULE_FIELD, "equals", rule_id, span)
    no_result = Pred(RULE_FIELD, "missing", None, span)
    not_crashed = Pred(CRASHED_FIELD, "missing", None, span)
    start: list[Node] = [p for p in (pre,) if p is not None]
    done: list[Node] = [p for p in (pre, post) if p is not None]
    return Or((And((*start, no_result), span), And((*done, mine, not_crashed), span)), span)
