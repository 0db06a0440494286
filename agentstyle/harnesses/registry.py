"""Every harness STYLE supports, by name, and the few facts about it the hook reads before it has
loaded anything: plain data, no imports (how to add a harness: `agentstyle/harnesses/__init__.py`).

Everything else STYLE knows about a harness is its `HarnessSpec` (`facts/<module>.py`, data) and
its adapter (`<module>.py`, behaviour). Those cannot serve the hook's first steps: the spec's
dataclasses alone would cost a call in a folder with no project 18 ms, where the whole call takes
a few. So the facts those steps need (the deadline, where the project is, the refusal that needs
no adapter) are one `HookFacts` per harness here, which the spec also offers (`HarnessSpec.hook`).
"""

from __future__ import annotations


class HookFacts:
    """What the hook reads of one harness on every call, and the module of its spec and adapter."""

    __slots__ = (
        "event_timeouts",
        "module",
        "per_second",
        "project_dir_env",
        "refusal_exit",
        "runs_other_configs",
        "session_env",
    )

    def __init__(
        self,
        module: str,
        *,
        project_dir_env: str | None = None,
        session_env: str | None = None,
        per_second: int = 1,
        event_timeouts: dict[str, int] | None = None,
        refusal_exit: int = 2,
        runs_other_configs: bool = False,
    ) -> None:
        # the module of its table in `facts/` and of its adapter in `harnesses/`
        self.module = module
        # the variable naming the project folder in a hook's environment (None: none is set)
        self.project_dir_env = project_dir_env
        # the variable naming the session in a hook's environment, for a payload too broken to
        # say (None: none is set)
        self.session_env = session_env
        # units of the harness's handler `timeout` per second: 1 (seconds), 1000 (milliseconds)
        self.per_second = per_second
        # native event → seconds STYLE writes where the harness caps the timeout below
        # `timeouts.HANDLER_TIMEOUT_S` (docs/design/harnesses.md#timeouts)
        self.event_timeouts = event_timeouts or {}
        # the exit code of a `--fail-closed` refusal given with no answer to trust (the last
        # nets: runtime/hookrun.py `run`, runtime/budget.py): exit 2 with the reason on stderr
        # is the documented refusal; Claude Code refuses exit 1 under `onFailure: block`
        self.refusal_exit = refusal_exit
        # the client also runs the hooks of another harness's config (Cursor runs Claude
        # Code's): a payload of this harness's shape that arrives through another's handler is
        # read and answered as this harness's (docs/design/harnesses.md#cursor-claude-hooks)
        self.runs_other_configs = runs_other_configs


# One entry per harness, in the order every listing of harnesses keeps.
HARNESSES: dict[str, HookFacts] = {
    "claude-code": HookFacts("claude_code", project_dir_env="CLAUDE_PROJECT_DIR", refusal_exit=1),
    # Codex caps SessionEnd at 3 s
    "codex": HookFacts("codex", event_timeouts={"SessionEnd": 3}),
    "cursor": HookFacts("cursor", project_dir_env="CURSOR_PROJECT_DIR", runs_other_configs=True),
    "gemini-cli": HookFacts(
        "gemini_cli",
        project_dir_env="GEMINI_PROJECT_DIR",
        session_env="GEMINI_SESSION_ID",
        per_second=1000,
    ),
}
SUPPORTED = tuple(HARNESSES)
# harness name → the module name of its table in `facts/` and of its adapter
MODULES = {name: facts.module for name, facts in HARNESSES.items()}
# The harness a command means when none is named (`--harness`'s default).
DEFAULT = "claude-code"


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
