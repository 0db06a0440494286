"""The design documents name only modules, files and functions the code has.

docs/design/ explains the code by naming it: `runtime/hookrun.py`, `hookrun.handle`,
`sql/evaluate/rules.sql`. After a move or a rename such a name silently points at nothing, and
a maintainer following it is lost. This test reads every code span of docs/design/*.md and
fails for a file path that no file of the repository ends with, and for a `module.name` whose
module is a module of agentstyle/ that does not define or import that name.
"""

from __future__ import annotations

import ast
import re
import subprocess
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DESIGN = REPO / "docs" / "design"
CODE_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
FILE_NAME = re.compile(r"^[\w./-]+\.(?:py|sql|lark|yaml|json|toml|md)$")
DOTTED = re.compile(r"^([a-z_][a-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?$")
# Files that are written at run time or by other programs, not kept in the repository.
WRITTEN_ELSEWHERE = frozenset(
    {
        "settings.json",
        "settings.local.json",
        "hooks.json",
        "config.toml",
        "style.lock.yaml",
        "STYLE.yaml",
        "managed-settings.json",
        "auth.json",
        "hooks.toml",
    }
)
# Names the documents use for event fields, tables and state files (`shell.commands`,
# `decision.behavior`, `engine.sock`), which are also the stems of modules.
NOT_MODULES = frozenset(
    {"shell", "engine", "policy", "decision", "packages", "rules", "agentstyle"}
)


@cache
def tracked_files() -> tuple[str, ...]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return tuple(out.split())


@cache
def modules() -> dict[str, list[Path]]:
    """Module stem -> the agentstyle modules of that name."""
    found: dict[str, list[Path]] = {}
    for path in (REPO / "agentstyle").rglob("*.py"):
        if "library" in path.parts:
            continue
        stem = path.parent.name if path.stem == "__init__" else path.stem
        found.setdefault(stem, []).append(path)
    return found


@cache
def names_of(path: Path) -> frozenset[str]:
    """Every name a module binds at its top level or in its classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)


def spans() -> list[tuple[str, int, str]]:
    found: list[tuple[str, int, str]] = []
    for doc in sorted(DESIGN.glob("*.md")):
        in_fence = False
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
                continue
            if not in_fence:
                found.extend((doc.name, number, m.group(1)) for m in CODE_SPAN.finditer(line))
    return found


def problem(span: str) -> str | None:
    text = span.strip()
    if (FILE_NAME.match(text) and "/" in text) or text.endswith((".py", ".sql", ".lark")):
        if Path(text).name in WRITTEN_ELSEWHERE or text.startswith(("~", "/", ".style/")):
            return None
        if "<" in text or "NNN" in text or text.startswith("."):
            return None  # a placeholder (`sql/policy/insert_<table>.sql`), not a file name
        rel = text.lstrip("./")
        pattern = re.compile("(?:^|/)" + re.escape(rel).replace(r"\*", "[^/]*") + "$")
        if any(pattern.search(f) for f in tracked_files()):
            return None
        return f"no file of the repository is `{text}`"
    if re.search(r"\b\w+_spec\b", text):
        return f"`{text}` names a facts module by its old name (facts are `harnesses/facts/*.py`)"
    dotted = DOTTED.match(text)
    if dotted and dotted.group(1) in modules() and dotted.group(1) not in NOT_MODULES:
        module, name = dotted.groups()
        if any(name in names_of(path) for path in modules()[module]):
            return None
        return f"module `{module}` has no `{name}`"
    return None


def test_the_design_docs_are_read() -> None:
    assert len(spans()) > 200


def test_every_code_name_exists() -> None:
    problems = [
        f"docs/design/{doc}:{line}: {problem(span)}" for doc, line, span in spans() if problem(span)
    ]
    assert not problems, "\n".join(problems)


# A bare name written as a constant (`FAIL_CLOSED_EXIT`, `MAX_STDIN`): a module-level name of
# the code, or a variable the harnesses or the installed files use (`CLAUDE_PLUGIN_ROOT`).
CONSTANT = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
# Variables a client sets that STYLE never reads, named to explain a client's behaviour.
CLIENTS_OWN = frozenset({"CLAUDE_PLUGIN_ROOT"})


@cache
def repository_text() -> str:
    """Every tracked text file outside docs/, where a constant the docs name must stand."""
    out = []
    for name in tracked_files():
        if name.startswith(("docs/", "site/", "tests/test_doc_code_names")) or not name.endswith(
            (".py", ".sql", ".json", ".toml", ".yaml", ".yml", ".sh", ".md", ".lark")
        ):
            continue
        path = REPO / name
        if path.is_file():
            out.append(path.read_text("utf-8", errors="replace"))
    return "\n".join(out)


def test_every_constant_named_exists() -> None:
    """docs/design once named five constants that no longer existed (`FAIL_CLOSED_EXIT`,
    `REFUSABLE_EVENTS`, …): a bare name in constant case must still be somewhere."""
    text = repository_text()
    missing = [
        f"docs/design/{doc}:{line}: `{span}` is nowhere in the repository"
        for doc, line, span in spans()
        if CONSTANT.match(span.strip())
        and span.strip() not in CLIENTS_OWN
        and not re.search(
            r"(?<![A-Za-z0-9_])" + re.escape(span.strip()) + r"(?![A-Za-z0-9_])", text
        )
    ]
    assert not missing, "\n".join(missing)
