"""`style audit coverage`: Claude Code transcripts joined with what the real hooks recorded.

The project is installed by the real `style install`; the hook events STYLE recorded come from
the installed handler run as Claude Code runs it (`sh -c COMMAND`, the payload on stdin). The
transcripts are Claude Code JSONL files in the throwaway HOME, where Claude Code keeps them
(`~/.claude/projects/<project path, dashed>/<session>.jsonl`), written with the records the real
client writes (tests/e2e/test_coverage.py runs the real client).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from agentstyle.install.hookcommand import MISSING
from tests.support.cli import style_in_process
from tests.support.environment import clean_env
from tests.support.hooks import new_session
from tests.support.packages import no_rm, package_text
from tests.support.project import Project

PACKAGE = package_text(
    "cov",
    no_rm("no rm here"),
    description="coverage scenario",
)


def stamp(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


class Transcript:
    """A Claude Code transcript file being written: prompts, tool calls and their results."""

    def __init__(self, project: Project, session: str, start: float) -> None:
        folder = (
            project.home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(project.root))
        )
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"{session}.jsonl"
        self.session = session
        self.cwd = str(project.root)
        self.ts = start
        self.records: list[dict[str, Any]] = []

    def _add(self, kind: str, content: Any, **extra: Any) -> None:
        self.ts += 1.0
        self.records.append(
            {
                "type": kind,
                "message": {"role": kind, "content": content, "model": "claude-test"},
                "uuid": str(uuid.uuid4()),
                "timestamp": stamp(self.ts),
                "sessionId": self.session,
                "cwd": self.cwd,
                **extra,
            }
        )
        self.path.write_text("".join(json.dumps(r) + "\n" for r in self.records))

    def hook_ran(self, project: Project, event: str, call_id: str, stdout: str) -> None:
        """The record Claude Code keeps of a hook's run: its command (as installed, which
        spells out the not-installed notice) and what it printed."""
        self.ts += 0.1
        self.records.append(
            {
                "type": "attachment",
                "attachment": {
                    "type": "hook_success",
                    "hookName": f"{event}:Bash",
                    "toolUseID": call_id,
                    "hookEvent": event,
                    "content": "",
                    "stdout": stdout,
                    "stderr": "",
                    "exitCode": 0,
                    "command": project.installed_command(event),
                },
                "uuid": str(uuid.uuid4()),
                "timestamp": stamp(self.ts),
                "sessionId": self.session,
                "cwd": self.cwd,
            }
        )
        self.path.write_text("".join(json.dumps(r) + "\n" for r in self.records))

    def prompt(self, text: str) -> None:
        self._add("user", text)

    def call(self, tool: str, tool_input: dict[str, Any], result: str = "ok") -> str:
        call_id = f"toolu_{uuid.uuid4().hex[:12]}"
        self._add(
            "assistant", [{"type": "tool_use", "id": call_id, "name": tool, "input": tool_input}]
        )
        self._add("user", [{"type": "tool_result", "tool_use_id": call_id, "content": result}])
        return call_id

    def say(self, text: str) -> None:
        self._add("assistant", [{"type": "text", "text": text}])


def install(project: Project) -> Project:
    project.write_package(PACKAGE)
    project.install("pkg", "--harness", "claude-code")
    return project


@pytest.fixture
def installed(project: Project) -> Project:
    """Installed 30 days ago, as far as the report can tell (its hook config's time): the
    sessions below are all after it."""
    install(project)
    config = project.root / ".claude" / "settings.json"
    then = time.time() - 30 * 86400
    os.utime(config, (then, then))
    return project


def fire(project: Project, session: str, call_id: str, command: str) -> None:
    """The installed PreToolUse handler, as Claude Code runs it, for one Bash call."""
    payload = project.payload(
        "PreToolUse.bash-rm-rf.json",
        session_id=session,
        tool_use_id=call_id,
        tool_input={"command": command},
    )
    project.run_installed("PreToolUse", payload)


def coverage(project: Project, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = style_in_process(
        project.root, project.home, "audit", "coverage", *args, "--format", "json", env=env
    )
    assert proc.returncode == 0, proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def by_session(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["session"]: row for row in doc["rows"]}


def test_calls_the_hooks_saw_and_the_ones_they_did_not(installed: Project) -> None:
    project = installed
    now = time.time() - 120
    sid = new_session()
    t = Transcript(project, sid, now)
    t.prompt("tidy up")
    seen_call = t.call("Bash", {"command": "ls"})
    fire(project, sid, seen_call, "ls")
    t.call("Bash", {"command": "git status"})  # its hook never ran: no event recorded
    t.call("Read", {"file_path": "README.md"})  # no rule needs Read: no handler takes it
    t.say("done")

    row = by_session(coverage(project))[sid]
    assert row["harness"] == "claude-code"
    assert row["transcript"] == str(t.path)
    assert row["tool_calls"] == 3
    assert row["seen"] == 1
    assert row["unguarded"] == 1
    assert row["wholly_unseen"] is False
    [missed] = row["unseen"]
    assert (missed["tool"], missed["event"], missed["cause"]) == (
        "Bash",
        "PreToolUse",
        "not-recorded",
    )
    assert missed["time"] == stamp(now + 4)[:19] + "Z"


def test_a_matcher_edited_to_leave_a_guarded_tool_out(installed: Project) -> None:
    """The policy needs Bash at PreToolUse; the config as it is now leaves it out."""
    project = installed
    settings = project.root / ".claude" / "settings.json"
    config = json.loads(settings.read_text())
    for group in config["hooks"]["PreToolUse"]:
        group["matcher"] = "Edit|Write"
    settings.write_text(json.dumps(config))
    os.utime(settings, (time.time() - 30 * 86400,) * 2)
    sid = new_session()
    t = Transcript(project, sid, time.time() - 60)
    t.prompt("go")
    fire(project, sid, t.call("Edit", {"file_path": "a", "old_string": "", "new_string": ""}), "x")
    t.call("Bash", {"command": "rm victim.txt"})
    row = by_session(coverage(project))[sid]
    assert [(u["tool"], u["cause"]) for u in row["unseen"]] == [("Bash", "no-hook")]
    assert row["seen"] == 1 and row["unguarded"] == 0


def test_a_session_without_any_style_event_is_wholly_unseen(installed: Project) -> None:
    project = installed
    covered, skipped = new_session(), new_session()
    a = Transcript(project, covered, time.time() - 300)
    a.prompt("list")
    fire(project, covered, a.call("Bash", {"command": "ls"}), "ls")
    b = Transcript(project, skipped, time.time() - 200)  # a `claude --bare` session: no hook
    b.prompt("delete it")
    b.call("Bash", {"command": "rm victim.txt"})
    b.call("Bash", {"command": "ls"})

    doc = coverage(project)
    rows = by_session(doc)
    assert rows[covered]["unseen"] == [] and rows[covered]["seen"] == 1
    assert rows[skipped]["wholly_unseen"] is True
    assert rows[skipped]["seen"] == 0
    assert [u["cause"] for u in rows[skipped]["unseen"]] == ["hooks-skipped", "hooks-skipped"]
    # the session with unseen calls comes first, and the totals count it
    assert doc["rows"][0]["session"] == skipped
    assert doc["totals"]["sessions_with_unseen"] == 1
    assert doc["totals"]["unseen_calls"] == 2
    assert doc["totals"]["wholly_unseen_sessions"] == 1

    text = style_in_process(project.root, project.home, "audit", "coverage").stdout
    assert "1 session(s) with 2 tool call(s) STYLE never saw (1 wholly unseen)" in text
    assert f"claude-code {skipped}: 2 × Bash at PreToolUse: hooks-skipped" in text


def test_style_not_on_path_and_handler_failures_are_told(installed: Project) -> None:
    project = installed
    missing, failed = new_session(), new_session()
    m = Transcript(project, missing, time.time() - 400)
    m.prompt("go")
    gone = m.call("Bash", {"command": "ls"})
    # where `style-hook` is not on PATH the handler answers its notice, which Claude Code keeps
    m.hook_ran(project, "PreToolUse", gone, json.dumps({"systemMessage": MISSING}) + "\n")

    f = Transcript(project, failed, time.time() - 300)
    f.prompt("go")
    ran = f.call("Bash", {"command": "ls"})
    fire(project, failed, ran, "ls")
    # the command Claude Code keeps spells the notice out: that is no sign of a missing STYLE
    f.hook_ran(project, "PreToolUse", ran, "{}\n")
    f.call("Bash", {"command": "pwd"})
    when = dt.datetime.fromtimestamp(f.ts, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    project.error_log.parent.mkdir(parents=True, exist_ok=True)
    with project.error_log.open("a") as log:
        log.write(
            f"{when} claude-code PreToolUse fail-open database-locked: the database was busy\n"
        )

    rows = by_session(coverage(project))
    assert [u["cause"] for u in rows[missing]["unseen"]] == ["style-not-on-path"]
    assert [u["cause"] for u in rows[failed]["unseen"]] == ["handler-failed"]


def test_since_window_and_more_transcripts(installed: Project, tmp_path: Path) -> None:
    project = installed
    old, new = new_session(), new_session()
    o = Transcript(project, old, time.time() - 10 * 86400)
    o.prompt("old")
    o.call("Bash", {"command": "ls"})
    elsewhere = tmp_path / "saved"
    elsewhere.mkdir()
    n = Transcript(project, new, time.time() - 60)
    n.prompt("new")
    n.call("Bash", {"command": "ls"})
    moved = elsewhere / n.path.name
    n.path.rename(moved)  # not where Claude Code keeps it: found only through --transcripts

    rows = by_session(coverage(project, "--since", "7d"))
    assert old not in rows and new not in rows
    rows = by_session(coverage(project, "--since", "7d", "--transcripts", f"{elsewhere}/*.jsonl"))
    assert set(rows) == {new}
    assert rows[new]["transcript"] == str(moved)
    assert old in by_session(coverage(project))


def test_a_recorded_session_without_its_transcript(installed: Project) -> None:
    project = installed
    sid = new_session()
    fire(project, sid, "toolu_lost", "ls")
    row = by_session(coverage(project))[sid]
    assert row["transcript"] is None and row["tool_calls"] is None
    assert row["wholly_unseen"] is False
    text = style_in_process(project.root, project.home, "audit", "coverage").stdout
    assert "1 recorded session(s) whose transcript was not found" in text


def test_a_bad_window_is_one_line(installed: Project) -> None:
    proc = style_in_process(installed.root, installed.home, "audit", "coverage", "--since", "soon")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "soon" in proc.stderr


def test_doctor_and_the_html_report_tell_of_unseen_calls(installed: Project) -> None:
    project = installed
    sid = new_session()
    t = Transcript(project, sid, time.time() - 100)
    t.prompt("go")
    t.call("Bash", {"command": "ls"})
    t.call("Bash", {"command": "pwd"})
    doctor = style_in_process(project.root, project.home, "doctor", "--no-fire")
    assert (
        "warning: last 7 days: 1 session(s) with 2 tool call(s) STYLE never saw (1 wholly "
        "unseen); see `style audit coverage --since 7d`" in doctor.stdout
    ), doctor.stdout
    page = project.root / "report.html"
    proc = style_in_process(
        project.root, project.home, "audit", "--format", "html", "--out", str(page)
    )
    assert proc.returncode == 0, proc.stderr
    html = page.read_text()
    section = html[html.index('<section id="coverage">') :]
    section = section[: section.index("</section>")]
    assert "1 session(s) with 2 tool call(s) STYLE never saw" in section
    assert sid in section and "hooks-skipped ×2" in section


def test_doctor_is_quiet_when_every_call_was_seen(installed: Project) -> None:
    project = installed
    sid = new_session()
    t = Transcript(project, sid, time.time() - 100)
    t.prompt("go")
    fire(project, sid, t.call("Bash", {"command": "ls"}), "ls")
    doctor = style_in_process(project.root, project.home, "doctor", "--no-fire")
    assert "never saw" not in doctor.stdout, doctor.stdout


def test_sessions_from_before_the_install_are_not_counted(project: Project) -> None:
    before = new_session()
    t = Transcript(project, before, time.time() - 3600)  # an hour before `style install`
    t.prompt("old work")
    t.call("Bash", {"command": "ls"})
    install(project)
    os.utime(t.path)  # written again since (a file last written before is not even read)
    after = new_session()
    a = Transcript(project, after, time.time())
    a.prompt("new work")
    a.call("Bash", {"command": "ls"})
    doc = coverage(project)
    assert set(by_session(doc)) == {after}
    assert doc["totals"]["sessions_before_install"] == 1
    assert doc["covered_since"] is not None
    text = style_in_process(project.root, project.home, "audit", "coverage").stdout
    assert "1 session(s) from before STYLE was installed here" in text


def test_transcripts_that_are_not_there_or_not_transcripts(
    installed: Project, tmp_path: Path
) -> None:
    other = tmp_path / "other.jsonl"
    other.write_text('{"hello": "world"}\nnot json\n')
    proc = style_in_process(
        installed.root,
        installed.home,
        "audit",
        "coverage",
        "--transcripts",
        str(tmp_path / "nothing-*.jsonl"),
        "--transcripts",
        str(other),
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"--transcripts {tmp_path / 'nothing-*.jsonl'}: no file matches" in proc.stderr
    assert (
        f"{other}: not a Claude Code, Codex, Gemini CLI or Copilot CLI transcript; skipped"
        in proc.stderr
    )


# -- Codex and Gemini CLI --------------------------------------------------------------------------

HARNESS_FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROJECT_VAR = {"gemini-cli": "GEMINI_PROJECT_DIR"}


def run_gate(
    project: Project, harness: str, config: str, event: str, payload: dict[str, Any]
) -> None:
    """STYLE's installed handler for `event`, run as the harness runs it."""
    from tests.support.hooks import encode, finish

    hooks = json.loads((project.root / config).read_text())["hooks"][event]
    [command] = [h["command"] for g in hooks for h in g["hooks"] if "style-hook" in h["command"]]
    extra = {PROJECT_VAR[harness]: str(project.root)} if harness in PROJECT_VAR else {}
    proc = subprocess.Popen(
        ["/bin/sh", "-c", command],
        cwd=project.root,
        env=clean_env(project.home, extra),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    finish(proc, encode(payload))


def fixture(project: Project, folder: str, name: str, **overrides: Any) -> dict[str, Any]:
    text = (
        (HARNESS_FIXTURES / folder / name)
        .read_text()
        .replace("/home/dev/acme-api", str(project.root))
    )
    data: dict[str, Any] = json.loads(text)
    data.update(overrides)
    return data


def jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_codex_rollouts_matched_by_call_id(project: Project) -> None:
    project.write_package(PACKAGE)
    project.install("pkg", "--harness", "codex")
    sid = str(uuid.uuid4())
    start = time.time()

    def item(n: int, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": stamp(start + n), "type": "response_item", "payload": payload}

    records = [
        {
            "timestamp": stamp(start),
            "type": "session_meta",
            "payload": {"id": sid, "session_id": sid, "cwd": str(project.root)},
        },
        item(
            1,
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
        ),
        item(
            2,
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": '{"cmd": "ls"}',
                "call_id": "call_seen",
            },
        ),
        item(3, {"type": "function_call_output", "call_id": "call_seen", "output": "ok"}),
        item(
            4,
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": '{"cmd": "pwd"}',
                "call_id": "call_missed",
            },
        ),
        item(5, {"type": "function_call_output", "call_id": "call_missed", "output": "ok"}),
        item(
            6,
            {
                "type": "function_call",
                "name": "view_image",
                "arguments": "{}",
                "call_id": "call_img",
            },
        ),
    ]
    day = time.strftime("%Y/%m/%d", time.gmtime(start))
    rollout = (
        project.home / ".codex" / "sessions" / day / f"rollout-2026-12-03T10-00-00-{sid}.jsonl"
    )
    jsonl(rollout, records)
    # a rollout of another project is not this project's
    jsonl(
        rollout.with_name("rollout-2026-12-03T10-00-01-other.jsonl"),
        [{**records[0], "payload": {"id": "other", "cwd": "/elsewhere"}}, records[2]],
    )
    payload = fixture(
        project,
        "codex",
        "PreToolUse.bash-rm-rf.json",
        session_id=sid,
        tool_use_id="call_seen",
        tool_input={"command": "ls"},
    )
    run_gate(project, "codex", ".codex/hooks.json", "PreToolUse", payload)

    doc = coverage(project, env={"CODEX_HOME": str(project.home / ".codex")})
    rows = by_session(doc)
    assert set(rows) == {sid}
    row = rows[sid]
    assert row["harness"] == "codex" and row["transcript"] == str(rollout)
    assert row["tool_calls"] == 3 and row["seen"] == 1 and row["unguarded"] == 1
    assert [(u["tool"], u["cause"]) for u in row["unseen"]] == [("Bash", "not-recorded")]


def test_gemini_chats_matched_by_order(project: Project) -> None:
    project.write_package(PACKAGE)
    project.install("pkg", "--harness", "gemini-cli")
    sid = str(uuid.uuid4())
    start = time.time()
    folder = project.home / ".gemini" / "tmp" / "proj"
    folder.mkdir(parents=True)
    (folder / ".project_root").write_text(str(project.root))

    def call(n: int, command: str) -> dict[str, Any]:
        return {
            "id": f"run_shell_command_{n}",
            "name": "run_shell_command",
            "args": {"command": command},
            "status": "success",
            "timestamp": stamp(start + n),
        }

    message = {"id": "m1", "timestamp": stamp(start + 1), "type": "gemini", "content": "on it"}
    jsonl(
        folder / "chats" / f"session-2026-12-03T10-00-{sid[:8]}.jsonl",
        [
            {"sessionId": sid, "projectHash": "x", "startTime": stamp(start), "kind": "main"},
            {"id": "u1", "timestamp": stamp(start), "type": "user", "content": [{"text": "go"}]},
            # the message is written again as it grows: its calls count once
            {**message, "toolCalls": [call(2, "ls")]},
            {"$set": {"lastUpdated": stamp(start + 2)}},
            {**message, "toolCalls": [call(2, "ls"), call(3, "pwd"), call(4, "id")]},
        ],
    )
    for command in ("ls", "pwd"):  # the hooks saw the first two calls, not the third
        payload = fixture(
            project,
            "gemini",
            "BeforeTool.run_shell_command-rm-rf.json",
            session_id=sid,
            tool_input={"command": command},
        )
        run_gate(project, "gemini-cli", ".gemini/settings.json", "BeforeTool", payload)

    row = by_session(coverage(project))[sid]
    assert row["harness"] == "gemini-cli"
    assert row["tool_calls"] == 3 and row["seen"] == 2
    assert [(u["tool"], u["event"], u["cause"]) for u in row["unseen"]] == [
        ("run_shell_command", "BeforeTool", "not-recorded")
    ]


def test_a_wholly_unseen_session_counts_whatever_its_tools(installed: Project) -> None:
    project = installed
    sid = new_session()
    t = Transcript(project, sid, time.time() - 60)  # `claude --bare`, reading only
    t.prompt("read it")
    t.call("Read", {"file_path": "README.md"})
    doc = coverage(project)
    row = by_session(doc)[sid]
    assert row["wholly_unseen"] is True and row["unseen"] == [] and row["unguarded"] == 1
    assert doc["totals"]["sessions_with_unseen"] == 1
    doctor = style_in_process(project.root, project.home, "doctor", "--no-fire").stdout
    assert "last 7 days: 1 session(s) STYLE never saw at all (not one of their hooks ran)" in doctor


def test_transcripts_of_a_harness_not_installed_here(installed: Project, tmp_path: Path) -> None:
    """Codex rollouts named by hand in a project where only Claude Code is installed."""
    sid = str(uuid.uuid4())
    rollout = tmp_path / f"rollout-2026-12-03T10-00-00-{sid}.jsonl"
    jsonl(
        rollout,
        [
            {
                "timestamp": stamp(time.time() - 30),
                "type": "session_meta",
                "payload": {"id": sid, "cwd": str(installed.root)},
            },
            {
                "timestamp": stamp(time.time() - 29),
                "type": "response_item",
                "payload": {"type": "function_call", "name": "exec_command", "call_id": "c1"},
            },
        ],
    )
    row = by_session(coverage(installed, "--transcripts", str(rollout)))[sid]
    assert row["harness"] == "codex"
    assert [(u["tool"], u["cause"]) for u in row["unseen"]] == [("Bash", "no-hook")]


def test_sessions_started_in_a_subfolder_and_not_a_sibling(installed: Project) -> None:
    project = installed
    inner, sibling = new_session(), new_session()
    sub = project.root / "src"
    sub.mkdir()
    a = Transcript(project, inner, time.time() - 60)
    a.cwd = str(sub)
    a.path = a.path.parent.with_name(a.path.parent.name + "-src") / a.path.name
    a.path.parent.mkdir(parents=True)
    a.prompt("go")
    a.call("Bash", {"command": "ls"})
    b = Transcript(project, sibling, time.time() - 60)
    b.cwd = str(project.root) + "-api"  # another project whose name starts the same
    b.path = b.path.parent.with_name(b.path.parent.name + "-api") / b.path.name
    b.path.parent.mkdir(parents=True)
    b.prompt("go")
    b.call("Bash", {"command": "ls"})
    rows = by_session(coverage(project))
    assert inner in rows and sibling not in rows
    assert rows[inner]["wholly_unseen"] is True


def test_no_database_is_one_line(project: Project) -> None:
    proc = style_in_process(project.root, project.home, "audit", "coverage")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0 and "no rules database" in proc.stderr


def test_the_report_into_a_file(installed: Project) -> None:
    sid = new_session()
    t = Transcript(installed, sid, time.time() - 60)
    t.prompt("go")
    t.call("Bash", {"command": "ls"})
    out = installed.root / "coverage.json"
    proc = style_in_process(
        installed.root,
        installed.home,
        "audit",
        "coverage",
        "--format",
        "json",
        "--out",
        str(out),
    )
    assert proc.returncode == 0 and proc.stdout == ""
    assert json.loads(out.read_text())["rows"][0]["session"] == sid


def test_a_fifo_in_place_of_a_transcript_or_the_config_never_holds_the_report(
    installed: Project, tmp_path: Path
) -> None:
    """Opening a FIFO waits for a writer: one planted among the client's transcripts, named by
    `--transcripts`, or in the hook config's place is passed over, and the report ends."""
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(installed.root))
    folder = installed.home / ".claude" / "projects" / slug
    folder.mkdir(parents=True)
    os.mkfifo(folder / "planted.jsonl")
    os.mkfifo(tmp_path / "named.jsonl")
    config = installed.root / ".claude" / "settings.json"
    config.unlink()
    os.mkfifo(config)
    named = str(tmp_path / "named.jsonl")
    proc = installed.process(
        "audit", "coverage", "--format", "json", "--transcripts", named, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(proc.stdout)["totals"]["tool_calls"] == 0
