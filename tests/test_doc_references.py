"""Every document the code and tests cite is a file of this repository, with the cited section.

A comment such as `docs/design/runtime.md#precedence` is how a maintainer finds the text that
explains the code (docs/design/README.md). This test reads the prose of the code and the tests
(Python comments and docstrings, SQL and Lark comments, YAML comments and descriptions,
Markdown pages), finds every reference to a `.md` document in it and fails when the file is not
in the repository (beside the citing file, or from the repository's root) or when its `#anchor`
is not a heading of that file, with the id MkDocs gives the heading. Section numbers of
documents that are not here, and references to material outside the repository (the seeds of
the specification, issue numbers), fail too: nobody who clones the project can follow them.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.support.docs import rendered_docs

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
THIS = Path(__file__).resolve()
# Where prose is read, and which files of each folder are prose.
SCANNED = {
    "agentstyle": (".py", ".sql", ".lark", ".yaml", ".yml", ".md"),
    "tests": (".py", ".yaml", ".yml", ".md"),
    "bench": (".py", ".md"),
    "docs": (".py", ".md"),
}
# Where no issue numbers may stand (bench/ and docs/ record the history of the figures).
NO_ISSUES = ("agentstyle", "tests")
# Markdown that is a package's rule text (data the tests feed to STYLE), not documentation.
DATA_MD_FOLDERS = ("rules", "prompts")
DATA_MD_ROOTS = ("tests/diagnostics/", "tests/data/")
# A path's first folder that marks it as a path from the repository's root.
ROOTS = ("docs", "tests", "bench", "agentstyle", "datasets")
# The names a bare document reference goes by (the stem, `runtime`): every page of docs/, and the
# documents of the product's original reference material, which the repository does not have.
FOREIGN_NAMES = frozenset(
    {
        "contracts",
        "runtime",
        "storage",
        "cli",
        "harnesses",
        "package",
        "when",
        "rules",
        "audit",
        "import",
        "diagnostics",
        "realclients",
        "harness-contracts",
        "expected-outputs",
        "architecture",
    }
)

URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
REF = re.compile(r"(?<![\w/.:@-])((?:\.{1,2}/|[\w.-]+/)*[\w.-]+\.md)(?![\w/-])(#[\w-]+)?")
LINK = re.compile(r"\]\(([^)\s]+)\)")
SECTION = re.compile(r"§\s*\d")
SHELF = re.compile(r"/work/shared|\bshared/(?:spec|harnesses|seeds|guide)\b|\.\./spec/")
# The word and its number may stand on two lines, the second one a comment's continuation.
_GAP = r"(?:[ _-]|[ \t]*\n[ \t]*(?:#|--|//)?[ \t]*)?"
SEED = re.compile(rf"(?<![a-z])seeds?{_GAP}\d{{3}}(?!\d)|(?<![a-z])seeds/", re.I)
ISSUE = re.compile(rf"(?<![a-z])issues?{_GAP}#?\d+(?![\d.])|#\d+ issue", re.I)
HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)
ATTR_ID = re.compile(r"\s*\{\s*#([\w-]+)[^}]*\}\s*$")
FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", re.M | re.S)
YAML_PROSE = re.compile(r"(?:^|[\s{,-])(?:description|note|why):[ \t]*(.*)$", re.M)
YAML_COMMENT = re.compile(r"(?:^|[ \t])#(?!\w*\))(.*)$", re.M)


@dataclass(frozen=True, slots=True)
class Prose:
    """A piece of prose of a file and the line it starts on."""

    path: Path
    line: int
    text: str


def files() -> Iterator[Path]:
    for folder, suffixes in SCANNED.items():
        for path in sorted((REPO / folder).rglob("*")):
            if path.suffix in suffixes and path.is_file() and "__pycache__" not in path.parts:
                yield path
    yield REPO / "README.md"


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def is_data_md(path: Path) -> bool:
    name = rel(path)
    if path.name == "README.md":
        return False
    if any(part in DATA_MD_FOLDERS for part in path.relative_to(REPO).parts[:-1]):
        return True
    return any(name.startswith(root) and name.count("/") > 2 for root in DATA_MD_ROOTS)


def python_prose(path: Path, text: str) -> Iterator[Prose]:
    """Comments and docstrings: the other strings are data (file names, test input)."""
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            yield Prose(path, tok.start[0], tok.string)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                yield Prose(path, first.lineno, first.value.value)


def comment_prose(path: Path, text: str, marker: str) -> Iterator[Prose]:
    for number, line in enumerate(text.splitlines(), 1):
        at = line.find(marker)
        if at >= 0:
            yield Prose(path, number, line[at + len(marker) :])


def yaml_prose(path: Path, text: str) -> Iterator[Prose]:
    for number, line in enumerate(text.splitlines(), 1):
        for m in YAML_COMMENT.finditer(line):
            yield Prose(path, number, m.group(1))
        for m in YAML_PROSE.finditer(line):
            yield Prose(path, number, m.group(1))


def prose_of(path: Path) -> Iterator[Prose]:
    text = path.read_text("utf-8", errors="replace")
    if path.suffix == ".py":
        yield from python_prose(path, text)
    elif path.suffix == ".sql":
        yield from comment_prose(path, text, "--")
    elif path.suffix == ".lark":
        yield from comment_prose(path, text, "//")
    elif path.suffix in (".yaml", ".yml"):
        yield from yaml_prose(path, text)
    elif path.suffix == ".md" and not is_data_md(path):
        yield Prose(path, 1, text)


# -- what a reference is and where it leads ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reference:
    source: Path
    line: int
    target: str  # as written, without the anchor
    anchor: str | None

    def __str__(self) -> str:
        cited = self.target + (f"#{self.anchor}" if self.anchor else "")
        return f"{rel(self.source)}:{self.line}: `{cited}`"


def _line_of(prose: Prose, offset: int) -> int:
    return prose.line + prose.text.count("\n", 0, offset)


def is_citation(target: str, anchor: str | None) -> bool:
    """A document reference, as opposed to a file name that is data (`CLAUDE.md`,
    `rules/review.md` of a test package): a path from the root or a relative one, a named
    section, or a bare name a document goes by."""
    if anchor or target.startswith(("./", "../")):
        return True
    first, _, rest = target.partition("/")
    if rest and first in ROOTS:
        return True
    return not rest and target.removesuffix(".md") in names()


@cache
def names() -> frozenset[str]:
    return FOREIGN_NAMES | {p.stem for p in DOCS.rglob("*.md")}


def references(prose: Prose) -> Iterator[Reference]:
    text = URL.sub(lambda m: " " * len(m.group(0)), prose.text)
    seen: set[int] = set()
    if prose.path.suffix == ".md":
        for m in LINK.finditer(text):
            target, _, anchor = m.group(1).partition("#")
            seen.add(m.start(1))
            if target and not target.endswith(".md"):
                continue  # a picture, a folder, a page of the site by another name
            yield Reference(prose.path, _line_of(prose, m.start(1)), target, anchor or None)
    for m in REF.finditer(text):
        if m.start(1) in seen:
            continue
        target, anchor = m.group(1), (m.group(2) or "")[1:] or None
        if is_citation(target, anchor):
            yield Reference(prose.path, _line_of(prose, m.start(1)), target, anchor)


def resolve(ref: Reference) -> Path | None:
    if not ref.target:
        return ref.source  # `#anchor`: a section of the citing page
    for base in (ref.source.parent, REPO):
        candidate = (base / ref.target).resolve()
        if candidate.is_file() and candidate.is_relative_to(REPO):
            return candidate
    return None


def slug(heading: str) -> str:
    """The id Python-Markdown's toc extension gives a heading (what MkDocs links to)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


