"""The import directions of the house style hold: heavy libraries stay in their one place."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "agentstyle"

# library → the modules (paths relative to agentstyle/, prefix match) allowed to import it
ALLOWED = {
    "lark": ("grammar/",),
    "duckdb": ("engine/store.py",),
    "typer": ("cli/",),
    "polars": ("engine/importer", "engine/report", "engine/audit", "engine/replay"),
    "tree_sitter": ("engine/shell.py",),
    "tree_sitter_bash": ("engine/shell.py",),
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_heavy_libraries_are_imported_only_in_their_place() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for lib in imported_modules(path) & set(ALLOWED):
            if not rel.startswith(ALLOWED[lib]):
                offenders.append(f"{rel} imports {lib}")
    assert offenders == []


def test_leaves_import_nothing_of_the_engine() -> None:
    for leaf in ("source.py", "codes.py", "diagnostics.py", "vocabulary.py"):
        text = (PACKAGE / leaf).read_text("utf-8")
        assert "agentstyle.engine" not in text and "agentstyle.cli" not in text, leaf
        assert "agentstyle.grammar" not in text, leaf


def test_grammar_trees_stop_at_the_grammar_boundary() -> None:
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if not rel.startswith("grammar/"):
            assert "lark" not in imported_modules(path), rel


def test_no_sql_text_assembled_in_python() -> None:
    """SQL lives in .sql files: no SELECT/INSERT/DELETE statements in engine Python code."""
    import re

    statement = re.compile(r"""["'](SELECT|INSERT INTO|DELETE FROM|UPDATE \w+ SET)\b""")
    offenders = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*.py")
        if statement.search(path.read_text("utf-8"))
    ]
    # regex_errors compiles a pattern by running it, the one statement that is not data.
    assert offenders == ["engine/store.py"] or offenders == []


def test_hook_entry_imports_nothing_heavy_before_it_has_work() -> None:
    code = (
        "import sys, agentstyle.hook as h\n"
        "h.run(['--harness', 'nope', '--event', 'PreToolUse'], b'{}')\n"
        "heavy = {'duckdb', 'polars', 'lark', 'typer', 'yaml', 'tree_sitter'} & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
