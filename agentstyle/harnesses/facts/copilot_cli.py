"""GitHub Copilot CLI's hook facts as data: events, capabilities, tool names.

See docs/design/harnesses.md#copilot-cli.

STYLE registers its handlers under Copilot CLI's PascalCase event names (`PreToolUse`, …, its
"VS Code compatible" form): the payloads are then Claude-shaped (`session_id`, `tool_name`,
`tool_input`), the tools carry their Claude names (`bash` arrives as `Bash`) and the matchers
follow Claude Code's rules (a `|` list of names, else an anchored regex).
"""

from __future__ import annotations

from agentstyle.harnesses.facts import Can, HarnessSpec, Points
from agentstyle.harnesses.facts.base import REFUSED, RUNS

NAME = "copilot-cli"
_point = Points(NAME)

# Copilot CLI's own tool names → the Claude name its PascalCase hooks are given (Copilot CLI's
# hooks reference, "Claude-format matchers"); a tool not here keeps its own name. Its
# transcripts name the tools by their own names (harnesses/transcripts/copilot_cli.py).
CLAUDE_NAMES = {
    "bash": "Bash",
    "powershell": "Bash",
    "view": "Read",
    "create": "Write",
    "edit": "Edit",
    "str_replace_editor": "Edit",
    "apply_patch": "Edit",
    "grep": "Grep",
    "rg": "Grep",
    "glob": "Glob",
    "web_fetch": "WebFetch",
    "web_search": "WebSearch",
    "ask_user": "AskUserQuestion",
    "update_todo": "TodoWrite",
    "task": "Agent",
}


SPEC = HarnessSpec(
    name=NAME,
    title="Copilot CLI",
    points={
        # No matcher on the session source: Copilot CLI matches only tool events, the
        # compaction trigger, subagent and notification names.
        "session.start": _point("SessionStart", Can.CONTEXT, Can.MESSAGE),
        "prompt.submitted": _point("UserPromptSubmit", Can.CONTEXT, Can.MESSAGE, Can.DENY),
        # No message for the person before a call: exit 2 there refuses it.
        "tool.pre": _point("PreToolUse", Can.CONTEXT, Can.DENY, Can.ASK, Can.ALLOW, matcher="tool"),
        # `decision: block` replaces the call's result: the model reads "Tool result blocked: "
        # and the reason (a redaction's output: tests/e2e/test_redact.py)
        "tool.post": _point(
            "PostToolUse", Can.CONTEXT, Can.MESSAGE, Can.REPLACE_OUTPUT, matcher="tool"
        ),
        # exit 2 here sends stderr to the model, not the person: context only
        "tool.failed": _point("PostToolUseFailure", Can.CONTEXT),
        "subagent.start": _point("SubagentStart", Can.CONTEXT),
        "subagent.stop": _point("SubagentStop", Can.DENY),
        "stop": _point("Stop", Can.DENY, Can.MESSAGE),
        "compact": _point("PreCompact"),
        "session.end": _point("SessionEnd"),
        "notification": _point("Notification"),
    },
    # `<server>-<tool>`, nothing else in the payload (docs/design/harnesses.md#copilot-cli-payloads,
    # tests/e2e/test_mcp.py): split at the first `-`, so a server with `-` in its name is misread
    mcp_naming=("", "-"),
    tool_names={
        "shell": ("Bash",),
        "file.read": ("Read",),
        "file.write": ("Write",),
        "file.edit": ("Edit",),
        "file.search": ("Grep", "Glob"),
        "web.fetch": ("WebFetch",),
        "web.search": ("WebSearch",),
        "agent": ("Agent",),
        "todo": ("TodoWrite",),
    },
    instruction_file=".github/copilot-instructions.md",
    gate_events=("PreToolUse", "UserPromptSubmit"),
    # `modifiedArgs` with `permissionDecision: allow` runs the call with them
    rewrite_events=frozenset({"PreToolUse"}),
    # `copilot -p` never asks: an ask is refused and its reason is the call's result
    ask_may_refuse=True,
    # a new session says `new` (or `startup`), a resumed one `resume`; none after a compaction
    session_sources=frozenset({"startup", "resume"}),
    # No payload names the model; the session log does, but it may not be on disk yet when
    # the first SessionStart runs (tests/e2e/test_copilot_cli.py)
    model_at_first_start=False,
    content_search=frozenset({"Grep"}),
    # No fail-closed switch; a PreToolUse hook that crashes or exits with an error refuses
    # the call, one that times out lets it run (docs/design/harnesses.md#copilot-cli-failure).
    hook_error=REFUSED,
    hook_timeout=RUNS,
    # The repository's hook files; the user's (`~/.copilot/hooks/`) and the settings whose
    # `disableAllHooks` switches every hook off are `other_hook_files`.
    config_folder=".github/hooks",
    hook_config_files=("style.json",),
    other_hook_files=(
        ".copilot/hooks/style.json",
        ".copilot/settings.json",
        ".copilot/config.json",
        ".github/copilot/settings.json",
        ".github/copilot/settings.local.json",
    ),
    managed_configs=("/etc/github-copilot",),
    input_keys={
        "shell": frozenset({"command", "description", "shellId", "mode", "initial_wait", "detach"}),
        "file.read": frozenset({"path", "view_range", "forceReadLargeFiles"}),
        "file.write": frozenset({"path", "file_text"}),
        "file.edit": frozenset({"path", "old_str", "new_str"}),
    },
)
