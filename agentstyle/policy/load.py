"""Load a package (directory or single file) into plain data, collecting every load diagnostic."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.diagnostics import Diagnostic, StyleError, closest, did_you_mean, suggestion
from agentstyle.globs import glob_to_regex
from agentstyle.harnesses.facts import SUPPORTED, spec_for
from agentstyle.policy.files import (
    MAX_RULE_FILES,
    PackageFile,
    list_rule_files,
    read_package_file,
)
from agentstyle.policy.model import (
    ExceptionDecl,
    FieldValue,
    NativeHook,
    Package,
    Rule,
    SettingDecl,
)
from agentstyle.policy.yamlpos import YamlError, YMap, YNode, YSeq, load_yaml, text_node
from agentstyle.source import Span
from agentstyle.vocabulary import (
    DEFAULT_BUDGET,
    DEFAULT_PACKAGE_PRIORITY,
    DEFAULTABLE_FIELDS,
    EVENTS,
    EXCEPTION_FIELDS,
    INLINE_ONLY_FIELDS,
    PACKAGE_FIELDS,
    REQUIRED_PACKAGE_FIELDS,
    RULE_FIELDS,
    SPEC_VERSION,
    FieldType,
)

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
VERSION_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$"
)
ID_RE = re.compile(r"^[a-z0-9][a-z0-9_./-]{0,127}$")
SETTING_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
HARNESSES = SUPPORTED
MARKER = "<!-- style:"
# The origin of a field whose value failed its type check: kept so that the validator knows
# the field was written (and reported), while `rules.effective` uses the default instead.
INVALID = "invalid"
SETTING_TYPES = ("string", "int", "bool", "enum", "list")
SETTING_FIELDS = ("name", "default", "description", "type", "values")
NATIVE_HOOK_FIELDS = ("id", "event", "matcher", "command", "timeout", "harness")
REQUIRES_FIELDS = ("harnesses", "packages")


@dataclass(slots=True)
class LoadResult:
    package: Package | None
    diagnostics: list[Diagnostic] = field(default_factory=list)


def id_problem(value: Any) -> str | None:
    """Why `value` is not a valid rule id, or None."""
    if not isinstance(value, str):
        return "must be a string"
    if ".." in value:
        return "must not contain `..`"
    if "//" in value:
        return "must not contain `//`"
    if value.endswith("/"):
        return "must not end with `/`"
    if not ID_RE.match(value):
        return "must match `^[a-z0-9][a-z0-9_./-]{0,127}$`"
    return None


def bad_id(node: YNode, problem: str) -> Diagnostic:
    shown = node.value if isinstance(node.value, str) else node.source_text() or node.value
    return Diagnostic.make("bad-id", f"rule id `{shown}` {problem}", node.span).hinted(
        quote_hint(node)
    )


def _shown(value: Any) -> str:
    """A value as YAML would spell it (`true`, `"10"`), for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "mapping"
    return type(value).__name__


Emit = Callable[[Diagnostic], None]


def recover_keys(
    node: YMap,
    known: Sequence[str],
    label: str,
    emit: Emit,
    rule: str | None = None,
    candidates: Sequence[str] | None = None,
    *,
    code: str = "invalid-schema",
    listing: bool = False,
) -> YMap:
    """`node` with its unknown keys reported, each as `unknown <label> `key``.

    A key close to one of `candidates` (default: `known`) that is not written as well
    (`acton` beside no `action`) is read as that key, so that one typo gives one diagnostic:
    the checks that follow see the field that was meant instead of reporting what its absence
    implies (an action defaulting to inject, a rule without `text`). Other unknown keys are
    dropped. With `listing`, a key with no close match is told the keys there are.
    """
    pool = known if candidates is None else candidates
    out = YMap(node.value, node.span, node.style, node.end)
    out.items = {}
    unknown = [k for k in node if k not in known]
    if not unknown:
        return node
    for key, (key_node, value) in node.items.items():
        if key in known:
            out.items[key] = (key_node, value)
            continue
        meant = closest(key, [k for k in pool if k not in node])
        message = f"unknown {label} `{key}`"
        if listing and meant is None:
            message += f" (expected one of: {', '.join(known)})"
        emit(Diagnostic.make(code, message, key_node.span, rule=rule).hinted(suggestion(meant)))
        if meant is not None and meant not in out.items:
            out.items[meant] = (key_node, value)
    out.value = out.plain()
    return out


@functools.cache
def native_names() -> tuple[dict[str, str], dict[str, str]]:
    """Native event names → normalized event, native tool names → normalized tool, over every
    harness (the first harness's reading wins where two differ)."""
    events: dict[str, str] = {}
    tools: dict[str, str] = {}
    for harness in SUPPORTED:
        spec = spec_for(harness)
        for native in spec.native_events():
            point = spec.point_of(native)
            if point is not None:
                events.setdefault(native, point)
        for native, point in spec.extra_native_events.items():
            events.setdefault(native, point)
        for tool, names in spec.tool_names.items():
            for native in names:
                tools.setdefault(native, tool)
    return events, tools


def unknown_event(event: Any, span: Span, rule: str | None) -> Diagnostic:
    """`unknown-event` for a name that is not normalized, with the normalized name meant: a
    close one (`tool.per`), or the one a harness's native name stands for (`PreToolUse`)."""
    native = native_names()[0].get(event) if isinstance(event, str) else None
    if native is not None:
        message = f"`{event}` is a harness's native event name, not a normalized one"
        return Diagnostic.make("unknown-event", message, span, rule=rule).hinted(suggestion(native))
    message = f"`{event}` is not a normalized event name"
    return Diagnostic.make("unknown-event", message, span, rule=rule).hinted(
        did_you_mean(event, EVENTS)
    )


