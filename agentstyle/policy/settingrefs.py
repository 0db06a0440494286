"""Settings in conditions: the `settings.*` a predicate's value uses, checked and filled in.

A setting is used in `when` in two ways: as the whole value (`tool.name in settings.tools`, or
`value: "{{settings.tools}}"` in the mapping form) or inside a string
(`shell_regex "^git push .* ({{settings.protected_branches}})( |$)"`). Either way the value is
fixed at install, when the rule is lowered into rows: the database never sees a reference.

A value goes in as the language of its operator reads it, the one rule STYLE follows:
- regex operators (`regex`, `not_regex`, `shell_regex`): as a regex, grouped `(?:…)`, so that
  `main|master` stays one alternative inside the pattern; a list setting becomes
  `(?:a|b)` of its items, each a regex. Inside RE2's literal quote, `\\Q{{settings.x}}\\E`,
  the value is literal text instead (a list: literal alternatives);
- glob operators: as glob text; a list setting becomes `{a,b}`;
- every other operator: as literal text; a list setting only as the whole value of `in`.
A `list` setting holds strings without commas (`--set tools=shell,file.edit`); an `int`
setting is a number where the operator compares numbers. A `pattern` setting is a regex that
may itself use other settings (`({{settings.program_path}}…|{{settings.script_paths}})`),
filled in as a regex condition fills them (`composed`), so a fragment many conditions share is
written once and named; it goes only into a pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agentstyle.grammar.ast import Item, Pred, SettingRef, Value
from agentstyle.policy.model import SettingDecl
from agentstyle.source import Span
from agentstyle.vocabulary import GLOB_OPS, NUMERIC_OPS, REGEX_OPS

# `{{settings.NAME}}` (and any other `{{name}}`, reported when it names a known variable).
EMBEDDED = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*(\|[^}]*)?\}\}")
WHOLE = re.compile(r"\{\{\s*settings\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
# A regex that matches nothing (an empty list of alternatives): a boundary that is not one.
NOTHING = r"\b\B"
LIST_TYPE = "list"
PATTERN_TYPE = "pattern"


@dataclass(frozen=True, slots=True)
class Setting:
    """A setting's type and value as installed (a list as its items joined by `, `)."""

    type: str
    text: str

    def items(self) -> list[str]:
        return split_list(self.text) if self.type == LIST_TYPE else [self.text]


@dataclass(frozen=True, slots=True)
class Use:
    """One reference: the setting's name, and where: a SettingRef's own span, or the offset of
    `{{` in the string (the list item `item` of a list value, else the value itself)."""

    name: str
    ref: SettingRef | None = None
    offset: int = 0
    item: int | None = None
    filtered: bool = False  # `{{settings.x | default: …}}`: filters are for bodies


class SettingProblem(Exception):
    """A setting used where its type cannot go (a list inside `contains`, a string as `gt`)."""

    def __init__(self, message: str, use: Use) -> None:
        super().__init__(message)
        self.message = message
        self.use = use


def split_list(text: str) -> list[str]:
    """The items of a list setting's text: `a, b,c` → `[a, b, c]` (blank items dropped)."""
    return [item.strip() for item in text.split(",") if item.strip()]


def list_text(items: list[str]) -> str:
    return ", ".join(items)


def setting_text(setting_type: str, value: object) -> str:
    """A setting value as it is rendered, recorded and filled in: YAML's spelling of booleans,
    a list as its items joined by `, ` (from a YAML list or from `--set name=a,b`)."""
    if setting_type == LIST_TYPE:
        if isinstance(value, list):
            return list_text([str(v).strip() for v in value if str(v).strip()])
        return list_text(split_list("" if value is None else str(value)))
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def embedded(text: str) -> list[tuple[int, str, bool]]:
    """`{{name}}` references in a string: (offset, name, has a filter)."""
    return [(m.start(), m.group(1), m.group(2) is not None) for m in EMBEDDED.finditer(text)]


def uses(value: Value) -> list[Use]:
    """Every setting reference of a predicate's value, in order."""
    out: list[Use] = []
    items = value if isinstance(value, tuple) else (value,)
    for index, item in enumerate(items):
        at = index if isinstance(value, tuple) else None
        if isinstance(item, SettingRef):
            out.append(Use(item.name, item, item=at))
        elif isinstance(item, str):
            for offset, name, filtered in embedded(item):
                if name.startswith("settings."):
                    out.append(Use(name[len("settings.") :], None, offset, at, filtered))
    return out


