"""No stalls (docs/design/storage.md#the-resident-engine): while an engine runs it holds the
database lock for its lifetime, yet a hook that evaluates directly never waits for that lifetime.
Under `STYLE_ENGINE=off` the engine steps aside; a payload over 16 MiB is handed to the engine,
which answers it per `fail` with its open database; after a version mismatch or an engine that
stopped answering the hook is answered within its deadline. The bounds here are generous (the
figures are in bench/stall_bench.py), what is asserted is "not the engine's lifetime".
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator

import pytest

from agentstyle.runtime import client
from tests.support.engine import installed, shell_call
from tests.support.hooks import HookResult, new_session
from tests.support.packages import NO_RM_RF, TIPS, package_text
from tests.support.project import Project

PACKAGE = package_text("eng", NO_RM_RF, TIPS, description="engine stall tests")
# `fail: closed` on the same event: a call STYLE cannot evaluate is refused.
CLOSED = PACKAGE.replace("    action: block\n", "    action: block\n    fail: closed\n")
ENGINE_ON = {"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "120"}
ENGINE_OFF = {"STYLE_ENGINE": "off"}
PROMPT_S = 5.0  # "within the normal latency", with room for a loaded machine
CLOSED_REASON = (
    "STYLE could not evaluate policy (payload over 16 MiB); the call is refused because a rule "
    "requires it."
)


@pytest.fixture
def closed(project: Project) -> Iterator[Project]:
    with installed(project, CLOSED):
        yield project


@pytest.fixture
def open_(project: Project) -> Iterator[Project]:
    with installed(project, PACKAGE):
        yield project


bash = shell_call


def huge(project: Project) -> bytes:
    """A 17 MiB call, its session named first (the part of it the engine receives)."""
    data = {"session_id": new_session(), **bash(project, "rm -rf /")}
    data["tool_input"] = {"command": "rm -rf /", "padding": "x" * (17 << 20)}
    return json.dumps(data).encode()


def timed(
    project: Project, payload: dict[str, object] | bytes, env: dict[str, str]
) -> tuple[HookResult, float]:
    t0 = time.monotonic()
    result = project.hook("PreToolUse", payload, env=env)
    return result, time.monotonic() - t0


def denied(result: HookResult) -> str:
    specific = (result.json or {}).get("hookSpecificOutput") or {}
    assert specific.get("permissionDecision") == "deny", result.stdout + result.stderr
    return str(specific.get("permissionDecisionReason"))


def test_engine_off_while_an_engine_runs(closed: Project) -> None:
    """`STYLE_ENGINE=off` means "do not evaluate through it": the engine is asked to step
    aside, and the hook evaluates the rules itself, at once."""
    closed.start_engine()
    result, elapsed = timed(closed, bash(closed, "rm -rf build"), ENGINE_OFF)
    assert denied(result) == "No recursive deletes."
    assert result.stderr == ""  # evaluated, not a failure
    assert elapsed < PROMPT_S
    assert client.ping(str(closed.style), 0.5) is None  # it stepped aside
    again, elapsed = timed(closed, bash(closed, "ls"), ENGINE_OFF)
    assert again.context == "Prefer small commands." and elapsed < PROMPT_S


def test_oversized_payload_is_answered_by_the_engine_per_fail(closed: Project) -> None:
    served = int(closed.start_engine()["served"])  # type: ignore[call-overload]
    result, elapsed = timed(closed, huge(closed), ENGINE_ON)
    assert denied(result) == CLOSED_REASON
    assert result.stderr == "STYLE: payload over 16 MiB; refused (fail: closed)\n"
    assert elapsed < PROMPT_S
    info = client.ping(str(closed.style))  # the engine served it and still runs
    assert info is not None and info["served"] == served + 1


def test_oversized_payload_without_fail_closed_is_allowed_with_a_notice(open_: Project) -> None:
    open_.start_engine()
    result, elapsed = timed(open_, huge(open_), ENGINE_ON)
    assert result.json == {
        "systemMessage": "STYLE could not check this call (its input is over 16 MiB); it was "
        "allowed. Run `style doctor`."
    }
    assert result.stderr == "STYLE: payload over 16 MiB; allowed (fail open)\n"
    assert elapsed < PROMPT_S


def test_failures_under_engine_off_while_an_engine_runs(closed: Project) -> None:
    """A failure is recorded under the lock too: the engine steps aside for that as well."""
    closed.start_engine()
    result, elapsed = timed(closed, huge(closed), ENGINE_OFF)
    assert denied(result) == CLOSED_REASON and elapsed < PROMPT_S
    closed.start_engine()
    result, elapsed = timed(closed, b"{not json", ENGINE_OFF)
    assert denied(result).startswith("STYLE could not evaluate policy (malformed JSON on stdin")
    assert elapsed < PROMPT_S


def test_version_mismatch_is_answered_promptly(closed: Project) -> None:
    closed.start_engine()
    answer, _ = client.request(
        str(closed.style), {"op": "hook", "version": "0.0.1:/elsewhere", "digest": ""}, 5
    )
    assert answer == {"restart": True}
    result, elapsed = timed(closed, bash(closed, "rm -rf build"), ENGINE_ON)
    assert denied(result) == "No recursive deletes."
    assert elapsed < PROMPT_S


def test_an_engine_that_stopped_answering_costs_the_deadline_not_more(open_: Project) -> None:
    """Engine trouble that ends in a direct evaluation that cannot get the database: the hook
    gives up at its deadline (plus the grace to record the failure) and tells the person."""
    pid = int(open_.start_engine()["pid"])  # type: ignore[call-overload]
    os.kill(pid, signal.SIGSTOP)
    try:
        result, elapsed = timed(open_, bash(open_, "ls"), {**ENGINE_ON, "STYLE_DEADLINE_S": "2"})
    finally:
        os.kill(pid, signal.SIGKILL)
        os.kill(pid, signal.SIGCONT)
    assert result.json == {
        "systemMessage": "STYLE could not check this call (the rules database is locked by "
        "another process); it was allowed. Run `style doctor`."
    }
    assert elapsed < 2 + 1 + PROMPT_S
