"""Every Claude Code fixture through the real hook command, golden-checked
(tests/fixtures/expected-outputs.md).

Two scratch projects are installed with `style install`: `golden-a` holds the example rules R1–R6
of tests/fixtures/expected-outputs.md with the exact texts of rows C1–C13, `golden-b` the
alternative actions (C4 warn, C8 prompt block) plus rules that give more fixtures an answer. Every
fixture runs in `golden-a`; those with a `golden-b` answer run there too. Each call has its own
session (so no answer depends on the order of the others); all hooks of a project are started at
once.
"""

from __future__ import annotations

import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from tests.support.environment import CROWD_ENV
from tests.support.hooks import DATA, FIXTURES, fixture_names, new_session
from tests.support.project import Project

EXPECTED_MD = FIXTURES.parent / "expected-outputs.md"

# The C rows whose stdout this suite proves, and the project that installs their rule.
# C1′ is the exit-code alternative of C1; STYLE answers with the JSON form (C1).
C_ROWS = {
    "C1": "a",
    "C2": "a",
    "C3": "a",
    "C4": "b",
    "C5": "a",
    "C6": "a",
    "C7": "a",
    "C8": "b",
    "C9": "a",
    "C10": "a",
    "C11": "a",
    "C12": "a",
    "C13": "a",
}

ALONE = "SessionEnd.json"
EXTRA_SESSION = "not-a-fixture-session"
BRIEF = "acme-api: Rust 1.83 workspace; crates acme-auth, acme-db; never edit generated/ files."

# Golden answers: fixture → (stdout, exit code); "" is "no output". Rows of the table are
# checked against the table itself below, so a typo here cannot hide a wrong answer.
GOLDEN: dict[str, dict[str, tuple[str, int]]] = {
    "a": {
        # a settings file changed; STYLE's hooks still in the settings: nothing to say
        "ConfigChange.local.json": ("", 0),
        "Notification.permission_prompt.json": ("", 0),
        "PermissionRequest.bash.json": ("C13", 0),
        # the client refused the call itself: recorded for the audit, nothing to answer
        "PermissionDenied.bash.json": ("", 0),
        "PostToolUse.bash.json": ("", 0),
        # outputs holding a fake AWS key: no rule here redacts (tests/test_redact.py does)
        "PostToolUse.bash-env-secrets.json": ("", 0),
        "PostToolUse.edit-rs.json": ("C6", 0),
        "PostToolUse.grep-keys.json": ("", 0),
        "PostToolUse.mcp-vault.json": ("", 0),
        "PostToolUse.read-config.json": ("", 0),
        "PostToolUse.webfetch-page.json": ("", 0),
        "PostToolUse.write.json": ("", 0),
        "PostToolUseFailure.bash.json": ("", 0),
        "PreCompact.auto.json": ("", 0),
        "PreCompact.manual.json": ("", 0),
        "PreToolUse.agent.json": ("", 0),
        "PreToolUse.bash-git-push-force.json": ("C2", 0),
        # shell-aware: the heredoc body mentions no `rm`, and R1 must not fire on it
        "PreToolUse.bash-heredoc-python.json": ("", 0),
        "PreToolUse.bash-rm-rf.json": ("C1", 0),
        "PreToolUse.edit-rs.json": ("C3", 0),
        "PreToolUse.mcp-github.json": ("", 0),
        # the MultiEdit replaces unwrap() instead of adding one
        "PreToolUse.multiedit-legacy.json": ("", 0),
        "PreToolUse.read-dotenv.json": ("C12", 0),
        "PreToolUse.subagent-bash.json": ("", 0),
        "PreToolUse.webfetch.json": ("", 0),
        "PreToolUse.write-env.json": ("C5", 0),
        "SessionEnd.json": ("", 0),
        "SessionStart.compact.json": ("C9", 0),
        "SessionStart.resume.json": (
            '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":'
            f'"{BRIEF}"}}}}',
            0,
        ),
        "SessionStart.startup.json": (
            '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":'
            f'"{BRIEF}"}}}}',
            0,
        ),
        "Stop.active.json": ("C11", 0),
        "Stop.json": ("C10", 0),
        "SubagentStart.json": ("", 0),
        "SubagentStop.json": ("", 0),
        "UserPromptSubmit.json": ("C7", 0),
    },
    "b": {
        "PostToolUseFailure.bash.json": (
            '{"systemMessage":"STYLE: cargo reported a compile error.","hookSpecificOutput":'
            '{"hookEventName":"PostToolUseFailure","additionalContext":'
            '"The build failed; read the compiler error before retrying."}}',
            0,
        ),
        # shell.code: the heredoc fed to python3 is what runs
        "PreToolUse.bash-heredoc-python.json": (
            '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
            '"permissionDecisionReason":"STYLE: python one-offs must not delete directories."}}',
            0,
        ),
        "PreToolUse.edit-rs.json": ("C4", 0),
        "PreToolUse.mcp-github.json": (
            '{"hookSpecificOutput":{"hookEventName":"PreToolUse",'
            '"additionalContext":"Open pull requests as drafts."}}',
            0,
        ),
        "PreToolUse.webfetch.json": (
            '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow",'
            '"permissionDecisionReason":"STYLE: docs.rs is on the allow list."}}',
            0,
        ),
        "SubagentStart.json": (
            '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":'
            '"Subagents report file paths relative to the repository root."}}',
            0,
        ),
        "SubagentStop.json": (
            '{"hookSpecificOutput":{"hookEventName":"SubagentStop","additionalContext":'
            '"STYLE: also list the call sites under tests/ separately."}}',
            0,
        ),
        "UserPromptSubmit.json": ("C8", 0),
    },
}


