"""The outcome of one event, harness-neutral: the adapter turns it into wire JSON and exit code."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Output:
    rule_id: str
    action: str
    text: str  # rendered body (inject: context; warn: user message; block/ask: reason)
    model_text: str | None = None  # warn: what the model reads


@dataclass(slots=True)
class Decision:
    verdict: str | None = None  # block | ask | allow | None (no opinion)
    reasons: list[str] = field(default_factory=list)  # verdict texts, rule order
    contexts: list[str] = field(default_factory=list)  # model-visible texts, budget order
    messages: list[str] = field(default_factory=list)  # user-visible texts
    rules: list[str] = field(default_factory=list)  # rules that produced the answer

    @property
    def empty(self) -> bool:
        return self.verdict is None and not self.contexts and not self.messages


@dataclass(slots=True)
class Wire:
    stdout: str  # at most one compact JSON object, or ""
    exit_code: int = 0
    stderr: str = ""
