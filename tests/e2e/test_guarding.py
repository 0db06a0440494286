"""Self-protection, failure handling and uninstall, in the real clients."""

from __future__ import annotations

import pytest

from e2e.clients import HARNESSES, Session, is_style_command
from e2e.mockapi import Script
from e2e.scenarios import BLOCK_PACKAGE, shell, write
from tests.support.packages import no_rm, package_text

NOTHING = package_text(
    "e2e", no_rm("no rm"), description="a gate on shell calls (so STYLE's handlers are there)"
)


@pytest.mark.parametrize("harness", HARNESSES)
def test_the_agent_cannot_uninstall_style(session, harness: str) -> None:
    s: Session = session(
        harness, Script([[shell(harness, f"style uninstall --harness {harness}")]])
    )
    s.install(NOTHING)
    before = s.config.read_bytes()
    s.run("remove the hooks")
    assert s.config.read_bytes() == before, "the agent's `style uninstall` ran"


@pytest.mark.parametrize("harness", HARNESSES)
def test_the_agent_cannot_edit_the_hook_config(session, harness: str) -> None:
    s: Session = session(harness, Script([]))
    s.install(NOTHING)
    before = s.config.read_bytes()
    if harness == "codex":  # no apply_patch for the mock's model: the shell writes it
        call = shell(harness, f"echo '{{}}' > {s.config.relative_to(s.project)}")
    else:
        call = write(harness, s.project, str(s.config.relative_to(s.project)), "{}\n")
    s.script.turns.append([call])
    s.run("clear the hook config")
    assert s.config.read_bytes() == before, "the agent rewrote the hook config"


@pytest.mark.parametrize("harness", HARNESSES)
def test_the_agent_cannot_write_into_dot_style(session, harness: str) -> None:
    s: Session = session(harness, Script([]))
    s.install(NOTHING)
    if harness == "codex":
        call = shell(harness, "echo x > .style/planted.txt")
    else:
        call = write(harness, s.project, ".style/planted.txt", "x\n")
    s.script.turns.append([call])
    s.run("write a note")
    assert not (s.project / ".style" / "planted.txt").exists(), "the agent wrote into .style/"


# (Copilot CLI: the session's first event, SessionStart, shows it: a warning on stderr)
FAIL_OPEN_SHOWN = {"claude-code": True, "codex": False, "gemini-cli": True, "copilot-cli": True}


def break_database(s: Session) -> None:
    s.style("engine", "stop", check=False)
    (s.project / ".style" / "style.duckdb").write_bytes(b"this is not a database" * 100)


@pytest.mark.parametrize("harness", HARNESSES)
def test_fail_closed_refuses_with_a_broken_database(session, harness: str) -> None:
    s: Session = session(harness, Script([[shell(harness, "touch created.txt")]]))
    s.install(BLOCK_PACKAGE, "--fail-closed")
    break_database(s)
    s.run("create a file")
    assert not (s.project / "created.txt").exists(), "--fail-closed let the call run"


@pytest.mark.parametrize("harness", HARNESSES)
def test_fail_open_runs_the_call_and_the_person_sees_why(session, harness: str) -> None:
    s: Session = session(harness, Script([[shell(harness, "touch created.txt")]]))
    s.install(BLOCK_PACKAGE)
    break_database(s)
    run = s.run("create a file")
    assert (s.project / "created.txt").exists(), "fail-open refused the call"
    # What the person sees in the client's own output: the fail-open notice (a systemMessage).
    # Claude Code and Gemini CLI show it; `codex exec` shows no hook message at all.
    seen = run.stdout + run.stderr
    told = "STYLE could not check this" in seen and "style doctor" in seen
    assert told == FAIL_OPEN_SHOWN[harness], f"fail-open shown to the person: {told}"


@pytest.mark.parametrize("harness", HARNESSES)
def test_uninstall_restores_the_config_and_no_hook_runs(session, harness: str) -> None:
    s: Session = session(harness, Script([[shell(harness, "rm victim.txt")]]))
    s.config.parent.mkdir(parents=True, exist_ok=True)
    mine = '{\n  "hooks": {},\n  "theme":   "dark"\n}\n'
    if harness == "gemini-cli":
        mine = '{\n  "ui": {"theme": "GitHub"},\n  "hooks": {}\n}\n'
    s.config.write_text(mine)
    s.install(BLOCK_PACKAGE)
    assert s.config.read_text() != mine
    s.style("uninstall", "--harness", harness)
    assert s.config.read_text() == mine, "uninstall did not restore the config byte for byte"
    run = s.run("delete victim.txt")
    assert not (s.project / "victim.txt").exists(), "a STYLE hook still ran after uninstall"
    assert not is_style_command(run.stdout + run.debug)
