"""Where an exception took effect, `audit` says so, with its reason (docs/packages.md#exceptions):
real hook subprocesses record the events, `style audit rules` reads them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import style_in_process
from tests.support.hooks import bash_call
from tests.support.project import Project

TEAM = """
spec: style/v0.3
name: team
version: 1.0.0
description: the team's exceptions
exceptions:
  - rule: guard-destructive/rm-outside-project
    unless: 'command "rm" where (path glob "/opt/build-cache/**")'
    reason: The build cache is ours to clear.
"""
RULE = "guard-destructive/rm-outside-project"


def _decision(p: Project, command: str, call: str) -> str | None:
    answer = p.hook("PreToolUse", bash_call(p.root, "s1", command, call)).json or {}
    return (answer.get("hookSpecificOutput") or {}).get("permissionDecision")


def test_audit_counts_the_events_an_exception_took_out(tmp_path: Path) -> None:
    p = Project(tmp_path / "proj", tmp_path / "home")
    p.install("guard-destructive", str(p.write_package(TEAM, "team")), "--harness", "claude-code")
    assert _decision(p, "rm -rf /opt/build-cache/x", "t1") is None
    assert _decision(p, "rm -rf /opt/build-cache/y", "t2") is None
    # per simple command: the second is still refused, and the rule fired on that event
    assert _decision(p, "rm -rf /opt/build-cache/x && rm -rf /srv/data", "t3") == "deny"
    done = style_in_process(p.root, p.home, "audit", "rules", "--format", "json")
    assert done.returncode == 0, done.stderr
    rows = {r["rule"]: r for r in json.loads(done.stdout)["rows"]}
    row = rows[RULE]
    assert (row["fired"], row["blocked"], row["excepted"]) == (1, 1, 2)
    assert row["exceptions"] == "team: The build cache is ours to clear."
    text = style_in_process(p.root, p.home, "audit", "rules").stdout
    assert "EXCEPTED" in text and "team: The build cache is ours to clear." in text
