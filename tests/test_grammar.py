"""Tests of the condition and template grammars, their error positions, and glob translation."""

from __future__ import annotations

import re

import pytest

from agentstyle.globs import glob_to_regex, is_glob
from agentstyle.grammar.ast import (
    And,
    GrammarError,
    Node,
    Not,
    Or,
    Pred,
    Segment,
    SettingRef,
    Text,
    Var,
    strip_spans,
)
from agentstyle.grammar.parse import parse_condition, parse_template
from agentstyle.source import Span
from agentstyle.vocabulary import COMPARISONS, OPERATORS

# Where the scalar starts in the package file; every span below is relative to it.
BASE = Span("STYLE.yaml", 7, 12)


def cond(text: str) -> Node:
    return parse_condition(text, lambda offset: BASE.shifted(text, offset))


def tmpl(text: str) -> tuple[Segment, ...]:
    return parse_template(text, lambda offset: BASE.shifted(text, offset))


def shape(text: str) -> object:
    return strip_spans(cond(text))


def pred(field: str, op: str, value: object = None) -> tuple[object, ...]:
    return ("pred", field, op, value)


def at(column_offset: int, line_offset: int = 0) -> Span:
    """The span `column_offset` characters into the scalar (on its first line unless told)."""
    if line_offset == 0:
        return Span(BASE.file, BASE.line, BASE.column + column_offset)
    return Span(BASE.file, BASE.line + line_offset, column_offset + 1)


def condition_error(text: str) -> GrammarError:
    with pytest.raises(GrammarError) as caught:
        cond(text)
    return caught.value


def template_error(text: str) -> GrammarError:
    with pytest.raises(GrammarError) as caught:
        tmpl(text)
    return caught.value


# --- conditions: structure -------------------------------------------------------------------

A, B, C = pred("a", "exists"), pred("b", "exists"), pred("c", "exists")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a exists or b exists and c exists", ("or", (A, ("and", (B, C))))),
        ("a exists and b exists or c exists", ("or", (("and", (A, B)), C))),
        ("not a exists and b exists", ("and", (("not", A), B))),
        ("not a exists or b exists", ("or", (("not", A), B))),
        ("(a exists or b exists) and c exists", ("and", (("or", (A, B)), C))),
        ("not (a exists or b exists)", ("not", ("or", (A, B)))),
        ("not not a exists", ("not", ("not", A))),
        ("((a exists))", A),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_precedence_and_parentheses(text: str, expected: object) -> None:
    assert shape(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "a exists and b exists and c exists",
        "(a exists and b exists) and c exists",
        "a exists and (b exists and c exists)",
    ],
)
def test_and_chains_flatten(text: str) -> None:
    assert shape(text) == ("and", (A, B, C))


def test_or_chains_flatten() -> None:
    assert shape("a exists or (b exists or c exists)") == ("or", (A, B, C))


def test_a_single_predicate_is_not_wrapped() -> None:
    node = cond("a exists")
    assert isinstance(node, Pred)
    assert node == Pred("a", "exists", None, at(0))


def test_nodes_are_typed_all_the_way_down() -> None:
    def walk(node: object) -> None:
        assert isinstance(node, Pred | And | Or | Not), type(node)
        if isinstance(node, And | Or):
            for item in node.items:
                walk(item)
        elif isinstance(node, Not):
            walk(node.item)

    walk(cond('not (a in [1, "x"] or b == 2) and c regex r"x" and exists(d)'))


# --- conditions: values ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ('"plain"', "plain"),
        ("'single'", "single"),
        ('""', ""),
        (r'"say \"hi\""', 'say "hi"'),
        (r"'it\'s'", "it's"),
        (r'"a\\b"', "a\\b"),
        (r'"tab\there\nnewline"', "tab\there\nnewline"),
        (r'"\u00e9\/"', "é/"),
        (r'"\ud83d\ude00"', "\U0001f600"),
        ('"single \' inside"', "single ' inside"),
        ("'double \" inside'", 'double " inside'),
        ('"# not a comment"', "# not a comment"),
        (r'r"\.unwrap\(\)"', r"\.unwrap\(\)"),
        (r"r'\d+\s'", r"\d+\s"),
        (r'r"keeps \" quote"', r"keeps \" quote"),
        ("0", 0),
        ("42", 42),
        ("-7", -7),
        ("3.25", 3.25),
        ("-0.5", -0.5),
        ("1e3", 1000.0),
        ("2.5E-1", 0.25),
        ("true", True),
        ("false", False),
        ("[]", ()),
        ('["a", "b"]', ("a", "b")),
        ("[1, 'two', r\"3\", true, 4.5]", (1, "two", "3", True, 4.5)),
    ],
)
def test_values(literal: str, value: object) -> None:
    node = cond(f"f equals {literal}")
    assert isinstance(node, Pred)
    assert node.value == value
    assert type(node.value) is type(value)


