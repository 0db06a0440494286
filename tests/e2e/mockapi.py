"""Scripted mocks of the three model APIs the real clients call, on 127.0.0.1 (standard library).

One server speaks one API: Anthropic Messages (SSE), OpenAI Responses (SSE) or Gemini
`streamGenerateContent` (SSE). Each answer is one scripted assistant turn, chosen by how many
assistant turns the request's history already holds, so side requests and retries never shift
the script. Every request (path and body) is appended to a JSON Lines log that tests read: what
reached the model is read there, never assumed.

A server stops when its `with` block ends, and by itself after `lifetime_s` whatever happens.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

# The model name every mock reports in its answers; `{{model}}` must render it.
ANTHROPIC_MODEL = "claude-e2e-mock-1"
# a model Codex knows (its metadata offers `apply_patch`); the mock answers for it
OPENAI_MODEL = "gpt-5.3-codex"
GEMINI_MODEL = "gemini-2.5-flash"


@dataclass(frozen=True, slots=True)
class Say:
    """Assistant text."""

    text: str


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call by its native name and arguments."""

    tool: str
    args: dict[str, Any]


Turn = Sequence[Say | Call]


@dataclass(slots=True)
class Request:
    """One logged request: the path, the body, and whether it is the conversation itself."""

    path: str
    body: dict[str, Any]
    main: bool
    step: int  # assistant turns already in the history
    seq: int = 0  # order of arrival, from 1

    @property
    def text(self) -> str:
        """The whole body as JSON text (what a test searches for what reached the model)."""
        return json.dumps(self.body, ensure_ascii=False)


@dataclass(slots=True)
class Script:
    """The assistant turns of one conversation, by step; past the end, `last` forever.

    `pick` overrides the step rule for a scenario that must react to what the request holds.
    """

    turns: list[Turn]
    last: Turn = (Say("Done."),)
    pick: Callable[[Request], Turn | None] | None = None
    # a client that loops (a call it rejects, asked again and again) ends on plain text
    max_requests: int = 40

    def turn(self, req: Request) -> Turn:
        if req.seq > self.max_requests:
            return (Say("Stopping here."),)
        if self.pick is not None:
            chosen = self.pick(req)
            if chosen is not None:
                return chosen
        return self.turns[req.step] if req.step < len(self.turns) else self.last


# -- one API each: how a request is read and how a turn is written ------------------------------


def _sse(event: str | None, data: dict[str, Any]) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


class Anthropic:
    """`POST /v1/messages`, streamed as Server-Sent Events."""

    name = "anthropic"

    @staticmethod
    def is_main(path: str, body: dict[str, Any]) -> bool:
        return (
            path.startswith("/v1/messages")
            and "count_tokens" not in path
            and bool(body.get("tools"))
        )

    @staticmethod
    def step(body: dict[str, Any]) -> int:
        return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")

    @staticmethod
    def reply(path: str, body: dict[str, Any], turn: Turn, seq: int) -> tuple[str, bytes]:
        if "count_tokens" in path:
            return "application/json", json.dumps({"input_tokens": 100}).encode()
        blocks: list[dict[str, Any]] = []
        for i, part in enumerate(turn):
            if isinstance(part, Say):
                blocks.append({"type": "text", "text": part.text})
            else:
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": f"toolu_e2e_{seq}_{i}",
                        "name": part.tool,
                        "input": part.args,
                    }
                )
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        usage = {"input_tokens": 100, "output_tokens": 10}
        message = {
            "id": f"msg_e2e_{seq}",
            "type": "message",
            "role": "assistant",
            "model": ANTHROPIC_MODEL,
            "stop_reason": None,
            "stop_sequence": None,
        }
        if not body.get("stream"):
            done = dict(message, content=blocks, stop_reason=stop, usage=usage)
            return "application/json", json.dumps(done).encode()
        out = [
            _sse(
                "message_start",
                {"type": "message_start", "message": dict(message, content=[], usage=usage)},
            )
        ]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": b["text"]}
            else:
                start = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
            out.append(
                _sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": start},
                )
            )
            out.append(
                _sse(
                    "content_block_delta",
                    {"type": "content_block_delta", "index": i, "delta": delta},
                )
            )
            out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
        out.append(
            _sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 10},
                },
            )
        )
        out.append(_sse("message_stop", {"type": "message_stop"}))
        return "text/event-stream", b"".join(out)


