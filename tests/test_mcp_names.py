"""MCP calls in each client's own spelling (docs/design/harnesses.md#mcp-names): the sample
payloads read into `mcp` calls with the server and the tool split right, the matcher install
writes for a `target: mcp` rule selects them, and the rule refuses them through the real hook.

The payload shapes are those the pinned clients sent in tests/e2e/test_mcp.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentstyle.harnesses import adapter_for
from agentstyle.harnesses.facts import spec_for
from agentstyle.harnesses.payload import split_mcp
from agentstyle.policy.plan import mcp_matcher
from tests.support.harness import HarnessProject, config_doc
from tests.support.packages import package_text

# harness → (its sample MCP call before the call runs, the event that gates it, the native name)
PRE_CALLS = {
    "claude-code": ("PreToolUse.mcp-github.json", "PreToolUse", "mcp__github__create_pull_request"),
    "codex": ("PreToolUse.mcp.json", "PreToolUse", "mcp__github__create_pull_request"),
    "gemini-cli": ("BeforeTool.mcp-github.json", "BeforeTool", "mcp_github_create_pull_request"),
    "copilot-cli": ("PreToolUse.mcp-github.json", "PreToolUse", "github-create_pull_request"),
    "qwen-code": ("PreToolUse.mcp-github.json", "PreToolUse", "mcp__github__create_pull_request"),
}
# every sample MCP call: harness, fixture, (server, tool)
SAMPLES = [(h, name, ("github", "create_pull_request")) for h, (name, _e, _n) in PRE_CALLS.items()]
SAMPLES += [
    ("codex", "PostToolUse.mcp.json", ("github", "create_pull_request")),
    # a server with `_` in its name: `mcp_context` says where the server ends
    ("gemini-cli", "AfterTool.mcp-acme_tracker.json", ("acme_tracker", "create_issue")),
]

BLOCK_TEXT = "MCP-UNIT-BLOCK no pull requests from here"
PACKAGE = package_text(
    "mcp-names",
    f"""
- id: no-pull-requests
  target: mcp
  mcp: github
  action: block
  when: 'mcp.tool == "create_pull_request"'
  text: {BLOCK_TEXT}
""",
    description="a target mcp rule",
)


@pytest.mark.parametrize(("harness", "name", "split"), SAMPLES)
def test_a_sample_mcp_call_reads_as_mcp_with_its_server_and_tool(
    tmp_path: Path, harness: str, name: str, split: tuple[str, str]
) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    payload = p.fixture(harness, name)
    ev = adapter_for(harness).normalize(payload, str(payload["hook_event_name"]))
    assert ev.tool == "mcp" and ev.first("tool.name") == "mcp"
    assert (ev.mcp_server, ev.first("mcp.tool")) == split
    assert (ev.mcp_server, ev.first("mcp.server")) == (split[0], split[0])
    assert ev.first("tool.native") == payload["tool_name"]


def test_gemini_cli_names_alone_split_at_the_first_underscore() -> None:
    """Without `mcp_context` (a client that sends none) the name is all there is, and a server
    with `_` in its name is misread: the context wins where it is sent."""
    naming = spec_for("gemini-cli").mcp_naming
    assert split_mcp("mcp_notes_write_note", naming) == ("notes", "write_note")
    assert split_mcp("mcp_acme_tracker_create_issue", naming) == ("acme", "tracker_create_issue")
    context = {"server_name": "acme_tracker", "tool_name": "create_issue"}
    assert split_mcp("mcp_acme_tracker_create_issue", naming, context) == (
        "acme_tracker",
        "create_issue",
    )
    # a built-in tool is no MCP call, in any client's spelling
    assert split_mcp("run_shell_command", naming) is None
    assert split_mcp("mcp_", naming) is None


@pytest.mark.parametrize(
    ("harness", "name", "split"),
    [
        ("claude-code", "mcp__notes__write_note", ("notes", "write_note")),
        ("claude-code", "mcp__notes", None),
        ("claude-code", "Bash", None),
        ("copilot-cli", "notes-write_note", ("notes", "write_note")),
        ("copilot-cli", "Bash", None),
        ("copilot-cli", "read_bash", None),
    ],
)
def test_split_by_the_clients_naming(
    harness: str, name: str, split: tuple[str, str] | None
) -> None:
    assert split_mcp(name, spec_for(harness).mcp_naming) == split


@pytest.mark.parametrize("harness", list(PRE_CALLS))
def test_the_matcher_for_a_server_selects_its_calls_alone(harness: str) -> None:
    """The matcher fragment install writes for `mcp: <glob>`, in the client's naming: the
    clients test it as a regex over the tool name (anchored by `^(…)$`)."""
    naming = spec_for(harness).mcp_naming
    native = PRE_CALLS[harness][2]
    assert re.fullmatch(mcp_matcher("github", naming), native)
    assert re.fullmatch(mcp_matcher("git*", naming), native)
    assert not re.fullmatch(mcp_matcher("gitlab", naming), native)


@pytest.mark.parametrize("harness", list(PRE_CALLS))
def test_a_target_mcp_rule_refuses_the_call_through_the_installed_hook(
    tmp_path: Path, harness: str
) -> None:
    fixture, event, native = PRE_CALLS[harness]
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    (p.root / "pkg").mkdir()
    (p.root / "pkg" / "STYLE.yaml").write_text(PACKAGE)
    done = p.cli("install", "pkg", "--harness", harness)
    assert done.returncode == 0, done.stderr
    matchers = [
        str(entry.get("matcher"))
        for entry in config_doc(harness, p.config(harness).read_text("utf-8"))["hooks"][event]
        if "matcher" in entry
    ]
    assert any(re.search(m, native) for m in matchers), matchers
    refused = p.run_installed_as(harness, event, p.fixture(harness, fixture))
    assert BLOCK_TEXT in refused.stdout + refused.stderr, refused
    other = p.fixture(harness, fixture, tool_name=native.replace("create_pull_request", "get_me"))
    if "mcp_context" in other:
        other["mcp_context"]["tool_name"] = "get_me"
    let_through = p.run_installed_as(harness, event, other)
    assert BLOCK_TEXT not in let_through.stdout + let_through.stderr, let_through
