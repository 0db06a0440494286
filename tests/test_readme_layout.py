"""The README's Layout is the map scripts/readme_layout.py writes from the modules' docstrings
(`make readme-layout`): every module, each named by the first line of its docstring, which
stands alone as its summary. A new module, a moved one or a changed summary fails here until
the map is written again, so the README never lists a module that is gone or misses one."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

from tests.support.environment import REPO

PACKAGE = REPO / "agentstyle"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "readme_layout", REPO / "scripts" / "readme_layout.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


readme_layout = load_script()


def test_every_module_has_a_summary_line() -> None:
    assert readme_layout.problems() == []


def test_the_readme_holds_the_map_the_script_writes() -> None:
    assert readme_layout.current() == readme_layout.layout(), (
        "README.md's Layout is stale: run `make readme-layout`"
    )


def test_the_map_names_every_module_once() -> None:
    """A module in a folder the map does not walk (no `__init__.py`) would be missing."""
    text = readme_layout.layout()
    modules = [
        p
        for p in PACKAGE.rglob("*.py")
        if "library" not in p.relative_to(PACKAGE).parts and p.name != "__init__.py"
    ]
    assert len(modules) > 150
    entries = text.count("\n  - `")
    assert entries == len(modules)
    for path in modules:
        folder = path.parent.relative_to(REPO).as_posix()
        section = text.split(f"- **`{folder}/`**: ", 1)[1].split("\n- **", 1)[0]
        assert f"\n  - `{path.name}`: " in section, path


def test_a_run_on_first_line_is_no_summary(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text('"""Reads the thing: its parts, where\nthey are, and why."""\n', "utf-8")
    assert readme_layout.summary(module) is None
    module.write_text('"""Reads the thing.\n\nIts parts, where they are."""\n', "utf-8")
    assert readme_layout.summary(module) == "Reads the thing."
    module.write_text("x = 1\n", "utf-8")
    assert readme_layout.summary(module) is None


def test_the_script_rewrites_a_stale_map_and_its_check_then_passes(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    shutil.copy(REPO / "README.md", readme)
    stale = readme.read_text("utf-8").replace("  - `hook.py`: ", "  - `hook.py`: Old words. ", 1)
    readme.write_text(stale, "utf-8")
    assert readme_layout.main(["--check"], readme) == 1
    assert readme.read_text("utf-8") == stale  # --check writes nothing
    assert readme_layout.main([], readme) == 0
    assert readme.read_text("utf-8") == (REPO / "README.md").read_text("utf-8")
    assert readme_layout.main(["--check"], readme) == 0


def test_the_map_holds_only_what_git_tracks(tmp_path: Path) -> None:
    """A folder left in the checkout with nothing but bytecode (a package since moved) and a
    module git does not track are no part of a fresh clone: the map names neither."""
    package = tmp_path / "agentstyle"
    (package / "real").mkdir(parents=True)
    (package / "__init__.py").write_text('"""The package."""\n', "utf-8")
    (package / "real" / "__init__.py").write_text('"""A folder."""\n', "utf-8")
    (package / "real" / "kept.py").write_text('"""A module."""\n', "utf-8")
    (package / "real" / "table.json").write_text("{}\n", "utf-8")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    (package / "gone" / "__pycache__").mkdir(parents=True)
    (package / "gone" / "__pycache__" / "old.cpython-311.pyc").write_bytes(b"\0")
    (package / "real" / "untracked.py").write_text('"""Not added."""\n', "utf-8")
    script = load_script()
    script.REPO, script.PACKAGE = tmp_path, package
    assert script.layout().splitlines()[2:-2] == [
        "- **`agentstyle/`**: The package.",
        "- **`agentstyle/real/`**: A folder.",
        "  - `kept.py`: A module.",
        "  - data: `table.json`",
    ]
