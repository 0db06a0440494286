"""Every diagnostic code is documented, the registry agrees with the spec's table, and the
project's own docs (docs/diagnostics.md, generated from the registry) list every code while
the hand-written pages link only to codes that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from agentstyle.codes import CODES, explain
from agentstyle.vocabulary import EVENTS, OPERATORS, TOOLS
from tests.support.docs import rendered_docs

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
# The specification's table of codes and levels, copied into the repository once.
SPEC_TABLE = REPO / "tests" / "data" / "spec_diagnostics.md"
# Codes STYLE adds beyond the specification's table, in registry order after the spec's own.
ADDED = (
    "field-never-present",
    "model-unknown-at-start",
    "fix-not-block",
    "fix-rewrite",
    "no-grammar",
    "unknown-option",
    "unknown-subcommand",
    "exception-target",
    "redact-point",
    "redact-block",
    "check-block",
    "check-field",
)
RENDERED = re.compile(r"^pkg/STYLE\.yaml:(\d+):(\d+): (error|warning) ([A-Za-z0-9-]+): .+$")


def _diagnostics_md() -> str:
    return SPEC_TABLE.read_text(encoding="utf-8")


def spec_table() -> dict[str, str]:
    """code → level from the `| code | level | trigger |` table, `a` / `b` rows split."""
    out: dict[str, str] = {}
    for line in _diagnostics_md().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[1] not in ("error", "warning"):
            continue
        names = re.findall(r"`([^`]+)`", cells[0])
        assert names, f"no code in table row: {line}"
        for name in names:
            out[name] = cells[1]
    return out


def example_parts(example: str) -> tuple[str, list[str]]:
    """The YAML of an example and the text after its first blank line (rendered output)."""
    yaml_part, _, rest = example.partition("\n\n")
    return yaml_part, [line for line in rest.splitlines() if line]


@pytest.mark.parametrize("name", list(CODES))
def test_every_code_is_documented(name: str) -> None:
    code = CODES[name]
    for part in ("summary", "what", "why", "example", "fix"):
        assert getattr(code, part).strip(), f"{name}: empty `{part}`"


@pytest.mark.parametrize("name", list(CODES))
def test_prose_fits_a_terminal(name: str) -> None:
    code = CODES[name]
    for part in (code.what, code.why, code.fix):
        for line in part.splitlines():
            assert len(line) <= 100, f"{name}: line over 100 columns: {line}"
            assert line == line.rstrip(), f"{name}: trailing whitespace: {line!r}"
            assert line.count("`") % 2 == 0, f"{name}: a `code span` is split: {line}"


def test_registry_matches_the_spec_table() -> None:
    table = spec_table()
    registry = {name: c.level for name, c in CODES.items()}
    assert sorted(set(table) - set(registry)) == [], "codes in the spec, not in the registry"
    assert sorted(set(registry) - set(table)) == sorted(ADDED), (
        "codes in the registry, not in the spec (add a deliberate one to ADDED)"
    )
    wrong = {n: (registry[n], table[n]) for n in table if registry[n] != table[n]}
    assert wrong == {}, "levels differ (registry, spec)"


def test_registry_keeps_the_spec_order() -> None:
    assert [*spec_table(), *ADDED] == list(CODES)


@pytest.mark.parametrize("name", list(CODES))
def test_explain_names_code_and_level(name: str) -> None:
    text = explain(name)
    assert text is not None
    first = text.splitlines()[0]
    assert name in first and CODES[name].level in first
    for title in ("What:", "Why:", "Example:", "Fix:"):
        assert f"\n{title}\n" in text
    assert text.endswith("\n") and not text.endswith("\n\n")


def test_explain_unknown_code() -> None:
    assert explain("no-such-code") is None


@pytest.mark.parametrize("name", list(CODES))
def test_example_yaml_parses(name: str) -> None:
    yaml_part, _ = example_parts(CODES[name].example)
    if yaml_part.startswith("#"):
        # Examples made of several files (`# path` headers, front matter) are not one document.
        return
    data = yaml.safe_load(yaml_part)
    assert isinstance(data, dict), f"{name}: the example is not a YAML mapping"


@pytest.mark.parametrize("name", [n for n, c in CODES.items() if c.level == "warning"])
def test_warning_examples_show_the_rendered_line(name: str) -> None:
    yaml_part, rendered = example_parts(CODES[name].example)
    assert yaml_part.startswith("spec: style/v0.3\n"), f"{name}: show a whole STYLE.yaml"
    matches = [m for m in map(RENDERED.match, rendered) if m]
    assert matches, f"{name}: no rendered `pkg/STYLE.yaml:L:C: warning {name}: ...` line"
    for m in matches:
        line, column, level, code = int(m[1]), int(m[2]), m[3], m[4]
        assert (level, code) == ("warning", name)
        lines = yaml_part.splitlines()
        assert 1 <= line <= len(lines), f"{name}: line {line} is outside the example"
        text = lines[line - 1]
        assert 1 <= column <= len(text) and not text[column - 1].isspace(), (
            f"{name}: {line}:{column} does not point at text in {text!r}"
        )


def test_vocabulary_lists_are_complete_in_their_docs() -> None:
    """Where a doc lists the valid names, it lists all of them."""
    for event in EVENTS:
        assert f"`{event}`" in CODES["unknown-event"].what
    for tool in TOOLS:
        assert f"`{tool}`" in CODES["unknown-tool"].what
    for op in OPERATORS:
        assert f"`{op}`" in CODES["invalid-condition"].fix


def test_warning_examples_match_the_validator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rendered lines in the docs are what `style validate` prints for those examples."""
    from agentstyle.diagnostics import sort_diagnostics
    from agentstyle.policy.load import load_package
    from agentstyle.policy.validate import validate_package

    monkeypatch.chdir(tmp_path)
    for name, code in CODES.items():
        if code.level != "warning":
            continue
        yaml_part, rendered = example_parts(code.example)
        pkg = tmp_path / name / "pkg"
        pkg.mkdir(parents=True)
        (pkg / "STYLE.yaml").write_text(yaml_part + "\n", encoding="utf-8")
        monkeypatch.chdir(pkg.parent)
        result = load_package("pkg")
        assert result.package is not None, [d.render() for d in result.diagnostics]
        diags = [*result.diagnostics, *validate_package(result.package).diagnostics]
        got = [d.render() for d in sort_diagnostics(diags)]
        assert got == rendered, f"{name}: update the example in agentstyle/codes.yaml"