def check_type(name: str, node: YNode, ftype: FieldType) -> Diagnostic | None:
    """A type/enum problem of one field value, as the right code (refresh has its own)."""
    v = node.value
    code = "refresh-invalid" if name == "refresh" else "invalid-schema"
    problem: str | None = None
    if ftype.kind in ("str",) and not isinstance(v, str):
        problem = f"must be a string, not {_type_name(v)}"
    elif ftype.kind == "bool" and not isinstance(v, bool):
        problem = f"must be true or false, not {_type_name(v)}"
    elif ftype.kind == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            problem = f"must be an integer, not {_type_name(v)}"
        elif ftype.minimum is not None and v < ftype.minimum:
            problem = f"must be at least {ftype.minimum}"
        elif ftype.maximum is not None and v > ftype.maximum:
            problem = f"must be at most {ftype.maximum}"
        if problem and name == "refresh":
            return Diagnostic.make(
                code,
                f"`refresh` must be an integer from 0 to 1000000, not `{_shown(v)}`",
                node.span,
            )
    elif ftype.kind == "enum":
        if not isinstance(v, str) or v not in ftype.values:
            allowed = ", ".join(ftype.values)
            problem = f"`{v if isinstance(v, str) else _shown(v)}` is not one of: {allowed}"
    elif ftype.kind == "list":
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            problem = "must be a list of strings"
        elif ftype.item_values:
            bad = [x for x in v if x not in ftype.item_values]
            if bad:
                problem = f"`{bad[0]}` is not one of: {', '.join(ftype.item_values)}"
    elif ftype.kind == "str-or-list":
        ok = isinstance(v, str) or (
            isinstance(v, list) and v and all(isinstance(x, str) for x in v)
        )
        if not ok:
            problem = "must be a string or a non-empty list of strings"
    elif ftype.kind == "when":
        if not isinstance(v, (str, dict)):
            problem = f"must be a condition string or mapping, not {_type_name(v)}"
    elif ftype.kind == "mapping" and not isinstance(v, dict):
        problem = f"must be a mapping, not {_type_name(v)}"
    if problem is None:
        return None
    hint: str | None = None
    if ftype.kind == "enum" and isinstance(v, str):
        hint = did_you_mean(v, ftype.values)
    elif ftype.kind == "list" and ftype.item_values and isinstance(v, list):
        bad_items = [x for x in v if isinstance(x, str) and x not in ftype.item_values]
        hint = did_you_mean(bad_items[0], ftype.item_values) if bad_items else None
    if ftype.kind in ("str", "str-or-list", "when", "enum"):
        hint = hint or quote_hint(node)
    return Diagnostic.make(code, f"field `{name}` {problem}", node.span).hinted(hint)


def quote_hint(node: YNode) -> str | None:
    """`quote it: "no"` where YAML read a plain word as a boolean, null or number while a string
    was due: YAML 1.1 turns `no`, `yes`, `on`, `off`, `~`, `null` and `1.10` into other types."""
    raw = node.source_text()
    if raw is None or isinstance(node.value, (str, list, dict)):
        return None
    if node.style or not raw:  # plain scalars have no style (libyaml: "")
        return None
    quoted = json.dumps(raw, ensure_ascii=False)
    value = node.value
    if isinstance(value, bool):
        read_as = "true" if value else "false"
    elif value is None:
        read_as = "null"
    elif _shown(value) != raw:
        read_as = f"the number {_shown(value)}"
    else:
        return f"quote it: `{quoted}`"
    return f"YAML reads `{raw}` as {read_as}; quote it: `{quoted}`"


def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """(front matter YAML padded to keep file line numbers, body, 1-based body line)."""
    if not (text.startswith("---\n") or text == "---"):
        return None, text, 1
    lines = text.split("\n")
    for i in range(1, len(lines)):
        if lines[i].rstrip() == "---":
            fm = "\n".join(["", *lines[1:i]])
            body = "\n".join(lines[i + 1 :])
            # With nothing after the closing `---`, the body "starts" on that line.
            return fm, body, min(i + 2, len(lines))
    return None, text, 1


def trim_body(body: str, first_line: int) -> tuple[str, int]:
    """Leading blank lines and trailing whitespace removed; returns the new first line.

    An empty body keeps `first_line`, so that its diagnostic points inside the file.
    """
    lines = body.split("\n")
    skipped = 0
    while skipped < len(lines) and not lines[skipped].strip():
        skipped += 1
    text = "\n".join(lines[skipped:]).rstrip()
    return text, first_line + skipped if text else first_line


