"""The organisation's layer (`style install --scope managed`): its rule refuses in every
project of the machine, and nothing a project or a user does switches it off: not a package of
the same name with `mode: replace`, not `style allow`, not an allow rule, not
`STYLE_ENGINE=off`, not `style uninstall`; self-protection guards its files.
docs/harnesses/index.md#layers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentstyle.harnesses.install import is_style_command
from tests.support.layers import ORG, Machine
from tests.support.packages import package_text, shell_rule

RM = "PreToolUse.bash-rm-rf.json"

# A project package of the organisation's name, its rule of the same id letting deletes through.
IMPOSTOR = package_text(
    "org",
    shell_rule("no-rm", "^rm ", "deletes are fine here", action="allow", mode="replace"),
    version="2.0.0",
    head="""
description: a project's copy that tries to stand in for the organisation's
""",
)

# A project package of its own name that allows deletes outright.
ALLOWER = package_text(
    "lenient",
    """
- id: rm-ok
  target: tool
  tool: shell
  action: allow
  when: 'tool.input.command shell_regex "^rm "'
  text: "deletes are pre-approved"
- id: note
  target: event
  event: prompt.submitted
  when: 'prompt contains "tests"'
  text: "PROJECT: run the tests."
""",
    description="allows what it can",
)


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    m = Machine(tmp_path)
    m.install_managed(m.package("org", ORG))
    return m


def _denied(result_stdout: str) -> str:
    data = json.loads(result_stdout)
    out = data["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", data
    return str(out["permissionDecisionReason"])


def test_managed_install_writes_the_system_config_and_the_policy_folder(machine: Machine) -> None:
    commands = machine.commands(machine.managed_settings, "PreToolUse")
    assert commands and all(is_style_command(c) for c in commands)
    assert (machine.managed / "style.lock.yaml").is_file()
    assert "scope: managed" in (machine.managed / "style.lock.yaml").read_text("utf-8")
    # nothing of the user's or a project's was written
    assert not machine.user_settings.exists()
    assert not machine.project_settings.exists()


def test_a_project_package_of_the_same_name_with_mode_replace_does_not_replace_it(
    machine: Machine,
) -> None:
    done = machine.install_project(machine.package("impostor", IMPOSTOR))
    assert "package `org` of the project policy is not used" in done.stderr
    rules = machine.project.query("SELECT rule_id, action, layer FROM rules WHERE package = 'org'")
    assert rules == [("org/no-rm", "block", "managed")]
    [answer] = machine.run_together(
        machine.commands(machine.managed_settings, "PreToolUse"), machine.payload(RM)
    )
    assert "ORG no-rm" in _denied(answer.stdout)


def test_an_allow_rule_of_the_project_does_not_let_the_managed_rule_through(
    machine: Machine,
) -> None:
    machine.install_project(machine.package("lenient", ALLOWER))
    # the project's and the managed handler both fire for the call, as the client runs them
    commands = machine.commands(machine.managed_settings, "PreToolUse")
    commands += machine.commands(machine.project_settings, "PreToolUse")
    assert len(commands) == 2
    answers = machine.run_together(commands, machine.payload(RM), STYLE_ENGINE="off")
    for answer in answers:
        assert "ORG no-rm" in _denied(answer.stdout)
    outcomes = machine.project.query("SELECT rule_id, outcome FROM hits ORDER BY rule_id")
    assert ("org/no-rm", "blocked") in outcomes
    assert ("lenient/rm-ok", "block-suppressed") in outcomes
    assert machine.project.scalar("SELECT count(*) FROM events") == 1


def test_style_allow_cannot_lift_a_managed_refusal(machine: Machine) -> None:
    machine.install_project(machine.package("lenient", ALLOWER))
    [answer] = machine.run_together(
        machine.commands(machine.managed_settings, "PreToolUse"), machine.payload(RM)
    )
    _denied(answer.stdout)
    # as a process of its own: the refusal is its exit code and one line, no traceback
    refused = machine.style("allow", "--last", check=False, process=True)
    assert refused.returncode == 1
    assert "a rule of the organisation's managed policy" in refused.stderr
    assert "Traceback" not in refused.stderr
    [event_id] = [r[0] for r in machine.project.query("SELECT event_id FROM events")]
    by_id = machine.style("allow", str(event_id), check=False)
    assert by_id.returncode == 1 and "`org/no-rm`" in by_id.stderr
    assert machine.project.scalar("SELECT count(*) FROM allowances") == 0
    # an allowance written by other means still does not lift it
    machine.project.execute(
        "INSERT INTO allowances BY NAME SELECT 9 AS allowance_id, now()::TIMESTAMP AS created, "
        "'claude-code' AS harness, session_id, event_id, ['org/no-rm'] AS rule_ids, "
        "native_tool, (SELECT value FROM event_fields WHERE field = 'style.call_key' LIMIT 1) "
        "AS call_key, 'session' AS scope FROM events LIMIT 1"
    )
    [again] = machine.run_together(
        machine.commands(machine.managed_settings, "PreToolUse"),
        machine.payload(RM, tool_use_id="toolu_again"),
    )
    assert "ORG no-rm" in _denied(again.stdout)
    assert machine.project.scalar("SELECT count(*) FROM allowance_uses") == 0


SHRED = package_text(
    "careful",
    shell_rule("no-shred", "^shred ", "PROJECT no-shred"),
    description="the project's own block",
)


def test_the_same_allowance_lifts_a_project_rule(machine: Machine) -> None:
    """The control of the test above: an allowance written the same way for a rule of the
    project's own layer lets the same call through."""
    machine.install_project(machine.package("careful", SHRED))
    shred = {"command": "shred notes.txt"}
    commands = machine.commands(machine.project_settings, "PreToolUse")
    [first] = machine.run_together(commands, machine.payload(RM, tool_input=shred))
    assert "PROJECT no-shred" in _denied(first.stdout)
    machine.project.execute(
        "INSERT INTO allowances BY NAME SELECT 9 AS allowance_id, now()::TIMESTAMP AS created, "
        "'claude-code' AS harness, session_id, event_id, ['careful/no-shred'] AS rule_ids, "
        "native_tool, (SELECT value FROM event_fields WHERE field = 'style.call_key' LIMIT 1) "
        "AS call_key, 'session' AS scope FROM events LIMIT 1"
    )
    [again] = machine.run_together(
        commands, machine.payload(RM, tool_input=shred, tool_use_id="toolu_again")
    )
    assert "deny" not in again.stdout
    assert machine.project.scalar("SELECT count(*) FROM allowance_uses") == 1


