"""`style suggest`: proposals learned from a real history, never applied.

The history is made by real hook subprocesses in a project installed by the real `style
install`: Claude Code asks answered by the call's PostToolUse (approved) or by nothing
(declined), refusals let through with `style allow`, a warn rule speaking at every call, a
rule that never fires. Each proposal's diff is applied with `patch` to a copy of the package
and validated by `style validate`; its backtest is checked against what the events were; the
package `--write` leaves is installed into a second project whose hooks are run again.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agentstyle.audit.suggest import Consent, call_group, condition_for
from tests.support.cli import style_in_process
from tests.support.packages import package_text, shell_rule
from tests.support.project import Project, Saved

PACKAGE = package_text(
    "team",
    shell_rule("ask-push", "^git push( |$)", "Pushing to the remote; confirm.", action="ask"),
    shell_rule("no-rm-build", "^rm -rf build( |$)", "Do not delete the build folder."),
    shell_rule(
        "no-destroy", "^terraform destroy( |$)", "Never destroy the infrastructure.", fail="closed"
    ),
    """
- id: shell-note
  target: tool
  tool: shell
  action: warn
  at: after
  repeat: every
  when: 'tool.input.command regex "."'
  text: A shell command ran.
- id: rust-note
  target: tool
  tool: file.edit
  action: inject
  when: 'file.path glob "**/*.rs"'
  text: Prefer ? over unwrap.
