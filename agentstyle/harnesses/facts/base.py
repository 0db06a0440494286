"""The shape of a harness's facts: its points, their capabilities, tool names and routes."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentstyle.harnesses import HANDLER_TIMEOUT_S, HARNESSES, HookFacts, timeout_for
from agentstyle.limits import BUDGET_S

# What a client does with a gated call when a hook fails (`HarnessSpec.hook_error`, …).
RUNS = "runs"
REFUSED = "refused"
_OUTCOME = {RUNS: "lets the call run", REFUSED: "refuses the call"}


class Can:
    """The capabilities a point can offer, read as what its answer can do: `Can.DENY`
    (docs/design/harnesses.md#capabilities)."""

    CONTEXT = "context"  # text the model reads
    MESSAGE = "message"  # text the user sees
    DENY = "deny"
    ASK = "ask"
    ALLOW = "allow"
    # The answer replaces what the model reads of a finished call's output, in the tool's own
    # shape (a `redact` rule: docs/actions.md#redact); without it a redaction is a notice.
    REPLACE_OUTPUT = "replace-output"


@dataclass(frozen=True, slots=True)
class PointSpec:
    """One normalized point as a harness offers it."""

    native_event: str
    capabilities: frozenset[str]
    matcher: str | None = None  # what the native matcher selects: tool | source | None
    timeout_s: float = float(HANDLER_TIMEOUT_S)  # the timeout in force (the one written)


@dataclass(frozen=True, slots=True)
class Points:
    """Makes one harness's `PointSpec`s, each with the timeout STYLE writes for its native event
    (`harnesses.timeout_for`), so a facts table names an event once."""

    harness: str

    def __call__(
        self, native_event: str, *capabilities: str, matcher: str | None = None
    ) -> PointSpec:
        timeout = timeout_for(self.harness, native_event)
        return PointSpec(native_event, frozenset(capabilities), matcher, timeout)


@dataclass(frozen=True, slots=True)
class Route:
    """A native event that gates part of a point's tools (Cursor: shell calls go through
    `beforeShellExecution`, not `preToolUse`). `keys` are normalized tools, plus `mcp`."""

    keys: frozenset[str]
    spec: PointSpec


def split_mcp_name(name: str, naming: tuple[str, str]) -> tuple[str, str] | None:
    """(server, tool) of an MCP tool's native name `<prefix><server><sep><tool>` (`naming`:
    prefix and separator), split at the first separator after the prefix; None: not one."""
    prefix, sep = naming
    if not name.startswith(prefix):
        return None
    server, found, tool = name[len(prefix) :].partition(sep)
    if not found or not server or not tool:
        return None
    return server, tool


@dataclass(frozen=True, slots=True)
class HarnessSpec:
    name: str
    title: str  # how the person reads its name ("Claude Code")
    points: dict[str, PointSpec]
    # normalized tool → native tool names (for narrowed matchers)
    tool_names: dict[str, tuple[str, ...]]
    native_turn_ids: bool = False
    child_prompt_callbacks: bool = False
    instruction_file: str | None = None
    extra_native_events: dict[str, str] = field(default_factory=dict)
    # point → routes tried before the point's own native event (first match wins)
    routes: dict[str, tuple[Route, ...]] = field(default_factory=dict)
    # native events where a refusal is possible (`fail: closed`, `--fail-closed`)
    gate_events: tuple[str, ...] = ()
    # the harness can be told to block when a hook fails (Claude Code's `onFailure: block`,
    # Cursor's `failClosed`); without it a crashed hook lets the call run
    fail_closed_switch: bool = False
    # What the client does with a gated call when STYLE's hook process itself fails, without
    # `fail_closed_switch` (docs/design/harnesses.md#fail-modes): one that crashes or exits
    # with an error, one the client stops at the written timeout. RUNS or REFUSED.
    hook_error: str = "runs"
    hook_timeout: str = "runs"
    # matcher syntax: `list` (a plain `A|B` list when the names allow it, else an anchored
    # regex: Claude Code) or `regex` (always an anchored regex: the matcher is a regex search)
    matcher_style: str = "list"
    # how MCP calls are named to a tool matcher: by `mcp_naming` (None) or fixed names
    mcp_names: tuple[str, ...] | None = None
    # How the client names an MCP tool: (prefix, separator) of `<prefix><server><sep><tool>`
    # (docs/design/harnesses.md#mcp-names): Claude Code's `mcp__<server>__<tool>` unless said.
    mcp_naming: tuple[str, str] = ("mcp__", "__")
    skill_names: tuple[str, ...] = ()
    # the client may turn an `ask` into a refusal without asking anyone (a headless run), so
    # `style allow` must be able to let an asked call through
    ask_may_refuse: bool = False
    # the `session.start` sources the harness ever sends (None: every normalized source)
    session_sources: frozenset[str] | None = None
    # Whether a session's first SessionStart names the model. Claude Code and Gemini CLI send
    # none in any payload: the adapters read it from the transcript, which has no answer yet
    # at a new session's start (tests/e2e/test_facts.py, test_turns.py's model rule).
    model_at_first_start: bool = True
    # native events where the harness runs a call with the input the answer gives instead (a
    # rule's fix, docs/design/runtime.md#fixes); elsewhere the refusal names the fixed command
    rewrite_events: frozenset[str] = frozenset()
    # normalized tool → every top-level `tool_input` key its native tools send, where the
    # contract documents (or captured payloads show) the whole shape; a tool left out has an
    # unknown shape. `field-never-present` warns on `tool.input.<key>` only against these.
    input_keys: dict[str, frozenset[str]] = field(default_factory=dict)
    # native tools that search the contents of the files under a folder (Grep): such a call
    # reads every file there, and `file.path` names them (harnesses/payload.py searched_files)
    content_search: frozenset[str] = frozenset()
    # What self-protection guards of the harness (install/protected.py): its config folder, in
    # the project and in the home folder (`.claude`); the files in it that can drop or disable
    # STYLE's hooks, the one STYLE writes and the siblings that override it; the system-wide
    # settings (folders or files) no user setting overrides.
    config_folder: str | None = None
    hook_config_files: tuple[str, ...] = ()
    managed_configs: tuple[str, ...] = ()
    # Files outside the config folder that can drop or disable STYLE's hooks too, named as
    # their tails wherever they stand (Copilot CLI: its user folder and repository settings).
    other_hook_files: tuple[str, ...] = ()
    # How an agent starts the harness's client again with STYLE's hooks off (self-protection
    # refuses it): (what it is, the program, a regex over the arguments after it).
    hooks_off_commands: tuple[tuple[str, str, str], ...] = ()
    # `--fail-closed` needs this client version or newer (`fail_closed_switch` came after the
    # hooks): install checks `version_command` (the adapter's `fail_closed_check` says what it
    # makes of the answer); None: every version honours the switch.
    fail_closed_since: tuple[int, ...] | None = None
    # A check's result (docs/observers.md#delivery): the client runs a command hook in the
    # background and wakes the model with what it says when it exits 2 (Claude Code's `async`
    # with `asyncRewake`); without it STYLE runs the check itself and the result is given at the
    # session's next event that takes context.
    background_hooks: bool = False
    # The client's own model answers a `type: "prompt"` hook at these native events: a `prompt`
    # check compiles to one (docs/observers.md#asking-a-model).
    prompt_hook_events: frozenset[str] = frozenset()
    # Points install hooks wherever it installs any, though no rule runs there: `style audit`
    # reads their events (Claude Code's `tool.denied`, the calls the client refused itself:
    # docs/audit.md#the-clients-own-refusals). Observe only: the answer is empty.
    audited: tuple[str, ...] = ()

    def hook_failure(self, fail_closed: bool = False) -> str:
        """What happens to a gated call when STYLE's hook process dies or hangs, and what STYLE
        does about it: one line for `style plan` and `style doctor`
        (docs/design/harnesses.md#fail-modes)."""
        refused = fail_closed and self.fail_closed_switch
        error = REFUSED if refused else self.hook_error
        timeout = REFUSED if refused else self.hook_timeout
        if error == timeout:
            what = f"{_OUTCOME[error]} when the hook process crashes or times out"
        else:
            what = (
                f"{_OUTCOME[error]} when the hook process crashes or exits with an error, and "
                f"{_OUTCOME[timeout]} when it times out"
            )
        if RUNS not in (error, timeout):
            switch = ""
        elif self.fail_closed_switch:
            switch = " (`style install --fail-closed`: it refuses)"
        else:
            switch = " (no setting changes that)"
        return (
            f"hook failures: {self.title} {what}{switch}; STYLE answers within {BUDGET_S:g} s "
            "by itself: a notice where it could not check, a refusal for `fail: closed` rules"
        )

    @property
    def bookkeeping(self) -> tuple[str, ...]:
        """The native events install always hooks, the session clock
        (docs/design/runtime.md#session-bookkeeping): a session's start and a prompt's."""
        points = ("session.start", "prompt.submitted")
        return tuple(self.points[p].native_event for p in points if p in self.points)

    @property
    def audit_events(self) -> tuple[str, ...]:
        """The native events install hooks for the audit alone (`audited`)."""
        return tuple(self.points[p].native_event for p in self.audited if p in self.points)

    @property
    def hook(self) -> HookFacts:
        """What the hook reads of this harness before it loads anything (`harnesses.HARNESSES`)."""
        return HARNESSES[self.name]

    def point_of(self, native_event: str) -> str | None:
        for point, spec in self.points.items():
            if spec.native_event == native_event:
                return point
        for point, routes in self.routes.items():
            if any(r.spec.native_event == native_event for r in routes):
                return point
        return self.extra_native_events.get(native_event)

    def spec_of(self, native_event: str) -> PointSpec | None:
        """The capabilities and timeout of a native event (a point's, a route's)."""
        for spec in self.points.values():
            if spec.native_event == native_event:
                return spec
        for routes in self.routes.values():
            for r in routes:
                if r.spec.native_event == native_event:
                    return r.spec
        point = self.extra_native_events.get(native_event)
        return self.points.get(point) if point else None

    def route_of(self, point: str, key: str) -> PointSpec | None:
        """The point spec a tool (`key`: normalized tool or `mcp`) is gated by at `point`."""
        for r in self.routes.get(point, ()):
            if key in r.keys:
                return r.spec
        return self.points.get(point)

    def native_events(self) -> list[str]:
        """Every native event STYLE may install, in the harness's point order."""
        out: list[str] = []
        for point, spec in self.points.items():
            for r in self.routes.get(point, ()):
                if r.spec.native_event not in out:
                    out.append(r.spec.native_event)
            if spec.native_event not in out:
                out.append(spec.native_event)
        return out
