"""Harnesses: every client STYLE guards, by name, and everything STYLE knows about each.

A harness is one room. Its facts are data on its `HarnessSpec` (`facts/<module>.py`: points,
capabilities, tool names, the files that hold its hooks), its behaviour is its adapter
(`<module>.py`: one `protocol.HarnessAdapter` subclass and its instance `ADAPTER`: payloads,
answers, the hook config, transcripts, its own extension, doctor's checks), and the few facts
the hook reads before it has loaded anything are its `HookFacts` entry in `HARNESSES` below
(the spec offers the same as `HarnessSpec.hook`). Code outside this package asks
`spec_for(name)` (facts/) and `adapter_for(name)` and never names a harness
(tests/test_harness_rooms.py). What the adapters share is split by job: reading a payload
(payload.py), writing an answer (answer.py), installing a config (install.py), reading a
transcript (transcripts/), finding STYLE's own extension (extension.py).

Adding a harness (docs/design/harnesses.md#adding-a-harness says what each step decides):

1. `HARNESSES` below: its entry, name → `HookFacts`: its module name, the variable naming the
   project folder in its hooks' environment, the payload keys naming the session and the
   workspace's folders, its timeout unit and the events it caps, the exit code of a
   `--fail-closed` refusal, whether its client runs other harnesses' configs.
2. `facts/<module>.py`: `NAME` and `SPEC`, a `HarnessSpec`: every point it offers with its
   native event and capabilities, its tool names, gate events, the config
   folder and the files in it that could switch STYLE off, the instruction file.
3. `<module>.py`: the adapter, a `HarnessAdapter` subclass and `ADAPTER`; write the abstract
   methods (read_event, read_tool_call, answer, handler, config_dialect, synthetic_payload,
   check_answer; `ClaudeShapedAdapter` reads a payload of Claude Code's shape) and
   override a default only where the harness differs (transcripts, an extension of its own, an
   enable flag, …).
4. Tests: sample payloads of its events under `tests/fixtures/<name>/` and the expected answers
   (`tests/test_harness_expected.py`); every harness-generic test runs over `SUPPORTED`, so the
   new harness is in them from the start, and each fails where it still lacks a fixture.
5. Docs: `docs/harnesses/<name>.md` for its users and a section of docs/design/harnesses.md for
   the contracts its adapter relies on.

Plain data and no imports until an adapter is asked for: the hook's fast path reads this module
(the deadline, where the project is), and the spec's dataclasses would cost a call in a folder
with no project more than the rest of it.
"""

from __future__ import annotations

from agentstyle.slotted import Slotted

# `typing` (with `re`, `collections` and more behind it) is no import of the hook's fast path:
# mypy reads this name as typing's TYPE_CHECKING.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from dataclasses import KW_ONLY

    from agentstyle.harnesses.protocol import HarnessAdapter

# The `timeout` STYLE writes on each installed handler, in seconds (docs/design/harnesses.md#
# timeouts): the hook answers within its 2 s budget by itself (limits.BUDGET_S); the written
# timeout is the second line of defence, a little above that budget (room for an interpreter's
# start on a loaded machine), so that even a STYLE bug cannot hold a session for the harness's
# own default (minutes). With the harness's fail-closed switch (`HarnessSpec.fail_closed_switch`,
# under `--fail-closed`) the client then refuses the call. A harness that caps an event lower
# has its own value there (`HookFacts.event_timeouts`).
HANDLER_TIMEOUT_S = 4


class HookFacts(metaclass=Slotted):
    """What the hook reads of one harness on every call, and the module of its spec and adapter."""

    # the module of its table in `facts/` and of its adapter in `harnesses/`
    module: str
    _: KW_ONLY
    # the variable naming the project folder in a hook's environment (None: none is set)
    project_dir_env: str | None = None
    # the variable naming the session in a hook's environment, for a payload too broken to
    # say (None: none is set)
    session_env: str | None = None
    # the payload key naming the session, read even from a payload too broken to decode
    session_key: str = "session_id"
    # units of the harness's handler `timeout` per second: 1 (seconds), 1000 (milliseconds)
    per_second: int = 1
    # native event → seconds STYLE writes where the harness caps the timeout below
    # HANDLER_TIMEOUT_S (docs/design/harnesses.md#timeouts; None: it caps none)
    event_timeouts: dict[str, int] | None = None
    # the exit code of a `--fail-closed` refusal, the one fact of it: given alone where no
    # answer can be trusted (the last nets: runtime/hookrun.py `run`, runtime/budget.py),
    # where exit 2 with the reason on stderr is the documented refusal; and beside the deny
    # answer unless it is 2, which makes a client drop the answer
    # (`HarnessAdapter.fail_closed_exit`)
    refusal_exit: int = 2
    # the payload key listing the workspace's folders, the first of which is the call's
    # folder where the payload names no `cwd` (None: its payloads always name one)
    roots_key: str | None = None
    # the client also runs the hooks of another harness's config (Cursor runs Claude
    # Code's): a payload of this harness's shape that arrives through another's handler is
    # read and answered as this harness's (docs/design/harnesses.md#cursor-claude-hooks)
    runs_other_configs: bool = False


