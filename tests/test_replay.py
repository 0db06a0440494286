"""`style replay`: sources read into hook events, the same outcomes as the hooks, exact batches.

The reference for every outcome is the real hook: `style install` in a scratch project, then
`python -m agentstyle.hook` per event, in order, for the events the installed
`.claude/settings.json` hands to STYLE. Replay must record the same events, hits and claims,
and print the same `rules` report, without writing to the project's history. (`style replay`
and `style audit` run their own code in the test process, but for the one-line errors.)
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agentstyle.audit import replay as rp
from agentstyle.audit.transcripts import Recorded, read_sources
from agentstyle.evaluator.evaluate import evaluate
from agentstyle.install.selfprotect import plan_packages
from tests.support.cli import style_in_process, style_process
from tests.support.environment import REPO
from tests.support.hooks import FIXTURE_CWD, FIXTURES
from tests.support.project import Project

DATA = Path(__file__).resolve().parent / "data" / "replay"
TRANSCRIPTS = REPO / "datasets" / "transcripts"
PACKAGES = REPO / "agentstyle" / "library"
LIBRARY = [
    "guard-destructive",
    "guard-secrets",
    "guard-one-way-doors",
    "guard-git-identity",
    "rust-unwrap",
    "project-brief",
    "tests-before-stop",
]


def style(
    cwd: Path, home: Path, *args: str, process: bool = False
) -> subprocess.CompletedProcess[str]:
    """`style ARGS` by the command line's own code in this process (what replay and the audit
    say is under test); `process`: the real `python -m agentstyle`."""
    if not process:
        return style_in_process(cwd, home, *args)
    return style_process(cwd, home, *args, timeout=300)


def replay_json(cwd: Path, home: Path, *args: str) -> dict[str, Any]:
    proc = style(cwd, home, "replay", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc: dict[str, Any] = json.loads(proc.stdout)
    return doc


def by_rule(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["rule"]: r for r in rows}


# -- reading transcripts ---------------------------------------------------------------------------


def test_a_transcript_becomes_hook_events_in_order() -> None:
    sources = read_sources([DATA / "mini-resumed.jsonl", DATA / "mini.jsonl"])
    got = []
    for r in sources.events:
        p = r.payload
        detail = (
            p.get("tool_name")
            or p.get("source")
            or p.get("prompt")
            or p.get("trigger")
            or p.get("last_assistant_message")
        )
        extra = ""
        if r.native_event == "Stop":
            extra = "active" if p["stop_hook_active"] else "first"
        elif "agent_id" in p:
            extra = p["agent_id"]
        got.append((r.native_event, detail, extra))
    assert got == [
        ("SessionStart", "startup", ""),
        ("UserPromptSubmit", "Fix the build", ""),
        ("PreToolUse", "Bash", ""),  # one assistant message, one line per block
        ("PreToolUse", "Read", ""),
        ("PostToolUseFailure", "Bash", ""),  # is_error
        ("PostToolUse", "Read", ""),
        ("PreToolUse", "Edit", ""),
        ("PostToolUse", "Edit", ""),
        ("Stop", "Fixed it.", "first"),  # a Stop hook's feedback record follows
        ("PreToolUse", "Bash", ""),
        ("PostToolUse", "Bash", ""),
        ("Stop", "Tests pass.", "active"),  # closed by the manual /compact
        ("PreCompact", "manual", ""),
        ("SessionStart", "compact", ""),  # the summary and the caveat are no prompts
        ("UserPromptSubmit", "Now clean up", ""),
        ("PreToolUse", "Task", ""),
        ("PreToolUse", "Grep", "agent7"),  # a sidechain's call, its prompt skipped
        ("PostToolUse", "Grep", "agent7"),
        ("PostToolUse", "Task", ""),
        ("PreCompact", "auto", ""),  # mid-turn: no Stop before it
        ("SessionStart", "compact", ""),
        ("PreToolUse", "Bash", ""),  # refused at the prompt: no post, no Stop
        ("UserPromptSubmit", "Just list it", ""),
        ("PreToolUse", "Bash", ""),  # interrupted: no Stop
        ("UserPromptSubmit", "Summarize", ""),
        ("Stop", "Part one.\n\nPart two.", "first"),  # the last message's text blocks
        ("SessionStart", "resume", ""),  # the second file repeats records: skipped
        ("UserPromptSubmit", "Resumed: one more thing", ""),
        ("PreToolUse", "Write", ""),
        ("PostToolUse", "Write", ""),
        ("Stop", "Done.", "first"),
    ]
    assert sources.skipped_lines == 1 and sources.sessions == 1
    first = sources.events[1].payload
    assert first["permission_mode"] == "acceptEdits" and first["prompt_id"] == "u01"
    bash_post = sources.events[10].payload
    assert bash_post["tool_response"]["stdout"] == "ok"  # the record's toolUseResult
    assert sources.events[4].payload["error"].startswith("Exit code 101")
    assert sources.events[3].payload["tool_use_id"] == "toolu_2"
    assert [r.ts for r in sources.events] == sorted(r.ts for r in sources.events)


def test_payload_folders_are_read_in_time_or_name_order(tmp_path: Path) -> None:
    named = tmp_path / "named"
    named.mkdir()
    timed = tmp_path / "timed"
    timed.mkdir()
    order = ["SessionStart.startup.json", "UserPromptSubmit.json", "PreToolUse.bash-rm-rf.json"]
    for i, name in enumerate(order):
        payload = json.loads((FIXTURES / name).read_text("utf-8"))
        (named / f"{i + 1:02d}-{name}").write_text(json.dumps(payload), "utf-8")
        # names in the reverse order of the times: the times decide
        payload["timestamp"] = f"2026-08-20T10:00:0{i}Z"
        (timed / f"{3 - i:02d}-{name}").write_text(json.dumps(payload), "utf-8")
    (named / "10-notes.json").write_text('{"not": "a payload"}', "utf-8")
    for folder in (named, timed):
        sources = read_sources([folder])
        assert [r.native_event for r in sources.events] == [
            "SessionStart",
            "UserPromptSubmit",
            "PreToolUse",
        ]
    assert any("hook_event_name" in note for note in read_sources([named]).notes)


def test_matchers_follow_claude_code() -> None:
    assert rp.matcher_accepts(None, "Bash") and rp.matcher_accepts("*", "Read")
    assert rp.matcher_accepts("Bash|Edit", "Edit") and not rp.matcher_accepts("Bash|Edit", "E")
    assert rp.matcher_accepts("^(mcp__github__.*)$", "mcp__github__create_pull_request")
    assert not rp.matcher_accepts("^(mcp__github__.*)$", "mcp__slack__post")


# -- against the real hook -------------------------------------------------------------------------


def settings_accepts(project: Project, rec: Recorded) -> bool:
    """Whether Claude Code would run STYLE's handler for this event, from the installed config."""
    hooks = json.loads((project.root / ".claude" / "settings.json").read_text("utf-8"))["hooks"]
    groups = hooks.get(rec.native_event)
    if not groups:
        return False
    matcher = groups[0].get("matcher")
    return matcher is None or str(rec.payload.get("tool_name")) in matcher.split("|")


