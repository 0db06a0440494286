"""JSON with comments: each client's files read as that client reads them, edited with every
comment kept, and given back byte for byte on uninstall.

Gemini CLI reads `settings.json` as `JSON.parse(stripJsonComments(text))`; `gemini_reads` below
does the same in Python (comments become spaces, then strict JSON), so every edited file is
checked by the client's own rule as well as by STYLE's parser.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from agentstyle.configfiles.hookconfig import (
    ensure_key,
    install_flat,
    installed,
    undo_key,
    uninstall_flat,
)
from agentstyle.configfiles.jsonedit import (
    Dialect,
    JsonEditError,
    install_hooks,
    installed_handlers,
    uninstall_hooks,
)
from agentstyle.configfiles.jsonspans import parse_document
from agentstyle.harnesses import adapter_for
from tests.support.jsondocs import (
    GEMINI,
    GROUPS,
    comment_texts,
    dump,
    gemini_reads,
    is_ours,
    random_document,
    random_style,
)

# The editor with comments and a byte order mark both read (no client has this pair; it puts
# the BOM through the comment-aware code paths).
COMMENTS_AND_BOM = Dialect(client="test", comments=True, bom=True)


# ---------------------------------------------------------------------------------------------
# Reading: exactly what each client reads


def test_gemini_reads_comments_anywhere_between_tokens() -> None:
    text = (
        '// top\n/* a */ { /* b */ "url" /* c */ : /* d */ "http://x//y /* not a comment */"'
        ' // e "quoted" {\n, "n": [1 /* f */, 2] } // g\n/* h'
    )
    doc = parse_document(text, dialect=GEMINI)
    assert doc.root.value == gemini_reads(text)
    assert doc.root.value == {"url": "http://x//y /* not a comment */", "n": [1, 2]}
    assert [text[c.start : c.end] for c in doc.comments] == [
        "// top",
        "/* a */",
        "/* b */",
        "/* c */",
        "/* d */",
        '// e "quoted" {',
        "/* f */",
        "// g",
        "/* h",  # unclosed after the value: strip-json-comments runs it to the end
    ]


def test_a_line_comment_ends_before_crlf() -> None:
    text = '{\r\n  "a": 1 // one\r\n}\r\n'
    [comment] = parse_document(text, dialect=GEMINI).comments
    assert text[comment.start : comment.end] == "// one"


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ('{\n  "a": 1,\n}', "2:9", "trailing comma is not allowed"),
        ('{"a": [1, /* x */ ]}', "1:9", "trailing comma is not allowed"),
        ('{\n  "a": /* open\n}', "2:8", "unterminated comment"),
        ('{"a": 1 / 2}', "1:9", "expected `,` or `}`"),
        ('{"a": tr/**/ue}', "1:7", "expected a value, found `t`"),
        ('\ufeff{"a": 1}', "1:1", "the file starts with a byte order mark, which gemini cli"),
        ('{"a": 1} */', "1:10", "unexpected text after the JSON value"),
    ],
)
def test_what_gemini_refuses_is_refused_with_its_position(
    text: str, where: str, message: str
) -> None:
    with pytest.raises(ValueError):
        gemini_reads(text)
    with pytest.raises(JsonEditError) as caught:
        install_hooks(text, GROUPS["one"], is_ours=is_ours, name="settings.json", dialect=GEMINI)
    assert str(caught.value).startswith(f"settings.json:{where}: invalid JSON: {message}")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("harness", "text", "message"),
    [
        (
            "codex",
            '{\n  // mine\n  "hooks": {}\n}\n',
            "2:3: invalid JSON: comments are not allowed",
        ),
        ("codex", '\ufeff{"hooks": {}}', "1:1: invalid JSON: the file starts with a byte order"),
        ("claude-code", '{"a": 1 /* x */}', "1:9: invalid JSON: comments are not allowed"),
        ("cursor", '{"version": 1, // x\n}', "1:16: invalid JSON: comments are not allowed"),
        ("cursor", '{"version": 1,}', "1:14: invalid JSON: trailing comma is not allowed"),
    ],
)
def test_strict_clients_refuse_what_they_cannot_read(harness: str, text: str, message: str) -> None:
    adapter = adapter_for(harness)
    with pytest.raises(JsonEditError) as caught:
        adapter.write_config(text, {}, is_ours, "hooks.json", [])
    assert str(caught.value).startswith(f"hooks.json:{message}")
    if "comments" in message:
        reader = adapter.config_dialect().client
        assert str(caught.value).endswith(f"not allowed in a file {reader} reads as strict JSON")


@pytest.mark.parametrize("harness", ["claude-code", "cursor"])
def test_claude_code_and_cursor_read_past_a_byte_order_mark(harness: str) -> None:
    adapter = adapter_for(harness)
    user = '\ufeff{\n  "a": 1\n}\n'
    one = {"command": "python -m agentstyle.hook --event x"}
    event = "stop" if adapter.flat else "Stop"
    entries = {event: [adapter.group(one, None)]}
    text, markers = adapter.write_config(user, entries, is_ours, "x.json", [])
    assert text.startswith('\ufeff{\n  "a": 1,\n')
    assert adapter.strip_config(text, is_ours, markers, "x.json") == user


# Random JSONC next to the reference reader: STYLE accepts a text exactly when Gemini CLI does.

_PIECES = [
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    '"k"',
    '"a//b"',
    '"/*x*/"',
    '"\\""',
    "1",
    "-0.5",
    "true",
    "null",
    " ",
    "\n",
    "\r\n",
    "// c\n",
    "// c",
    "/* c */",
    "/* c",
    "*/",
    "/",
    "\ufeff",
    "// \u00a0 ",
    "/*\u3000*/",
    "/*\x0b*/",
    "\u00a0",
]


def _mutant(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 14)))
    base = list(jsonc_text(rng))
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(base) + 1)
        base[at:at] = rng.choice(_PIECES)
    return "".join(base)


@pytest.mark.parametrize("seed", range(60))
def test_accepts_exactly_what_gemini_accepts(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        text = _mutant(rng)
        try:
            expected = gemini_reads(text)
        except ValueError:
            expected = ValueError
        try:
            got: Any = parse_document(text, dialect=GEMINI).root.value
        except JsonEditError:
            got = ValueError
        assert got == expected, repr(text)


# ---------------------------------------------------------------------------------------------
# Random files with comments in every place: install, uninstall, byte for byte

COMMENT_BODIES = [
    "note",
    " { } [ ] , : ",
    ' "quoted" ',
    " // nested",
    " /* inner",
    " ünï ✓ 日本",
    " agentstyle.hook",
    "*",
    "",
    ' "hooks": {} ',
]


def _comment(rng: random.Random, newline: str) -> str:
    body = rng.choice(COMMENT_BODIES)
    if rng.random() < 0.5:
        return "//" + body + newline  # a line comment needs its line break
    if rng.random() < 0.2:
        body += newline + "  more" + newline
    return "/*" + body + "*/"


def _gaps(text: str) -> list[int]:
    """Offsets between tokens (outside strings, not inside a number or a literal)."""
    inside = [False] * (len(text) + 1)
    in_string = False
    i = 0
    while i < len(text):
        if in_string:
            inside[i] = True
            if text[i] == "\\":
                inside[i + 1] = True
                i += 2
                continue
            in_string = text[i] != '"'
        else:
            in_string = text[i] == '"'
        i += 1
    word = re.compile(r"[0-9A-Za-z.+\-]")
    gaps = []
    for at in range(len(text) + 1):
        prev, cur = text[at - 1 : at], text[at : at + 1]
        if inside[at] or (prev == "\r" and cur == "\n") or cur == "\ufeff":
            continue
        if not (word.match(prev or " ") and word.match(cur or " ")):
            gaps.append(at)
    return gaps


def with_comments(text: str, rng: random.Random, newline: str, density: float = 0.3) -> str:
    gaps = _gaps(text)
    chosen = sorted(rng.sample(gaps, max(1, int(len(gaps) * density * rng.random()))))
    out, last = [], 0
    for at in chosen:
        out.append(text[last:at])
        out.append(_comment(rng, newline))
        last = at
    out.append(text[last:])
    return "".join(out)


def jsonc_text(rng: random.Random, doc: dict[str, Any] | None = None) -> str:
    style = random_style(rng)
    user = dump(random_document(rng) if doc is None else doc, rng, style)
    return with_comments(user + rng.choice(["", style["newline"]]), rng, style["newline"])


def test_the_gap_finder_never_lands_inside_a_string() -> None:
    text = '{"a\\"b": "x // y", "n": -1.5e3, "t": [true, null]}'
    for at in _gaps(text):
        spliced = text[:at] + "/*!*/" + text[at:]
        assert gemini_reads(spliced) == json.loads(text)


@pytest.mark.parametrize("seed", range(300))
def test_random_commented_files_round_trip(seed: int) -> None:
    rng = random.Random(seed)
    user = jsonc_text(rng)
    value = gemini_reads(user)
    groups = GROUPS[rng.choice(sorted(GROUPS))]
    text = install_hooks(user, groups, is_ours=is_ours, dialect=GEMINI)
    assert uninstall_hooks(text, is_ours=is_ours, dialect=GEMINI) == user
    assert install_hooks(text, groups, is_ours=is_ours, dialect=GEMINI) == text
    assert installed_handlers(text, is_ours=is_ours, dialect=GEMINI) == groups
    assert comment_texts(text) == comment_texts(user)
    read = gemini_reads(text)
    assert {k: v for k, v in read.items() if k != "hooks"} == {
        k: v for k, v in value.items() if k != "hooks"
    }
    for event, wanted in groups.items():
        theirs = (value.get("hooks") or {}).get(event, [])
        assert read["hooks"][event] == theirs + wanted


def without_empties(value: Any) -> Any:
    if not isinstance(value, dict) or not isinstance(value.get("hooks"), dict):
        return value
    hooks = {e: g for e, g in value["hooks"].items() if g != []}
    rest = {k: v for k, v in value.items() if k != "hooks"}
    return {**rest, "hooks": hooks} if hooks else rest


def style_free(value: Any) -> Any:
    """`value` with STYLE's groups taken out of its event lists (what uninstall must leave)."""
    if not isinstance(value, dict) or not isinstance(value.get("hooks"), dict):
        return value
    hooks = {
        event: [g for g in groups if not any(is_ours(h) for h in g.get("hooks", []))]
        for event, groups in value["hooks"].items()
    }
    return {**value, "hooks": hooks}


