"""hookify rule files (`.claude/hookify.*.local.md`, Anthropic's Claude Code plugin) as STYLE rules.

A hookify rule names an `event` (bash, file, stop, prompt, all), a legacy `pattern` or a list of
`conditions` (field, operator, pattern; all must hold), an `action` (warn, the default, or
block) and `enabled`; its markdown body is the message. The front matter is read the way
hookify's own loader reads it (a line-based subset of YAML: quotes stripped, no escapes), so a
value means here what it does there; where hookify's code and its documentation part (a
Write's `new_text`, a prompt's field), the documented meaning is imported:

- `bash` → a `shell` tool rule, `file` → `file.edit` and `file.write` (Edit, MultiEdit, Write),
  both `at: before`; `prompt` → `prompt.submitted`; `stop` → `stop`;
- `command` → `tool.input.command` (the whole command line, as hookify reads it), `file_path`
  → `tool.input.file_path` (absolute, as hookify reads it), `new_text` → `tool.added`,
  `old_text` → `tool.input.old_string`, `content` → `tool.input.content`, `user_prompt` →
  `prompt`, any other field of a tool's input → `tool.input.<field>`;
- `regex_match` → `regex` with `(?i)` (hookify compiles case-insensitively); `contains`,
  `not_contains`, `equals`, `starts_with`, `ends_with` as they are (case-sensitive, as in
  hookify); a negated operator also needs the field present (hookify fails a condition whose
  field is missing);
- `block` refuses the call or sends the agent back at a stop; `warn` is a `warn` on every
  match; hookify shows a `block` rule at a prompt without blocking it, so that is a `warn`.

What hookify reads but STYLE cannot — the session transcript, `event: all` across payload
kinds, an unknown operator, a quoted pattern whose backslashes hookify and YAML read
differently — is rejected with the reason, never imported weaker or broader.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.imports.convert import Candidate, Origin, in_order
from agentstyle.imports.formats import escape_template, path_id, quote, quote_regex
from agentstyle.policy.files import MAX_FILE_BYTES, decode

# hookify event → (target, tool list or event name)
EVENTS: dict[str, tuple[str, Any]] = {
    "bash": ("tool", "shell"),
    "file": ("tool", ["file.edit", "file.write"]),
    "prompt": ("event", "prompt.submitted"),
    "stop": ("event", "stop"),
}
EVENT_TOOLS = {"bash": ("Bash",), "file": ("Edit", "Write", "MultiEdit")}
# The field a legacy `pattern` is matched against (hookify's loader, by event).
LEGACY_FIELD = {"bash": "command", "file": "new_text", "prompt": "user_prompt"}
FIELDS = {
    "bash": {"command": "tool.input.command"},
    "file": {
        "file_path": "tool.input.file_path",
        "new_text": "tool.added",
        "new_string": "tool.added",
        "old_text": "tool.input.old_string",
        "old_string": "tool.input.old_string",
        "content": "tool.input.content",
    },
    "prompt": {"user_prompt": "prompt", "prompt": "prompt"},
    "stop": {},
}
OPERATORS = {
    "regex_match": "regex",
    "not_regex_match": "not_regex",
    "contains": "contains",
    "not_contains": "not_contains",
    "equals": "equals",
    "starts_with": "starts_with",
    "ends_with": "ends_with",
}
NEGATED = frozenset({"not_regex", "not_contains"})
KNOWN = ("name", "enabled", "event", "pattern", "conditions", "action", "tool_matcher")
_INPUT_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HOOKIFY_FILE = re.compile(r"^hookify\.(.+)\.local\.md$")


# -- reading, as hookify's loader does -------------------------------------------------------------


@dataclass(slots=True)
class Front:
    """A hookify front matter: values as hookify reads them, the line of each key and item."""

    values: dict[str, Any] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    item_lines: list[int] = field(default_factory=list)  # the line of each `conditions` item
    quoted_escapes: list[tuple[str, int]] = field(default_factory=list)  # (key, line)


def _unquote(value: str, key: str, line: int, front: Front) -> str:
    # hookify strips every quote character at both ends and reads no escape: `"a\\s"` stays
    # `a\\s`, where YAML would read `a\s`.
    text = value.strip('"').strip("'")
    if text != value and "\\" in text:
        front.quoted_escapes.append((key, line))
    return text


def read_front(text: str) -> tuple[Front | None, str, int]:
    """(front matter, body, the body's first line) of a hookify rule file; None without one.

    hookify splits the file on its first two `---` and reads the part between line by line:
    `key: value` at the left edge, `key:` opening a list of `- item` lines (an item with `:`
    a mapping, continued by indented `key: value` lines; one with both `:` and `,` a mapping
    written on one line), `true`/`false` as booleans at the top level.
    """
    if not text.startswith("---"):
        return None, text, 1
    parts = text.split("---", 2)
    if len(parts) < 3:
        return None, text, 1
    front = Front()
    start_line = 1 + parts[0].count("\n")
    body_line = start_line + parts[1].count("\n")
    body = parts[2]
    lead = len(body) - len(body.lstrip())
    body_line += body[:lead].count("\n")
    key: str | None = None
    items: list[Any] | None = None
    item: dict[str, str] | None = None
    for n, line in enumerate(parts[1].split("\n")):
        lineno = start_line + n
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0 and ":" in line and not stripped.startswith("-"):
            if items is not None and key is not None:
                if item:
                    items.append(item)
                front.values[key] = items
            item, items = None, None
            name, value = (s.strip() for s in line.split(":", 1))
            front.lines[name] = lineno
            if not value:
                key, items = name, []
                continue
            key = name
            unquoted: Any = _unquote(value, name, lineno, front)
            if isinstance(unquoted, str) and unquoted.lower() in ("true", "false"):
                unquoted = unquoted.lower() == "true"
            front.values[name] = unquoted
        elif stripped.startswith("-") and items is not None:
            if item:
                items.append(item)
                item = None
            content = stripped[1:].strip()
            if key == "conditions":
                front.item_lines.append(lineno)
            if ":" in content and "," in content:
                one: dict[str, str] = {}
                for piece in content.split(","):
                    if ":" in piece:
                        k, v = piece.split(":", 1)
                        one[k.strip()] = _unquote(v.strip(), k.strip(), lineno, front)
                items.append(one)
            elif ":" in content:
                k, v = content.split(":", 1)
                item = {k.strip(): _unquote(v.strip(), k.strip(), lineno, front)}
            else:
                items.append(_unquote(content, key or "", lineno, front))
        elif indent > 2 and item is not None and ":" in line:
            k, v = stripped.split(":", 1)
            item[k.strip()] = _unquote(v.strip(), k.strip(), lineno, front)
    if items is not None and key is not None:
        if item:
            items.append(item)
        front.values[key] = items
    return front, body.strip(), body_line


# -- converting ----------------------------------------------------------------------------------


def _predicate(field_name: str, op: str, pattern: str) -> str:
    if op in ("regex", "not_regex"):
        return f"{field_name} {op} {quote_regex('(?i)' + pattern)}"
    return f"{field_name} {op} {quote(pattern)}"


def _condition(
    cand: Candidate, event: str, cond: Any, line: int | None
) -> str | None:  # the predicate, or None once rejected
    if not isinstance(cond, dict):
        cand.reject(
            f"a condition must be `field`, `operator` and `pattern`, not `{cond}`", line=line
        )
        return None
    name = str(cond.get("field", "")).strip()
    operator = str(cond.get("operator", "regex_match") or "regex_match").strip()
    pattern = str(cond.get("pattern", ""))
    if not name:
        cand.reject("a condition without a `field`", line=line)
        return None
    op = OPERATORS.get(operator)
    if op is None:
        cand.reject(
            f"operator `{operator}`: hookify knows regex_match, contains, equals, not_contains, "
            "starts_with and ends_with (and fails any other condition), so it has no STYLE "
            "operator",
            line=line,
        )
        return None
    target = FIELDS[event].get(name)
    if target is None and event == "stop":
        why = {
            "transcript": "STYLE does not read the session transcript at a hook (only the "
            "agent's last message, `response.text`); to require that tests ran, use a rule over "
            "the session's history (the `tests-before-stop` package)",
            "reason": "a Claude Code Stop event carries no `reason`: hookify reads it as empty",
        }.get(name, "a stop event carries no such field")
        cand.reject(f"stop condition on `{name}`: {why}", line=line)
        return None
    if target is None and event == "prompt":
        cand.reject(f"a prompt event has only `user_prompt`, not `{name}`", line=line)
        return None
    if target is None:
        if not _INPUT_KEY.match(name):
            cand.reject(f"`{name}` is not a field of a tool's input", line=line)
            return None
        target = f"tool.input.{name}"  # hookify reads any key of the tool's input by name
    predicate = _predicate(target, op, pattern)
    if op in NEGATED or (op == "equals" and not pattern):
        # hookify fails a condition whose field is missing, whatever the operator
        predicate = f"({target} exists and {predicate})"
    return predicate


def _tools(cand: Candidate, event: str, matcher: Any) -> list[str] | None:
    """The native tools a `tool_matcher` narrows the rule to, or None for the event's own."""
    if matcher is None or str(matcher).strip() in ("", "*"):
        return None
    names = [n.strip() for n in str(matcher).split("|") if n.strip()]
    own = EVENT_TOOLS.get(event, ())
    outside = [n for n in names if n not in own]
    if outside:
        cand.reject(
            f"`tool_matcher: {matcher}` names {', '.join(f'`{n}`' for n in outside)}, outside "
            f"the tools of `event: {event}`; hookify reaches them only through a quirk of its "
            "event filter: give the rule the event of those tools"
        )
        return None
    return names


def hookify_candidate(path: Path, display: str, cid: str) -> Candidate:
    """One hookify rule file as a candidate rule file."""
    cand = Candidate(display, 1, display, cid)
    try:
        size = path.stat().st_size
        raw = path.read_bytes() if size <= MAX_FILE_BYTES else None
    except OSError as exc:
        cand.reject(f"cannot read `{display}`: {(exc.strerror or str(exc)).lower()}")
        return cand
    if raw is None:
        cand.reject(f"`{display}` is {size} bytes, over the 256 KiB limit of a rule file")
        return cand
    text, problem = decode(raw, display)
    if text is None:
        assert problem is not None
        cand.reject(problem.message)
        return cand
    front, body, body_line = read_front(text)
    if front is None:
        cand.reject("no front matter: hookify skips a rule file that does not start with `---`")
        return cand
    values, lines = front.values, front.lines

    def at(key: str) -> int | None:
        return lines.get(key)

    name = str(values.get("name", "unnamed"))
    cand.comment = f"imported from {Path(display).name} (hookify rule {name}) by style import"
    for key in values:
        if key not in KNOWN:
            cand.note(f"`{key}` is not a hookify rule field; ignored (hookify ignores it too)",
                      line=at(key))  # fmt: skip
    for key, line in front.quoted_escapes:
        cand.reject(
            f"`{key}` is quoted and holds a backslash: hookify keeps it as written (`\\\\s` stays "
            "two characters) where YAML, and hookify's own docs, read an escape; write the "
            "pattern unquoted so it means one thing",
            line=line,
        )
    event = str(values.get("event", "all")).strip()
    if event == "all":
        cand.reject(
            "`event: all` (the default) runs at every hook — tool calls, prompts, stops — and "
            "reads each field from whatever payload comes; write one rule per event",
            line=at("event"),
        )
        return cand
    if event not in EVENTS:
        cand.reject(
            f"unknown event `{event}` (hookify's events: bash, file, stop, prompt, all)",
            line=at("event"),
        )
        return cand
    preds = _predicates(cand, event, front)
    if preds is None or not cand.ok:
        return cand
    action = _action(cand, event, values, at)
    target, selector = EVENTS[event]
    origin = Origin(at("event"))
    cand.set("target", target, origin)
    if target == "tool":
        names = _tools(cand, event, values.get("tool_matcher"))
        if not cand.ok:
            return cand
        if names is not None:
            cand.set("names", names, Origin(at("tool_matcher")))
        else:
            cand.set("tool", selector, origin)
    else:
        cand.set("event", selector, origin)
    cand.set("action", action, Origin(at("action") or at("event")))
    if target == "tool":
        cand.set("at", "before", origin)  # hookify checks again after the call: one verdict
    if action == "warn":
        cand.set("repeat", "every", Origin(at("action") or at("event")))  # hookify warns each time
    cand.set("when", " and ".join(preds), Origin(at("conditions") or at("pattern")))
    enabled = values.get("enabled", True)
    if enabled is False:
        cand.set("enabled", False, Origin(at("enabled")))
    elif enabled is not True:
        cand.note(
            f"`enabled: {enabled}` is not false, so hookify runs the rule", line=at("enabled")
        )
    if not body.strip():
        cand.reject("no message: the rule's body is empty")
        return cand
    cand.body = escape_template(body)
    cand.body_origin = Origin(body_line)
    cand.fields = in_order(cand.fields)
    return cand


def _predicates(cand: Candidate, event: str, front: Front) -> list[str] | None:
    """The rule's `when` parts, from its `conditions` or its legacy `pattern`; None when the
    candidate is rejected (a stop rule's pattern, neither written)."""
    values, lines = front.values, front.lines

    def at(key: str) -> int | None:
        return lines.get(key)

    conditions = values.get("conditions")
    pattern = values.get("pattern")
    preds: list[str] = []
    if isinstance(conditions, list) and conditions:
        if pattern:
            cand.note("`pattern` is ignored: the rule has `conditions` (as in hookify)",
                      line=at("pattern"))  # fmt: skip
        for i, cond in enumerate(conditions):
            where = front.item_lines[i] if i < len(front.item_lines) else at("conditions")
            predicate = _condition(cand, event, cond, where)
            if predicate is not None:
                preds.append(predicate)
    elif pattern:
        legacy = LEGACY_FIELD.get(event)
        if legacy is None:
            cand.reject(
                "a `pattern` on a stop rule is matched against a `content` field that stop "
                "events do not have, so hookify never fires it; importing it would add a rule "
                "the source does not enforce",
                line=at("pattern"),
            )
            return None
        if event == "prompt":
            cand.note(
                "hookify's loader matches a prompt rule's `pattern` against the prompt "
                "(`user_prompt`), as its docs and later releases do",
                line=at("pattern"),
            )
        cond = {"field": legacy, "operator": "regex_match", "pattern": str(pattern)}
        predicate = _condition(cand, event, cond, at("pattern"))
        if predicate is not None:
            preds.append(predicate)
    else:
        cand.reject("no `pattern` or `conditions`: hookify never fires a rule without one")
        return None
    return preds


def _action(
    cand: Candidate, event: str, values: dict[str, Any], at: Callable[[str], int | None]
) -> str:
    """`warn` or `block`, as hookify runs it (anything else warns; a prompt is never blocked)."""
    action = str(values.get("action", "warn")).strip() or "warn"
    if action not in ("warn", "block"):
        cand.note(f"`action: {action}`: hookify treats anything but `block` as `warn`",
                  line=at("action"))  # fmt: skip
        action = "warn"
    if action == "block" and event == "prompt":
        cand.note(
            "hookify shows a `block` rule's message at a prompt without blocking the prompt: "
            "imported as a warn",
            line=at("action"),
        )
        action = "warn"
    return action


def rule_files(path: Path, display: str) -> Iterator[tuple[Path, str, str]]:
    """(file, display, id) for a source argument: a rule file, or the `hookify.*.local.md` files
    of a folder (hookify reads `.claude/` of the project: a project folder is looked into)."""
    if path.is_file():
        m = _HOOKIFY_FILE.match(path.name)
        stem = m.group(1) if m else path.name.removesuffix(".md").removesuffix(".local")
        yield path, display, path_id(stem)
        return
    folder, shown = path, display
    if not any(folder.glob("hookify.*.local.md")) and (folder / ".claude").is_dir():
        folder = folder / ".claude"
        shown = f"{display.rstrip('/')}/.claude" if display not in ("", ".") else ".claude"
    for p in sorted(folder.glob("hookify.*.local.md")):
        m = _HOOKIFY_FILE.match(p.name)
        assert m is not None
        yield p, f"{shown.rstrip('/')}/{p.name}", path_id(m.group(1))
