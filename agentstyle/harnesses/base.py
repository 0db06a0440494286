"""What every harness adapter declares: its points, capabilities, tool names and defaults."""

from __future__ import annotations

from dataclasses import dataclass, field

# Capabilities a point can offer (harnesses.md "Capabilities").
CONTEXT = "context"  # text the model reads
MESSAGE = "message"  # text the user sees
DENY = "deny"
ASK = "ask"
ALLOW = "allow"


@dataclass(frozen=True, slots=True)
class PointSpec:
    """One normalized point as a harness offers it."""

    native_event: str
    capabilities: frozenset[str]
    matcher: str | None = None  # what the native matcher selects: tool | source | None
    timeout_s: float = 600.0  # the harness's documented default timeout for this event


@dataclass(frozen=True, slots=True)
class HarnessSpec:
    name: str
    points: dict[str, PointSpec]
    # normalized tool → native tool names (for narrowed matchers)
    tool_names: dict[str, tuple[str, ...]]
    native_turn_ids: bool = False
    child_prompt_callbacks: bool = False
    instruction_file: str | None = None
    extra_native_events: dict[str, str] = field(default_factory=dict)

    def point_of(self, native_event: str) -> str | None:
        for point, spec in self.points.items():
            if spec.native_event == native_event:
                return point
        return self.extra_native_events.get(native_event)
