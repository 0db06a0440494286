"""`--format json` of the commands that report a result: one JSON document on stdout with the
keys their help names, values that say what happened (checked against the files on disk)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.cli import Run, style, style_in_process

Style = Callable[..., Run]
INSTALL_KEYS = {
    "harness",
    "scope",
    "dry_run",
    "ok",
    "packages",
    "self_protection",
    "hook_entries",
    "static",
    "changes",
    "diagnostics",
    "blocked",
    "notes",
}
SETTINGS = ".claude/settings.json"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (tmp_path / "home").mkdir()
    return folder


@pytest.fixture
def run(root: Path) -> Style:
    def call(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> Run:
        return style(*args, cwd=root, home=root.parent / "home", env=env, stdin=stdin)

    return call


@pytest.fixture
def installed(root: Path) -> Path:
    """A project with `style init pkg` installed into Claude Code (set up by the commands' code
    in the test process: the tests run the real command on it)."""
    home = root.parent / "home"
    assert style_in_process(root, home, "init", "pkg").returncode == 0
    assert style_in_process(root, home, "install", "pkg").returncode == 0
    return root


def hooks_in(root: Path) -> int:
    """The handlers STYLE wrote into Claude Code's settings."""
    settings = json.loads((root / SETTINGS).read_text("utf-8"))
    return sum(len(group["hooks"]) for groups in settings["hooks"].values() for group in groups)


def test_init(root: Path, run: Style) -> None:
    doc = run("init", "Team Rules", "--format", "json").json
    assert doc == {
        "package": "team-rules",
        "folder": "Team Rules",
        "created": [
            "Team Rules/STYLE.yaml",
            "Team Rules/rules/example.md",
            "Team Rules/tests/example.yaml",
        ],
    }
    assert all((root / p).is_file() for p in doc["created"])


def test_install_then_again(root: Path, run: Style) -> None:
    assert run("init", "pkg").code == 0
    first = run("install", "pkg", "--format", "json")
    assert first.code == 0 and first.stderr == "", first
    doc = first.json
    assert set(doc) == INSTALL_KEYS
    assert (doc["harness"], doc["scope"], doc["dry_run"], doc["ok"]) == (
        "claude-code",
        "project",
        False,
        True,
    )
    assert doc["packages"] == ["pkg"] and doc["self_protection"] is True
    assert doc["blocked"] == [] and doc["diagnostics"] == []
    [change] = doc["changes"]
    assert (change["path"], change["action"]) == (SETTINGS, "create")
    assert change["diff"].startswith(f"--- /dev/null\n+++ b/{SETTINGS}\n")
    assert (root / SETTINGS).is_file()
    # one hook entry per event and matcher; the config groups them per event
    assert doc["hook_entries"] >= hooks_in(root) > 0
    again = run("install", "pkg", "--format", "json").json
    assert again["ok"] is True and again["changes"] == []
    assert again["hook_entries"] == doc["hook_entries"]


def test_install_dry_run_writes_nothing(root: Path, run: Style) -> None:
    assert run("init", "pkg").code == 0
    doc = run("install", "pkg", "--dry-run", "--format", "json", "--harness", "codex").json
    assert (doc["harness"], doc["dry_run"], doc["ok"]) == ("codex", True, True)
    [change] = doc["changes"]
    assert change["action"] == "create" and change["path"] == ".codex/hooks.json"
    assert '"hooks"' in change["diff"]
    assert not (root / ".codex").exists() and not (root / ".style").exists()


def test_refused_install(root: Path, run: Style) -> None:
    assert run("init", "pkg").code == 0
    manifest = root / "pkg" / "STYLE.yaml"
    manifest.write_text(
        manifest.read_text("utf-8").replace("action: block", "action: explode"), "utf-8"
    )
    refused = run("install", "pkg", "--format", "json")
    assert refused.code == 1 and refused.stderr == ""
    doc = refused.json
    assert set(doc) == INSTALL_KEYS
    assert doc["ok"] is False and doc["changes"] == []
    errors = [d for d in doc["diagnostics"] if d["level"] == "error"]
    assert errors and errors[0]["file"] == "pkg/STYLE.yaml" and errors[0]["line"] == 17
    assert not (root / ".claude").exists() and not (root / ".style").exists()


