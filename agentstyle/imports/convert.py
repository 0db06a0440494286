"""Import candidates: one converted rule each, rendered as a rule file that maps back to its source.

The formats (tabular rows here, markdown-like files in `importer_formats`) all produce the same
`Candidate`: the rule file's front matter fields and body, where each came from in the source,
and the reasons it cannot be imported. `render` turns a candidate into the exact bytes of its
rule file and a line map, so a diagnostic the real loader reports on the generated file points
back at the source row or line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic
from agentstyle.policy.manifest import id_problem
from agentstyle.vocabulary import RULE_FIELDS

IMPORT_ROOT = "rules/imported"
# Rule fields a rule file may set, in reading order: where it runs, what it does, when.
_LEAD = ("target", "tool", "names", "mcp", "skill", "event", "action", "at", "when", "repeat")
FRONT_FIELDS = _LEAD + tuple(
    k for k in RULE_FIELDS if k not in (*_LEAD, "id", "text", "file", "from")
)
# Columns with their own meaning, or none in a rule file (docs/packages.md#rule-files).
NOT_IMPORTABLE = {
    "file": "`file` bodies cannot be imported; put the body in the `text` column",
    "from": "`from` selects rule files in STYLE.yaml; it is not a field of one rule",
}
_INT = re.compile(r"^[+-]?[0-9]+$")


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a row is rejected (or what to know about it), located in the source."""

    message: str
    file: str
    line: int | None = None
    code: str | None = None  # a diagnostic code of the registry, None for the importer's own
    level: str = "error"
    column: str | None = None  # the CSV column or front matter key the problem is in

    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file

    def render(self) -> str:
        head = f"{self.level} {self.code}: " if self.code else f"{self.level}: "
        tail = f" (column `{self.column}`)" if self.column and self.code else ""
        return f"{self.where()}: {head}{self.message}{tail}"

    def to_json(self) -> dict[str, Any]:
        return json_fields(self, "code", "level", "message", "file", "line", "column")


def json_fields(obj: object, *names: str) -> dict[str, Any]:
    """The attributes `names` of `obj` as a JSON object's members, in that order."""
    return {name: getattr(obj, name) for name in names}


@dataclass(slots=True)
class Origin:
    """Where a generated value came from: a source file line and, for rows, a column."""

    line: int | None
    column: str | None = None


@dataclass(slots=True, eq=False)
class Candidate:
    """One source rule converted to a rule file of `rules/imported/<format>/`."""

    source: str  # display path of the source file
    line: int | None  # the row's first line, or 1 for a whole file
    label: str  # how the report names it: `rules.csv:4`, `.omp/rules/no-unwrap.md`
    id: str | None  # the id under `rules/imported/<format>/`
    fields: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    origins: dict[str, Origin] = field(default_factory=dict)  # field → where it was written
    body_origin: Origin | None = None  # first line of the body in the source
    raw: bytes | None = None  # markdown: the file is copied as it is
    comment: str | None = None  # provenance line at the top of the front matter
    problems: list[Reason] = field(default_factory=list)
    notes: list[Reason] = field(default_factory=list)
    # Filled by `render`.
    rel: str = ""
    data: bytes = b""
    line_map: list[tuple[int, int, Origin]] = field(default_factory=list)

    def reject(self, message: str, *, line: int | None = None, code: str | None = None) -> None:
        self.problems.append(
            Reason(message, self.source, line if line is not None else self.line, code)
        )

    def note(self, message: str, *, line: int | None = None) -> None:
        self.notes.append(
            Reason(message, self.source, line if line is not None else self.line, level="note")
        )

    def set(self, name: str, value: Any, origin: Origin | None = None) -> None:
        self.fields[name] = value
        self.origins[name] = origin or Origin(self.line)

    @property
    def ok(self) -> bool:
        return not self.problems

    def origin_of(self, gen_line: int) -> Origin:
        """The source origin of a line of the generated file."""
        for first, last, origin in self.line_map:
            if first <= gen_line <= last:
                return origin
        return Origin(self.line)


def rule_id(fmt: str, cid: str) -> str:
    return f"{IMPORT_ROOT.removeprefix('rules/')}/{fmt}/{cid}"