@pytest.mark.parametrize("seed", range(200))
def test_user_comments_around_and_inside_style_entries_stay(seed: int) -> None:
    """A file edited after install: the user's comments anywhere, STYLE's entries anywhere.
    Uninstall leaves a file Gemini reads, without STYLE's entries, with every comment."""
    rng = random.Random(seed)
    doc = random_document(rng)
    doc.setdefault("hooks", {})
    for event, wanted in GROUPS[rng.choice(sorted(GROUPS))].items():
        groups = doc["hooks"].setdefault(event, [])
        for g in wanted:
            groups.insert(rng.randint(0, len(groups)), g)
    text = jsonc_text(rng, doc)
    cleaned = uninstall_hooks(text, is_ours=is_ours, dialect=GEMINI)
    assert without_empties(gemini_reads(cleaned)) == without_empties(style_free(gemini_reads(text)))
    assert comment_texts(cleaned) == comment_texts(text)
    assert uninstall_hooks(cleaned, is_ours=is_ours, dialect=GEMINI) == cleaned
    again = install_hooks(text, GROUPS["three"], is_ours=is_ours, dialect=GEMINI)
    assert install_hooks(again, GROUPS["three"], is_ours=is_ours, dialect=GEMINI) == again
    assert uninstall_hooks(again, is_ours=is_ours, dialect=GEMINI) == cleaned
    assert comment_texts(again) == comment_texts(text)


