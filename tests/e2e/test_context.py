"""What reaches the model: the session brief, prompt context and refusals, context and warnings
after an edit — read in the request bodies the real clients sent to the mock."""

from __future__ import annotations

import json

import pytest

from e2e.clients import HARNESSES, Session
from e2e.mockapi import Say, Script
from e2e.scenarios import BRIEF, POST_PACKAGE, PROMPT_PACKAGE, brief_package, edit, shell

# `codex exec` shows the person no hook message (not a prompt refusal's reason, not a
# `systemMessage`: its output has only "hook: UserPromptSubmit Blocked"); the others do.
SHOWS_HOOK_MESSAGES = {"claude-code": True, "codex": False, "gemini-cli": True, "copilot-cli": True}

BRIEF_PACKAGE = brief_package()


@pytest.mark.parametrize("harness", HARNESSES)
def test_session_start_brief_reaches_the_model_once(session, harness: str) -> None:
    s: Session = session(harness, Script([[shell(harness, "echo one")]], last=[Say("Hello.")]))
    s.install(BRIEF_PACKAGE)
    s.run("hello")
    if harness not in ("gemini-cli", "copilot-cli"):
        # a resumed session keeps the brief in its history: it is not repeated. (Gemini CLI
        # and Copilot CLI rebuild a resumed history without the session-start context they
        # put before the first prompt, so the brief is lost there, as tests/e2e/README.md
        # notes: tests/e2e/test_copilot_cli.py shows it for Copilot CLI.)
        s.run("and again", resume=True)
    reqs = s.requests()
    assert len(reqs) >= 2
    for r in reqs:
        assert r.text.count(BRIEF) == 1, (r.seq, r.text.count(BRIEF))


def brief_answers(s: Session) -> list[tuple[str | None, bool]]:
    """Each SessionStart the session recorded: its source, and whether its answer held BRIEF."""
    return [
        (p["payload"].get("source"), BRIEF in p["stdout"])
        for p in s.payloads()
        if p["payload"].get("hook_event_name") == "SessionStart"
    ]


def test_brief_again_after_a_real_compaction_claude_code(session) -> None:
    s: Session = session("claude-code", Script([], last=[Say("Fine.")]))
    s.install(BRIEF_PACKAGE)
    s.record_payloads()
    s.run("hello")
    s.run("/compact", resume=True)
    s.run("after the compaction", resume=True)
    answered = brief_answers(s)
    # startup injects, resume is claimed, the compaction's SessionStart injects again
    assert ("startup", True) in answered
    assert ("compact", True) in answered
    assert ("resume", True) not in answered
    last = s.requests()[-1]
    assert "after the compaction" in last.text
    assert last.text.count(BRIEF) == 1


def test_brief_again_after_a_real_compaction_codex(session) -> None:
    """Codex compacts by itself past `model_auto_compact_token_limit` (the mock reports 110
    tokens a request); its SessionStart(compact) runs before the next model request."""
    summary = "Another language model started to solve this problem"

    def pick(req):  # after the compaction the summary is in the history: finish there
        return [Say("Fine.")] if summary in req.text else None

    s: Session = session("codex", Script([[shell("codex", "echo one")]], pick=pick))
    s.install(BRIEF_PACKAGE)
    s.record_payloads()
    s.run("hello", extra=["-c", "model_auto_compact_token_limit=50"])
    answered = brief_answers(s)
    assert ("startup", True) in answered
    assert ("compact", True) in answered
    after = [r for r in s.requests() if summary in r.text]
    assert after, "Codex did not compact"
    assert all(r.text.count(BRIEF) == 1 for r in after)


def test_after_compaction_unsupported_gemini_cli(session) -> None:
    """Gemini CLI's SessionStart never says `compact` (a compression only fires PreCompress):
    plan refuses a rule for that source alone rather than install one that never fires."""
    s: Session = session("gemini-cli", Script([]))
    s.package(
        BRIEF_PACKAGE.replace(
            "    target: system\n", "    target: system\n    sources: [compact]\n"
        )
    )
    done = s.style(
        "plan", str(s.root / "pkg"), "--harness", "gemini-cli", "--format", "json", check=False
    )
    entries = [e for r in json.loads(done.stdout) if r["rule"] == "e2e/brief" for e in r["entries"]]
    assert [e["status"] for e in entries] == ["install-error"]
    assert "never starts a session from compact" in entries[0]["reason"]


@pytest.mark.parametrize("harness", HARNESSES)
def test_prompt_inject_reaches_the_model(session, harness: str) -> None:
    s: Session = session(harness, Script([], last=[Say("Noted.")]))
    s.install(PROMPT_PACKAGE)
    s.run("please deploy the service")
    reqs = s.requests()
    assert reqs, "no request reached the model"
    assert all(r.text.count("E2E-PROMPT-NOTE") == 1 for r in reqs), [
        r.text.count("E2E-PROMPT-NOTE") for r in reqs
    ]


@pytest.mark.parametrize("harness", HARNESSES)
def test_prompt_block_sends_no_request(session, harness: str) -> None:
    s: Session = session(harness, Script([], last=[Say("Should never be asked.")]))
    s.install(PROMPT_PACKAGE)
    run = s.run("log in with PASSWORD=hunter2")
    assert s.requests() == [], "a refused prompt reached the model"
    # the person is told why, where the client shows hook messages
    assert ("E2E-PROMPT-BLOCK" in run.stdout + run.stderr) == SHOWS_HOOK_MESSAGES[harness]


def _edit_call(s: Session):  # Codex offers the mock's model no apply_patch: it edits by shell
    if s.harness == "codex":
        return shell("codex", "sed -i s/scratch/edited/ README.md")
    return edit(s.harness, s.project, "README.md", "scratch project", "edited project")


@pytest.mark.parametrize("harness", HARNESSES)
def test_inject_and_warn_after_an_edit(session, harness: str) -> None:
    s: Session = session(harness, Script([], last=[Say("Edited.")]))
    s.script.turns.append([_edit_call(s)])
    s.install(POST_PACKAGE)
    run = s.run("edit the readme")
    assert "edited project" in (s.project / "README.md").read_text()
    after = [r.text for r in s.requests() if r.step >= 1]
    assert after, "the model was not asked after the edit"
    assert any("E2E-POST-INJECT" in t for t in after)
    assert any("E2E-WARN-MODEL" in t for t in after), "warn's model text did not reach the model"
    # warn's full text is for the person: it never reaches the model
    assert not any("E2E-WARN-USER-ONLY" in r.text for r in s.requests())
    shown = "E2E-WARN-USER-ONLY" in run.stdout + run.stderr
    assert shown == SHOWS_HOOK_MESSAGES[harness], "the person was not shown the warning"
