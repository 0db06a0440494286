"""JSON Schema of `STYLE.yaml` and of rule-file front matter, generated from the vocabulary."""

from __future__ import annotations

import copy
import json
from typing import Any

from agentstyle.harnesses import SUPPORTED
from agentstyle.vocabulary import (
    DEFAULT_BUDGET,
    DEFAULT_PACKAGE_PRIORITY,
    DEFAULTABLE_FIELDS,
    EVENTS,
    INLINE_ONLY_FIELDS,
    OPERATORS,
    PACKAGE_FIELDS,
    REQUIRED_PACKAGE_FIELDS,
    RULE_FIELDS,
    SPEC_VERSION,
    TOOLS,
    FieldType,
)

Schema = dict[str, Any]

DRAFT = "https://json-schema.org/draft/2020-12/schema"
BASE_URL = "https://style.dev/schema/" + SPEC_VERSION.split("/", 1)[1]
KINDS = ("package", "rule-file")

# Formats of docs/packages.md and docs/rules.md. They mirror the loader's regexes (a test holds them
# equal on samples); the id pattern folds the loader's extra checks (`..`, `//`, trailing `/`) into
# look-aheads, which ECMA-262 and Python both read.
NAME_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"
VERSION_PATTERN = r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$"
ID_PATTERN = r"^(?!.*\.\.)(?!.*//)(?!.*/$)[a-z0-9][a-z0-9_./-]{0,127}$"
SETTING_NAME_PATTERN = r"^[a-z][a-z0-9_]{0,63}$"
FROM_PATTERN = r"^(\./)?rules/.+\.md$"
SETTING_TYPES = ("string", "int", "bool", "enum", "list", "pattern")


def _rewrite(pattern_key: str) -> Schema:
    """A `fix` or `redact` mapping: a non-empty pattern under `pattern_key` and its `with`."""
    return {
        "properties": {pattern_key: {"type": "string", "minLength": 1}, "with": {"type": "string"}},
        "required": [pattern_key, "with"],
        "additionalProperties": False,
    }


# The vocabulary types these as plain strings so that the loader can give them their own codes
# (`unknown-event`, `bad-id`, `invalid-schema` for `from`); an editor still wants the exact form.
_RULE_FIELD_REFINEMENTS: dict[str, Schema] = {
    "id": {"pattern": ID_PATTERN},
    "event": {"enum": list(EVENTS)},
    "from": {"pattern": FROM_PATTERN},
    "fix": _rewrite("replace"),
    # `pattern`, or `patterns`: a list applied in turn (one of them: said by the validator)
    "redact": {
        "properties": {
            "pattern": {"type": "string", "minLength": 1},
            "patterns": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 1,
            },
            "with": {"type": "string"},
            # patterns tested against each match: a match one of them finds in stays
            "keep": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 1,
            },
        },
        "required": ["with"],
        "additionalProperties": False,
    },
    "check": {
        "properties": {
            "run": {"type": "string", "minLength": 1},
            "prompt": {"type": "string", "minLength": 1},
            "timeout": {"type": ["string", "integer"]},
            "cooldown": {"type": ["string", "integer"]},
        },
        # one of `run` and `prompt`: said by the validator (`check-block`), where it can
        # point at the block
        "additionalProperties": False,
    },
}

_STRINGS: Schema = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_SCALAR_TYPES = ["string", "number", "boolean"]
_HARNESS: Schema = {"enum": list(SUPPORTED)}


def _field_schema(name: str, ft: FieldType) -> Schema:
    """The JSON Schema of one vocabulary field, refined where the spec fixes a format."""
    s: Schema
    if ft.kind == "str":
        s = {"type": "string"}
    elif ft.kind == "int":
        s = {"type": "integer"}
        if ft.minimum is not None:
            s["minimum"] = ft.minimum
        if ft.maximum is not None:
            s["maximum"] = ft.maximum
    elif ft.kind == "bool":
        s = {"type": "boolean"}
    elif ft.kind == "enum":
        s = {"type": "string", "enum": list(ft.values)}
    elif ft.kind == "list":
        items: Schema = {"enum": list(ft.item_values)} if ft.item_values else {"type": "string"}
        s = {"type": "array", "items": items}
    elif ft.kind == "str-or-list":
        s = {"anyOf": [{"type": "string"}, dict(_STRINGS)]}
    elif ft.kind == "when":
        s = {"$ref": "#/$defs/when"}
    elif ft.kind == "mapping":
        s = {"type": "object"}
    else:
        raise ValueError(f"field `{name}` has unknown kind `{ft.kind}`")
    s.update(_RULE_FIELD_REFINEMENTS.get(name, {}))
    if name == "tool":
        # Completion hints only: globs and unknown names stay valid (`unknown-tool` is a warning).
        s["examples"] = list(TOOLS)
    if ft.description:
        s["description"] = ft.description
    return s


def _rule_properties(names: list[str]) -> Schema:
    return {name: _field_schema(name, RULE_FIELDS[name]) for name in names}


