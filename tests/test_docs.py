"""The user documentation (docs/) covers what the code has, its examples work, and it builds.

The pages are read as the build renders them (`docs/hooks/docsgen.py` expands the generated
parts), so a registry entry that only a generated table lists is found there too; the tests
below that check hand-written sections name the page they read.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from agentstyle.harnesses.facts import SUPPORTED
from agentstyle.vocabulary import (
    CONDITION_FIELDS,
    EVENT_VARS,
    EVENTS,
    OPERATORS,
    PACKAGE_FIELDS,
    PATH_FIELDS,
    RULE_FIELDS,
    RUNTIME_VARS,
    TOOLS,
)

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
FENCE = re.compile(r"^(`{3,})(\w*)\n(.*?)^\1$", re.M | re.S)


def docsgen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docsgen", DOCS / "hooks" / "docsgen.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def pages() -> dict[str, str]:
    rendered: dict[str, str] = docsgen().rendered_pages()
    return rendered


@cache
def sources() -> dict[str, str]:
    """The hand-written markdown, generated parts not expanded."""
    return {p.relative_to(DOCS).as_posix(): p.read_text("utf-8") for p in DOCS.rglob("*.md")}


def headings(page: str) -> set[str]:
    return {m.group(1).strip() for m in re.finditer(r"^#{2,6} (.+)$", pages()[page], re.M)}


def table_keys(page: str) -> set[str]:
    """The first cell of every table row, code spans unwrapped (`| `x` | … |` → `x`)."""
    keys = set()
    for m in re.finditer(r"^\| `([^`]+)`[^|]*\|", pages()[page], re.M):
        keys.add(m.group(1))
    return keys


# -- the build ---------------------------------------------------------------------------------


def test_the_site_builds_strict(tmp_path: Path) -> None:
    """`mkdocs build --strict` (what `make docs` and CI run): broken links, anchors and pages
    missing from the nav fail it, and no generated part is left unexpanded."""
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    html = [p.read_text("utf-8") for p in site.rglob("*.html")]
    assert len(html) >= len(sources())
    assert not [h for h in html if "docsgen:" in h], "a generated part was not expanded"
    assert not (site / "hooks").exists(), "the generator was published as a page"


def test_every_page_is_in_the_nav() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text("utf-8"))

    def walk(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, list):
            return [p for item in node for p in walk(item)]
        if isinstance(node, dict):
            return [p for value in node.values() for p in walk(value)]
        return []

    assert sorted(walk(config["nav"])) == sorted(sources())


def test_every_generated_part_expands_and_an_unknown_one_fails() -> None:
    gen = docsgen()
    for name, text in pages().items():
        assert not gen.MARKER.search(text), f"{name}: unexpanded marker"
    with pytest.raises(ValueError, match="unknown docsgen part `nope`"):
        gen.expand("<!-- docsgen: nope -->\n")
    with pytest.raises(ValueError, match="is not a command"):
        gen.expand("<!-- docsgen: cli no-such-command -->\n")


# -- the registries are covered ----------------------------------------------------------------


def test_every_rule_field_has_its_section() -> None:
    have = headings("rules.md")
    missing = [f for f in RULE_FIELDS if f"`{f}`" not in have]
    assert missing == [], "rule fields without a `### `field`` section in docs/rules.md"


def test_every_package_field_has_its_section() -> None:
    have = headings("packages.md")
    missing = [f for f in PACKAGE_FIELDS if f"`{f}`" not in have]
    assert missing == [], "package fields without a section in docs/packages.md"


def test_every_operator_has_its_row() -> None:
    missing = sorted(OPERATORS - table_keys("conditions.md"))
    assert missing == [], "operators missing from the table of docs/conditions.md"


def test_every_condition_field_is_explained() -> None:
    text = sources()["conditions.md"]
    rows = re.findall(r"^\| (`[^|]+`) \|", text, re.M)
    named = {name for row in rows for name in re.findall(r"`([^`]+)`", row)}
    wanted = set(CONDITION_FIELDS) | {f"{p}.<path>" for p in PATH_FIELDS}
    assert sorted(wanted - named) == [], "condition fields without a row in docs/conditions.md"


def test_every_event_and_tool_has_its_row() -> None:
    keys = table_keys("rules.md")
    assert [e for e in EVENTS if e not in keys] == [], "events missing from docs/rules.md"
    assert [t for t in TOOLS if t not in keys] == [], "tools missing from docs/rules.md"


def test_every_template_variable_has_its_row() -> None:
    keys = table_keys("templates.md")
    wanted = {f"{{{{{v}}}}}" for v in RUNTIME_VARS | EVENT_VARS}
    wanted |= {"{{event.tool.input.<path>}}", "{{event.tool.output.<path>}}"}
    assert sorted(wanted - keys) == [], "template variables missing from docs/templates.md"
    assert "{{settings.NAME}}" in sources()["templates.md"]


def cli_paths() -> list[str]:
    return [path for path, _ in docsgen().commands()]


def test_every_command_has_its_section() -> None:
    text = sources()["commands.md"]
    have = headings("commands.md")
    for path in cli_paths():
        assert f"`style {path}`" in have, f"`style {path}` has no section in docs/commands.md"
        assert f"<!-- docsgen: cli {path} -->" in text, f"`style {path}`: no options table"


def test_every_harness_has_its_page() -> None:
    for name in SUPPORTED:
        page = f"harnesses/{name}.md"
        assert page in sources(), f"no page for {name}"
        assert f"<!-- docsgen: harness {name} -->" in sources()[page]


def test_the_library_page_lists_every_bundled_package() -> None:
    library = REPO / "agentstyle" / "library"
    names = sorted(p.name for p in library.iterdir() if (p / "STYLE.yaml").is_file())
    assert names, "the library is empty"
    text = pages()["library.md"]
    for name in names:
        assert f"### {name}" in text, f"library package {name} is not on docs/library.md"
    # the README is taken over whole, below its title
    readme = (library / "README.md").read_text("utf-8").splitlines()[1:]
    # (its links to a package's README point at that README further down the same page)
    readme = [re.sub(r"\]\(([a-z0-9-]+)/README\.md\)", r"](#\1-readme)", x) for x in readme]
    assert all(line.lstrip("#") in text for line in readme if line.strip())
    for name in names:
        if (library / name / "README.md").is_file():
            assert f"### {name} README" in text, f"{name}'s README is not on docs/library.md"


# -- the examples work -------------------------------------------------------------------------


def blocks(lang: str) -> list[tuple[str, str]]:
    """(page, text) of the fenced blocks of one language in the hand-written pages."""
    out = []
    for name, text in sources().items():
        if name == "diagnostics.md":  # generated from the registry, tested there
            continue
        for m in FENCE.finditer(text):
            if m.group(2) == lang:
                out.append((name, m.group(3)))
    return out


def validate(root: Path, target: str) -> list[str]:
    from agentstyle.diagnostics import sort_diagnostics
    from agentstyle.policy.load import load_package
    from agentstyle.policy.validate import validate_package

    result = load_package(root / target)
    diags = list(result.diagnostics)
    if result.package is not None:
        diags += validate_package(result.package).diagnostics
    return [d.render() for d in sort_diagnostics(diags)]


HEADER = "spec: style/v0.3\nname: example\nversion: 1.0.0\ndescription: a docs example\n"


def examples() -> list[tuple[str, str, str]]:
    """(page, kind, text) of every example that is a package, a rule list or a rule file."""
    out = []
    for page, text in blocks("yaml"):
        if text.startswith("spec: style/v0.3\n"):
            out.append((page, "package", text))
        elif text.startswith("- id: "):
            out.append((page, "rules", text))
    for page, text in blocks("markdown"):
        if text.startswith("---\nspec: style/v0.3\n"):
            out.append((page, "single-file", text))
        elif text.startswith("---\n") and re.search(r"^target: ", text, re.M):
            out.append((page, "rule-file", text))
    return out


def test_there_are_examples_of_every_kind() -> None:
    kinds = {kind for _, kind, _ in examples()}
    assert kinds == {"package", "rules", "single-file", "rule-file"}


@pytest.mark.parametrize(
    ("page", "kind", "text"), examples(), ids=[f"{p}:{k}" for p, k, _ in examples()]
)
def test_every_example_validates(tmp_path: Path, page: str, kind: str, text: str) -> None:
    """A package, rule list, rule file or single-file package shown in the docs validates
    without errors or warnings (a rule list gets a package around it, declaring the settings
    it uses)."""
    pkg = tmp_path / "pkg"
    (pkg / "rules").mkdir(parents=True)
    target = "pkg"
    if kind == "package":
        (pkg / "STYLE.yaml").write_text(text, "utf-8")
    elif kind == "rules":
        used = sorted(set(re.findall(r"\{\{\s*settings\.([a-z0-9_]+)", text)))
        settings = "".join(f"  - name: {s}\n    default: x\n" for s in used)
        body = "\n".join("  " + line for line in text.splitlines())
        (pkg / "STYLE.yaml").write_text(
            HEADER + (f"settings:\n{settings}" if settings else "") + f"rules:\n{body}\n", "utf-8"
        )
    elif kind == "rule-file":
        (pkg / "rules" / "example.md").write_text(text, "utf-8")
        (pkg / "STYLE.yaml").write_text(HEADER + "rules:\n  - from: rules/*.md\n", "utf-8")
    else:
        (tmp_path / "single.md").write_text(text, "utf-8")
        target = "single.md"
    # what the example refers to: the bodies it names, a rule file for its `from` entries
    for body in re.findall(r"^\s*-? *file: (\S+)$", text, re.M):
        (pkg / body).parent.mkdir(parents=True, exist_ok=True)
        (pkg / body).write_text("Review every change.\n", "utf-8")
    if kind != "rule-file" and re.search(r"^\s*- from: ", text, re.M):
        (pkg / "rules" / "example.md").write_text("---\ntarget: system\n---\nBe brief.\n")
    # a warning the page itself explains (it links the code's section) is part of the example
    explained = set(re.findall(r"diagnostics\.md#([a-z0-9-]+)", (DOCS / page).read_text("utf-8")))
    found = [
        line
        for line in validate(tmp_path, target)
        if not (m := re.search(r" warning ([a-z0-9-]+): ", line)) or m.group(1) not in explained
    ]
    assert found == [], f"an example on docs/{page} does not validate"


def test_getting_started_shows_what_style_test_prints(tmp_path: Path) -> None:
    """The cases `style init` writes pass, and getting started lists them as they are."""
    from agentstyle.evaluator.packagetests import run_package_tests
    from agentstyle.policy.scaffold import scaffold

    scaffold(tmp_path / "my-rules", single_file=False)
    results = run_package_tests(str(tmp_path / "my-rules"))
    assert results and all(r.ok for r in results)
    assert [r.note for r in results] == [
        line.split(": ", 1)[1]
        for line in re.findall(
            r"^ok    (my-rules/tests/example\.yaml: .+)$", sources()["getting-started.md"], re.M
        )
    ]


def shell_lines() -> list[tuple[str, str]]:
    """(page, command) of every `style …` line in the sh blocks of the hand-written pages and
    of the README's tour."""
    out = []
    readme = (REPO / "README.md").read_text("utf-8")
    readme_sh = [("../README.md", m.group(3)) for m in FENCE.finditer(readme) if m.group(2) == "sh"]
    for page, text in [*blocks("sh"), *readme_sh]:
        for line in text.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            for part in re.split(r"\s(?:&&|\|)\s", line):
                if part.startswith("style "):
                    out.append((page, part))
    return out


