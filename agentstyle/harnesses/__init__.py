"""Harness adapters; the registry maps a harness name to its facts and its adapter module.

An adapter module offers, for its harness:
- reading: `normalize(payload, native_event) -> Event`, `can_refuse(native_event)`;
- answering: `answer(decision, native_event, event=None) -> Wire`, `deny_answer`,
  `no_opinion`, `FAIL_CLOSED_EXIT`, `with_notice(wire, native_event, text) -> Wire` (a notice
  for the person in the field the harness shows, `NOTICE_FIELD`, on `NOTICE_EVENTS`; stderr
  elsewhere);
- installing: `SCOPES`, `FLAT`, `config_path`, `handler`, `group`, `write_config`,
  `strip_config`, `static_path`, `place_static`, `strip_static`, `install_notes`;
- checking (`style doctor`): `synthetic_payload`, `wire_problem`.
The spec module beside it holds the data: points, capabilities, tool names, routes.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from agentstyle.harnesses.base import HarnessSpec

SUPPORTED = ("claude-code", "codex", "cursor", "gemini-cli")
_MODULES = {
    "claude-code": "claude_code",
    "codex": "codex",
    "cursor": "cursor",
    "gemini-cli": "gemini_cli",
}


def spec_for(name: str) -> HarnessSpec:
    """The capability table of a harness (a light import: data only)."""
    if name not in _MODULES:
        raise KeyError(name)
    spec: HarnessSpec = import_module(f"agentstyle.harnesses.{_MODULES[name]}_spec").SPEC
    return spec


def adapter_for(name: str) -> ModuleType:
    """The adapter module: `normalize(payload, native_event)`, `answer(decision, native_event)`."""
    if name not in _MODULES:
        raise KeyError(name)
    return import_module(f"agentstyle.harnesses.{_MODULES[name]}")
