"""Claude Code's hook facts as data: events, capabilities, tool names.

See docs/design/harnesses.md#claude-code."""

from __future__ import annotations

from agentstyle.harnesses.facts import Can, HarnessSpec, Points

NAME = "claude-code"
_point = Points(NAME)

SPEC = HarnessSpec(
    model_at_first_start=False,
    # `updatedInput` with `permissionDecision: allow` runs the call with it (seen on the real
    # client: tests/e2e/test_fix.py; without a decision the client asks again)
    rewrite_events=frozenset({"PreToolUse"}),
    name=NAME,
    title="Claude Code",
    fail_closed_switch=True,
    # `async: true` with `asyncRewake: true`: a background hook that exits 2 wakes the model with
    # its stderr, idle or not (docs/design/harnesses.md#claude-code-events:
    # tests/e2e/test_observers.py)
    background_hooks=True,
    prompt_hook_events=frozenset({"Stop", "SubagentStop"}),
    points={
        "session.start": _point("SessionStart", Can.CONTEXT, Can.MESSAGE, matcher="source"),
        "prompt.submitted": _point("UserPromptSubmit", Can.CONTEXT, Can.MESSAGE, Can.DENY),
        "tool.pre": _point(
            "PreToolUse", Can.CONTEXT, Can.MESSAGE, Can.DENY, Can.ASK, Can.ALLOW, matcher="tool"
        ),
        # `updatedToolOutput` (`updatedMCPToolOutput` for MCP) in the tool's own output shape
        # replaces what the model reads; a plain string there is ignored (seen on 2.1.332)
        "tool.post": _point(
            "PostToolUse", Can.CONTEXT, Can.MESSAGE, Can.REPLACE_OUTPUT, matcher="tool"
        ),
        "tool.failed": _point("PostToolUseFailure", Can.CONTEXT, Can.MESSAGE, matcher="tool"),
        "subagent.start": _point("SubagentStart", Can.CONTEXT),
        "subagent.stop": _point("SubagentStop", Can.DENY, Can.MESSAGE),
        "stop": _point("Stop", Can.DENY, Can.MESSAGE),
        "compact": _point("PreCompact", Can.DENY),
        "session.end": _point("SessionEnd"),
        "notification": _point("Notification"),
        # a settings file changed during the session; `decision: block` keeps the change out
        # of it (docs/design/harnesses.md#claude-code-events: tests/e2e/test_config_change.py)
        "config.changed": _point("ConfigChange", Can.DENY),
        # a call the client refused by itself (auto mode's classifier; seen on 2.1.332:
        # tests/e2e/test_client_events.py): `tool_name`, `tool_input`, `tool_use_id`, `reason`.
        # Observe only (an answer may ask for a retry; STYLE's is empty); installed for the
        # audit, which shows it beside STYLE's refusals (`audited` below)
        "tool.denied": _point("PermissionDenied"),
    },
    audited=("tool.denied",),
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
    instruction_file="CLAUDE.md",
    # PermissionRequest is a tool.pre-like gate that only fires when a prompt would show.
    extra_native_events={"PermissionRequest": "tool.pre"},
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
