"""Harness adapters: one `HarnessAdapter` (protocol.py) per harness, found by name.

Each adapter module (`claude_code`, `codex`, `cursor`, `gemini_cli`) holds one subclass and
its instance `ADAPTER`; what the adapters share is split by job: reading a payload
(payload.py), writing an answer (answer.py), installing a config (install.py). The harness
facts (capability tables, SUPPORTED) are the package `facts/` below the adapters, which
imports nothing of the engine. This module imports no adapter until one is asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from agentstyle.harnesses.facts import MODULES

if TYPE_CHECKING:
    from agentstyle.harnesses.protocol import HarnessAdapter


def adapter_for(name: str) -> HarnessAdapter:
    """The adapter of a harness (KeyError for a name STYLE does not support)."""
    if name not in MODULES:
        raise KeyError(name)
    adapter: HarnessAdapter = import_module(f"agentstyle.harnesses.{MODULES[name]}").ADAPTER
    return adapter