# ---------------------------------------------------------------------------------------------
# Where new entries go, and what stays on uninstall (outputs checked by eye)

EVERY_PLACE = """\
// top of the file
{
  /* between keys */ "theme": "GitHub", // on the same line as a value
  "url": "http://example.com/a//b", /* holds { } " and // */
  "hooks": { // inside hooks
    "BeforeTool": [ // inside the event list
      {"matcher": "write_file", "hooks": []} // after the last member
      // the list's trailing comment block
    ]
    /* after the last member of hooks */
  }
  // end of the root object
}
// after the root
"""

STYLE_GROUP = {"hooks": [{"type": "command", "command": "python -m agentstyle.hook x"}]}


def test_new_entries_go_after_the_last_member_and_its_comment() -> None:
    text = install_hooks(
        EVERY_PLACE, {"BeforeTool": [STYLE_GROUP]}, is_ours=is_ours, dialect=GEMINI
    )
    assert text == EVERY_PLACE.replace(
        '      {"matcher": "write_file", "hooks": []} // after the last member\n',
        '      {"matcher": "write_file", "hooks": []}, // after the last member\n'
        "      {\n"
        '        "hooks": [\n'
        "          {\n"
        '            "type": "command",\n'
        '            "command": "python -m agentstyle.hook x"\n'
        "          }\n"
        "        ]\n"
        "      }\n",
    )
    assert uninstall_hooks(text, is_ours=is_ours, dialect=GEMINI) == EVERY_PLACE


