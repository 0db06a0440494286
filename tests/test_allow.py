"""`style allow [--last|EVENT_ID|CODE] [--session]`: the person lets one refused call through.

The command records an allowance (the refused event, the rules that refused it, the call's key:
native tool plus its whole input) in the project's history, one per refusal. `apply_allowances`
lifts exactly those refusals when the same call comes again in the same session: once, or for
the session; it runs inside the evaluation's transaction. Only tool calls can be allowed: stop
and prompt refusals are listed as what they are. A package with `allow_code: true` ends its
refusals with a short code the person types (`style allow k7f3`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agentstyle.evaluator.allowances import allow_code, grant, looks_like_code, pick
from agentstyle.evaluator.evaluate import evaluate
from agentstyle.evaluator.store import Connection, memory_store, replace_policy, sql
from agentstyle.harnesses import adapter_for
from agentstyle.install.lockfile import HarnessInstall
from agentstyle.install.selfprotect import builtin_package
from agentstyle.policy.compile import compile_policy, load_and_validate
from tests.support.harness import DATA, HarnessProject, saved_cross_install
from tests.support.hooks import new_session
from tests.support.packages import no_rm, package_text
from tests.support.project import Saved

PUSH = "bash -lc 'git push --force-with-lease origin main'"


def _project(tmp_path: Path, harness: str = "codex") -> HarnessProject:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    p.install_cross(harness)
    return p


@pytest.fixture(scope="module")
def codex_install(tmp_path_factory: pytest.TempPathFactory) -> Saved:
    """xh installed for Codex once; each test refuses and allows calls in its own copy."""
    return saved_cross_install(tmp_path_factory, "allow", "codex")


@pytest.fixture
def xh_codex(codex_install: Saved) -> HarnessProject:
    return codex_install.project(HarnessProject)


def _denied(stdout: str) -> bool:
    doc = json.loads(stdout) if stdout.strip() else {}
    return (doc.get("hookSpecificOutput") or {}).get("permissionDecision") == "deny"


def test_allow_last_records_the_refused_call(xh_codex: HarnessProject) -> None:
    p = xh_codex
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


def test_allow_by_event_id_for_the_session(xh_codex: HarnessProject) -> None:
    p = xh_codex
    rm = p.fixture("codex", "PreToolUse.bash-rm-rf.json", session_id=new_session())
    assert _denied(p.hook_as("codex", "PreToolUse", rm).stdout)
    event_id = p.scalar("SELECT max(event_id) FROM events WHERE verdict = 'block'")
    proc = p.cli("allow", str(event_id), "--session", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert (doc["event"], doc["scope"], doc["rules"]) == (event_id, "session", ["xh/no-rm-rf"])


def test_allow_needs_a_refused_call(xh_codex: HarnessProject) -> None:
    p = xh_codex
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


def test_last_skips_self_protection_refusals(xh_codex: HarnessProject) -> None:
    p = xh_codex
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
    finished = {"verdict": verdict, "latency_us": 0, "error": None}
    conn.execute(sql("history/finish_event"), {**finished, "event_id": evaluation.event_id})
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
    allowance = grant(conn, pick(conn, None), session=session).allowance
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
    assert first.decision.rules[:2] == ["style/self-protect/state", "xh/no-rm-rf"]
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


def test_the_person_allows_and_the_agent_retries(xh_codex: HarnessProject) -> None:
    p = xh_codex
    sid = new_session()
    push = p.fixture("codex", "PreToolUse.bash-git-push-force.json", session_id=sid)
    assert _denied(p.hook_as("codex", "PreToolUse", push).stdout)
    assert p.cli("allow", "--last").returncode == 0
    retry = p.hook_as("codex", "PreToolUse", push)
    assert (retry.stdout, retry.code) == ("", 0)
    assert _denied(p.hook_as("codex", "PreToolUse", push).stdout)  # once
    assert p.scalar("SELECT uses FROM allowances") == 1


# -- what can be allowed, and how often ------------------------------------------------------


def test_last_is_the_last_refused_tool_call_not_a_stop(xh_codex: HarnessProject) -> None:
    p = xh_codex
    sid = new_session()
    push = p.fixture("codex", "PreToolUse.bash-git-push-force.json", session_id=sid)
    assert _denied(p.hook_as("codex", "PreToolUse", push).stdout)
    stop = p.fixture(
        "codex", "Stop.json", session_id=sid, stop_hook_active=False,
        last_assistant_message="Done, I did not run anything.",
    )  # fmt: skip
    assert json.loads(p.hook_as("codex", "Stop", stop).stdout)["decision"] == "block"
    listed = p.cli("allow")
    assert listed.returncode == 2
    lines = listed.stderr.splitlines()[1:]
    # the stop is listed as what it is, and says it cannot be allowed; the push has its code
    assert "codex       Stop" in lines[0] and "xh/tests-before-done" in lines[0]
    assert "stop: Done, I did not run anything." in lines[0]
    assert lines[0].endswith("(cannot be allowed: not a tool call)")
    assert "prompt" not in lines[0]
    assert PUSH in lines[1] and not lines[1].endswith("tool call)")
    proc = p.cli("allow", "--last")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"allowed once: {PUSH} (codex PreToolUse, event ")
    assert "the last refusal" in proc.stderr and "was a stop" in proc.stderr
    stop_id = p.scalar("SELECT max(event_id) FROM events WHERE native_event = 'Stop'")
    refused_stop = p.cli("allow", str(stop_id))
    assert refused_stop.returncode == 1
    assert refused_stop.stderr.strip() == (
        f"style: event {stop_id} refused a stop (codex Stop), not a tool call: only a refused "
        "tool call can be allowed; the agent finishes once the rule's condition no longer holds "
        "(or the loop guard lets it)"
    )
    assert p.scalar("SELECT count(*) FROM allowances") == 1


def test_last_with_only_a_stop_refused_says_so(xh_codex: HarnessProject) -> None:
    p = xh_codex
    stop = p.fixture("codex", "Stop.json", session_id=new_session(), stop_hook_active=False,
                     last_assistant_message="Done.")  # fmt: skip
    p.hook_as("codex", "Stop", stop)
    proc = p.cli("allow", "--last")
    assert proc.returncode == 1
    assert "no refused tool call in this project's history" in proc.stderr
    assert "was a stop: only tool calls can be allowed" in proc.stderr


def test_an_allowance_is_spent_once_however_often_it_is_asked_for(xh_codex: HarnessProject) -> None:
    p = xh_codex
    sid = new_session()
    rm = p.fixture("codex", "PreToolUse.bash-rm-rf.json", session_id=sid)
    assert _denied(p.hook_as("codex", "PreToolUse", rm).stdout)
    event_id = p.scalar("SELECT max(event_id) FROM events WHERE verdict = 'block'")
    first = p.cli("allow", str(event_id))
    assert first.returncode == 0 and first.stdout.startswith("allowed once: ")
    second = p.cli("allow", str(event_id), "--format", "json")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["status"] == "already"
    again = p.cli("allow", str(event_id))
    assert again.stdout.startswith("already allowed once: ") and "nothing added" in again.stdout
    assert p.scalar("SELECT count(*) FROM allowances") == 1
    assert (p.hook_as("codex", "PreToolUse", rm).stdout, p.scalar("SELECT uses FROM allowances")) \
        == ("", 1)  # fmt: skip
    assert _denied(p.hook_as("codex", "PreToolUse", rm).stdout)  # one pass, not three
    spent = p.cli("allow", str(event_id))
    assert spent.returncode == 1
    assert "was allowed once (allowance 1) and that pass was used" in spent.stderr
    # --session widens the one allowance of that refusal
    wide = p.cli("allow", str(event_id), "--session")
    assert wide.returncode == 0 and wide.stdout.startswith("widened to the rest of the session: ")
    assert p.query("SELECT scope FROM allowances") == [("session",)]
    for _ in range(2):
        assert p.hook_as("codex", "PreToolUse", rm).stdout == ""


# -- allow codes -------------------------------------------------------------------------------

CODED = package_text(
    "coded",
    no_rm("STYLE no-rm: deletes are blocked."),
    """
