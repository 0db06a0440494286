"""Loading a package's manifest: its top-level keys and the typed fields of a rule.

The top-level keys (name, version, budget, settings, exceptions and requires) and the fields of a
rule with their types, each diagnostic collected.

The loader is one class in two parts: this one, and `load.py` (the rules, their files and
native hooks), built on it."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic, closest, did_you_mean, suggestion
from agentstyle.harnesses.facts import SUPPORTED
from agentstyle.policy.files import PackageFile, read_package_file
from agentstyle.policy.model import ExceptionDecl, FieldValue, Package, SettingDecl
from agentstyle.policy.settingrefs import declared, pattern_problems, setting_text
from agentstyle.policy.yamlpos import YamlError, YMap, YNode, YSeq, load_yaml
from agentstyle.source import Span
from agentstyle.vocabulary import (
    DEFAULT_BUDGET,
    DEFAULT_PACKAGE_PRIORITY,
    EXCEPTION_FIELDS,
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
SETTING_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
HARNESSES = SUPPORTED
ID_RE = re.compile(r"^[a-z0-9][a-z0-9_./-]{0,127}$")


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


MARKER = "<!-- style:"

# The origin of a field whose value failed its type check: kept so that the validator knows
# the field was written (and reported), while `rules.effective` uses the default instead.
INVALID = "invalid"

SETTING_TYPES = ("string", "int", "bool", "enum", "list", "pattern")

SETTING_FIELDS = ("name", "default", "description", "type", "values")

REQUIRES_FIELDS = ("harnesses", "packages")


def _shown(value: Any) -> str:
    """A value as YAML would spell it (`true`, `"10"`), for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


# YAML's name of each type a value loads as, for messages; bool before int (a bool is an int)
_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (type(None), "null"),
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "list"),
    (dict, "mapping"),
)


def _type_name(value: Any) -> str:
    return next((name for t, name in _TYPE_NAMES if isinstance(value, t)), type(value).__name__)


Emit = Callable[[Diagnostic], None]