class _Loader:
    """One package load: collects diagnostics instead of stopping at the first."""

    def __init__(self, root: Path, root_display: str) -> None:
        self.root = root
        self.root_display = root_display
        self.diags: list[Diagnostic] = []
        self.digest = hashlib.sha256()
        # Where each rule's and native hook's id was written (dup-id points there).
        self.id_spans: dict[int, Span] = {}
        self.hook_ids: list[tuple[str, Span]] = []

    def emit(self, code: str, message: str, span: Span | None, rule: str | None = None) -> None:
        self.diags.append(Diagnostic.make(code, message, span, rule=rule))

    def recover(
        self,
        node: YMap,
        known: Sequence[str],
        label: str,
        rule: str | None = None,
        candidates: Sequence[str] | None = None,
    ) -> YMap:
        return recover_keys(node, known, label, self.diags.append, rule, candidates)

    def read(self, rel: str, at: Span) -> PackageFile | None:
        pf, problem = read_package_file(self.root, rel, self.root_display, at)
        if problem is not None:
            self.diags.append(problem)
            return None
        assert pf is not None
        self.digest.update(rel.encode() + b"\0" + pf.raw + b"\0")
        return pf

    def parse(self, text: str, display: str) -> YNode | None:
        duplicates: list[YamlError] = []
        try:
            node = load_yaml(text, display, duplicates)
        except YamlError as exc:
            self.emit("invalid-package", exc.message, exc.span)
            return None
        for dup in duplicates:
            self.emit("invalid-schema", dup.message, dup.span)
        return node

    # -- rule fields -------------------------------------------------------------------------

    def rule_fields(
        self, node: YMap, origin: str, *, allowed: set[str], where: str, rule: str | None
    ) -> dict[str, FieldValue]:
        """Type-checked fields of one layer; unknown or forbidden keys are diagnostics."""
        out: dict[str, FieldValue] = {}
        node = self.recover(
            node, list(RULE_FIELDS), "rule field", rule, [k for k in RULE_FIELDS if k in allowed]
        )
        for key in node:
            key_span = node.key_span(key)
            value = node.items[key][1]
            if key not in allowed:
                self.emit(
                    "invalid-schema", f"field `{key}` is not allowed in {where}", key_span, rule
                )
                continue
            if key == "id":
                # Checked by the caller as `bad-id`, which covers a non-string id too.
                out[key] = FieldValue(value.value, value, origin)
                continue
            if key == "text" and value.value is None and not value.source_text():
                # `text:` with nothing after it is an empty body, not a type error.
                out[key] = FieldValue("", YNode("", key_span), origin)
                continue
            problem = check_type(key, value, RULE_FIELDS[key])
            if problem is not None:
                self.diags.append(dataclasses.replace(problem, rule=rule))
                # Kept, marked invalid: the validator then skips the checks that depend on
                # this field instead of reporting consequences of the built-in default.
                out[key] = FieldValue(value.value, value, INVALID)
                continue
            out[key] = FieldValue(value.value, value, origin)
        return out

    def body_checks(self, body: str, node: YNode, rule: str | None) -> None:
        if not body.strip():
            name = f"rule `{rule}`" if rule else "a rule without a valid id"
            self.emit("empty-body", f"{name} has an empty body", node.span, rule)
        marker = body.find(MARKER)
        if marker >= 0:
            self.emit(
                "marker-in-body",
                "body contains the reserved marker `<!-- style:`",
                node.locate(marker),
                rule,
            )

    # -- package manifest --------------------------------------------------------------------

    def top_keys(self, top: YMap, *, single_file: bool) -> YMap:
        """The top-level mapping with unknown keys reported (and typos read as meant)."""
        top = YMap(top.value, top.span, top.style, top.end, items=dict(top.items))
        known = list(PACKAGE_FIELDS)
        for key in list(top):
            if single_file and key in ("rules", "native_hooks"):
                self.emit(
                    "invalid-schema",
                    f"a single-file package cannot declare `{key}`",
                    top.key_span(key),
                )
                del top.items[key]
            elif not single_file and key in RULE_FIELDS and key not in PACKAGE_FIELDS:
                self.diags.append(
                    Diagnostic.make(
                        "invalid-schema", f"unknown package field `{key}`", top.key_span(key)
                    ).hinted(f"`{key}` is a rule field: set it on a rule under `rules`")
                )
                del top.items[key]
        if single_file:
            known = [k for k in known if k not in ("rules", "native_hooks")]
            known += [k for k in RULE_FIELDS if k not in known]
        return self.recover(top, known, "package field")

    def manifest(self, top: YMap, display: str, *, single_file: bool) -> Package | None:
        for key in REQUIRED_PACKAGE_FIELDS:
            if key not in top:
                self.emit("invalid-schema", f"missing required package field `{key}`", top.span)
        spec = top.get("spec")
        if spec is not None and spec.value != SPEC_VERSION:
            self.emit(
                "unsupported-spec",
                f"`spec` is `{spec.value}`; this STYLE reads `{SPEC_VERSION}`",
                spec.span,
            )
        name_node = top.get("name")
        name = name_node.value if name_node is not None else ""
        if name_node is not None and (not isinstance(name, str) or not NAME_RE.match(name)):
            self.emit(
                "bad-name",
                f"package name `{name if isinstance(name, str) else name_node.source_text()}` "
                "must match "
                "`^[a-z0-9][a-z0-9-]{0,63}$`",
                name_node.span,
            )
        version_node = top.get("version")
        version = version_node.value if version_node is not None else ""
        if version_node is not None and (
            not isinstance(version, str) or not VERSION_RE.match(version)
        ):
            self.emit(
                "bad-version",
                f"version `{version}` is not MAJOR.MINOR.PATCH[-pre]",
                version_node.span,
            )
        desc_node = top.get("description")
        description = desc_node.value if desc_node is not None else ""
        if desc_node is not None and not isinstance(description, str):
            self.diags.append(
                Diagnostic.make(
                    "invalid-schema", "field `description` must be a string", desc_node.span
                ).hinted(quote_hint(desc_node))
            )
        elif isinstance(description, str) and "\n" in description.strip():
            self.emit(
                "invalid-schema",
                "field `description` must be one line",
                desc_node.span if desc_node else None,
            )
        pkg = Package(
            name=name if isinstance(name, str) else str(name),
            version=str(version),
            description=str(description),
            root=self.root,
            manifest=display,
            single_file=single_file,
            manifest_span=top.span,
        )
        prio = top.get("priority")
        if prio is not None:
            problem = check_type("priority", prio, PACKAGE_FIELDS["priority"])
            if problem:
                self.diags.append(problem)
            else:
                pkg.priority = prio.value
        else:
            pkg.priority = DEFAULT_PACKAGE_PRIORITY
        code = top.get("allow_code")
        if code is not None:
            problem = check_type("allow_code", code, PACKAGE_FIELDS["allow_code"])
            if problem:
                self.diags.append(problem)
            else:
                pkg.allow_code = bool(code.value)
        self.budget(top.get("budget"), pkg)
        self.settings(top.get("settings"), pkg)
        self.requires(top.get("requires"), pkg)
        return pkg

    def budget(self, node: YNode | None, pkg: Package) -> None:
        if node is None:
            return
        if not isinstance(node, YMap):
            self.emit("invalid-schema", "field `budget` must be a mapping", node.span)
            return
        node = self.recover(node, list(DEFAULT_BUDGET), "budget field")
        for key in node:
            value = node.items[key][1]
            if isinstance(value.value, bool) or not isinstance(value.value, int) or value.value < 1:
                self.emit(
                    "invalid-schema", f"budget `{key}` must be a positive integer", value.span
                )
            elif key == "per_rule":
                pkg.per_rule = value.value
            else:
                pkg.per_event = value.value

    def settings(self, node: YNode | None, pkg: Package) -> None:
        if node is None:
            return
        if not isinstance(node, YSeq):
            self.emit("invalid-schema", "field `settings` must be a list", node.span)
            return
        seen: set[str] = set()
        for item in node.nodes:
            if not isinstance(item, YMap):
                self.emit("invalid-schema", "a setting must be a mapping", item.span)
                continue
            item = self.recover(item, SETTING_FIELDS, "setting field")
            name = item.get("name")
            if name is None or not isinstance(name.value, str) or not SETTING_RE.match(name.value):
                self.emit(
                    "invalid-schema",
                    "setting `name` must match `^[a-z][a-z0-9_]{0,63}$`",
                    name.span if name else item.span,
                )
                if name is not None and isinstance(name.value, str):
                    # Still declared: its uses are not also reported as undeclared.
                    pkg.settings.append(
                        SettingDecl(name.value, None, "", "string", [], item.span, False)
                    )
                continue
            if name.value in seen:
                self.emit("invalid-schema", f"setting `{name.value}` is declared twice", name.span)
            seen.add(name.value)
            typ = item.get("type")
            type_name = typ.value if typ is not None else "string"
            if type_name not in SETTING_TYPES:
                self.diags.append(
                    Diagnostic.make(
                        "invalid-schema",
                        f"setting type `{type_name}` is not one of: {', '.join(SETTING_TYPES)}",
                        typ.span if typ else item.span,
                    ).hinted(did_you_mean(type_name, SETTING_TYPES))
                )
            values = item.get("values")
            if type_name == "enum" and (
                values is None or not isinstance(values.value, list) or not values.value
            ):
                self.emit(
                    "invalid-schema",
                    f"enum setting `{name.value}` needs a non-empty `values` list",
                    values.span if values is not None else name.span,
                )
                values = None
            default = item.get("default")
            if default is not None and default.value is not None:
                problem = _setting_value_problem(
                    default.value, str(type_name), values.value if values is not None else None
                )
                hint = None
                raw = default.source_text()
                if not problem and type_name == "string" and raw != _setting_text(default.value):
                    # `default: off` would install as "false", `1.10` as "1.1".
                    hint = quote_hint(default)
                    problem = f"must be a string, not {_type_name(default.value)}" if hint else None
                if problem:
                    self.diags.append(
                        Diagnostic.make(
                            "invalid-schema",
                            f"default of setting `{name.value}` {problem}",
                            default.span,
                        ).hinted(hint)
                    )
            desc = item.get("description")
            pkg.settings.append(
                SettingDecl(
                    name=name.value,
                    default=default.value if default is not None else None,
                    description=str(desc.value) if desc is not None else "",
                    type=str(type_name),
                    values=list(values.value)
                    if values is not None and isinstance(values.value, list)
                    else [],
                    span=item.span,
                    has_default=default is not None and default.value is not None,
                )
            )

    def exceptions(self, node: YNode | None, pkg: Package) -> None:
        """`exceptions:` entries {rule, unless, reason}; their conditions are parsed and checked
        by the validator (policy/validate.py), like a rule's `unless`."""
        if node is None:
            return
        if not isinstance(node, YSeq):
            self.emit("invalid-schema", "field `exceptions` must be a list", node.span)
            return
        for item in node.nodes:
            if not isinstance(item, YMap):
                self.emit(
                    "invalid-schema",
                    "an exception is a mapping {rule, unless, reason}",
                    item.span,
                )
                continue
            item = self.recover(item, list(EXCEPTION_FIELDS), "exception field")
            missing = [k for k in EXCEPTION_FIELDS if item.get(k) is None]
            if missing:
                self.emit(
                    "invalid-schema",
                    f"an exception needs `{missing[0]}`"
                    + (
                        " (say why the rule does not apply there)" if missing[0] == "reason" else ""
                    ),
                    item.span,
                )
                continue
            rule, unless, reason = item.get("rule"), item.get("unless"), item.get("reason")
            assert rule is not None and unless is not None and reason is not None
            if not isinstance(rule.value, str) or rule.value.count("/") != 1:
                self.emit(
                    "invalid-schema",
                    "an exception's `rule` is a qualified rule id: `package/rule`",
                    rule.span,
                )
                continue
            if not isinstance(reason.value, str) or not reason.value.strip():
                self.emit("invalid-schema", "an exception's `reason` is text", reason.span)
                continue
            pkg.exceptions.append(
                ExceptionDecl(rule.value, unless, reason.value.strip(), item.span, rule.span)
            )

    def requires(self, node: YNode | None, pkg: Package) -> None:
        if node is None:
            return
        if not isinstance(node, YMap):
            self.emit("invalid-schema", "field `requires` must be a mapping", node.span)
            return
        node = self.recover(node, REQUIRES_FIELDS, "requires field")
        for key in node:
            value = node.items[key][1]
            if key == "harnesses":
                if not isinstance(value, YMap):
                    self.emit(
                        "invalid-schema", "`requires.harnesses` must be a mapping", value.span
                    )
                    continue
                for h in value:
                    if h not in HARNESSES:
                        self.diags.append(
                            Diagnostic.make(
                                "invalid-schema", f"unknown harness `{h}`", value.key_span(h)
                            ).hinted(did_you_mean(h, HARNESSES))
                        )
                    elif not isinstance(value.items[h][1].value, str):
                        self.emit(
                            "invalid-schema",
                            f"version range for `{h}` must be a string",
                            value.items[h][1].span,
                        )
            elif not isinstance(value, YSeq) or not all(
                isinstance(n, YMap) and isinstance(n.value.get("name"), str) for n in value.nodes
            ):  # `packages`: the only other key left by `recover`
                self.emit(
                    "invalid-schema",
                    "`requires.packages` must be a list of {name, version}",
                    value.span,
                )
        pkg.requires = node.plain()

    # -- rules -------------------------------------------------------------------------------

    def defaults(self, node: YNode | None) -> dict[str, FieldValue]:
        if node is None:
            return {}
        if not isinstance(node, YMap):
            self.emit("invalid-schema", "field `defaults` must be a mapping", node.span)
            return {}
        return self.rule_fields(
            node, "defaults", allowed=set(DEFAULTABLE_FIELDS), where="`defaults`", rule=None
        )

    def rules(self, node: YNode | None, pkg: Package, defaults: dict[str, FieldValue]) -> None:
        if node is None:
            return
        if not isinstance(node, YSeq):
            self.emit("invalid-package", "`rules` must be a list", node.span)
            return
        claimed: dict[str, Span] = {}
        inline_allowed = set(RULE_FIELDS) - {"from"}
        all_files: list[str] | None = None
        for item in node.nodes:
            if not isinstance(item, YMap):
                self.emit("invalid-package", "each item of `rules` must be a mapping", item.span)
                continue
            # Typos are read as meant before the entry's kind is known (`fom:` is a `from`).
            item = self.recover(item, list(RULE_FIELDS), "rule field", self.item_id(item))
            if "from" in item:
                if all_files is None:
                    all_files = list_rule_files(self.root)
                    if len(all_files) > MAX_RULE_FILES:
                        self.emit(
                            "invalid-package",
                            f"`rules/` holds {len(all_files)} rule "
                            f"files, over the limit of {MAX_RULE_FILES}",
                            node.span,
                        )
                        all_files = all_files[:MAX_RULE_FILES]
                self.from_entry(item, pkg, defaults, all_files, claimed)
            else:
                self.inline_rule(item, pkg, defaults, inline_allowed)

    @staticmethod
    def item_id(item: YMap) -> str | None:
        node = item.get("id")
        return node.value if node is not None and id_problem(node.value) is None else None

    def inline_rule(
        self, item: YMap, pkg: Package, defaults: dict[str, FieldValue], allowed: set[str]
    ) -> None:
        id_node = item.get("id")
        rule_id = id_node.value if id_node is not None and isinstance(id_node.value, str) else None
        if id_node is None:
            self.emit("inline-missing-id", "inline rule has no `id`", item.span)
        else:
            problem = id_problem(id_node.value)
            if problem:
                self.diags.append(bad_id(id_node, problem))
                rule_id = None
        label = f"rule `{rule_id}`" if rule_id else "a rule without a valid id"
        fields = self.rule_fields(
            item, "inline", allowed=allowed, where="an inline rule", rule=rule_id
        )
        has_file, has_text = "file" in item, "text" in item
        body: str | None = None
        body_node: YNode | None = None
        if has_file and has_text:
            self.emit(
                "file-and-text",
                f"{label} has both `file` and `text`",
                item.key_span("file"),
                rule_id,
            )
        elif not has_file and not has_text:
            self.emit(
                "invalid-schema",
                f"{label} needs `text` or `file`",
                item.span,
                rule_id,
            )
        elif has_text and _is_valid(fields, "text"):
            body_node = fields["text"].node
            body = fields["text"].value
            # Leading blank lines are kept in the string so offsets still map to the file.
            self.body_checks(body, body_node, rule_id)
            body = body.rstrip()
        elif has_file and _is_valid(fields, "file"):
            body, body_node = self.file_body(fields["file"].node, rule_id)
        if id_node is None or rule_id is None:
            return
        fields.pop("text", None)
        fields.pop("file", None)
        fields.pop("id", None)
        if body is None or body_node is None:
            # The rule still counts for dup-id and later checks need its fields.
            body, body_node = "", text_node("", item.span)
        self.add_rule(
            pkg,
            Rule(
                rule_id,
                item.span,
                {**defaults, **fields},
                body,
                body_node,
                len(pkg.rules),
                item.span.file,
            ),
            id_node.span,
        )

    def add_rule(self, pkg: Package, rule: Rule, id_span: Span) -> None:
        self.id_spans[id(rule)] = id_span
        pkg.rules.append(rule)

    def file_body(self, node: YNode, rule: str | None) -> tuple[str | None, YNode | None]:
        rel = node.value
        norm = posixpath.normpath(rel.replace("\\", "/")) if rel else ""
        if norm == "rules" or norm.startswith("rules/"):
            self.emit(
                "file-into-rules",
                f"`file: {rel}` points under `rules/`; use a `from` entry",
                node.span,
                rule,
            )
            return None, None
        pf = self.read(rel, node.span)
        if pf is None:
            return None, None
        if _under_rules(self.root, rel):
            # A body that is a symbolic link into rules/ is a rule file all the same.
            self.emit(
                "file-into-rules",
                f"`file: {rel}` resolves to a file under `rules/`; use a `from` entry",
                node.span,
                rule,
            )
            return None, None
        fm, _, _ = split_front_matter(pf.text)
        if fm is not None:
            self.emit(
                "body-has-frontmatter",
                f"`{rel}` starts with front matter; a `file` body is plain text",
                Span(pf.display, 1, 1),
                rule,
            )
            return None, None
        text, first = trim_body(pf.text, 1)
        body_node = text_node(text, Span(pf.display, first, 1))
        self.body_checks(text, body_node, rule)
        return text, body_node

    def from_entry(
        self,
        item: YMap,
        pkg: Package,
        defaults: dict[str, FieldValue],
        all_files: list[str],
        claimed: dict[str, Span],
    ) -> None:
        from_node = item.items["from"][1]
        pattern = from_node.value
        # These keys get their own codes; they are not also reported as invalid overrides.
        own_code = {"id": "from-and-inline", "file": "from-and-inline", "text": "from-and-inline"}
        own_code["target"] = "override-target"
        for key, code in own_code.items():
            if key not in item:
                continue
            if code == "override-target":
                message = "a `from` entry cannot override `target`; set it in each rule file"
            else:
                message = f"a `from` entry cannot declare `{key}`"
            self.emit(code, message, item.key_span(key))
        if not isinstance(pattern, str) or not pattern.strip():
            self.emit("invalid-package", "`from` must be a non-empty glob", from_node.span)
            return
        norm = pattern.strip()
        while norm.startswith("./"):
            norm = norm[2:]
        if not norm.startswith("rules/") or not norm.endswith(".md") or ".." in norm.split("/"):
            self.emit(
                "invalid-schema",
                f"`from: {pattern}` must name `.md` files under `rules/`",
                from_node.span,
            )
            return
        try:
            regex = re.compile(glob_to_regex(norm))
        except (ValueError, re.error) as exc:
            self.emit("invalid-schema", f"`from: {pattern}`: {exc}", from_node.span)
            return
        override_node = YMap(None, item.span)
        override_node.items = {k: v for k, v in item.items.items() if k not in own_code}
        del override_node.items["from"]
        overrides = self.rule_fields(
            override_node,
            "override",
            allowed=set(RULE_FIELDS) - INLINE_ONLY_FIELDS - {"target"},
            where="a `from` entry",
            rule=None,
        )
        matched = [f for f in all_files if regex.fullmatch(f)]
        if not matched:
            self.emit("file-not-found", f"`from: {pattern}` matches no rule file", from_node.span)
            return
        for rel in matched:
            if rel in claimed:
                first = claimed[rel]
                rule_id = rel[len("rules/") : -len(".md")]
                self.emit(
                    "dup-id",
                    f"rule `{rule_id}` is matched by two `from` globs (first at line {first.line})",
                    from_node.span,
                    rule_id,
                )
                continue
            claimed[rel] = from_node.span
            self.rule_file(rel, from_node.span, pkg, defaults, overrides)

    def rule_file(
        self,
        rel: str,
        at: Span,
        pkg: Package,
        defaults: dict[str, FieldValue],
        overrides: dict[str, FieldValue],
    ) -> None:
        rule_id = rel[len("rules/") : -len(".md")]
        pf = self.read(rel, at)
        if pf is None:
            return
        problem = id_problem(rule_id)
        if problem:
            self.emit(
                "bad-id",
                f"rule id `{rule_id}` (from its path) {problem}",
                Span(pf.display, 1, 1),
                rule_id,
            )
            return
        fm, body_raw, body_line = split_front_matter(pf.text)
        front: dict[str, FieldValue] = {}
        if fm is not None:
            fm_node = self.parse(fm, pf.display)
            if fm_node is not None and not isinstance(fm_node, YMap):
                self.emit("invalid-schema", "front matter must be a mapping", fm_node.span, rule_id)
            elif isinstance(fm_node, YMap):
                pkg_only = set(PACKAGE_FIELDS) - set(RULE_FIELDS)
                for key in list(fm_node):
                    if key in pkg_only:
                        self.emit(
                            "rule-file-pkg-field",
                            f"rule file front matter cannot set package field `{key}`",
                            fm_node.key_span(key),
                            rule_id,
                        )
                        del fm_node.items[key]
                front = self.rule_fields(
                    fm_node,
                    "front-matter",
                    allowed=set(RULE_FIELDS) - INLINE_ONLY_FIELDS,
                    where="rule file front matter",
                    rule=rule_id,
                )
        body, first = trim_body(body_raw, body_line)
        body_node = text_node(body, Span(pf.display, first, 1))
        self.body_checks(body, body_node, rule_id)
        self.add_rule(
            pkg,
            Rule(
                rule_id,
                Span(pf.display, 1, 1),
                {**defaults, **front, **overrides},
                body,
                body_node,
                len(pkg.rules),
                pf.display,
                rule_file=rel,
            ),
            at,
        )

    def native_hooks(self, node: YNode | None, pkg: Package) -> None:
        if node is None:
            return
        if not isinstance(node, YSeq):
            self.emit("invalid-package", "`native_hooks` must be a list", node.span)
            return
        for item in node.nodes:
            if not isinstance(item, YMap):
                self.emit("invalid-package", "each native hook must be a mapping", item.span)
                continue
            item = self.recover(item, NATIVE_HOOK_FIELDS, "native hook field")
            values = item.plain()
            id_node = item.get("id")
            hook_id: str | None = None
            if id_node is None:
                self.emit("inline-missing-id", "native hook has no `id`", item.span)
            elif problem := id_problem(id_node.value):
                self.emit("bad-id", f"native hook id `{id_node.value}` {problem}", id_node.span)
            else:
                hook_id = id_node.value
                self.hook_ids.append((hook_id, id_node.span))
            ok = hook_id is not None
            event = values.get("event")
            event_node = item.get("event")
            if event_node is None:
                self.emit(
                    "unknown-event", f"native hook `{hook_id}` needs an `event`", item.span, hook_id
                )
                ok = False
            elif not isinstance(event, str) or event not in EVENTS:
                self.diags.append(unknown_event(event, event_node.span, hook_id))
                ok = False
            command = values.get("command")
            if not isinstance(command, str) or not command.strip():
                command_node = item.get("command")
                self.emit(
                    "invalid-schema",
                    f"native hook `{hook_id}` needs a `command` string",
                    command_node.span if command_node is not None else item.span,
                    hook_id,
                )
                ok = False
            timeout = values.get("timeout")
            if timeout is not None and (
                isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1
            ):
                self.emit(
                    "invalid-schema",
                    "native hook `timeout` must be a positive integer",
                    item.items["timeout"][1].span,
                    hook_id,
                )
                timeout = None
            harness = values.get("harness")
            if harness is not None and (not isinstance(harness, str) or harness not in HARNESSES):
                self.diags.append(
                    Diagnostic.make(
                        "invalid-schema",
                        f"unknown harness `{harness}` (expected one of: {', '.join(HARNESSES)})",
                        item.items["harness"][1].span,
                        rule=hook_id,
                    ).hinted(did_you_mean(harness, HARNESSES))
                )
                ok = False
            matcher = values.get("matcher")
            if matcher is not None and not isinstance(matcher, str):
                self.emit(
                    "invalid-schema",
                    "native hook `matcher` must be a string",
                    item.items["matcher"][1].span,
                    hook_id,
                )
                ok = False
            if ok and hook_id is not None:
                pkg.native_hooks.append(
                    NativeHook(
                        hook_id, str(event), str(command), matcher, timeout, harness, item.span
                    )
                )

    def dup_ids(self, pkg: Package) -> None:
        seen: dict[str, Span] = {}
        entries = [(r.id, self.id_spans.get(id(r), r.span)) for r in pkg.rules]
        entries += self.hook_ids
        for rule_id, span in entries:
            if rule_id in seen:
                first = seen[rule_id]
                where = f"line {first.line}" if first.file == span.file else str(first)
                self.emit("dup-id", f"id `{rule_id}` is already used at {where}", span, rule_id)
            else:
                seen[rule_id] = span