def test_integers_and_booleans_keep_their_types() -> None:
    node = cond("f in [1, true, 1.0]")
    assert isinstance(node, Pred)
    assert [type(v) for v in node.value] == [int, bool, float]  # type: ignore[union-attr]


# --- conditions: fields, operators, comparisons, comments ------------------------------------


@pytest.mark.parametrize(
    "field",
    [
        "prompt",
        "tool.input.command",
        "tool.input.edits.0.new_string",
        "tool.input.edits.*.new_string",
        "tool.input.old-string",
        "shell.commands.*",
        "state.since_last_s",
        # Keywords are whole words: a field may start with one.
        "notes",
        "order.and_more",
        "exists_flag",
        "truth",
    ],
)
def test_field_paths(field: str) -> None:
    assert shape(f"{field} equals 1") == pred(field, "equals", 1)


@pytest.mark.parametrize("op", sorted(OPERATORS - {"exists", "missing"}))
def test_every_operator_takes_a_value(op: str) -> None:
    assert shape(f'f {op} "x"') == pred("f", op, "x")


@pytest.mark.parametrize(("symbol", "op"), sorted(COMPARISONS.items()))
def test_every_comparison(symbol: str, op: str) -> None:
    assert shape(f"state.turns {symbol} 3") == pred("state.turns", op, 3)
    assert shape(f"state.turns{symbol}3") == pred("state.turns", op, 3)


def test_presence_spellings() -> None:
    assert shape("tool.input.x exists") == pred("tool.input.x", "exists")
    assert shape("tool.input.x missing") == pred("tool.input.x", "missing")
    assert shape("exists(tool.input.x)") == pred("tool.input.x", "exists")
    assert shape("exists ( tool.input.*.x )") == pred("tool.input.*.x", "exists")
    assert shape("not exists(a) and b missing") == ("and", (("not", A), pred("b", "missing")))


def test_a_setting_is_a_value() -> None:
    """`settings.NAME` where a value is due is a reference, kept with its own span; the
    value is filled in at install (policy/settingrefs.py)."""
    tree = cond("git.branch in settings.protected_branches")
    assert isinstance(tree, Pred) and tree.value == SettingRef("protected_branches", at(0))
    assert tree.value.span == at(14)
    assert shape("state.turns > settings.max") == pred(
        "state.turns", "gt", SettingRef("max", at(0))
    )
    listed = cond('tool.name in [settings.tools, "shell"]')
    assert isinstance(listed, Pred) and listed.value == (SettingRef("tools", at(0)), "shell")


def test_a_setting_inside_a_string_stays_text() -> None:
    tree = cond('tool.input.command shell_regex "^git push .* {{settings.branches}}$"')
    assert isinstance(tree, Pred) and tree.value == "^git push .* {{settings.branches}}$"


def test_settings_as_a_field_is_a_field() -> None:
    """Only a value may be a setting: in the field's place it stays a field name (which
    validation reports as unknown, saying a setting is a value)."""
    assert shape('settings.team == "core"') == pred("settings.team", "equals", "core")
    error = condition_error("tool.name == settings")
    assert error.message == 'unquoted string `settings` in condition, write `"settings"`'


def test_comments_and_whitespace() -> None:
    text = 'a exists   # first\n\tand b == "#" # second\n# only a comment\n'
    assert shape(text) == ("and", (A, pred("b", "equals", "#")))


def test_the_spec_example() -> None:
    text = r'file.path glob "**/*.rs" and tool.added regex r"\.unwrap\(\)"'
    assert shape(text) == (
        "and",
        (pred("file.path", "glob", "**/*.rs"), pred("tool.added", "regex", r"\.unwrap\(\)")),
    )


