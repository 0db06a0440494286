"""The audit's flags and its "needs attention" section over a history the hook itself recorded.

`style install` puts tests/data/audit/attention in place (self-protection included); then every
event goes through the hook's own entry (`runtime.hookrun.run`, what `agentstyle.hook` runs
when no engine does) with Claude Code's JSON, and the failures through the hook command as a
subprocess: malformed stdin (logged and recorded) and a database held locked past the deadline
(logged only: nothing could be written). The section is a golden file
(`STYLE_UPDATE_GOLDEN=1` rewrites it); every number in it is counted below.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from agentstyle.audit.attention import replay_sources
from agentstyle.evaluator.locking import FileLock
from agentstyle.runtime import hookrun
from agentstyle.runtime.hookcall import HookCall
from tests.support.hooks import new_session
from tests.support.project import Project

DATA = Path(__file__).resolve().parent / "data" / "audit"
GOLDEN = DATA / "golden"
UPDATE = os.environ.get("STYLE_UPDATE_GOLDEN") == "1"
MALFORMED = "malformed JSON on stdin (Expecting property name enclosed in double quotes at line 1)"
LOCKED = "the rules database stayed locked past the deadline"


def _hook(project: Project, event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    call = HookCall.from_argv(["--harness", "claude-code", "--event", event])
    stdout, stderr, code = hookrun.run(call, json.dumps(payload).encode())
    assert code == 0 and "fail open" not in stderr, stderr
    return json.loads(stdout) if stdout.strip() else None


def _decision(answer: dict[str, Any] | None) -> str | None:
    if answer is None:
        return None
    if answer.get("decision") == "block":
        return "block"
    specific = answer.get("hookSpecificOutput") or {}
    if specific.get("hookEventName") in ("Stop", "SubagentStop") and specific.get(
        "additionalContext"
    ):
        return "block"  # Claude Code continues a stop this way (harnesses/claude_code.py)
    value = specific.get("permissionDecision")
    return value if isinstance(value, str) else None


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> Project:
    base = tmp_path_factory.mktemp("attention")
    project = Project(base / "acme", base / "home")
    shutil.copytree(DATA / "attention", project.root / "watch")
    project.install("watch")
    mp = pytest.MonkeyPatch()
    mp.delenv("STYLE_HOME", raising=False)
    mp.setenv("STYLE_ENGINE", "off")
    mp.chdir(project.root)
    root = project.root.as_posix()
    try:
        sessions = [new_session() for _ in range(4)]
        for sid in sessions:  # four session starts: the brief speaks at each, as it should
            answer = _hook(project, "SessionStart", project.payload(
                "SessionStart.startup.json", session_id=sid))  # fmt: skip
            assert "acme-api" in json.dumps(answer)
        sid = sessions[0]
        verdicts = []
        for n in range(12):  # 4 pushes among 12 shell calls: push-ask asks on a third
            command = "git push origin main" if n % 3 == 0 else "cargo build"
            verdicts.append(_decision(_hook(project, "PreToolUse", project.payload(
                "PreToolUse.bash-rm-rf.json", session_id=sid, tool_use_id=f"toolu_b{n}",
                tool_input={"command": command}))))  # fmt: skip
        assert verdicts.count("ask") == 4 and verdicts.count(None) == 8
        for n in range(4):  # every write is refused: no-writes holds on all of them
            answer = _hook(project, "PreToolUse", project.payload(
                "PreToolUse.write-env.json", session_id=sid, tool_use_id=f"toolu_w{n}",
                tool_input={"file_path": f"{root}/src/gen{n}.rs", "content": "x"}))  # fmt: skip
            assert _decision(answer) == "deny"
        for n in range(4):  # no edit is under docs/: docs-note never fires
            answer = _hook(project, "PreToolUse", project.payload(
                "PreToolUse.edit-rs.json", session_id=sid, tool_use_id=f"toolu_e{n}",
                tool_input={"file_path": f"{root}/src/lib.rs", "old_string": "a",
                            "new_string": "b"}))  # fmt: skip
            assert answer is None
        stops = []
        for n in range(6):  # the agent tries to finish six times; only the last says so
            message = "tests pass (14)." if n == 5 else f"Refactored step {n}."
            stops.append(_decision(_hook(project, "Stop", project.payload(
                "Stop.json", session_id=sid, stop_hook_active=False,
                last_assistant_message=message))))  # fmt: skip
        assert stops == ["block"] * 5 + [None]
    finally:
        mp.undo()
    # Failures, through the hook command a harness runs.
    for _ in range(2):
        bad = project.hook("PreToolUse", b"{not json", check=False)
        assert bad.code == 0 and "allowed (fail open)" in bad.stderr
    with FileLock(project.style / "style.lock", time.monotonic() + 30):
        held = project.hook(
            "PreToolUse",
            project.payload("PreToolUse.bash-rm-rf.json", session_id=sid),
            env={"STYLE_DEADLINE_S": "0.3"},
        )
    assert f"{LOCKED}; allowed (fail open)" in held.stderr
    assert "could not check this call" in held.stdout  # and the person was told
    return project


def style(project: Project, *args: str) -> tuple[int, str]:
    done = project.cli(*args)
    return done.returncode, done.stdout


def rows(project: Project, *args: str) -> list[dict[str, Any]]:
    code, out = style(project, "audit", *args, "--format", "json")
    assert code == 0, out
    return list(json.loads(out)["rows"])


def golden(name: str, text: str, project: Project) -> None:
    # The project folder is a temporary one: golden files name it ROOT.
    here, there = replay_sources(project.root.as_posix()), replay_sources("/ROOT")
    assert here is not None and there is not None
    text = text.replace(here, there)
    text = text.replace(project.root.as_posix(), "ROOT")
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text("utf-8"), f"{path} differs (STYLE_UPDATE_GOLDEN=1 rewrites it)"


def test_the_hook_recorded_what_it_answered(watched: Project) -> None:
    counts = dict(watched.query("SELECT outcome, count(*) FROM hits GROUP BY ALL"))
    # 4 briefs; 4 asks; 4 refused writes; 5 refused stops
    assert counts == {"emitted": 4, "asked": 4, "blocked": 9}
    logged = watched.error_log.read_text("utf-8").splitlines()
    assert [line.split(" ", 4)[1:] for line in logged] == [
        ["claude-code", "PreToolUse", "fail-open", MALFORMED],
        ["claude-code", "PreToolUse", "fail-open", MALFORMED],
        ["claude-code", "PreToolUse", "fail-open", LOCKED],
    ]
    recorded = watched.query("SELECT error, verdict FROM events WHERE error IS NOT NULL")
    assert recorded == [(MALFORMED, "none"), (MALFORMED, "none")]  # the locked one could not be


def test_flags_with_their_sample(watched: Project) -> None:
    def flags(*args: str) -> dict[str, Any]:
        return {r["rule"]: r["flag"] for r in rows(watched, "rules", *args)}

    assert flags("--min-events", "4") == {
        "style/self-protect/commands": None,  # built in: never dead, however quiet
        "style/self-protect/hook-configs": None,
        "style/self-protect/policy": None,
        "style/self-protect/state": None,
        "style/self-protect/code": None,
        "style/self-protect/folders": None,
        "style/self-protect/config-change": None,
        "watch/brief": None,  # 4 of 4 session starts, unconditional: a brief, not noise
        "watch/done-needs-tests": "looping",  # 5 of 6 stops blocked
        "watch/push-ask": "noisy",  # 4 of 12 shell calls asked (33%)
        "watch/no-writes": "broad",  # its condition held on all 4 writes
        "watch/docs-note": "dead",  # no fire while tool.pre saw 20 events (5 × 4)
    }
    # the default sample (20 candidates, 100 events at the point): too few events for any
    assert set(flags().values()) == {None}
    # dead needs five times the sample at its point: 20 events is not 25
    assert flags("--min-events", "5")["watch/docs-note"] is None
    got = {r["rule"]: r for r in rows(watched, "rules", "--min-events", "4")}
    stop = got["watch/done-needs-tests"]
    assert (stop["candidates"], stop["blocked"], stop["block_rate"]) == (6, 5, round(5 / 6, 4))


def test_errors_report_counts_each_cause_once(watched: Project) -> None:
    got = rows(watched, "errors")
    assert [
        (r["cause"], r["failures"], r["fail_open"], r["in_database"], r["in_log"]) for r in got
    ] == [(MALFORMED, 2, 2, 2, 2), (LOCKED, 1, 1, 0, 1)]
    # a session filter leaves the log out (its lines name no session): the recorded ones only
    assert rows(watched, "errors", "--session", "nope") == []


def test_needs_attention_is_golden(watched: Project) -> None:
    code, out = style(watched, "audit", "attention", "--min-events", "4")
    assert code == 0
    golden("attention-hooks", out, watched)
    items = rows(watched, "attention", "--min-events", "4")
    assert [(i["kind"], i["subject"]) for i in items] == [
        ("fail-open", MALFORMED),
        ("fail-open", LOCKED),
        ("looping", "watch/done-needs-tests"),
        ("noisy", "watch/push-ask"),
        ("broad", "watch/no-writes"),
        ("dead", "watch/docs-note"),
    ]


def test_audit_opens_with_what_needs_attention(watched: Project) -> None:
    code, out = style(watched, "audit", "--min-events", "4")
    assert code == 0
    section, rest = out.split("\n\n", 1)
    golden("attention-hooks-summary", section + "\n", watched)
    assert rest.startswith("audit summary\n")
    # at the default sample only the failures need attention: they need no sample
    _, default = style(watched, "audit")
    head = default.split("\n\n", 1)[0].splitlines()
    assert head[0] == (
        "needs attention (flags need 20 candidate events, dead 100 at its point; "
        "--min-events N changes it)"
    )
    assert [line.split(":")[0].strip() for line in head[1::2]] == ["fail-open", "fail-open"]


def test_min_events_must_be_positive(watched: Project) -> None:
    code, _ = style(watched, "audit", "rules", "--min-events", "0")
    assert code == 2