def _object(properties: Schema, *, required: tuple[str, ...] = (), **extra: Any) -> Schema:
    """A closed object: a key the spec does not list is an error (`invalid-schema`)."""
    s: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        s["required"] = list(required)
    s.update(extra)
    return s


def _when_defs() -> Schema:
    value: Schema = {
        "type": [*_SCALAR_TYPES, "array"],
        "items": {"type": _SCALAR_TYPES},
        "description": "string, number, boolean, or a list of them (for `in`)",
    }
    condition = _object(
        {
            "field": {"type": "string", "description": "condition field, e.g. tool.input.command"},
            "op": {"enum": sorted(OPERATORS), "description": "operator"},
            "pattern": value,
            "value": {**value, "description": "synonym of `pattern`"},
            "command": {
                "anyOf": [{"type": "string"}, dict(_STRINGS)],
                "description": 'a command condition: a program and its subcommand words ("git '
                'clean"), or a list of them',
            },
            "where": {
                "type": "string",
                "description": "with `command`: what that one command has (options, paths, …)",
            },
        },
        description="one condition: {field, op, pattern}, or a command: {command, where}",
    )
    # a command condition has `command` or `where` and no field test; the rest `field` and `op`
    command_keys: list[Schema] = [{"required": ["command"]}, {"required": ["where"]}]
    condition["if"] = {"anyOf": command_keys}
    condition["then"] = {
        "not": {"anyOf": [{"required": [k]} for k in ("field", "op", "pattern", "value")]}
    }
    condition["else"] = {"required": ["field", "op"]}
    conditions: Schema = {"type": "array", "items": {"$ref": "#/$defs/condition"}}
    mapping: Schema = {
        "model": {
            "anyOf": [{"type": "string"}, dict(_STRINGS)],
            "description": 'glob or list of globs over the model id ("unknown" when not known)',
        },
        "harness": {
            "anyOf": [_HARNESS, {"type": "array", "items": _HARNESS, "minItems": 1}],
            "description": "only on these harnesses",
        },
        "conditions": {**conditions, "description": "every item must hold"},
        "any": {**conditions, "description": "at least one item must hold"},
        "expr": {"type": "string", "description": "expression, ANDed with the rest"},
    }
    when: Schema = {
        "description": "conditions: one expression string, or a mapping",
        "anyOf": [
            {"type": "string", "description": 'expression, e.g. file.path glob "**/*.rs"'},
            _object(mapping),
        ],
    }
    return {"when": when, "condition": condition}


def _package_defs() -> Schema:
    inline = [f for f in RULE_FIELDS if f != "from"]
    # A `from` entry takes id and body from each rule file, and target from its front matter.
    overrides = [f for f in RULE_FIELDS if f not in (INLINE_ONLY_FIELDS - {"from"}) | {"target"}]
    inline_rule = {
        **_object(
            _rule_properties(inline),
            required=("id",),
            description="an inline rule: `id` and a body (`text` or `file`)",
        ),
        "anyOf": [{"required": ["text"]}, {"required": ["file"]}],
        # Both at once is `file-and-text`.
        "not": {"required": ["text", "file"]},
    }
    from_entry = _object(
        _rule_properties(overrides),
        required=("from",),
        description="rule files under rules/, with overrides for every matched file",
    )
    rule_entry: Schema = {
        "type": "object",
        "description": "an inline rule, or a `from` entry naming rule files",
        "if": {"required": ["from"]},
        "then": {"$ref": "#/$defs/fromEntry"},
        "else": {"$ref": "#/$defs/inlineRule"},
    }
    setting_value: Schema = {"type": ["string", "integer", "boolean"]}
    setting = {
        **_object(
            {
                "name": {"type": "string", "pattern": SETTING_NAME_PATTERN},
                "default": {
                    "anyOf": [
                        setting_value,
                        {"type": "array", "items": {"type": "string", "pattern": "^[^,]+$"}},
                    ],
                    "description": "used when install gets no value (a list for `type: list`)",
                },
                "description": {"type": "string"},
                "type": {"enum": list(SETTING_TYPES), "default": "string"},
                "values": {"type": "array", "items": setting_value, "description": "enum values"},
            },
            required=("name",),
            description="an install-time setting, used as {{settings.NAME}} in bodies and "
            "conditions, or as settings.NAME for a whole condition value",
        ),
        # An enum setting lists its values.
        "if": {"properties": {"type": {"const": "enum"}}, "required": ["type"]},
        "then": {"required": ["values"]},
    }
    native_hook = _object(
        {
            "id": {"type": "string", "pattern": ID_PATTERN},
            "event": {"enum": list(EVENTS), "description": "normalized event name"},
            "matcher": {"type": "string"},
            "command": {"type": "string", "minLength": 1},
            "timeout": {"type": "integer", "minimum": 1, "description": "in the harness's unit"},
            "harness": {**_HARNESS, "description": "only on this harness"},
        },
        required=("id", "event", "command"),
        description="a raw hook command, installed as it is",
    )
    return {
        **_when_defs(),
        "inlineRule": inline_rule,
        "fromEntry": from_entry,
        "ruleEntry": rule_entry,
        "setting": setting,
        "nativeHook": native_hook,
    }


