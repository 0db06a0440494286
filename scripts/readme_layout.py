"""Writes the README's layout map from the modules' own docstrings: `make readme-layout`.

The map is the part of README.md between the two `<!-- layout … -->` lines: one entry per
folder of `agentstyle/` (its `__init__.py` docstring's first line, then its data files), and
under it one per module (the first line of the module's docstring). A module's first docstring
line is its summary, a whole phrase that stands alone: the docstring is that one line, or a
blank line follows it. tests/test_readme_layout.py fails when a module lacks one or when the
README's map is not what this script writes, so a new module, a moved one or a changed summary
shows in the README's diff instead of going unnoticed. It reads only what git tracks (`git
ls-files`), as a fresh clone has it: a module not yet added, or a folder left behind in the
checkout holding nothing but bytecode, is not in the map.

`python scripts/readme_layout.py` rewrites the map; `--check` only says whether it is current.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "agentstyle"
README = REPO / "README.md"
BEGIN = (
    "<!-- layout: begin. Made by `make readme-layout` from each module's docstring (its first "
    "line); edit those, not this. -->"
)
END = "<!-- layout: end -->"
# The folders in the order of the stages (tests/test_architecture.py): a folder not named here
# comes after them, by name; a subfolder right after its parent.
STAGES = (
    "",
    "grammar",
    "configfiles",
    "shell",
    "commands",
    "policy",
    "engine",
    "harnesses",
    "runtime",
    "install",
    "doctor",
    "audit",
    "imports",
    "sql",
    "cli",
)
# Not code of STYLE: the bundled packages' test scripts are data a rule reads.
DATA_ONLY = ("library",)


def summary(path: Path) -> str | None:
    """The first line of a module's docstring when it stands alone, else None."""
    doc = ast.get_docstring(ast.parse(path.read_text("utf-8")), clean=True)
    if not doc:
        return None
    lines = doc.splitlines()
    if len(lines) > 1 and lines[1].strip():
        return None
    return lines[0].strip()


@cache
def tracked() -> frozenset[Path]:
    """The files of `agentstyle/` that git tracks and the checkout has."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", PACKAGE.name],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    return frozenset(p for name in listed.split("\0") if name and (p := REPO / name).is_file())


def folders() -> list[Path]:
    """The package folders of `agentstyle/` (each with its `__init__.py`), in stage order."""
    found = [PACKAGE] + [
        p.parent
        for p in tracked()
        if p.name == "__init__.py"
        and p.parent != PACKAGE
        and p.relative_to(PACKAGE).parts[0] not in DATA_ONLY
    ]

    def order(folder: Path) -> tuple[int, str]:
        rel = folder.relative_to(PACKAGE).as_posix()
        top = rel.split("/")[0] if rel != "." else ""
        rank = STAGES.index(top) if top in STAGES else len(STAGES)
        return rank, rel

    return sorted(found, key=order)


def modules(folder: Path) -> list[Path]:
    return sorted(
        p for p in tracked() if p.parent == folder and p.suffix == ".py" and p.name != "__init__.py"
    )


def data(folder: Path) -> list[str]:
    """What a folder holds besides modules and packages: data files and data folders."""
    entries = {folder / p.relative_to(folder).parts[0] for p in tracked() if folder in p.parents}
    names = []
    for p in sorted(entries):
        if p.name.startswith((".", "__")) or p.suffix == ".py":
            continue
        if p / "__init__.py" in tracked():
            continue
        names.append(f"`{p.name}`" if p in tracked() else f"`{p.name}/`")
    return names


def problems() -> list[str]:
    """The modules (and package folders) whose docstring has no summary line to show."""
    paths = [p for f in folders() for p in [f / "__init__.py", *modules(f)]]
    return [
        f"{p.relative_to(REPO)}: the docstring's first line does not stand alone"
        for p in paths
        if summary(p) is None
    ]


def layout() -> str:
    """The map as the README holds it, between BEGIN and END."""
    lines = [BEGIN, ""]
    for folder in folders():
        rel = folder.relative_to(REPO).as_posix()
        lines.append(f"- **`{rel}/`**: {summary(folder / '__init__.py')}")
        lines.extend(f"  - `{m.name}`: {summary(m)}" for m in modules(folder))
        if found := data(folder):
            lines.append(f"  - data: {' '.join(found)}")
    lines += ["", END]
    return "\n".join(lines)


def current(readme: Path = README) -> str:
    """The map the README holds now, between BEGIN and END (empty when the markers are gone)."""
    text = readme.read_text("utf-8")
    start, end = text.find(BEGIN), text.find(END)
    return text[start : end + len(END)] if 0 <= start < end else ""


def main(argv: list[str], readme: Path = README) -> int:
    wrong = problems()
    if wrong:
        print("\n".join(wrong), file=sys.stderr)
        return 1
    text, old, new = readme.read_text("utf-8"), current(readme), layout()
    if not old:
        print(f"{readme.name} has no `{BEGIN}` … `{END}` section", file=sys.stderr)
        return 1
    if "--check" in argv:
        if old != new:
            print(f"{readme.name}'s layout is stale: run `make readme-layout`", file=sys.stderr)
            return 1
        return 0
    if old != new:
        readme.write_text(text.replace(old, new), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
