"""What an evaluation of one event is: its candidates and its decision.

The candidates are the trace `explain` shows; `decide` makes both and `record` writes them."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentstyle.evaluator.decision import Decision
from agentstyle.evaluator.event import Event
from agentstyle.evaluator.render import Rendered

EMITTING = ("emitted", "budget-truncated")


@dataclass(slots=True)
class Candidate:
    """One candidate entry of one event and what happened to it (the trace of `explain`)."""

    rule_id: str
    action: str
    repeat: str | None
    status: str
    matched: bool
    outcome: str | None = None  # None: conditions did not hold
    rendered: Rendered | None = None
    error: str | None = None
    tokens: int = 0
    claim_key: str | None = None
    order: int = 0  # the rule's place in the policy
    fails_closed: bool = False  # the entry's `fail: closed` (outcomes_blocked.sql)
    # its condition as written held, and an exception took the event out (outcome `excepted`)
    excepted: bool = False


@dataclass(slots=True)
class Evaluation:
    event: Event
    event_id: int
    decision: Decision
    candidates: list[Candidate] = field(default_factory=list)
    generation: int = 0
    compaction: int = 0
    prompt_count: int = 0
    model: str | None = None
    new_session: bool = False  # its session had no stored row before this batch
    facts: bool = False  # its harness's policy reads the session facts: `record` keeps them
