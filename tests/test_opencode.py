"""OpenCode's room beyond what the harness-generic tests check: STYLE's plugin file, written and
removed whole, its handler table, and what `style doctor` says of a changed copy
(docs/design/harnesses.md#opencode). The plugin itself runs in the real client:
tests/e2e/test_opencode.py."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from agentstyle.audit.transcripts import tool_calls, transcript_harness
from agentstyle.harnesses import opencode
from agentstyle.harnesses.opencode import plugin_handlers, plugin_template, plugin_text
from agentstyle.harnesses.protocol import HarnessAdapter
from agentstyle.harnesses.transcripts.opencode import FORMAT as OPENCODE_FORMAT
from agentstyle.harnesses.transcripts.opencode import databases
from agentstyle.install.hookcommand import hook_command
from tests.support.harness import HarnessProject, cross_project

PLUGIN = ".opencode/plugins/style.js"


@pytest.fixture
def project(tmp_path: Path) -> HarnessProject:
    return cross_project(tmp_path)


def test_the_plugin_is_the_template_with_the_handler_table_written_in(
    project: HarnessProject,
) -> None:
    proc = project.cli("install", "xh", "--harness", "opencode")
    assert proc.returncode == 0, proc.stderr
    text = (project.root / PLUGIN).read_text("utf-8")
    groups = plugin_handlers(text, PLUGIN)
    assert text == plugin_text(groups)
    head, tail = plugin_template().split(opencode.HANDLERS_START + "{}" + opencode.HANDLERS_END)
    assert text.startswith(head) and text.endswith(tail)
    assert sorted(groups) == [
        "chat.message",
        "session.created",
        "tool.execute.after",
        "tool.execute.before",
    ]
    [gate] = groups["tool.execute.before"]
    assert gate["matcher"] == "^(bash|edit|apply_patch|write)$"
    assert gate["hooks"] == [
        {
            "type": "command",
            "command": hook_command("opencode", "tool.execute.before", False, "project"),
            "timeout": 4,
        }
    ]


def test_fail_closed_is_the_plugins_switch_on_the_gates(project: HarnessProject) -> None:
    proc = project.cli("install", "xh", "--harness", "opencode", "--fail-closed")
    assert proc.returncode == 0, proc.stderr
    assert "note:" not in proc.stderr  # the plugin has the switch: nothing to warn about
    groups = plugin_handlers((project.root / PLUGIN).read_text("utf-8"), PLUGIN)
    [gate] = groups["tool.execute.before"][0]["hooks"]
    assert gate["failClosed"] is True
    assert " --fail-closed; " in gate["command"]
    assert "failClosed" not in groups["tool.execute.after"][0]["hooks"][0]
    assert "failClosed" not in groups["session.created"][0]["hooks"][0]


def test_install_again_then_uninstall_leaves_the_users_plugins(project: HarnessProject) -> None:
    mine = project.root / ".opencode/plugins/mine.js"
    mine.parent.mkdir(parents=True)
    mine.write_text("export const Mine = async () => ({})\n", encoding="utf-8")
    first = project.cli("install", "xh", "--harness", "opencode")
    assert f"wrote {PLUGIN}" in first.stdout
    written = (project.root / PLUGIN).read_bytes()
    again = project.cli("install", "xh", "--harness", "opencode")
    assert again.returncode == 0 and "wrote" not in again.stdout
    assert (project.root / PLUGIN).read_bytes() == written
    gone = project.cli("uninstall", "--harness", "opencode")
    assert gone.returncode == 0, gone.stderr
    assert not (project.root / PLUGIN).exists()
    assert mine.read_text("utf-8") == "export const Mine = async () => ({})\n"


def test_uninstall_removes_the_folders_install_made(project: HarnessProject) -> None:
    project.cli("install", "xh", "--harness", "opencode")
    project.cli("uninstall", "--harness", "opencode")
    assert not (project.root / ".opencode").exists()


def test_a_plugin_of_another_author_in_its_place_is_refused(project: HarnessProject) -> None:
    theirs = "// my own style.js\nexport const Style = async () => ({})\n"
    path = project.root / PLUGIN
    path.parent.mkdir(parents=True)
    path.write_text(theirs, encoding="utf-8")
    proc = project.cli("install", "xh", "--harness", "opencode")
    assert proc.returncode == 1
    assert f"refusing to touch {path}: {path} is not STYLE's plugin" in proc.stderr
    assert path.read_text("utf-8") == theirs


def test_the_user_scope_is_opencodes_config_folder(project: HarnessProject) -> None:
    xdg = project.home / "xdg"
    proc = project.cli(
        "install",
        "xh",
        "--harness",
        "opencode",
        "--scope",
        "user",
        env={"XDG_CONFIG_HOME": str(xdg)},
    )
    assert proc.returncode == 0, proc.stderr
    assert (xdg / "opencode/plugins/style.js").is_file()
    assert not (project.root / ".opencode").exists()


def test_doctor_reports_a_changed_plugin(project: HarnessProject) -> None:
    project.cli("install", "xh", "--harness", "opencode")
    clean = project.cli("doctor", "--no-fire")
    assert clean.returncode == 0, clean.stdout
    path = project.root / PLUGIN
    text = path.read_text("utf-8")
    path.write_text(text.replace("if (said.refuse) throw", "if (false) throw"), encoding="utf-8")
    broken = project.cli("doctor", "--no-fire")
    assert broken.returncode == 1
    assert "the plugin's code was changed" in broken.stdout
    assert "run `style sync`" in broken.stdout
    assert project.cli("sync").returncode == 0
    assert path.read_text("utf-8") == text


def test_doctor_fires_the_plugins_handlers(project: HarnessProject) -> None:
    project.cli("install", "xh", "--harness", "opencode")
    proc = project.cli("doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ok: opencode: session.created: the installed command answered" in proc.stdout
    assert "ok: opencode: tool.execute.before: the installed command answered" in proc.stdout


def test_the_plugin_reads_every_key_an_answer_may_carry() -> None:
    """Each key the adapter writes is one the plugin's code reads."""
    code = plugin_template()
    keys = {k for ks in opencode.ANSWER_KEYS.values() for k in ks}
    for key in keys:
        assert f"answer.{key}" in code, key
    assert isinstance(opencode.ADAPTER, HarnessAdapter)


