"""A stdio MCP server, `notes`, with one read tool and one write tool, for the MCP scenarios.

`read_note` answers the text of a note (`READ_ANSWER`, so a test finds it in the model's next
request); `write_note` writes a file into the folder named by the first argument (so a test
sees whether it ran). Every call is appended to `calls.jsonl` in that folder.

Standard library only: newline-delimited JSON-RPC 2.0 on stdin and stdout (the MCP stdio
transport). It answers `initialize`, `tools/list`, `tools/call` and `ping`; notifications
(`notifications/initialized`, …) get no answer, an unknown method an error.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SERVER = "notes"
READ_TOOL = "read_note"
WRITE_TOOL = "write_note"
# What `read_note` answers: the test looks for it in what reaches the model next.
READ_ANSWER = "E2E-NOTE-BODY the shopping list is milk and bread"
# The file `write_note` writes into the server's folder.
WRITTEN_FILE = "written-note.txt"

TOOLS = [
    {
        "name": READ_TOOL,
        "description": "Reads a note by its name.",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    },
    {
        "name": WRITE_TOOL,
        "description": "Writes a note.",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "text": {"type": "string"}},
            "required": ["name", "text"],
        },
    },
]


def call(folder: Path, params: dict[str, Any]) -> dict[str, Any]:
    """The result of one `tools/call`."""
    name = params.get("name")
    args = params.get("arguments") or {}
    with (folder / "calls.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": name, "arguments": args}) + "\n")
    if name == READ_TOOL:
        text = READ_ANSWER
    elif name == WRITE_TOOL:
        (folder / WRITTEN_FILE).write_text(str(args.get("text", "")), encoding="utf-8")
        text = "written"
    else:
        return {"content": [{"type": "text", "text": f"no tool {name}"}], "isError": True}
    return {"content": [{"type": "text", "text": text}], "isError": False}


def answer(request: dict[str, Any], folder: Path) -> dict[str, Any] | None:
    if "id" not in request:
        return None  # a notification
    method = request.get("method")
    params = request.get("params") or {}
    result: dict[str, Any]
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2024-11-05"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": SERVER, "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        result = call(folder, params)
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"no method {method}"}
        return {"jsonrpc": "2.0", "id": request["id"], "error": error}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line), folder)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