class OpenAIResponses:
    """`POST /v1/responses`, streamed as Server-Sent Events (the Responses API)."""

    name = "openai"

    @staticmethod
    def is_main(path: str, body: dict[str, Any]) -> bool:
        return path.endswith("/responses") and bool(body.get("tools"))

    @staticmethod
    def step(body: dict[str, Any]) -> int:
        items = body.get("input") or []
        # one assistant turn: a message, or a run of calls side by side (parallel calls)
        n, prev_call = 0, False
        for item in items if isinstance(items, list) else []:
            kind = item.get("type")
            is_call = kind in ("function_call", "custom_tool_call", "local_shell_call")
            said = kind == "message" and item.get("role") == "assistant"
            if said or (is_call and not prev_call):
                n += 1
            prev_call = is_call
        return n

    @staticmethod
    def reply(path: str, body: dict[str, Any], turn: Turn, seq: int) -> tuple[str, bytes]:
        rid = f"resp_e2e_{seq}"
        out = [
            _sse(
                "response.created",
                {"type": "response.created", "response": {"id": rid, "model": OPENAI_MODEL}},
            )
        ]
        items: list[dict[str, Any]] = []
        custom = {t.get("name") for t in body.get("tools", []) if t.get("type") == "custom"}
        # a tool inside a namespace (Codex offers an MCP server's tools as `mcp__<server>`):
        # the call names the namespace and the tool apart, and the script names them joined
        spaced = {
            f"{t.get('name')}__{sub.get('name')}": (t.get("name"), sub.get("name"))
            for t in body.get("tools", [])
            if t.get("type") == "namespace"
            for sub in t.get("tools", [])
        }
        for i, part in enumerate(turn):
            if isinstance(part, Say):
                item: dict[str, Any] = {
                    "type": "message",
                    "role": "assistant",
                    "id": f"msg_e2e_{seq}_{i}",
                    "content": [{"type": "output_text", "text": part.text, "annotations": []}],
                }
                out.append(
                    _sse(
                        "response.output_item.added",
                        {
                            "type": "response.output_item.added",
                            "output_index": i,
                            "item": dict(item, content=[]),
                        },
                    )
                )
                out.append(
                    _sse(
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "output_index": i,
                            "item_id": item["id"],
                            "content_index": 0,
                            "delta": part.text,
                        },
                    )
                )
            elif part.tool in custom:
                # a freeform tool (apply_patch): its input is the raw text, not JSON
                item = {
                    "type": "custom_tool_call",
                    "id": f"ctc_e2e_{seq}_{i}",
                    "call_id": f"call_e2e_{seq}_{i}",
                    "name": part.tool,
                    "input": str(part.args.get("input", "")),
                }
            else:
                item = {
                    "type": "function_call",
                    "id": f"fc_e2e_{seq}_{i}",
                    "call_id": f"call_e2e_{seq}_{i}",
                    "name": part.tool,
                    "arguments": json.dumps(part.args),
                }
                if part.tool in spaced:
                    item["namespace"], item["name"] = spaced[part.tool]
            items.append(item)
            out.append(
                _sse(
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": i, "item": item},
                )
            )
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 110,
        }
        out.append(
            _sse(
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {"id": rid, "model": OPENAI_MODEL, "output": items, "usage": usage},
                },
            )
        )
        return "text/event-stream", b"".join(out)


class Gemini:
    """`POST /v1beta/models/M:streamGenerateContent?alt=sse` (and `:generateContent`)."""

    name = "gemini"

    @staticmethod
    def is_main(path: str, body: dict[str, Any]) -> bool:
        return "GenerateContent" in path or ":generateContent" in path

    @staticmethod
    def step(body: dict[str, Any]) -> int:
        return sum(1 for c in body.get("contents", []) if c.get("role") == "model")

    @staticmethod
    def reply(path: str, body: dict[str, Any], turn: Turn, seq: int) -> tuple[str, bytes]:
        if ":countTokens" in path:
            return "application/json", json.dumps({"totalTokens": 100}).encode()
        parts: list[dict[str, Any]] = []
        for part in turn:
            if isinstance(part, Say):
                parts.append({"text": part.text})
            else:
                parts.append({"functionCall": {"name": part.tool, "args": part.args}})
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 100,
                "candidatesTokenCount": 10,
                "totalTokenCount": 110,
            },
            "modelVersion": GEMINI_MODEL,
        }
        if "streamGenerateContent" in path:
            return "text/event-stream", _sse(None, chunk)
        return "application/json", json.dumps(chunk).encode()


API = {"anthropic": Anthropic, "openai": OpenAIResponses, "gemini": Gemini}


# -- the server -------------------------------------------------------------------------------


@dataclass
class MockServer:
    """A scripted API server on 127.0.0.1 that logs every request to `log_path`."""

    api: str
    script: Script
    log_path: Path
    lifetime_s: float = 300.0
    side: Callable[[Request], Turn] = field(default=lambda req: (Say("ok"),))
    port: int = 0
    _httpd: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _seq: int = 0

    def __enter__(self) -> MockServer:
        api = API[self.api]
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return  # the JSON log is the record; stderr stays quiet

            def _answer(self, code: int, ctype: str, data: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                # the client may give up on a request (it was ended, or it retried)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

            def do_GET(self) -> None:
                server._log(self.path, {}, main=False, step=0, method="GET")
                self._answer(404, "application/json", b'{"error":"not found"}')

            def do_HEAD(self) -> None:
                self._answer(200, "text/plain", b"")

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(size) if size else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                if not isinstance(body, dict):
                    body = {"_raw": body}
                main = api.is_main(self.path, body)
                req = server._log(self.path, body, main=main, step=api.step(body))
                turn = server.script.turn(req) if main else server.side(req)
                ctype, data = api.reply(self.path, body, turn, req.seq)
                self._answer(200, ctype, data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_path.write_text("")
        threading.Thread(target=self._httpd.serve_forever, args=(0.2,), daemon=True).start()
        # The server ends by itself, whatever the test does.
        timer = threading.Timer(self.lifetime_s, self.stop)
        timer.daemon = True
        timer.start()
        self._timer = timer
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        self.stop()

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _log(
        self, path: str, body: dict[str, Any], *, main: bool, step: int, method: str = "POST"
    ) -> Request:
        with self._lock:
            self._seq += 1
            entry = {
                "seq": self._seq,
                "t": time.time(),
                "method": method,
                "path": path,
                "main": main,
                "step": step,
                "body": body,
            }
            with self.log_path.open("a", encoding="utf-8") as f:
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return Request(path, body, main, step, entry["seq"])

    def requests(self, main_only: bool = True) -> list[Request]:
        """Every logged request, read back from the log file."""
        out = []
        for line in self.log_path.read_text(encoding="utf-8").splitlines():
            e = json.loads(line)
            if e["main"] or not main_only:
                out.append(Request(e["path"], e["body"], e["main"], e["step"], e["seq"]))
        return out