def test_the_docs_have_a_section_for_every_code() -> None:
    """docs/diagnostics.md holds each code's section with its level, summary and fix, in the
    registry's order, and no code the registry does not have."""
    page = rendered_docs()["diagnostics.md"]
    found = re.findall(r"^## `([^`]+)` \{ #([^ ]+) \}\n\n\*\*(error|warning)\*\*", page, re.M)
    assert [(name, level) for name, _, level in found] == [
        (c.name, c.level) for c in CODES.values()
    ]
    assert all(name == anchor for name, anchor, _ in found)
    for c in CODES.values():
        section = page.split(f"## `{c.name}` ", 1)[1].split("\n## ", 1)[0]
        assert "**Fix.**" in section and "**Example.**" in section, c.name


def test_the_docs_link_only_to_codes_that_exist() -> None:
    """A hand-written page that names a code links to its section; every such link is a code
    of the registry (a removed or renamed code fails here, and `mkdocs build --strict` fails
    on the dead anchor too)."""
    linked: set[str] = set()
    for name, text in rendered_docs().items():
        if name == "diagnostics.md":
            continue
        for code in re.findall(r"diagnostics\.md#([A-Za-z0-9-]+)", text):
            assert code in CODES, f"docs/{name} links to unknown code `{code}`"
            linked.add(code)
    assert linked, "no page links to the diagnostics"
