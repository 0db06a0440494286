"""Cursor's hook facts as data: events, capabilities, tool names, routes.

See docs/design/harnesses.md#cursor."""

from __future__ import annotations

from agentstyle.harnesses.facts import Can, HarnessSpec, Points, Route

NAME = "cursor"
_point = Points(NAME)


# One gate per tool class (docs/design/harnesses.md#cursor-gates): shell calls are gated by
# beforeShellExecution, MCP calls by beforeMCPExecution (both can `ask`), file reads by
# beforeReadFile, every other tool by preToolUse (deny only: its `ask` is accepted but not
# enforced).
SHELL_GATE = _point("beforeShellExecution", Can.DENY, Can.ASK)
MCP_GATE = _point("beforeMCPExecution", Can.DENY, Can.ASK)
READ_GATE = _point("beforeReadFile", Can.DENY)

SPEC = HarnessSpec(
    name=NAME,
    title="Cursor",
    fail_closed_switch=True,
    points={
        # sessionStart's `additional_context` becomes initial system context; no source field.
        "session.start": _point("sessionStart", Can.CONTEXT),
        # beforeSubmitPrompt has no context field (docs/design/harnesses.md#cursor-events): deny
        # only.
        "prompt.submitted": _point("beforeSubmitPrompt", Can.DENY),
        "tool.pre": _point("preToolUse", Can.DENY, matcher="tool"),
        "tool.post": _point("postToolUse", Can.CONTEXT, matcher="tool"),
        "tool.failed": _point("postToolUseFailure", matcher="tool"),
        "subagent.start": _point("subagentStart", Can.DENY),
        # stop / subagentStop continue the agent through `followup_message`.
        "subagent.stop": _point("subagentStop", Can.DENY),
        "stop": _point("stop", Can.DENY),
        # preCompact exists (`user_message`), but STYLE offers none there
        # (docs/design/harnesses.md#cursor-events).
        "compact": _point("preCompact"),
        "session.end": _point("sessionEnd"),
    },
    tool_names={
        "shell": ("Shell",),
        "file.read": ("Read",),
        "file.write": ("Write",),
        # preToolUse tool types beyond Shell/Read/Write/MCP/Task are UNCONFIRMED
        # (docs/design/harnesses.md#cursor-payloads); StrReplace/Edit/Delete are the names third
        # parties report.
        "file.edit": ("Edit", "StrReplace", "Delete"),
        "file.search": ("Grep", "Glob", "LS"),
        "agent": ("Task",),
    },
    native_turn_ids=True,  # generation_id changes with each user message
    instruction_file=".cursor/rules/style.mdc",
    routes={
        "tool.pre": (
            Route(frozenset({"shell"}), SHELL_GATE),
            Route(frozenset({"mcp"}), MCP_GATE),
            Route(frozenset({"file.read"}), READ_GATE),
        ),
    },
    # Observe-only events STYLE can read (e.g. when Cursor runs hooks from a Claude config)
    # but never installs: postToolUse already sees every tool result.
    extra_native_events={
        "afterShellExecution": "tool.post",
        "afterMCPExecution": "tool.post",
        "afterFileEdit": "tool.post",
    },
    # preToolUse/postToolUse match on a tool type; MCP calls are type `MCP`
    # (docs/design/harnesses.md#cursor-matchers)
    mcp_names=("MCP",),
    # docs/design/harnesses.md#cursor-payloads: preToolUse Shell sends {command, working_directory},
    # and the adapter gives beforeShellExecution calls {command}; other preToolUse shapes are
    # UNCONFIRMED.
    content_search=frozenset({"Grep"}),
    input_keys={"shell": frozenset({"command", "working_directory"})},
    config_folder=".cursor",
    hook_config_files=("hooks.json",),
    managed_configs=("/etc/cursor/hooks.json", "/Library/Application Support/Cursor/hooks.json"),
    gate_events=(
        "preToolUse",
        "beforeShellExecution",
        "beforeMCPExecution",
        "beforeReadFile",
        "beforeSubmitPrompt",
        "subagentStart",
    ),
)