def test_stateful_example() -> None:
    text = "state.failures >= 3 and state.since_last_s > 300"
    expected = pred("state.failures", "gte", 3), pred("state.since_last_s", "gt", 300)
    assert shape(text) == ("and", expected)


# --- conditions: spans -----------------------------------------------------------------------


def test_spans_point_at_the_start_of_each_node() -> None:
    #       0123456789012345678901234567890123
    text = "(a exists or b == 1) and not c > 2"
    node = cond(text)
    assert isinstance(node, And)
    assert node.span == at(0)
    group, negation = node.items
    assert isinstance(group, Or) and isinstance(negation, Not)
    assert group.span == at(1)
    assert [item.span for item in group.items] == [at(1), at(13)]
    assert negation.span == at(25)
    assert negation.item.span == at(29)


def test_spans_on_later_lines() -> None:
    text = 'tool.name == "shell"\n  and exists(tool.input.command)'
    node = cond(text)
    assert isinstance(node, And)
    assert node.items[1].span == Span("STYLE.yaml", 8, 7)


# --- conditions: errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("", "empty condition", 0),
        ("   # just a comment", "empty condition", 0),
        ("a exists and )", "expected a condition after `and`", 13),
        (") a exists", "unexpected `)` in condition", 0),
        ("a exists )", "unexpected `)` in condition", 9),
        ("(a exists", "unclosed `(` in condition", 0),
        ("a exists and (b exists or (c exists)", "unclosed `(` in condition", 13),
        ("exists(a", "unclosed `(` in condition", 6),
        ("exists(1)", "expected a field after `(`", 7),
        ('a equals "abc', "unterminated string in condition", 9),
        ("a equals 'abc", "unterminated string in condition", 9),
        ('a regex r"abc', "unterminated string in condition", 8),
        ('a equals "abc\n"', "unterminated string in condition", 9),
        ("a equals", "expected a value after `equals`", 8),
        ("a equals and b exists", "expected a value after `equals`", 9),
        ("a ==", "expected a value after `==`", 4),
        ("a in [1,", "expected a value after `,`", 8),
        ("a in [1, 2", "unclosed `[` in condition", 5),
        ("a in [1 2]", "unexpected `2` in condition", 8),
        ("a in [[1]]", "expected a value after `[`", 6),
        ("a equals foo", 'unquoted string `foo` in condition, write `"foo"`', 9),
        ("a", "expected an operator after `a`", 1),
        ('a "x"', "expected an operator after `a`", 2),
        ('a matches "x"', "unknown operator `matches`", 2),
        ("a and b exists", "unknown operator `and`", 2),
        ('a Equals "x"', "unknown operator `Equals`", 2),
        ("a = 1", "unexpected `=` in condition, compare with `==`", 2),
        ("a exists & b exists", "unexpected `&` in condition", 9),
        ("a exists AND b exists", "unexpected `AND` in condition, keywords are lowercase", 9),
        ("a exists b exists", "unexpected `b` in condition", 9),
        ("a exists 1", "`exists` takes no value", 9),
        ('a missing "x"', "`missing` takes no value", 10),
        ("not", "expected a condition after `not`", 3),
        ("a exists or", "expected a condition after `or`", 11),
        ("a.b. equals 1", "unexpected `.` in condition", 3),
        (
            r'a equals "\d+"',
            'unknown escape `\\d` in string, use a raw string r"..." to keep backslashes',
            10,
        ),
        ("a equals 1 2", "unexpected `2` in condition", 11),
    ],
)
def test_condition_errors(text: str, message: str, offset: int) -> None:
    error = condition_error(text)
    assert (error.message, error.span) == (message, at(offset))


def test_long_tokens_are_shortened_in_messages() -> None:
    error = condition_error('a == 1 "a very long string that goes on and on"')
    assert error.message == 'unexpected `"a very long string that goes…` in condition'
    assert error.span == at(7)


def test_error_on_a_later_line_of_a_multi_line_condition() -> None:
    text = 'tool.name equals "shell"\n  and tool.input.command matches "x"'
    error = condition_error(text)
    assert error.message == "unknown operator `matches`"
    assert error.span == Span("STYLE.yaml", 8, 26)


