"""OpenCode's hook facts as data: events, capabilities, tool names.

See docs/design/harnesses.md#opencode.

OpenCode has no command hooks: STYLE installs a small plugin (`harnesses/opencode_plugin.js`) that
hands OpenCode's plugin hooks to `style-hook`, so the native events are the plugin hooks' names
and the capabilities are what that plugin does with an answer in the pinned client.
"""

from __future__ import annotations

from agentstyle.harnesses.facts import Can, HarnessSpec, Points

NAME = "opencode"
_point = Points(NAME)


SPEC = HarnessSpec(
    name=NAME,
    title="OpenCode",
    # Every point can show the person a message: the plugin makes `systemMessage` a toast in
    # OpenCode's TUI (`opencode run` shows none) and a line of OpenCode's log.
    points={
        # the `session.created` bus event; its context waits for the session's first message
        # (a session resumed with `opencode run --continue` starts there, as `resume`)
        "session.start": _point("session.created", Can.CONTEXT, Can.MESSAGE),
        # `chat.message`: a text part added to the message reaches the model; a throw ends the
        # turn before any model request
        "prompt.submitted": _point("chat.message", Can.CONTEXT, Can.MESSAGE, Can.DENY),
        # `tool.execute.before`: a throw refuses the call (its message is the model's tool
        # error), the arguments changed in place run instead; no ask, no context
        "tool.pre": _point("tool.execute.before", Can.DENY, Can.MESSAGE, matcher="tool"),
        # `tool.execute.after`: text appended to the tool's output reaches the model; it fires
        # only for a call that returned, so a failed shell command (its exit code in the
        # output's metadata) is the one failure it shows; the plugin sets a `result` answer's
        # title, output and metadata on the result the model reads (a redaction)
        "tool.post": _point(
            "tool.execute.after", Can.CONTEXT, Can.MESSAGE, Can.REPLACE_OUTPUT, matcher="tool"
        ),
        "tool.failed": _point("tool.execute.after", Can.CONTEXT, Can.MESSAGE, matcher="tool"),
        # the `session.idle` bus event: the turn is over, nothing can continue it
        "stop": _point("session.idle", Can.MESSAGE),
    },
    tool_names={
        "shell": ("bash",),
        "file.read": ("read",),
        "file.write": ("write",),
        # `apply_patch` replaces edit and write for some models (the patch names the files)
        "file.edit": ("edit", "apply_patch"),
        "file.search": ("glob", "grep"),
        "web.fetch": ("webfetch",),
        "web.search": ("websearch",),
        "agent": ("task",),
        "todo": ("todowrite",),
    },
    # the arguments the plugin changes in place are the ones the tool runs with
    # (tests/e2e/test_opencode.py)
    rewrite_events=frozenset({"tool.execute.before"}),
    # the user message's id, which the plugin passes on with every event of its turn
    native_turn_ids=True,
    instruction_file="AGENTS.md",
    gate_events=("tool.execute.before", "chat.message"),
    # STYLE's plugin refuses a gate call itself when the hook process fails under
    # `--fail-closed` (`failClosed` on the handler): docs/design/harnesses.md#opencode-failure
    fail_closed_switch=True,
    matcher_style="regex",
    skill_names=("skill",),
    # a new session says `startup`, a session first seen at a message `resume`; compaction
    # starts no session
    session_sources=frozenset({"startup", "resume"}),
    # the tool schemas OpenCode 1.18.33 sends the model (tests/e2e/test_opencode.py)
    input_keys={
        "shell": frozenset({"command", "description", "timeout", "workdir"}),
        "file.read": frozenset({"filePath", "offset", "limit"}),
        "file.write": frozenset({"filePath", "content"}),
        "web.fetch": frozenset({"url", "format", "timeout"}),
        "agent": frozenset({"description", "prompt", "subagent_type", "task_id", "command"}),
    },
    content_search=frozenset({"grep"}),
    # STYLE's plugin and the folder it is in (removing it removes STYLE); `opencode.json(c)`
    # loads plugins too (one could undo what STYLE's plugin did)
    config_folder=".opencode",
    hook_config_files=("plugins/style.js", "plugins", "opencode.json", "opencode.jsonc"),
    managed_configs=("/etc/opencode",),
    hooks_off_commands=(
        (
            "a nested OpenCode without its plugins",
            "opencode",
            r"( \S+)* --pure\b",
        ),
    ),
)
