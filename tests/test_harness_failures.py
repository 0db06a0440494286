"""Handler failures on every harness (docs/design/runtime.md#handler-failure): fail open in each
harness's "no opinion" form, `fail: closed` as each harness's deny, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentstyle.harnesses import SUPPORTED
from agentstyle.harnesses.facts import spec_for
from tests.support.harness import HarnessProject
from tests.support.packages import package_text

CLOSED = package_text(
    "closed",
    """
- id: no-force
  target: tool
  tool: shell
  action: block
  fail: closed
  when: 'tool.input.command contains "--force"'
  text: No force.
""",
    description="a gate that must hold when STYLE fails",
    version="0.1.0",
)
OPEN = CLOSED.replace("    fail: closed\n", "")


def _gate(harness: str) -> str:
    route = spec_for(harness).route_of("tool.pre", "shell")
    assert route is not None, f"{harness} gates no shell call"
    return route.native_event


# Each harness's gate of a shell call, from its spec.
GATES = {harness: _gate(harness) for harness in SUPPORTED}
# Where each harness's deny answer says `deny` (a harness added to SUPPORTED fails here until
# its form is named): the keys down to the decision.
DENY_AT = {
    "claude-code": ("hookSpecificOutput", "permissionDecision"),
    "codex": ("hookSpecificOutput", "permissionDecision"),
    "cursor": ("permission",),
    "gemini-cli": ("decision",),
    "copilot-cli": ("permissionDecision",),
    "qwen-code": ("hookSpecificOutput", "permissionDecision"),
    "opencode": ("decision",),
}


def _project(tmp_path: Path, text: str, harness: str) -> HarnessProject:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    p.write_package(text, "closed")
    assert p.cli("install", "closed", "--harness", harness).returncode == 0
    return p


@pytest.mark.parametrize("harness", SUPPORTED)
def test_fail_closed_refuses_in_the_harness_form(tmp_path: Path, harness: str) -> None:
    p = _project(tmp_path, CLOSED, harness)
    result = p.hook_as(harness, GATES[harness], b"{not json", check=True)
    assert result.code == 0
    assert "refused (fail: closed)" in result.stderr
    doc = json.loads(result.stdout)
    text = json.dumps(doc)
    assert "STYLE could not evaluate policy (malformed JSON on stdin" in text
    assert harness in DENY_AT, f"name where {harness}'s deny answer says so"
    for key in DENY_AT[harness]:
        doc = doc[key]
    assert doc == "deny"


NOTICE = (
    "STYLE could not check this call (the harness sent input STYLE could not read); it was "
    "allowed. Run `style doctor`."
)


# Each harness's "no opinion" with the notice (a harness added to SUPPORTED fails until named).
NO_OPINION = {
    "claude-code": {"systemMessage": NOTICE},
    "codex": {"systemMessage": NOTICE},
    "cursor": {"permission": "allow", "user_message": NOTICE},
    "gemini-cli": {"systemMessage": NOTICE},
    "copilot-cli": None,  # nothing before a call reaches the person: the notice is on stderr
    "qwen-code": {"systemMessage": NOTICE},
    "opencode": {"systemMessage": NOTICE},
}


@pytest.mark.parametrize("harness", SUPPORTED)
def test_fail_open_is_the_harness_no_opinion(tmp_path: Path, harness: str) -> None:
    """The harness's "no opinion", with the notice in the field it shows the person."""
    assert harness in NO_OPINION, f"name {harness}'s no-opinion answer"
    answer = NO_OPINION[harness]
    p = _project(tmp_path, OPEN, harness)
    result = p.hook_as(harness, GATES[harness], b"", check=True)
    assert (result.json, result.code) == (answer, 0)
    assert "allowed (fail open)" in result.stderr
    assert "empty stdin" in p.error_log.read_text("utf-8")


def test_an_unknown_event_is_answered_and_logged(tmp_path: Path) -> None:
    p = _project(tmp_path, OPEN, "codex")
    result = p.hook_as("codex", "Interrupt", {"session_id": "s", "cwd": str(p.root)})
    assert (result.stdout, result.code) == ("", 0)  # Codex would reject any key here
    assert "unknown event `Interrupt`" in result.stderr
    assert "Run `style doctor`." in result.stderr
