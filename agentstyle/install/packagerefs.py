"""The packages an install names, merged with the lock file's, and the settings chosen.

A reference is made from what was given (a path, a bundled name) and merged with the lock file's;
the settings chosen for the packages come from `--set pkg.key=value`."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from agentstyle.diagnostics import StyleError
from agentstyle.install.library import bundled, bundled_path, ref_path
from agentstyle.install.lockfile import LockFile, PackageRef
from agentstyle.policy.compile import Compiled
from agentstyle.policy.model import Package, SettingDecl


def package_ref(root: Path, package: str) -> PackageRef:
    """How the lock names a package given on the command line: a folder or file by its path
    (relative to the install root when inside it, so the lock is the same on every clone),
    else a bundled package by name."""
    given = Path(package)
    if given.exists() or given.is_symlink():
        p = given.resolve()
        try:
            return PackageRef(path=p.relative_to(root.resolve()).as_posix() or ".")
        except ValueError:
            return PackageRef(path=p.as_posix())
    if bundled_path(package) is not None:
        return PackageRef(library=package)
    names = [b.name for b in bundled()]
    close = difflib.get_close_matches(package, names, n=1)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    raise StyleError(
        f"`{package}`: no such package folder or file, and no bundled package of that name"
        f"{hint}; `style packages` lists the bundled ones"
    )


def _same_ref(a: PackageRef, b: PackageRef) -> bool:
    return (a.library, a.path) == (b.library, b.path)


def merge_refs(locked: list[PackageRef], given: list[PackageRef]) -> list[PackageRef]:
    """The lock's packages, then the newly given ones that are not there yet."""
    out = list(locked)
    for ref in given:
        if not any(_same_ref(ref, r) for r in out):
            out.append(ref)
    return out


def named_refs(
    root: Path, refs: list[PackageRef], loaded: Compiled, locked: list[PackageRef]
) -> list[PackageRef]:
    """The refs with the name and content digest of the package each one loaded.

    A package name already installed from another place is a clear refusal: one project has
    one `guards`, and which copy wins must be the user's choice, not `dup-id`.
    """
    by_root = {cp.package.root.resolve(): cp.package for cp in loaded.packages}
    out: list[PackageRef] = []
    seen: dict[str, PackageRef] = {}
    for ref in refs:
        pkg = by_root.get(Path(ref_path(root, ref)).resolve())
        if pkg is None:
            out.append(ref)
            continue
        earlier = seen.get(pkg.name)
        if earlier is not None:
            first, second = (
                (earlier, ref)
                if any(_same_ref(earlier, r) for r in locked)
                else (
                    ref,
                    earlier,
                )
            )
            raise StyleError(
                f"package `{pkg.name}` is already installed from `{first.label}`; to use the "
                f"one at `{second.label}` instead, run `style uninstall {pkg.name}` first"
            )
        named = PackageRef(ref.path, ref.library, pkg.name, f"sha256:{pkg.digest}")
        seen[pkg.name] = named
        out.append(named)
    return out


def parse_sets(sets: list[str]) -> dict[str, dict[str, str]]:
    """`--set name=value` or `--set pkg.name=value`; a bare name goes to every package with it."""
    out: dict[str, dict[str, str]] = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise StyleError(f"--set `{item}`: expected NAME=VALUE")
        pkg, dot, name = key.strip().rpartition(".")
        out.setdefault(pkg if dot else "*", {})[name] = value
    return out


def _setting_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):  # a list setting written as a YAML list in the lock file
        return ",".join(_setting_text(v) for v in value)
    return "" if value is None else str(value)


def setting_texts(settings: dict[str, dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Another layer's chosen values as its lock holds them, as text (`chosen_settings`)."""
    return {
        pkg: {k: _setting_text(v) for k, v in values.items()} for pkg, values in settings.items()
    }


def _check_setting(pkg: str, decl: SettingDecl, value: str) -> None:
    allowed: list[str] | None = None
    if decl.type == "int" and not re.fullmatch(r"-?[0-9]+", value):
        problem = "an integer"
    elif decl.type == "bool" and value not in ("true", "false"):
        problem = "true or false"
    elif decl.type == "enum":
        allowed = [_setting_text(v) for v in decl.values or []]
        if value in allowed:
            return
        problem = "one of: " + ", ".join(allowed)
    else:
        return
    raise StyleError(f"setting `{decl.name}` of `{pkg}` must be {problem}, got `{value}`")


def chosen_settings(
    lock: LockFile, sets: dict[str, dict[str, str]], packages: list[Package]
) -> dict[str, dict[str, str]]:
    """Values chosen for each package: the lock's, then `--set`; checked against the declarations.

    Only chosen values are kept (not defaults), so a default the package changes later reaches
    `sync`.
    """
    declared = {p.name: {s.name: s for s in p.settings} for p in packages}
    for pkg, values in sets.items():
        if pkg != "*" and pkg not in declared:
            raise StyleError(f"--set {pkg}.…: `{pkg}` is not among the installed packages")
        for name in values:
            owners = [p for p in declared if name in declared[p]] if pkg == "*" else [pkg]
            if not owners or not all(name in declared[o] for o in owners):
                who = "no package being installed declares" if pkg == "*" else f"`{pkg}` has no"
                raise StyleError(f"--set {name}: {who} setting `{name}`")
    chosen: dict[str, dict[str, str]] = {}
    for package in packages:
        decls = declared[package.name]
        values = {
            k: _setting_text(v)
            for k, v in lock.settings.get(package.name, {}).items()
            if k in decls
        }
        values.update({k: v for k, v in sets.get("*", {}).items() if k in decls})
        values.update(sets.get(package.name, {}))
        for name, value in values.items():
            _check_setting(package.name, decls[name], value)
        chosen[package.name] = values
    return chosen
