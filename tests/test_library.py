"""The rule library (agentstyle/library/, see its README.md) validates clean and passes its
own fixtures, checked the way a user checks a package: `style validate` and `style test`, run
by the command's own code in the test process (`style_in_process`: these tests are about what
the commands find, not their process; the last tests here run `python -m agentstyle`)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import style_in_process, style_process
from tests.support.environment import SCRATCH_HOME

REPO = Path(__file__).resolve().parents[1]
PACKAGES = REPO / "agentstyle" / "library"
LIBRARY = (
    "guard-destructive",
    "guard-databases",
    "guard-secrets",
    "guard-git-identity",
    "guard-one-way-doors",
    "guard-git",
    "guard-cloud",
    "guard-remote-storage",
    "guard-containers",
    "guard-kubernetes",
    "guard-infrastructure",
    "rust-unwrap",
    "project-brief",
    "tests-before-stop",
    "observers",
)
# Fewest fixture cases per package: each rule fires and stays silent at least once.
MIN_CASES = 6


def style(*args: str) -> subprocess.CompletedProcess[str]:
    return style_process(REPO, SCRATCH_HOME, *args, timeout=300)


def style_json(*args: str) -> tuple[int, Any]:
    done = style_in_process(REPO, SCRATCH_HOME, *args, "--format", "json")
    try:
        return done.returncode, json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"style {' '.join(args)}: not JSON\n{done.stdout}\n{done.stderr}")


@pytest.mark.parametrize("name", LIBRARY)
def test_validates_clean(name: str) -> None:
    code, diagnostics = style_json("validate", "--strict", str(PACKAGES / name))
    assert diagnostics == [], json.dumps(diagnostics, indent=1)  # no error, no warning
    assert code == 0


@pytest.mark.parametrize("name", LIBRARY)
def test_fixtures_pass(name: str) -> None:
    code, report = style_json("test", str(PACKAGES / name))
    failures = [
        f"{c['file']}: {c['note']}: {'; '.join(c['failures'])}"
        for c in report["cases"]
        if not c["ok"]
    ]
    assert code == 0 and not failures, "\n".join(failures)
    assert report["without_tests"] == []
    assert report["passed"] >= MIN_CASES


@pytest.mark.parametrize("name", LIBRARY)
def test_every_rule_fires_and_stays_silent_in_its_fixtures(name: str) -> None:
    """Each rule is named in some case's `fires` and in some case's `silent`."""
    import yaml

    rules = _rule_ids(PACKAGES / name / "STYLE.yaml")
    fires: set[str] = set()
    silent: set[str] = set()
    for path in sorted((PACKAGES / name / "tests").glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]:
            expect = case.get("expect") or {}
            fires.update(expect.get("fires") or [])
            silent.update(expect.get("silent") or [])
    assert rules <= fires, f"never expected to fire: {sorted(rules - fires)}"
    assert rules <= silent, f"never expected to stay silent: {sorted(rules - silent)}"


def _rule_ids(style_yaml: Path) -> set[str]:
    import yaml

    doc = yaml.safe_load(style_yaml.read_text(encoding="utf-8"))
    return {str(rule["id"]) for rule in doc["rules"] if "id" in rule}


def test_library_together() -> None:
    """All library packages install side by side: no id clashes, no cross-package errors.

    (Their fixtures are test_fixtures_pass's: `style test` runs each package on its own, so
    all of them in one run would repeat those cases.)"""
    done = style("validate", "--strict", *(str(PACKAGES / n) for n in LIBRARY))
    assert done.returncode == 0, done.stdout + done.stderr


def test_readme_lists_every_package() -> None:
    readme = (PACKAGES / "README.md").read_text(encoding="utf-8")
    for name in LIBRARY:
        assert f"`{name}`" in readme, name


# The events a package's rule needs in the session's history before the event of the case.
HISTORY: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "tests-before-stop": [
        (
            "PostToolUse",
            {
                "tool_name": "Write",
                "tool_use_id": "t1",
                "tool_input": {"file_path": "src/lib.rs", "content": "pub fn f() {}"},
                "tool_response": {},
            },
        )
    ],
}


@pytest.mark.parametrize(
    ("name", "setting", "value", "event", "payload"),
    [
        (
            "guard-destructive",
            "protected_branches",
            "main|trunk",
            "PreToolUse",
            {"tool_name": "Bash", "tool_input": {"command": "git push -f origin main"}},
        ),
        (
            "guard-git-identity",
            "forbidden_email",
            "old@laptop.example",  # the conditions read it too: this address is refused
            "PreToolUse",
            {
                "tool_name": "Bash",
                "tool_input": {"command": "git config user.email Old@Laptop.example"},
            },
        ),
        (
            "project-brief",
            "brief",
            "acme-api: Rust 1.83 workspace; never edit generated/.",
            "SessionStart",
            {"source": "startup"},
        ),
        (
            "tests-before-stop",
            "test_command",
            "cargo test --workspace",
            "Stop",
            {"last_assistant_message": "Done.", "stop_hook_active": False},
        ),
    ],
)
def test_settings_are_rendered_at_install(
    name: str, setting: str, value: str, event: str, payload: dict[str, Any]
) -> None:
    """A value chosen at install (`--set`) is what the rule's text says at run time."""
    from agentstyle.evaluator.evaluate import evaluate
    from agentstyle.evaluator.store import memory_store, replace_policy
    from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE_CODE
    from agentstyle.policy.compile import compile_policy, load_and_validate

    compiled = compile_policy(
        load_and_validate([str(PACKAGES / name)]), ["claude-code"], {name: {setting: value}}
    )
    assert compiled.ok
    conn = memory_store()
    try:
        replace_policy(conn, compiled.rows)
        conn.execute("BEGIN TRANSACTION")
        for before, given in HISTORY.get(name, []):  # what the session did before the event
            full = {"session_id": "s", "cwd": str(REPO), "hook_event_name": before, **given}
            evaluate(conn, [CLAUDE_CODE.normalize(full, before)])
        full = {"session_id": "s", "cwd": str(REPO), "hook_event_name": event, **payload}
        [evaluation] = evaluate(conn, [CLAUDE_CODE.normalize(full, event)])
        conn.execute("ROLLBACK")
    finally:
        conn.close()
    decision = evaluation.decision
    said = "\n".join([*decision.reasons, *decision.contexts, *decision.messages])
    assert value in said


def test_commands_take_a_bundled_package_by_name(tmp_path: Path) -> None:
    """validate, plan, test and replay read `guard-destructive` as the bundled package."""
    for args in (
        ("validate", "--strict", "guard-destructive"),
        ("plan", "guard-destructive", "--harness", "codex"),
        ("test", "project-brief"),
    ):
        proc = style_process(tmp_path, None, *args)
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