def _command(words: list[str]) -> tuple[Any, list[str]]:
    import typer

    from agentstyle.cli.app import app

    cmd = typer.main.get_command(app)
    rest = list(words)
    while rest and isinstance(getattr(cmd, "commands", None), dict) and rest[0] in cmd.commands:
        cmd = cmd.commands[rest.pop(0)]
    return cmd, rest


@pytest.mark.parametrize(("page", "line"), shell_lines(), ids=[cmd for _, cmd in shell_lines()])
def test_every_command_line_in_the_docs_exists(page: str, line: str) -> None:
    """Each `style …` example names a real command and only options it has."""
    words = shlex.split(line.replace("$(hostname)", "host"))[1:]
    cmd, rest = _command(words)
    if getattr(cmd, "commands", None) and rest and not rest[0].startswith("-"):
        raise AssertionError(f"docs/{page}: `{line}`: `{rest[0]}` is not a command here")
    options: set[str] = {"--help"}
    if words and words[0] == "hook":
        # `style hook` reads its options as the installed hook does (runtime/hookrun.py)
        options.update(("--harness", "--event", "--fail-closed"))
    for param in cmd.params:
        options.update(getattr(param, "opts", []))
        options.update(getattr(param, "secondary_opts", []))
    # options given before an audit report's name belong to `style audit`
    if words and words[0] == "audit":
        group, _ = _command(["audit"])
        for param in group.params:
            options.update(getattr(param, "opts", []))
    for word in rest:
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            assert name in options, f"docs/{page}: `{line}`: `style` has no option `{name}` here"


def test_the_readme_points_into_the_docs() -> None:
    """The README keeps its two commands and links only to pages that exist."""
    readme = (REPO / "README.md").read_text("utf-8")
    assert "make demo" in readme and "make test" in readme
    links = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert links, "the README links to no page of docs/"
    assert [link for link in links if not (REPO / link).is_file()] == []
    assert {link.removeprefix("docs/") for link in links} >= {"index.md", "getting-started.md"}