def test_unexpected_end_on_a_later_line() -> None:
    text = "a exists and\n   (b exists or\n    c exists"
    error = condition_error(text)
    assert error.message == "unclosed `(` in condition"
    assert error.span == Span("STYLE.yaml", 8, 4)


def test_error_messages_follow_the_house_style() -> None:
    for text in ["", "a", "a equals", "(a exists", "a = 1", 'a matches "x"', 'a equals "x']:
        message = condition_error(text).message
        assert message[0].islower() and not message.endswith(".") and "\n" not in message


def test_keywords_are_case_sensitive() -> None:
    for text in ["a exists OR b exists", "NOT a exists", "a == TRUE"]:
        condition_error(text)


# --- templates -------------------------------------------------------------------------------


def test_plain_text_is_one_segment() -> None:
    assert tmpl("Answer in English.") == (Text("Answer in English.", at(0)),)
    assert tmpl("") == ()


def test_variables_and_text() -> None:
    #       0123456789012345678901234
    text = "Hi {{name}}, from {{ model }}!"
    assert tmpl(text) == (
        Text("Hi ", at(0)),
        Var("name", None, at(3)),
        Text(", from ", at(11)),
        Var("model", None, at(18)),
        Text("!", at(29)),
    )


@pytest.mark.parametrize(
    ("text", "default"),
    [
        ('{{x | default: "value"}}', "value"),
        ("{{x | default: 'value'}}", "value"),
        ("{{x|default:'value'}}", "value"),
        ('{{  x  |  default  :  "a b"  }}', "a b"),
        ('{{x | default: ""}}', ""),
        ("{{x | default: 'say \"hi\"'}}", 'say "hi"'),
        ('{{x | default: "it\'s"}}', "it's"),
        ('{{x | default: "{{not a var}}"}}', "{{not a var}}"),
        ('{{\n  x\n  | default: "v"\n}}', "v"),
    ],
)
def test_defaults(text: str, default: str) -> None:
    assert tmpl(text) == (Var("x", default, at(0)),)


@pytest.mark.parametrize(
    "name",
    ["model", "settings.language", "event.tool.input.old-string", "harness.cwd", "_x.y_z"],
)
def test_variable_names(name: str) -> None:
    assert tmpl(f"{{{{{name}}}}}") == (Var(name, None, at(0)),)


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        (r"\{{name}}", "{{name}}"),
        (r"a \{{ b }} c", "a {{ b }} c"),
        (r"\{{\{{", "{{{{"),
        ("a }} b", "a }} b"),
        ("{ single } braces", "{ single } braces"),
        ('json: {"a": {"b": 1}}', 'json: {"a": {"b": 1}}'),
        ("back\\slash \\{ \\n", "back\\slash \\{ \\n"),
        ("ends with {", "ends with {"),
        ("ends with \\", "ends with \\"),
    ],
)
def test_literal_text_and_escapes(text: str, literal: str) -> None:
    assert tmpl(text) == (Text(literal, at(0)),)


def test_escapes_merge_with_neighbouring_text_only() -> None:
    text = "a \\{{b}} {{c}}\\{{ d"
    assert tmpl(text) == (
        Text("a {{b}} ", at(0)),
        Var("c", None, at(9)),
        Text("{{ d", at(14)),
    )


def test_template_spans_on_later_lines() -> None:
    text = "line one\n  {{ harness.cwd | default: 'here' }}"
    segments = tmpl(text)
    assert segments[1] == Var("harness.cwd", "here", Span("STYLE.yaml", 8, 3))