def _package_field_schema(name: str) -> Schema:
    """The detailed schema of a top-level field; the vocabulary gives type and description."""
    ft = PACKAGE_FIELDS[name]
    if name == "spec":
        s: Schema = {"type": "string", "const": SPEC_VERSION}
    elif name == "name":
        s = {"type": "string", "pattern": NAME_PATTERN}
    elif name == "version":
        s = {"type": "string", "pattern": VERSION_PATTERN}
    elif name == "description":
        s = {"type": "string"}
    elif name == "priority":
        s = {**_field_schema(name, ft), "default": DEFAULT_PACKAGE_PRIORITY}
    elif name == "allow_code":
        s = {**_field_schema(name, ft), "default": False}
    elif name == "defaults":
        s = _object(_rule_properties([f for f in RULE_FIELDS if f in DEFAULTABLE_FIELDS]))
    elif name == "settings":
        s = {"type": "array", "items": {"$ref": "#/$defs/setting"}}
    elif name == "requires":
        harnesses = {
            h: {"type": "string", "description": "version range, e.g. >=2.1.0"} for h in SUPPORTED
        }
        package = _object(
            {
                "name": {"type": "string", "pattern": NAME_PATTERN},
                "version": {"type": "string", "description": "version range, e.g. >=1.2.0"},
            },
            required=("name",),
        )
        s = _object(
            {
                "harnesses": _object(harnesses, description="minimum harness versions"),
                "packages": {
                    "type": "array",
                    "items": package,
                    "description": "packages that must be installed alongside",
                },
            }
        )
    elif name == "budget":
        s = _object(
            {
                key: {"type": "integer", "minimum": 1, "default": default}
                for key, default in DEFAULT_BUDGET.items()
            }
        )
    elif name == "rules":
        s = {"type": "array", "items": {"$ref": "#/$defs/ruleEntry"}}
    elif name == "native_hooks":
        s = {"type": "array", "items": {"$ref": "#/$defs/nativeHook"}}
    elif name == "exceptions":
        exception = _object(
            {
                "rule": {
                    "type": "string",
                    "pattern": "^[^/]+/[^/]+$",
                    "description": "the qualified id of the rule it narrows: package/rule",
                },
                "unless": {"$ref": "#/$defs/when"},
                "reason": {"type": "string", "description": "why the rule does not apply there"},
            },
            required=("rule", "unless", "reason"),
        )
        s = {"type": "array", "items": exception}
    else:
        # A field added to the vocabulary must get its schema here, not pass unchecked.
        raise ValueError(f"package field `{name}` has no schema")
    if ft.description:
        s["description"] = ft.description
    return s


def package_schema() -> Schema:
    """The JSON Schema of a directory package's `STYLE.yaml`."""
    non_empty = [
        {"required": [key], "properties": {key: {"minItems": 1}}}
        for key in ("rules", "native_hooks", "exceptions")
    ]
    schema: Schema = {
        "$schema": DRAFT,
        "$id": f"{BASE_URL}/package.json",
        "title": f"STYLE package ({SPEC_VERSION})",
        "description": "STYLE.yaml: a package of rules for AI coding agents",
        **_object(
            {name: _package_field_schema(name) for name in PACKAGE_FIELDS},
            required=REQUIRED_PACKAGE_FIELDS,
            # At least one non-empty `rules`, `native_hooks` or `exceptions` (`invalid-package`).
            anyOf=non_empty,
        ),
        "$defs": _package_defs(),
    }
    # Fresh objects: parts such as _HARNESS are shared between places in the tree.
    return copy.deepcopy(schema)


def rule_file_schema() -> Schema:
    """The JSON Schema of a rule file's front matter (`rules/**/*.md`)."""
    names = [f for f in RULE_FIELDS if f not in INLINE_ONLY_FIELDS]
    properties = _rule_properties(names)
    # `priority` is the one package-level field a rule file may set (`rule-file-pkg-field`).
    properties.setdefault("priority", _field_schema("priority", PACKAGE_FIELDS["priority"]))
    schema: Schema = {
        "$schema": DRAFT,
        "$id": f"{BASE_URL}/rule-file.json",
        "title": f"STYLE rule file front matter ({SPEC_VERSION})",
        "description": "front matter of a rule file; id from its path, body after the front matter",
        **_object(properties),
        "$defs": _when_defs(),
    }
    return copy.deepcopy(schema)


def schema_json(kind: str) -> str:
    """The schema of `kind` ("package" or "rule-file") as stable JSON: indent 2, keys sorted."""
    if kind == "package":
        schema = package_schema()
    elif kind == "rule-file":
        schema = rule_file_schema()
    else:
        raise ValueError(f"unknown schema kind `{kind}`; expected one of: {', '.join(KINDS)}")
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
