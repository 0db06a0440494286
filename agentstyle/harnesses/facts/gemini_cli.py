"""Gemini CLI's hook facts as data: events, capabilities, tool names.

See docs/design/harnesses.md#gemini-cli."""

from __future__ import annotations

from agentstyle.harnesses import timeout_for
from agentstyle.harnesses.facts import CONTEXT, DENY, MESSAGE, HarnessSpec, PointSpec

NAME = "gemini-cli"


def _t(event: str) -> float:
    return timeout_for(NAME, event)


SPEC = HarnessSpec(
    model_at_first_start=False,
    name=NAME,
    title="Gemini CLI",
    points={
        "session.start": PointSpec(
            "SessionStart", frozenset({CONTEXT, MESSAGE}), "source", _t("SessionStart")
        ),
        "prompt.submitted": PointSpec(
            "BeforeAgent", frozenset({CONTEXT, MESSAGE, DENY}), None, _t("BeforeAgent")
        ),
        # BeforeTool has no add-context field: the model sees text only as a deny reason;
        # `ask` is not in the reference (UNCONFIRMED: one example of Gemini CLI's hooks overview
        # shows it), so it is delivered as deny; a raw `decision: ask` lets the call run in 0.61.0
        # (tests/e2e/test_facts.py).
        "tool.pre": PointSpec("BeforeTool", frozenset({DENY, MESSAGE}), "tool", _t("BeforeTool")),
        "tool.post": PointSpec("AfterTool", frozenset({CONTEXT, MESSAGE}), "tool", _t("AfterTool")),
        # A failed tool is an AfterTool whose `tool_response` carries `error`.
        "tool.failed": PointSpec("AfterTool", frozenset({CONTEXT}), "tool", _t("AfterTool")),
        "stop": PointSpec("AfterAgent", frozenset({DENY, MESSAGE}), None, _t("AfterAgent")),
        # PreCompress is async and cannot block; STYLE offers none there
        # (docs/design/harnesses.md#gemini-cli-events).
        "compact": PointSpec("PreCompress", frozenset(), None, _t("PreCompress")),
        "session.end": PointSpec("SessionEnd", frozenset(), None, _t("SessionEnd")),
        "notification": PointSpec("Notification", frozenset(), None, _t("Notification")),
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
    native_turn_ids=False,
    child_prompt_callbacks=False,
    instruction_file="GEMINI.md",
    bookkeeping=("SessionStart", "BeforeAgent"),
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