- id: confirm-push
  target: tool
  tool: shell
  action: ask
  fallback: degrade
  when: 'tool.input.command shell_regex "^git push"'
  text: "STYLE confirm-push: pushing needs a yes."
""",
    description="Refusals that carry an allow code",
    version="0.1.0",
    head="""
allow_code: true
""",
)
PLAIN = CODED.replace("name: coded", "name: plain").replace("allow_code: true\n", "")
PLAIN = PLAIN.replace('"^rm "', '"^rm -rf /"').replace('"^git push"', '"^git push --mirror"')


def _coded(tmp_path: Path, harness: str, log: str | None = None) -> HarnessProject:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    p.write_package(CODED, "coded")
    p.write_package(PLAIN, "plain")
    if log is not None:
        (p.root / "style.lock.yaml").write_text(f'log: "{log}"\n', encoding="utf-8")
    proc = p.cli("install", "coded", "plain", "--harness", harness)
    assert proc.returncode == 0, proc.stderr
    return p


def _reason(stdout: str) -> str:
    specific = json.loads(stdout)["hookSpecificOutput"]
    return str(specific["permissionDecisionReason"])


CODE_LINE = re.compile(r"^To let this call through once, the user runs `style allow ([a-z2-9]{4})` "
                       r"in their terminal\.$")  # fmt: skip


def test_a_refusal_carries_its_allow_code_and_the_person_types_it(tmp_path: Path) -> None:
    p = _coded(tmp_path, "claude-code")
    sid = new_session()
    rm = p.fixture("claude-code", "PreToolUse.bash-rm-rf.json", session_id=sid,
                   tool_input={"command": "rm build.log"})  # fmt: skip
    first = p.hook_as("claude-code", "PreToolUse", rm)
    lines = _reason(first.stdout).splitlines()
    assert lines[0] == "STYLE no-rm: deletes are blocked."
    found = CODE_LINE.match(lines[1])
    assert found, lines
    code = found.group(1)
    event_id, key = p.query(
        "SELECT e.event_id, f.value FROM events e JOIN event_fields f USING (event_id) "
        "WHERE f.field = 'style.call_key' AND e.verdict = 'block'"
    )[0]
    assert code == allow_code("claude-code", sid, event_id, key) and looks_like_code(code)
    # the code names this refusal; typed in capitals it still does
    proc = p.cli("allow", code.upper())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"allowed once: rm build.log (claude-code PreToolUse, event "
                                  f"{event_id}); rules: coded/no-rm")  # fmt: skip
    assert p.hook_as("claude-code", "PreToolUse", rm).stdout == ""  # the retry passes
    again = p.hook_as("claude-code", "PreToolUse", rm)  # once: refused again, with a new code
    new_code = CODE_LINE.match(_reason(again.stdout).splitlines()[1])
    assert new_code and new_code.group(1) != code
    wrong = p.cli("allow", "zz99")
    assert wrong.returncode == 1 and "no recent refusal has the allow code `zz99`" in wrong.stderr
    bad = p.cli("allow", "not-a-code")
    assert bad.returncode == 2


def test_no_code_where_it_could_not_be_used(tmp_path: Path) -> None:
    p = _coded(tmp_path, "claude-code")
    sid = new_session()

    def reason(command: str) -> str:
        payload = p.fixture("claude-code", "PreToolUse.bash-rm-rf.json", session_id=sid,
                            tool_input={"command": command})  # fmt: skip
        return _reason(p.hook_as("claude-code", "PreToolUse", payload).stdout)

    def coded(text: str) -> bool:
        return any(CODE_LINE.match(line) for line in text.splitlines())

    assert coded(reason("rm build.log"))
    # a package without allow_code blocks it too: no code (the person can still give the id)
    assert not coded(reason("rm -rf /"))
    # self-protection: never a code, and the agent's own `style allow CODE` is refused
    assert not coded(reason("style uninstall"))
    assert reason("style allow k7f3").startswith("STYLE self-protect: ")
    # Claude Code asks the person itself, but a headless client (`claude -p`) turns the ask
    # into a refusal (harnesses/facts/claude_code.py `ask_may_refuse`): the question carries
    # the way through, with this refusal's code
    payload = p.fixture("claude-code", "PreToolUse.bash-rm-rf.json", session_id=sid,
                        tool_input={"command": "git push origin main"})  # fmt: skip
    asked = json.loads(p.hook_as("claude-code", "PreToolUse", payload).stdout)
    assert asked["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert coded(asked["hookSpecificOutput"]["permissionDecisionReason"])


def test_a_degraded_ask_gets_the_code_instead_of_last(tmp_path: Path) -> None:
    """Codex has no ask: the question is a refusal, and its code replaces `--last`."""
    p = _coded(tmp_path, "codex")
    push = p.fixture("codex", "PreToolUse.bash-git-push-force.json", session_id=new_session(),
                     tool_input={"command": "git push origin main"})  # fmt: skip
    lines = _reason(p.hook_as("codex", "PreToolUse", push).stdout).splitlines()
    assert lines[0] == "STYLE confirm-push: pushing needs a yes."
    assert CODE_LINE.match(lines[1]) and "--last" not in "\n".join(lines)


def test_log_off_offers_no_code(tmp_path: Path) -> None:
    p = _coded(tmp_path, "claude-code", log="off")
    rm = p.fixture("claude-code", "PreToolUse.bash-rm-rf.json", session_id=new_session(),
                   tool_input={"command": "rm build.log"})  # fmt: skip
    assert _reason(p.hook_as("claude-code", "PreToolUse", rm).stdout) == (
        "STYLE no-rm: deletes are blocked."
    )


def test_codes_never_read_as_event_ids() -> None:
    codes = {allow_code("codex", "s", n, "k") for n in range(2000)}
    assert all(looks_like_code(c) and not c.isdigit() and c[0].isalpha() for c in codes)
    assert not set("ilo01") & set("".join(codes))
    assert len(codes) > 1990  # 2000 events, hardly a collision


def test_allow_code_must_be_a_boolean(tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    p.write_package(CODED.replace("allow_code: true", "allow_code: always"), "coded")
    proc = p.cli("validate", "coded")
    assert proc.returncode == 1
    assert "coded/STYLE.yaml:5:13: error invalid-schema: field `allow_code` must be true or " \
        "false, not string" in proc.stdout  # fmt: skip