def _setting_value_problem(value: Any, type_name: str, values: list[Any] | None) -> str | None:
    """Why `value` does not fit a setting of `type_name`, or None."""
    if type_name == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        return f"must be an integer, not {_type_name(value)}"
    if type_name == "bool" and not isinstance(value, bool):
        return f"must be true or false, not {_type_name(value)}"
    if type_name == "enum" and values is not None and value not in values:
        return f"`{value}` is not one of its `values`"
    if type_name == "string" and isinstance(value, (list, dict)):
        hint = "; declare it `type: list`" if isinstance(value, list) else ""
        return f"must be a string, not {_type_name(value)}{hint}"
    if type_name == "list":
        # Items travel as `--set name=a,b` and in the lock file as that text: no commas.
        if not isinstance(value, list):
            return f"must be a list of strings, not {_type_name(value)}"
        for item in value:
            if not isinstance(item, str) or not item.strip():
                return f"must be a list of non-empty strings, not {_type_name(item)} `{item}`"
            if "," in item:
                return f"item `{item}` holds a comma, which separates the items of a list"
    return None


def _setting_text(value: Any) -> str:
    """A setting value as it is rendered and recorded (YAML spelling of booleans)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _is_valid(fields: dict[str, FieldValue], key: str) -> bool:
    fv = fields.get(key)
    return fv is not None and fv.origin != INVALID


def _under_rules(root: Path, rel: str) -> bool:
    """Whether `rel` resolves to a path inside the package's `rules/` folder."""
    try:
        return (root / rel).resolve().is_relative_to((root / "rules").resolve())
    except (OSError, RuntimeError):
        return False


