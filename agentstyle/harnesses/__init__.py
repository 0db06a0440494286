"""Harnesses: everything STYLE knows about each client it guards, and nothing the core names.

A harness is one room. Its facts are data on its `HarnessSpec` (`facts/<module>.py`: points,
capabilities, tool names, the files that hold its hooks), its behaviour is its adapter
(`<module>.py`: one `protocol.HarnessAdapter` subclass and its instance `ADAPTER`: payloads,
answers, the hook config, transcripts, its own extension, doctor's checks), and the few facts the
hook reads before it loads anything are its entry in `registry.py`. Code outside this package
asks `spec_for(name)` and `adapter_for(name)` and never names a harness
(tests/test_harness_rooms.py). What the adapters share is split by job: reading a payload
(payload.py), writing an answer (answer.py), installing a config (install.py), reading a
transcript (transcript.py), finding STYLE's own extension (extension.py).

Adding a harness (docs/design/harnesses.md#adding-a-harness has the longer guide):

1. `registry.py`: its entry in `HARNESSES` (name → `HookFacts`: its module name, the variable
   naming the project folder, its timeout unit, the exit code of a bare refusal).
2. `facts/<module>.py`: `NAME` and `SPEC`, a `HarnessSpec`: every point it offers with its
   native event and capabilities, its tool names, gate and bookkeeping events, the config
   folder and the files in it that could switch STYLE off, the instruction file.
3. `<module>.py`: the adapter, a `HarnessAdapter` subclass and `ADAPTER`; write the abstract
   methods (normalize, answer, handler, config_dialect, synthetic_payload, check_answer) and
   override a default only where the harness differs (transcripts, an extension of its own, an
   enable flag, …).
4. Tests: sample payloads under `tests/fixtures/<name>/` and the expected answers
   (`tests/test_harness_expected.py`); every harness-generic test runs over `SUPPORTED`, so
   the new harness is in them from the start, and each fails where it still lacks a fixture.
5. Docs: `docs/harnesses/<name>.md` for its users and a section of docs/design/harnesses.md for
   the contracts its adapter relies on.

This module imports nothing until an adapter is asked for: the hook's fast path loads the
registry through it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # mypy reads this name as typing's (`typing` costs the fast path)
if TYPE_CHECKING:
    from agentstyle.harnesses.protocol import HarnessAdapter


def adapter_for(name: str) -> HarnessAdapter:
    """The adapter of a harness (KeyError for a name STYLE does not support)."""
    from importlib import import_module

    from agentstyle.harnesses.registry import MODULES

    if name not in MODULES:
        raise KeyError(name)
    adapter: HarnessAdapter = import_module(f"agentstyle.harnesses.{MODULES[name]}").ADAPTER
    return adapter


def adapters() -> list[HarnessAdapter]:
    """Every harness's adapter, in the registry's order."""
    from agentstyle.harnesses.registry import SUPPORTED

    return [adapter_for(name) for name in SUPPORTED]
