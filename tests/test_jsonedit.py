"""Minimal-edit JSON: install then uninstall gives the user's settings file back byte for byte."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from agentstyle.configfiles.jsonedit import (
    JsonEditError,
    install_hooks,
    installed_handlers,
    parse_with_spans,
    uninstall_hooks,
)
from tests.support.jsondocs import (
    GROUPS,
    PY,
    USER_HANDLER,
    dump,
    group,
    is_ours,
    random_document,
    random_style,
)

SHAPES: dict[str, str] = {
    "empty-object": "{}",
    "empty-object-newline": "{}\n",
    "empty-object-inner-newline": "{\n}\n",
    "empty-object-space": "{ }",
    "permissions-2": (
        '{\n  "permissions": {\n    "allow": [\n      "Bash(npm run lint)"\n    ],\n'
        '    "deny": []\n  },\n  "model": "opus"\n}\n'
    ),
    "permissions-4-no-final-newline": (
        '{\n    "permissions": {\n        "allow": ["Bash(git status)", "Read"]\n    }\n}'
    ),
    "tabs": '{\n\t"env": {\n\t\t"FOO": "1"\n\t},\n\t"hooks": {\n\t}\n}\n',
    "crlf": '{\r\n  "includeCoAuthoredBy": false,\r\n  "hooks": {}\r\n}\r\n',
    "compact": '{"permissions":{"allow":["Read"]},"model":"sonnet"}',
    "compact-spaces": '{"permissions": {"allow": ["Read"]}, "hooks": {}}\n',
    "hooks-empty-inline": '{\n  "hooks": {},\n  "z": [1, 2.5e3, -0.0, true, null]\n}\n',
    "hooks-first-user-event-same": (
        '{\n  "hooks": {\n    "PreToolUse": [\n      {\n        "matcher": "Bash",\n'
        '        "hooks": [\n          ' + USER_HANDLER + "\n        ]\n      }\n    ]\n"
        '  },\n  "permissions": {}\n}\n'
    ),
    "user-event-other": (
        '{\n  "hooks": {\n    "Notification": [\n      {\n        "hooks": [' + USER_HANDLER + "]\n"
        "      }\n    ]\n  }\n}\n"
    ),
    "user-empty-event-arrays": (
        '{\n  "hooks": {\n    "PreToolUse": [],\n    "Stop": [\n    ],\n    "SessionStart": [ ]\n'
        "  }\n}\n"
    ),
    "unicode-and-escapes": (
        '{\n  "statusLine": {"type": "command", "command": "echo \\"ünïcødé ✓ 日本\\" \\u00e9"},\n'
        '  "😀": "\\ud83d\\ude00",\n  "hooks": {"Stop": [{"hooks": [' + USER_HANDLER + "]}]}\n}\n"
    ),
    "odd-spacing": '{ "a" : 1 ,\n"hooks" : { "PreToolUse" : [ ] } ,"b":{}}\n\n',
    "one-line-hooks-in-pretty": (
        '{\n  "hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [' + USER_HANDLER + "]}]},\n"
        '  "x": 1\n}\n'
    ),
    "glued-closing": '{"hooks": {"PreToolUse": [{\n  "matcher": "X", "hooks": []\n}]}}',
    "user-group-without-handlers": (
        '{\n  "hooks": {\n    "PreToolUse": [\n      {"matcher": "Bash", "hooks": []}\n'
        "    ]\n  }\n}\n"
    ),
    "bom": '\ufeff{\n  "a": "b"\n}\n',
    "crlf-tabs-no-final": '{\r\n\t"hooks": {\r\n\t\t"Stop": []\r\n\t}\r\n}',
    "duplicate-hooks-key": '{\n  "hooks": {"Stop": []},\n  "hooks": {}\n}\n',
    "deep-user-data": '{\n  "a": {"b": {"c": [[[], {}], [{"d": [null]}]]}}\n}\n',
}


def style_handler_count(value: Any) -> int:
    if isinstance(value, dict):
        own = 1 if is_ours(value) else 0
        return own + sum(style_handler_count(v) for v in value.values())
    if isinstance(value, list):
        return sum(style_handler_count(v) for v in value)
    return 0


@pytest.mark.parametrize("groups_id", sorted(GROUPS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_install_uninstall_round_trip(shape: str, groups_id: str) -> None:
    user, groups = SHAPES[shape], GROUPS[groups_id]
    installed = install_hooks(user, groups, is_ours=is_ours)
    assert uninstall_hooks(installed, is_ours=is_ours) == user
    assert install_hooks(installed, groups, is_ours=is_ours) == installed

    parsed = json.loads(installed.removeprefix("\ufeff"))
    hooks = parsed["hooks"]
    for event, wanted in groups.items():
        assert hooks[event][-len(wanted) :] == wanted
        assert style_handler_count(hooks[event][: -len(wanted)]) == 0
    assert style_handler_count(parsed) == sum(len(g) for g in groups.values())
    assert installed_handlers(installed, is_ours=is_ours) == groups


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_uninstall_of_a_user_file_changes_nothing(shape: str) -> None:
    assert uninstall_hooks(SHAPES[shape], is_ours=is_ours) == SHAPES[shape]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reinstall_with_other_groups_equals_fresh_install(shape: str) -> None:
    user = SHAPES[shape]
    first = install_hooks(user, GROUPS["three"], is_ours=is_ours)
    second = install_hooks(first, GROUPS["two-groups"], is_ours=is_ours)
    assert second == install_hooks(user, GROUPS["two-groups"], is_ours=is_ours)
    assert uninstall_hooks(second, is_ours=is_ours) == user
    assert install_hooks(second, {}, is_ours=is_ours) == user


def test_new_file_is_two_space_json() -> None:
    groups = GROUPS["one"]
    for nothing in (None, ""):
        text = install_hooks(nothing, groups, is_ours=is_ours)
        assert text == json.dumps({"hooks": groups}, indent=2) + "\n"
        # The caller deletes the file it created; the text itself comes back as `{}`.
        assert uninstall_hooks(text, is_ours=is_ours) == "{}\n"


def test_inserts_follow_the_file_layout() -> None:
    text = install_hooks(SHAPES["crlf"], GROUPS["one"], is_ours=is_ours)
    assert "\n" not in text.replace("\r\n", "")
    text = install_hooks(SHAPES["tabs"], GROUPS["one"], is_ours=is_ours)
    assert '\n\t\t\t{\n\t\t\t\t"matcher": "Bash|Edit",' in text
    text = install_hooks(SHAPES["compact"], GROUPS["three"], is_ours=is_ours)
    assert "\n" not in text and ": " not in text
    text = install_hooks(SHAPES["permissions-4-no-final-newline"], GROUPS["one"], is_ours=is_ours)
    assert text.endswith("\n        ]\n    }\n}") and '\n    "hooks": {\n        "Pre' in text


def test_appends_after_user_groups_in_the_same_event() -> None:
    user = SHAPES["hooks-first-user-event-same"]
    text = install_hooks(user, GROUPS["one"], is_ours=is_ours)
    events = json.loads(text)["hooks"]["PreToolUse"]
    assert events[0]["matcher"] == "Bash" and events[1] == GROUPS["one"]["PreToolUse"][0]
    assert text.startswith(user[: user.index("      }\n    ]")] + "      },\n      {\n")


def test_user_empty_event_array_stays_after_uninstall() -> None:
    user = '{\n  "hooks": {\n    "PreToolUse": []\n  }\n}\n'
    text = install_hooks(user, GROUPS["one"], is_ours=is_ours)
    assert json.loads(text)["hooks"]["PreToolUse"] == GROUPS["one"]["PreToolUse"]
    assert uninstall_hooks(text, is_ours=is_ours) == user


def test_created_event_and_hooks_are_removed() -> None:
    user = '{\n  "model": "opus"\n}\n'
    text = install_hooks(user, GROUPS["three"], is_ours=is_ours)
    assert text.startswith('{\n  "model": "opus",\n  "hooks": {\n    "PreToolUse": [\n')
    assert uninstall_hooks(text, is_ours=is_ours) == user


def test_old_style_entries_first_in_arrays_are_removed_cleanly() -> None:
    ours = json.dumps(group("PreToolUse"))
    text = (
        '{\n  "hooks": {\n    "PreToolUse": [\n      ' + ours + ",\n      "
        '{"matcher": "Read", "hooks": [' + USER_HANDLER + "]}\n    ],\n"
        '    "Stop": [\n      ' + json.dumps(group("Stop")) + "\n    ]\n  }\n}\n"
    )
    cleaned = uninstall_hooks(text, is_ours=is_ours)
    assert cleaned == (
        '{\n  "hooks": {\n    "PreToolUse": [\n      '
        '{"matcher": "Read", "hooks": [' + USER_HANDLER + "]}\n    ]\n  }\n}\n"
    )


def test_style_handler_inside_a_user_group_is_removed_alone() -> None:
    ours = json.dumps({"type": "command", "command": PY + "PreToolUse"})
    text = (
        '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": ['
        + ours
        + ", "
        + USER_HANDLER
        + ']}, {"matcher": "X", "hooks": ['
        + ours
        + "]}]}}"
    )
    cleaned = uninstall_hooks(text, is_ours=is_ours)
    assert (
        cleaned
        == '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [' + USER_HANDLER + "]}]}}"
    )


def test_duplicate_keys_edit_the_winning_one() -> None:
    user = SHAPES["duplicate-hooks-key"]
    text = install_hooks(user, GROUPS["one"], is_ours=is_ours)
    assert json.loads(text)["hooks"] == GROUPS["one"]
    assert text.startswith('{\n  "hooks": {"Stop": []},\n  "hooks": {\n')


def test_groups_must_be_recognised_by_is_ours() -> None:
    with pytest.raises(ValueError, match="is_ours"):
        install_hooks(
            "{}", {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}, is_ours=is_ours
        )


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ('{\n  "a": 1\n  "b": 2\n}', "3:3", "expected `,` or `}`"),
        ('{\n  "a": 1,\n}', "2:9", "trailing comma is not allowed"),
        ("[1, 2,]", "1:6", "trailing comma is not allowed"),
        ('{"a" 1}', "1:6", "expected `:`"),
        ('{"a": tru}', "1:7", "expected a value, found `t`"),
        ('{\n  // note\n  "a": 1\n}', "2:3", "comments are not allowed"),
        ('{"a": "x', "1:7", "unterminated string"),
        ('{"a": "\\q"}', "1:8", "invalid escape `\\q`"),
        ('{"a": "\tb"}', "1:8", "control character in string"),
        ('{"a": 01}', "1:7", "invalid number"),
        ('{"a": NaN}', "1:7", "expected a value, found `N`"),
        ("{} {}", "1:4", "unexpected text after the JSON value"),
        ('{"a": [1, 2', "1:12", "expected `,` or `]`, found end of file"),
        ("", "1:1", "expected a value, found end of file"),
        ("{\r\n  'a': 1\r\n}", "2:3", "expected a string key or `}`"),
    ],
)
def test_invalid_json_is_refused_with_position(text: str, where: str, message: str) -> None:
    with pytest.raises(JsonEditError) as caught:
        uninstall_hooks(text, is_ours=is_ours)
    assert str(caught.value) == f"settings.json:{where}: invalid JSON: {message}"
    if text:  # "" means "no file yet" to install
        with pytest.raises(JsonEditError) as caught:
            install_hooks(text, GROUPS["one"], is_ours=is_ours)
        assert str(caught.value) == f"settings.json:{where}: invalid JSON: {message}"


def test_wrong_shapes_are_refused() -> None:
    with pytest.raises(JsonEditError, match=r"^x\.json:1:1: the top level must be a JSON object"):
        install_hooks("[]", GROUPS["one"], is_ours=is_ours, name="x.json")
    with pytest.raises(JsonEditError, match=r"^settings\.json:2:12: `hooks` must be an object"):
        install_hooks('{\n  "hooks": [1]\n}', GROUPS["one"], is_ours=is_ours)
    with pytest.raises(
        JsonEditError, match=r"`hooks\.PreToolUse` must be an array, found an object"
    ):
        install_hooks('{"hooks": {"PreToolUse": {}}}', GROUPS["one"], is_ours=is_ours)
    # Nothing of STYLE's can live under a non-object `hooks`: uninstall leaves it.
    assert uninstall_hooks('{"hooks": "x"}', is_ours=is_ours) == '{"hooks": "x"}'


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(JsonEditError, match="nesting too deep"):
        parse_with_spans("[" * 5000 + "]" * 5000)


def test_spans_slice_the_source() -> None:
    text = '{ "a" : [1, {"b": "\\u00e9"}] ,\n "c": null }'
    root = parse_with_spans(text)
    assert root.value == json.loads(text)
    a = root.members[0]
    assert text[a.start : a.end] == '"a" : [1, {"b": "\\u00e9"}]'
    assert [text[s:e] for s, e in a.value.spans] == ["1", '{"b": "\\u00e9"}']
    assert [text[c] for c in root.commas + a.value.commas] == [",", ","]
    assert root.last("c") is root.members[1]


# ---------------------------------------------------------------------------------------------
# Randomised files: the same properties over many formattings (seeded, so failures replay)


@pytest.mark.parametrize("seed", range(300))
def test_random_files_round_trip(seed: int) -> None:
    rng = random.Random(seed)
    style = random_style(rng)
    user = dump(random_document(rng), rng, style) + rng.choice(["", style["newline"]])
    assert json.loads(user) is not None
    groups = GROUPS[rng.choice(sorted(GROUPS))]
    installed = install_hooks(user, groups, is_ours=is_ours)
    assert uninstall_hooks(installed, is_ours=is_ours) == user
    assert install_hooks(installed, groups, is_ours=is_ours) == installed
    hooks = json.loads(installed)["hooks"]
    for event, wanted in groups.items():
        assert hooks[event][-len(wanted) :] == wanted
    assert installed_handlers(installed, is_ours=is_ours) == groups


def without_empties(value: Any) -> Any:
    """Settings with empty event lists and an empty `hooks` object dropped (same to the harness)."""
    if not isinstance(value, dict) or not isinstance(value.get("hooks"), dict):
        return value
    hooks = {e: g for e, g in value["hooks"].items() if g != []}
    rest = {k: v for k, v in value.items() if k != "hooks"}
    return {**rest, "hooks": hooks} if hooks else rest


@pytest.mark.parametrize("seed", range(200))
def test_random_files_with_style_entries_anywhere_clean_up(seed: int) -> None:
    rng = random.Random(seed)
    style = random_style(rng)
    doc = random_document(rng)
    doc.setdefault("hooks", {})
    for event, wanted in GROUPS[rng.choice(sorted(GROUPS))].items():
        groups = doc["hooks"].setdefault(event, [])
        for g in wanted:
            groups.insert(rng.randint(0, len(groups)), g)
    text = dump(doc, rng, style)
    cleaned = uninstall_hooks(text, is_ours=is_ours)
    parsed = json.loads(cleaned)
    assert style_handler_count(parsed) == 0
    expected = json.loads(text)
    for event, groups in expected["hooks"].items():
        expected["hooks"][event] = [g for g in groups if style_handler_count(g) == 0]
    assert without_empties(parsed) == without_empties(expected)
    assert uninstall_hooks(cleaned, is_ours=is_ours) == cleaned
    installed = install_hooks(text, GROUPS["three"], is_ours=is_ours)
    assert install_hooks(installed, GROUPS["three"], is_ours=is_ours) == installed
    assert uninstall_hooks(installed, is_ours=is_ours) == cleaned
