"""The registry of diagnostic codes: each code's level and its documentation, declared once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Code:
    """One stable diagnostic code, documented next to its definition."""

    name: str
    level: Level
    summary: str
    what: str = ""
    why: str = ""
    example: str = ""
    fix: str = ""


def _c(name: str, level: Level, summary: str, **doc: str) -> Code:
    return Code(name, level, summary, **doc)


# Order follows the specification's table (copied in tests/data/spec_diagnostics.md); the codes
# STYLE adds come last. The docs test holds that every code is documented.
CODES: dict[str, Code] = {
    c.name: c
    for c in (
        _c(
            "unsupported-spec",
            "error",
            "`spec` is not `style/v0.3`",
            what=(
                "The top-level `spec` of STYLE.yaml (or of a single-file package's front\n"
                "matter) has a value other than `style/v0.3`."
            ),
            why=(
                "`spec` names the version of the format the package was written for. Fields\n"
                "can change meaning between versions, so STYLE refuses to guess rather than\n"
                "install rules it may misread."
            ),
            example=(
                "spec: style/v0.2\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: house-style\n"
                "    text: Answer in English."
            ),
            fix=(
                "Set `spec: style/v0.3` and check the package against this version's fields\n"
                "(`style schema` prints them), or use the STYLE release that reads the\n"
                "package's spec."
            ),
        ),
        _c(
            "invalid-package",
            "error",
            "the package is not a usable mapping of rules",
            what=(
                "The package cannot be read as a set of rules: STYLE.yaml is empty or not a\n"
                "mapping; a directory package has neither a non-empty `rules` nor a non-empty\n"
                "`native_hooks`; `rules` is not a list or one of its items is not a mapping;\n"
                "a `from` entry is empty; or the file is not valid YAML, reported at the spot\n"
                "with what to change (a tab used to indent, a quote never closed, `\\s` in a\n"
                'double-quoted string, a plain value holding ": ").'
            ),
            why=(
                "Nothing else can be checked until the package has this shape, and a package\n"
                "that installs nothing is almost always a mistake (wrong file, a list written\n"
                "where a mapping belongs)."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - no-force-push"
            ),
            fix=(
                "Make `rules` a list of mappings, each an inline rule (`id` plus `text` or\n"
                "`file`) or a `from` entry with a glob, and give the package at least one\n"
                "rule or native hook."
            ),
        ),
        _c(
            "invalid-schema",
            "error",
            "unknown field, wrong type or bad enum value",
            what=(
                "A key or value does not fit the schema: an unknown key (top level, rule,\n"
                "`defaults`, setting, native hook, `requires`, `budget`, rule file front\n"
                'matter); a value of the wrong type (`enabled: "yes"`, `priority: high`); a\n'
                "value outside its enum (`action: deny`); an inline rule with neither `text`\n"
                "nor `file`; a `from` glob that does not name `.md` files under `rules/`; a\n"
                "field where it is not allowed (a non-defaultable field in `defaults`,\n"
                "`id`/`file`/`text`/`from` in a rule file, `rules` in a single-file package)."
            ),
            why=(
                "Unknown keys are usually typos (`actoin:`) or a field nested at the wrong\n"
                "level; ignoring them would install a rule that behaves differently from what\n"
                "was written. The message names the key or value meant when one is close\n"
                "(`did you mean `action`?`), and a misspelled key is then read as that key, so\n"
                "one typo gives one diagnostic. A plain YAML word where a string is due\n"
                "(`text: no`, `default: off`, `1.10`) is read by YAML as a boolean, null or\n"
                "number: the message says to quote it."
            ),
            example=(
                "rules:\n"
                "  - id: no-force-push\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: deny\n"
                "    text: Force push is not allowed."
            ),
            fix=(
                "Use the fields and values of the spec (here `action: block`). `style schema`\n"
                "prints the JSON Schema of STYLE.yaml (`--kind rule-file` for front matter),\n"
                "which editors use to complete and check fields while typing."
            ),
        ),
        _c(
            "bad-name",
            "error",
            "package name format",
            what=(
                "The package `name` does not match `^[a-z0-9][a-z0-9-]{0,63}$`: 1 to 64\n"
                "characters, lowercase letters, digits and `-`, not starting with `-`."
            ),
            why=(
                "The name qualifies every rule id outside the package (`pkg/rule` in traces,\n"
                "audit, wire metadata and instruction-file markers) and identifies the\n"
                "package in `style.lock.yaml` and `requires.packages`; a narrow form reads\n"
                "the same in all of them."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: Team_Guards\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: house-style\n"
                "    text: Answer in English."
            ),
            fix=("Use lowercase letters, digits and hyphens: `name: team-guards`."),
        ),
        _c(
            "bad-version",
            "error",
            "package version is not a semantic version",
            what=(
                "The package `version` is not a semantic version `MAJOR.MINOR.PATCH` with an\n"
                "optional `-pre` suffix: `1.2`, `v1.2.3` and `1.2.3.4` are rejected, and so\n"
                "is an unquoted `1.2`, which YAML reads as a number."
            ),
            why=(
                "`requires.packages` ranges (`>=1.2.0`) and `style sync` compare versions; a\n"
                "version that does not parse cannot be compared."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                'version: "1.2"\n'
                "description: example\n"
                "rules:\n"
                "  - id: house-style\n"
                "    text: Answer in English."
            ),
            fix=(
                "Write all three parts: `version: 1.2.0`, or `version: 1.3.0-rc.1` for a\n"
                "pre-release."
            ),
        ),
        _c(
            "bad-id",
            "error",
            "rule id format",
            what=(
                "A rule or native hook id is not a string, does not match\n"
                "`^[a-z0-9][a-z0-9_./-]{0,127}$`, contains `..` or `//`, or ends with `/`.\n"
                "Ids taken from rule file paths are checked the same way\n"
                "(`rules/Drafts/WIP.md` gives `Drafts/WIP`)."
            ),
            why=(
                "Ids appear qualified (`pkg/rule`) in dedup keys, audit tables, `--rule`\n"
                "options and the `<!-- style:begin pkg/rule -->` markers of instruction\n"
                "files; a narrow form keeps them unambiguous in all of those places."
            ),
            example=("rules:\n  - id: No Force Push\n    text: Never force push."),
            fix=(
                "Use lowercase letters, digits and `-` `_` `.` `/`: `id: no-force-push`. For\n"
                "a rule file, rename the file."
            ),
        ),
        _c(
            "dup-id",
            "error",
            "an id repeats among rules and native hooks",
            what=(
                "Two entries of one package have the same id: two inline rules, a rule and a\n"
                "native hook, or two rule files; this includes one rule file matched by two\n"
                "`from` globs, since each match makes a rule."
            ),
            why=(
                "The id is a rule's identity: dedup claims, audit history, plan lines,\n"
                "`--rule` filters and static markers are keyed by it. Two rules sharing one\n"
                "would mix their history, and one could suppress the other's output."
            ),
            example=(
                "rules:\n"
                "  - from: rules/*.md         # matches rules/review.md\n"
                "  - from: rules/review.md    # and so does this: two rules `review`\n"
                "    priority: 80"
            ),
            fix=(
                "Rename one of the entries, or make the `from` globs disjoint. To change one\n"
                "rule file, set the field in its own front matter instead of matching it\n"
                "twice."
            ),
        ),
        _c(
            "inline-missing-id",
            "error",
            "inline rule without `id`",
            what=(
                "An item of `rules` without `from`, which makes it an inline rule, has no\n"
                "`id`. A native hook without `id` is reported the same way."
            ),
            why=(
                "Only rule files (their path under `rules/`) and single-file packages (the\n"
                "package name) get a default id; an inline rule has nothing to derive one\n"
                "from, and without an id it cannot be deduplicated, audited or referred to."
            ),
            example=("rules:\n  - target: system\n    text: Answer in English."),
            fix=("Add an id: `- id: answer-language`."),
        ),
        _c(
            "file-and-text",
            "error",
            "a rule has both `file` and `text`",
            what=("A rule sets both `file` and `text`."),
            why=("A rule has exactly one body; STYLE will not choose one of the two for you."),
            example=(
                "rules:\n"
                "  - id: review\n"
                "    file: prompts/review.md\n"
                "    text: Review every change."
            ),
            fix=(
                "Keep one: `text` for a short body, `file` for a longer one kept in its own\nfile."
            ),
        ),
        _c(
            "file-into-rules",
            "error",
            "`file` points under `rules/`",
            what=("The `file` of an inline rule points at a path under `rules/`."),
            why=(
                "Files under `rules/` are rule files: their front matter holds rule fields\n"
                "and they become rules only through a `from` entry. Read as a plain body, the\n"
                "front matter would reach the model as text, and a `from` glob could install\n"
                "the same text a second time."
            ),
            example=("rules:\n  - id: review\n    file: rules/review.md"),
            fix=(
                "Reference a rule file with `- from: rules/review.md` (its id is then\n"
                "`review`), or move a plain body out of `rules/`, e.g. to\n"
                "`prompts/review.md`."
            ),
        ),
        _c(
            "body-has-frontmatter",
            "error",
            "a `file` body starts with front matter",
            what=(
                "The file named by a rule's `file` starts with a front matter block (a first\n"
                "line `---`, up to the next `---` line)."
            ),
            why=(
                "Only rule files have front matter. In a `file` body it would be sent to the\n"
                "model as text, and the fields in it would be silently ignored."
            ),
            example=(
                "# STYLE.yaml\n"
                "rules:\n"
                "  - id: review\n"
                "    file: prompts/review.md\n"
                "# prompts/review.md\n"
                "---\n"
                "action: warn\n"
                "---\n"
                "Review every change."
            ),
            fix=(
                "Move the fields onto the rule in STYLE.yaml and delete the block, or move\n"
                "the file under `rules/` and reference it with `from`."
            ),
        ),
        _c(
            "from-and-inline",
            "error",
            "a `from` entry with `id`/`file`/`text`",
            what=("A `from` entry also sets `id`, `file` or `text`."),
            why=(
                "A `from` entry makes one rule per matched rule file, with the id from the\n"
                "file's path and the body from the file. One id or one body for every match\n"
                "would collide with, or contradict, the files."
            ),
            example=("rules:\n  - from: rules/*.md\n    text: Be brief."),
            fix=(
                "Remove the key. Rename a rule file to change its id, edit the file to change\n"
                "its body, or write an inline rule for extra text."
            ),
        ),
        _c(
            "override-target",
            "error",
            "a `from` entry overrides `target` or `id`",
            what=(
                "A `from` entry overrides `target` or `id`, which only the rule file itself\n"
                "may decide (its front matter and its path)."
            ),
            why=(
                "`target` decides where a rule is evaluated and which of its fields are valid\n"
                "(`tool`, `event`, `at`). Changing it from outside would change the meaning\n"
                "of every matched file and could contradict their front matter."
            ),
            example=("rules:\n  - from: rules/tools/*.md\n    target: tool"),
            fix=(
                "Put `target` (with `tool`, `at`, ...) in each rule file's front matter; keep\n"
                "`from` overrides to fields such as `priority`, `enabled` or `fallback`."
            ),
        ),
        _c(
            "rule-file-pkg-field",
            "error",
            "rule file front matter has a package field",
            what=(
                "A rule file's front matter sets a package-level field other than `priority`:\n"
                "`spec`, `name`, `version`, `description`, `defaults`, `settings`,\n"
                "`requires`, `budget`, `rules` or `native_hooks`."
            ),
            why=(
                "A rule file describes one rule of the package around it. Package fields\n"
                "there would be ignored; usually the file was meant as a single-file package,\n"
                "or `description` was meant as a note."
            ),
            example=(
                "# rules/no-rm.md\n"
                "---\n"
                "description: Keep rm away from the repository.\n"
                "target: tool\n"
                "tool: shell\n"
                "action: block\n"
                "---\n"
                "Do not run rm -rf."
            ),
            fix=(
                "Remove the field. Notes for maintainers go in `reason`; package fields\n"
                "belong in STYLE.yaml. To share the rule on its own, make it a single-file\n"
                "package (NAME.md)."
            ),
        ),
        _c(
            "file-not-found",
            "error",
            "missing file, or a `from` glob matching nothing",
            what=(
                "A file the package needs does not exist or cannot be read (STYLE.yaml, the\n"
                "body named by a rule's `file`), or a `from` glob matches no rule file."
            ),
            why=(
                "A rule without its body cannot be installed, and a glob that matches nothing\n"
                "is usually a typo that would otherwise install nothing without a word."
            ),
            example=(
                "rules:\n  - id: review\n    file: prompts/reveiw.md\n  - from: rules/guard/*.md"
            ),
            fix=(
                "Correct the path. Paths are relative to the package folder; `from` globs\n"
                "start with `rules/` and end in `.md` (`*` does not cross `/`, `**` does)."
            ),
        ),
        _c(
            "path-escape",
            "error",
            "a path leaves the package folder",
            what=(
                "A path the package reads is absolute, or resolves outside the package folder\n"
                "once `..` and symbolic links are followed (`file: ../common/style.md`, a\n"
                "rule file that is a symlink to another folder)."
            ),
            why=(
                "A package must be self-contained to be shared and reviewed. Reading outside\n"
                "it would make it behave differently on each machine and could send unrelated\n"
                "local files to the model."
            ),
            example=("rules:\n  - id: shared-style\n    file: ../common/style.md"),
            fix=(
                "Copy the file into the package (replacing a symlink with the file itself),\n"
                "or install the other package alongside and list it in `requires.packages`."
            ),
        ),
        _c(
            "file-too-large",
            "error",
            "a file is over 256 KiB or not a regular file",
            what=(
                "A file the package reads (STYLE.yaml, a rule file, a `file` body) is larger\n"
                "than 256 KiB, or is not a regular file (a directory, device, FIFO or\n"
                "socket)."
            ),
            why=(
                "Bodies go into the model's context, where a file that large could never fit\n"
                "the token budget; reading a device or FIFO could hang validation and\n"
                "install."
            ),
            example=("rules:\n  - id: handbook\n    file: docs/handbook.md    # 900 KiB"),
            fix=(
                "Point `file` at a short regular file: put the part the model needs into its\n"
                "own file and leave the rest where people read it."
            ),
        ),
        _c(
            "bad-encoding",
            "error",
            "a file is not UTF-8 text",
            what=(
                "A file the package reads is not valid UTF-8, or contains a NUL byte. A UTF-8\n"
                "byte order mark is accepted and dropped; `\\r\\n` line ends are read as `\\n`."
            ),
            why=(
                "Bodies are text for a model and are hashed for dedup; bytes that are not\n"
                "UTF-8 text would be replaced or garbled differently by each tool on the way."
            ),
            example=(
                "rules:\n"
                "  - id: review\n"
                "    file: prompts/review.md    # saved as UTF-16 or Latin-1"
            ),
            fix=(
                "Save the file as UTF-8, e.g.\n"
                "`iconv -f LATIN1 -t UTF-8 review.md > review.utf8.md` and replace the\n"
                "original with the result."
            ),
        ),
        _c(
            "empty-body",
            "error",
            "rule body empty after trimming",
            what=(
                "A rule's body is empty once leading blank lines and trailing whitespace are\n"
                "removed: a blank `text`, an empty `file`, or a rule file with nothing after\n"
                "its front matter."
            ),
            why=(
                "An empty rule would inject nothing, or refuse a call without a reason; it is\n"
                "usually a file saved before it was written."
            ),
            example=('rules:\n  - id: review\n    text: "   "'),
            fix=(
                "Write the body, or remove the rule until it is ready (a rule with\n"
                "`enabled: false` is still validated)."
            ),
        ),
        _c(
            "marker-in-body",
            "error",
            "body contains the reserved `<!-- style:` marker",
            what=("A rule body contains the reserved text `<!-- style:`."),
            why=(
                "STYLE finds its own text in CLAUDE.md, AGENTS.md, GEMINI.md and Cursor rules\n"
                "by the `<!-- style:begin pkg/rule -->` and `<!-- style:end pkg/rule -->`\n"
                "lines. A body holding the marker could make a later install or uninstall cut\n"
                "that file in the wrong place."
            ),
            example=(
                'rules:\n  - id: notes\n    text: "Leave <!-- style:begin --> blocks as they are."'
            ),
            fix=("Remove the marker from the body; to talk about it, describe it in words."),
        ),
        _c(
            "invalid-template",
            "error",
            "template syntax error",
            what=(
                "A body or `model_text` is not a valid template: a `{{` without its `}}`, an\n"
                "empty `{{}}`, a filter other than `default`, or a default value without\n"
                "quotes."
            ),
            why=(
                "A broken template cannot be rendered. STYLE rejects it when the package is\n"
                "validated rather than sending raw braces to the model at run time."
            ),
            example=(
                "rules:\n"
                "  - id: harness-note\n"
                "    text: 'Running on {{harness.name | default: unknown}}.'"
            ),
            fix=(
                'Quote the default (`{{harness.name | default: "unknown"}}`, single quotes\n'
                "work too), close every `{{` with `}}`, and write a literal `{{` as `\\{{`."
            ),
        ),
        _c(
            "undeclared-var",
            "error",
            "unknown template variable",
            what=(
                "A template names a variable STYLE does not know: a misspelled variable\n"
                "(`{{harness.dir}}`), `{{settings.x}}` where `settings` declares no `x`, or\n"
                "an `event.tool.input.<path>` / `event.tool.output.<path>` whose segments are\n"
                "not only letters, digits and `_` (`{{event.tool.input.old-string}}`). A\n"
                "condition that uses an undeclared setting (`tool.name in settings.x`, or\n"
                "`{{settings.x}}` inside a pattern) is reported the same way, at the use. The\n"
                "message names the variable or setting meant when one is close."
            ),
            why=(
                "An unknown variable would always render empty. Most are typos that would\n"
                "otherwise only show up in the model's context."
            ),
            example=(
                "settings:\n"
                "  - name: language\n"
                "    default: English\n"
                "rules:\n"
                "  - id: house-style\n"
                "    text: Answer in {{settings.lang}}."
            ),
            fix=(
                "Declare the setting or correct the name. Variables: `settings.NAME`;\n"
                "`model`, `provider`, `thinking_effort`, `thinking_effort_raw`,\n"
                "`harness.name`, `harness.version`, `harness.cwd`, `harness.permission_mode`,\n"
                "`harness.agent`, `harness.session_id`, `harness.turn_id`; `event.prompt`,\n"
                "`event.tool.name`, `event.tool.input[.PATH]`, `event.tool.added`,\n"
                "`event.tool.output[.PATH]`, `event.mcp.server`, `event.mcp.tool`,\n"
                "`event.skill.name`, `event.file.path`. For a path with other characters use\n"
                "the parent value."
            ),
        ),
        _c(
            "event-var-in-template",
            "error",
            "event content without the `event.` prefix",
            what=(
                "A template names event content without the `event.` prefix: `{{prompt}}`,\n"
                "`{{tool.input}}`, `{{tool.input.command}}`, `{{tool.output}}`,\n"
                "`{{file.path}}` and the like."
            ),
            why=(
                "Event content is untrusted data: a prompt, a file the agent read, a\n"
                "command's output. The `event.` prefix shows in the source where such data\n"
                "enters a body; STYLE fences every `event.*` value (cut to 512 characters,\n"
                "JSON-escaped, wrapped in `<style-untrusted-event>`) so that it cannot pass\n"
                "for an instruction."
            ),
            example=(
                "rules:\n"
                "  - id: echo-command\n"
                "    target: tool\n"
                "    tool: shell\n"
                '    text: "Ran: {{tool.input.command}}"'
            ),
            fix=("Add the prefix: `{{event.tool.input.command}}`."),
        ),
        _c(
            "event-var-unavailable",
            "error",
            "event variable not available at the rule's point",
            what=(
                "A template uses an event variable that has no value at the rule's evaluation\n"
                "point: `event.tool.output` at `at: before` (only tool.post and tool.failed\n"
                "have it), `event.prompt` outside prompt.submitted, `event.file.path` on a\n"
                "tool that is not a file tool, `event.tool.added` on a tool that adds no\n"
                "text, `event.mcp.*` outside MCP calls, `event.skill.name` outside skill\n"
                "calls."
            ),
            why=(
                "The variable would always render empty, which usually means the rule is\n"
                "attached to the wrong point."
            ),
            example=(
                "budget: {per_rule: 2000, per_event: 2000}\n"
                "rules:\n"
                "  - id: show-result\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    at: before\n"
                '    text: "Output: {{event.tool.output}}"'
            ),
            fix=(
                "Attach the rule where the value exists (here `at: after`), or use a variable\n"
                "that exists at this point (`{{event.tool.input.command}}`)."
            ),
        ),
        _c(
            "event-warn-model-text",
            "error",
            "warn rule uses event content without `model_text`",
            what=(
                "A `warn` rule's body uses an `event.*` variable and the rule has no\n`model_text`."
            ),
            why=(
                "Without `model_text` the model gets the body's first sentence. Where that\n"
                "sentence ends depends on untrusted event content, so the cut could fall\n"
                "inside the fenced value or leave the model nothing but event data; an\n"
                "explicit `model_text` fixes what the model sees."
            ),
            example=(
                "budget: {per_rule: 2000, per_event: 2000}\n"
                "rules:\n"
                "  - id: big-write\n"
                "    target: tool\n"
                "    tool: file.write\n"
                "    action: warn\n"
                '    text: "Wrote {{event.file.path}}. Check that it belongs in the commit."'
            ),
            fix=(
                "Add `model_text:` with the line for the model, e.g.\n"
                "`model_text: A file was written; check that it belongs in the commit.`"
            ),
        ),
        _c(
            "action-target",
            "error",
            "block/ask/allow where the point cannot deny",
            what=(
                "`action` is `block`, `ask` or `allow` on a rule whose evaluation point\n"
                "cannot refuse: a `system` rule, or an `event` rule whose event is not\n"
                "`tool.pre`, `prompt.submitted`, `stop` or `subagent.stop`."
            ),
            why=(
                "These actions are verdicts on a call, a prompt or a stop. At session.start,\n"
                "tool.post and the other notice-only points there is nothing to refuse, so\n"
                "the rule could never do what it says."
            ),
            example=(
                "rules:\n"
                "  - id: no-secrets\n"
                "    target: event\n"
                "    event: session.start\n"
                "    action: block\n"
                "    text: Do not print secrets."
            ),
            fix=(
                "Use `inject` or `warn` to tell the model, or move the rule to a point that\n"
                "can refuse: a tool, mcp or skill rule (`at: before`), or `event: tool.pre`,\n"
                "`prompt.submitted`, `stop` or `subagent.stop`."
            ),
        ),
        _c(
            "block-after",
            "error",
            "block/ask/allow with `at: after`",
            what=(
                "A `block`, `ask` or `allow` rule on a tool, mcp or skill target sets\n`at: after`."
            ),
            why=(
                "At `after` (tool.post) the call has already run: it can no longer be\n"
                "refused, asked about or approved."
            ),
            example=(
                "rules:\n"
                "  - id: no-rm\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: block\n"
                "    at: after\n"
                "    text: Do not run rm -rf."
            ),
            fix=(
                "Remove `at` (verdict actions default to `before`) or write `at: before`. For\n"
                "feedback after the call, use `warn` or `inject` at `after`."
            ),
        ),
        _c(
            "fail-closed-target",
            "error",
            "`fail: closed` where the point cannot deny",
            what=(
                "`fail: closed` on a rule whose evaluation point cannot refuse the call or\n"
                "prompt; it is only valid on tool, mcp and skill rules at `at: before` and on\n"
                "`event: tool.pre` or `event: prompt.submitted` rules."
            ),
            why=(
                "`fail: closed` refuses the native event when STYLE cannot evaluate its\n"
                "rules. At a point that cannot refuse it would do nothing, and the package\n"
                "would look protected when it is not."
            ),
            example=(
                "rules:\n"
                "  - id: changelog\n"
                "    target: tool\n"
                "    tool: file.write\n"
                "    fail: closed\n"
                "    text: Note every written file in CHANGES.md."
            ),
            fix=(
                "Remove `fail: closed`, or put it on a gate that runs before the call\n"
                "(typically a `block` rule, whose `at` defaults to `before`)."
            ),
        ),
        _c(
            "refresh-invalid",
            "error",
            "`refresh` is not an integer 0-1000000",
            what=(
                "`refresh` is not an integer from 0 to 1000000: a decimal (`2.5`), a boolean\n"
                "(`true`), a string, a negative number or a larger one."
            ),
            why=(
                "`refresh` counts submitted prompts, so only a whole number means something;\n"
                "`true` would otherwise be read as 1."
            ),
            example=(
                "rules:\n"
                "  - id: plan-format\n"
                "    refresh: 2.5\n"
                "    reason: Long sessions drift from the plan format.\n"
                "    text: Keep plans to five steps or fewer."
            ),
            fix=(
                "Write a whole number of prompts (`refresh: 10`), or `0` (or nothing) for no\n"
                "refresh."
            ),
        ),
        _c(
            "refresh-incompatible",
            "error",
            "positive `refresh` with an incompatible rule",
            what=(
                "`refresh` is positive on a rule that cannot refresh: its action is not\n"
                "`inject` or `warn`, its `repeat` is not `session` (`warn` defaults to\n"
                "`every`), it has `mode: replace`, or it is an `event: subagent.start` rule."
            ),
            why=(
                "Refresh brings back an output that session dedup would otherwise suppress.\n"
                "`every` and `turn` already repeat, verdicts and subagent.start are never\n"
                "deduplicated, and `replace` rules are placed statically, so the combination\n"
                "has no meaning."
            ),
            example=(
                "rules:\n"
                "  - id: lint-reminder\n"
                "    target: tool\n"
                "    tool: file.edit\n"
                "    action: warn\n"
                "    refresh: 5\n"
                "    text: Run the linter before committing."
            ),
            fix=(
                "Add `repeat: session` to an inject or warn rule that should come back every\n"
                "N prompts; otherwise remove `refresh`."
            ),
        ),
        _c(
            "field-target",
            "error",
            "a target-specific field on the wrong target",
            what=(
                "A field that belongs to another target: `tool` without `target: tool`;\n"
                "`names` without `target: tool` or `mcp`; `mcp` without `target: mcp`;\n"
                "`skill` without `target: skill`; `event` without `target: event`; `at` on a\n"
                "`system` or `event` rule. `target` defaults to `system`, so a rule that\n"
                "forgets it reports its `tool` or `event` here."
            ),
            why=(
                "The field would be ignored and the rule would run somewhere other than\n"
                "intended: a forgotten `target: tool` turns a shell tip into a session-start\n"
                "instruction."
            ),
            example=(
                "rules:\n  - id: shell-tips\n    tool: shell\n    text: Prefer trash over rm."
            ),
            fix=(
                "Set the target the field belongs to (here `target: tool`), or remove the\nfield."
            ),
        ),
        _c(
            "tool-missing",
            "error",
            "tool rule without `tool` or `names`",
            what=("A rule with `target: tool` has neither `tool` nor `names`."),
            why=(
                "A tool rule is matched by tool name; without one it does not say which calls\n"
                "it is about."
            ),
            example=(
                "rules:\n  - id: shell-tips\n    target: tool\n    text: Prefer trash over rm."
            ),
            fix=(
                "Name the tools: `tool: shell`, a list (`tool: [file.write, file.edit]`), a\n"
                'glob (`tool: "file.*"`), or native names matched exactly with\n'
                "`names: [Bash]`."
            ),
        ),
        _c(
            "unknown-event",
            "error",
            "`event` is not a normalized event name",
            what=(
                "The `event` of an `event` rule (or of a native hook) is missing or is not a\n"
                "normalized event name: `session.start`, `prompt.submitted`, `tool.pre`,\n"
                "`tool.post`, `tool.failed`, `subagent.start`, `subagent.stop`, `stop`,\n"
                "`compact`, `session.end`, `notification`."
            ),
            why=(
                "Rules are written against normalized events so that one package works on\n"
                "every harness; a native name such as `PreToolUse` exists on one harness\n"
                "only."
            ),
            example=(
                "rules:\n"
                "  - id: prompt-hint\n"
                "    target: event\n"
                "    event: UserPromptSubmit\n"
                "    text: State assumptions before acting."
            ),
            fix=(
                "Use the normalized name: `UserPromptSubmit` is `prompt.submitted`,\n"
                "`PreToolUse` is `tool.pre`, `PostToolUse` is `tool.post`, `SessionStart` is\n"
                "`session.start`."
            ),
        ),
        _c(
            "invalid-condition",
            "error",
            "condition does not parse; unknown operator",
            what=(
                "A `when` cannot be read: an expression with a syntax error (reported at the\n"
                "offending token), an unknown key in the `when` mapping, a condition item\n"
                "that is not `{field, op, pattern}`, an unknown field or operator, or a value\n"
                "of the wrong kind for the operator (a number for `gt`, a list for `in`)."
            ),
            why=(
                "A condition that cannot be read cannot be evaluated; STYLE reports it when\n"
                "the package is validated so that a hook never meets it."
            ),
            example=(
                "rules:\n"
                "  - id: no-force-push\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: block\n"
                "    when: 'tool.input.command matches \"--force\"'\n"
                "    text: Force push is not allowed."
            ),
            fix=(
                "Use the operators `equals`, `not_equals`, `contains`, `not_contains`,\n"
                "`starts_with`, `ends_with`, `regex`, `not_regex`, `shell_regex`, `glob`,\n"
                "`not_glob`, `in`, `exists`, `missing`, `gt`, `gte`, `lt`, `lte` (or `==`,\n"
                "`!=`, `<`, `<=`, `>`, `>=`), quote strings, and combine with `and`, `or`,\n"
                "`not` and parentheses."
            ),
        ),
        _c(
            "bad-pattern",
            "error",
            "RE2 rejects the regex, or the glob is malformed",
            what=(
                "A `regex`, `not_regex` or `shell_regex` pattern that RE2 rejects\n"
                "(back-references such as `\\1`, look-ahead `(?=...)` or `(?!...)`,\n"
                "look-behind, invalid syntax), or a malformed `glob` / `not_glob` pattern (an\n"
                "unclosed `[` or `{`). A pattern that uses a setting is checked with the\n"
                "setting's default at validate and with the installed value at install\n"
                "(`--set protected_branches='[main'`): then the message shows the pattern as\n"
                "filled in and the value, and the install writes nothing."
            ),
            why=(
                "Patterns are evaluated by RE2 in the database at hook time. Checking them\n"
                "when the package is validated means a bad pattern never becomes an error on\n"
                "the agent's critical path, and RE2 keeps matching linear in time."
            ),
            example=(
                "rules:\n"
                "  - id: no-force-push\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: block\n"
                "    when:\n"
                "      conditions:\n"
                '        - {field: tool.input.command, op: shell_regex, pattern: "^git '
                'push(?!.*--dry-run)"}\n'
                "    text: Force push is not allowed."
            ),
            fix=(
                "Rewrite without look-around or back-references, e.g. as two conditions:\n"
                "`shell_regex` `^git push` and `not_regex` `--dry-run`."
            ),
        ),
        _c(
            "field-unavailable",
            "error",
            "condition field cannot exist at the rule's point",
            what=(
                "A condition uses a field that has no value at the rule's evaluation point:\n"
                "`prompt` outside prompt.submitted, `tool.output` at `at: before`,\n"
                "`file.path` on a tool that is not a file tool, `shell.commands` on a tool\n"
                "that is not `shell`, `response.text` outside stop and subagent.stop,\n"
                "`session.source` outside session.start, `mcp.*` or `skill.name` outside MCP\n"
                "or skill calls, `tool.*` outside tool points."
            ),
            why=(
                "Such a condition never holds (or always holds, with `missing` or a `not_`\n"
                "operator), so the rule would silently never fire, or always fire."
            ),
            example=(
                "rules:\n"
                "  - id: key-in-output\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    at: before\n"
                "    when: 'tool.output contains \"BEGIN PRIVATE KEY\"'\n"
                "    text: The command printed a private key; do not repeat it."
            ),
            fix=(
                "Attach the rule where the field exists (here `at: after`), or test a field\n"
                "that exists at this point (`tool.input.command`)."
            ),
        ),
        _c(
            "budget-rule",
            "error",
            "worst-case tokens exceed the rule's `max_tokens`",
            what=(
                "A rule's worst-case size is over its `max_tokens` (default\n"
                "`budget.per_rule`, 400). Tokens are estimated as ceil(UTF-8 bytes / 4) of\n"
                "the text with settings filled in; each `event.*` variable counts at its\n"
                "worst case, 1,800 tokens, and each other runtime variable at 16."
            ),
            why=(
                "At run time an output over `max_tokens` is cut and ends with `…`, so the end\n"
                "of the text, often the part that says what to do, would be lost."
            ),
            example=(
                "rules:\n"
                "  - id: edit-review\n"
                "    target: tool\n"
                "    tool: file.edit\n"
                '    text: "Check this edit for style problems: {{event.tool.input}}"'
            ),
            fix=(
                "Shorten the body, or raise the rule's limit (`max_tokens: 2000`) together\n"
                "with `budget.per_event` (see budget-event)."
            ),
        ),
        _c(
            "budget-event",
            "error",
            "one rule's worst case exceeds `budget.per_event`",
            what=(
                "One rule's worst-case size alone is over the package's `budget.per_event`\n"
                "(default 1200), estimated as for budget-rule."
            ),
            why=(
                "At run time whole outputs are dropped while an event's total is over\n"
                "`per_event`, so this rule would be dropped whenever it reaches its worst\n"
                "case."
            ),
            example=(
                "budget:\n"
                "  per_rule: 2000\n"
                "rules:\n"
                "  - id: edit-review\n"
                "    target: tool\n"
                "    tool: file.edit\n"
                '    text: "Check this edit for style problems: {{event.tool.input}}"'
            ),
            fix=(
                "Raise the limit (`budget: {per_rule: 2000, per_event: 2000}`) or make the\n"
                "rule smaller."
            ),
        ),
        _c(
            "setting-missing",
            "error",
            "a setting has neither default nor value at install",
            what=(
                "At install (`style install`, `style sync`), a setting declared in `settings`\n"
                "has no `default`, no `--set NAME=VALUE` and no value recorded in\n"
                "`style.lock.yaml`."
            ),
            why=(
                "Settings are rendered into bodies and filled into conditions at install;\n"
                "without a value the installed text would have a hole where the setting\n"
                "belongs, and a condition would test something nobody chose."
            ),
            example=(
                "settings:\n"
                "  - name: team\n"
                "    description: team that reviews changes\n"
                "rules:\n"
                "  - id: owner\n"
                "    text: Changes here are reviewed by {{settings.team}}.\n"
                "\n"
                "$ style install pkg --harness claude-code"
            ),
            fix=(
                "Pass a value (`style install pkg --harness claude-code --set team=platform`)\n"
                "or give the setting a `default`.\n"
                "\n"
                "How settings work: each is declared with a `type`: `string` (the default),\n"
                "`int`, `bool`, `enum` (with `values`) or `list` (strings without commas,\n"
                "`default: [main, master]`, `--set protected_branches=main,trunk`). A body\n"
                "uses `{{settings.NAME}}` (a list renders as `main, trunk`). A condition\n"
                "uses a setting as a whole value (`tool.name in settings.tools`,\n"
                '`state.turns > settings.limit`, `value: "{{settings.tools}}"` in the\n'
                "mapping form) or inside a pattern\n"
                '(`shell_regex "^git push -f origin {{settings.branches}}$"`). The value\n'
                "goes in as the operator's language reads it: in a regex as a regex, grouped\n"
                "`(?:...)`, a list as `(?:a|b)` of its items, each a regex, so `release/.*`\n"
                "is a pattern (inside `\\Q...\\E` it is literal text instead); in a glob as\n"
                "glob text, a list as `{a,b}`; elsewhere as literal text, a list only as the\n"
                "whole value of `in`. Values are fixed when the rules are compiled, recorded\n"
                "in `style.lock.yaml` and reused by `style sync`; a value that breaks a\n"
                "pattern stops the install (`bad-pattern`)."
            ),
        ),
        _c(
            "block-repeat",
            "warning",
            "block rule declares `repeat`",
            what=("A `block`, `ask` or `allow` rule sets `repeat`."),
            why=(
                "Verdicts are never deduplicated: a refused call is refused every time, or\n"
                "the second attempt would get through. STYLE ignores the field, and it\n"
                "misleads whoever reads the rule."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: no-rm\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: block\n"
                "    repeat: session\n"
                "    when: 'tool.input.command shell_regex \"^rm -rf\"'\n"
                "    text: Do not run rm -rf; move files to the trash instead.\n"
                "\n"
                "pkg/STYLE.yaml:10:13: warning block-repeat: `repeat` is ignored on block rule "
                "`no-rm`"
            ),
            fix=("Remove `repeat`."),
        ),
        _c(
            "reinject-unused",
            "warning",
            "`reinject_on_compact: true` without `repeat: session`",
            what=(
                "A rule sets `reinject_on_compact: true` but its `repeat` is not `session`\n"
                "(it is `every` or `turn`, including the `every` that `warn` rules get by\n"
                "default)."
            ),
            why=(
                "Only the `session` dedup key includes the compaction round; `every` and\n"
                "`turn` outputs do not change with compaction, so the field does nothing\n"
                "here."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: lint-reminder\n"
                "    target: tool\n"
                "    tool: file.edit\n"
                "    action: warn\n"
                "    reinject_on_compact: true\n"
                "    text: Run the linter before committing.\n"
                "\n"
                "pkg/STYLE.yaml:10:26: warning reinject-unused: `reinject_on_compact` has no "
                "effect without `repeat: session` (rule `lint-reminder` repeats `every`)"
            ),
            fix=(
                "Remove `reinject_on_compact`, or set `repeat: session` if the rule should be\n"
                "emitted once per session and again after each compaction."
            ),
        ),
        _c(
            "sources-unused",
            "warning",
            "`sources` on a rule not evaluated at session.start",
            what=(
                "A rule sets `sources` but is not evaluated at session.start: a tool, mcp or\n"
                "skill rule, or an `event` rule whose event is not `session.start`."
            ),
            why=(
                "`sources` chooses which session starts (startup, resume, clear, compact) a\n"
                "rule fires on; anywhere else it is ignored and misleads the reader."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: prompt-hint\n"
                "    target: event\n"
                "    event: prompt.submitted\n"
                "    sources: [startup]\n"
                "    text: State assumptions before acting.\n"
                "\n"
                "pkg/STYLE.yaml:9:14: warning sources-unused: `sources` has no effect: rule "
                "`prompt-hint` is not evaluated at session.start"
            ),
            fix=(
                "Remove `sources`, or make the rule a `system` rule (or\n"
                "`event: session.start`) if it belongs at the start of a session."
            ),
        ),
        _c(
            "model-text-unused",
            "warning",
            "`model_text` on a non-warn rule",
            what=("A rule whose action is not `warn` sets `model_text`."),
            why=(
                "Only `warn` splits its output into a notice for the user and a short line\n"
                "for the model. `inject` sends the body to the model and `block`/`ask` use it\n"
                "as the reason or question, so `model_text` is never sent."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: lint-reminder\n"
                "    target: tool\n"
                "    tool: file.edit\n"
                "    model_text: Run the linter.\n"
                "    text: Edited a file. Run the linter before committing; CI rejects lint "
                "errors.\n"
                "\n"
                "pkg/STYLE.yaml:9:17: warning model-text-unused: `model_text` is only used by "
                "warn rules, rule `lint-reminder` is `inject`"
            ),
            fix=(
                "Add `action: warn` if the user should see the full text and the model the\n"
                "short one; otherwise remove `model_text`."
            ),
        ),
        _c(
            "var-no-default",
            "warning",
            "runtime variable may be empty and has no default",
            what=(
                "A body or `model_text` uses a runtime variable that a harness may leave\n"
                "empty (`model`, `provider`, `thinking_effort`, `thinking_effort_raw`,\n"
                '`harness.*` other than `harness.name`) without `| default: "..."`, and the\n'
                "rule's `when` does not guarantee it. Only `{{model}}` can be guaranteed: by\n"
                "a `when.model` whose globs cannot match `unknown`."
            ),
            why=(
                'A missing value renders as an empty string and leaves text such as "Work\n'
                "only inside .\" in the model's context."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: cwd-note\n"
                "    target: system\n"
                "    text: Work only inside {{harness.cwd}}.\n"
                "\n"
                "pkg/STYLE.yaml:8:28: warning var-no-default: `{{harness.cwd}}` may be empty; "
                'add `| default: "…"`'
            ),
            fix=('Give a default: `{{harness.cwd | default: "the project folder"}}`.'),
        ),
        _c(
            "budget-sum",
            "warning",
            "rules sharing a point could together exceed `per_event`",
            what=(
                "The inject and warn rules that can fire at one evaluation point (for the\n"
                "same tool) could together need more than `budget.per_event`, each counted at\n"
                "its worst case as for budget-rule."
            ),
            why=(
                "When they fire together at run time, whole outputs are dropped from the end\n"
                "(lowest priority first) until the total fits, so some of these rules would\n"
                "be silently left out."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "budget: {per_rule: 1900, per_event: 2000}\n"
                "rules:\n"
                "  - id: review-added\n"
                "    target: tool\n"
                "    tool: file.edit\n"
                '    text: "Review for unwrap(): {{event.tool.added}}"\n'
                "  - id: review-path\n"
                "    target: tool\n"
                "    tool: file.edit\n"
                '    text: "Check the path {{event.file.path}} against the layout guide."\n'
                "\n"
                "pkg/STYLE.yaml:11:5: warning budget-sum: rules at tool.post could together "
                "use 3617 tokens, over `budget.per_event` of 2000"
            ),
            fix=(
                "Raise `budget.per_event`, make the bodies smaller, or set `priority` so that\n"
                "the rule that matters most is the one kept."
            ),
        ),
        _c(
            "unknown-tool",
            "warning",
            "`tool` names no normalized tool",
            what=(
                "An entry of `tool` is neither a normalized tool name (`shell`, `file.read`,\n"
                "`file.write`, `file.edit`, `file.search`, `notebook.edit`, `web.fetch`,\n"
                "`web.search`, `agent`, `todo`, `other`) nor a glob such as `file.*`."
            ),
            why=(
                "Such an entry matches no call. It is usually a harness's native tool name\n"
                "(`Bash`, `Edit`), which belongs in `names`."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: shell-tips\n"
                "    target: tool\n"
                "    tool: Bash\n"
                "    text: Prefer trash over rm.\n"
                "\n"
                "pkg/STYLE.yaml:8:11: warning unknown-tool: `Bash` is a native tool name "
                "(match it with `names: [Bash]`); did you mean `shell`?"
            ),
            fix=(
                "Use the normalized name (`tool: shell`), or match the native name exactly\n"
                "with `names: [Bash]`. The message names the normalized tool a harness's\n"
                "native name stands for, or the close match of a misspelling (`shel`)."
            ),
        ),
        _c(
            "T005",
            "warning",
            "block reason over 40 tokens",
            what=(
                "A `block` rule's body, the reason the agent is given, is estimated at more\n"
                "than 40 tokens (more than 160 bytes of UTF-8; tokens are ceil(bytes / 4)).\n"
                "At `stop` and `subagent.stop` the history lists a reason names\n"
                "(`{{event.state.files_edited}}`: what is left to do) are not counted."
            ),
            why=(
                "When a block fires, no inject or warn output of that event is emitted, so\n"
                "the reason must stand alone. A short one (what is refused, what to do\n"
                "instead) is read and followed; several matching reasons are also joined into\n"
                "one."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: no-destroy\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: block\n"
                "    when: 'tool.input.command shell_regex r\"^terraform( -\\S+)* destroy( |$)\"'\n"
                "    text: Destroying infrastructure takes down what every other team runs on, "
                "so it is not done from an agent session here. Plan the change and let a "
                "person apply it, or ask the platform team.\n"
                "\n"
                "pkg/STYLE.yaml:11:11: warning T005: block reason of `no-destroy` is "
                "about 46 tokens; keep it under 40"
            ),
            fix=(
                "State what is refused and what to do instead in one or two short sentences\n"
                "(`Do not run terraform destroy here; let a person apply it.`) and move the\n"
                "background to `reason`, which is for maintainers and never sent."
            ),
        ),
        _c(
            "T006",
            "warning",
            "uses `harness.session_id` / `harness.turn_id`",
            what=(
                "A body or `model_text` uses `{{harness.session_id}}` or\n`{{harness.turn_id}}`."
            ),
            why=(
                "Dedup compares rendered output. An id that changes between turns or sessions\n"
                "makes each rendering new, so `repeat` no longer suppresses repeats, and the\n"
                "id spends tokens without telling the model anything it can use."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: trace-note\n"
                "    target: system\n"
                "    text: 'Tag commits with session {{harness.session_id | default: \"none\"}}.'\n"
                "\n"
                "pkg/STYLE.yaml:8:37: warning T006: `{{harness.session_id}}` changes on every "
                "event and defeats dedup"
            ),
            fix=(
                "Remove the id from the body. To relate outputs to sessions, use\n"
                "`style audit`, which records the session and turn of every emission."
            ),
        ),
        _c(
            "T007",
            "warning",
            "repeated inject without `reason`",
            what=(
                "An `inject` rule repeats (`repeat: every`, `repeat: turn`, or a positive\n"
                "`refresh`) and has no `reason`."
            ),
            why=(
                "A repeated injection spends tokens again on every turn it fires. The\n"
                "`reason` (for maintainers, never sent to the model) records why that is\n"
                "worth it, so the rule can be reviewed later."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: per-turn\n"
                "    target: event\n"
                "    event: prompt.submitted\n"
                "    repeat: turn\n"
                "    text: State assumptions before acting.\n"
                "\n"
                "pkg/STYLE.yaml:6:5: warning T007: rule `per-turn` injects repeatedly; add a "
                "`reason` saying why"
            ),
            fix=(
                "Add a `reason`, e.g.\n"
                "`reason: The model drifts into unstated assumptions on long tasks.`, or keep\n"
                "the default `repeat: session`."
            ),
        ),
        # -- codes STYLE adds to the specification's table ---------------------------------
        _c(
            "field-never-present",
            "warning",
            "condition field that no tool of the rule ever carries",
            what=(
                "A condition reads something no tool of the rule carries on any harness:\n"
                "`tool.input.<key>` where the native input of every tool the rule covers\n"
                "(on every harness that has the tool, or those of `when.harness`) has no\n"
                "`<key>`, or `shell_regex` (which matches the shell commands a call runs,\n"
                "whatever field it names) on a rule whose tools are not `shell`. Input keys\n"
                "are checked only where each harness's tool input is documented: `shell` on\n"
                "all four harnesses, and Claude Code's file, web and agent tools."
            ),
            why=(
                "Such a test never holds, so a rule that needs it can never fire: a guard\n"
                "that looks in place and blocks nothing. It is usually a misspelled key\n"
                "(`comand`) or a rule attached to the wrong tool. It is a warning, not an\n"
                "error like `field-unavailable`, because a harness release may add a key."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: no-force-push\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: block\n"
                "    when: 'tool.input.comand contains \"--force\"'\n"
                "    text: Force push is not allowed.\n"
                "\n"
                "pkg/STYLE.yaml:10:12: warning field-never-present: rule `no-force-push` can "
                "never fire: its tools (shell) never carry `tool.input.comand`; did you mean "
                "`tool.input.command`?"
            ),
            fix=(
                "Use the key the tool sends (here `tool.input.command`), or better for shell\n"
                "commands `shell_regex`, which matches what the shell will run; for a file\n"
                "path use `file.path`, which every file tool fills in on every harness."
            ),
        ),
        _c(
            "model-unknown-at-start",
            "warning",
            "rule reads the model at session.start",
            what=(
                "A rule evaluated at `session.start` reads the model: `when.model`, a `model`\n"
                "condition or `{{model}}` in its text."
            ),
            why=(
                "Claude Code and Gemini CLI send no model in any hook payload; STYLE reads it\n"
                "from the session's transcript, which has no answer yet when a new session\n"
                "starts. There the model is `unknown`: a `when.model` rule does not fire at\n"
                "a new session's start, and `{{model}}` renders its default. Codex and Cursor\n"
                "name the model in the payload. `style plan` notes the rules it concerns."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: opus-brief\n"
                "    when:\n"
                '      model: "claude-opus-*"\n'
                "    text: Keep answers short; this model writes long ones.\n"
                "\n"
                "pkg/STYLE.yaml:8:14: warning model-unknown-at-start: rule `opus-brief` reads "
                "the model at session.start, where Claude Code and Gemini CLI do not name it "
                "yet: there it is `unknown` when a session starts"
            ),
            fix=(
                "Put the rule where the model is known: on a tool event (`target: tool`),\n"
                "which comes after the model's first answer; or accept that at session.start\n"
                "it fires there only on resume, clear and compaction."
            ),
        ),
        _c(
            "fix-not-block",
            "error",
            "`fix` on a rule that is not a `block` rule on shell calls",
            what=(
                "A rule carries `fix:` but is not `action: block` with `target: tool` and\n"
                "`tool: shell`, or its `fix` is not a mapping of exactly `replace` (a\n"
                "non-empty RE2 pattern) and `with` (the replacement text)."
            ),
            why=(
                "A fix rewrites the simple commands a refusing rule matched into a command\n"
                "that passes the whole policy. Only a refused shell call has such a\n"
                "command: an `ask` is the person's to answer, and a file edit or a prompt\n"
                "has no command line to rewrite."
            ),
            example=(
                "rules:\n"
                "  - id: lease-not-force\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: ask\n"
                "    when: 'tool.input.command shell_regex \"^git push .*--force( |$)\"'\n"
                "    fix: {replace: '--force( |$)', with: '--force-with-lease\\1'}\n"
                "    text: Force-push with a lease."
            ),
            fix=(
                "Make the rule `action: block` on `tool: shell`, and write the fix as\n"
                "`fix: {replace: PATTERN, with: TEXT}`."
            ),
        ),
        _c(
            "fix-rewrite",
            "error",
            "the `with` of a fix names a group its pattern lacks, or RE2 rejects it",
            what=(
                "The replacement text of a `fix` refers to a capture group its `replace`\n"
                "pattern does not have (`\\2` with one group), or has a backslash that RE2\n"
                "does not take: in the replacement, `\\0` to `\\9` name the match and its\n"
                "groups and `\\\\` is one backslash; nothing else may follow a backslash."
            ),
            why=(
                "The fix is applied by RE2 in the rules database while the agent waits. A\n"
                "replacement RE2 cannot apply would turn every matching refusal into an\n"
                "error, so it is caught when the package is validated, at the character."
            ),
            example=(
                "rules:\n"
                "  - id: lease-not-force\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: block\n"
                "    when: 'tool.input.command shell_regex \"^git push .*--force( |$)\"'\n"
                "    fix: {replace: '--force( |$)', with: '--force-with-lease\\2'}\n"
                "    text: Force-push with a lease."
            ),
            fix=(
                "Count the groups of `replace`: `--force( |$)` has one, so the replacement\n"
                "can use `\\1` (and `\\0`, the whole match) only."
            ),
        ),
        _c(
            "no-grammar",
            "warning",
            "a command condition names a program STYLE has no grammar for",
            what=(
                'A `command "…"` condition names a program that none of STYLE\'s program\n'
                "grammars describes (`agentstyle/commands/programs/`)."
            ),
            why=(
                "Without a grammar STYLE cannot know which of the program's words are\n"
                "subcommands, which options take a value, or which operands are files. It\n"
                "reads the words with a generic split: `--name=value` and `--name` are\n"
                "options, a cluster `-abc` counts as `-a`, `-b` and `-c` too, the word after\n"
                "an option is both its possible value and an operand, the first words that\n"
                "are not options are also the command's name (`deploy.sh prod`), and every\n"
                "operand may be a path. The rule works; it cannot tell an option's value\n"
                "from an operand as a grammar would."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: no-prod-deploy\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: ask\n"
                "    when: 'command \"deploy.sh prod\"'\n"
                "    text: Deploying to production needs a person.\n"
                "\n"
                "pkg/STYLE.yaml:10:12: warning no-grammar: no grammar for `deploy.sh`: STYLE "
                "reads its options and operands with the generic split"
            ),
            fix=(
                "Nothing, if the generic reading suits the program (docs/writing-a-guard.md\n"
                "shows how to test it). A grammar for the program is a file under\n"
                "`agentstyle/commands/programs/` (docs/design/commands.md#grammars)."
            ),
        ),
        _c(
            "unknown-option",
            "warning",
            "a command condition names an option the program's grammar does not have",
            what=(
                '`option "NAME"` inside `command "…" where ( … )` names an option that the\n'
                "program's grammar has in none of the spellings it knows, for that command\n"
                "or any of its subcommands."
            ),
            why=(
                "A misspelled option (`--froce`) never matches, so the rule never fires on\n"
                "the calls it was written for. The grammar knows each option's spellings\n"
                "(`-f` and `--force` are one option); a name it does not know is most\n"
                "often a typo, or an option of another subcommand."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: no-clean\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: block\n"
                '    when: \'command "git clean" where (option "--froce")\'\n'
                "    text: Do not delete untracked files; list them with `git clean -n` first.\n"
                "\n"
                "pkg/STYLE.yaml:10:39: warning unknown-option: `git clean` has no option "
                "`--froce` in its grammar; did you mean `--force`?"
            ),
            fix=(
                "Spell the option as the program does; any of its spellings will do\n"
                "(`style explain` prints the canonical names a call's options get)."
            ),
        ),
        _c(
            "unknown-subcommand",
            "warning",
            "a command condition names a subcommand the program's grammar does not have",
            what=(
                '`command "WORDS"` names a program and subcommand words, and the program\'s\n'
                "grammar has no subcommand of that name where it is written."
            ),
            why=(
                "The condition holds only where a command's program and leading subcommand\n"
                "words are the ones named, so a misspelled subcommand (`git cleen`) never\n"
                "holds."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "rules:\n"
                "  - id: no-clean\n"
                "    target: tool\n"
                "    tool: shell\n"
                "    action: block\n"
                '    when: \'command "git cleen" where (option "--force")\'\n'
                "    text: Do not delete untracked files; list them with `git clean -n` first.\n"
                "\n"
                "pkg/STYLE.yaml:10:12: warning unknown-subcommand: `git` has no subcommand "
                "`cleen` in its grammar; did you mean `clean`?"
            ),
            fix="Spell the subcommand as the program does.",
        ),
        _c(
            "exception-target",
            "warning",
            "an exception names a rule it cannot narrow",
            what=(
                "An `exceptions:` entry names a rule (`package/rule`) that is not installed\n"
                "with it, or a rule of a stronger layer than the exception's own package\n"
                "(a project package cannot narrow the user's or the managed policy's rules;\n"
                "a user package cannot narrow the managed policy's)."
            ),
            why=(
                "An exception only narrows a rule compiled with it. One whose rule is missing\n"
                "(a typo in the id, a package installed without the guard it excepts) does\n"
                "nothing, and one aimed at a stronger layer must not: that layer's rules\n"
                "hold whatever a weaker layer says."
            ),
            example=(
                "spec: style/v0.3\n"
                "name: pkg\n"
                "version: 1.0.0\n"
                "description: example\n"
                "exceptions:\n"
                "  - rule: guard-destructive/rm-outside-projet\n"
                '    unless: \'command "rm" where (path glob "/opt/build-cache/**")\'\n'
                "    reason: The build cache is ours to clear.\n"
                "\n"
                "pkg/STYLE.yaml:6:11: warning exception-target: exception for "
                "`guard-destructive/rm-outside-projet`: package `guard-destructive` has no rule "
                "`rm-outside-projet`; did you mean `rm-outside-project`?"
            ),
            fix=(
                "Name the rule as `style plan` lists it (`package/rule`), install the package\n"
                "it belongs to beside the exception, or ask whoever owns the stronger layer\n"
                "for the exception there."
            ),
        ),
    )
}


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