def test_a_new_event_goes_before_the_trailing_comment_of_hooks() -> None:
    text = install_hooks(EVERY_PLACE, {"AfterTool": [STYLE_GROUP]}, is_ours=is_ours, dialect=GEMINI)
    assert '    ],\n    "AfterTool": [\n' in text
    assert text.index('"AfterTool"') < text.index("/* after the last member of hooks */")
    assert uninstall_hooks(text, is_ours=is_ours, dialect=GEMINI) == EVERY_PLACE


def test_an_empty_commented_object_gets_its_entries_below_the_comment() -> None:
    user = '{\r\n\t"hooks": {\r\n\t\t// STYLE adds its hooks here\r\n\t}\r\n}\r\n'
    text = install_hooks(user, {"BeforeTool": [STYLE_GROUP]}, is_ours=is_ours, dialect=GEMINI)
    assert text.startswith(
        '{\r\n\t"hooks": {\r\n\t\t// STYLE adds its hooks here\r\n'
        '\t\t"BeforeTool": [\r\n\t\t\t{\r\n'
    )
    assert "\n" not in text.replace("\r\n", "")
    assert uninstall_hooks(text, is_ours=is_ours, dialect=GEMINI) == user
    # The user's comment makes the object theirs: it stays, even emptied.
    assert '"hooks": {' in uninstall_hooks(text, is_ours=is_ours, dialect=GEMINI)


def test_a_users_comment_on_a_style_entry_stays_on_its_own_line() -> None:
    installed_text = install_hooks(
        EVERY_PLACE, {"BeforeTool": [STYLE_GROUP]}, is_ours=is_ours, dialect=GEMINI
    )
    # The user notes something on STYLE's closing line and above STYLE's group.
    edited = installed_text.replace(
        "          }\n        ]\n      }\n      // the list",
        "          }\n        ]\n      } // keep until the audit\n      // the list",
    ).replace('      {\n        "hooks"', '      // STYLE\'s guard\n      {\n        "hooks"')
    assert edited.count("keep until") == 1 and edited.count("STYLE's guard") == 1
    cleaned = uninstall_hooks(edited, is_ours=is_ours, dialect=GEMINI)
    assert cleaned == EVERY_PLACE.replace(
        "      // the list",
        "      // STYLE's guard\n      // keep until the audit\n      // the list",
    )
    assert gemini_reads(cleaned) == gemini_reads(EVERY_PLACE)


def test_a_comment_inside_a_style_group_stays_and_reinstall_goes_after_it() -> None:
    user = '{\n  "hooks": {\n    "BeforeTool": []\n  }\n}\n'
    text = install_hooks(user, {"BeforeTool": [STYLE_GROUP]}, is_ours=is_ours, dialect=GEMINI)
    edited = text.replace('        "hooks": [', '        // do not remove\n        "hooks": [')
    cleaned = uninstall_hooks(edited, is_ours=is_ours, dialect=GEMINI)
    assert (
        cleaned == '{\n  "hooks": {\n    "BeforeTool": [\n      // do not remove\n    ]\n  }\n}\n'
    )
    again = install_hooks(edited, {"BeforeTool": [STYLE_GROUP]}, is_ours=is_ours, dialect=GEMINI)
    assert again.index("// do not remove") < again.index("agentstyle.hook")
    assert install_hooks(again, {"BeforeTool": [STYLE_GROUP]}, is_ours=is_ours, dialect=GEMINI) == (
        again
    )


COMMENTED_SHAPES: dict[str, str] = {
    "every-place": EVERY_PLACE,
    "crlf": EVERY_PLACE.replace("\n", "\r\n"),
    "bom-crlf": "\ufeff" + EVERY_PLACE.replace("\n", "\r\n"),
    "one-line-block-comments": '{"a": 1 /* one */, "hooks": {"BeforeTool": [ /* none */ ]}}',
    "empty-one-line-comment": '{\n  "hooks": { /* none yet */ }\n}\n',
    "empty-root-comment": "{\n  // nothing yet\n}\n",
    "empty-root-block": "{ /* nothing yet */ }",
    "comment-after-colon": '{\n  "hooks": // STYLE and mine\n  {\n    "Stop": []\n  }\n}\n',
    "comma-first": '{ "a": 1\n, "b": 2 // two\n, "hooks": {}\n}\n',
    "glued-with-comment": (
        '{"hooks": {"BeforeTool": [{\n  "matcher": "X", "hooks": []\n} /* g */]}}'
    ),
    "open-comment-at-end": '{\n  "a": 1\n}\n/* the rest is a comment',
    "comments-only-around": '/* a */{"hooks":{}}// b',
    "multi-line-block-after-last": '{\n  "a": 1 /* one\n  still one */\n}\n',
    "block-comment-before-a-glued-bracket": (
        '{"hooks": {"Stop": [{"m": 1} /* a\n b */], "PreToolUse": [\n// c\n/**/]}}'
    ),
    "tabs-and-trailing-spaces": '{\n\t"a": [1, 2],   \n\t"b": {} // b   \n}\n',
}


