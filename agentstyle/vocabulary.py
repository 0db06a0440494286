"""The spec's vocabulary as data: events, points, tools, fields, operators, variables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SPEC_VERSION = "style/v0.3"

# Normalized events (docs/rules.md#events); each is also an evaluation point.
EVENTS: tuple[str, ...] = (
    "session.start",
    "prompt.submitted",
    "tool.pre",
    "tool.post",
    "tool.failed",
    # the client refused a tool call by its own rules (Claude Code's auto-mode classifier):
    # observe only, recorded for `style audit refusals`
    "tool.denied",
    "subagent.start",
    "subagent.stop",
    "stop",
    "compact",
    "session.end",
    "notification",
    "config.changed",
)
TOOL_POINTS = frozenset({"tool.pre", "tool.post", "tool.failed"})
# Where a rule's `check` speaks (docs/observers.md): not a harness event, the point of the
# result a check records when it is done; a check rule is placed there beside its own point.
CHECK_POINT = "check.done"
# The points a `check` may follow (docs/observers.md#checks): after a call, or when the agent
# stops; a `prompt` check only at a stop, where the client's own model answers.
CHECK_AFTER_POINTS = frozenset({"tool.post", "tool.failed", "prompt.submitted", "stop"})
CHECK_ACTIONS = ("inject", "warn")
# The effective action of a check rule's entry at its own point: the event starts its check
# there, and the rule speaks at CHECK_POINT; a `prompt` check's entry is the client's own hook.
CHECK_ENTRY = "check"
# The payload key that makes an event a check's result, handed back to the hook pipeline by its
# runner (observe/runner.py submit, runtime/hookrun.py).
CHECK_KEY = "style_check"
PROMPT_ENTRY = "prompt"
# Points where a verdict (block/ask/allow) can be given (docs/actions.md#actions).
DENY_POINTS = frozenset({"tool.pre", "prompt.submitted", "stop", "subagent.stop", "config.changed"})
# Points where `fail: closed` makes sense: the harness can refuse the call or prompt
# (docs/actions.md#when-evaluation-fails).
FAIL_CLOSED_POINTS = frozenset({"tool.pre", "prompt.submitted"})

TOOLS: tuple[str, ...] = (
    "shell",
    "file.read",
    "file.write",
    "file.edit",
    "file.search",
    "notebook.edit",
    "web.fetch",
    "web.search",
    "agent",
    "todo",
    "other",
)
# In a tool rule's `tool` list, every MCP call (docs/rules.md#tool): beside the normalized tools.
MCP_TOOL = "mcp"
FILE_TOOLS = frozenset({"file.read", "file.write", "file.edit", "file.search", "notebook.edit"})
ADDING_TOOLS = frozenset({"file.write", "file.edit", "notebook.edit"})

TARGETS = ("system", "tool", "mcp", "skill", "event")
ACTIONS = ("inject", "warn", "block", "ask", "allow", "redact")
VERDICT_ACTIONS = frozenset({"block", "ask", "allow"})
SOURCES = ("startup", "resume", "clear", "compact")
REPEATS = ("every", "turn", "session")


@dataclass(frozen=True, slots=True)
class FieldType:
    """The type of a rule or package field, as checked by the loader and shown by `style schema`."""

    kind: str  # str | int | bool | enum | list | str-or-list | when | mapping
    values: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    item_values: tuple[str, ...] = ()
    description: str = ""


RULE_FIELDS: dict[str, FieldType] = {
    "id": FieldType("str", description="rule id, unique in the package"),
    "target": FieldType("enum", TARGETS, description="what the rule is about"),
    "file": FieldType("str", description="package file holding the body"),
    "text": FieldType("str", description="the body, inline"),
    "model_text": FieldType("str", description="what the model gets from a warn"),
    "action": FieldType("enum", ACTIONS, description="what happens when the rule fires"),
    "at": FieldType("enum", ("before", "after"), description="before or after the tool call"),
    "when": FieldType("when", description="conditions (expression string or mapping)"),
    "unless": FieldType("when", description="where this holds, the rule does not fire"),
    "repeat": FieldType("enum", REPEATS, description="dedup scope"),
    "fail": FieldType("enum", ("open", "closed"), description="what a handler error does"),
    "refresh": FieldType(
        "int", minimum=0, maximum=1_000_000, description="re-emit every N prompts"
    ),
    "reinject_on_compact": FieldType("bool", description="reset session dedup after compaction"),
    "sources": FieldType("list", item_values=SOURCES, description="session.start sources"),
    "fallback": FieldType("enum", ("error", "degrade", "skip"), description="install fallback"),
    "priority": FieldType("int", minimum=0, maximum=100, description="order and budget priority"),
    "max_tokens": FieldType("int", minimum=1, description="this rule's token limit"),
    "reason": FieldType("str", description="for maintainers; never sent to the model"),
    "from": FieldType("str", description="glob of rule files under rules/"),
    "enabled": FieldType("bool", description="false: validated, not installed"),
    "mode": FieldType("enum", ("append", "replace"), description="append or replace emissions"),
    "tool": FieldType("str-or-list", description="normalized tool names (globs allowed)"),
    "names": FieldType("list", description="native tool names to match exactly"),
    "mcp": FieldType("str", description="MCP server name glob"),
    "skill": FieldType("str", description="skill name glob"),
    "event": FieldType("str", description="normalized event name"),
    "fix": FieldType(
        "mapping", description="block on shell: `replace`/`with` for the command run instead"
    ),
    "redact": FieldType(
        "mapping", description="redact after a call: `pattern`/`with` replaced in its output"
    ),
    "check": FieldType(
        "mapping", description="a slow read-only check run beside the session: `run` or `prompt`"
    ),
}
# The behaviour fields a package's `defaults` may set that also have a built-in default
# (`default_value`), in the order their built-in defaults are applied (policy/rules.py).
BEHAVIOUR_FIELDS = ("action", "at", "repeat", "fail", "refresh", "reinject_on_compact", "fallback")
DEFAULTABLE_FIELDS = frozenset({*BEHAVIOUR_FIELDS, "priority", "max_tokens"})
# Fields that only an inline rule in STYLE.yaml may carry (not rule files, not `from` entries).
INLINE_ONLY_FIELDS = frozenset({"id", "file", "text", "from"})

PACKAGE_FIELDS: dict[str, FieldType] = {
    "spec": FieldType("str", description="must be style/v0.3"),
    "name": FieldType("str", description="package name"),
    "version": FieldType("str", description="semantic version"),
    "description": FieldType("str", description="one line"),
    "priority": FieldType("int", minimum=0, maximum=100, description="order among packages"),
    "defaults": FieldType("mapping", description="rule-field defaults"),
    "settings": FieldType("list", description="install-time settings"),
    "requires": FieldType("mapping", description="harness versions and other packages"),
    "budget": FieldType("mapping", description="token budgets"),
    "allow_code": FieldType(
        "bool", description="refusals carry a short code the person types: `style allow CODE`"
    ),
    "rules": FieldType("list", description="rule entries"),
    "exceptions": FieldType(
        "list", description="rules of installed packages narrowed here: {rule, unless, reason}"
    ),
    "native_hooks": FieldType("list", description="raw hook commands"),
}
REQUIRED_PACKAGE_FIELDS = ("spec", "name", "version", "description")
EXCEPTION_FIELDS = ("rule", "unless", "reason")
DEFAULT_BUDGET = {"per_rule": 400, "per_event": 1200}
DEFAULT_PACKAGE_PRIORITY = 50

# `redact.patterns` as stored in `rules.redact_pattern`: the patterns joined by this character,
# which no pattern holds; the evaluator applies them in turn (evaluator/redaction.py).
REDACT_SEPARATOR = "\x1f"

# Condition operators (docs/conditions.md#operators).
STRING_OPS = frozenset(
    {"equals", "not_equals", "contains", "not_contains", "starts_with", "ends_with"}
)
REGEX_OPS = frozenset({"regex", "not_regex", "shell_regex"})
GLOB_OPS = frozenset({"glob", "not_glob"})
NUMERIC_OPS = frozenset({"gt", "gte", "lt", "lte"})
OPERATORS = STRING_OPS | REGEX_OPS | GLOB_OPS | NUMERIC_OPS | {"in", "exists", "missing"}
NEGATED_OPS = {
    "not_equals": "equals",
    "not_contains": "contains",
    "not_regex": "regex",
    "not_glob": "glob",
}
# Command conditions (docs/conditions.md#command-conditions): where a path lands
# (commands/paths.py computes them), what `runs` may say, and the operators each part takes.
PLACES = ("project", "git", "home", "tmp", "root", "system", "remote", "unknown")
PLACE_OPS = ("inside", "outside", "is")
RUNS_WORDS = frozenset(
    {"remote", "nothing", "code", "script", "string", "stdin", "background", "repeatedly"}
)
NETWORK_KINDS = frozenset({"listen", "connect"})
# `network stdin`, `network stdout`: its standard input comes from a connection, its output goes
# to one (commands/model.py `Command.sockets`)
NETWORK_STDIO = frozenset({"stdin", "stdout"})
NETWORK_PARTS = frozenset({"host", "port"})
PATH_ROLES = {"path": None, "reads": "reads", "writes": "writes", "deletes": "deletes"}
VALUE_OPS = STRING_OPS | REGEX_OPS - {"shell_regex"} | GLOB_OPS | NUMERIC_OPS | {"in"}
# The field row a command condition's result is (evaluator/evaluate.py): `command#<rule>#<node>`.
COMMAND_KEY_PREFIX = "command#"
# The prefix of the field rows of one simple command (`CommandField`).
COMMAND_FIELD = "command."


class CommandField:
    """The field rows of one simple command, for the conditions inlined on it: the one list
    the evaluator writes them by (evaluator/commandrows.py) and the compiler reads them by
    (policy/lowercommands.py). Its names, its options by canonical name (`command.opt:--force`,
    the value or ""), operands, text, the variables it runs with, and of its paths each one's
    role, places and forms."""

    HEAD = "command.head"
    OPT = "command.opt:"
    ARG = "command.arg"
    SUB = "command.sub"  # each of its subcommand words
    NARGS = "command.nargs"  # how many operands it has
    TEXT = "command.text"
    ENV = "command.env:"
    REMOTE = "command.remote"
    NOTHING = "command.nothing"
    PATH_ROLE = "command.path.role"
    PATH_TAG = "command.path.tag"
    PATH_FORM = "command.path.form"
    NET = "command.net"  # connect | listen, of each end it makes or takes
    NET_HOST = "command.net.host"
    NET_PORT = "command.net.port"
    SOCKET = "command.socket"  # stdin | stdout: which of its standard streams is a connection
    RUNS = "command.runs"  # script | string | stdin | background | repeatedly
    FLOW = "command.flow"  # input | code: how a command feeding it reaches it


# The rows of the command feeding it have this prefix instead of `command.`.
SOURCE_FIELD = "command.from."
# The events of a simple command (evaluator/commandrows.py), by the route kind of their clauses:
# the command, one of its paths, one command feeding it, one path of that one.
ROUTE_KINDS = ("cmd", "cmdpath", "cmdfrom", "cmdfrompath")

# Operator words of other rule languages, for "did you mean" (not accepted as operators).
OPERATOR_SYNONYMS = {
    "matches": "regex",
    "match": "regex",
    "like": "glob",
    "is": "equals",
    "eq": "equals",
    "ne": "not_equals",
    "has": "contains",
    "includes": "contains",
    "ge": "gte",
    "le": "lte",
}
COMPARISONS = {"==": "equals", "!=": "not_equals", "<": "lt", "<=": "lte", ">": "gt", ">=": "gte"}

ALL_POINTS = frozenset(EVENTS)
STOP_POINTS = frozenset({"stop", "subagent.stop"})


@dataclass(frozen=True, slots=True)
class Availability:
    """Where a condition field or event variable can have a value."""

    points: frozenset[str]
    tools: frozenset[str] | None = None  # None: any tool; else only these normalized tools
    mcp_only: bool = False
    skill_only: bool = False


_TOOL_ANY = Availability(TOOL_POINTS)
HISTORY_POINTS = ALL_POINTS - {"session.start"}
# Condition fields (docs/conditions.md#fields); `tool.input.<path>` and `tool.output.<path>` by
# prefix.
CONDITION_FIELDS: dict[str, Availability] = {
    "event.name": Availability(ALL_POINTS),
    "session.source": Availability(frozenset({"session.start"})),
    "prompt": Availability(frozenset({"prompt.submitted"})),
    "tool.name": _TOOL_ANY,
    "tool.native": _TOOL_ANY,
    "tool.input": _TOOL_ANY,
    "tool.added": Availability(TOOL_POINTS, ADDING_TOOLS),
    "tool.output": Availability(frozenset({"tool.post", "tool.failed"})),
    "file.path": Availability(TOOL_POINTS, FILE_TOOLS),
    "mcp.server": Availability(TOOL_POINTS, mcp_only=True),
    "mcp.tool": Availability(TOOL_POINTS, mcp_only=True),
    "skill.name": Availability(TOOL_POINTS, skill_only=True),
    "shell.commands": Availability(TOOL_POINTS, frozenset({"shell"})),
    "shell.code": Availability(TOOL_POINTS, frozenset({"shell"})),
    "shell.dynamic": Availability(TOOL_POINTS, frozenset({"shell"})),
    "shell.incomplete": Availability(TOOL_POINTS, frozenset({"shell"})),
    "response.text": Availability(STOP_POINTS),
    # a settings file the client reloaded during the session (docs/conditions.md#fields)
    "config.source": Availability(frozenset({"config.changed"})),
    "config.file": Availability(frozenset({"config.changed"})),
    "config.hooks_off": Availability(frozenset({"config.changed"})),
    "model": Availability(ALL_POINTS),
    "provider": Availability(ALL_POINTS),
    "thinking_effort": Availability(ALL_POINTS),
    "thinking_effort_raw": Availability(ALL_POINTS),
    "harness.name": Availability(ALL_POINTS),
    "harness.version": Availability(ALL_POINTS),
    "harness.cwd": Availability(ALL_POINTS),
    "harness.permission_mode": Availability(ALL_POINTS),
    "harness.agent": Availability(ALL_POINTS),
    "harness.session_id": Availability(ALL_POINTS),
    "harness.turn_id": Availability(ALL_POINTS),
    "state.turns": Availability(ALL_POINTS),
    "state.tool_calls": Availability(TOOL_POINTS),
    "state.failures": Availability(TOOL_POINTS),
    "state.rule_hits": Availability(ALL_POINTS),
    "state.since_last_s": Availability(ALL_POINTS),
    # What the session did, from the facts its tool.post/tool.failed events left (install adds
    # those handlers): at a session start the agent's context has run nothing yet.
    "state.commands_since_edit": Availability(HISTORY_POINTS),
    "state.files_edited": Availability(HISTORY_POINTS),
    "state.commands_failed": Availability(HISTORY_POINTS),
    # A check's result (docs/observers.md#what-a-check-gives): only where it is done
    "check.exit": Availability(frozenset({CHECK_POINT})),
    "check.output": Availability(frozenset({CHECK_POINT})),
    "check.output_tail": Availability(frozenset({CHECK_POINT})),
    "check.duration": Availability(frozenset({CHECK_POINT})),
    "check.timed_out": Availability(frozenset({CHECK_POINT})),
}
CHECK_FIELDS = frozenset(f for f in CONDITION_FIELDS if f.startswith("check."))
PATH_FIELDS = ("tool.input", "tool.output")  # fields that take `.<path>` below them
RULE_STATE_FIELDS = frozenset({"state.rule_hits", "state.since_last_s"})
# State over the session's facts (schema 006 `session_facts`, sql/evaluate/history_state.sql).
HISTORY_FIELDS = frozenset(
    {"state.commands_since_edit", "state.files_edited", "state.commands_failed"}
)
# Lists of simple commands as `shell.commands` holds them: `shell_regex` reads these fields
# themselves (on any other field it reads the event's `shell.commands`).
COMMAND_LIST_FIELDS = frozenset({"state.commands_since_edit", "state.commands_failed"})
LIST_FIELDS = frozenset({"shell.commands", "shell.code", "shell.dynamic"}) | HISTORY_FIELDS
# The state whose history needs the tool.post/tool.failed handlers installed (plan.py adds
# them): commands and edits for HISTORY_FIELDS, a tool's successes and failures for failures.
HANDLER_STATE_FIELDS = HISTORY_FIELDS | {"state.failures"}

# Template variables (docs/templates.md#variables): event content needs the `event.` prefix.
RUNTIME_VARS = frozenset(
    {
        "model",
        "provider",
        "thinking_effort",
        "thinking_effort_raw",
        "harness.name",
        "harness.version",
        "harness.cwd",
        "harness.permission_mode",
        "harness.agent",
        "harness.session_id",
        "harness.turn_id",
    }
)
EVENT_VARS = frozenset(
    {
        "event.prompt",
        "event.tool.name",
        "event.tool.input",
        "event.tool.added",
        "event.tool.output",
        "event.mcp.server",
        "event.mcp.tool",
        "event.skill.name",
        "event.file.path",
        "event.state.files_edited",
        "event.state.commands_since_edit",
        "event.state.commands_failed",
    }
)
EVENT_PATH_VARS = ("event.tool.input", "event.tool.output")
DEDUP_BREAKING_VARS = frozenset({"harness.session_id", "harness.turn_id"})

# Token estimation (docs/design/runtime.md#token-estimation).
EVENT_VAR_MAX_CHARS = 512
EVENT_VAR_WORST_TOKENS = 1800
# `{{event.state.files_edited}}` and the other history lists: the elements joined by `, `
# and cut shorter than other event content (a reason names them, it does not quote them);
# fenced as event content is (a file name is the agent's text): the fence, its attributes and
# every character escaped (`\u003c`, 6 bytes) at worst.
STATE_LIST_VARS = frozenset({f"event.{name}" for name in HISTORY_FIELDS})
STATE_VAR_MAX_CHARS = 200
STATE_VAR_WORST_TOKENS = (120 + 6 * STATE_VAR_MAX_CHARS + 3) // 4
RUNTIME_VAR_WORST_TOKENS = 16
# A check's output in a text: its last characters, fenced as event content is (the project's
# commands print what they read: docs/observers.md#what-a-check-gives). Counted a byte a
# character: a command's output is text, and one that escapes much is cut to the rule's
# `max_tokens` when it is rendered (`budget-truncated`), its head first.
CHECK_OUTPUT_VARS = frozenset({"check.output", "check.output_tail"})
CHECK_OUTPUT_TAIL_CHARS = 1000
CHECK_OUTPUT_WORST_TOKENS = (120 + CHECK_OUTPUT_TAIL_CHARS + 3) // 4
BLOCK_REASON_TOKENS = 40


def estimate_tokens(text: str) -> int:
    """ceil(UTF-8 bytes / 4), the estimator of docs/design/runtime.md#token-estimation."""
    return (len(text.encode("utf-8")) + 3) // 4


def default_value(field: str, rule: dict[str, Any]) -> Any:
    """The built-in default of a rule field, given the rule's other (effective) fields."""
    action = rule.get("action", "inject")
    target = rule.get("target", "system")
    match field:
        case "target":
            return "system"
        case "action":
            return "inject"
        case "at":
            return "before" if action in VERDICT_ACTIONS else "after"
        case "repeat":
            return {"warn": "every", "inject": "session"}.get(action)
        case "fail":
            return "open"
        case "refresh":
            return 0
        case "reinject_on_compact":
            return target == "system"
        case "fallback":
            # a client that cannot replace output still tells the model (docs/actions.md#redact)
            return "degrade" if action == "redact" else "error"
        case "enabled":
            return True
        case "mode":
            return "append"
    return None
