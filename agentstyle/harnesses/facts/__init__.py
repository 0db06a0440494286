"""The harnesses STYLE supports and their capability tables: data every layer reads.

One module per harness (named in `harnesses.HARNESSES`) holds its `SPEC`; the shape of that
table is `base`, whose names this package's face repeats, with `harnesses.SUPPORTED`.
Nothing here imports the engine or an adapter, so the planner, the validator and the engine
learn a fact about a harness without loading its adapter.
"""

from __future__ import annotations

from importlib import import_module

from agentstyle.harnesses import MODULES, SUPPORTED
from agentstyle.harnesses.facts.base import (
    Can,
    HarnessSpec,
    Points,
    PointSpec,
    Route,
)

__all__ = [
    "MODULES",
    "SUPPORTED",
    "Can",
    "HarnessSpec",
    "PointSpec",
    "Points",
    "Route",
    "spec_for",
]


def spec_for(name: str) -> HarnessSpec:
    """The capability table of a harness (KeyError for a name STYLE does not support)."""
    if name not in MODULES:
        raise KeyError(name)
    spec: HarnessSpec = import_module(f"agentstyle.harnesses.facts.{MODULES[name]}").SPEC
    return spec
