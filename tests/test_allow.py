"""`style allow [--last|EVENT_ID] [--session]`: the person lets one refused call through.

The command records an allowance (the refused event, the rules that refused it, the call's key:
native tool or prompt plus its whole input) in the project's history. `apply_allowances` lifts
exactly those refusals when the same call comes again in the same session: once, or for the
session. It runs inside the evaluation's transaction; `evaluate()` calls it (see the report of
issue 7) — the end-to-end retry test is skipped until that call is in place.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from conftest import new_session
from test_harness_support import DATA, HarnessProject

from agentstyle.engine.allowances import grant, pick
from agentstyle.engine.evaluate import evaluate
from agentstyle.engine.store import Connection, memory_store, replace_policy, sql
from agentstyle.harnesses import adapter_for
from agentstyle.install.lockfile import HarnessInstall
from agentstyle.install.selfprotect import builtin_package
from agentstyle.policy.compile import compile_policy, load_and_validate

PUSH = "bash -lc 'git push --force-with-lease origin main'"


def _project(tmp_path: Path, harness: str = "codex") -> HarnessProject:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    shutil.copytree(DATA / "cross", p.root / "xh")
    proc = p.cli("install", "xh", "--harness", harness)
    assert proc.returncode == 0, proc.stderr
    return p


def _denied(stdout: str) -> bool:
    doc = json.loads(stdout) if stdout.strip() else {}
    return (doc.get("hookSpecificOutput") or {}).get("permissionDecision") == "deny"


def test_allow_last_records_the_refused_call(tmp_path: Path) -> None:
    p = _project(tmp_path)
    sid = new_session()
    push = p.fixture("codex", "PreToolUse.bash-git-push-force.json", session_id=sid)
    assert _denied(p.hook_as("codex", "PreToolUse", push).stdout)
    proc = p.cli("allow", "--last")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"allowed once: {PUSH} (codex PreToolUse, event ")
    assert "rules: xh/force-push" in proc.stdout
    [(harness, session, rules, tool, scope, uses)] = p.query(
        "SELECT harness, session_id, rule_ids, native_tool, scope, uses FROM allowances"
    )
    assert (harness, session, rules, tool, scope, uses) == (
        "codex",
        sid,
        ["xh/force-push"],
        "Bash",
        "once",
        0,
    )


def test_allow_by_event_id_for_the_session(tmp_path: Path) -> None:
    p = _project(tmp_path)
    rm = p.fixture("codex", "PreToolUse.bash-rm-rf.json", session_id=new_session())
    assert _denied(p.hook_as("codex", "PreToolUse", rm).stdout)
    event_id = p.scalar("SELECT max(event_id) FROM events WHERE verdict = 'block'")
    proc = p.cli("allow", str(event_id), "--session", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["event"], doc["scope"], doc["rules"]) == (event_id, "session", ["xh/no-rm-rf"])


def test_allow_needs_a_refused_call(tmp_path: Path) -> None:
    p = _project(tmp_path)
    listed = p.cli("allow")
    assert listed.returncode == 2
    assert "say which call to allow" in listed.stderr
    none = p.cli("allow", "--last")
    assert none.returncode == 1
    assert "no refused call in this project's history" in none.stderr
    start = p.fixture("codex", "SessionStart.startup.json", session_id=new_session())
    p.hook_as("codex", "SessionStart", start)
    event_id = p.scalar("SELECT max(event_id) FROM events")
    wrong = p.cli("allow", str(event_id))
    assert wrong.returncode == 1
    assert f"event {event_id} is not a call STYLE refused" in wrong.stderr


def test_claude_code_asks_can_be_allowed(tmp_path: Path) -> None:
    """A headless Claude Code (`claude -p`) turns an ask into a refusal without asking anyone
    (tests/e2e): the question says `style allow`, and `style allow` lets the call through."""
    p = _project(tmp_path, "claude-code")
    push = p.fixture("claude-code", "PreToolUse.bash-git-push-force.json", session_id=new_session())
    answer = json.loads(p.hook_as("claude-code", "PreToolUse", push).stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert "style allow" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert p.cli("allow", "--last").returncode == 0


def test_last_skips_self_protection_refusals(tmp_path: Path) -> None:
    p = _project(tmp_path)
    sid = new_session()
    push = p.fixture("codex", "PreToolUse.bash-git-push-force.json", session_id=sid)
    p.hook_as("codex", "PreToolUse", push)
    agent = p.fixture(
        "codex",
        "PreToolUse.bash-rm-rf.json",
        session_id=sid,
        tool_input={"command": "style allow --last"},
    )
    assert _denied(p.hook_as("codex", "PreToolUse", agent).stdout)
    proc = p.cli("allow", "--last")
    assert "rules: xh/force-push" in proc.stdout  # not the agent's own `style allow`


# -- the evaluator side, in a private database -----------------------------------------------


def _memory(harness: str = "codex") -> Connection:
    """The cross package and the built-in self-protection, compiled into a private database."""
    with builtin_package(Path("/nonexistent"), {harness: HarnessInstall()}, persist=False) as sp:
        assert sp is not None
        compiled = compile_policy(load_and_validate([str(DATA / "cross"), str(sp)]), [harness])
    assert compiled.ok
    conn = memory_store()
    replace_policy(conn, compiled.rows)
    return conn


def _run(conn: Connection, payload: dict[str, Any], event: str = "PreToolUse") -> Any:
    adapter = adapter_for("codex")
    ev = adapter.normalize(payload, event)
    conn.execute("BEGIN TRANSACTION")
    [evaluation] = evaluate(conn, [ev])
    # what the hook does next (runtime.evaluate_on): the event's verdict
    verdict = evaluation.decision.verdict or "none"
    conn.execute(sql("history/finish_event"), [verdict, 0, None, evaluation.event_id])
    conn.execute("COMMIT")
    return evaluation, adapter.answer(evaluation.decision, event, ev)


def _payload(sid: str, command: str) -> dict[str, Any]:
    text = (
        Path(__file__).resolve().parent / "fixtures/codex/PreToolUse.bash-rm-rf.json"
    ).read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    data.update(session_id=sid, tool_input={"command": command})
    return data


def _grant(conn: Connection, *, session: bool = False) -> int:
    conn.execute("BEGIN TRANSACTION")
    allowance = grant(conn, pick(conn, None), session=session)
    conn.execute("COMMIT")
    return allowance


def test_an_allowance_lifts_the_same_call_once() -> None:
    conn = _memory()
    sid = new_session()
    evaluation, wire = _run(conn, _payload(sid, "git push -f origin main"))
    assert evaluation.decision.verdict == "ask" and "style allow --last" in wire.stdout
    allowance = _grant(conn)
    again, wire = _run(conn, _payload(sid, "git push -f origin main"))
    assert again.decision.verdict is None and wire.stdout == ""
    assert [c.outcome for c in again.candidates if c.rule_id == "xh/force-push"] == ["user-allowed"]
    hits = conn.execute(
        "SELECT outcome FROM hits WHERE event_id = ? AND rule_id = 'xh/force-push'",
        [again.event_id],
    ).fetchall()
    assert hits == [("user-allowed",)]
    uses = conn.execute("SELECT allowance_id, event_id, rule_id FROM allowance_uses").fetchall()
    assert uses == [(allowance, again.event_id, "xh/force-push")]
    third, _ = _run(conn, _payload(sid, "git push -f origin main"))
    assert third.decision.verdict == "ask"  # once means once


def test_a_session_allowance_lasts_and_stays_in_its_lane() -> None:
    conn = _memory()
    sid = new_session()
    _run(conn, _payload(sid, "rm -rf ./target"))
    _grant(conn, session=True)
    for _ in range(2):
        evaluation, _wire = _run(conn, _payload(sid, "rm -rf ./target"))
        assert evaluation.decision.verdict is None
    other, _ = _run(conn, _payload(sid, "rm -rf ./build"))  # another input
    assert other.decision.verdict == "block"
    elsewhere, _ = _run(conn, _payload(new_session(), "rm -rf ./target"))  # another session
    assert elsewhere.decision.verdict == "block"
    [(uses,)] = conn.execute("SELECT uses FROM allowances").fetchall()
    assert uses == 2


def test_a_call_still_blocked_by_another_rule_uses_nothing_up() -> None:
    conn = _memory()
    sid = new_session()
    command = "rm -rf .style/logs"  # no-rm-rf and self-protection both block it
    first, _ = _run(conn, _payload(sid, command))
    assert first.decision.rules[:2] == ["style/self-protect/shell-writes", "xh/no-rm-rf"]
    _grant(conn)
    conn.execute("BEGIN TRANSACTION")
    conn.execute("UPDATE allowances SET rule_ids = ['xh/no-rm-rf']")  # only one of the two
    conn.execute("COMMIT")
    evaluation, _ = _run(conn, _payload(sid, command))
    assert evaluation.decision.verdict == "block"
    assert evaluation.decision.reasons[0].startswith("STYLE self-protect")
    [(uses,)] = conn.execute("SELECT uses FROM allowances").fetchall()
    assert uses == 0


def test_an_ask_the_block_hid_stands_once_the_block_is_allowed() -> None:
    conn = _memory()
    sid = new_session()
    command = "git push -f origin main && rm -rf ./target"
    first, _ = _run(conn, _payload(sid, command))
    assert first.decision.verdict == "block"  # no-rm-rf; force-push's ask was suppressed
    _grant(conn)
    again, wire = _run(conn, _payload(sid, command))
    assert again.decision.verdict == "ask"
    assert again.decision.rules == ["xh/force-push"]
    assert "force-push" in wire.stdout and "style allow --last" in wire.stdout
    outcomes = dict(
        conn.execute(
            "SELECT rule_id, outcome FROM hits WHERE event_id = ?", [again.event_id]
        ).fetchall()
    )
    assert outcomes["xh/no-rm-rf"] == "user-allowed"
    assert outcomes["xh/force-push"] == "asked"


def test_the_person_allows_and_the_agent_retries(tmp_path: Path) -> None:
    p = _project(tmp_path)
    sid = new_session()
    push = p.fixture("codex", "PreToolUse.bash-git-push-force.json", session_id=sid)
    assert _denied(p.hook_as("codex", "PreToolUse", push).stdout)
    assert p.cli("allow", "--last").returncode == 0
    retry = p.hook_as("codex", "PreToolUse", push)
    assert (retry.stdout, retry.code) == ("", 0)
    assert _denied(p.hook_as("codex", "PreToolUse", push).stdout)  # once
    assert p.scalar("SELECT uses FROM allowances") == 1