def recover_keys(
    node: YMap,
    known: Sequence[str],
    label: str,
    emit: Emit,
    rule: str | None = None,
    candidates: Sequence[str] | None = None,
    *,
    code: str = codes.INVALID_SCHEMA,
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


def check_type(name: str, node: YNode, ftype: FieldType) -> Diagnostic | None:
    """A type/enum problem of one field value, as the right code (refresh has its own)."""
    v = node.value
    code = codes.REFRESH_INVALID if name == "refresh" else codes.INVALID_SCHEMA
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


class ManifestLoader:
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

    def entries(
        self, node: YNode | None, code: str, not_list: str, not_mapping: str
    ) -> Iterator[YMap]:
        """The entries of a list field that are mappings, in order; a value that is not a list
        and each entry that is not a mapping are reported as `code`, with these messages (as
        the walk meets them)."""
        if node is None:
            return
        if not isinstance(node, YSeq):
            self.emit(code, not_list, node.span)
            return
        for item in node.nodes:
            if isinstance(item, YMap):
                yield item
            else:
                self.emit(code, not_mapping, item.span)

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
            self.emit(codes.INVALID_PACKAGE, exc.message, exc.span)
            return None
        for dup in duplicates:
            self.emit(codes.INVALID_SCHEMA, dup.message, dup.span)
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
                    codes.INVALID_SCHEMA, f"field `{key}` is not allowed in {where}", key_span, rule
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
            self.emit(codes.EMPTY_BODY, f"{name} has an empty body", node.span, rule)
        marker = body.find(MARKER)
        if marker >= 0:
            self.emit(
                codes.MARKER_IN_BODY,
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
                    codes.INVALID_SCHEMA,
                    f"a single-file package cannot declare `{key}`",
                    top.key_span(key),
                )
                del top.items[key]
            elif not single_file and key in RULE_FIELDS and key not in PACKAGE_FIELDS:
                self.diags.append(
                    Diagnostic.make(
                        codes.INVALID_SCHEMA, f"unknown package field `{key}`", top.key_span(key)
                    ).hinted(f"`{key}` is a rule field: set it on a rule under `rules`")
                )
                del top.items[key]
        if single_file:
            known = [k for k in known if k not in ("rules", "native_hooks")]
            known += [k for k in RULE_FIELDS if k not in known]
        return self.recover(top, known, "package field")

    def shaped(
        self, top: YMap, key: str, shape: re.Pattern[str], code: str, problem: str, wanted: str
    ) -> Any:
        """The value of the package field `key` ("" when absent); one that is not a string of
        the field's shape is said (`problem` filled with the value as written and `wanted`)."""
        node = top.get(key)
        value = node.value if node is not None else ""
        if node is not None and (not isinstance(value, str) or not shape.match(value)):
            shown = value if isinstance(value, str) else node.source_text()
            self.emit(code, problem.format(shown, wanted), node.span)
        return value

    def typed(self, top: YMap, key: str) -> YNode | None:
        """The package field `key` where it is there and of its type; a wrong type is said."""
        node = top.get(key)
        problem = check_type(key, node, PACKAGE_FIELDS[key]) if node is not None else None
        if problem:
            self.diags.append(problem)
            return None
        return node

    def manifest(self, top: YMap, display: str, *, single_file: bool) -> Package | None:
        for key in REQUIRED_PACKAGE_FIELDS:
            if key not in top:
                self.emit(codes.INVALID_SCHEMA, f"missing required package field `{key}`", top.span)
        spec = top.get("spec")
        if spec is not None and spec.value != SPEC_VERSION:
            self.emit(
                codes.UNSUPPORTED_SPEC,
                f"`spec` is `{spec.value}`; this STYLE reads `{SPEC_VERSION}`",
                spec.span,
            )
        name = self.shaped(
            top,
            "name",
            NAME_RE,
            codes.BAD_NAME,
            "package name `{}` must match `{}`",
            NAME_RE.pattern,
        )
        version = self.shaped(
            top,
            "version",
            VERSION_RE,
            codes.BAD_VERSION,
            "version `{}` is not {}",
            "MAJOR.MINOR.PATCH[-pre]",
        )
        desc_node = top.get("description")
        description = desc_node.value if desc_node is not None else ""
        if desc_node is not None and not isinstance(description, str):
            self.diags.append(
                Diagnostic.make(
                    codes.INVALID_SCHEMA, "field `description` must be a string", desc_node.span
                ).hinted(quote_hint(desc_node))
            )
        elif isinstance(description, str) and "\n" in description.strip():
            self.emit(
                codes.INVALID_SCHEMA,
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
        prio = self.typed(top, "priority")
        pkg.priority = prio.value if prio is not None else DEFAULT_PACKAGE_PRIORITY
        code = self.typed(top, "allow_code")
        if code is not None:
            pkg.allow_code = bool(code.value)
        self.budget(top.get("budget"), pkg)
        self.settings(top.get("settings"), pkg)
        self.requires(top.get("requires"), pkg)
        return pkg

    def mapping(self, node: YNode | None, field: str, known: Sequence[str]) -> YMap | None:
        """The package field `field` as a mapping of its `known` keys (an unknown one said and
        recovered where it is a misspelling); None where it is absent or no mapping."""
        if node is None:
            return None
        if not isinstance(node, YMap):
            self.emit(codes.INVALID_SCHEMA, f"field `{field}` must be a mapping", node.span)
            return None
        return self.recover(node, known, f"{field} field")

    def budget(self, given: YNode | None, pkg: Package) -> None:
        node = self.mapping(given, "budget", list(DEFAULT_BUDGET))
        if node is None:
            return
        for key in node:
            value = node.items[key][1]
            if isinstance(value.value, bool) or not isinstance(value.value, int) or value.value < 1:
                self.emit(
                    codes.INVALID_SCHEMA, f"budget `{key}` must be a positive integer", value.span
                )
            elif key == "per_rule":
                pkg.per_rule = value.value
            else:
                pkg.per_event = value.value

    def settings(self, node: YNode | None, pkg: Package) -> None:
        seen: set[str] = set()
        for item in self.entries(
            node,
            codes.INVALID_SCHEMA,
            "field `settings` must be a list",
            "a setting must be a mapping",
        ):
            item = self.recover(item, SETTING_FIELDS, "setting field")
            name = item.get("name")
            if name is None or not isinstance(name.value, str) or not SETTING_RE.match(name.value):
                self.emit(
                    codes.INVALID_SCHEMA,
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
                self.emit(
                    codes.INVALID_SCHEMA, f"setting `{name.value}` is declared twice", name.span
                )
            seen.add(name.value)
            typ = item.get("type")
            type_name = typ.value if typ is not None else "string"
            if type_name not in SETTING_TYPES:
                self.diags.append(
                    Diagnostic.make(
                        codes.INVALID_SCHEMA,
                        f"setting type `{type_name}` is not one of: {', '.join(SETTING_TYPES)}",
                        typ.span if typ else item.span,
                    ).hinted(did_you_mean(type_name, SETTING_TYPES))
                )
            values = item.get("values")
            if type_name == "enum" and (
                values is None or not isinstance(values.value, list) or not values.value
            ):
                self.emit(
                    codes.INVALID_SCHEMA,
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
                installed = setting_text("string", default.value)
                if not problem and type_name == "string" and raw != installed:
                    # `default: off` would install as "false", `1.10` as "1.1".
                    hint = quote_hint(default)
                    problem = f"must be a string, not {_type_name(default.value)}" if hint else None
                if problem:
                    self.diags.append(
                        Diagnostic.make(
                            codes.INVALID_SCHEMA,
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
        self.pattern_settings(pkg)

    def pattern_settings(self, pkg: Package) -> None:
        """A `pattern` setting's own `{{settings.NAME}}`: each names a declared setting, and no
        pattern uses itself (settingrefs.composed fills them in)."""
        spans = {d.name: d.span for d in pkg.settings}
        for name, problem in pattern_problems(declared(pkg.settings)).items():
            self.emit(codes.INVALID_SCHEMA, f"pattern setting `{name}` {problem}", spans[name])

    def exceptions(self, node: YNode | None, pkg: Package) -> None:
        """`exceptions:` entries {rule, unless, reason}; their conditions are parsed and checked
        by the validator (policy/validate.py), like a rule's `unless`."""
        for item in self.entries(
            node,
            codes.INVALID_SCHEMA,
            "field `exceptions` must be a list",
            "an exception is a mapping {rule, unless, reason}",
        ):
            item = self.recover(item, list(EXCEPTION_FIELDS), "exception field")
            missing = [k for k in EXCEPTION_FIELDS if item.get(k) is None]
            if missing:
                self.emit(
                    codes.INVALID_SCHEMA,
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
                    codes.INVALID_SCHEMA,
                    "an exception's `rule` is a qualified rule id: `package/rule`",
                    rule.span,
                )
                continue
            if not isinstance(reason.value, str) or not reason.value.strip():
                self.emit(codes.INVALID_SCHEMA, "an exception's `reason` is text", reason.span)
                continue
            pkg.exceptions.append(
                ExceptionDecl(rule.value, unless, reason.value.strip(), item.span, rule.span)
            )

    def requires(self, given: YNode | None, pkg: Package) -> None:
        node = self.mapping(given, "requires", REQUIRES_FIELDS)
        if node is None:
            return
        for key in node:
            value = node.items[key][1]
            if key == "harnesses":
                if not isinstance(value, YMap):
                    self.emit(
                        codes.INVALID_SCHEMA, "`requires.harnesses` must be a mapping", value.span
                    )
                    continue
                for h in value:
                    if h not in HARNESSES:
                        self.diags.append(
                            Diagnostic.make(
                                codes.INVALID_SCHEMA, f"unknown harness `{h}`", value.key_span(h)
                            ).hinted(did_you_mean(h, HARNESSES))
                        )
                    elif not isinstance(value.items[h][1].value, str):
                        self.emit(
                            codes.INVALID_SCHEMA,
                            f"version range for `{h}` must be a string",
                            value.items[h][1].span,
                        )
            elif not isinstance(value, YSeq) or not all(
                isinstance(n, YMap) and isinstance(n.value.get("name"), str) for n in value.nodes
            ):  # `packages`: the only other key left by `recover`
                self.emit(
                    codes.INVALID_SCHEMA,
                    "`requires.packages` must be a list of {name, version}",
                    value.span,
                )
        pkg.requires = node.plain()


def _setting_value_problem(value: Any, type_name: str, values: list[Any] | None) -> str | None:
    """Why `value` does not fit a setting of `type_name`, or None."""
    if type_name == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        return f"must be an integer, not {_type_name(value)}"
    if type_name == "bool" and not isinstance(value, bool):
        return f"must be true or false, not {_type_name(value)}"
    if type_name == "enum" and values is not None and value not in values:
        return f"`{value}` is not one of its `values`"
    if type_name in ("string", "pattern") and isinstance(value, (list, dict)):
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
