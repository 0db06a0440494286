"""A `target: mcp` rule in each real client: the write tool of a real MCP server refused, its
read tool run, and the names and fields each client's hook gets for an MCP call.

The server is `mcp_server.py` (stdio, `notes`: `read_note`, `write_note`), configured the way
each client takes one. The scripted model asks for the write tool, then the read tool. The test
asserts what the server did (the file `write_note` writes is not there; `read_note` ran), what
reached the model (the rule's text as the write call's result, the note as the read call's),
and the payload the client handed STYLE's hook (recorded by a wrapper).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from e2e import mcp_server
from e2e.clients import Session
from e2e.mockapi import Call, Say, Script
from e2e.scenarios import tool_results
from tests.support.packages import package_text

SERVER_SCRIPT = Path(mcp_server.__file__)
BLOCK_TEXT = "E2E-MCP-BLOCK writing notes is not allowed here"
PACKAGE = package_text(
    "e2e-mcp",
    f"""
- id: no-note-writes
  target: mcp
  mcp: {mcp_server.SERVER}
  action: block
  when: 'mcp.tool == "{mcp_server.WRITE_TOOL}"'
  text: {BLOCK_TEXT}
""",
    description="MCP scenario, the notes server's write tool refused",
)

# What each client calls the server's tools, to the model and in its hooks: `{tool}` filled in.
NATIVE_NAME = {
    "claude-code": "mcp__notes__{tool}",
    "codex": "mcp__notes__{tool}",  # offered as the namespace `mcp__notes` (the mock joins them)
    "gemini-cli": "mcp_notes_{tool}",
    "copilot-cli": "notes-{tool}",
    "qwen-code": "mcp__notes__{tool}",
}
# The event that gates a call in each client.
PRE_EVENT = {
    "claude-code": "PreToolUse",
    "codex": "PreToolUse",
    "gemini-cli": "BeforeTool",
    "copilot-cli": "PreToolUse",
    "qwen-code": "PreToolUse",
}


TOOLS = (mcp_server.READ_TOOL, mcp_server.WRITE_TOOL)


def native(harness: str, tool: str) -> str:
    return NATIVE_NAME[harness].format(tool=tool)


def server_entry(s: Session) -> dict[str, Any]:
    """The server as a stdio command, writing into `<root>/notes`."""
    return {"command": sys.executable, "args": [str(SERVER_SCRIPT), str(notes_folder(s))]}


def notes_folder(s: Session) -> Path:
    return s.root / "notes"


def configure(s: Session) -> list[str]:
    """The notes server configured in the client the way it takes one; the run's extra
    arguments."""
    entry = server_entry(s)
    if s.harness == "claude-code":
        config = s.root / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {mcp_server.SERVER: entry}}))
        tools = ",".join(native(s.harness, t) for t in TOOLS)
        return ["--mcp-config", str(config), "--strict-mcp-config", "--allowedTools", tools]
    if s.harness == "codex":
        args = json.dumps(entry["args"])
        return [
            "-c",
            f"mcp_servers.{mcp_server.SERVER}.command={json.dumps(entry['command'])}",
            "-c",
            f"mcp_servers.{mcp_server.SERVER}.args={args}",
        ]
    if s.harness == "copilot-cli":
        config = s.root / "mcp.json"
        local = dict(entry, type="local", tools=["*"])
        config.write_text(json.dumps({"mcpServers": {mcp_server.SERVER: local}}))
        return ["--additional-mcp-config", f"@{config}"]
    # Gemini CLI and Qwen Code: `mcpServers` in the user settings (trusted: no confirmation)
    folder = ".gemini" if s.harness == "gemini-cli" else ".qwen"
    settings = s.home / folder / "settings.json"
    doc = json.loads(settings.read_text())
    doc["mcpServers"] = {mcp_server.SERVER: dict(entry, trust=True)}
    settings.write_text(json.dumps(doc, indent=2))
    return []


def script(harness: str) -> Script:
    write = Call(native(harness, mcp_server.WRITE_TOOL), {"name": "list", "text": "eggs"})
    read = Call(native(harness, mcp_server.READ_TOOL), {"name": "list"})
    # one call a turn, no text beside it: the OpenAI mock counts a message and a call as two
    return Script([[write], [read]], last=[Say("Done.")])


def server_calls(s: Session) -> list[str]:
    log = notes_folder(s) / "calls.jsonl"
    text = log.read_text() if log.exists() else ""
    return [json.loads(line)["tool"] for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("harness", list(NATIVE_NAME))
def test_mcp_write_refused_read_runs(session, harness: str) -> None:
    s: Session = session(harness, script(harness))
    s.install(PACKAGE)
    s.record_payloads()
    s.run("write the shopping list, then read it back", extra=configure(s))

    # what the server did: the write never reached it, the read did
    assert not (notes_folder(s) / mcp_server.WRITTEN_FILE).exists(), "the refused write ran"
    assert server_calls(s) == [mcp_server.READ_TOOL], server_calls(s)
    # what reached the model: the refusal as the write's result, then the note as the read's
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any(BLOCK_TEXT in t for t in results), results
    assert any(mcp_server.READ_ANSWER in t for t in results), results

    # what the client's hook got: the MCP tool's own name, and STYLE refused that call alone
    gated = [p for p in s.payloads() if p["payload"].get("hook_event_name") == PRE_EVENT[harness]]
    names = [p["payload"].get("tool_name") for p in gated]
    assert native(harness, mcp_server.WRITE_TOOL) in names, names
    for p in gated:
        refused = BLOCK_TEXT in p["stdout"]
        assert refused == (p["payload"]["tool_name"] == native(harness, mcp_server.WRITE_TOOL)), p
    if harness == "gemini-cli":
        # the server and the tool apart, which the name alone cannot say for `a_b_c`
        context = gated[0]["payload"]["mcp_context"]
        assert (context["server_name"], context["tool_name"]) == ("notes", "write_note"), context
    if harness == "claude-code":
        assert gated[0]["payload"]["mcp_server"]["name"] == mcp_server.SERVER, gated[0]