@pytest.fixture(scope="module")
def hooked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Project, list[Recorded], list[str]]:
    """Two bundled transcripts driven event by event through the installed hook command."""
    base = tmp_path_factory.mktemp("replay-hooks")
    project = Project(base / "acme", base / "home")
    for name, source in (
        ("starter", PACKAGES / "starter"),
        ("rust-unwrap", PACKAGES / "rust-unwrap"),
        ("exact", DATA / "exact"),
    ):
        shutil.copytree(source, project.root / name)
    project.install("starter", "rust-unwrap", "exact", "--harness", "claude-code")
    sources = read_sources([TRANSCRIPTS / "01-auth-unwrap.jsonl", TRANSCRIPTS / "03-release.jsonl"])
    sent = [r for r in sources.events if settings_accepts(project, r)]
    # through the resident engine, as a user's hooks run: the same answers and records as
    # direct hooks (test_engine.py), at a tenth of the CPU of ~100 cold processes
    with project.engine():
        answers = [project.hook(r.native_event, r.payload).stdout for r in sent]
    return project, sent, answers


def wire_verdict(stdout: str) -> str:
    if not stdout.strip():
        return "none"
    data = json.loads(stdout)
    if data.get("decision") == "block":
        return "block"
    specific = data.get("hookSpecificOutput") or {}
    if (
        specific.get("hookEventName") in ("Stop", "SubagentStop")
        and "additionalContext" in specific
    ):
        return "block"  # Claude Code continues a stop with context (claude_code.py)
    decision = specific.get("permissionDecision")
    return {"deny": "block", "ask": "ask", "allow": "allow"}.get(decision, "none")


