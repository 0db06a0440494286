"""Harness adapters; the registry maps a harness name to its facts and its adapter module."""

from __future__ import annotations

from types import ModuleType

from agentstyle.harnesses.base import HarnessSpec

SUPPORTED = ("claude-code",)


def spec_for(name: str) -> HarnessSpec:
    """The capability table of a harness (a light import: data only)."""
    if name == "claude-code":
        from agentstyle.harnesses.claude_code_spec import SPEC

        return SPEC
    raise KeyError(name)


def adapter_for(name: str) -> ModuleType:
    """The adapter module: `normalize(payload, native_event)`, `answer(decision, native_event)`."""
    if name == "claude-code":
        from agentstyle.harnesses import claude_code

        return claude_code
    raise KeyError(name)