@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("hi {{ name", "unclosed `{{` in template", 3),
        ("hi {{ name | default: 'x'", "unclosed `{{` in template", 3),
        ("{{", "unclosed `{{` in template", 0),
        ("a {{}} b", "empty `{{}}` in template", 2),
        ("a {{   }} b", "empty `{{}}` in template", 2),
        (
            "{{ x | upper }}",
            "unknown filter `upper` in template, only `default` is supported",
            7,
        ),
        (
            "{{ x | defaults: 'v' }}",
            "unknown filter `defaults` in template, only `default` is supported",
            7,
        ),
        ("{{ x | default: v }}", "default value `v` must be quoted", 16),
        ('{{ x | default: "v }}', "unterminated string in template", 16),
        ('{{ x | default "v" }}', 'expected `:` after `default`, found `"v"`', 15),
        ("{{ x | }}", "expected a filter after `|`, found `}}`", 7),
        ("{{ a b }}", "expected `|` or `}}` after `a`, found `b`", 5),
        ('{{ a | default: "v" b }}', 'expected `}}` after `"v"`, found `b`', 20),
        ("{{ 1x }}", "expected a variable name after `{{`, found `1x`", 3),
        ("{{{x}}}", "expected a variable name after `{{`, found `{`", 2),
    ],
)
def test_template_errors(text: str, message: str, offset: int) -> None:
    error = template_error(text)
    assert (error.message, error.span) == (message, at(offset))


def test_template_error_on_a_later_line() -> None:
    error = template_error("first line\nsecond {{ x | shout }}")
    assert error.message == "unknown filter `shout` in template, only `default` is supported"
    assert error.span == Span("STYLE.yaml", 8, 15)


# --- globs -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("glob", "matching", "not_matching"),
    [
        ("*.rs", ["main.rs", ".rs"], ["src/main.rs", "main.rsx", "main.py"]),
        ("**/*.rs", ["main.rs", "src/a/b.rs", "a/.rs"], ["main.py", "src/main.rs.bak"]),
        ("src/**", ["src/a", "src/a/b/c.txt"], ["src", "lib/a", "xsrc/a"]),
        ("a/**/b", ["a/b", "a/x/b", "a/x/y/b"], ["a/xb", "ab", "a/x/bc"]),
        ("**", ["a", "a/b/c", ""], []),
        ("a**b", ["ab", "a/x/b", "axb"], ["a/x/c"]),
        ("*:**/.env", ["HEAD:.env", ":.env", "main:config/.env", "a:b/c/.env"], ["HEAD:x.env"]),
        ("dir/?.txt", ["dir/a.txt"], ["dir/ab.txt", "dir/.txt", "dir//.txt"]),
        ("[abc].md", ["a.md", "c.md"], ["d.md", "ab.md"]),
        ("[!abc].md", ["d.md", "-.md"], ["a.md", "/.md"]),
        ("[^abc].md", ["d.md"], ["b.md"]),
        ("x[a-c]y", ["xby"], ["xdy", "x-y"]),
        ("x[!a]y", ["xby"], ["xay", "x/y"]),
        ("[]]x", ["]x"], ["ax"]),
        ("[!]]x", ["ax"], ["]x"]),
        ("x[a-]", ["xa", "x-"], ["xb"]),
        ("{a,b}.md", ["a.md", "b.md"], ["c.md", "ab.md", "{a,b}.md"]),
        ("{a,b{c,d}}.md", ["a.md", "bc.md", "bd.md"], ["b.md", "c.md"]),
        ("{src,lib}/**/*.py", ["src/a.py", "lib/x/y.py"], ["test/a.py", "src/a.pyc"]),
        ("{**/,}x.md", ["x.md", "a/b/x.md"], ["ax.md"]),
        ("x{,.bak}", ["x", "x.bak"], ["x.ba"]),
        ("rules/drafts/**/*.md", ["rules/drafts/wip.md", "rules/drafts/a/b.md"], ["rules/a.md"]),
        ("rules/*.md", ["rules/review.md"], ["rules/drafts/wip.md"]),
        ("claude-*", ["claude-opus-4", "claude-"], ["gpt-5", "claude"]),
        ("a.b(c)+d|e^f$", ["a.b(c)+d|e^f$"], ["aXb(c)+d|e^f$", "a.bccd"]),
        ("my file,v2.md", ["my file,v2.md"], ["my filev2.md"]),
        (r"file\*.md", ["file*.md"], ["file1.md"]),
        (r"\{a,b\}", ["{a,b}"], ["a"]),
        ("", [""], ["a"]),
        # bash's extglob negation: any text within a segment that matches none of the patterns
        (
            "**/.env{,.!(example|sample)}",
            [".env", "a/.env.local", ".env.example.bak", ".env.exampl", ".env."],
            [".env.example", "a/.env.sample", ".envrc", ".env.local/x"],
        ),
        (
            "**/id_rsa!(*.pub)",
            ["id_rsa", "k/id_rsa.bak", "id_rsa_github", "id_rsa_pub", "id_rsa.pubx"],
            ["id_rsa.pub", "id_rsa_github.pub", "id_rsa-cert.pub", "id_rsa/x"],
        ),
        ("x/!(a*|?b)", ["x/", "x/ba", "x/bbb"], ["x/a", "x/ab", "x/cb", "x/abc/"]),
        ("!([a-c]x)y", ["y", "dxy", "axxy"], ["axy", "cxy"]),
        ("a!(b)", ["a", "ac", "abb"], ["ab"]),
        ("!b", ["!b"], ["b"]),
        (
            "*(!(node_modules|vendor)/)*.ovpn",
            ["a.ovpn", "vpn/a.ovpn", "/p/x/a.ovpn", "~/a.ovpn"],
            ["node_modules/a.ovpn", "/p/node_modules/f/a.ovpn", "x/vendor/a.ovpn", "a.ovpnx"],
        ),
        ("a*(b|cd)e", ["ae", "abe", "acdbbe"], ["ace", "ab/e"]),
        ("*.@(pem|key)", ["a.pem", ".key"], ["a.p12", "a.pemkey"]),
        ("a?(.b)", ["a", "a.b"], ["a.b.b", "ab"]),
        ("a+(b|c)", ["ab", "acb"], ["a"]),
        ("@(~|/home/*)/.netrc", ["~/.netrc", "/home/x/.netrc"], ["/home/.netrc", "/root/.netrc"]),
    ],
)
def test_glob_translation(glob: str, matching: list[str], not_matching: list[str]) -> None:
    regex = glob_to_regex(glob)
    assert regex.startswith("^") and regex.endswith("$")
    for path in matching:
        assert re.fullmatch(regex, path), (glob, regex, path)
    for path in not_matching:
        assert not re.fullmatch(regex, path), (glob, regex, path)


