"""`style.lock.yaml`: what install chose (packages, settings, harnesses) so `sync` can redo it."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agentstyle.diagnostics import StyleError

HEADER = "# Written by `style install`; `style sync` reinstalls from it. Edit with care.\n"


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
    packages: list[str] = field(default_factory=list)  # paths, relative to the root when inside
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    harnesses: dict[str, HarnessInstall] = field(default_factory=dict)
    protect: bool = True
    log: str = "hits"  # hits | full | off

    def to_yaml(self) -> str:
        doc = {
            "version": 1,
            "packages": self.packages,
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
    lock = LockFile(
        packages=[str(p) for p in doc.get("packages") or []],
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
