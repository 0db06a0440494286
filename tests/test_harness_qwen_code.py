"""Qwen Code's room beyond what the harness-generic tests check: its continuations that are no
prompts, the settings version install writes, how its settings file is read, its chat files for
`style audit coverage`, and the fail mode plan and doctor state. The facts themselves are
confirmed against the real client in tests/e2e/test_qwen_code.py."""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from agentstyle.audit.transcripts import tool_calls, transcript_harness
from agentstyle.configfiles.jsonspans import JsonEditError
from agentstyle.harnesses import adapter_for, qwen_code
from agentstyle.install.install import is_ours
from tests.support.harness import HarnessProject
from tests.support.hooks import new_session
from tests.support.packages import no_rm, package_text

Q = "qwen-code"
PROMPT_NOTE = """
- id: prompt-note
  target: event
  event: prompt.submitted
  repeat: every
  text: Deploys go through the release checklist.
"""


@pytest.fixture
def project(tmp_path: Path) -> HarnessProject:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    p.write_package(package_text("q", no_rm("No deletes."), PROMPT_NOTE, description="qwen"))
    proc = p.cli("install", "pkg", "--harness", Q)
    assert proc.returncode == 0, proc.stderr
    return p


# -- continuations are no prompts -----------------------------------------------------------------


def test_a_continuation_is_answered_unevaluated_and_not_counted(project: HarnessProject) -> None:
    sid = new_session()
    prompt = project.fixture(Q, "UserPromptSubmit.json", session_id=sid)
    told = project.hook_as(Q, "UserPromptSubmit", prompt)
    assert "release checklist" in (told.context or "")
    for continuation in (
        project.fixture(Q, "UserPromptSubmit.continuation.json", session_id=sid),
        # after a Stop hook's block, the reason is the prompt
        project.fixture(Q, "UserPromptSubmit.continuation.json", session_id=sid, prompt="Go on."),
    ):
        again = project.hook_as(Q, "UserPromptSubmit", continuation)
        assert (again.stdout, again.code) == ("", 0)
    prompts = project.scalar(
        "SELECT count(*) FROM events WHERE session_id = ? AND point = 'prompt.submitted'", [sid]
    )
    assert prompts == 1
    assert not project.error_log.exists()


# -- the settings file ----------------------------------------------------------------------------


def version_of(text: str) -> Any:
    return json.loads(text).get(qwen_code.SETTINGS_VERSION_KEY)


def test_install_writes_the_settings_version_only_where_there_is_none(tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    p.write_package(package_text("q", no_rm("No deletes."), description="qwen"))
    config = p.config(Q)
    config.parent.mkdir(parents=True)
    for before, want in (('{"ui": {}}\n', qwen_code.SETTINGS_VERSION), ('{"$version": 3}\n', 3)):
        config.write_text(before)
        assert p.cli("install", "pkg", "--harness", Q).returncode == 0
        assert version_of(config.read_text()) == want  # an older one is the client's to migrate
        assert p.cli("uninstall", "--harness", Q).returncode == 0
        assert config.read_text() == before


def test_the_settings_are_read_as_qwen_code_reads_them() -> None:
    """Comments are whitespace and a byte order mark is read past; a trailing comma fails."""
    adapter = adapter_for(Q)
    groups = {
        "PreToolUse": [adapter.group(adapter.handler("style-hook --harness x", "", True), "")]
    }
    text, _markers = adapter.write_config(
        '\ufeff{\n  // mine\n  "ui": {"theme": "Qwen Dark"}\n}\n',
        groups,
        is_ours,
        "settings.json",
        [],
    )
    assert text.startswith("\ufeff{\n  // mine\n") and '"$version": 4' in text
    with pytest.raises(JsonEditError, match="trailing comma"):
        adapter.write_config('{"ui": {},}', groups, is_ours, "settings.json", [])


# -- its chats, for `style audit coverage` --------------------------------------------------------


def record(sid: str, cwd: str, ts: float, kind: str, **more: Any) -> dict[str, Any]:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(ts))
    provenance = {"user": "real_user", "assistant": "assistant_output"}.get(kind, kind)
    base = {"uuid": str(uuid.uuid4()), "sessionId": sid, "timestamp": stamp, "type": kind}
    return {**base, "provenance": provenance, "cwd": cwd, "version": "0.24.4", **more}


def chat(p: HarnessProject, sid: str, commands: list[str], refused: set[str]) -> Path:
    """A chat file as Qwen Code 0.24.4 writes it: a prompt, then one shell call per command."""
    cwd, start = str(p.root), time.time()
    rows = [record(sid, cwd, start, "user", message={"role": "user", "parts": [{"text": "go"}]})]
    for n, command in enumerate(commands, 1):
        call = {"id": f"call_{n}", "name": "run_shell_command", "args": {"command": command}}
        parts = [{"functionCall": call}]
        rows.append(
            record(sid, cwd, start + n, "assistant", model="qwen3", message={"parts": parts})
        )
        status = "not_started" if command in refused else "success"
        result = {"callId": f"call_{n}", "status": "success", "executionStatus": status}
        rows.append(record(sid, cwd, start + n, "tool_result", toolCallResult=result))
    folder = p.home / ".qwen" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd) / "chats"
    path = folder / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_chat_is_qwen_codes_and_its_calls_are_read(project: HarnessProject) -> None:
    sid = str(uuid.uuid4())
    path = chat(project, sid, ["ls", "rm -r x"], refused={"rm -r x"})
    assert transcript_harness(path) == Q  # not Claude Code's, whose records are alike
    calls = tool_calls(path, project.root)
    assert [(c.tool, c.call_id, c.finished) for c in calls] == [
        ("run_shell_command", "call_1", True),
        ("run_shell_command", "call_2", False),
    ]
    assert {c.session_id for c in calls} == {sid}


def test_coverage_matches_the_chats_calls_by_call_id(project: HarnessProject) -> None:
    sid = str(uuid.uuid4())
    chat(project, sid, ["ls", "pwd", "id"], refused=set())
    for n, command in ((1, "ls"), (3, "id")):  # the hooks saw the first and the third
        payload = project.fixture(
            Q,
            "PreToolUse.run_shell_command-rm-rf.json",
            session_id=sid,
            tool_call_id=f"call_{n}",
            tool_input={"command": command},
        )
        project.hook_as(Q, "PreToolUse", payload)
    proc = project.cli("audit", "coverage", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    [row] = [r for r in json.loads(proc.stdout)["rows"] if r["session"] == sid]
    assert row["harness"] == Q and row["tool_calls"] == 3 and row["seen"] == 2, row
    assert [(u["tool"], u["event"]) for u in row["unseen"]] == [("run_shell_command", "PreToolUse")]


# -- the fail mode --------------------------------------------------------------------------------


def test_plan_and_doctor_say_a_failed_hook_lets_the_call_run(project: HarnessProject) -> None:
    plan = project.cli("plan", "pkg", "--harness", Q)
    [line] = [ln for ln in plan.stdout.splitlines() if ln.startswith("hook failures:")]
    assert "Qwen Code lets the call run when the hook process crashes or times out" in line
    assert "(no setting changes that)" in line and "a refusal for `fail: closed` rules" in line
    doctor = project.cli("doctor", "--no-fire")
    assert f"ok: {Q}: hook failures: Qwen Code lets the call run" in doctor.stdout
    # a client that can be told to refuse names the switch
    claude = project.cli("plan", "pkg", "--harness", "claude-code")
    [line] = [ln for ln in claude.stdout.splitlines() if ln.startswith("hook failures:")]
    assert "(`style install --fail-closed`: it refuses)" in line