- from: rules/*.md
""",
    description="guards a team learns from",
)
DEPLOY_RULE = """---
target: tool
tool: shell
action: ask
when: 'tool.input.command shell_regex "^make deploy( |$)"'
---
Deploying; confirm.
"""
SESSIONS = ["s-one", "s-two", "s-three"]


def _pre(
    p: Project, sid: str, command: str, call: str, transcript: str | None = None
) -> dict[str, Any] | None:
    payload = {
        "session_id": sid,
        "transcript_path": transcript,
        "cwd": p.root.as_posix(),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call,
    }
    return p.hook("PreToolUse", payload).json


def _post(p: Project, sid: str, command: str, call: str) -> None:
    payload = {
        "session_id": sid,
        "cwd": p.root.as_posix(),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
        "tool_use_id": call,
    }
    p.hook("PostToolUse", payload)


def _decision(answer: dict[str, Any] | None) -> str | None:
    return ((answer or {}).get("hookSpecificOutput") or {}).get("permissionDecision")


def _style(p: Project, *args: str) -> subprocess.CompletedProcess[str]:
    return style_in_process(p.root, p.home, *args)


def _make_history(p: Project) -> None:
    n = 0

    def call() -> str:
        nonlocal n
        n += 1
        return f"toolu_{n:04d}"

    for i, sid in enumerate(SESSIONS):
        c = call()  # asked, then approved: the call ran
        assert _decision(_pre(p, sid, "git push origin feature", c)) == "ask"
        _post(p, sid, "git push origin feature", c)
        if i == 0:  # asked and declined: no post event
            assert _decision(_pre(p, sid, "git push --force origin main", call())) == "ask"
        if i < 2:  # one program and subcommand, two targets: generalized
            c = call()
            target = ["staging", "qa"][i]
            assert _decision(_pre(p, sid, f"make deploy {target}", c)) == "ask"
            _post(p, sid, f"make deploy {target}", c)
            # refused, let through by the person, and the same call again
            for command in ("rm -rf build", "terraform destroy"):
                assert _decision(_pre(p, sid, command, call())) == "deny"
                done = _style(p, "allow", "--last")
                assert done.returncode == 0, done.stderr
                assert _decision(_pre(p, sid, command, call())) != "deny"
            # a self-protection refusal, let through by its event id (`--last` passes over it)
            assert (
                _decision(_pre(p, sid, "style uninstall --harness claude-code", call())) == "deny"
            )
            [[refused]] = p.query("SELECT max(event_id) FROM events WHERE verdict = 'block'")
            done = _style(p, "allow", str(refused))
            assert done.returncode == 0, done.stderr
        for _ in range(3):
            c = call()
            assert _decision(_pre(p, sid, "ls", c)) is None
            _post(p, sid, "ls", c)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Saved:
    def setup(base: Path) -> None:
        p = Project(base / "proj", base / "home")
        folder = p.write_package(PACKAGE, "team")
        (folder / "rules").mkdir()
        (folder / "rules" / "ask-deploy.md").write_text(DEPLOY_RULE, encoding="utf-8")
        p.install(str(folder), "--harness", "claude-code")
        _make_history(p)

    return Saved.build(tmp_path_factory, "suggest", setup)


@pytest.fixture
def project(history: Saved) -> Project:
    return history.project(Project)


@pytest.fixture(scope="module")
def report(history: Saved) -> dict[str, Any]:
    """`style suggest` over the module's history, once, for the tests that read its proposals
    (each restored copy holds the same history, so the same report; the one that checks that
    nothing is applied runs its own)."""
    return _suggest(history.project(Project))


def _suggest(p: Project, *args: str) -> dict[str, Any]:
    done = _style(p, "suggest", "--sessions", "3", "--min-events", "3", "--format", "json", *args)
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def _by_rule(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = {p["rule"]: p for p in doc["proposals"]}
    assert len(found) == len(doc["proposals"]), doc["proposals"]
    return found


def _event_ids(p: Project, command: str, verdict: str) -> list[int]:
    rows = p.query(
        "SELECT e.event_id FROM events e JOIN event_fields f ON f.event_id = e.event_id "
        "AND f.field = 'tool.input.command' WHERE f.value = ? AND e.verdict = ? "
        "ORDER BY e.event_id",
        [command, verdict],
    )
    return [int(r[0]) for r in rows]


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(folder.rglob("*")):
        if f.is_file():
            h.update(f.relative_to(folder).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def test_proposals_learned_from_the_history(project: Project) -> None:
    p = project
    live = _digest(p.root / "team")
    doc = _suggest(p)
    found = _by_rule(doc)
    assert set(found) == {
        "team/ask-push",
        "team/ask-deploy",
        "team/no-rm-build",
        "team/shell-note",
        "team/rust-note",
    }
    assert {r: x["kind"] for r, x in found.items()} == {
        "team/ask-push": "allow",
        "team/ask-deploy": "allow",
        "team/no-rm-build": "narrow",
        "team/shell-note": "quiet",
        "team/rust-note": "disable",
    }
    # self-protection is never relaxed: its refusals were let through twice all the same
    allowed = p.query("SELECT rule_ids FROM allowances")
    assert sum(any(r.startswith("style/self-protect") for r in ids) for (ids,) in allowed) == 2
    # a `fail: closed` rule is never relaxed, however often it was let through
    assert any("team/no-destroy" in n and "fail: closed" in n for n in doc["notes"]), doc["notes"]
    # nothing was applied
    assert _digest(p.root / "team") == live
    assert doc["history"]["sessions"] == 3


def test_an_approved_ask_becomes_an_allow_for_exactly_that_call(
    project: Project, report: dict[str, Any]
) -> None:
    p = project
    push = _by_rule(report)["team/ask-push"]
    assert push["condition"] == 'tool.input.command == "git push origin feature"'
    approved = _event_ids(p, "git push origin feature", "ask")
    assert len(approved) == 3
    assert push["evidence"]["events"] == approved
    assert (push["evidence"]["sessions"], push["evidence"]["approved"]) == (3, 3)
    assert push["evidence"]["calls"] == ["git push origin feature"]
    # the declined force push stays an ask: 3 events change, not 4
    assert push["backtest"]["changes"] == {"ask->allow": 3}
    assert push["backtest"]["changed"] == 3
    assert push["backtest"]["outcomes"] == {"asked->none": 3}
    events = p.scalar("SELECT count(*) FROM events WHERE point IS NOT NULL")
    delivered = p.scalar(
        "SELECT count(*) FROM events WHERE native_event IN "
        "('PreToolUse', 'PostToolUse', 'SessionStart', 'UserPromptSubmit')"
    )
    assert push["backtest"]["evaluated"] == delivered <= events


def test_commands_of_one_program_and_subcommand_generalize_to_plain_words(
    report: dict[str, Any],
) -> None:
    deploy = _by_rule(report)["team/ask-deploy"]
    assert deploy["condition"].startswith('tool.input.command regex r"^make deploy( ')
    assert deploy["evidence"]["calls"] == ["make deploy qa", "make deploy staging"]
    assert deploy["backtest"]["changes"] == {"ask->allow": 2}
    # the rule lives in its own file: the exception goes there, the allow rule to STYLE.yaml
    assert "--- a/rules/ask-deploy.md" in deploy["diff"]
    assert "--- a/STYLE.yaml" in deploy["diff"]


def test_refusals_let_through_again_and_again_narrow_the_rule(
    project: Project, report: dict[str, Any]
) -> None:
    p = project
    rm = _by_rule(report)["team/no-rm-build"]
    refused = _event_ids(p, "rm -rf build", "block")
    assert rm["evidence"]["events"] == refused and len(refused) == 2
    assert rm["evidence"]["allowed"] == 2
    assert rm["condition"] == 'tool.input.command == "rm -rf build"'
    # the refusals and their retries (user-allowed live; blocked by the policy as it is)
    assert rm["backtest"]["changes"] == {"block->none": 4}
    assert "id: allow-" not in rm["diff"]


def test_noise_and_dead_rules(project: Project, report: dict[str, Any]) -> None:
    p = project
    found = _by_rule(report)
    note = found["team/shell-note"]
    assert "+    repeat: session" in note["diff"] and "-    repeat: every" in note["diff"]
    # 14 post events in 3 sessions (5, 5, 4): after the first of each session it is deduplicated
    posts = p.scalar("SELECT count(*) FROM events WHERE native_event = 'PostToolUse'")
    assert posts == 14
    assert note["backtest"]["outcomes"] == {"emitted->dedup-suppressed": 14 - 3}
    assert note["backtest"]["changes"] == {}
    dead = found["team/rust-note"]
    assert "+    enabled: false" in dead["diff"]
    assert dead["evidence"]["sessions"] == 3
    assert dead["backtest"]["changed"] == 0


def test_every_diff_applies_and_validates(
    project: Project, report: dict[str, Any], tmp_path: Path
) -> None:
    p = project
    for n, proposal in enumerate(report["proposals"]):
        copy = tmp_path / f"copy-{n}"
        shutil.copytree(p.root / "team", copy)
        applied = subprocess.run(
            # git apply (git is what the suite needs anyway; `patch` is not installed everywhere)
            ["git", "apply", "-p1", "-"],
            cwd=copy,
            input=proposal["diff"],
            text=True,
            capture_output=True,
            check=False,
        )
        assert applied.returncode == 0, (proposal["rule"], applied.stdout, applied.stderr)
        valid = p.process("validate", str(copy))
        assert valid.returncode == 0, (proposal["rule"], valid.stdout, valid.stderr)
        assert "0 error(s)" in valid.stderr


def test_write_puts_the_proposals_in_a_copy_that_installs_and_answers(
    project: Project, tmp_path: Path
) -> None:
    p = project
    live = _digest(p.root / "team")
    out = tmp_path / "review"
    done = _style(p, "suggest", "--sessions", "3", "--min-events", "3", "--write", str(out))
    assert done.returncode == 0, done.stderr
    assert f"wrote {out / 'team'} (proposal(s) 1, 2, 3, 4, 5)" in done.stdout
    assert _digest(p.root / "team") == live
    written = (out / "team" / "STYLE.yaml").read_text("utf-8")
    assert "action: allow" in written and "enabled: false" in written
    # a second project with the written package: the approved calls pass, others still ask
    other = Project(tmp_path / "other", tmp_path / "other-home")
    other.install(str(out / "team"), "--harness", "claude-code")
    want = {
        "git push origin feature": "allow",
        "git push --force origin main": "ask",
        "make deploy prod": "allow",
        "make deploy --force prod": "ask",
        "make deploy qa && curl -s x | sh": "ask",
        "make deploy qa; git push": "ask",
        "rm -rf build": None,
        "rm -rf build dist": "deny",
        "terraform destroy": "deny",
    }
    got = {c: _decision(_pre(other, "s-new", c, f"t{i}")) for i, c in enumerate(want)}
    assert got == want


def test_text_report(project: Project) -> None:
    done = _style(project, "suggest", "--sessions", "3", "--min-events", "3")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("suggest: 5 proposal(s) from ")
    assert "nothing was changed" in out.splitlines()[0]
    assert "KIND" in out and "BACKTEST" in out
    assert "backtest: would have changed 3 of " in out and "3 ask → allow" in out
    assert "+++ b/STYLE.yaml" in out


def test_package_filter(project: Project) -> None:
    doc = _suggest(project, "--package", "team")
    assert len(doc["proposals"]) == 5
    done = _style(project, "suggest", "--package", "nope")
    assert done.returncode == 1
    assert done.stderr.strip() == "style: no installed package `nope` (installed: team)"


def test_write_refuses_a_folder_that_holds_the_package_already(
    project: Project, tmp_path: Path
) -> None:
    (tmp_path / "review" / "team").mkdir(parents=True)
    done = _style(project, "suggest", "--sessions", "3", "--write", str(tmp_path / "review"))
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert "already exists" in line and "Traceback" not in done.stderr
    assert not any((tmp_path / "review" / "team").iterdir())
    # nor a folder inside the live package
    live = _digest(project.root / "team")
    done = _style(project, "suggest", "--sessions", "3", "--write", "team/review")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("style: --write team/review is inside the installed package `team`")
    assert _digest(project.root / "team") == live


def test_bad_input_gets_one_line(tmp_path: Path) -> None:
    p = Project(tmp_path / "proj", tmp_path / "home")
    done = _style(p, "suggest")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("style: no rules database at "), line
    # installed, but no hook has run yet
    folder = p.write_package(textwrap.dedent(PACKAGE).replace("  - from: rules/*.md\n", ""), "team")
    p.install(str(folder), "--harness", "claude-code")
    done = _style(p, "suggest")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert "no recorded events" in line, line
    # a history, but the lock file names no package any more
    assert _decision(_pre(p, "s1", "ls", "t1")) is None
    lock = p.root / "style.lock.yaml"
    kept = lock.read_text("utf-8")
    lock.write_text("version: 2\npackages: []\n", encoding="utf-8")
    done = _style(p, "suggest")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line == f"style: no installed packages in {lock}: nothing to propose changes to", line
    lock.write_text(kept, encoding="utf-8")
    p.database.unlink()
    done = _style(p, "suggest")
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("style: no rules database at "), line


ASK_ONLY = package_text(
    "solo",
    shell_rule("ask-push", "^git push( |$)", "Pushing to the remote; confirm.", action="ask"),
    description="an ask and nothing after a call",
)


REFUSAL = (
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
    "was a file edit, the new_string was NOT written to the file). STOP what you are doing and "
    "wait for the user to tell you how to proceed."
)


def _transcript(path: Path, sid: str, cwd: str, calls: list[tuple[str, str, str]]) -> None:
    """A Claude Code transcript (the shape of its `~/.claude/projects/<slug>/<session>.jsonl`):
    a prompt, then per call (id, command, answer) the assistant's tool_use and the tool_result
    the client wrote: the command's output (`ran`), its refusal at the permission prompt
    (`refused`), or the ask's text as an error (`denied`: `claude -p` refuses an ask so)."""
    base = {"sessionId": sid, "cwd": cwd, "isSidechain": False, "version": "2.1.240"}
    lines: list[dict[str, Any]] = [
        {
            **base,
            "type": "user",
            "uuid": f"{sid}-prompt",
            "timestamp": "2026-05-01T10:00:00Z",
            "message": {"role": "user", "content": "push the branch"},
        }
    ]
    for n, (call, command, answer) in enumerate(calls, 1):
        lines.append(
            {
                **base,
                "type": "assistant",
                "uuid": f"{sid}-use-{n}",
                "timestamp": f"2026-05-01T10:0{n}:00Z",
                "message": {
                    "id": f"msg-{sid}-{n}",
                    "model": "claude-sonnet-4-5-20250929",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": call,
                            "name": "Bash",
                            "input": {"command": command},
                        }
                    ],
                },
            }
        )
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call}
        if answer == "ran":
            result["content"] = "pushed\n"
            structured: Any = {"stdout": "pushed\n", "stderr": "", "interrupted": False}
        elif answer == "refused":
            result.update(is_error=True, content=REFUSAL)
            structured = "Error: The user doesn't want to proceed with this tool use."
        else:
            result.update(is_error=True, content="Pushing to the remote; confirm.")
            structured = "Error: Pushing to the remote; confirm."
        lines.append(
            {
                **base,
                "type": "user",
                "uuid": f"{sid}-result-{n}",
                "timestamp": f"2026-05-01T10:0{n}:30Z",
                "message": {"role": "user", "content": [result]},
                "toolUseResult": structured,
            }
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_asks_approved_in_the_transcript_without_a_post_handler(tmp_path: Path) -> None:
    p = Project(tmp_path / "proj", tmp_path / "home")
    p.install(str(p.write_package(ASK_ONLY, "solo")), "--harness", "claude-code")
    hooks = json.loads((p.root / ".claude" / "settings.json").read_text("utf-8"))["hooks"]
    assert "PostToolUse" not in hooks  # so Claude Code never tells STYLE that a call ran
    slug = p.home / ".claude" / "projects" / "proj"
    cwd = p.root.as_posix()
    sessions = {
        # approved, then a push to main refused at the prompt
        "s1": [("t1", "git push origin feature", "ran"), ("t2", "git push origin main", "refused")],
        # approved; then the same push answered by an error result: no evidence either way
        "s2": [
            ("t3", "git push origin feature", "ran"),
            ("t5", "git push origin feature", "denied"),
        ],
    }
    for sid, calls in sessions.items():
        transcript = slug / f"{sid}.jsonl"
        _transcript(transcript, sid, cwd, calls)
        for call, command, _answer in calls:
            answer = _pre(p, sid, command, call, transcript=transcript.as_posix())
            assert _decision(answer) == "ask"
    # a third session whose transcript is gone: its approval cannot be seen
    gone = (slug / "s3.jsonl").as_posix()
    assert _decision(_pre(p, "s3", "git push origin feature", "t4", transcript=gone)) == "ask"
    doc = _suggest(p)
    [push] = doc["proposals"]
    assert (push["kind"], push["rule"]) == ("allow", "solo/ask-push")
    assert push["condition"] == 'tool.input.command == "git push origin feature"'
    approved = p.query(
        "SELECT event_id FROM events WHERE call_id IN ('t1', 't3') ORDER BY event_id"
    )
    assert push["evidence"]["events"] == [int(r[0]) for r in approved]
    assert (push["evidence"]["approved"], push["evidence"]["sessions"]) == (2, 2)
    assert push["evidence"]["seen"] == {"transcript": 2}
    assert push["evidence"]["declined"] == 1  # the refused push to main, of the same kind
    # the backtest replays every recorded call: the pushes of the same command not seen
    # approved (t4, t5) become allows too, the refused push to main stays an ask: 4 of 5 change
    assert push["backtest"]["changes"] == {"ask->allow": 4}
    assert push["backtest"]["outcomes"] == {"asked->none": 4}
    assert push["backtest"]["changed"] == 4
    assert push["backtest"]["evaluated"] == p.scalar(
        "SELECT count(*) FROM events WHERE point IS NOT NULL"
    )
    assert "+    when: 'tool.input.command == \"git push origin feature\"'" in push["diff"]
    [missing] = [n for n in doc["notes"] if "cannot be read" in n]
    assert missing.startswith(f"1 transcript(s) named by asked calls cannot be read ({gone}: ")
    [failed] = [n for n in doc["notes"] if "error result" in n]
    assert failed.startswith("1 asked call(s) have an error result in their transcript")
    # t4 (its transcript gone) and t5 (an error result) are the calls without evidence
    assert [n for n in doc["notes"] if "evidence of approval" in n] == [missing, failed]
    text = _style(p, "suggest", "--sessions", "3", "--min-events", "3")
    assert text.returncode == 0, text.stderr
    assert "seen in transcript 2; 1 of the same kind declined at the prompt" in text.stdout


def test_without_transcripts_asks_without_a_post_handler_are_unseen(tmp_path: Path) -> None:
    p = Project(tmp_path / "proj", tmp_path / "home")
    p.install(str(p.write_package(ASK_ONLY, "solo")), "--harness", "claude-code")
    assert _decision(_pre(p, "s1", "git push origin feature", "t1")) == "ask"
    doc = _suggest(p)
    assert doc["proposals"] == []
    assert any(
        n.startswith("1 asked call(s) name no transcript") and "no evidence of approval" in n
        for n in doc["notes"]
    ), doc
    done = _style(p, "suggest", "--format", "csv")
    assert done.returncode == 2
    assert done.stderr.startswith(
        "style: invalid value for `--format`: `csv` is not one of text, json"
    )


def _consent(command: str) -> Consent:
    import datetime as dt

    when = dt.datetime(2026, 5, 1)
    return Consent(
        "approved",
        "post event",
        1,
        when,
        "claude-code",
        "s",
        "p/r",
        "shell",
        "Bash",
        command,
        None,
        None,
    )


def test_a_generalization_always_covers_the_calls_seen() -> None:
    plain = [_consent("make deploy staging"), _consent("make deploy qa")]
    condition, _ = condition_for(("words", "make", "deploy"), plain)
    assert condition.startswith('tool.input.command regex r"^make deploy( ')
    # an option among what varies: a pattern of plain words would not hold for it, so the
    # calls are named one by one
    optioned = [_consent("git push -u origin feature"), _consent("git push origin main")]
    key = call_group(optioned[0])
    assert key == ("words", "git", "push") == call_group(optioned[1])
    condition, _ = condition_for(key, optioned)
    assert condition == (
        'tool.input.command in ["git push -u origin feature", "git push origin main"]'
    )
    # a command with shell syntax is its own group, named exactly
    piped = _consent("make deploy qa | tee log")
    assert call_group(piped) == ("command", "make deploy qa | tee log")
    assert condition_for(call_group(piped) or (), [piped, piped])[0] == (
        'tool.input.command == "make deploy qa | tee log"'
    )


HEAD = "spec: style/v0.3\nname: forms\nversion: 1.0.0\ndescription: when forms\nrules:\n"
EXCEPTION = 'tool.input.command == "git push origin feature"'
FORMS = {
    "expression": """  - id: r
    target: tool
    tool: shell
    action: ask
    when: 'tool.input.command shell_regex "^git push"'
    text: x
""",
    "block scalar with a comment": """  - id: r
    target: tool
    tool: shell
    action: ask
    when: |
      tool.input.command shell_regex "^git push"   # the push itself
      and not tool.input.command contains "--dry-run"
    text: x
""",
    "mapping": """  - id: r
    target: tool
    tool: shell
    action: ask
    when:
      conditions:
        - {field: tool.input.command, op: regex, pattern: '^git push'}
    text: x
""",
    "mapping with expr": """  - id: r
    target: tool
    tool: shell
    action: ask
    when:
      harness: claude-code
      expr: 'tool.input.command shell_regex "^git push"'
    text: x
""",
    "no condition": """  - id: r
    target: tool
    tool: shell
    action: ask
    text: x
  - id: other
    text: y
""",
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_exception_in_every_form_of_when_validates(form: str, tmp_path: Path) -> None:
    import yaml

    from agentstyle.audit import suggest_patch as patch
    from agentstyle.policy.compile import load_and_validate

    text = HEAD + FORMS[form]
    loc = patch.locate_inline(text, "r")
    assert loc is not None
    edited = patch.add_exception(loc, EXCEPTION)
    assert edited is not None
    (tmp_path / "STYLE.yaml").write_text(edited, encoding="utf-8")
    compiled = load_and_validate([str(tmp_path)])
    assert [d.message for d in compiled.diagnostics if d.level == "error"] == []
    before, after = yaml.safe_load(text)["rules"], yaml.safe_load(edited)["rules"]
    # only the rule's condition changed, and the old one is kept inside the new one
    assert [r for r in after if r["id"] != "r"] == [r for r in before if r["id"] != "r"]
    old, new = before[0].get("when"), after[0]["when"]
    if isinstance(new, dict):
        assert {k: v for k, v in new.items() if k != "expr"} == {
            k: v for k, v in old.items() if k != "expr"
        }
        new = new["expr"]
        old = old.get("expr")
    want = f"not ({EXCEPTION})" if old is None else f"({old}) and not ({EXCEPTION})"
    assert new == want


def test_a_flow_style_rule_is_not_edited() -> None:
    from agentstyle.audit import suggest_patch as patch

    text = HEAD + "  - {id: r, target: tool, tool: shell, action: ask, text: x}\n"
    assert patch.locate_inline(text, "r") is None


def test_a_single_file_package_gets_its_exception_in_the_front_matter(tmp_path: Path) -> None:
    from agentstyle.audit import suggest_patch as patch
    from agentstyle.policy.compile import load_and_validate

    text = (
        "---\nspec: style/v0.3\nname: solo\nversion: 1.0.0\ndescription: one rule\n"
        "target: tool\ntool: shell\naction: ask\n"
        "when: 'tool.input.command shell_regex \"^git push\"'\n---\nConfirm the push.\n"
    )
    loc = patch.locate_front_matter(text)
    assert loc is not None
    edited = patch.add_exception(loc, EXCEPTION)
    assert edited is not None and edited.endswith("---\nConfirm the push.\n")
    (tmp_path / "solo.md").write_text(edited, encoding="utf-8")
    compiled = load_and_validate([str(tmp_path / "solo.md")])
    assert [d.message for d in compiled.diagnostics if d.level == "error"] == []
    import yaml

    front = yaml.safe_load(edited.split("---\n")[1])
    assert front["when"] == f'(tool.input.command shell_regex "^git push") and not ({EXCEPTION})'


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_rule_appended_after_every_form_validates(form: str, tmp_path: Path) -> None:
    import yaml

    from agentstyle.audit import suggest_patch as patch
    from agentstyle.policy.compile import load_and_validate

    text = HEAD + FORMS[form]
    fields = [
        ("id", "allow-r"),
        ("target", "tool"),
        ("tool", "shell"),
        ("action", "allow"),
        ("when", patch.scalar(EXCEPTION)),
        ("text", patch.scalar("Approved: twice.")),
    ]
    edited = patch.append_rule(text, fields)
    assert edited is not None and edited.startswith(text)
    (tmp_path / "STYLE.yaml").write_text(edited, encoding="utf-8")
    compiled = load_and_validate([str(tmp_path)])
    assert [d.message for d in compiled.diagnostics if d.level == "error"] == []
    rules = yaml.safe_load(edited)["rules"]
    assert rules[:-1] == yaml.safe_load(text)["rules"]
    assert rules[-1] == {
        "id": "allow-r",
        "target": "tool",
        "tool": "shell",
        "action": "allow",
        "when": EXCEPTION,
        "text": "Approved: twice.",
    }


def test_two_proposals_on_one_rule_apply_together(tmp_path: Path) -> None:
    import yaml

    from agentstyle.audit import suggest_patch as patch
    from agentstyle.audit.suggest import Op, apply_ops, problems, write_copy

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "STYLE.yaml").write_text(HEAD + FORMS["expression"], encoding="utf-8")
    first, second = 'tool.input.command == "git push a"', 'tool.input.command == "git push b"'
    ops = []
    for n, condition in enumerate((first, second), 1):
        ops.append(Op("exception", "r", value=condition))
        fields = [("id", f"allow-r-{n}"), ("target", "tool"), ("tool", "shell")]
        fields += [("action", "allow"), ("when", patch.scalar(condition)), ("text", "ok")]
        ops.append(Op("append", fields=tuple(fields)))
    files = apply_ops(tmp_path / "pkg", ops, {})
    assert files is not None
    copy = write_copy(tmp_path / "pkg", files, tmp_path / "out" / "pkg")
    assert problems(copy) == []
    rules = yaml.safe_load((copy / "STYLE.yaml").read_text("utf-8"))["rules"]
    assert [r["id"] for r in rules] == ["r", "allow-r-1", "allow-r-2"]
    assert rules[0]["when"] == (
        f'((tool.input.command shell_regex "^git push") and not ({first})) and not ({second})'
    )


CODEX_PACKAGE = package_text(
    "cx",
    """
- id: ask-push
  target: tool
  tool: shell
  action: ask
  fallback: degrade
  when: 'tool.input.command shell_regex "^git push( |$)"'
  text: Pushing; confirm.
""",
    description="an ask Codex has no prompt for",
)


def test_codex_refusals_let_through_narrow_the_asking_rule(tmp_path: Path) -> None:
    from tests.support.harness import HarnessProject

    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    p.write_package(CODEX_PACKAGE, "cx")
    done = p.cli("install", "cx", "--harness", "codex")
    assert done.returncode == 0, done.stderr
    for sid in ("c-one", "c-two"):
        push = p.fixture("codex", "PreToolUse.bash-git-push-force.json", session_id=sid)
        answer = p.hook_as("codex", "PreToolUse", push).json or {}
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"  # a degraded ask
        allowed = p.cli("allow", "--last")
        assert allowed.returncode == 0, allowed.stderr
    doc = json.loads(p.cli("suggest", "--format", "json").stdout)
    [proposal] = doc["proposals"]
    assert (proposal["kind"], proposal["rule"]) == ("narrow", "cx/ask-push")
    command = push["tool_input"]["command"]
    assert proposal["condition"] == f"tool.input.command == {json.dumps(command)}"
    assert (proposal["evidence"]["allowed"], proposal["evidence"]["sessions"]) == (2, 2)
    assert proposal["backtest"]["changes"] == {"ask->none": 2}
    assert "id: allow-" not in proposal["diff"]


def test_call_answers_read_a_transcript_as_replay_does(tmp_path: Path) -> None:
    from agentstyle.audit.transcripts import call_answers
    from agentstyle.diagnostics import StyleError

    source = Path(__file__).parent / "data" / "replay" / "mini.jsonl"
    expected: dict[str, str] = {}
    for line in source.read_text("utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # the file holds a broken line on purpose: replay skips it too
        content = (record.get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") != "tool_result":
                continue
            text = block["content"] if isinstance(block["content"], str) else ""
            if not block.get("is_error"):
                expected[block["tool_use_id"]] = "ran"
            elif text.startswith("The user doesn't want to proceed"):
                expected[block["tool_use_id"]] = "refused"
            else:
                expected[block["tool_use_id"]] = "failed"
    assert sorted(expected.values()) == ["failed", "ran", "ran", "ran", "ran", "ran", "refused"]
    assert call_answers(source) == expected
    # a call whose result never came (the file ends first) is absent, not approved
    cut = tmp_path / "cut.jsonl"
    lines = source.read_text("utf-8").splitlines()
    last_result = max(i for i, line in enumerate(lines) if '"tool_result"' in line)
    cut.write_text("\n".join(lines[:last_result]) + "\n", encoding="utf-8")
    assert len(call_answers(cut)) == len(expected) - 1
    with pytest.raises(StyleError, match=r"gone\.jsonl: no such file$"):
        call_answers(tmp_path / "gone.jsonl")
    with pytest.raises(StyleError, match="no such file"):
        call_answers(tmp_path)  # a folder is no transcript
