"""Gemini CLI's hook facts as data: events, capabilities, tool names.

See docs/design/harnesses.md#gemini-cli."""

from __future__ import annotations

from agentstyle.harnesses.facts import Can, HarnessSpec, Points

NAME = "gemini-cli"
_point = Points(NAME)


SPEC = HarnessSpec(
    model_at_first_start=False,
    name=NAME,
    title="Gemini CLI",
    points={
        "session.start": _point("SessionStart", Can.CONTEXT, Can.MESSAGE, matcher="source"),
        "prompt.submitted": _point("BeforeAgent", Can.CONTEXT, Can.MESSAGE, Can.DENY),
        # BeforeTool has no add-context field: the model sees text only as a deny reason;
        # `ask` is not in the reference (UNCONFIRMED: one example of Gemini CLI's hooks overview
        # shows it), so it is delivered as deny; a raw `decision: ask` lets the call run in 0.61.0
        # (tests/e2e/test_facts.py).
        "tool.pre": _point("BeforeTool", Can.DENY, Can.MESSAGE, matcher="tool"),
        # AfterTool's `decision: deny` replaces the call's result with its `reason` (read in
        # 0.61.0's code: the model reads "Tool result blocked: <reason>", the call counts as
        # failed): a redaction's output goes there (tests/e2e/test_redact.py)
        "tool.post": _point(
            "AfterTool", Can.CONTEXT, Can.MESSAGE, Can.REPLACE_OUTPUT, matcher="tool"
        ),
        # A failed tool is an AfterTool whose `tool_response` carries `error`.
        "tool.failed": _point("AfterTool", Can.CONTEXT, matcher="tool"),
        "stop": _point("AfterAgent", Can.DENY, Can.MESSAGE),
        # PreCompress is async and cannot block; STYLE offers none there
        # (docs/design/harnesses.md#gemini-cli-events).
        "compact": _point("PreCompress"),
        "session.end": _point("SessionEnd"),
        "notification": _point("Notification"),
    },
    tool_names={
        "shell": ("run_shell_command",),
        "file.read": ("read_file", "read_many_files"),
        "file.write": ("write_file",),
        "file.edit": ("replace",),
        "file.search": ("list_directory", "glob", "search_file_content"),
        "web.fetch": ("web_fetch",),
        "web.search": ("google_web_search",),
        "agent": ("delegate_to_agent",),
        "todo": ("write_todos",),
    },
    instruction_file="GEMINI.md",
    matcher_style="regex",
    # `mcp_<server>_<tool>`; the payload's `mcp_context` names the two apart
    # (docs/design/harnesses.md#gemini-cli-payloads, tests/e2e/test_mcp.py)
    mcp_naming=("mcp_", "_"),
    gate_events=("BeforeTool", "BeforeAgent"),
    # SessionStart never says `compact` (PreCompress is all a compression gets): a rule for
    # that source alone can never fire (tests/e2e/test_context.py)
    session_sources=frozenset({"startup", "resume", "clear"}),
    # The documentation confirms write_file only (docs/design/harnesses.md#gemini-cli-payloads);
    # run_shell_command's parameters are Gemini CLI's tool schema (`directory` in older releases,
    # `dir_path`/`is_background` in newer).
    content_search=frozenset({"search_file_content"}),
    # `.env` sets the hooks' environment
    config_folder=".gemini",
    hook_config_files=("settings.json", ".env", "system-defaults.json"),
    managed_configs=("/etc/gemini-cli",),
    input_keys={
        "shell": frozenset({"command", "description", "directory", "dir_path", "is_background"}),
        "file.write": frozenset({"file_path", "content"}),
    },
)