def placeholder(setting_type: str) -> Setting:
    """A stand-in for a setting without a default, to check the pattern around it."""
    return Setting(setting_type, "0" if setting_type == "int" else "x")


def resolve(pred: Pred, settings: Mapping[str, Setting]) -> Value:
    """The predicate's value with every setting filled in (see the module docstring).

    Raises SettingProblem where a setting's type does not fit its place; KeyError for a
    setting that has no value (the caller checked declarations first).
    """
    op, value = pred.op, _whole(pred.value, pred)
    if isinstance(value, tuple):
        out: list[Item] = []
        for index, written in enumerate(value):
            item = _whole_item(written, pred)
            if isinstance(item, SettingRef):
                out.extend(settings[item.name].items())
            elif isinstance(item, str):
                out.append(_fill(op, item, settings, index))
            else:
                out.append(item)
        return tuple(out)
    if isinstance(value, SettingRef):
        setting = settings[value.name]
        use = Use(value.name, value)
        if op == "in":
            if setting.type != LIST_TYPE:
                raise SettingProblem(
                    f"operator `in` needs a list; setting `{value.name}` is a {setting.type}"
                    " (declare it `type: list`)",
                    use,
                )
            return tuple(setting.items())
        if op in NUMERIC_OPS:
            if setting.type != "int":
                raise SettingProblem(
                    f"operator `{op}` needs a number; setting `{value.name}` is a {setting.type}",
                    use,
                )
            return int(setting.text)
        return _insert(op, setting, use)
    if isinstance(value, str):
        return _fill(op, value, settings, None)
    return value


def _whole(value: Value, pred: Pred) -> Value:
    """A string that is exactly `{{settings.x}}` is the setting itself (a list stays a list:
    the mapping form's `value: "{{settings.branches}}"` for `in`)."""
    if isinstance(value, str):
        m = WHOLE.fullmatch(value)
        if m is not None:
            return SettingRef(m.group(1), pred.span)
    return value


def _whole_item(item: Item, pred: Pred) -> Item:
    whole = _whole(item, pred)
    return whole if isinstance(whole, SettingRef) else item


def _fill(op: str, text: str, settings: Mapping[str, Setting], item: int | None) -> str:
    parts: list[str] = []
    last = 0
    for m in EMBEDDED.finditer(text):
        name = m.group(1)
        if not name.startswith("settings."):
            continue
        use = Use(name[len("settings.") :], None, m.start(), item, m.group(2) is not None)
        if use.filtered:
            raise SettingProblem(
                f"`{m.group(0)}`: a condition uses the setting's value; filters are for bodies",
                use,
            )
        parts.append(text[last : m.start()])
        quoted = op in REGEX_OPS and _inside_quote(text[: m.start()])
        parts.append(
            _quoted(settings[use.name]) if quoted else _insert(op, settings[use.name], use)
        )
        last = m.end()
    parts.append(text[last:])
    return "".join(parts)


def _inside_quote(before: str) -> bool:
    """Whether a regex text ends inside RE2's literal quote `\\Q…` (no `\\E` since)."""
    return before.rfind("\\Q") > before.rfind("\\E")


def _literal(text: str) -> str:
    # Inside `\Q…\E` every character is literal except the `\E` that ends the quote.
    return text.replace("\\E", "\\E\\\\E\\Q")


def _quoted(setting: Setting) -> str:
    """A setting inside `\\Q…\\E`: its text literally; a list as literal alternatives,
    `\\E(?:\\Qa\\E|\\Qb\\E)\\Q`, since `|` inside the quote would be a character."""
    if setting.type != LIST_TYPE:
        return _literal(setting.text)
    items = setting.items()
    if not items:
        return f"\\E(?:{NOTHING})\\Q"
    return "\\E(?:" + "|".join(f"\\Q{_literal(i)}\\E" for i in items) + ")\\Q"