def test_doctor_says_what_a_failing_hook_does(project: HarnessProject) -> None:
    project.cli("install", "xh", "--harness", "opencode")
    project.cli("install", "xh", "--harness", "codex")
    said = project.cli("doctor", "--no-fire").stdout
    assert (
        "ok: opencode: hook failures: OpenCode lets the call run when the hook process crashes or "
        "times out (`style install --fail-closed`: it refuses)"
    ) in said
    assert (
        "ok: codex: hook failures: Codex lets the call run when the hook process crashes or times "
        "out (no setting changes that)"
    ) in said
    project.cli("install", "xh", "--harness", "opencode", "--fail-closed")
    said = project.cli("doctor", "--no-fire").stdout
    assert (
        "ok: opencode: hook failures: OpenCode refuses the call when the hook process crashes or "
        "times out;"
    ) in said


# -- its sessions database (`style audit coverage`) -----------------------------------------------

# The two tables read, with the columns OpenCode 1.18.33 gives them (tests/e2e/test_coverage.py
# reads the real client's own database).
SCHEMA = """
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, directory text NOT NULL,
                      title text NOT NULL, version text NOT NULL, time_created integer NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
                   time_created integer NOT NULL, time_updated integer NOT NULL,
                   data text NOT NULL);
"""


def tool_part(call_id: str, command: str, status: str, start_ms: int) -> dict[str, Any]:
    """A bash call's part as OpenCode writes it."""
    state = {"status": status, "input": {"command": command, "description": "run it"}}
    if status != "pending":
        state["time"] = {"start": start_ms, "end": start_ms + 150}
    return {"type": "tool", "tool": "bash", "callID": call_id, "state": state}


def sessions_db(home: Path, sessions: dict[str, tuple[Path, list[dict[str, Any]]]]) -> Path:
    """OpenCode's database in `home` (WAL mode, as the client keeps it) holding each session's
    folder and parts, a text part before each session's calls."""
    path = home / ".local" / "share" / "opencode" / "opencode.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(SCHEMA)
    ms = int(time.time() * 1000)
    for sid, (folder, parts) in sessions.items():
        db.execute(
            "INSERT INTO session VALUES (?, 'p', ?, 't', '1.18.33', ?)", (sid, str(folder), ms)
        )
        text = {"type": "text", "text": "delete it"}
        for n, data in enumerate([text, *parts]):
            row = (f"prt_{sid}_{n}", f"msg_{sid}", sid, ms + n, ms + n, json.dumps(data))
            db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", row)
    db.commit()
    db.close()
    return path