def _display(path: Path) -> str:
    try:
        rel = path.resolve().relative_to(Path.cwd().resolve())
        return rel.as_posix() or "."
    except ValueError:
        return path.resolve().as_posix()


def load_package(path: str | Path) -> LoadResult:
    """Load a directory package or a single-file package. Missing paths raise StyleError."""
    p = Path(path)
    if not p.exists():
        raise StyleError(f"{path}: no such package (not a file or directory)")
    if p.is_dir():
        if not (p / "STYLE.yaml").exists():
            raise StyleError(f"{_display(p)}: not a STYLE package (no STYLE.yaml in this folder)")
        return _load_directory(p)
    if p.name == "STYLE.yaml":
        return _load_directory(p.parent)
    if p.suffix == ".md":
        return _load_single_file(p)
    raise StyleError(
        f"{_display(p)}: not a STYLE package (expected a folder with STYLE.yaml "
        "or a NAME.md single-file package)"
    )


def _load_directory(root: Path) -> LoadResult:
    display = _display(root)
    ld = _Loader(root, display)
    manifest_span = Span(f"{display}/STYLE.yaml" if display != "." else "STYLE.yaml")
    pf = ld.read("STYLE.yaml", manifest_span)
    if pf is None:
        return LoadResult(None, ld.diags)
    top = ld.parse(pf.text, pf.display)
    if top is None:
        if not ld.diags:
            ld.emit("invalid-package", "`STYLE.yaml` is empty", manifest_span)
        return LoadResult(None, ld.diags)
    if not isinstance(top, YMap):
        ld.emit("invalid-package", "`STYLE.yaml` must be a mapping of package fields", top.span)
        return LoadResult(None, ld.diags)
    top = ld.top_keys(top, single_file=False)
    pkg = ld.manifest(top, pf.display, single_file=False)
    if pkg is None:
        return LoadResult(None, ld.diags)
    defaults = ld.defaults(top.get("defaults"))
    ld.rules(top.get("rules"), pkg, defaults)
    ld.native_hooks(top.get("native_hooks"), pkg)
    ld.exceptions(top.get("exceptions"), pkg)
    rules_node, hooks_node = top.get("rules"), top.get("native_hooks")
    empty_rules = rules_node is None or (isinstance(rules_node, YSeq) and not rules_node.nodes)
    empty_hooks = hooks_node is None or (isinstance(hooks_node, YSeq) and not hooks_node.nodes)
    if empty_rules and empty_hooks and not pkg.exceptions:
        where = top.key_span("rules") if rules_node is not None else top.span
        ld.emit("invalid-package", "the package has no `rules` and no `native_hooks`", where)
    ld.dup_ids(pkg)
    pkg.digest = ld.digest.hexdigest()
    return LoadResult(pkg, ld.diags)