def table_rows() -> dict[str, tuple[str, str, int]]:
    """Claude Code rows of tests/fixtures/expected-outputs.md: id → (fixture, stdout, exit code)."""
    rows: dict[str, tuple[str, str, int]] = {}
    row = re.compile(r"^\| (C\d+) \| `claude-code/([^`]+)` \| [^|]+ \| (.+) \| (\d) \|$")
    for line in EXPECTED_MD.read_text("utf-8").splitlines():
        m = row.match(line)
        if not m:
            continue
        cell = m.group(3).strip()
        stdout = re.match(r"`(\{.*?\})`", cell)
        rows[m.group(1)] = (m.group(2), stdout.group(1) if stdout else "", int(m.group(4)))
    return rows


TABLE = table_rows()

# Rows the real client showed are better answered another way (tests/e2e, `make e2e`, Claude
# Code 2.1.332): a headless `ask` is a plain refusal, so the question says how to let the call
# through; a Stop `decision: block` shows the model the reason twice and the hook's command
# line, `additionalContext` continues the turn with the reason once.
REVISED = {
    "C2": (
        '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask",'
        '"permissionDecisionReason":"STYLE force-push: this force-pushes main. Confirm to '
        "continue. Ask the user; they can allow it once with 'style allow --last'.\"}}",
        0,
    ),
    "C10": (
        '{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"STYLE '
        "tests-before-done: run 'cargo test -p acme-auth' and report the result before "
        'finishing."}}',
        0,
    ),
}


def golden(variant: str, fixture: str) -> tuple[str, int]:
    out, code = GOLDEN[variant][fixture]
    if re.fullmatch(r"C\d+", out):
        table_fixture, table_out, table_code = TABLE[out]
        assert table_fixture == fixture, (out, table_fixture, fixture)
        return REVISED.get(out, (table_out, table_code))
    return out, code


def test_the_table_is_what_the_goldens_cite() -> None:
    assert set(TABLE) == set(C_ROWS), sorted(TABLE)
    for row, variant in C_ROWS.items():
        fixture = TABLE[row][0]
        assert GOLDEN[variant][fixture][0] == row, (row, variant)
    assert sorted(GOLDEN["a"]) == fixture_names(), "every fixture needs a golden answer"
    assert set(GOLDEN["b"]) <= set(fixture_names())
    assert len(fixture_names()) >= 28


def _install(tmp_path_factory: pytest.TempPathFactory, variant: str) -> Project:
    base = tmp_path_factory.mktemp(f"golden-{variant}")
    project = Project(base / "acme-api", base / "home")
    shutil.copytree(DATA / f"golden-{variant}", project.root / "pkg")
    project.install("pkg")
    return project


