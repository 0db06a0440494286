"""Layered policies evaluated as one (docs/harnesses/index.md#layers): with a user and a project
install side by side, both STYLE handlers fire for one event, and the event is evaluated once,
recorded once and answered once (the second handler repeats a refusal and adds nothing else:
docs/design/runtime.md#answered-once); each rule's layer is shown by explain, audit and replay;
a change to the user's policy reaches the project's database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.layers import Machine
from tests.support.packages import no_rm, package_text

PROMPT = "UserPromptSubmit.json"
RM = "PreToolUse.bash-rm-rf.json"

MINE = package_text(
    "mine",
    """
- id: personal-note
  target: event
  event: prompt.submitted
  when: 'prompt contains "tests"'
  text: "USER: I like small commits."
""",
    no_rm("USER no-rm: I never delete from an agent."),
    description="the user's own rules",
)

TEAM = package_text(
    "team",
    """
- id: brief
  target: event
  event: prompt.submitted
  when: 'prompt contains "tests"'
  text: "PROJECT: cargo test --all."
""",
    head="""
description: the project's rules
""",
)


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    m = Machine(tmp_path)
    m.install_user(m.package("mine", MINE))
    m.install_project(m.package("team", TEAM))
    return m


def _both(machine: Machine, event: str) -> list[str]:
    commands = machine.commands(machine.user_settings, event)
    commands += machine.commands(machine.project_settings, event)
    assert len(commands) == 2, commands  # one STYLE handler in each settings file
    return commands


def test_a_user_and_a_project_install_answer_an_inject_once(machine: Machine) -> None:
    answers = machine.run_together(_both(machine, "UserPromptSubmit"), machine.payload(PROMPT))
    contexts = [a.context for a in answers if a.stdout.strip()]
    # one handler carries the one evaluation's whole context, the other says nothing
    assert len(contexts) == 1, [a.stdout for a in answers]
    [context] = contexts
    assert context is not None
    assert "USER: I like small commits." in context and "PROJECT: cargo test --all." in context
    assert all(a.code == 0 for a in answers)
    assert machine.project.scalar("SELECT count(*) FROM events") == 1
    assert machine.project.scalar("SELECT count(*) FROM hits WHERE outcome = 'emitted'") == 2


def test_a_refusal_is_repeated_by_the_second_handler_and_recorded_once(machine: Machine) -> None:
    answers = machine.run_together(_both(machine, "PreToolUse"), machine.payload(RM))
    for answer in answers:
        data = json.loads(answer.stdout)
        assert data["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert "USER no-rm" in data["hookSpecificOutput"]["permissionDecisionReason"]
    assert machine.project.scalar("SELECT count(*) FROM events") == 1
    assert machine.project.query("SELECT verdict FROM answered") == [("block",)]


def test_a_second_event_with_its_own_call_id_is_evaluated_again(machine: Machine) -> None:
    [user, _project] = _both(machine, "PreToolUse")
    machine.run_together([user], machine.payload(RM))
    machine.run_together([user], machine.payload(RM, tool_use_id="toolu_other"))
    assert machine.project.scalar("SELECT count(*) FROM events") == 2


def test_the_projects_database_holds_every_layer_and_the_configs_their_own(
    machine: Machine,
) -> None:
    rows = machine.project.query(
        "SELECT rule_id, layer FROM rules WHERE package <> 'style' ORDER BY rule_id"
    )
    assert rows == [
        ("mine/no-rm", "user"),
        ("mine/personal-note", "user"),
        ("team/brief", "project"),
    ]
    # the user's rules are evaluated in the project, but the committed config has no handler
    # for them: the user's own config runs them
    assert machine.commands(machine.user_settings, "PreToolUse")
    project_pre = machine.commands(machine.project_settings, "PreToolUse")
    settings = json.loads(machine.project_settings.read_text("utf-8"))
    assert "mine" not in json.dumps(settings)
    assert project_pre  # self-protection's gate
    assert (machine.project.style / "answer-once").is_file()


def test_a_change_to_the_user_policy_rebuilds_the_project_database(machine: Machine) -> None:
    stricter = MINE.replace('"^rm "', '"^(rm|shred) "').replace("I never delete", "I never shred")
    machine.install_user(machine.package("mine", stricter))
    [user, _] = _both(machine, "PreToolUse")
    [answer] = machine.run_together(
        [user], machine.payload(RM, tool_input={"command": "shred notes.txt"})
    )
    data = json.loads(answer.stdout)
    assert "I never shred" in data["hookSpecificOutput"]["permissionDecisionReason"]


def test_explain_audit_and_replay_name_the_layer(machine: Machine, tmp_path: Path) -> None:
    payload = tmp_path / "rm.json"
    payload.write_bytes(machine.payload(RM))
    explained = machine.style("explain", "--payload", str(payload))
    [line] = [x for x in explained.stdout.splitlines() if '"mine/no-rm@tool.pre"' in x]
    assert " layer=user " in line
    [own] = [x for x in explained.stdout.splitlines() if "style/self-protect/state@" in x]
    assert "layer=" not in own  # the project's own rules say nothing: the common case
    machine.run_together(_both(machine, "PreToolUse"), machine.payload(RM))
    report = json.loads(machine.style("audit", "rules", "--format", "json").stdout)
    layers = {row["rule"]: row["layer"] for row in report["rows"]}
    assert layers["mine/no-rm"] == "user" and layers["team/brief"] == "project"
    source = tmp_path / "events.jsonl"
    source.write_text(json.dumps(json.loads(machine.payload(RM))) + "\n", encoding="utf-8")
    replayed = machine.style("replay", str(source), "--format", "json")
    doc = json.loads(replayed.stdout)
    rows = doc["rules"]["rows"] if isinstance(doc.get("rules"), dict) else doc["rules"]
    replay_layers = {row["rule"]: row["layer"] for row in rows}
    assert replay_layers["mine/no-rm"] == "user"
    blocked = {row["rule"]: row["blocked"] for row in rows}
    assert blocked["mine/no-rm"] == 1


def test_without_other_layers_nothing_is_looked_up(tmp_path: Path) -> None:
    alone = Machine(tmp_path)
    alone.install_project(alone.package("team", TEAM))
    assert not (alone.project.style / "answer-once").exists()
    [command] = alone.commands(alone.project_settings, "UserPromptSubmit")
    [answer] = alone.run_together([command], alone.payload(PROMPT))
    assert answer.context == "PROJECT: cargo test --all."
    assert alone.project.scalar("SELECT count(*) FROM answered") == 0
    assert alone.project.scalar("SELECT count(DISTINCT layer) FROM rules") == 1


def test_a_refusal_the_first_handler_kept_stands_though_it_died(machine: Machine) -> None:
    """The first handler committed its verdict and died before printing: the second, for the
    same call, refuses with its reasons, evaluates nothing and records nothing."""
    payload = json.loads(machine.payload(RM, tool_input={"command": "ls"}, tool_use_id="toolu_x"))
    identity = "\0".join(("claude-code", payload["session_id"], "PreToolUse", "toolu_x"))
    machine.project.execute(
        "INSERT INTO answered VALUES (?, 41, 'block', ['FIRST: refused'], now()::TIMESTAMP)",
        [identity],
    )
    [_user, project] = _both(machine, "PreToolUse")
    [answer] = machine.run_together([project], json.dumps(payload).encode())
    data = json.loads(answer.stdout)
    assert data["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert data["hookSpecificOutput"]["permissionDecisionReason"] == "FIRST: refused"
    assert machine.project.scalar("SELECT count(*) FROM events") == 0
    # a kept "no opinion" is not given twice either: the second says nothing
    machine.project.execute("UPDATE answered SET verdict = NULL, reasons = []")
    [quiet] = machine.run_together([project], json.dumps(payload).encode())
    assert quiet.stdout.strip() == "" and quiet.code == 0
    assert machine.project.scalar("SELECT count(*) FROM events") == 0


def test_answered_once_through_the_resident_engine(machine: Machine) -> None:
    with machine.project.engine() as engine_env:
        answers = machine.run_together(
            _both(machine, "UserPromptSubmit"), machine.payload(PROMPT), **engine_env
        )
    contexts = [a.context for a in answers if a.stdout.strip()]
    assert len(contexts) == 1, [a.stdout for a in answers]
    assert contexts[0] is not None and "USER: I like small commits." in contexts[0]
    assert machine.project.scalar("SELECT count(*) FROM events") == 1


def test_the_answer_once_marker_keeps_another_installers_reason(tmp_path: Path) -> None:
    from agentstyle.folders import mark_answer_once

    marker = tmp_path / "answer-once"
    mark_answer_once(tmp_path, "plugin", True)  # a plugin beside a settings install
    mark_answer_once(tmp_path, "layers", True)
    assert marker.read_text("utf-8").split() == ["plugin", "layers"]
    mark_answer_once(tmp_path, "layers", False)  # the user's policy went: the plugin's stays
    assert marker.read_text("utf-8").split() == ["plugin"]
    mark_answer_once(tmp_path, "plugin", False)
    assert not marker.exists()