def test_the_managed_rule_refuses_with_the_engine_off_and_without_any_project(
    machine: Machine,
) -> None:
    # no project install at all: the managed handler builds the user's database from the
    # organisation's policy on first use and refuses
    [answer] = machine.run_together(
        machine.commands(machine.managed_settings, "PreToolUse"),
        machine.payload(RM),
        STYLE_ENGINE="off",
    )
    assert "ORG no-rm" in _denied(answer.stdout)
    assert (machine.home / ".style" / "style.duckdb").is_file()


def test_uninstall_in_the_project_leaves_the_managed_hooks_and_rule(machine: Machine) -> None:
    machine.install_project(machine.package("lenient", ALLOWER))
    before = machine.managed_settings.read_text("utf-8")
    machine.style("uninstall")
    assert machine.managed_settings.read_text("utf-8") == before
    assert not machine.commands(machine.project_settings, "PreToolUse")
    [answer] = machine.run_together(
        machine.commands(machine.managed_settings, "PreToolUse"), machine.payload(RM)
    )
    assert "ORG no-rm" in _denied(answer.stdout)
    # a user install's uninstall does not touch them either
    machine.install_user(machine.package("lenient", ALLOWER))
    machine.style("uninstall", "--scope", "user", cwd=machine.home)
    assert machine.managed_settings.read_text("utf-8") == before


def test_a_change_to_the_managed_policy_reaches_the_project_database(machine: Machine) -> None:
    machine.install_project(machine.package("lenient", ALLOWER))
    stricter = ORG.replace('"^rm "', '"^(rm|shred) "').replace("deletes.", "deletes and shreds.")
    machine.install_managed(machine.package("org", stricter))
    [answer] = machine.run_together(
        machine.commands(machine.managed_settings, "PreToolUse"),
        machine.payload(RM, tool_input={"command": "shred secrets.txt"}),
    )
    assert "deletes and shreds" in _denied(answer.stdout)


def test_self_protection_guards_the_managed_files(machine: Machine) -> None:
    machine.install_project(machine.package("lenient", ALLOWER))
    commands = machine.commands(machine.project_settings, "PreToolUse")
    for command in (
        f"rm {machine.managed}/style.lock.yaml",
        f"echo '{{}}' > {machine.managed_settings}",
    ):
        [answer] = machine.run_together(
            commands, machine.payload(RM, tool_input={"command": command}, tool_use_id=command)
        )
        reason = _denied(answer.stdout)
        assert "STYLE" in reason, reason


def test_doctor_shows_the_layers_in_force(machine: Machine) -> None:
    machine.install_user(machine.package("mine", ALLOWER.replace("name: lenient", "name: mine")))
    machine.install_project(machine.package("lenient", ALLOWER))
    report = machine.style("doctor", "--no-fire", check=False)
    lines = [line for line in report.stdout.splitlines() if line.startswith("ok: layers: ")]
    assert any(f"managed policy {machine.managed}/style.lock.yaml: org" in x for x in lines)
    assert any(f"user policy {machine.home}/style.lock.yaml: mine" in x for x in lines)
    assert any("project policy" in x and ": lenient;" in x for x in lines)
    assert any(
        "1 managed" in x and "2 user" in x and "each event answered once" in x for x in lines
    )