def _insert(op: str, setting: Setting, use: Use) -> str:
    """A setting's value as text of the operator's language."""
    if setting.type == PATTERN_TYPE and op not in REGEX_OPS:
        raise SettingProblem(
            f"pattern setting `{use.name}` can only go into a regex, not a value of `{op}`", use
        )
    if op in REGEX_OPS:
        items = setting.items()
        return f"(?:{'|'.join(items)})" if items else f"(?:{NOTHING})"
    if op in GLOB_OPS:
        items = setting.items()
        if setting.type != LIST_TYPE:
            return setting.text
        if not items:
            raise SettingProblem(f"list setting `{use.name}` is empty; a glob needs an item", use)
        return items[0] if len(items) == 1 else "{" + ",".join(items) + "}"
    if setting.type == LIST_TYPE:
        raise SettingProblem(
            f"list setting `{use.name}` can only be the whole value of `in` or part of a "
            f"pattern, not a value of `{op}`",
            use,
        )
    return setting.text


def pattern_uses(text: str) -> list[tuple[int, str]]:
    """The settings a pattern setting's value uses: (offset of `{{`, name)."""
    return [
        (offset, name[len("settings.") :])
        for offset, name, _filtered in embedded(text)
        if name.startswith("settings.")
    ]


def composed(settings: Mapping[str, Setting]) -> dict[str, Setting]:
    """The settings with each `pattern` setting's own `{{settings.NAME}}` filled in, as a
    regex condition fills them (a pattern setting may use another). A name without a value,
    or a pattern that uses itself, is filled in as a stand-in: `pattern_problems` says what is
    wrong, and the manifest reports it at the setting (manifest.py)."""
    done: dict[str, Setting] = {n: s for n, s in settings.items() if s.type != PATTERN_TYPE}

    def fill(name: str, path: tuple[str, ...]) -> Setting:
        if name in done:
            return done[name]
        if name in path or name not in settings:
            return placeholder("string")
        text = settings[name].text
        values = {used: fill(used, (*path, name)) for _offset, used in pattern_uses(text)}
        done[name] = Setting(PATTERN_TYPE, _fill("regex", text, values, None))
        return done[name]

    for name in settings:
        fill(name, ())
    return done


def declared(decls: Iterable[SettingDecl]) -> dict[str, Setting]:
    """The declared settings at their defaults, one without a default as a stand-in; compose
    them (`composed`) for what a package's conditions are checked with before install."""
    return {
        d.name: Setting(d.type, setting_text(d.type, d.default))
        if d.has_default
        else placeholder(d.type)
        for d in decls
    }


def pattern_problems(settings: Mapping[str, Setting]) -> dict[str, str]:
    """What is wrong with the pattern settings' own uses: setting name → message (a setting
    not declared, or a pattern that uses itself, directly or through others)."""
    problems: dict[str, str] = {}

    def walk(root: str, path: tuple[str, ...]) -> None:
        for _offset, used in pattern_uses(settings[path[-1]].text):
            if used not in settings:
                problems.setdefault(root, f"uses undeclared setting `{used}`")
            elif used in path:
                problems.setdefault(root, "uses itself: " + " → ".join((*path, used)))
            elif settings[used].type == PATTERN_TYPE:
                walk(root, (*path, used))

    for name, setting in settings.items():
        if setting.type == PATTERN_TYPE:
            walk(name, (name,))
    return problems


def fill_pattern(pattern: str, settings: Mapping[str, Setting]) -> str:
    """A `redact` pattern with its `{{settings.NAME}}` filled in as a `regex` condition's are
    (a list setting as `(?:a|b)` of its items): a list of secret names written once, as a
    setting a team can extend at install (docs/actions.md#redact). A group in a setting's
    value is made non-capturing, so that it cannot move the groups `with` names (`\\2`)."""
    plain = {
        name: Setting(s.type, list_text([uncaptured(i) for i in s.items()]))
        if s.type == LIST_TYPE
        else Setting(s.type, uncaptured(s.text))
        for name, s in settings.items()
    }
    return str(resolve(Pred("tool.output", "regex", pattern, Span("")), plain))


def uncaptured(regex: str) -> str:
    """`regex` with each capturing group `(` made `(?:`; escapes and classes left alone."""
    out: list[str] = []
    escaped = in_class = False
    for i, ch in enumerate(regex):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(" and not regex.startswith("?", i + 1):
            out.append("(?:")
            continue
        out.append(ch)
    return "".join(out)
