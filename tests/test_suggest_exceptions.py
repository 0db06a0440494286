"""`style suggest` on a rule of a bundled package: an `exceptions:` entry in the project's own
package (or a new one), never an edit of the bundled file (docs/audit.md#suggest-kinds).

The history is made by real hook subprocesses: a bundled guard refuses a call, the person lets
it through with `style allow`, twice. The proposal's copy (`--write`) is installed into a second
project beside the same bundled guard, whose hooks are run again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

from agentstyle.install.library import LIBRARY
from tests.support.cli import style_in_process
from tests.support.hooks import bash_call
from tests.support.packages import package_text
from tests.support.project import Project

TEAM = package_text(
    "team",
    """
- id: brief
  target: system
  text: Keep the build cache under /opt/build-cache.
""",
    head="""
description: the team's own rules
""",
)
CACHE = "rm -rf /opt/build-cache/x"
RULE = "guard-destructive/rm-outside-project"


def _decision(p: Project, sid: str, command: str, call: str) -> str | None:
    answer = p.hook("PreToolUse", bash_call(p.root, sid, command, call)).json or {}
    decision = (answer.get("hookSpecificOutput") or {}).get("permissionDecision")
    return str(decision) if decision is not None else None


def _let_through_twice(p: Project) -> None:
    for sid in ("s-one", "s-two"):
        assert _decision(p, sid, CACHE, f"{sid}-1") == "deny"
        done = style_in_process(p.root, p.home, "allow", "--last")
        assert done.returncode == 0, done.stderr
        assert _decision(p, sid, CACHE, f"{sid}-2") != "deny"


def _suggest(p: Project, *args: str) -> dict[str, Any]:
    done = style_in_process(p.root, p.home, "suggest", "--format", "json", *args)
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(folder.rglob("*")):
        if f.is_file() and "__pycache__" not in f.parts:
            h.update(f.relative_to(folder).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def test_a_bundled_rule_gets_an_exception_in_the_projects_own_package(tmp_path: Path) -> None:
    p = Project(tmp_path / "proj", tmp_path / "home")
    team = p.write_package(TEAM, "team")
    p.install("guard-destructive", str(team), "--harness", "claude-code")
    bundled = _digest(LIBRARY / "guard-destructive")
    _let_through_twice(p)
    doc = _suggest(p)
    [proposal] = [x for x in doc["proposals"] if x["rule"] == RULE]
    assert (proposal["kind"], proposal["package"], proposal["edits"]) == (
        "narrow",
        "guard-destructive",
        "team",
    )
    # the bundled guard is `fail: closed`: a broken STYLE refuses, the team's exception stands
    assert proposal["condition"] == f'tool.input.command == "{CACHE}"'
    assert proposal["diff"].startswith("--- a/STYLE.yaml\n+++ b/STYLE.yaml\n")
    assert f"+  - rule: {RULE}\n" in proposal["diff"]
    assert proposal["backtest"]["changes"] == {"block->none": 4}
    assert proposal["backtest"]["outcomes"] == {"blocked->excepted": 4}
    # nothing applied, and never the bundled file
    assert _digest(LIBRARY / "guard-destructive") == bundled
    assert "exceptions" not in (team / "STYLE.yaml").read_text("utf-8")

    out = tmp_path / "review"
    done = style_in_process(p.root, p.home, "suggest", "--write", str(out))
    assert done.returncode == 0, done.stderr
    written = yaml.safe_load((out / "team" / "STYLE.yaml").read_text("utf-8"))
    assert written["exceptions"] == [
        {
            "rule": RULE,
            "unless": f'tool.input.command == "{CACHE}"',
            "reason": "The user let through with `style allow` 2 time(s) (style suggest).",
        }
    ]
    other = Project(tmp_path / "other", tmp_path / "other-home")
    other.install("guard-destructive", str(out / "team"), "--harness", "claude-code")
    want = {
        CACHE: None,
        f"{CACHE} && rm -rf /": "deny",
        "rm -rf /opt/build-cache/y": "deny",  # only the call seen
    }
    got = {c: _decision(other, "s-new", c, f"t{i}") for i, c in enumerate(want)}
    assert got == want
    plan = style_in_process(
        other.root, other.home, "plan", "guard-destructive", str(out / "team")
    ).stdout
    assert "    excepted by team: The user let through with `style allow` 2 time(s)" in plan


def test_without_a_package_of_its_own_the_project_gets_a_new_one(tmp_path: Path) -> None:
    p = Project(tmp_path / "proj", tmp_path / "home")
    p.install("guard-destructive", "--harness", "claude-code")
    _let_through_twice(p)
    doc = _suggest(p)
    [proposal] = [x for x in doc["proposals"] if x["rule"] == RULE]
    assert proposal["edits"] == "proj"
    assert proposal["diff"].startswith("--- /dev/null\n+++ b/STYLE.yaml\n")
    assert proposal["backtest"]["changes"] == {"block->none": 4}
    [note] = [n for n in doc["notes"] if "no package of its own" in n]
    assert f"style install {p.root}" in note
    assert not (p.root / "STYLE.yaml").exists()  # proposed, not written
    out = tmp_path / "review"
    done = style_in_process(p.root, p.home, "suggest", "--write", str(out))
    assert done.returncode == 0, done.stderr
    assert f"wrote {out / 'proj'} (proposal(s) 1)" in done.stdout
    other = Project(tmp_path / "other", tmp_path / "other-home")
    other.install("guard-destructive", str(out / "proj"), "--harness", "claude-code")
    assert _decision(other, "s-new", CACHE, "t1") is None
    assert _decision(other, "s-new", "rm -rf /opt/elsewhere", "t2") == "deny"
