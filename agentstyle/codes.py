"""The registry of diagnostic codes: each code's level and summary, declared once; each code's
prose (what, why, an example, the fix) is data beside it, in `codes.yaml`, read only when
asked for (`style validate --explain CODE`, docs/diagnostics.md)."""

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


# Order follows the specification's table (copied in tests/data/spec_diagnostics.md); the codes
# STYLE adds come last. The docs test holds that every code is documented.
_TABLE = (
    Code("unsupported-spec", "error", "`spec` is not `style/v0.3`"),
    Code("invalid-package", "error", "the package is not a usable mapping of rules"),
    Code("invalid-schema", "error", "unknown field, wrong type or bad enum value"),
    Code("bad-name", "error", "package name format"),
    Code("bad-version", "error", "package version is not a semantic version"),
    Code("bad-id", "error", "rule id format"),
    Code("dup-id", "error", "an id repeats among rules and native hooks"),
    Code("inline-missing-id", "error", "inline rule without `id`"),
    Code("file-and-text", "error", "a rule has both `file` and `text`"),
    Code("file-into-rules", "error", "`file` points under `rules/`"),
    Code("body-has-frontmatter", "error", "a `file` body starts with front matter"),
    Code("from-and-inline", "error", "a `from` entry with `id`/`file`/`text`"),
    Code("override-target", "error", "a `from` entry overrides `target` or `id`"),
    Code("rule-file-pkg-field", "error", "rule file front matter has a package field"),
    Code("file-not-found", "error", "missing file, or a `from` glob matching nothing"),
    Code("path-escape", "error", "a path leaves the package folder"),
    Code("file-too-large", "error", "a file is over 256 KiB or not a regular file"),
    Code("bad-encoding", "error", "a file is not UTF-8 text"),
    Code("empty-body", "error", "rule body empty after trimming"),
    Code("marker-in-body", "error", "body contains the reserved `<!-- style:` marker"),
    Code("invalid-template", "error", "template syntax error"),
    Code("undeclared-var", "error", "unknown template variable"),
    Code("event-var-in-template", "error", "event content without the `event.` prefix"),
    Code("event-var-unavailable", "error", "event variable not available at the rule's point"),
    Code("event-warn-model-text", "error", "warn rule uses event content without `model_text`"),
    Code("action-target", "error", "block/ask/allow where the point cannot deny"),
    Code("block-after", "error", "block/ask/allow with `at: after`"),
    Code("fail-closed-target", "error", "`fail: closed` where the point cannot deny"),
    Code("refresh-invalid", "error", "`refresh` is not an integer 0-1000000"),
    Code("refresh-incompatible", "error", "positive `refresh` with an incompatible rule"),
    Code("field-target", "error", "a target-specific field on the wrong target"),
    Code("tool-missing", "error", "tool rule without `tool` or `names`"),
    Code("unknown-event", "error", "`event` is not a normalized event name"),
    Code("invalid-condition", "error", "condition does not parse; unknown operator"),
    Code("bad-pattern", "error", "RE2 rejects the regex, or the glob is malformed"),
    Code("field-unavailable", "error", "condition field cannot exist at the rule's point"),
    Code("budget-rule", "error", "worst-case tokens exceed the rule's `max_tokens`"),
    Code("budget-event", "error", "one rule's worst case exceeds `budget.per_event`"),
    Code("setting-missing", "error", "a setting has neither default nor value at install"),
    Code("block-repeat", "warning", "block rule declares `repeat`"),
    Code("reinject-unused", "warning", "`reinject_on_compact: true` without `repeat: session`"),
    Code("sources-unused", "warning", "`sources` on a rule not evaluated at session.start"),
    Code("model-text-unused", "warning", "`model_text` on a non-warn rule"),
    Code("var-no-default", "warning", "runtime variable may be empty and has no default"),
    Code("budget-sum", "warning", "rules sharing a point could together exceed `per_event`"),
    Code("unknown-tool", "warning", "`tool` names no normalized tool"),
    Code("T005", "warning", "block reason over 40 tokens"),
    Code("T006", "warning", "uses `harness.session_id` / `harness.turn_id`"),
    Code("T007", "warning", "repeated inject without `reason`"),
    Code("field-never-present", "warning", "condition field that no tool of the rule ever carries"),
    Code("model-unknown-at-start", "warning", "rule reads the model at session.start"),
    Code("fix-not-block", "error", "`fix` on a rule that is not a `block` rule on shell calls"),
    Code(
        "fix-rewrite",
        "error",
        "the `with` of a fix names a group its pattern lacks, or RE2 rejects it",
    ),
    Code("no-grammar", "warning", "a command condition names a program STYLE has no grammar for"),
    Code(
        "unknown-option",
        "warning",
        "a command condition names an option the program's grammar does not have",
    ),
    Code(
        "unknown-subcommand",
        "warning",
        "a command condition names a subcommand the program's grammar does not have",
    ),
    Code("exception-target", "warning", "an exception names a rule it cannot narrow"),
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
