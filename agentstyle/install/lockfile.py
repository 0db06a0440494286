"""`style.lock.yaml`: what install chose (packages, settings, harnesses) so `sync` can redo it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agentstyle.diagnostics import StyleError

HEADER = (
    "# Written by `style install`; commit it. `style sync` reinstalls from it, and the first hook\n"
    "# on a machine without a rules database builds one from it. Edit with care.\n"
)
FORMAT = 2


@dataclass(frozen=True, slots=True)
class PackageRef:
    """One installed package as the lock names it: a bundled one by name (`library`), any
    other by `path`, relative to the install root when inside it; `digest` is the content the
    install compiled (a teammate's first build warns when the package changed since)."""

    path: str | None = None
    library: str | None = None
    name: str = ""
    digest: str = ""

    @property
    def label(self) -> str:
        return self.library or self.path or "?"

    def to_yaml(self) -> dict[str, str]:
        doc: dict[str, str] = {"name": self.name} if self.name else {}
        if self.library:
            doc["library"] = self.library
        else:
            doc["path"] = self.path or "."
        if self.digest:
            doc["digest"] = self.digest
        return doc


def _package_ref(path: Path, index: int, item: Any) -> PackageRef:
    if isinstance(item, str):  # format 1: a path
        return PackageRef(path=item)
    if not isinstance(item, dict):
        raise StyleError(f"{path}: `packages[{index}]` must be a mapping with `path` or `library`")
    where = [k for k in ("path", "library") if item.get(k)]
    if len(where) != 1:
        raise StyleError(f"{path}: `packages[{index}]` needs exactly one of `path` and `library`")
    return PackageRef(
        path=str(item["path"]) if "path" in where else None,
        library=str(item["library"]) if "library" in where else None,
        name=str(item.get("name") or ""),
        digest=str(item.get("digest") or ""),
    )


@dataclass(slots=True)
class HarnessInstall:
    scope: str = "project"
    fail_closed: bool = False
    # Files and folders (ending in `/`) install created, relative to the install root: uninstall
    # deletes them again when nothing but STYLE's content is left.
    created: list[str] = field(default_factory=list)
    native: list[str] = field(default_factory=list)  # commands of the packages' native hooks


@dataclass(slots=True)
class LockFile:
    packages: list[PackageRef] = field(default_factory=list)
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    harnesses: dict[str, HarnessInstall] = field(default_factory=dict)
    protect: bool = True
    log: str = "hits"  # hits | full | off

    def to_yaml(self) -> str:
        doc = {
            "version": FORMAT,
            "packages": [p.to_yaml() for p in self.packages],
            "settings": self.settings,
            "harnesses": {
                name: {
                    "scope": h.scope,
                    "fail_closed": h.fail_closed,
                    "created": h.created,
                    "native": h.native,
                }
                for name, h in sorted(self.harnesses.items())
            },
            "protect": self.protect,
            "log": self.log,
        }
        return HEADER + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


def read_lock(path: Path) -> LockFile:
    if not path.exists():
        return LockFile()
    try:
        doc = yaml.safe_load(path.read_text("utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StyleError(f"{path}: cannot read the lock file: {first}") from None
    if not isinstance(doc, dict):
        raise StyleError(f"{path}: the lock file must be a mapping")
    settings = doc.get("settings") or {}
    if not isinstance(settings, dict) or not all(
        isinstance(v, dict) or v is None for v in settings.values()
    ):
        raise StyleError(f"{path}: `settings` must map package names to mappings")
    if not isinstance(doc.get("packages") or [], list):
        raise StyleError(f"{path}: `packages` must be a list")
    if not isinstance(doc.get("version", 1), int) or doc.get("version", 1) > FORMAT:
        raise StyleError(
            f"{path}: lock file format {doc.get('version')!r} is newer than this STYLE reads "
            f"({FORMAT}); upgrade agentstyle"
        )
    lock = LockFile(
        packages=[_package_ref(path, i, p) for i, p in enumerate(doc.get("packages") or [])],
        settings={str(k): dict(v or {}) for k, v in settings.items()},
        protect=bool(doc.get("protect", True)),
        log=str(doc.get("log", "hits")),
    )
    harnesses = doc.get("harnesses") or {}
    if not isinstance(harnesses, dict):
        raise StyleError(f"{path}: `harnesses` must be a mapping")
    for name, h in harnesses.items():
        h = h if isinstance(h, dict) else {}
        lock.harnesses[str(name)] = HarnessInstall(
            str(h.get("scope", "project")),
            bool(h.get("fail_closed", False)),
            [str(c) for c in h.get("created") or []],
            [str(c) for c in h.get("native") or []],
        )
    if lock.log not in ("hits", "full", "off"):
        raise StyleError(f"{path}: `log` must be hits, full or off")
    return lock


def atomic_write(path: Path, text: str) -> None:
    """Write through a temporary file and a rename, so readers never see half a file.

    A symbolic link (a settings file kept in a dotfiles repository) is written through: the
    file it points at changes, the link stays.
    """
    if path.is_symlink():
        path = path.resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.style-tmp-{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