@pytest.mark.parametrize(
    ("glob", "message"),
    [
        ("[abc", "unclosed `[` in glob"),
        ("a/[!", "unclosed `[` in glob"),
        ("[]", "unclosed `[` in glob"),
        ("{a,b", "unclosed `{` in glob"),
        ("{a,{b}", "unclosed `{` in glob"),
        ("{", "unclosed `{` in glob"),
        ("a}", "unmatched `}` in glob"),
        ("{a}}", "unmatched `}` in glob"),
        ("a\\", "trailing `\\` in glob"),
        ("[z-a]", "bad range `z-a` in glob"),
        ("!(a|b", "unclosed `!(` in glob"),
        ("*(a|b", "unclosed `(` in glob"),
        ("@(a", "unclosed `(` in glob"),
        ("!(a/b)", "`/` inside `!( … )` in glob: only patterns within a segment"),
        ("!({a,b})", "`{` inside `!( … )` in glob: only patterns within a segment"),
    ],
)
def test_malformed_globs(glob: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        glob_to_regex(glob)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("glob", "path"),
    [
        ("a b.md", "a b.md"),
        ("tab\there", "tab\there"),
        ("é/*.md", "é/x.md"),
        ("{x y,z}", "x y"),
        ("[a b]", " "),
        ("-~#&%!@=;'\"<>`", "-~#&%!@=;'\"<>`"),
    ],
)
def test_glob_regexes_only_escape_punctuation(glob: str, path: str) -> None:
    # RE2 rejects unknown escapes such as `\ ` or `\e`; only punctuation may follow a backslash.
    regex = glob_to_regex(glob)
    for match in re.finditer(r"\\(.)", regex):
        assert not match.group(1).isalnum() and not match.group(1).isspace(), regex
    assert re.fullmatch(regex, path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*.md", True),
        ("a?", True),
        ("[ab]", True),
        ("{a,b}", True),
        (".env.!(example)", True),
        ("@(a|b)", True),
        ("a+(b)", True),
        ("rules/a.md", False),
        ("file.edit", False),
        ("", False),
    ],
)
def test_is_glob(text: str, expected: bool) -> None:
    assert is_glob(text) is expected
