"""The JSON Schemas of `style schema`: well formed, generated from the vocabulary, and correct."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from agentstyle.codes import CODES
from agentstyle.harnesses import SUPPORTED
from agentstyle.policy import schema as S
from agentstyle.vocabulary import (
    DEFAULT_BUDGET,
    DEFAULTABLE_FIELDS,
    EVENTS,
    INLINE_ONLY_FIELDS,
    OPERATORS,
    PACKAGE_FIELDS,
    REQUIRED_PACKAGE_FIELDS,
    RULE_FIELDS,
    SPEC_VERSION,
)

Schema = dict[str, Any]

# --- a minimal validator for the subset of draft 2020-12 the schemas use ------------------------
# jsonschema is not a dependency; the structure test below fails on any keyword outside this set,
# so the validator cannot silently skip a constraint.

ANNOTATIONS = {"$schema", "$id", "title", "description", "default", "examples", "$defs"}
ASSERTIONS = {
    "$ref", "type", "enum", "const", "pattern", "minimum", "maximum", "minLength", "minItems",
    "properties", "required", "additionalProperties", "items", "anyOf", "not", "if", "then",
    "else",
}  # fmt: skip
JSON_TYPES = {"object", "array", "string", "integer", "number", "boolean", "null"}


def _is_type(value: Any, t: str) -> bool:
    match t:
        case "object":
            return isinstance(value, dict)
        case "array":
            return isinstance(value, list)
        case "string":
            return isinstance(value, str)
        case "boolean":
            return isinstance(value, bool)
        case "null":
            return value is None
        case "integer":
            if isinstance(value, bool):
                return False
            return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
        case "number":
            return isinstance(value, (int, float)) and not isinstance(value, bool)
    raise AssertionError(f"unknown type {t}")


def _resolve(root: Schema, ref: str) -> Schema:
    assert ref.startswith("#/$defs/"), ref
    target: Schema = root["$defs"][ref[len("#/$defs/") :]]
    return target


def errors(value: Any, schema: Schema | bool, root: Schema, path: str = "$") -> list[str]:
    """Every place where `value` breaks `schema` (empty: valid)."""
    if schema is True:
        return []
    if schema is False:
        return [f"{path}: not allowed"]
    out: list[str] = []
    if "$ref" in schema:
        out += errors(value, _resolve(root, schema["$ref"]), root, path)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is_type(value, t) for t in types):
            return [*out, f"{path}: {value!r} is not of type {types}"]
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: {value!r} not in {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: {value!r} is not {schema['const']!r}")
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{path}: {value!r} does not match {schema['pattern']}")
        if len(value) < schema.get("minLength", 0):
            out.append(f"{path}: too short")
    if _is_type(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{path}: {value} < {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{path}: {value} > {schema['maximum']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{path}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += errors(item, schema["items"], root, f"{path}[{i}]")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{path}: missing {key!r}")
        for key, item in value.items():
            if key in props:
                out += errors(item, props[key], root, f"{path}.{key}")
            elif "additionalProperties" in schema:
                out += errors(item, schema["additionalProperties"], root, f"{path}.{key}")
    if "anyOf" in schema:
        branches = [errors(value, s, root, path) for s in schema["anyOf"]]
        if all(branches):
            out.append(f"{path}: no anyOf branch holds: {branches}")
    if "not" in schema and not errors(value, schema["not"], root, path):
        out.append(f"{path}: matches a `not` schema")
    if "if" in schema:
        branch = "else" if errors(value, schema["if"], root, path) else "then"
        if branch in schema:
            out += errors(value, schema[branch], root, path)
    return out


def subschemas(schema: Schema, path: str = "#") -> list[tuple[str, Schema]]:
    """Every schema object in the tree, with its JSON pointer."""
    found = [(path, schema)]
    for key in ("properties", "$defs"):
        for name, sub in schema.get(key, {}).items():
            found += subschemas(sub, f"{path}/{key}/{name}")
    for key in ("items", "not", "if", "then", "else", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            found += subschemas(schema[key], f"{path}/{key}")
    for i, sub in enumerate(schema.get("anyOf", [])):
        found += subschemas(sub, f"{path}/anyOf/{i}")
    return found


SCHEMAS: dict[str, Callable[[], Schema]] = {
    "package": S.package_schema,
    "rule-file": S.rule_file_schema,
}


def valid(kind: str, value: Any) -> list[str]:
    schema = SCHEMAS[kind]()
    return errors(value, schema, schema)


# --- structure -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(SCHEMAS))
def test_schema_is_well_formed(kind: str) -> None:
    schema = SCHEMAS[kind]()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == f"https://style.dev/schema/v0.3/{kind}.json"
    assert schema["title"] and schema["description"]
    for path, sub in subschemas(schema):
        assert isinstance(sub, dict), path
        unknown = set(sub) - ANNOTATIONS - ASSERTIONS
        assert not unknown, f"{path}: keywords outside the tested subset: {unknown}"
        if path != "#":
            assert "$schema" not in sub and "$id" not in sub, path
        if "$ref" in sub:
            assert sub["$ref"][len("#/$defs/") :] in schema["$defs"], path
        if "type" in sub:
            types = sub["type"] if isinstance(sub["type"], list) else [sub["type"]]
            assert types and set(types) <= JSON_TYPES, path
        if "enum" in sub:
            assert sub["enum"] and len(set(map(str, sub["enum"]))) == len(sub["enum"]), path
        if "pattern" in sub:
            re.compile(sub["pattern"])
        for key in ("minimum", "maximum", "minLength", "minItems"):
            if key in sub:
                assert isinstance(sub[key], int) and not isinstance(sub[key], bool), path
        if "required" in sub:
            assert len(set(sub["required"])) == len(sub["required"]), path
        if sub.get("type") == "object" and "properties" in sub:
            # Unknown keys are errors everywhere (invalid-schema), so every object is closed.
            assert sub.get("additionalProperties") is False, f"{path} is open"
            assert set(sub.get("required", [])) <= set(sub["properties"]), path
        if "default" in sub and "type" in sub:
            assert _is_type(sub["default"], sub["type"]), path
        for key in ("description", "title"):
            if key in sub:
                assert isinstance(sub[key], str) and sub[key], path


@pytest.mark.parametrize("kind", list(SCHEMAS))
def test_schema_json_is_stable(kind: str) -> None:
    text = S.schema_json(kind)
    assert text == S.schema_json(kind)
    assert json.loads(text) == SCHEMAS[kind]()
    assert text.endswith("}\n") and '\n  "$defs": {' in text
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_schema_json_unknown_kind() -> None:
    with pytest.raises(ValueError, match="package, rule-file"):
        S.schema_json("rules")


def test_schemas_are_fresh_objects() -> None:
    first = S.package_schema()
    first["$defs"]["nativeHook"]["properties"]["harness"]["enum"].append("vim")
    first["properties"]["rules"]["items"] = {}
    assert S.package_schema() != first


# --- generated from the vocabulary --------------------------------------------------------------


def test_package_fields_come_from_the_vocabulary() -> None:
    schema = S.package_schema()
    assert list(schema["properties"]) == list(PACKAGE_FIELDS)
    assert schema["required"] == list(REQUIRED_PACKAGE_FIELDS)
    assert schema["properties"]["spec"]["const"] == SPEC_VERSION
    assert set(schema["properties"]["defaults"]["properties"]) == DEFAULTABLE_FIELDS
    assert set(schema["properties"]["budget"]["properties"]) == set(DEFAULT_BUDGET)
    defs = schema["$defs"]
    assert set(defs["inlineRule"]["properties"]) == set(RULE_FIELDS) - {"from"}
    assert set(defs["fromEntry"]["properties"]) == (
        set(RULE_FIELDS) - {"id", "file", "text", "target"}
    )
    assert defs["nativeHook"]["properties"]["event"]["enum"] == list(EVENTS)
    assert set(defs["condition"]["properties"]["op"]["enum"]) == OPERATORS
    for name, ft in RULE_FIELDS.items():
        prop = defs["inlineRule"]["properties"].get(name) or defs["fromEntry"]["properties"][name]
        assert prop["description"] == ft.description
        if ft.kind == "enum":
            assert prop["enum"] == list(ft.values)
        if ft.kind == "int":
            assert (prop.get("minimum"), prop.get("maximum")) == (ft.minimum, ft.maximum)


def test_rule_file_fields_come_from_the_vocabulary() -> None:
    schema = S.rule_file_schema()
    assert set(schema["properties"]) == (set(RULE_FIELDS) - INLINE_ONLY_FIELDS) | {"priority"}
    assert schema["additionalProperties"] is False


def test_patterns_agree_with_the_loader() -> None:
    from agentstyle.policy import manifest

    # the loader and the schema both take SUPPORTED's names, in its order
    requires = S.package_schema()["properties"]["requires"]["properties"]["harnesses"]
    assert tuple(requires["properties"]) == manifest.HARNESSES == SUPPORTED
    samples = [
        "a", "pkg", "team-guards", "Team", "-x", "a_b", "a/b", "a//b", "a/", "a..b", "a.b",
        "drafts/wip", "1.2.3", "1.2", "v1.2.3", "1.2.3-rc.1", "1.2.3+build.5", "01.2.3", "x" * 64,
        "x" * 65, "x" * 128, "x" * 129, "lang", "lang_2", "2lang", "",
    ]  # fmt: skip
    for s in samples:
        assert bool(re.search(S.NAME_PATTERN, s)) == bool(manifest.NAME_RE.match(s)), s
        assert bool(re.search(S.VERSION_PATTERN, s)) == bool(manifest.VERSION_RE.match(s)), s
        assert bool(re.search(S.SETTING_NAME_PATTERN, s)) == bool(manifest.SETTING_RE.match(s)), s
        assert bool(re.search(S.ID_PATTERN, s)) == (manifest.id_problem(s) is None), s


# --- samples -------------------------------------------------------------------------------------

HEADER = {"spec": "style/v0.3", "name": "pkg", "version": "1.0.0", "description": "example"}
FORCE_PUSH = {
    "field": "tool.input.command",
    "op": "shell_regex",
    "pattern": "^git push .*(--force|-f)",
}

# The example packages of datasets/packages/ (actions and timing, rules and templates).
EXAMPLE_PACKAGES: dict[str, Schema] = {
    "ac-min": {
        **HEADER,
        "name": "ac-min",
        "version": "0.1.0",
        "rules": [
            {
                "id": "force-push-guard",
                "target": "tool",
                "tool": "shell",
                "action": "block",
                "when": {"conditions": [FORCE_PUSH]},
                "text": "Force push is not allowed.",
            }
        ],
    },
    "ac-all": {
        **HEADER,
        "name": "ac-all",
        "version": "0.1.0",
        "description": "actions example",
        "rules": [
            {
                "id": "lint-reminder",
                "target": "tool",
                "tool": "file.edit",
                "action": "warn",
                "model_text": "Run the linter after editing.",
                "text": "Edited a file. Run the linter before committing; CI rejects lint errors.",
            },
            {
                "id": "force-push-guard",
                "target": "tool",
                "tool": "shell",
                "action": "block",
                "fail": "closed",
                "when": {"conditions": [FORCE_PUSH]},
                "text": "Force push is not allowed.",
            },
            {
                "id": "plan-reminder",
                "target": "system",
                "refresh": 10,
                "reason": "Long sessions drift from the plan format.",
                "when": {"model": "*"},
                "text": "Keep plans to five steps or fewer.",
            },
            {
                "id": "per-turn",
                "target": "event",
                "event": "prompt.submitted",
                "repeat": "turn",
                "reason": "Remind on every turn.",
                "text": "State assumptions before acting.",
            },
        ],
    },
    "ac-block": {
        **HEADER,
        "rules": [
            {
                "id": "no-rm",
                "target": "tool",
                "tool": "shell",
                "action": "block",
                "when": {
                    "conditions": [
                        {"field": "tool.input.command", "op": "contains", "pattern": "rm -rf"}
                    ]
                },
                "text": "Do not run rm -rf.",
            },
            {
                "id": "shell-tips",
                "target": "tool",
                "tool": "shell",
                "at": "before",
                "text": "Prefer trash over rm.",
            },
        ],
    },
    "rules-from": {
        **HEADER,
        "rules": [
            {"from": "rules/*.md", "priority": 30},
            {"from": "rules/drafts/**/*.md", "enabled": False},
        ],
    },
    "rules-template": {
        **HEADER,
        "budget": {"per_event": 2000},
        "settings": [{"name": "language", "default": "English"}],
        "rules": [
            {"id": "house-style", "target": "system", "text": "Answer in {{settings.language}}."},
            {
                "id": "model-note",
                "target": "system",
                "when": {"model": "claude-*"},
                "text": "You are running as {{model}} in {{harness.cwd | default: 'the project'}}.",
            },
            {
                "id": "edit-review",
                "target": "tool",
                "tool": "file.edit",
                "max_tokens": 2000,
                "text": "Check this edit for style problems: {{event.tool.input}}",
            },
        ],
    },
}

# Every top-level field and every rule field at least once.
FULL_PACKAGE: Schema = {
    **HEADER,
    "priority": 70,
    "defaults": {"action": "warn", "repeat": "session", "fallback": "degrade", "max_tokens": 300},
    "settings": [
        {"name": "language", "default": "English", "description": "answer language"},
        {"name": "strict", "type": "bool", "default": True},
        {"name": "level", "type": "enum", "values": ["low", "high"], "default": "low"},
        {"name": "retries", "type": "int"},
    ],
    "requires": {
        "harnesses": {"claude-code": ">=2.1.0", "codex": ">=0.50.0"},
        "packages": [{"name": "base-guards", "version": ">=1.2.0"}, {"name": "other"}],
    },
    "budget": {"per_rule": 400, "per_event": 1200},
    "allow_code": True,
    "exceptions": [
        {
            "rule": "guard-destructive/rm-outside-project",
            "unless": 'command "rm" where (path glob "/opt/build-cache/**")',
            "reason": "The build cache is ours to clear.",
        }
    ],
    "rules": [
        {
            "id": "drafts/house.style_1",
            "target": "system",
            "file": "prompts/house.md",
            "sources": ["startup", "resume"],
            "reinject_on_compact": False,
            "mode": "replace",
            "enabled": True,
            "priority": 90,
        },
        {
            "id": "rust-unwrap",
            "target": "tool",
            "tool": ["file.write", "file.edit"],
            "names": ["MultiEdit"],
            "action": "warn",
            "at": "after",
            "model_text": "Avoid unwrap().",
            "when": 'file.path glob "**/*.rs" and tool.added regex r"\\.unwrap\\(\\)"',
            "text": "New code calls unwrap(); handle the error instead.",
        },
        {
            "id": "gh-writes",
            "target": "mcp",
            "mcp": "github",
            "action": "ask",
            "when": {
                "harness": ["claude-code", "codex"],
                "any": [
                    {"field": "mcp.tool", "op": "glob", "pattern": "create_*"},
                    {"field": "mcp.tool", "op": "in", "value": ["merge_pull_request", "push"]},
                ],
                "expr": 'not harness.permission_mode == "plan"',
            },
            "text": "Write to GitHub?",
        },
        {
            "id": "skills",
            "target": "skill",
            "skill": "deploy-*",
            "max_tokens": 100,
            "text": "Check the plan.",
        },
        {
            "id": "failures",
            "target": "event",
            "event": "tool.failed",
            "when": {
                "harness": "cursor",
                "conditions": [
                    {"field": "state.failures", "op": "gte", "pattern": 3},
                    {"field": "state.since_last_s", "op": "gt", "value": 300},
                    {"field": "tool.output", "op": "exists"},
                ],
            },
            "fail": "open",
            "refresh": 0,
            "repeat": "every",
            "reason": "Nudge after repeated failures.",
            "text": "Three failures in a row: stop and read the error.",
        },
        {"from": "./rules/**/*.md", "fallback": "skip", "at": "before", "tool": "shell"},
        {
            "id": "lease-not-force",
            "target": "tool",
            "tool": "shell",
            "action": "block",
            "when": 'tool.input.command shell_regex "^git push( \\S+)* --force( |$)"',
            "fix": {"replace": "--force( |$)", "with": "--force-with-lease\\1"},
            "text": "Force-push with a lease.",
        },
        {
            "id": "aws-keys-in-output",
            "target": "tool",
            "tool": ["shell", "file.read", "mcp"],
            "action": "redact",
            "when": 'tool.output regex r"AKIA[0-9A-Z]{16}"',
            "redact": {"pattern": "AKIA[0-9A-Z]{16}", "with": "[AWS key removed by STYLE]"},
            "text": "The output held an AWS access key; it was removed.",
        },
        {
            "id": "tests-after-edit",
            "target": "tool",
            "tool": ["file.edit", "file.write"],
            "action": "inject",
            "check": {"run": "pytest -x -q", "timeout": "300s", "cooldown": "2m"},
            "when": 'file.path glob "src/**" and check.exit != 0',
            "text": "The tests fail since your last edit: {{check.output_tail}}",
        },
        {
            "id": "rm-outside",
            "target": "tool",
            "tool": "shell",
            "action": "block",
            "when": {
                "conditions": [
                    {"command": "rm", "where": 'option "-r" and path outside project'},
                    {"command": ["rm", "unlink"]},
                ]
            },
            "unless": 'command "rm" where (path glob "/opt/cache/**")',
            "text": "No recursive deletes outside the project.",
        },
    ],
    "native_hooks": [
        {
            "id": "notify",
            "event": "notification",
            "command": "notify-send STYLE",
            "matcher": ".*",
            "timeout": 5,
            "harness": "claude-code",
        }
    ],
}


def _pkg(**changes: Any) -> Schema:
    p = copy.deepcopy(FULL_PACKAGE)
    p.update(changes)
    return p


def _rule(index: int, **changes: Any) -> Schema:
    p = copy.deepcopy(FULL_PACKAGE)
    p["rules"][index].update(changes)
    return p


def _without(key: str) -> Schema:
    p = copy.deepcopy(FULL_PACKAGE)
    del p[key]
    return p


@pytest.mark.parametrize("name", list(EXAMPLE_PACKAGES))
def test_seed_packages_are_valid(name: str) -> None:
    assert valid("package", EXAMPLE_PACKAGES[name]) == []


def test_full_package_is_valid() -> None:
    assert valid("package", FULL_PACKAGE) == []
    used = {k for r in FULL_PACKAGE["rules"] for k in r}
    assert used == set(RULE_FIELDS), "the sample should use every rule field"
    assert set(FULL_PACKAGE) == set(PACKAGE_FIELDS)


def test_hooks_only_package_is_valid() -> None:
    assert valid("package", _without("rules")) == []


REJECTED: dict[str, tuple[Any, str]] = {
    "unknown top-level key": (_pkg(owner="me"), "$.owner"),
    "missing description": (_without("description"), "'description'"),
    "other spec": (_pkg(spec="style/v0.2"), "$.spec"),
    "bad name": (_pkg(name="Team_Guards"), "$.name"),
    "short version": (_pkg(version="1.2"), "$.version"),
    "priority over 100": (_pkg(priority=101), "$.priority"),
    "priority as string": (_pkg(priority="high"), "$.priority"),
    "no rules and no hooks": (_pkg(rules=[], native_hooks=[], exceptions=[]), "fewer than 1"),
    "rules not a list": (_pkg(rules={"id": "x"}), "$.rules"),
    "rule item not a mapping": (_pkg(rules=["no-force-push"]), "$.rules[0]"),
    "non-defaultable default": (_pkg(defaults={"text": "hi"}), "$.defaults.text"),
    "unknown default": (_pkg(defaults={"actoin": "warn"}), "$.defaults.actoin"),
    "unknown setting key": (_pkg(settings=[{"name": "x", "kind": "string"}]), ".kind"),
    "bad setting name": (_pkg(settings=[{"name": "Lang"}]), ".name"),
    "bad setting type": (_pkg(settings=[{"name": "x", "type": "float"}]), ".type"),
    "enum setting without values": (_pkg(settings=[{"name": "x", "type": "enum"}]), "'values'"),
    "unknown harness in requires": (_pkg(requires={"harnesses": {"vim": ">=9"}}), ".vim"),
    "unknown requires key": (_pkg(requires={"tools": []}), ".tools"),
    "required package without name": (_pkg(requires={"packages": [{"version": ">=1"}]}), "'name'"),
    "zero budget": (_pkg(budget={"per_rule": 0}), ".per_rule"),
    "unknown budget key": (_pkg(budget={"per_turn": 10}), ".per_turn"),
    "unknown rule field": (_rule(1, actoin="warn"), ".actoin"),
    "bad action": (_rule(1, action="deny"), ".action"),
    "refresh decimal": (_rule(4, refresh=2.5), ".refresh"),
    "refresh boolean": (_rule(4, refresh=True), ".refresh"),
    "refresh too large": (_rule(4, refresh=1_000_001), ".refresh"),
    "enabled as string": (_rule(0, enabled="yes"), ".enabled"),
    "bad source": (_rule(0, sources=["boot"]), ".sources[0]"),
    "empty tool list": (_rule(1, tool=[]), "fewer than 1"),
    "unknown event": (_rule(4, event="PreToolUse"), ".event"),
    "id with dots": (_rule(0, id="a/../b"), ".id"),
    "id with trailing slash": (_rule(0, id="a/"), ".id"),
    "id not a string": (_rule(0, id=42), ".id"),
    "inline without id": (_pkg(rules=[{"text": "Answer in English."}]), "'id'"),
    "inline without body": (_pkg(rules=[{"id": "x"}]), "'text'"),
    "file and text": (_rule(0, text="Also this."), "`not`"),
    "from with id": (_rule(5, id="x"), "[5].id"),
    "from with text": (_rule(5, text="x"), "[5].text"),
    "from with target": (_rule(5, target="tool"), "[5].target"),
    "from outside rules": (_rule(5, **{"from": "prompts/*.md"}), "[5].from"),
    "from not markdown": (_rule(5, **{"from": "rules/*.txt"}), "[5].from"),
    "unknown when key": (_rule(2, when={"models": "claude-*"}), ".models"),
    "when harness unknown": (_rule(2, when={"harness": ["vim"]}), "'vim'"),
    "when not string or mapping": (_rule(2, when=["x"]), "'object'"),
    "condition unknown key": (
        _rule(4, when={"conditions": [{"field": "x", "op": "gt", "n": 1}]}),
        "[0].n:",
    ),
    "condition unknown op": (
        _rule(4, when={"conditions": [{"field": "x", "op": "matches"}]}),
        "'matches'",
    ),
    "condition without field": (_rule(4, when={"any": [{"op": "exists"}]}), "'field'"),
    "native hook unknown key": (
        _pkg(native_hooks=[{"id": "n", "event": "stop", "command": "x", "async": True}]),
        ".async",
    ),
    "native hook bad event": (
        _pkg(native_hooks=[{"id": "n", "event": "Stop", "command": "x"}]),
        ".event",
    ),
    "native hook without command": (_pkg(native_hooks=[{"id": "n", "event": "stop"}]), "'command'"),
    "native hook zero timeout": (
        _pkg(native_hooks=[{"id": "n", "event": "stop", "command": "x", "timeout": 0}]),
        ".timeout",
    ),
    "native hook unknown harness": (
        _pkg(native_hooks=[{"id": "n", "event": "stop", "command": "x", "harness": "vim"}]),
        ".harness",
    ),
    "allow_code not a boolean": (_pkg(allow_code="yes"), ".allow_code"),
    "not a mapping": (["spec", "style/v0.3"], "'object'"),
}


@pytest.mark.parametrize("case", list(REJECTED))
def test_package_schema_rejects(case: str) -> None:
    package, where = REJECTED[case]
    problems = valid("package", package)
    assert any(where in p for p in problems), problems


RULE_FILES_OK: dict[str, Schema] = {
    "empty": {},
    "gate": {
        "target": "tool",
        "tool": "shell",
        "action": "block",
        "at": "before",
        "fail": "closed",
        "priority": 80,
        "when": {"conditions": [FORCE_PUSH]},
    },
    "system": {"target": "system", "refresh": 5, "repeat": "session", "reason": "drift"},
}
RULE_FILES_REJECTED: dict[str, Schema] = {
    "id": {"id": "x"},
    "text": {"text": "x"},
    "file": {"file": "x.md"},
    "from": {"from": "rules/*.md"},
    "package name": {"name": "pkg"},
    "package description": {"description": "x"},
    "unknown field": {"actoin": "block"},
    "bad priority": {"priority": -1},
}


@pytest.mark.parametrize("case", list(RULE_FILES_OK))
def test_rule_file_schema_accepts(case: str) -> None:
    assert valid("rule-file", RULE_FILES_OK[case]) == []


@pytest.mark.parametrize("case", list(RULE_FILES_REJECTED))
def test_rule_file_schema_rejects(case: str) -> None:
    assert valid("rule-file", RULE_FILES_REJECTED[case]) != []


# --- the schema and the code docs agree ----------------------------------------------------------

# Codes whose documented example breaks the schema; every other example must pass it, since the
# schema is for editors and should flag exactly the structural mistakes.
SCHEMA_CODES = {
    "unsupported-spec", "invalid-package", "invalid-schema", "bad-name", "bad-version", "bad-id",
    "inline-missing-id", "file-and-text", "from-and-inline", "override-target",
    "refresh-invalid", "unknown-event",
}  # fmt: skip


# Examples that span several files (they start with a `# file` comment) have no single document.
SINGLE_DOCUMENT = [n for n in CODES if not CODES[n].example.startswith("#")]


@pytest.mark.parametrize("name", SINGLE_DOCUMENT)
def test_code_examples_against_the_schema(name: str) -> None:
    example = CODES[name].example.partition("\n\n")[0]
    data = yaml.safe_load(example)
    package = data if "spec" in data else {**HEADER, **data}
    problems = valid("package", package)
    if name in SCHEMA_CODES:
        assert problems, f"the schema accepts the example of {name}"
    else:
        assert problems == [], f"the schema rejects the example of {name}"
