"""The one environment every `style` and hook process of the tests runs in (`clean_env`), and the
constants that steer it. Nothing of the developer's shell leaks in: no STYLE_* or CLAUDE_*
variable, no PYTHONPATH, and HOME is the test's own folder.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HOOK_TIMEOUT_S = 60.0
# the width of the terminal the CLI tests run `style` in
WIDTH = "80"
# For a crowd of hooks whose answers are under test, not their deadlines: on a busy machine
# (`make test` on every core, other work beside it) dozens of hooks on one database can need
# more than a tool call's 55 s. The deadline (STYLE_DEADLINE_S) and the wait for the answer.
CROWD_DEADLINE_S = 240.0
CROWD_TIMEOUT_S = CROWD_DEADLINE_S + 60.0
CROWD_ENV = {"STYLE_DEADLINE_S": str(CROWD_DEADLINE_S)}
ORDINARY_DEADLINE_S = "20"
# Hooks that hand their events to the project's resident engine, as a user's hooks do: for tests
# that run many hooks for their answers and records, not for the direct path. A warm hook costs
# its process a tenth of a direct one's CPU (no duckdb import, no database open).
ENGINE_ON = {"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "300"}
# The home of a command a test runs from the repository itself (the bundled packages, the
# golden outputs): empty, never the developer's own (their ~/.claude or user-scope policy would
# change what the command sees). Beside a real home, not under the temporary folder: the
# bundled guards let deletes under /tmp through, and their fixtures delete `~`.
SCRATCH_HOME = Path.home() / ".cache" / "agentstyle-test-home"
SCRATCH_HOME.mkdir(parents=True, exist_ok=True)
BIN = str(Path(sys.executable).parent)  # the environment's scripts: style, style-hook
PYCACHE = Path(tempfile.gettempdir()) / f"agentstyle-test-pycache-{os.getuid()}"
# The same for the processes that copy this environment instead of building one (the demo in a
# clone, the golden CLI runs): with the cache outside the repository, writing it costs nothing.
os.environ["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def clean_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without anything that would steer STYLE or Claude Code."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("STYLE_", "CLAUDE_"))
        and k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    }
    env["HOME"] = str(home)
    # STYLE installed as a user has it: `style-hook` (what a committed hook config runs) on PATH.
    env["PATH"] = os.pathsep.join([BIN, *(p for p in env.get("PATH", "").split(os.pathsep) if p)])
    # Bytecode as a real installation has it, kept outside the repository: every hook is a new
    # interpreter, and compiling the package each time would dominate the suite's run time.
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    # Direct evaluation: no resident engine outliving a test and holding the database.
    env["STYLE_ENGINE"] = "off"
    # The hook's 2 s budget is a promise for an idle machine; under `make test` (every core, other
    # work beside it) a hook's first evaluation can take longer, so ordinary tests get room.
    # tests/test_budget.py removes this and runs the real default.
    env["STYLE_DEADLINE_S"] = ORDINARY_DEADLINE_S
    env.update(extra or {})
    return env


def terminal_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """`clean_env` as an interactive terminal has it: a fixed width, colour left to the command."""
    env = clean_env(home)
    env.pop("NO_COLOR", None)
    env["COLUMNS"] = WIDTH
    env.update(extra or {})
    return env
