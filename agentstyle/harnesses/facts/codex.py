"""OpenAI Codex CLI's hook facts as data: events, capabilities, tool names.

See docs/design/harnesses.md#codex."""

from __future__ import annotations

from agentstyle.harnesses.facts import Can, HarnessSpec, Points

NAME = "codex"
_point = Points(NAME)

# PreToolUse `additionalContext`: rejected by v0.124 (openai/codex#19385), accepted by newer
# builds; the release that changed it is UNCONFIRMED (docs/design/harnesses.md#codex-answers).
# Accepted by the pinned 0.171.0 (the context reaches the model, the call runs):
# tests/e2e/test_facts.py.
PRE_TOOL_USE_CONTEXT = True

_PRE_TOOL_CAPS = frozenset(
    {Can.DENY, Can.MESSAGE} | ({Can.CONTEXT} if PRE_TOOL_USE_CONTEXT else set())
)


SPEC = HarnessSpec(
    name=NAME,
    title="Codex",
    points={
        "session.start": _point("SessionStart", Can.CONTEXT, Can.MESSAGE, matcher="source"),
        "prompt.submitted": _point("UserPromptSubmit", Can.CONTEXT, Can.MESSAGE, Can.DENY),
        # No `ask` anywhere in Codex hooks: `permissionDecision: "ask"` fails the hook and the
        # call runs (docs/design/harnesses.md#codex-answers), so an ask is delivered as a refusal.
        "tool.pre": _point("PreToolUse", *_PRE_TOOL_CAPS, matcher="tool"),
        # PostToolUse also fires after a failed Bash command: there is no failure event. Its
        # `decision: block` replaces the call's result with the `reason` (a redaction's output:
        # tests/e2e/test_redact.py).
        "tool.post": _point(
            "PostToolUse", Can.CONTEXT, Can.MESSAGE, Can.REPLACE_OUTPUT, matcher="tool"
        ),
        "subagent.start": _point("SubagentStart", Can.CONTEXT),
        "subagent.stop": _point("SubagentStop", Can.DENY, Can.MESSAGE),
        "stop": _point("Stop", Can.DENY, Can.MESSAGE),
        "compact": _point("PreCompact", Can.MESSAGE),
        "session.end": _point("SessionEnd"),
    },
    tool_names={
        "shell": ("Bash",),
        # apply_patch creates, updates and deletes files; the adapter reads which from the patch.
        "file.write": ("apply_patch",),
        "file.edit": ("apply_patch",),
        "agent": ("spawn_agent",),
        "todo": ("update_plan",),
    },
    native_turn_ids=True,
    instruction_file="AGENTS.md",
    # PermissionRequest gates like PreToolUse, only when Codex would ask the user anyway.
    extra_native_events={"PermissionRequest": "tool.pre"},
    matcher_style="regex",
    gate_events=("PreToolUse", "PermissionRequest", "UserPromptSubmit"),
    # docs/design/harnesses.md#codex-payloads: Bash has only `command` in the schema
    # (PermissionRequest adds a `description`); apply_patch sends the whole patch as `command`.
    # `config.toml` can turn hooks off (`[features] hooks = false`)
    config_folder=".codex",
    hook_config_files=("hooks.json", "config.toml", "requirements.toml", "managed_config.toml"),
    managed_configs=("/etc/codex",),
    hooks_off_commands=(
        (
            "a nested Codex with hooks turned off",
            "codex",
            r"( \S+)* ((-c|--config)(=| )\S*hooks|--disable(=| )\S*hooks)",
        ),
    ),
    input_keys={
        "shell": frozenset({"command", "description"}),
        "file.write": frozenset({"command"}),
        "file.edit": frozenset({"command"}),
    },
)
