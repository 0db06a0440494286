"""The package files `style suggest` edits: found, copied, edited, diffed, loaded again.

Which package an edit goes to (a rule's own, or for a bundled rule the project's own package's
`exceptions:`), the edits made on a copy of its files (audit/suggest_patch.py), their diff, and
the copy loaded again (docs/audit.md#suggest)."""

from __future__ import annotations

import difflib
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from agentstyle.audit import suggest_patch as patch
from agentstyle.install.library import LIBRARY, ref_path
from agentstyle.install.lockfile import PackageRef
from agentstyle.policy.compile import load_and_validate
from agentstyle.policy.scaffold import package_name

OWN = "<own>"  # a proposal's `edits` before suggest() names the project's own package


@dataclass(frozen=True, slots=True)
class Op:
    """One edit of a package: `exception` (AND `not (value)` into the rule's condition),
    `set` (a key of the rule), `append` (a new inline rule: `fields`), `except` (a new entry of
    the package's `exceptions:`, `fields`: for a rule of another package)."""

    kind: str
    local_id: str = ""
    key: str = ""
    value: str = ""
    fields: tuple[tuple[str, str], ...] = ()


# -- where an exception goes -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OwnPackage:
    """The package a project writes its exceptions to bundled rules in: the first installed
    package of its own (a folder inside the project), or one suggest proposes to create."""

    name: str
    source: Path
    new: bool = False

    @property
    def manifest(self) -> str:
        """A new package's STYLE.yaml, before its `exceptions:` are added."""
        return (
            f"spec: style/v0.3\nname: {self.name}\nversion: 0.1.0\n"
            "description: This project's exceptions to the bundled guards (style suggest)\n"
        )

    @property
    def note(self) -> str:
        return (
            f"the project installs no package of its own: the exceptions go in a new package, "
            f"{self.source / 'STYLE.yaml'}; install it beside the others with `style install "
            f"{self.source}`"
        )


def is_bundled(source: str) -> bool:
    return Path(source).resolve().is_relative_to(LIBRARY)


def own_package(root: Path, refs: list[PackageRef], bundled: set[str]) -> OwnPackage:
    for ref in refs:
        if ref.library is not None or ref.path is None:
            continue
        folder = Path(ref_path(root, ref)).resolve()
        if not (folder / "STYLE.yaml").is_file() or not folder.is_relative_to(root.resolve()):
            continue
        try:
            doc = yaml.safe_load((folder / "STYLE.yaml").read_text("utf-8"))
        except (OSError, yaml.YAMLError):
            continue
        name = str(doc.get("name") or "") if isinstance(doc, dict) else ""
        if name and name not in bundled:
            return OwnPackage(name, folder)
    folder = root if not (root / "STYLE.yaml").exists() else root / "style-exceptions"
    return OwnPackage(package_name(folder), folder, new=True)


# -- the edits -------------------------------------------------------------------------------------


def _package_files(source: Path) -> tuple[Path, str]:
    """The folder a package's files are relative to, and its manifest's name there (a folder
    suggest creates a package in may not exist yet)."""
    if source.is_dir() or not source.exists():
        return source, "STYLE.yaml"
    return source.parent, source.name


def apply_ops(source: Path, ops: list[Op], files: dict[str, str]) -> dict[str, str] | None:
    """`files` (relative path → text, the package's own where missing) with the edits made, or
    None when an edit cannot be made in the file as it is written."""
    folder, manifest = _package_files(source)
    out = dict(files)

    def text_of(rel: str) -> str:
        if rel not in out:
            out[rel] = (folder / rel).read_text("utf-8")
        return out[rel]

    for op in ops:
        if op.kind in ("append", "except"):
            edit = patch.append_rule if op.kind == "append" else patch.append_exception
            done = edit(text_of(manifest), list(op.fields))
            rel = manifest
        else:
            rel, loc = _locate(source, op.local_id, text_of)
            if loc is None:
                return None
            done = (
                patch.add_exception(loc, op.value)
                if op.kind == "exception"
                else patch.set_key(loc, op.key, op.value)
            )
        if done is None:
            return None
        out[rel] = done
    return out


def _locate(source: Path, local_id: str, text_of: Any) -> tuple[str, patch.Located | None]:
    folder, manifest = _package_files(source)
    if not source.is_dir():
        return manifest, patch.locate_front_matter(text_of(manifest))
    inline = patch.locate_inline(text_of(manifest), local_id)
    if inline is not None:
        return manifest, inline
    found = patch.rule_file(folder, local_id)
    if found is None:
        return manifest, None
    rel = found.relative_to(folder).as_posix()
    return rel, patch.locate_front_matter(text_of(rel))


def unified_diff(source: Path, files: dict[str, str]) -> str:
    folder, _manifest = _package_files(source)
    parts: list[str] = []
    for rel in sorted(files):
        new = not (folder / rel).is_file()
        before = "" if new else (folder / rel).read_text("utf-8")
        parts.extend(
            difflib.unified_diff(
                before.splitlines(keepends=True),
                files[rel].splitlines(keepends=True),
                "/dev/null" if new else f"a/{rel}",
                f"b/{rel}",
            )
        )
    return "".join(parts)


def write_copy(source: Path, files: dict[str, str], dest: Path) -> Path:
    """A copy of the package at `dest` with `files` written over it; the path to load."""
    folder, manifest = _package_files(source)
    if not (folder / manifest).is_file():  # a package suggest creates (new_package)
        dest.mkdir(parents=True)
    elif source.is_dir():
        shutil.copytree(folder, dest, ignore=shutil.ignore_patterns(".git"))
    else:
        dest.mkdir(parents=True)
        shutil.copy2(source, dest / manifest)
        if (folder / "tests" / f"{source.stem}.yaml").is_file():
            (dest / "tests").mkdir()
            shutil.copy2(folder / "tests" / f"{source.stem}.yaml", dest / "tests")
    for rel, text in files.items():
        (dest / rel).write_text(text, encoding="utf-8")
    return dest if source.is_dir() else dest / manifest


def problems(path: Path) -> list[str]:
    """The errors the loader `style validate` uses finds in a package."""
    compiled = load_and_validate([str(path)])
    return [d.message for d in compiled.diagnostics if d.level == "error"]
