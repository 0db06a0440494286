"""The outcome of one event, harness-neutral: the adapter turns it into wire JSON and exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Output:
    rule_id: str
    action: str
    text: str  # rendered body (inject: context; warn: user message; block/ask: reason)
    model_text: str | None = None  # warn: what the model reads


@dataclass(slots=True)
class Fix:
    """A refused shell command and the command a rule's `fix` made of it, which the whole
    policy let through (docs/design/runtime.md#fixes)."""

    original: str
    command: str
    rules: list[str]  # the rules whose fix rewrote it, in policy order
    # What the harness runs instead, when it takes a rewritten call (`applied`): the whole
    # tool input with the new command. Otherwise the refusal names the command to run.
    tool_input: dict[str, Any] | None = None

    @property
    def applied(self) -> bool:
        return self.tool_input is not None


@dataclass(slots=True)
class Redaction:
    """What `redact` rules took out of a finished call's output (docs/actions.md#redact)."""

    rules: list[str]  # the redact rules that fired, in output order
    texts: list[str]  # their bodies: what the model is told was removed
    # The call's output in the shape the client sent it, every match replaced; None where it
    # could not be rebuilt (no output kept, or cut): the client then gets the notice alone.
    output: Any = None


@dataclass(slots=True)
class Decision:
    verdict: str | None = None  # block | ask | allow | None (no opinion)
    reasons: list[str] = field(default_factory=list)  # verdict texts, rule order
    contexts: list[str] = field(default_factory=list)  # model-visible texts, budget order
    messages: list[str] = field(default_factory=list)  # user-visible texts
    rules: list[str] = field(default_factory=list)  # rules that produced the answer
    fix: Fix | None = None  # a refused command rewritten by a rule's `fix`
    redaction: Redaction | None = None  # secrets taken out of the output by `redact` rules
    # check rules whose event part held: the hook starts their checks (docs/observers.md),
    # each a DueCheck (evaluator/records.py)
    checks: list[Any] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return (
            self.verdict is None
            and not self.contexts
            and not self.messages
            and self.redaction is None
        )


@dataclass(slots=True)
class Wire:
    stdout: str  # at most one compact JSON object, or ""
    exit_code: int = 0
    stderr: str = ""
