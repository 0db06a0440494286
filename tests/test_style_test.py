"""`style test`: the bundled packages' fixtures pass; a wrong expectation fails loudly, per case."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

from agentstyle.evaluator.packagetests import fixture_files, run_package_tests
from tests.support.cli import style_process
from tests.support.packages import package_text

REPO = Path(__file__).resolve().parent.parent
PACKAGES = REPO / "datasets" / "packages"


def style(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = style_process(cwd, None, *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_bundled_fixtures_pass(tmp_path: Path) -> None:
    packages = [str(PACKAGES / "ac-block"), str(PACKAGES / "ac-all")]
    proc = style(tmp_path, "test", *packages, "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["failed"] == 0
    files = {Path(c["file"]).parent.parent.name for c in doc["cases"]}
    assert files == {"ac-block", "ac-all"}
    assert doc["passed"] == len(doc["cases"]) >= 10


def test_a_failing_expectation_exits_1_with_a_report_per_case(tmp_path: Path) -> None:
    pkg = tmp_path / "ac-block"
    shutil.copytree(PACKAGES / "ac-block", pkg)
    (pkg / "tests" / "wrong.yaml").write_text(
        textwrap.dedent(
            """\
            cases:
              - note: rm -rf / wrongly expected to pass
                payload_file: payloads/rm-rf-root.json
                expect:
                  verdict: none
                  fires: [shell-tips]
                  exit: 0
              - note: a typo in an expectation
                event: PreToolUse
                payload: {tool_name: Bash, tool_input: {command: ls}}
                expect: {verdit: none}
              - note: a right one still passes
                event: PreToolUse
                payload: {tool_name: Bash, tool_input: {command: ls}}
                expect: {verdict: none, fires: [shell-tips]}
            """
        ),
        encoding="utf-8",
    )
    proc = style(pkg, "test")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    at = lines.index("FAIL  tests/wrong.yaml: rm -rf / wrongly expected to pass")
    assert lines[at + 1 : at + 3] == [
        "        verdict: expected none, got block",
        "        expected `shell-tips` to fire (fired: ac-block/no-rm, ac-block/no-root)",
    ]
    assert "FAIL  tests/wrong.yaml: a typo in an expectation" in lines
    assert any("malformed case: unknown expectation `verdit`" in line for line in lines)
    assert "ok    tests/wrong.yaml: a right one still passes" in lines
    passed = [line for line in lines if line.startswith("ok    ")]
    assert sum(line.startswith("ok    tests/precedence.yaml: ") for line in passed) == 6
    assert lines[-1] == f"{len(passed)} passed, 2 failed"


def test_settings_in_a_test_file_and_single_file_fixtures(tmp_path: Path) -> None:
    pkg = tmp_path / "team"
    (pkg / "tests").mkdir(parents=True)
    (pkg / "STYLE.yaml").write_text(
        textwrap.dedent(
            package_text(
                "team",
                """
- id: owner
  target: event
  event: prompt.submitted
  text: "Ask {{settings.owner}} before changing the API."
""",
                description="a setting rendered into a rule",
                version="0.1.0",
                head="""
settings:
  - {name: owner, description: who owns the code}
""",
            )
        ),
        encoding="utf-8",
    )
    (pkg / "tests" / "owner.yaml").write_text(
        textwrap.dedent(
            """\
            settings: {owner: platform-team}
            cases:
              - event: UserPromptSubmit
                payload: {prompt: hi}
                expect: {fires: [owner], output_contains: Ask platform-team before}
            """
        ),
        encoding="utf-8",
    )
    [result] = run_package_tests(str(pkg))
    assert result.ok, result.failures
    assert result.note == "case 1"

    single = tmp_path / "solo.md"
    single.write_text("---\nspec: style/v0.3\nname: solo\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "solo.yaml").write_text("cases: []\n", encoding="utf-8")
    (tmp_path / "tests" / "other.yaml").write_text("cases: []\n", encoding="utf-8")
    assert fixture_files(str(single)) == [tmp_path / "tests" / "solo.yaml"]