def rows(conn: Any, query: str) -> list[tuple[Any, ...]]:
    result: list[tuple[Any, ...]] = conn.execute(query).fetchall()
    return result


EVENTS = "SELECT event_id, native_event, point, session_id, turn_id, tool, verdict FROM events"
HITS = "SELECT event_id, rule_id, point, outcome, tokens FROM hits"
CLAIMS = "SELECT claim_key, session_id, rule_id, event_id, prompt_count FROM claims"
SESSIONS = "SELECT session_id, generation, compaction, prompt_count, model FROM sessions"


def test_replay_records_what_the_hooks_recorded(
    hooked: tuple[Project, list[Recorded], list[str]],
) -> None:
    project, sent, answers = hooked
    sources = read_sources([TRANSCRIPTS / "01-auth-unwrap.jsonl", TRANSCRIPTS / "03-release.jsonl"])
    packages, settings = rp.installed_packages(project.root)  # the lock file's packages
    with plan_packages("claude-code", project.root) as builtin:  # and self-protection
        policy = rp.load_policy(packages + builtin, "claude-code", settings)
    try:
        result = rp.replay(policy, sources.events, batch_size=500)
        # the events the installed config hands to STYLE, no more, no fewer
        assert result.evaluated == len(sent) > 60
        assert result.cuts > 0  # `exact` makes later outcomes depend on earlier ones
        replayed = [v for v in result.verdicts if v is not None]
        assert replayed == [wire_verdict(a) for a in answers]
        assert {"block", "ask"} <= set(replayed)
        with project.db() as hook_db:
            for query in (EVENTS, HITS, CLAIMS, SESSIONS):
                ordered = f"{query} ORDER BY ALL"
                assert rows(result.conn, ordered) == rows(hook_db, ordered), query
        outcomes = {o for row in result.outcomes for o in row.values()}
        assert {"blocked", "asked", "emitted", "dedup-suppressed", "budget-dropped"} <= outcomes
        # the replay's report is `style audit rules` over the same events
        ours = rp.rules_frame(result).drop("last_fired").to_dicts()
    finally:
        policy.close()
    audit = style(project.root, project.home, "audit", "rules", "--format", "json")
    assert audit.returncode == 0, audit.stderr
    theirs = [
        {k: v for k, v in r.items() if k != "last_fired"} for r in json.loads(audit.stdout)["rows"]
    ]
    assert ours == theirs


def test_replay_writes_nothing_to_the_project(
    hooked: tuple[Project, list[Recorded], list[str]],
) -> None:
    project, _sent, _answers = hooked

    def state() -> tuple[Any, ...]:
        counts = tuple(
            project.scalar(f"SELECT count(*) FROM {t}")
            for t in ("events", "hits", "claims", "sessions", "event_fields")
        )
        digest = hashlib.sha256(project.database.read_bytes()).hexdigest()
        lock = (project.root / "style.lock.yaml").read_text("utf-8")
        return counts, digest, lock, sorted(p.name for p in project.style.iterdir())

    before = state()
    proc = style(project.root, project.home, "replay", str(TRANSCRIPTS / "03-release.jsonl"))
    assert proc.returncode == 0, proc.stderr
    assert "replay rules" in proc.stdout and "starter/force-push" in proc.stdout
    assert "examples" in proc.stdout and "git push -f origin release/0.5" in proc.stdout
    assert state() == before