def _run_variant(project: Project, variant: str) -> dict[str, Any]:
    # SessionEnd, the event with the shortest timeout, still runs on its own after the crowd
    names = [n for n in sorted(GOLDEN[variant]) if n != ALONE]
    calls = []
    for name in names:
        payload = project.payload(name, session_id=new_session())
        calls.append((str(payload["hook_event_name"]), payload))
    out: dict[str, Any] = {"project": project}
    # The answers are under test here, not the deadlines (test_hook_failures): the crowd gets
    # room (support.environment CROWD_DEADLINE_S), and so does SessionEnd, whose 1.35 s a busy
    # machine spends starting the hook.
    out.update(zip(names, project.hooks_parallel(calls), strict=True))
    if ALONE in GOLDEN[variant]:
        payload = project.payload(ALONE, session_id=new_session())
        out[ALONE] = project.hook(str(payload["hook_event_name"]), payload, env=CROWD_ENV)
    return out


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Each fixture through each project's hook, one session per fixture, all started at once.
    The projects are installed one after the other first: an install runs the command in this
    process, in the project's folder, and pytest's temporary folders are made one at a time."""
    projects = {v: _install(tmp_path_factory, v) for v in GOLDEN}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {v: pool.submit(_run_variant, projects[v], v) for v in GOLDEN}
        return {v: f.result() for v, f in futures.items()}


CASES = [(variant, fixture) for variant in sorted(GOLDEN) for fixture in sorted(GOLDEN[variant])]


@pytest.mark.parametrize(("variant", "fixture"), CASES)
def test_fixture_golden(answers: dict[str, dict[str, Any]], variant: str, fixture: str) -> None:
    result = answers[variant][fixture]
    want_out, want_code = golden(variant, fixture)
    assert result.stdout == (want_out + "\n" if want_out else ""), result.stderr
    assert result.code == want_code
    assert result.stderr == "", result.stderr


def test_every_fixture_was_recorded(answers: dict[str, dict[str, Any]]) -> None:
    for variant in GOLDEN:
        project: Project = answers[variant]["project"]
        rows = project.query(
            "SELECT native_event, count(*) FROM events WHERE error IS NULL "
            "AND session_id <> ? GROUP BY ALL",
            [EXTRA_SESSION],
        )
        want: dict[str, int] = {}
        for name in GOLDEN[variant]:
            event = name.split(".")[0]
            want[event] = want.get(event, 0) + 1
        assert dict(rows) == want
        assert not project.error_log.exists()


def test_payload_cwd_decides_relative_paths(answers: dict[str, dict[str, Any]]) -> None:
    """The fixtures' `/home/dev/acme-api` was rewritten to the scratch project: C3 matched
    `src/**/*.rs` only because `file.path` was made relative to the payload's cwd."""
    project: Project = answers["a"]["project"]
    rows = project.query("SELECT value FROM event_fields WHERE field = 'file.path' ORDER BY value")
    paths = {v for (v,) in rows}
    assert "src/auth/session.rs" in paths
    assert not any(p.startswith("/home/dev") for p in paths)


def test_the_installed_command_line_is_what_runs(answers: dict[str, dict[str, Any]]) -> None:
    """The handler `style install` wrote into .claude/settings.json, run the way Claude Code
    runs a command without `args` (`sh -c`), answers C1."""
    project: Project = answers["a"]["project"]
    command = project.installed_command("PreToolUse")
    # Committed with the project: no path of this machine, `style-hook` found on PATH, and one
    # clear line for the user (not a silent exit 127) where STYLE is not installed.
    assert command == (
        "command -v style-hook >/dev/null 2>&1 && exec style-hook --harness claude-code "
        "--event PreToolUse; cat >/dev/null; printf '%s\\n' "
        """'{"systemMessage":"STYLE is not installed on this machine: pipx install agentstyle """
        """/ uv tool install agentstyle, then style sync"}'; exit 0"""
    )
    payload = project.payload("PreToolUse.bash-rm-rf.json", session_id=EXTRA_SESSION)
    result = project.run_installed("PreToolUse", payload)
    out, code = golden("a", "PreToolUse.bash-rm-rf.json")
    assert (result.stdout, result.code, result.stderr) == (out + "\n", code, "")