def test_sync(installed: Path, run: Style) -> None:
    rule = installed / "pkg" / "rules" / "example.md"
    rule.write_text(rule.read_text("utf-8").replace("tests", "checks"), "utf-8")
    sync = run("sync", "--format", "json")
    assert sync.code == 0, sync
    doc = sync.json
    assert set(doc) == {"dry_run", "ok", "harnesses"}
    assert (doc["dry_run"], doc["ok"]) == (False, True)
    [one] = doc["harnesses"]
    assert set(one) == INSTALL_KEYS
    assert (one["harness"], one["scope"], one["packages"]) == ("claude-code", "project", ["pkg"])
    assert one["changes"] == []  # the rule text lives in the database, not in the config
    payload = json.dumps({"hook_event_name": "SessionStart", "source": "startup"})
    answer = run("explain", "--format", "json", stdin=payload).json  # the installed policy
    assert "Run the project's checks" in answer["stdout"]


def test_uninstall(installed: Path, run: Style) -> None:
    dry = run("uninstall", "--dry-run", "--format", "json").json
    assert dry["dry_run"] is True and [c["action"] for c in dry["changes"]] == ["delete"]
    assert (installed / SETTINGS).is_file()
    doc = run("uninstall", "--format", "json").json
    assert doc["harness"] == "claude-code" and doc["dry_run"] is False
    [change] = doc["changes"]
    assert (change["path"], change["action"]) == (SETTINGS, "delete")
    assert change["diff"].endswith("\n") and "+++ /dev/null" in change["diff"]
    assert not (installed / SETTINGS).exists()
    assert run("uninstall", "--format", "json").json["changes"] == []


def test_doctor(installed: Path, run: Style) -> None:
    done = run("doctor", "--no-fire", "--format", "json")
    assert done.code == 0, done
    findings = done.json
    assert findings and all(set(f) == {"level", "harness", "message"} for f in findings)
    assert {f["level"] for f in findings} <= {"ok", "warning"}
    assert any(f["harness"] == "claude-code" and SETTINGS in f["message"] for f in findings)
    (installed / SETTINGS).unlink()
    broken = run("doctor", "--no-fire", "--format", "json")
    assert broken.code == 1
    [error] = [f for f in broken.json if f["level"] == "error"]
    assert error["harness"] == "claude-code" and "missing" in error["message"]


def test_test(installed: Path, run: Style) -> None:
    (installed / "bare").mkdir()
    (installed / "bare" / "STYLE.yaml").write_text(
        "spec: style/v0.3\nname: bare\nversion: 1.0.0\ndescription: d\n"
        "rules:\n  - id: a\n    text: A.\n",
        encoding="utf-8",
    )
    done = run("test", "pkg", "bare", "--format", "json")
    assert done.code == 0, done
    doc = done.json
    assert (doc["passed"], doc["failed"], doc["without_tests"]) == (6, 0, ["bare"])
    assert [c["ok"] for c in doc["cases"]] == [True] * 6
    assert doc["cases"][0] == {
        "file": "pkg/tests/example.yaml",
        "note": "a force push is refused",
        "ok": True,
        "failures": [],
    }


def test_engine_status_start_stop(installed: Path, run: Style) -> None:
    off = run("engine", "status", "--format", "json")
    assert off.code == 1
    assert off.json == {
        "running": False,
        "pid": None,
        "served": None,
        "version": None,
        "digest": None,
    }
    on = {"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "60"}  # it exits by itself if left
    try:
        started = run("engine", "start", "--format", "json", env=on)
        assert started.code == 0, started
        doc = started.json
        assert doc["running"] is True and isinstance(doc["pid"], int) and doc["served"] == 0
        digest = (installed / ".style" / "policy.digest").read_text("utf-8").strip()
        assert doc["digest"] == digest
        assert run("engine", "status", "--format", "json", env=on).json["pid"] == doc["pid"]
    finally:
        stopped = run("engine", "stop", "--format", "json", env=on)
    assert stopped.json == {"stopped": True}
    assert run("engine", "stop", "--format", "json", env=on).json == {"stopped": False}
