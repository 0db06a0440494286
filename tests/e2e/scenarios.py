"""What the scripted model asks each client for, in that client's own tool names, and the
scenarios whose assertions more than one test runs (the block scenario, also under a broken
hook, to prove the suite can fail)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from e2e.clients import Session
from e2e.mockapi import Call, Say, Script
from tests.support.packages import no_rm, package_text


def shell(harness: str, command: str) -> Call:
    if harness == "claude-code":
        return Call("Bash", {"command": command, "description": "run it"})
    if harness in ("copilot-cli", "opencode"):
        return Call("bash", {"command": command, "description": "run it"})
    if harness == "codex":
        return Call("exec_command", {"cmd": command})
    return Call("run_shell_command", {"command": command})


def write(harness: str, project: Path, rel: str, content: str) -> Call:
    if harness == "claude-code":
        return Call("Write", {"file_path": str(project / rel), "content": content})
    if harness == "copilot-cli":
        return Call("create", {"path": str(project / rel), "file_text": content})
    if harness == "codex":
        lines = "".join(f"+{line}\n" for line in content.splitlines())
        return Call(
            "apply_patch",
            {"input": f"*** Begin Patch\n*** Add File: {rel}\n{lines}*** End Patch\n"},
        )
    return Call("write_file", {"file_path": str(project / rel), "content": content})


def edit(harness: str, project: Path, rel: str, old: str, new: str) -> Call:
    if harness == "claude-code":
        return Call("Edit", {"file_path": str(project / rel), "old_string": old, "new_string": new})
    if harness == "copilot-cli":
        return Call("edit", {"path": str(project / rel), "old_str": old, "new_str": new})
    if harness == "codex":
        return Call(
            "apply_patch",
            {
                "input": f"*** Begin Patch\n*** Update File: {rel}\n"
                f"@@\n-{old}\n+{new}\n*** End Patch\n"
            },
        )
    return Call(
        "replace",
        {
            "file_path": str(project / rel),
            "old_string": old,
            "new_string": new,
            "instruction": "edit it",
        },
    )


def _codex_patch(patch: str) -> Call:
    """Codex edits files with `apply_patch`; with the mock's model it is reached through the
    shell tool, which Codex intercepts and runs as its own apply_patch tool."""
    return Call("exec_command", {"cmd": "apply_patch " + shlex.quote(patch)})


def after_request(s: Session, marker: str) -> list[str]:
    """The bodies of the main requests that arrived after the one whose body holds `marker`."""
    texts = [r.text for r in s.requests()]
    for i, t in enumerate(texts):
        if marker in t:
            return texts[i + 1 :]
    return []


def count_in(text: str, needle: str) -> int:
    return text.count(needle)


# -- the block scenario ----------------------------------------------------------------------

BLOCK_REASON = "E2E-BLOCK-REASON deleting files is not allowed here"

BLOCK_PACKAGE = package_text("e2e", no_rm(BLOCK_REASON), description="end-to-end block scenario")


def block_script(harness: str) -> Script:
    return Script([[Say("Deleting it."), shell(harness, "rm victim.txt")]], last=[Say("Done.")])


def assert_blocked(s: Session) -> None:
    """The file the call would delete still exists, and the reason reached the model."""
    assert (s.project / "victim.txt").exists(), "the blocked `rm` ran: victim.txt is gone"
    reqs = s.requests()
    assert len(reqs) >= 2, f"the model was not asked again after the call: {len(reqs)} request(s)"
    later = [r.text for r in reqs if r.step >= 1]
    assert any(BLOCK_REASON in t for t in later), "the block reason never reached the model"


def tool_results(body: dict[str, Any]) -> list[str]:
    """The tool results a request carries back to the model, as text (any of the three APIs)."""
    out: list[str] = []
    for m in body.get("messages", []):  # Anthropic
        content = m.get("content")
        if isinstance(content, list):
            out += [json.dumps(c.get("content")) for c in content if c.get("type") == "tool_result"]
    for item in body.get("input", []) or []:  # OpenAI Responses
        if isinstance(item, dict) and item.get("type", "").endswith("_output"):
            out.append(json.dumps(item.get("output")))
    for c in body.get("contents", []):  # Gemini
        for part in c.get("parts", []):
            if "functionResponse" in part:
                out.append(json.dumps(part["functionResponse"]))
    return out


# The context scenarios' packages (test_context.py, test_opencode.py), with their texts.
BRIEF = "E2E-BRIEF-7f3 the project brief: never touch generated/"


def brief_package(name: str = "e2e") -> str:
    """BRIEF at session start, in a package `name`."""
    brief = f'''
    - id: brief
      target: system
      text: "{BRIEF}"
    '''
    return package_text(name, brief, description="the brief at session start")


PROMPT_PACKAGE = """
spec: style/v0.3
name: e2e
version: 1.0.0
description: prompt context and a prompt refusal
rules:
  - id: prompt-note
    target: event
    event: prompt.submitted
    when: 'prompt contains "deploy"'
    text: "E2E-PROMPT-NOTE deploys go through the release checklist"
  - id: no-secrets
    target: event
    event: prompt.submitted
    action: block
    when: 'prompt contains "PASSWORD="'
    text: "E2E-PROMPT-BLOCK never paste credentials into a prompt"
"""
WARN_USER = "E2E-WARN-MODEL README edits need a changelog line. E2E-WARN-USER-ONLY see CONTRIBUTING"
POST_PACKAGE = f"""
spec: style/v0.3
name: e2e
version: 1.0.0
description: context and a warning after an edit
rules:
  - id: after-edit
    target: tool
    tool: [file.edit, file.write, shell]
    at: after
    action: inject
    repeat: every
    text: "E2E-POST-INJECT re-read the file you changed"
  - id: changelog
    target: tool
    tool: [file.edit, file.write, shell]
    at: after
    action: warn
    text: "{WARN_USER}"
"""

# A rule's fix (test_fix.py, test_opencode.py, test_qwen_code.py): the command it runs instead.
FIX_TEXT = "E2E-FIX keep a copy instead of deleting"
FIXED = "mv victim.txt victim.txt.trash"
FIX_PACKAGE = rf"""
spec: style/v0.3
name: e2e
version: 1.0.0
description: end-to-end fix scenario
rules:
  - id: trash-not-rm
    target: tool
    tool: shell
    action: block
    when: 'tool.input.command shell_regex "^rm victim\\.txt$"'
    fix: {{replace: '^rm (\S+)$', with: 'mv \1 \1.trash'}}
    text: "{FIX_TEXT}"
"""

# Context at every point the client facts concern: before a shell call, after a call (with the
# model's name) (test_facts.py, test_copilot_cli.py).
RECORD_RULES = (
    """
    - id: before-shell
      target: tool
      tool: shell
      action: inject
      repeat: every
      text: "E2E-PRE-CONTEXT about to run a command"
    """,
    """
    - id: after
      target: tool
      tool: [shell, file.write, file.edit]
      at: after
      action: inject
      repeat: every
      text: "E2E-POST-MODEL {{model | default: \\"unknown\\"}}"
    """,
)

# A subagent's start and stop (test_turns.py, test_copilot_cli.py).
SUB_RULES = (
    """
    - id: sub-start
      target: event
      event: subagent.start
      text: "E2E-SUBSTART report paths relative to the root"
    """,
    """
    - id: sub-stop
      target: event
      event: subagent.stop
      action: block
      text: "E2E-SUBSTOP list the call sites too"
    """,
)
