"""One hook call, one cause type: the HookCall the hook builds once from its command line and
environment, the one walk that finds `.style/`, each limit defined once, and every failure
cause read back from the text errors.log holds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentstyle import folders, limits
from agentstyle.evaluator.locking import LockHeldByStranger, LockTimeout
from agentstyle.harnesses import timeout_for
from agentstyle.runtime import errorlog
from agentstyle.runtime.causes import (
    TEXTS,
    Cause,
    DeadlineExceeded,
    HandlerError,
    NoDatabase,
    Oversized,
    StdinOpen,
    StillBuilding,
    failure_of,
)
from agentstyle.runtime.hookcall import HookCall, deadline_seconds
from agentstyle.runtime.hookrun import decode

PACKAGE = Path(__file__).resolve().parent.parent / "agentstyle"


def test_a_hook_call_reads_its_command_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(limits.DEADLINE_ENV, raising=False)
    monkeypatch.delenv(folders.STYLE_HOME_ENV, raising=False)
    monkeypatch.setenv("CURSOR_PROJECT_DIR", "/p/cursor")
    argv = ["--fail-closed", "--bogus", "--event", "UserPromptSubmit", "--harness", "claude-code"]
    call = HookCall.from_argv(argv, started=100.0)
    assert (call.harness, call.event, call.fail_closed) == (
        "claude-code",
        "UserPromptSubmit",
        True,
    )
    assert call.deadline == 100.0 + deadline_seconds(timeout_for("claude-code", "UserPromptSubmit"))
    assert call.deadline == pytest.approx(101.5)  # the budget's deadline: 1.5 s
    assert 0.0 < call.grace <= limits.BUDGET_GRACE_S
    assert call.deadline + call.grace < call.watchdog_at < 100.0 + limits.BUDGET_S
    assert call.home is None and call.project_dirs == ("/p/cursor",)
    assert call.starts("/payload/cwd") == ["/p/cursor", "/payload/cwd", call.cwd]
    bare = HookCall.from_argv(["--harness"])  # a missing value: no harness, fail open later
    assert (bare.harness, bare.event, bare.fail_closed) == ("", "", False)


def test_the_deadline_override_and_the_engines_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.DEADLINE_ENV, "0.25")
    monkeypatch.setenv(folders.STYLE_HOME_ENV, "/somewhere/.style")
    call = HookCall.from_argv(["--harness", "codex", "--event", "PreToolUse"])
    assert call.deadline - call.started == 0.25
    assert call.home == "/somewhere/.style" and call.find_home() == "/somewhere/.style"
    served = HookCall.served("codex", "Stop", False, 2.0, "/engine/.style")
    assert served.deadline - served.started == 2.0 and served.grace == limits.FAILURE_GRACE_S
    assert served.find_home("/elsewhere", user=True) == "/engine/.style"
    assert 0.0 < served.left() <= 2.0
    assert served.until(0.5) == pytest.approx(1.0, abs=0.5)
    gone = HookCall.served("codex", "Stop", False, -3.0, "/engine/.style")
    assert gone.deadline == gone.started and gone.left() <= 0.0


def test_one_walk_finds_the_style_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    project = tmp_path / "project"
    (project / "src" / "deep").mkdir(parents=True)
    (project / ".style").mkdir()
    monkeypatch.setenv("HOME", str(home))
    deep = str(project / "src" / "deep")
    styled = str(project / ".style")
    assert folders.find_home([deep], override=None) is None  # no database there yet
    assert folders.find_home([deep], override=None, database=False) == styled
    assert folders.find_home([None, deep], override="/x/.style") == "/x/.style"
    (home / ".style").mkdir(parents=True)
    (home / ".style" / folders.DATABASE_NAME).touch()
    assert folders.find_home([deep], override=None, user=True) == str(home / ".style")
    (project / ".style" / folders.DATABASE_NAME).touch()
    assert folders.find_home([None, deep], override=None, user=True) == styled
    (project / folders.LOCK_NAME).touch()
    assert folders.find_upwards([deep], lambda f: Path(f, folders.LOCK_NAME).is_file()) == str(
        project
    )


def failures() -> list[HandlerError]:
    """A failure of every cause, made the way the hook makes it."""
    out: list[HandlerError] = []
    for stdin in (b"", b"garbage", b"[1]", b"[" * 100_000, b"x" * (limits.MAX_STDIN + 1)):
        with pytest.raises(HandlerError) as raised:
            decode(stdin)
        out.append(raised.value)
    out += [NoDatabase(), Oversized(), DeadlineExceeded()]
    out.append(failure_of(LockTimeout("/p/.style/style.lock is held by another process")))
    held = "the rules database lock is held by a stopped process (pid 7: python)"
    out.append(failure_of(LockHeldByStranger(held)))
    out.append(failure_of(ValueError("boom\n  at line 2")))
    out.append(HandlerError(Cause.UNKNOWN_EVENT, "unknown event `Bogus`"))
    out.append(HandlerError(Cause.UNKNOWN_HARNESS, "unknown harness `nope`"))
    out.append(HandlerError(Cause.DATABASE, "the rules database could not be read (IOException)"))
    out.append(HandlerError(Cause.LOCKED, "the rules database is locked by another program"))
    out += [StdinOpen(), StillBuilding()]
    return out


def test_every_cause_is_read_back_from_the_text_it_logs() -> None:
    """errors.log holds a cause's text only (its line format is unchanged): what it raised
    must begin the way its row of the table says, or doctor would count it as another."""
    made = failures()
    assert {f.cause for f in made} == set(Cause)
    for failure in made:
        assert "\n" not in failure.text and len(failure.text) <= 300
        assert Cause.of_text(failure.text) is failure.cause, failure.text
        assert failure.cause.doctor_text and failure.cause.notice_text, failure.cause
    assert set(TEXTS) == set(Cause)
    assert Cause.STRANGER.counted is Cause.LOCKED


def test_old_log_lines_still_parse_and_count() -> None:
    old = errorlog.parse("2025-01-02T03:04:05Z codex PreToolUse no rules database (run x)")
    assert old is not None and old.outcome == errorlog.UNKNOWN
    assert old.counted is Cause.NO_DATABASE
    line = "2025-01-02T03:04:05Z cursor stop fail-open the rules database lock is held by x"
    new = errorlog.parse(line)
    assert new is not None and new.outcome == errorlog.FAIL_OPEN
    assert new.counted is Cause.LOCKED
    odd = errorlog.parse("2025-01-02T03:04:05Z cursor stop refused KeyError: 'x'")
    assert odd is not None and odd.counted is Cause.INTERNAL


def test_the_fail_open_notice_names_the_cause() -> None:
    notice = errorlog.fail_open_notice(Oversized(), "tool.pre")
    assert notice == (
        f"STYLE could not check this call (its input is over {limits.MAX_STDIN_TEXT}); it was "
        "allowed. Run `style doctor`."
    )
    internal = errorlog.fail_open_notice(failure_of(ValueError("boom")), "stop")
    assert "(an internal error: ValueError: boom)" in internal


# a number that spells one of limits.py's bounds, outside limits.py
LIMIT_LITERALS = re.compile(r"16 \* 1024 \* 1024|64 \* 1024(?! \*)|\b55\.0\b|0\.9 \*|16 MiB")


def test_each_limit_is_defined_once() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "limits.py":
            continue
        for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            code = line.split("#", 1)[0]
            if LIMIT_LITERALS.search(code):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert offenders == []
