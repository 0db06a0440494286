"""What docs/writing-a-guard.md says its flow rules hold on, they hold on: the page's package is
built from its own YAML, and every command the section names as the key leaving the machine
is refused by it (a command that only reads the key locally is not)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.support.cli import style_in_process
from tests.support.environment import REPO

PAGE = REPO / "docs" / "writing-a-guard.md"
SECTION = "## Say what the command does"


def section() -> str:
    text = PAGE.read_text("utf-8")
    start = text.index(SECTION)
    return text[start : text.index("\n## ", start + 1)]


def named_commands(text: str) -> list[str]:
    """The commands in backticks that send the key (the section's examples)."""
    prose = text.split("```")[-1]  # after the package: its YAML holds backticks of its own
    spans = re.findall(r"`([^`]+)`", prose)
    return [s for s in spans if "keys/release.pem" in s and " " in s]


def test_every_flow_the_page_names_is_refused(tmp_path: Path) -> None:
    text = section()
    block = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert block is not None
    rules = yaml.safe_load(block.group(1))
    commands = named_commands(text)
    assert len(commands) >= 8  # the page names each way the bytes can go
    package = {
        "spec": "style/v0.3",
        "name": "team-flows",
        "version": "1.0.0",
        "description": "The flow rules of Writing a guard",
        "rules": rules,
    }
    local = "cat keys/release.pem | sha256sum"
    cases = [
        {
            "note": command,
            "event": "PreToolUse",
            "payload": {"tool_name": "Bash", "tool_input": {"command": command}},
            "expect": {"verdict": "block", "fires": ["release-key-stays-here"]},
        }
        for command in commands
    ] + [
        {
            "note": "read here, sent nowhere",
            "event": "PreToolUse",
            "payload": {"tool_name": "Bash", "tool_input": {"command": local}},
            "expect": {"verdict": "none"},
        }
    ]
    folder = tmp_path / "team-flows"
    (folder / "tests").mkdir(parents=True)
    (folder / "STYLE.yaml").write_text(yaml.safe_dump(package, sort_keys=False), "utf-8")
    (folder / "tests" / "flows.yaml").write_text(yaml.safe_dump({"cases": cases}), "utf-8")
    home = tmp_path / "home"
    home.mkdir()
    result = style_in_process(tmp_path, home, "test", str(folder))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(cases)} passed, 0 failed" in result.stdout