@cache
def anchors(path: Path) -> frozenset[str]:
    if path.is_relative_to(DOCS):
        text = rendered_docs().get(path.relative_to(DOCS).as_posix())
    else:
        text = None
    if text is None:
        text = path.read_text("utf-8", errors="replace")
    text = FENCE.sub("", text)
    found: set[str] = set()
    counts: dict[str, int] = {}
    for m in HEADING.finditer(text):
        heading = m.group(2)
        given = ATTR_ID.search(heading)
        if given:
            found.add(given.group(1))
            continue
        base = slug(heading)
        n = counts.get(base, 0)
        counts[base] = n + 1
        found.add(base if n == 0 else f"{base}_{n}")
    return frozenset(found)


@cache
def all_prose() -> tuple[Prose, ...]:
    return tuple(p for path in files() for p in prose_of(path))


# -- the tests -------------------------------------------------------------------------------------


def test_every_cited_document_exists() -> None:
    missing = [str(ref) for p in all_prose() for ref in references(p) if resolve(ref) is None]
    assert missing == [], "cited documents the repository does not have:\n" + "\n".join(missing)


def test_every_cited_section_exists() -> None:
    missing = []
    for p in all_prose():
        for ref in references(p):
            target = resolve(ref)
            if target is None or ref.anchor is None or target.suffix != ".md":
                continue
            if ref.anchor not in anchors(target):
                missing.append(f"{ref}: no heading of {rel(target)} has the id `{ref.anchor}`")
    assert missing == [], "cited sections that do not exist:\n" + "\n".join(missing)


