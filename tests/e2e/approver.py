"""A stdio MCP server with one tool, `approve`, for Claude Code's `--permission-prompt-tool`: the
person's "yes" to a permission prompt in a headless run. It approves every call it is asked
about, unchanged, and appends each question to the log file named by its first argument.

Standard library only: newline-delimited JSON-RPC 2.0 on stdin and stdout (the MCP stdio
transport). It answers `initialize`, `tools/list`, `tools/call` and `ping`; notifications get
no answer.
"""

from __future__ import annotations

import json
import sys
from typing import Any

TOOL = {
    "name": "approve",
    "description": "Answers a permission prompt: allows the call.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "tool_name": {"type": "string"},
            "input": {"type": "object"},
            "tool_use_id": {"type": "string"},
        },
        "required": ["tool_name", "input"],
    },
}


def answer(request: dict[str, Any], log: str) -> dict[str, Any] | None:
    method = request.get("method")
    if "id" not in request:
        return None  # a notification
    result: dict[str, Any]
    if method == "initialize":
        params = request.get("params") or {}
        result = {
            "protocolVersion": params.get("protocolVersion", "2024-11-05"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "approver", "version": "1.0.0"},
        }
    elif method == "tools/list":
        result = {"tools": [TOOL]}
    elif method == "tools/call":
        args = (request.get("params") or {}).get("arguments") or {}
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(args) + "\n")
        decision = {"behavior": "allow", "updatedInput": args.get("input") or {}}
        result = {"content": [{"type": "text", "text": json.dumps(decision)}]}
    elif method == "ping":
        result = {}
    else:
        return {
            "jsonrpc": "2.0",
            "id": request["id"],
            "error": {"code": -32601, "message": f"no method {method}"},
        }
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    log = sys.argv[1]
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line), log)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
