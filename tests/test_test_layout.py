"""The tests' own layout: what test modules share lives in tests/support/ (a package), and no
test module imports another test module or a conftest (pytest loads those itself, and a module
imported both ways runs twice, with two copies of its state)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_test_module(name: str) -> bool:
    last = name.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def _imported(path: Path) -> list[str]:
    """The modules a file imports, absolute or relative (`from . import x` as `.x`)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.append(base)
            names += [f"{base}.{alias.name}" for alias in node.names]
    return names


def test_no_test_module_imports_another() -> None:
    offenders = [
        f"{path.relative_to(TESTS)} imports {name}"
        for path in sorted(TESTS.rglob("*.py"))
        for name in _imported(path)
        if _is_test_module(name)
    ]
    assert offenders == [], "\n".join(offenders)


def test_the_support_package_is_a_package() -> None:
    assert (TESTS / "support" / "__init__.py").is_file()
    assert not any((TESTS / "support").glob("test_*.py"))


def test_the_check_sees_an_import_of_a_test_module(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "from conftest import x\nimport test_other\nfrom e2e.conftest import y\n"
        "from tests.support.project import Project\n",
        encoding="utf-8",
    )
    found = [name for name in _imported(sample) if _is_test_module(name)]
    assert found == ["conftest", "test_other", "e2e.conftest"]