def _load_single_file(path: Path) -> LoadResult:
    root = path.parent
    root_display = _display(root)
    ld = _Loader(root, root_display)
    pf = ld.read(path.name, Span(_display(path)))
    if pf is None:
        return LoadResult(None, ld.diags)
    fm, body_raw, body_line = split_front_matter(pf.text)
    if fm is None:
        ld.emit(
            "invalid-package",
            "a single-file package starts with `---` front matter",
            Span(pf.display, 1, 1),
        )
        return LoadResult(None, ld.diags)
    top = ld.parse(fm, pf.display)
    if not isinstance(top, YMap):
        ld.emit(
            "invalid-package",
            "front matter must be a mapping of package fields",
            top.span if top is not None else Span(pf.display, 1, 1),
        )
        return LoadResult(None, ld.diags)
    top = ld.top_keys(top, single_file=True)
    pkg = ld.manifest(top, pf.display, single_file=True)
    if pkg is None:
        return LoadResult(None, ld.diags)
    # `priority` is the package's; its one rule inherits it like any rule.
    rule_keys = YMap(None, top.span)
    rule_keys.items = {k: v for k, v in top.items.items() if k in RULE_FIELDS and k != "priority"}
    rule_id = pkg.name
    id_node = top.get("id")
    if id_node is not None:
        problem = id_problem(id_node.value)
        if problem:
            ld.diags.append(bad_id(id_node, problem))
        else:
            rule_id = id_node.value
    fields = ld.rule_fields(
        rule_keys,
        "front-matter",
        allowed=set(RULE_FIELDS) - {"from", "file", "text"},
        where="a single-file package",
        rule=rule_id,
    )
    fields.pop("id", None)
    body, first = trim_body(body_raw, body_line)
    body_node = text_node(body, Span(pf.display, first, 1))
    ld.body_checks(body, body_node, rule_id)
    pkg.rules.append(Rule(rule_id, Span(pf.display, 1, 1), fields, body, body_node, 0, pf.display))
    pkg.digest = ld.digest.hexdigest()
    return LoadResult(pkg, ld.diags)
