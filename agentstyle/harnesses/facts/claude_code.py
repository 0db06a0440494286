"""Claude Code's hook facts as data: events, capabilities, tool names.

See docs/design/harnesses.md#claude-code."""

from __future__ import annotations

from agentstyle.harnesses import timeout_for
from agentstyle.harnesses.facts import (
    ALLOW,
    ASK,
    CONTEXT,
    DENY,
    MESSAGE,
    REPLACE_OUTPUT,
    HarnessSpec,
    PointSpec,
)

NAME = "claude-code"

SPEC = HarnessSpec(
    model_at_first_start=False,
    # `updatedInput` with `permissionDecision: allow` runs the call with it (seen on the real
    # client: tests/e2e/test_fix.py; without a decision the client asks again)
    rewrite_events=frozenset({"PreToolUse"}),
    name=NAME,
    title="Claude Code",
    fail_closed_switch=True,
    points={
        "session.start": PointSpec("SessionStart", frozenset({CONTEXT, MESSAGE}), "source"),
        "prompt.submitted": PointSpec(
            "UserPromptSubmit",
            frozenset({CONTEXT, MESSAGE, DENY}),
            None,
            timeout_for(NAME, "UserPromptSubmit"),
        ),
        "tool.pre": PointSpec(
            "PreToolUse", frozenset({CONTEXT, MESSAGE, DENY, ASK, ALLOW}), "tool"
        ),
        # `updatedToolOutput` (`updatedMCPToolOutput` for MCP) in the tool's own output shape
        # replaces what the model reads; a plain string there is ignored (seen on 2.1.332)
        "tool.post": PointSpec(
            "PostToolUse", frozenset({CONTEXT, MESSAGE, REPLACE_OUTPUT}), "tool"
        ),
        "tool.failed": PointSpec("PostToolUseFailure", frozenset({CONTEXT, MESSAGE}), "tool"),
        "subagent.start": PointSpec("SubagentStart", frozenset({CONTEXT}), None),
        "subagent.stop": PointSpec("SubagentStop", frozenset({DENY, MESSAGE}), None),
        "stop": PointSpec("Stop", frozenset({DENY, MESSAGE}), None),
        "compact": PointSpec("PreCompact", frozenset({DENY}), None),
        "session.end": PointSpec("SessionEnd", frozenset(), None, timeout_for(NAME, "SessionEnd")),
        "notification": PointSpec("Notification", frozenset(), None),
    },
    tool_names={
        "shell": ("Bash", "PowerShell"),
        "file.read": ("Read",),
        "file.write": ("Write",),
        "file.edit": ("Edit", "MultiEdit"),
        "file.search": ("Grep", "Glob", "LS"),
        "notebook.edit": ("NotebookEdit",),
        "web.fetch": ("WebFetch",),
        "web.search": ("WebSearch",),
        # Task was renamed Agent in v2.1.63 without notice; match both
        # (docs/design/harnesses.md#claude-code-payloads).
        "agent": ("Task", "Agent"),
        "todo": ("TodoWrite",),
    },
    native_turn_ids=False,
    child_prompt_callbacks=False,
    instruction_file="CLAUDE.md",
    # PermissionRequest is a tool.pre-like gate that only fires when a prompt would show.
    extra_native_events={"PermissionRequest": "tool.pre"},
    bookkeeping=("SessionStart", "UserPromptSubmit"),
    gate_events=("PreToolUse", "PermissionRequest", "UserPromptSubmit"),
    skill_names=("Skill",),
    # `claude -p` never shows the prompt: an ask is a deny (tests/e2e/test_turns.py)
    ask_may_refuse=True,
    # docs/design/harnesses.md#claude-code-payloads; Grep/Glob/LS, NotebookEdit, TodoWrite shapes
    # are not fully documented.
    content_search=frozenset({"Grep"}),
    # `settings.local.json` can set `disableAllHooks`
    config_folder=".claude",
    hook_config_files=("settings.json", "settings.local.json"),
    managed_configs=("/etc/claude-code", "/Library/Application Support/ClaudeCode"),
    hooks_off_commands=(
        (
            "a nested Claude Code without the project's settings or hooks",
            "claude",
            r"( \S+)* (--setting-sources(=| )|--settings(=| ).*(disableAllHooks|hooks))",
        ),
    ),
    # `onFailure: block` (docs/design/harnesses.md#claude-code-failure)
    fail_closed_since=(2, 1, 295),
    input_keys={
        "shell": frozenset({"command", "description", "timeout", "run_in_background"}),
        "file.read": frozenset({"file_path", "offset", "limit"}),
        "file.write": frozenset({"file_path", "content"}),
        # Edit, and the legacy MultiEdit that some clients still send.
        "file.edit": frozenset({"file_path", "old_string", "new_string", "replace_all", "edits"}),
        "web.fetch": frozenset({"url", "prompt"}),
        "web.search": frozenset({"query", "allowed_domains", "blocked_domains"}),
        "agent": frozenset(
            {
                "prompt",
                "description",
                "subagent_type",
                "model",
                "run_in_background",
                "name",
                "isolation",
            }
        ),
    },
)