# One entry per harness, in the order every listing of harnesses keeps.
HARNESSES: dict[str, HookFacts] = {
    # with `onFailure: block` Claude Code blocks on exit 1 even if the JSON could not be read
    "claude-code": HookFacts("claude_code", project_dir_env="CLAUDE_PROJECT_DIR", refusal_exit=1),
    # Codex caps SessionEnd at 3 s; it has no fail-closed switch: any exit but 0 and 2 lets the
    # call run
    "codex": HookFacts("codex", event_timeouts={"SessionEnd": 3}),
    # with `failClosed: true` Cursor blocks on exit 1 too, but the deny JSON with exit 0 says why
    # Cursor names the project only in `workspace_roots` on some events
    "cursor": HookFacts(
        "cursor",
        project_dir_env="CURSOR_PROJECT_DIR",
        session_key="conversation_id",
        roots_key="workspace_roots",
        runs_other_configs=True,
    ),
    # no fail-closed switch: a refusal must be a readable deny (exit 0 and JSON) or exit 2
    "gemini-cli": HookFacts(
        "gemini_cli",
        project_dir_env="GEMINI_PROJECT_DIR",
        session_env="GEMINI_SESSION_ID",
        per_second=1000,
    ),
    # Copilot CLI also runs the project's Claude Code hooks (`.claude/settings*.json`); its
    # PascalCase events send Claude-shaped payloads. A crashed PreToolUse hook (any exit but 0)
    # refuses the call; a timed-out one lets it run (docs/design/harnesses.md#copilot-cli-failure)
    "copilot-cli": HookFacts(
        "copilot_cli", project_dir_env="COPILOT_PROJECT_DIR", runs_other_configs=True
    ),
    # no fail-closed switch: a crashed or timed-out hook lets the call run; a refusal is the
    # deny JSON with exit 0, or exit 2 with the reason on stderr
    "qwen-code": HookFacts(
        "qwen_code",
        project_dir_env="QWEN_PROJECT_DIR",
        session_env="QWEN_CODE_SESSION_ID",
    ),
    # no command hooks: STYLE's plugin runs the handlers (the payload names the folder), and
    # exit 2 with the reason on stderr is a refusal it reads
    "opencode": HookFacts("opencode"),
}
SUPPORTED = tuple(HARNESSES)
# harness name → the module name of its table in `facts/` and of its adapter
MODULES = {name: facts.module for name, facts in HARNESSES.items()}
# The payload keys that list a workspace's folders where a payload names no `cwd`: any
# harness's, as a payload may arrive through another harness's handler (`runs_other_configs`).
ROOTS_KEYS = tuple(facts.roots_key for facts in HARNESSES.values() if facts.roots_key)
# The payload keys naming the session, any harness's, in `HARNESSES`' order (each once).
SESSION_KEYS = tuple(dict.fromkeys(facts.session_key for facts in HARNESSES.values()))
# The harness a command means when none is named (`--harness`'s default).
DEFAULT = "claude-code"


def written(harness: str, native_event: str) -> int:
    """The `timeout` STYLE writes on its handler for the event, in the harness's unit
    (`HookFacts.per_second`)."""
    facts = HARNESSES.get(harness)
    if facts is None:
        return HANDLER_TIMEOUT_S
    timeouts = facts.event_timeouts or {}
    return timeouts.get(native_event, HANDLER_TIMEOUT_S) * facts.per_second


def timeout_for(harness: str, native_event: str) -> float:
    """The timeout in force for the event, in seconds: the one STYLE writes."""
    facts = HARNESSES.get(harness)
    return written(harness, native_event) / (facts.per_second if facts is not None else 1)


def refusal_exit(harness: str) -> int:
    """The exit code of a `--fail-closed` refusal with no answer (2 for a name STYLE does not
    support: the documented refusal)."""
    facts = HARNESSES.get(harness)
    return facts.refusal_exit if facts is not None else 2


def project_dir_env(harness: str) -> str | None:
    """The variable naming the project folder in the harness's hooks (None: it sets none)."""
    facts = HARNESSES.get(harness)
    return facts.project_dir_env if facts is not None else None


def visitors(harness: str) -> list[str]:
    """The other harnesses whose payloads may arrive through `harness`'s handlers."""
    return [n for n, f in HARNESSES.items() if f.runs_other_configs and n != harness]


def adapter_for(name: str) -> HarnessAdapter:
    """The adapter of a harness (KeyError for a name STYLE does not support)."""
    from importlib import import_module

    if name not in MODULES:
        raise KeyError(name)
    adapter: HarnessAdapter = import_module(f"agentstyle.harnesses.{MODULES[name]}").ADAPTER
    return adapter


def adapters() -> list[HarnessAdapter]:
    """Every harness's adapter, in `HARNESSES`' order."""
    return [adapter_for(name) for name in SUPPORTED]
