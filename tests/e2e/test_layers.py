"""Layered policies in the real Claude Code (docs/harnesses/index.md#layers).

The organisation's handlers: `style install --scope managed` writes Claude Code's managed
settings; the pinned client reads them only from /etc/claude-code (its build has no override of
that path), and a test must not write /etc, which every other test on the machine would see.
So the handlers `--scope managed` wrote (into STYLE_MANAGED_CONFIG_ROOT) are put into the test
HOME's user settings, where this client runs them the same way; the managed policy folder is
the test's own (STYLE_MANAGED_HOME). Gemini CLI moves its system settings file by its own
variable (GEMINI_CLI_SYSTEM_SETTINGS_PATH), which `--scope managed` follows: there the managed
form itself is what the client reads. What is proved in the clients: the organisation's rule
refuses a call though the project installed a package of its name with `mode: replace`, and a
user and a project install, both hooking the prompt, give the model each layer's context once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import duckdb

from e2e.clients import Session
from e2e.mockapi import Say, Script
from e2e.scenarios import block_script, tool_results
from tests.support.packages import no_rm, package_text, shell_rule

ORG_REASON = "E2E-ORG-REASON the organisation forbids deletes"
ORG = package_text("org", no_rm(ORG_REASON), description="the organisation's guard")
IMPOSTOR = package_text(
    "org",
    shell_rule("no-rm", "^rm ", "deletes are fine in this project", action="allow", mode="replace"),
    description="a project's copy of the organisation's package that lets deletes through",
    version="9.0.0",
)
USER_NOTE = "E2E-USER-NOTE prefer small commits"
PROJECT_NOTE = "E2E-PROJECT-NOTE run cargo test first"


def _note(name: str, text: str) -> str:
    return f"""
spec: style/v0.3
name: {name}
version: 1.0.0
description: a prompt note
rules:
  - id: note
    target: event
    event: prompt.submitted
    when: 'prompt contains "deploy"'
    text: "{text}"
"""


GEMINI_SYSTEM = "gemini-system-settings.json"


def _layered(s: Session) -> None:
    """The session's STYLE commands and hooks see a managed policy folder and system config
    root of the test's own; Gemini CLI's system settings file is moved by its own variable,
    which `style install --scope managed` follows."""
    base: Callable[[], dict[str, str]] = s.env
    extra = {
        "STYLE_MANAGED_HOME": str(s.root / "managed"),
        "STYLE_MANAGED_CONFIG_ROOT": str(s.root / "system"),
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(s.root / GEMINI_SYSTEM),
    }
    s.env = lambda: {**base(), **extra}  # type: ignore[method-assign]


def _managed_as_user_settings(s: Session) -> None:
    """The hooks `--scope managed` wrote, put where this client reads hooks (see above)."""
    managed = s.root / "system" / "etc" / "claude-code" / "managed-settings.json"
    hooks = json.loads(managed.read_text())["hooks"]
    user = s.home / ".claude" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"hooks": hooks}, indent=2))


def test_a_managed_rule_refuses_though_the_project_replaces_its_package(session) -> None:
    s: Session = session("claude-code", block_script("claude-code"))
    _layered(s)
    s.style("install", "--scope", "managed", str(s.package(ORG, "org")))
    _managed_as_user_settings(s)
    done = s.style("install", str(s.package(IMPOSTOR, "impostor")), "--harness", "claude-code")
    assert "package `org` of the project policy is not used" in done.stderr
    s.run("delete victim.txt")
    assert (s.project / "victim.txt").exists(), "the managed rule's `rm` ran"
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any(ORG_REASON in t for t in results), results


def test_a_managed_rule_in_gemini_cli_through_its_system_settings(session) -> None:
    """Gemini CLI reads the system settings where its own variable says: the real managed
    form, no stand-in."""
    s: Session = session("gemini-cli", block_script("gemini-cli"))
    _layered(s)
    s.style("install", "--scope", "managed", "--harness", "gemini-cli", str(s.package(ORG, "org")))
    system = json.loads((s.root / GEMINI_SYSTEM).read_text())
    assert "BeforeTool" in system["hooks"]
    done = s.style("install", str(s.package(IMPOSTOR, "impostor")), "--harness", "gemini-cli")
    assert "package `org` of the project policy is not used" in done.stderr
    s.run("delete victim.txt")
    assert (s.project / "victim.txt").exists(), "the managed rule's `rm` ran"
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any(ORG_REASON in t for t in results), results


def test_a_user_and_a_project_install_answer_once_per_event(session) -> None:
    s: Session = session("claude-code", Script([], last=[Say("Noted.")]))
    _layered(s)
    user_pkg = s.package(_note("mine", USER_NOTE), "mine")
    done = s.style("install", "--scope", "user", str(user_pkg), "--harness", "claude-code")
    assert done.returncode == 0
    s.install(_note("team", PROJECT_NOTE))
    # both settings files hook the prompt: the client runs both handlers for one event
    for settings in (s.home / ".claude" / "settings.json", s.config):
        assert "UserPromptSubmit" in json.loads(Path(settings).read_text())["hooks"]
    s.run("please deploy the service")
    reqs = s.requests()
    assert reqs, "no request reached the model"
    for r in reqs:
        assert r.text.count(USER_NOTE) == 1, r.text.count(USER_NOTE)
        assert r.text.count(PROJECT_NOTE) == 1, r.text.count(PROJECT_NOTE)
    s.style("engine", "stop", check=False)
    conn = duckdb.connect(str(s.project / ".style" / "style.duckdb"), read_only=True)
    try:
        prompts = conn.execute(
            "SELECT count(*) FROM events WHERE native_event = 'UserPromptSubmit'"
        ).fetchone()
    finally:
        conn.close()
    assert prompts == (1,)
