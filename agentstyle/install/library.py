"""The bundled rule library: packages that ship inside `agentstyle` and install by name.

`style install guard-destructive` finds `agentstyle/library/guard-destructive/`; the lock file
records it by name (`library: guard-destructive`), so a teammate's machine resolves it in its
own installed copy of STYLE, wherever that lives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentstyle.diagnostics import StyleError

if TYPE_CHECKING:
    from agentstyle.install.lockfile import PackageRef

LIBRARY = Path(__file__).resolve().parent.parent / "library"
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


@dataclass(frozen=True, slots=True)
class Bundled:
    name: str
    version: str
    description: str
    path: Path


def bundled_path(name: str) -> Path | None:
    """The folder of the bundled package `name`, None when the library has none of that name."""
    if not _NAME.match(name):
        return None
    folder = LIBRARY / name
    return folder if (folder / "STYLE.yaml").is_file() else None


def bundled() -> list[Bundled]:
    """Every bundled package, by name, with its version and one-line description."""
    import yaml

    out = []
    for folder in sorted(p for p in LIBRARY.iterdir() if (p / "STYLE.yaml").is_file()):
        try:
            doc = yaml.safe_load((folder / "STYLE.yaml").read_text("utf-8")) or {}
        except (OSError, yaml.YAMLError):
            doc = {}
        doc = doc if isinstance(doc, dict) else {}
        out.append(
            Bundled(
                folder.name,
                str(doc.get("version", "")),
                " ".join(str(doc.get("description", "")).split()),
                folder,
            )
        )
    return out


def ref_path(root: Path, ref: PackageRef) -> str:
    """Where a locked package is on this machine."""
    if ref.library is not None:
        folder = bundled_path(ref.library)
        if folder is None:
            raise StyleError(
                f"style.lock.yaml names the bundled package `{ref.library}`, which this STYLE "
                f"does not ship; upgrade agentstyle or remove it with `style uninstall "
                f"{ref.library}`"
            )
        return str(folder)
    path = Path(ref.path or ".")
    return str(path if path.is_absolute() else root / path)