def check_id(cand: Candidate, fmt: str) -> None:
    """`bad-id` for an id that cannot name a rule file (the loader would say the same)."""
    if cand.id is None:
        return
    problem = id_problem(cand.id)
    if problem is None:
        full = rule_id(fmt, cand.id)
        problem = id_problem(full)
        if problem is not None:
            cand.reject(f"rule id `{full}` {problem}", code=codes.BAD_ID)
        return
    cand.reject(f"rule id `{cand.id}` {problem}", code=codes.BAD_ID)


def _scalar(value: str | int | bool, *, in_flow: bool = False) -> str:
    """One YAML scalar: plain when that reads back as the same string, else quoted.

    Written by hand because PyYAML's emitter costs about a millisecond per value, and a large
    import has tens of thousands. What is written is read back by the real loader before
    anything reaches the package, so a wrong guess here is caught, never installed.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    plain = (
        _FLOW_PLAIN.fullmatch(value)
        if in_flow
        else _PLAIN_START.match(value) and not _PLAIN_SPECIAL.search(value)
    )
    if plain and not _RESOLVED.match(value):
        return value
    if not _NEEDS_ESCAPES.search(value):
        return "'" + value.replace("'", "''") + "'"
    # A JSON string is a YAML double-quoted scalar with the same escapes; YAML also breaks
    # lines at NEL, LS and PS, which JSON leaves as they are.
    quoted = json.dumps(value, ensure_ascii=False)
    return _YAML_BREAKS.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


# A plain scalar starts with a letter, digit or one of `_./(` and has no `: `, ` #`, control
# character, line break or trailing colon or space. In a flow list only names and globs are
# plain (`file.edit`, `file.*`).
_PLAIN_START = re.compile(r"^(?:[A-Za-z0-9_./(]|[^\x00-\x7f])")
_PLAIN_SPECIAL = re.compile(r": |:$| #|[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|\s$")
_FLOW_PLAIN = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./*-]*")
# Plain words YAML 1.1 reads as something other than a string (booleans, null, numbers).
_RESOLVED = re.compile(
    r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    r"|null|Null|NULL|~|[-+]?(?:[0-9][0-9_]*)?\.?[0-9][0-9_.:eE+-]*|\.inf|\.nan|\.Inf|\.NaN"
    r"|0x[0-9a-fA-F_]+|0o?[0-7_]+|0b[01_]+|=|<<)$"
)
# Characters YAML does not allow unescaped (or reads as line breaks) that JSON leaves alone.
_YAML_BREAKS = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")
_NEEDS_ESCAPES = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


def _yaml_line(name: str, value: Any) -> str:
    """`name: value` as YAML; a list of strings in flow style (`tool: [file.edit, file.write]`)."""
    if isinstance(value, str | int | bool):
        return f"{name}: {_scalar(value)}\n"
    if isinstance(value, list) and all(isinstance(v, str | int | bool) for v in value):
        return f"{name}: [{', '.join(_scalar(v, in_flow=True) for v in value)}]\n"
    options: dict[str, Any] = {"allow_unicode": True, "width": 1_000_000, "sort_keys": False}
    return str(yaml.safe_dump({name: value}, default_flow_style=False, **options))


def in_order(fields: dict[str, Any]) -> dict[str, Any]:
    """Front matter fields in `FRONT_FIELDS` order, whatever order they were set in."""
    return {k: fields[k] for k in FRONT_FIELDS if k in fields}


def render(cand: Candidate, fmt: str) -> None:
    """The rule file bytes of a valid candidate and the map of its lines to the source."""
    assert cand.id is not None
    cand.rel = f"{IMPORT_ROOT}/{fmt}/{cand.id}.md"
    if cand.raw is not None:
        cand.data = cand.raw
        # A copy: line N of the file is line N of the source.
        cand.line_map = [(1, 1 << 30, Origin(None))]
        return
    parts: list[str] = []
    line = 1
    line_map: list[tuple[int, int, Origin]] = []
    if cand.fields or cand.comment:
        parts.append("---\n")
        line += 1
        if cand.comment:
            parts.append(f"# {cand.comment}\n")
            line += 1
        for name, value in cand.fields.items():
            chunk = _yaml_line(name, value)
            count = chunk.count("\n")
            line_map.append((line, line + count - 1, cand.origins.get(name, Origin(cand.line))))
            parts.append(chunk)
            line += count
        parts.append("---\n")
        line += 1
    body = cand.body.strip("\n").rstrip()
    body_origin = cand.body_origin or Origin(cand.line, "text")
    if body_origin.line is not None and body_origin.column is None:
        # Body lines of a markdown source follow one another: keep the offset per line.
        for i in range(body.count("\n") + 1):
            line_map.append((line + i, line + i, Origin(body_origin.line + i)))
    else:
        line_map.append((line, line + body.count("\n"), body_origin))
    parts.append(body + "\n")
    cand.data = "".join(parts).encode("utf-8")
    cand.line_map = line_map


def relocate(diag: Diagnostic, cand: Candidate) -> Reason:
    """A diagnostic of the generated rule file, pointed at the candidate's source."""
    if cand.raw is not None:
        line = diag.span.line if diag.span is not None else cand.line
        return Reason(diag.message, cand.source, line, diag.code, diag.level)
    if diag.span is None:
        return Reason(diag.message, cand.source, cand.line, diag.code, diag.level)
    origin = cand.origin_of(diag.span.line)
    return Reason(
        diag.message,
        cand.source,
        origin.line if origin.line is not None else cand.line,
        diag.code,
        diag.level,
        origin.column,
    )


