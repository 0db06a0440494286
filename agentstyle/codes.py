"""The registry of diagnostic codes: each code's constant, name, level and summary, once.

The checks emit a code by its constant here (`codes.BAD_ID`), never as a bare string. Each code's
prose (what, why, an example, the fix) is data beside it, in `codes.yaml`, read only when asked
for (`style validate --explain CODE`, docs/diagnostics.md)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

Level = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Code:
    """One stable diagnostic code; its documentation is in codes.yaml under its name."""

    name: str
    level: Level
    summary: str

    @property
    def what(self) -> str:
        return _prose(self.name, "what")

    @property
    def why(self) -> str:
        return _prose(self.name, "why")

    @property
    def example(self) -> str:
        return _prose(self.name, "example")

    @property
    def fix(self) -> str:
        return _prose(self.name, "fix")


_TABLE: list[Code] = []


def _code(name: str, level: Level, summary: str) -> str:
    """Registers one code, in the order of the lines below, and gives its name back."""
    _TABLE.append(Code(name, level, summary))
    return name


# The codes: each a constant the checks emit (`Diagnostic.make(codes.BAD_ID, …)`), never a bare
# string (tests/test_code_constants.py), so a misspelt code fails at import and in mypy. A
# constant is its code in capitals, except the spec's numbered three, named for what they mean.
# Order follows the specification's table (copied in tests/data/spec_diagnostics.md); the codes
# STYLE adds come last. The docs test holds that every code is documented.
UNSUPPORTED_SPEC = _code("unsupported-spec", "error", "`spec` is not `style/v0.3`")
INVALID_PACKAGE = _code("invalid-package", "error", "the package is not a usable mapping of rules")
INVALID_SCHEMA = _code("invalid-schema", "error", "unknown field, wrong type or bad enum value")
BAD_NAME = _code("bad-name", "error", "package name format")
BAD_VERSION = _code("bad-version", "error", "package version is not a semantic version")
BAD_ID = _code("bad-id", "error", "rule id format")
DUP_ID = _code("dup-id", "error", "an id repeats among rules and native hooks")
INLINE_MISSING_ID = _code("inline-missing-id", "error", "inline rule without `id`")
FILE_AND_TEXT = _code("file-and-text", "error", "a rule has both `file` and `text`")
FILE_INTO_RULES = _code("file-into-rules", "error", "`file` points under `rules/`")
BODY_HAS_FRONTMATTER = _code(
    "body-has-frontmatter", "error", "a `file` body starts with front matter"
)
FROM_AND_INLINE = _code("from-and-inline", "error", "a `from` entry with `id`/`file`/`text`")
OVERRIDE_TARGET = _code("override-target", "error", "a `from` entry overrides `target` or `id`")
RULE_FILE_PKG_FIELD = _code(
    "rule-file-pkg-field", "error", "rule file front matter has a package field"
)
FILE_NOT_FOUND = _code("file-not-found", "error", "missing file, or a `from` glob matching nothing")
PATH_ESCAPE = _code("path-escape", "error", "a path leaves the package folder")
FILE_TOO_LARGE = _code("file-too-large", "error", "a file is over 256 KiB or not a regular file")
BAD_ENCODING = _code("bad-encoding", "error", "a file is not UTF-8 text")
EMPTY_BODY = _code("empty-body", "error", "rule body empty after trimming")
MARKER_IN_BODY = _code("marker-in-body", "error", "body contains the reserved `<!-- style:` marker")
INVALID_TEMPLATE = _code("invalid-template", "error", "template syntax error")
UNDECLARED_VAR = _code("undeclared-var", "error", "unknown template variable")
EVENT_VAR_IN_TEMPLATE = _code(
    "event-var-in-template", "error", "event content without the `event.` prefix"
)
EVENT_VAR_UNAVAILABLE = _code(
    "event-var-unavailable", "error", "event variable not available at the rule's point"
)
EVENT_WARN_MODEL_TEXT = _code(
    "event-warn-model-text", "error", "warn rule uses event content without `model_text`"
)
ACTION_TARGET = _code("action-target", "error", "block/ask/allow where the point cannot deny")
BLOCK_AFTER = _code("block-after", "error", "block/ask/allow with `at: after`")
FAIL_CLOSED_TARGET = _code(
    "fail-closed-target", "error", "`fail: closed` where the point cannot deny"
)
REFRESH_INVALID = _code("refresh-invalid", "error", "`refresh` is not an integer 0-1000000")
REFRESH_INCOMPATIBLE = _code(
    "refresh-incompatible", "error", "positive `refresh` with an incompatible rule"
)
FIELD_TARGET = _code("field-target", "error", "a target-specific field on the wrong target")
TOOL_MISSING = _code("tool-missing", "error", "tool rule without `tool` or `names`")
UNKNOWN_EVENT = _code("unknown-event", "error", "`event` is not a normalized event name")
INVALID_CONDITION = _code(
    "invalid-condition", "error", "condition does not parse; unknown operator"
)
BAD_PATTERN = _code("bad-pattern", "error", "RE2 rejects the regex, or the glob is malformed")
FIELD_UNAVAILABLE = _code(
    "field-unavailable", "error", "condition field cannot exist at the rule's point"
)
BUDGET_RULE = _code("budget-rule", "error", "worst-case tokens exceed the rule's `max_tokens`")
BUDGET_EVENT = _code("budget-event", "error", "one rule's worst case exceeds `budget.per_event`")
SETTING_MISSING = _code(
    "setting-missing", "error", "a setting has neither default nor value at install"
)
BLOCK_REPEAT = _code("block-repeat", "warning", "block rule declares `repeat`")
REINJECT_UNUSED = _code(
    "reinject-unused", "warning", "`reinject_on_compact: true` without `repeat: session`"
)
SOURCES_UNUSED = _code(
    "sources-unused", "warning", "`sources` on a rule not evaluated at session.start"
)
MODEL_TEXT_UNUSED = _code("model-text-unused", "warning", "`model_text` on a non-warn rule")
VAR_NO_DEFAULT = _code(
    "var-no-default", "warning", "runtime variable may be empty and has no default"
)
BUDGET_SUM = _code(
    "budget-sum", "warning", "rules sharing a point could together exceed `per_event`"
)
UNKNOWN_TOOL = _code("unknown-tool", "warning", "`tool` names no normalized tool")
BLOCK_REASON_LONG = _code("T005", "warning", "block reason over 40 tokens")
HARNESS_ID_IN_TEXT = _code("T006", "warning", "uses `harness.session_id` / `harness.turn_id`")
REPEATED_INJECT_NO_REASON = _code("T007", "warning", "repeated inject without `reason`")
FIELD_NEVER_PRESENT = _code(
    "field-never-present", "warning", "condition field that no tool of the rule ever carries"
)
MODEL_UNKNOWN_AT_START = _code(
    "model-unknown-at-start", "warning", "rule reads the model at session.start"
)
FIX_NOT_BLOCK = _code(
    "fix-not-block", "error", "`fix` on a rule that is not a `block` rule on shell calls"
)
FIX_REWRITE = _code(
    "fix-rewrite", "error", "the `with` of a fix names a group its pattern lacks, or RE2 rejects it"
)
NO_GRAMMAR = _code(
    "no-grammar", "warning", "a command condition names a program STYLE has no grammar for"
)
UNKNOWN_OPTION = _code(
    "unknown-option",
    "warning",
    "a command condition names an option the program's grammar does not have",
)
UNKNOWN_SUBCOMMAND = _code(
    "unknown-subcommand",
    "warning",
    "a command condition names a subcommand the program's grammar does not have",
)
EXCEPTION_TARGET = _code(
    "exception-target", "warning", "an exception names a rule it cannot narrow"
)
REDACT_POINT = _code(
    "redact-point", "error", "`redact` on a rule that does not run after a tool call"
)
REDACT_BLOCK = _code(
    "redact-block", "error", "a `redact` rule without a valid `redact: {pattern, with}` block"
)
CHECK_BLOCK = _code(
    "check-block", "error", "a `check` that is not a valid `{run|prompt, timeout, cooldown}` block"
)
CHECK_FIELD = _code(
    "check-field", "error", "a check's result read where it cannot decide (no check, or mixed)"
)
CODES: dict[str, Code] = {c.name: c for c in _TABLE}


@cache
def _documents() -> dict[str, dict[str, str]]:
    from importlib.resources import files

    import yaml

    text = files("agentstyle").joinpath("codes.yaml").read_text(encoding="utf-8")
    data: dict[str, dict[str, str]] = yaml.safe_load(text)
    return data


def _prose(code: str, part: str) -> str:
    return _documents().get(code, {}).get(part, "")


def level_of(code: str) -> Level:
    return CODES[code].level


def explain(code: str) -> str | None:
    """The full documentation of a code as printed by `style validate --explain CODE`."""
    c = CODES.get(code)
    if c is None:
        return None
    parts = [f"{c.name} ({c.level}): {c.summary}"]
    for title, body in (
        ("What", c.what),
        ("Why", c.why),
        ("Example", c.example),
        ("Fix", c.fix),
    ):
        if body:
            parts.append(f"\n{title}:\n{body.rstrip()}")
    return "\n".join(parts) + "\n"