def test_a_style_export_replays_to_the_same_blocks(
    hooked: tuple[Project, list[Recorded], list[str]], tmp_path: Path
) -> None:
    project, _sent, _answers = hooked
    out = tmp_path / "export"
    proc = style(project.root, project.home, "audit", "export", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    doc = replay_json(project.root, project.home, str(out))
    audit = style(project.root, project.home, "audit", "rules", "--format", "json")
    recorded = by_rule(json.loads(audit.stdout)["rows"])
    replayed = by_rule(doc["rules"]["rows"])
    for rule, row in recorded.items():
        for column in ("fired", "emitted", "blocked", "asked"):
            assert replayed[rule][column] == row[column], (rule, column)


# -- batches are exact -----------------------------------------------------------------------------

CASES = {
    # the second inject is over the event budget while the first emits, and emits once the
    # first is deduplicated
    "budget-dropped": """
        budget: {per_rule: 100, per_event: 30}
        rules:
          - id: note
            target: tool
            tool: shell
            at: before
            priority: 90
            text: "Shell note: prefer cargo subcommands to ad hoc scripts here."
          - id: extra
            target: tool
            tool: shell
            at: before
            priority: 10
            text: "Shell extra: long commands go to the background with a timeout."
    """,
    # the inject is suppressed by the block on the first call; the next call emits it
    "block-suppressed": """
        rules:
          - id: no-rm
            target: tool
            tool: shell
            action: block
            when: 'tool.input.command shell_regex "^rm "'
            text: "no rm"
          - id: note
            target: tool
            tool: shell
            at: before
            text: "Shell note."
    """,
    "refresh": """
        rules:
          - id: plan
            target: system
            refresh: 2
            reason: drift
            text: "Plan: small changes, tests before stopping."
    """,
    "rule-hits": """
        rules:
          - id: first-shells
            target: tool
            tool: shell
            at: before
            action: warn
            when: 'state.rule_hits lt 2'
            text: "First shells."
    """,
    "since-last": """
        rules:
          - id: cooldown
            target: tool
            tool: shell
            at: before
            action: warn
            when: 'state.since_last_s gt 300'
            text: "Shell again after a while."
    """,
}


def session_events(sid: str, start: float) -> list[Recorded]:
    """A session of six prompts with three shell calls each, a minute apart; rm -rf first."""
    out: list[Recorded] = []
    t = start

    def add(native: str, **fields: Any) -> None:
        nonlocal t
        payload = {"session_id": sid, "cwd": FIXTURE_CWD, "hook_event_name": native, **fields}
        out.append(Recorded(native, payload, t, f"{sid}:{len(out)}", sid))
        t += 60.0

    add("SessionStart", source="startup")
    n = 0
    for p in range(6):
        add("UserPromptSubmit", prompt=f"step {p}")
        for k in range(3):
            n += 1
            command = "rm -rf ./target" if n == 1 else f"cargo test -p crate{k}"
            add(
                "PreToolUse",
                tool_name="Bash",
                tool_input={"command": command},
                tool_use_id=f"{sid}-{n}",
            )
    return out


def interleaved() -> list[Recorded]:
    a, b = session_events("s-a", 1.0e9), session_events("s-b", 1.0e9 + 30)
    return sorted(a + b, key=lambda r: r.ts)


def package(tmp_path: Path, name: str, body: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    head = f"spec: style/v0.3\nname: {name}\nversion: 1.0.0\ndescription: replay case\n"
    (folder / "STYLE.yaml").write_text(head + textwrap.dedent(body).lstrip(), "utf-8")
    return folder


@pytest.mark.parametrize("case", sorted(CASES))
def test_batches_decide_as_one_event_at_a_time(case: str, tmp_path: Path) -> None:
    folder = str(package(tmp_path, case, CASES[case]))
    events = interleaved()

    def run(batch: int) -> rp.Replayed:
        policy = rp.load_policy([folder], "claude-code")
        try:
            return rp.replay(policy, events, batch_size=batch)
        finally:
            policy.close()

    one, batched = run(1), run(1000)
    assert batched.outcomes == one.outcomes
    assert batched.verdicts == one.verdicts
    assert batched.cuts > 0 and batched.batches < one.batches

    # The case matters: one uncut batch of the same events decides differently.
    policy = rp.load_policy([folder], "claude-code")
    try:
        delivered = [rp.normalized(policy, r) for r in events if rp.delivered(policy, r)]
        naive = evaluate(policy.conn, [e for e in delivered if e is not None], "hits")
    finally:
        policy.close()
    naive_outcomes = [
        {c.rule_id: c.outcome for c in e.candidates if c.outcome is not None} for e in naive
    ]
    assert naive_outcomes != [o for o, v in zip(one.outcomes, one.verdicts, strict=True) if v]


def test_no_cut_without_a_dependency() -> None:
    sources = read_sources([TRANSCRIPTS])
    policy = rp.load_policy([str(PACKAGES / "starter")], "claude-code")
    try:
        result = rp.replay(policy, sources.events)
    finally:
        policy.close()
    assert result.cuts == 0 and result.batches == 1


# -- the command -----------------------------------------------------------------------------------


def test_baseline_prints_what_changes(tmp_path: Path) -> None:
    changed = tmp_path / "starter"
    shutil.copytree(PACKAGES / "starter", changed)
    manifest = changed / "STYLE.yaml"
    text = manifest.read_text("utf-8")
    text = text.replace("    action: ask\n", "    action: block\n")  # force-push now blocks
    start = text.index("  - id: no-rm-rf")
    text = text[:start] + text[text.index("  - id: force-push") :]  # no-rm-rf is gone
    manifest.write_text(text, "utf-8")
    doc = replay_json(
        tmp_path,
        tmp_path / "home",
        str(TRANSCRIPTS / "03-release.jsonl"),
        str(TRANSCRIPTS / "06-explore-subagent.jsonl"),
        "--package",
        str(changed),
        "--baseline",
        str(PACKAGES / "starter"),
    )
    base = doc["baseline"]
    assert base["packages"] == ["style", "starter"]  # self-protection goes with every install
    diff = by_rule(base["diff"]["rows"])
    force = diff["starter/force-push"]
    assert force["change"] == "newly blocking"
    assert (force["blocked_before"], force["blocked_after"]) == (0, 2)
    assert (force["asked_before"], force["asked_after"]) == (2, 0)
    assert diff["starter/no-rm-rf"]["change"] == "removed"
    assert diff["starter/no-rm-rf"]["blocked_before"] == 2
    assert set(diff) == {"starter/force-push", "starter/no-rm-rf"}  # the rest is unchanged
    assert base["verdict_changes"] == {"ask → block": 2, "block → none": 2}
    text_out = style(
        tmp_path,
        tmp_path / "home",
        "replay",
        str(TRANSCRIPTS / "03-release.jsonl"),
        "-p",
        str(changed),
        "--baseline",
        str(PACKAGES / "starter"),
    )
    assert text_out.returncode == 0, text_out.stderr
    assert "baseline: style, starter" in text_out.stdout and "newly blocking" in text_out.stdout
    assert "events changing verdict: ask → block: 2" in text_out.stdout


def test_a_payload_folder_replays(tmp_path: Path) -> None:
    folder = tmp_path / "payloads"
    folder.mkdir()
    names = [
        "SessionStart.startup.json",
        "UserPromptSubmit.json",
        "PreToolUse.bash-rm-rf.json",
        "PreToolUse.read-dotenv.json",
        "PreToolUse.bash-git-push-force.json",
        "PreToolUse.edit-rs.json",
        "PostToolUse.edit-rs.json",
        "PreToolUse.webfetch.json",
        "Stop.json",
    ]
    for i, name in enumerate(names):
        shutil.copy(FIXTURES / name, folder / f"{i:03d}-{name}")
    doc = replay_json(
        tmp_path, tmp_path / "home", str(folder), "-p", str(PACKAGES / "starter"), "--examples", "1"
    )
    assert (doc["recorded"], doc["evaluated"]) == (9, 8)  # no handler for WebFetch
    rules = by_rule(doc["rules"]["rows"])
    assert rules["starter/no-rm-rf"]["blocked"] == 1
    assert rules["starter/env-secrets"]["blocked"] == 1
    assert rules["starter/force-push"]["asked"] == 1
    assert rules["starter/rust-no-unwrap"]["emitted"] == 1
    assert rules["starter/tests-before-done"]["blocked"] == 1
    assert doc["examples"]["starter/no-rm-rf"] == [
        {
            "outcome": "blocked",
            "event": "PreToolUse",
            "tool": "Bash",
            "input": "rm -rf ./target /tmp/acme-build",
            "output": "STYLE no-rm-rf: recursive delete is blocked. Use 'cargo clean' instead.",
            "session": "6f1c2b9e-3d4a-4e8b-9f21-7a5c0d3e8b41",
            "origin": str(folder / "002-PreToolUse.bash-rm-rf.json"),
        }
    ]


def test_errors_are_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    proc = style(tmp_path, home, "replay", str(tmp_path / "missing.jsonl"), "-p", "x", process=True)
    assert proc.returncode == 1 and "no such file" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = style(tmp_path, home, "replay", str(TRANSCRIPTS / "03-release.jsonl"), process=True)
    assert proc.returncode == 1 and "--package" in proc.stderr  # nothing installed here


# -- the bundled transcripts -----------------------------------------------------------------------


def test_the_bundled_transcripts_are_what_the_generator_makes() -> None:
    proc = subprocess.run(
        [sys.executable, str(TRANSCRIPTS / "generate.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    counts = json.loads(proc.stdout)
    assert counts["tool_calls"] >= 400 and counts["compactions"] >= 2


# Guard rules the bundled transcripts never exercise (the corpus does: tests/corpus/), and
# tests-failing: no session there stops after a failed test run (its fixtures have one).
NOT_IN_TRANSCRIPTS = frozenset(
    {
        "tests-before-stop/tests-failing",
        "guard-one-way-doors/registry-change",
        "guard-destructive/device-write",
        "guard-destructive/disk-erase",
        "guard-destructive/volume-destroy",
        "guard-destructive/system-permissions",
        "guard-destructive/system-files",
        "guard-destructive/kill-session",
        "guard-destructive/machine-power",
        "guard-destructive/incomplete-local",
        "guard-one-way-doors/public-delete-in-code",
        "guard-destructive/delete-in-code",
        "guard-destructive/rm-run-time-targets",
        "guard-destructive/git-discard-changes",
        "guard-destructive/git-alias-destructive",
        "guard-secrets/secret-in-code",
        "guard-git-identity/forbidden-identity-file",
        "guard-destructive/dynamic-code",
        "guard-destructive/incomplete-analysis",
        "guard-secrets/secret-git",
        "guard-secrets/secret-programs",
        "guard-secrets/secret-search",
        "guard-secrets/incomplete-analysis",
        "guard-git-identity/incomplete-analysis",
        "guard-one-way-doors/incomplete-analysis",
        "guard-destructive/runaway-processes",
        "guard-destructive/runaway-in-code",
        "guard-destructive/repo-metadata",
        "guard-destructive/git-clean-unguarded",
        "guard-destructive/repo-metadata-in-code",
        "guard-destructive/repo-metadata-edit",
        "guard-destructive/system-moved",
        "guard-destructive/privilege-grant",
        "guard-destructive/accounts-deleted",
        "guard-destructive/kernel-settings",
        "guard-destructive/logs-wiped",
        "guard-destructive/security-disabled",
        "guard-destructive/machine-changed",
        "guard-destructive/boot-changed",
        "guard-destructive/library-injected",
        "guard-secrets/credentials-stored-plain",
        "guard-containers/host-exposed",
        "guard-network/files-served",
        "guard-network/tunnel-opened",
        "guard-git/git-config-program",
        "guard-git/git-hook-planted",
        "guard-git/git-hook-planted-edit",
    }
)


def test_the_bundled_packages_fire_on_the_bundled_transcripts() -> None:
    sources = read_sources([TRANSCRIPTS])
    starts = [r.payload.get("source") for r in sources.events if r.native_event == "SessionStart"]
    assert starts.count("compact") >= 2 and starts.count("resume") == 1
    policy = rp.load_policy([str(PACKAGES / p) for p in ["starter", *LIBRARY]], "claude-code")
    try:
        result = rp.replay(policy, sources.events)
        report = by_rule(rp.rules_frame(result).to_dicts())
    finally:
        policy.close()
    silent = {
        rule for rule, row in report.items() if row["fired"] == 0 and rule not in NOT_IN_TRANSCRIPTS
    }
    assert silent == set()
    for rule in (
        "starter/no-rm-rf",
        "guard-destructive/force-push-protected",
        "guard-secrets/secret-files",
        "rust-unwrap/no-unwrap",
    ):
        assert len(result.examples[rule]) == 3 or report[rule]["fired"] < 3