# -- tabular rows --------------------------------------------------------------------------------


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _drop_nulls(value: Any) -> Any:
    """Struct columns of JSON Lines are unified across rows: absent keys come back as null."""
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def _list_value(text: str) -> Any:
    """A list cell: a JSON array, or items separated by `|`."""
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            parsed = json.loads(stripped)
        except ValueError:
            return stripped  # not a list: the loader reports the type
        return parsed
    return [item.strip() for item in stripped.split("|") if item.strip()]


def cell_value(name: str, value: Any) -> Any:
    """A cell as the rule field's value; what cannot be converted is kept for the loader.

    Keeping the raw value (rather than rejecting here) means the row gets the loader's own
    diagnostic, with its code and message, for a value of the wrong type.
    """
    kind = RULE_FIELDS[name].kind
    if isinstance(value, dict | list):
        value = _drop_nulls(value)
    if not isinstance(value, str):
        if kind in ("list", "str-or-list") and isinstance(value, list) and len(value) == 1:
            return value if kind == "list" else value[0]
        if isinstance(value, float) and value.is_integer() and kind == "int":
            return int(value)
        return value
    text = value.strip()
    if kind == "bool":
        lowered = text.lower()
        return {"true": True, "false": False}.get(lowered, text)
    if kind == "int":
        return int(text) if _INT.match(text) else text
    if kind == "list":
        return _list_value(text)
    if kind == "str-or-list":
        items = _list_value(text)
        if isinstance(items, list) and len(items) == 1:
            return items[0]
        return items
    return text


def row_candidate(
    row: dict[str, Any], source: str, line: int | None, label: str, columns: list[str]
) -> Candidate | None:
    """The candidate of one table row; None for a row with no value at all (a blank line)."""
    if all(_is_empty(row.get(c)) for c in columns):
        return None
    cand = Candidate(source, line, label, None)
    raw_id = row.get("id")
    if _is_empty(raw_id):
        cand.reject("the row has no `id`", code=codes.INLINE_MISSING_ID)
    elif isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
        cand.reject(f"`id` must be a string, not `{raw_id}`", code=codes.BAD_ID)
    else:
        cand.id = str(raw_id).strip()
    for column in columns:
        value = row.get(column)
        if column in ("id",) or _is_empty(value):
            continue
        if column == "text":
            cand.body = value if isinstance(value, str) else str(value)
            cand.body_origin = Origin(line, "text")
            continue
        if column in NOT_IMPORTABLE:
            cand.reject(NOT_IMPORTABLE[column], code=codes.INVALID_SCHEMA)
            continue
        if column not in RULE_FIELDS:
            cand.reject(
                f"unknown rule field `{column}` (column `{column}`)", code=codes.INVALID_SCHEMA
            )
            continue
        cand.set(column, cell_value(column, value), Origin(line, column))
    if _is_empty(row.get("text")):
        cand.reject("the row has no `text` (the rule body)", code=codes.EMPTY_BODY)
    # Front matter in the order of docs/rules.md, whatever the column order.
    cand.fields = in_order(cand.fields)
    return cand
