"""`style doctor`'s "layers" section: which policies are in force where it runs.

Each layer's folder, lock, packages and installs, what the evaluating database holds of each, and
whether it is current with every layer's lock (docs/harnesses/index.md#layers)."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from agentstyle.diagnostics import StyleError
from agentstyle.doctor.checks import Finding
from agentstyle.evaluator.paths import StylePaths
from agentstyle.evaluator.statements import read_rows
from agentstyle.folders import ANSWER_ONCE_NAME, LOCK_NAME
from agentstyle.install.layers import Layer, other_layers, own_layer
from agentstyle.install.lockfile import read_lock

SECTION = "layers"


class LayerCount(NamedTuple):
    """doctor/rule_layers.sql"""

    layer: str
    rules: int


def _describe(layer: Layer) -> str:
    names = ", ".join(ref.name or ref.label for ref in layer.lock.packages) or "no package"
    installs = ", ".join(
        f"{harness} ({h.scope})" for harness, h in sorted(layer.lock.harnesses.items())
    )
    return (
        f"{layer.name} policy {layer.root / LOCK_NAME}: {names}; "
        f"installed for {installs or 'no harness'}"
    )


def layer_findings(root: Path) -> list[Finding]:
    """One line per layer in force here, then the database's share of each; nothing where the
    project's policy is the only one."""
    out: list[Finding] = []
    try:
        layers = other_layers(root)
    except StyleError as exc:
        return [Finding("error", SECTION, str(exc))]
    if not layers:
        return []  # the project's policy alone: nothing to say beyond the checks above
    paths = StylePaths(root)
    own = read_lock(paths.lockfile) if paths.lockfile.is_file() else None
    if own is not None and own.packages:
        layers.append(Layer(own_layer(root), root, own))
    for layer in layers:
        out.append(Finding("ok", SECTION, _describe(layer)))
    if not paths.database.is_file():
        return out
    from agentstyle.install.enginefree import engine_free_store
    from agentstyle.runtime import freshness

    why = freshness.stale(str(root))
    if why is not None:
        out.append(Finding("warning", SECTION, f"{why}; the next hook rebuilds it"))
    try:
        with engine_free_store(paths, create=False, wait_s=10.0) as conn:
            counts = read_rows(conn, "doctor/rule_layers", LayerCount)
    except Exception as exc:
        return [*out, Finding("warning", SECTION, f"cannot read the rules' layers: {exc}")]
    share = ", ".join(f"{c.rules} {c.layer}" for c in counts) or "no rules"
    once = (paths.home / ANSWER_ONCE_NAME).is_file()
    out.append(
        Finding(
            "ok",
            SECTION,
            f"evaluated together in {paths.database}: {share} rule(s)"
            + ("; each event answered once" if once else ""),
        )
    )
    return out