@cache
def whole_files() -> tuple[Prose, ...]:
    """Every scanned file's whole text but this one's (it holds the patterns and examples
    that prove they match)."""
    return tuple(
        Prose(path, 1, path.read_text("utf-8", errors="replace"))
        for path in files()
        if path != THIS
    )


def _hits(pattern: re.Pattern[str], *, whole: bool, roots: tuple[str, ...] = ()) -> list[str]:
    out = []
    for p in whole_files() if whole else all_prose():
        if roots and not rel(p.path).startswith(roots):
            continue
        for m in pattern.finditer(p.text):
            out.append(f"{rel(p.path)}:{_line_of(p, m.start())}: `{m.group(0)}`")
    return out


def test_no_section_numbers_of_documents_the_repository_lacks() -> None:
    """A section number names a section of a document that is not here; a section of a
    document here is cited by its anchor."""
    hits = _hits(SECTION, whole=False)
    assert hits == [], "section numbers instead of anchors:\n" + "\n".join(hits)


def test_nothing_points_outside_the_repository() -> None:
    hits = _hits(SHELF, whole=True) + _hits(SEED, whole=True)
    assert hits == [], "references to material outside the repository:\n" + "\n".join(hits)


def test_no_issue_numbers_in_code_and_tests() -> None:
    """An issue number says where a requirement came from, not what it is: say what it is."""
    hits = _hits(ISSUE, whole=True, roots=NO_ISSUES)
    assert hits == [], "issue numbers in code and tests:\n" + "\n".join(hits)


@pytest.mark.parametrize(
    ("heading", "want"),
    [
        ("Handler failure", "handler-failure"),
        ("The `fail` modes", "the-fail-modes"),
        ("Dedup (`repeat`)", "dedup-repeat"),
        ("`state.*`: the session's history", "state-the-sessions-history"),
        ("`style audit sql`", "style-audit-sql"),
        ("Claude Code — SessionStart", "claude-code-sessionstart"),
    ],
)
def test_slugs_are_the_ids_mkdocs_gives(heading: str, want: str) -> None:
    assert slug(heading) == want


def test_a_reference_to_a_missing_document_or_section_is_found() -> None:
    """The checks can fail: a file citing what does not exist is caught, a good one is not."""
    source = REPO / "agentstyle" / "example.py"
    prose = Prose(
        source,
        1,
        "# see docs/design/nothing.md, runtime.md, docs/actions.md#precedence and "
        "docs/actions.md#no-such-section; CLAUDE.md and rules/review.md are data\n",
    )
    refs = list(references(prose))
    assert [r.target for r in refs] == [
        "docs/design/nothing.md",
        "runtime.md",
        "docs/actions.md",
        "docs/actions.md",
    ]
    assert [resolve(r) is None for r in refs] == [True, True, False, False]
    assert "precedence" in anchors(DOCS / "actions.md")
    assert "no-such-section" not in anchors(DOCS / "actions.md")
    assert SEED.search("as seed 000 says") and SEED.search("def test_seed_000_x")
    assert SEED.search("(runtime, seed\n000 behaviours)") and SEED.search("seed\n    # 003")
    assert ISSUE.search("the report of issue 12") and ISSUE.search("Issue 15's targets")
    assert not ISSUE.search("anthropics/claude-code#81355")
    assert SECTION.search("contracts.md §3.8")
