"""The policies a database is compiled from: its root's own, and the managed and user layers.

See docs/design/storage.md#layers.

One evaluation answers for every layer that applies to a call, so the nearest `.style/` holds
the rules of all of them, each row naming its layer. A package name belongs to the highest layer
that has it (managed, then project, then user): a lower layer's package of the same name is left
out with a note, so no project can stand in for an organisation's rule (not with the same ids,
not with `mode: replace`: that mode only replaces the rule's own earlier text).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.diagnostics import StyleError
from agentstyle.folders import layer_locks, managed_root
from agentstyle.install.library import ref_path
from agentstyle.install.lockfile import LockFile, read_lock
from agentstyle.policy.compile import Compiled, CompiledPackage, load_and_validate
from agentstyle.policy.rows import PolicyRows

# Which layer keeps a package name that two layers both install: the lower the rank, the
# stronger (docs/harnesses/index.md#layers).
RANK = {"managed": 0, "project": 1, "local": 1, "user": 2}


@dataclass(frozen=True, slots=True)
class Layer:
    name: str  # managed | user | project
    root: Path  # the folder its `style.lock.yaml` is in
    lock: LockFile


def own_layer(root: Path) -> str:
    """The layer an install root's own lock is: the managed folder, the home folder (a
    `--scope user` install), else a project."""
    here = os.path.abspath(root)
    if here == os.path.abspath(managed_root()):
        return "managed"
    if here == os.path.abspath(os.path.expanduser("~")):
        return "user"
    return "project"


def other_layers(root: Path) -> list[Layer]:
    """The managed and user layers that apply in `root`, highest first: those whose lock
    exists and names a package."""
    out = []
    for name, path in layer_locks(str(root)):
        lock_path = Path(path)
        if not lock_path.is_file():
            continue
        lock = read_lock(lock_path)
        if lock.packages:
            out.append(Layer(name, lock_path.parent, lock))
    return out


@dataclass(slots=True)
class TakenIn:
    """What the other layers add to an install's compile."""

    layer_of: dict[str, str] = field(default_factory=dict)  # package name → its layer
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)  # their locks' values
    harnesses: set[str] = field(default_factory=set)  # those the other layers installed for
    notes: list[str] = field(default_factory=list)
    own: set[str] = field(default_factory=set)  # the names of the root's own packages kept
    others: list[str] = field(default_factory=list)  # the other layers found (their names)


def take_in(root: Path, loaded: Compiled) -> TakenIn:
    """Add the other layers' packages to `loaded` (the root's own, loaded and valid), leaving
    out every package whose name a stronger layer has; what was left out is said in a note."""
    own_name = own_layer(root)
    out = TakenIn()
    for cp in loaded.packages:
        out.layer_of[cp.package.name] = own_name
    kept: list[CompiledPackage] = list(loaded.packages)
    for layer in other_layers(root):
        theirs = load_and_validate([ref_path(layer.root, ref) for ref in layer.lock.packages])
        errors = [d for d in theirs.diagnostics if d.level == "error"]
        if errors:
            raise StyleError(
                f"the {layer.name} policy ({layer.root / 'style.lock.yaml'}) has errors: "
                f"{errors[0].render()}"
            )
        out.harnesses.update(layer.lock.harnesses)
        out.others.append(layer.name)
        for cp in theirs.packages:
            name = cp.package.name
            there = out.layer_of.get(name)
            if there is None:
                kept.append(cp)
                out.layer_of[name] = layer.name
                out.settings[name] = dict(layer.lock.settings.get(name, {}))
                continue
            if RANK[layer.name] < RANK[there]:
                kept = [k for k in kept if k.package.name != name]
                kept.append(cp)
                out.notes.append(
                    f"package `{name}` of the {there} policy is not used: the {layer.name} "
                    f"policy has a package of that name, and its rules stand"
                )
                out.layer_of[name] = layer.name
                out.settings[name] = dict(layer.lock.settings.get(name, {}))
            else:
                out.notes.append(
                    f"package `{name}` of the {layer.name} policy is not used: the {there} "
                    f"policy has a package of that name"
                )
    loaded.packages = kept
    out.own = {n for n, layer in out.layer_of.items() if layer == own_name}
    return out


def stamp(rows: PolicyRows, layer_of: dict[str, str], default: str) -> None:
    """Name each package's and rule's layer in the rows (the `layer` columns)."""
    rows.packages = [p._replace(layer=layer_of.get(p.name, default)) for p in rows.packages]
    rows.rules = [r._replace(layer=layer_of.get(r.package, default)) for r in rows.rules]
