"""Qwen Code's hook facts as data: events, capabilities, tool names.

See docs/design/harnesses.md#qwen-code.

Qwen Code is a fork of Gemini CLI that took Claude Code's hooks: Claude Code's event names,
payload fields and answer fields, Gemini CLI's tool names (`run_shell_command`, `write_file`, …,
with `edit` for Gemini's `replace`). Each capability below is what the pinned client was seen to
do with an answer (tests/e2e/test_qwen_code.py), not what its documentation promises.
"""

from __future__ import annotations

from agentstyle.harnesses.facts import Can, HarnessSpec, Points

NAME = "qwen-code"
_point = Points(NAME)


SPEC = HarnessSpec(
    name=NAME,
    title="Qwen Code",
    points={
        # The context is placed in the system prompt, once (tests/e2e/test_qwen_code.py).
        "session.start": _point("SessionStart", Can.CONTEXT, matcher="source"),
        # A refused prompt sends nothing to the model; a headless run shows no reason.
        "prompt.submitted": _point("UserPromptSubmit", Can.CONTEXT, Can.DENY),
        # `ask` prompts the person in the terminal; headless (`qwen -p`) it refuses the call and
        # the question is the model's tool result. PreToolUse's `additionalContext` and
        # `systemMessage` reach no one in 0.24.4, and there is no `updatedInput`: no rewrite.
        "tool.pre": _point("PreToolUse", Can.DENY, Can.ASK, matcher="tool"),
        # The context is appended to the call's result.
        "tool.post": _point("PostToolUse", Can.CONTEXT, matcher="tool"),
        "tool.failed": _point("PostToolUseFailure", Can.CONTEXT, matcher="tool"),
        "subagent.start": _point("SubagentStart", Can.CONTEXT),
        "subagent.stop": _point("SubagentStop", Can.DENY),
        # A block continues the turn with the reason as the next user message; `systemMessage`
        # is shown here, and only here.
        "stop": _point("Stop", Can.DENY, Can.MESSAGE),
        # PreCompact's context becomes the summary's instructions, not the model's context.
        "compact": _point("PreCompact"),
        "session.end": _point("SessionEnd"),
        "notification": _point("Notification"),
    },
    tool_names={
        "shell": ("run_shell_command",),
        "file.read": ("read_file",),
        "file.write": ("write_file",),
        # hooks are given the current name: `replace` (Gemini CLI's) arrives as `edit`
        "file.edit": ("edit",),
        "file.search": ("grep_search", "glob", "list_directory"),
        "notebook.edit": ("notebook_edit",),
        "web.fetch": ("web_fetch",),
        "web.search": ("web_search",),
        "agent": ("agent",),
        "todo": ("todo_write",),
    },
    # `prompt_id` names the user's prompt on the events of its turn, not on every event
    native_turn_ids=False,
    instruction_file="QWEN.md",
    # Its matcher is an unanchored regex unless it is an exact name or a `|` list of them:
    # STYLE always writes an anchored regex.
    matcher_style="regex",
    gate_events=("PreToolUse", "UserPromptSubmit"),
    skill_names=("skill",),
    # `qwen -p` never shows the prompt: an ask is a refusal (tests/e2e/test_qwen_code.py)
    ask_may_refuse=True,
    content_search=frozenset({"grep_search"}),
    # `.env` sets the client's environment (it moves the system settings too)
    config_folder=".qwen",
    hook_config_files=("settings.json", ".env", "system-defaults.json"),
    managed_configs=("/etc/qwen-code",),
    hooks_off_commands=(
        ("a nested Qwen Code with hooks turned off", "qwen", r"( \S+)* --(bare|safe-mode)\b"),
    ),
    # The tool schemas the pinned client offers the model (its first request).
    input_keys={
        "shell": frozenset({"command", "description", "directory", "is_background", "timeout"}),
        "file.read": frozenset({"file_path", "offset", "limit", "pages"}),
        "file.write": frozenset({"file_path", "content", "record_as_artifact"}),
        "file.edit": frozenset({"file_path", "old_string", "new_string", "replace_all"}),
    },
)