@pytest.mark.parametrize("groups_id", sorted(GROUPS))
@pytest.mark.parametrize("shape", sorted(COMMENTED_SHAPES))
def test_commented_shapes_round_trip(shape: str, groups_id: str) -> None:
    user, groups = COMMENTED_SHAPES[shape], GROUPS[groups_id]
    dialect = COMMENTS_AND_BOM if user.startswith("\ufeff") else GEMINI
    text = install_hooks(user, groups, is_ours=is_ours, dialect=dialect)
    assert uninstall_hooks(text, is_ours=is_ours, dialect=dialect) == user
    assert install_hooks(text, groups, is_ours=is_ours, dialect=dialect) == text
    assert installed_handlers(text, is_ours=is_ours, dialect=dialect) == groups
    assert comment_texts(text, dialect) == comment_texts(user, dialect)
    if dialect is GEMINI:
        assert {k: v for k, v in gemini_reads(text).items() if k != "hooks"} == {
            k: v for k, v in gemini_reads(user).items() if k != "hooks"
        }


def test_a_comment_gemini_cannot_read_is_refused() -> None:
    text = '{\n  // a\u00a0no-break space\n  "a": 1\n}\n'
    with pytest.raises(ValueError):
        gemini_reads(text)
    with pytest.raises(JsonEditError) as caught:
        uninstall_hooks(text, is_ours=is_ours, dialect=GEMINI)
    assert str(caught.value) == (
        "settings.json:2:7: invalid JSON: gemini cli cannot read U+00A0 inside a comment; "
        "replace it with a plain space"
    )


# ---------------------------------------------------------------------------------------------
# The other edits: Cursor's flat layout, the keys an adapter sets

FLAT_USER = """\
{
  "version": 1, // Cursor's schema
  "hooks": {
    /* mine */
    "stop": [
      { "command": "./notify.sh" } // ping me
    ]
  }
}
"""


def test_flat_layout_keeps_comments() -> None:
    ours = {"command": "python -m agentstyle.hook --event stop"}
    handlers = {"stop": [ours], "beforeShellExecution": [ours]}
    text = install_flat(FLAT_USER, handlers, is_ours=is_ours, dialect=GEMINI)
    assert '{ "command": "./notify.sh" }, // ping me\n      {\n' in text
    assert installed(text, is_ours=is_ours, flat=True, dialect=GEMINI) == handlers
    assert uninstall_flat(text, is_ours=is_ours, dialect=GEMINI) == FLAT_USER
    assert install_flat(text, handlers, is_ours=is_ours, dialect=GEMINI) == text


def test_set_keys_come_back_out_around_comments() -> None:
    user = '{\n  "tools": { // tool settings\n    "enableHooks": false // off for now\n  }\n}\n'
    text, marker = ensure_key(user, ("tools", "enableHooks"), True, dialect=GEMINI)
    assert marker == "=tools.enableHooks=false"
    assert text == user.replace("false", "true")
    assert undo_key(text, marker, dialect=GEMINI) == user
    user = '{\n  "tools": {\n    "sandbox": "docker" // mine\n    /* more later */\n  }\n}\n'
    text, marker = ensure_key(user, ("tools", "enableHooks"), True, dialect=GEMINI)
    assert marker == "+tools.enableHooks"
    assert '"sandbox": "docker", // mine\n    "enableHooks": true\n    /* more later */' in text
    assert undo_key(text, marker, dialect=GEMINI) == user


def test_gemini_adapter_edits_a_commented_settings_file() -> None:
    adapter = adapter_for("gemini-cli")
    user = '{\n  // mine\n  "theme": "GitHub" /* dark later */\n}\n'
    group = {"hooks": [{"type": "command", "command": "python -m agentstyle.hook --event x"}]}
    text, markers = adapter.write_config(user, {"BeforeTool": [group]}, is_ours, "s.json", [])
    assert markers == ["+tools"]
    assert adapter.enabled(text)
    assert gemini_reads(text)["hooks"] == {"BeforeTool": [group]}
    again, same = adapter.write_config(text, {"BeforeTool": [group]}, is_ours, "s.json", markers)
    assert (again, same) == (text, markers)
    assert adapter.strip_config(text, is_ours, markers, "s.json") == user