def test_the_database_gives_the_calls_of_the_projects_sessions(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    ms = int(time.time() * 1000)
    path = sessions_db(
        home,
        {
            "ses_a": (
                root / "sub",
                [
                    tool_part("toolu_1", "ls", "completed", ms),
                    tool_part("toolu_2", "rm -rf x", "error", ms + 10),
                    tool_part("toolu_3", "make", "running", ms + 20),
                ],
            ),
            "ses_b": (tmp_path / "elsewhere", [tool_part("toolu_4", "ls", "completed", ms)]),
        },
    )
    assert OPENCODE_FORMAT.files(home, root, 0.0) == [path]
    assert OPENCODE_FORMAT.files(home, root, time.time() + 60) == []
    assert OPENCODE_FORMAT.of_session(home, "ses_a", None) == path
    assert transcript_harness(path) == "opencode"
    calls = tool_calls(path, root)
    assert [(c.session_id, c.tool, c.call_id, c.finished) for c in calls] == [
        ("ses_a", "bash", "toolu_1", True),
        ("ses_a", "bash", "toolu_2", False),
        ("ses_a", "bash", "toolu_3", False),
    ]
    assert calls[0].ts == ms / 1000 and calls[0].transcript == str(path)
    assert [c.session_id for c in tool_calls(path, tmp_path / "elsewhere")] == ["ses_b"]


def test_where_opencode_keeps_its_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    data = tmp_path / "xdg" / "opencode"
    data.mkdir(parents=True)
    for name in ("opencode.db", "opencode-beta.db", "other.db"):
        (data / name).write_bytes(b"")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert databases(home) == [data / "opencode-beta.db", data / "opencode.db"]
    monkeypatch.setenv("OPENCODE_DB", "mine.db")
    assert databases(home) == [data / "mine.db"]
    monkeypatch.setenv("OPENCODE_DB", str(tmp_path / "abs.db"))
    assert databases(home) == [tmp_path / "abs.db"]


def test_a_db_file_that_is_none_of_opencodes_is_no_transcript(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("SQLite format 2, or so it says\n")
    other = tmp_path / "other.db"
    sqlite3.connect(other).executescript("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
    fifo = tmp_path / "fifo.db"
    os.mkfifo(fifo)  # opening it to read would wait for a writer
    assert [transcript_harness(p) for p in (text, other, fifo)] == [None, None, None]
    assert not OPENCODE_FORMAT.owns_database(tmp_path / "missing.db")


def test_coverage_joins_the_database_with_the_plugins_events(project: HarnessProject) -> None:
    """A session whose first call the plugin handed to STYLE and whose second it did not, and
    one STYLE never saw: the other project's session in the same database is not reported."""
    assert project.cli("install", "xh", "--harness", "opencode").returncode == 0
    ms = int(time.time() * 1000)
    seen = [
        tool_part("toolu_1", "ls", "completed", ms),
        tool_part("toolu_2", "pwd", "completed", ms + 5),
    ]
    sessions_db(
        project.home,
        {
            "ses_seen": (project.root, seen),
            "ses_unseen": (project.root, [tool_part("toolu_3", "ls", "completed", ms)]),
            "ses_other": (project.home / "other", [tool_part("toolu_4", "ls", "completed", ms)]),
        },
    )
    payload = project.fixture(
        "opencode",
        "tool.execute.before.bash-rm-rf.json",
        session_id="ses_seen",
        tool_use_id="toolu_1",
        tool_input={"command": "ls", "description": "list"},
    )
    project.hook_as("opencode", "tool.execute.before", payload)
    proc = project.cli("audit", "coverage", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    rows = {r["session"]: r for r in json.loads(proc.stdout)["rows"]}
    assert set(rows) == {"ses_seen", "ses_unseen"}, rows
    partly, wholly = rows["ses_seen"], rows["ses_unseen"]
    assert partly["tool_calls"] == 2 and partly["seen"] == 1 and not partly["wholly_unseen"]
    assert [(u["tool"], u["event"]) for u in partly["unseen"]] == [("bash", "tool.execute.before")]
    assert wholly["wholly_unseen"] and {u["cause"] for u in wholly["unseen"]} == {"hooks-skipped"}
    assert wholly["transcript"] == str(project.home / ".local/share/opencode/opencode.db")
