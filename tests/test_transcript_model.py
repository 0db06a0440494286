"""The model of a session read from its transcript, where the client's payloads do not name it
(Claude Code, Gemini CLI): the last assistant entry, within a bounded tail, cached per session."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentstyle.evaluator.event import TRANSCRIPT_TAIL_BYTES
from agentstyle.harnesses import claude_code, gemini_cli
from agentstyle.harnesses import payload as payloads


def claude_entry(model: str, text: str = "ok") -> str:
    message = {"role": "assistant", "model": model, "content": [{"type": "text", "text": text}]}
    return json.dumps({"type": "assistant", "message": message})


def claude_payload(path: Path, session: str) -> dict[str, object]:
    return {
        "session_id": session,
        "transcript_path": str(path),
        "cwd": "/p",
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }


def test_claude_code_reads_the_last_assistant_model(tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    t.write_text(
        "\n".join(
            [
                json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}}),
                claude_entry("claude-old-1"),
                claude_entry("claude-new-2"),
                json.dumps({"type": "user", "message": {"role": "user", "content": "more"}}),
                '{"type": "assistant", "message": {"role": "assist',  # still being written
            ]
        )
    )
    ev = claude_code.ADAPTER.normalize(claude_payload(t, "s-last"), "Stop")
    assert ev.model == "claude-new-2"


def test_a_payload_model_wins_and_a_synthetic_entry_is_not_a_model(tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    t.write_text(claude_entry("claude-real-1") + "\n" + claude_entry("<synthetic>") + "\n")
    assert (
        claude_code.ADAPTER.normalize(claude_payload(t, "s-syn"), "Stop").model == "claude-real-1"
    )
    given = dict(claude_payload(t, "s-given"), model="claude-given-3")
    assert claude_code.ADAPTER.normalize(given, "Stop").model == "claude-given-3"


def test_no_transcript_no_model(tmp_path: Path) -> None:
    payload = claude_payload(tmp_path / "missing.jsonl", "s-missing")
    assert claude_code.ADAPTER.normalize(payload, "Stop").model is None
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # never read (it would block): only a regular file is
    assert claude_code.ADAPTER.normalize(claude_payload(fifo, "s-fifo"), "Stop").model is None


def test_the_read_is_bounded_and_cached_per_session(tmp_path: Path) -> None:
    t = tmp_path / "t.jsonl"
    # the assistant entry lies before a last line larger than the whole window: not found
    t.write_text(claude_entry("claude-far-1") + "\n" + "x" * (TRANSCRIPT_TAIL_BYTES + 10) + "\n")
    assert claude_code.ADAPTER.normalize(claude_payload(t, "s-far"), "Stop").model is None
    t.write_text(claude_entry("claude-near-1") + "\n")
    assert (
        claude_code.ADAPTER.normalize(claude_payload(t, "s-cache"), "Stop").model == "claude-near-1"
    )
    assert payloads._MODEL_CACHE["s-cache"][3] == "claude-near-1"
    # an unchanged file is not read again: the cached answer stands even if the cache is wrong
    path, size, mtime, _ = payloads._MODEL_CACHE["s-cache"]
    payloads._MODEL_CACHE["s-cache"] = (path, size, mtime, "claude-from-cache")
    assert claude_code.ADAPTER.normalize(claude_payload(t, "s-cache"), "Stop").model == (
        "claude-from-cache"
    )
    with t.open("a") as f:  # the transcript grew: read again
        f.write(claude_entry("claude-next-2") + "\n")
    assert (
        claude_code.ADAPTER.normalize(claude_payload(t, "s-cache"), "Stop").model == "claude-next-2"
    )


def test_gemini_cli_reads_the_model_entry(tmp_path: Path) -> None:
    t = tmp_path / "session.jsonl"
    t.write_text(
        "\n".join(
            [
                json.dumps({"sessionId": "g", "kind": "main"}),
                json.dumps({"type": "user", "content": [{"text": "hi"}]}),
                json.dumps({"type": "gemini", "content": "ok", "model": "gemini-2.5-flash"}),
                json.dumps({"$set": {"lastUpdated": "2026-12-01T00:00:00Z"}}),
            ]
        )
    )
    payload = {
        "session_id": "g-1",
        "transcript_path": str(t),
        "cwd": "/p",
        "hook_event_name": "BeforeAgent",
        "prompt": "next",
    }
    assert gemini_cli.ADAPTER.normalize(payload, "BeforeAgent").model == "gemini-2.5-flash"
