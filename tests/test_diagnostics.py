"""Every diagnostic code has a fixture package that triggers it, checked as rendered lines.

The fixtures live in `tests/diagnostics/<code>/<case>/` (or `<case>.md` for a single-file
package); `tests/diagnostics/expected.yaml` holds, for each one, the exact lines
`style validate` prints (`path:line:col: level code: message`). Near misses that must
validate without a single diagnostic live in `tests/diagnostics/clean/`.

Files that cannot be committed as they are (symbolic links, binary or huge files, CRLF line
ends) are made by each entry's `setup` in a copy of the fixture under `tmp_path`.
Regenerate the expectations after a deliberate change with
`UPDATE_GOLDEN=1 pytest tests/test_diagnostics.py`, then read the diff.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from agentstyle.codes import CODES
from agentstyle.diagnostics import Diagnostic, render_text
from agentstyle.policy.compile import compile_policy, load_and_validate
from agentstyle.policy.load import load_package
from agentstyle.policy.validate import validate_package

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "diagnostics"
EXPECTED = FIXTURES / "expected.yaml"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
INSTALL_ONLY = {"setting-missing"}  # checked through compile_policy(require_settings=True)

HEADER = """\
# fixture (a folder or NAME.md under tests/diagnostics) → what `style validate` prints for it.
#   setup:   files made in a copy of the fixture (they cannot be committed as they are)
#            {symlink: LINK, to: TARGET} | {write: PATH, latin1: TEXT} | {write: PATH, size: N}
#            | {crlf: [PATH, ...], bom: true}
#   install: true: diagnostics of `style install` (settings are required)
#   expect:  the exact lines, sorted by file and position; empty for a clean package
# Regenerate with `UPDATE_GOLDEN=1 pytest tests/test_diagnostics.py` and read the diff.
"""


def load_cases() -> dict[str, dict[str, Any]]:
    data = yaml.safe_load(EXPECTED.read_text(encoding="utf-8")) or {}
    assert isinstance(data, dict)
    return data


CASES = load_cases()


def fixture_names() -> list[str]:
    """Every fixture on disk: `<group>/<case>` folders and `<group>/<case>.md` files."""
    names = []
    for group in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        for case in sorted(group.iterdir()):
            if case.is_dir() or case.suffix == ".md":
                names.append(f"{group.name}/{case.name}")
    return names


def apply_setup(base: Path, steps: list[dict[str, Any]]) -> None:
    for step in steps:
        if "symlink" in step:
            link = base / step["symlink"]
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(step["to"])
        elif "write" in step:
            path = base / step["write"]
            path.parent.mkdir(parents=True, exist_ok=True)
            if "size" in step:
                path.write_bytes(b"a" * int(step["size"]))
            else:
                path.write_bytes(str(step["latin1"]).encode("latin-1"))
        elif "crlf" in step:
            for rel in step["crlf"]:
                path = base / rel
                raw = path.read_bytes().replace(b"\n", b"\r\n")
                path.write_bytes((b"\xef\xbb\xbf" if step.get("bom") else b"") + raw)
        else:
            raise AssertionError(f"unknown setup step {step}")


def run_fixture(name: str, case: dict[str, Any], tmp_path: Path) -> str:
    """The rendered diagnostics of one fixture, loaded from a copy with stable paths."""
    source = FIXTURES / name
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, symlinks=True)
    else:
        shutil.copyfile(source, target)
    apply_setup(target, case.get("setup") or [])
    cwd = Path.cwd()
    os.chdir(tmp_path)
    try:
        compiled = load_and_validate([name])
        if case.get("install"):
            compiled = compile_policy(compiled, ["claude-code"], require_settings=True)
    finally:
        os.chdir(cwd)
    return render_text(compiled.diagnostics)


def _flow(step: dict[str, Any]) -> str:
    """One setup step as a one-line YAML flow mapping (strings JSON-quoted when needed)."""
    parts = []
    for key, value in step.items():
        if isinstance(value, list):
            shown = "[" + ", ".join(str(v) for v in value) + "]"
        elif isinstance(value, str) and not value.replace("/", "").replace(".", "").isalnum():
            shown = json.dumps(value)
        else:
            shown = str(value).lower() if isinstance(value, bool) else str(value)
        parts.append(f"{key}: {shown}")
    return "{" + ", ".join(parts) + "}"


def write_expected(cases: dict[str, dict[str, Any]]) -> None:
    out = [HEADER]
    for name in sorted(cases):
        case = cases[name]
        out.append(f"\n{name}:\n")
        if case.get("setup"):
            out.append("  setup:\n")
            for step in case["setup"]:
                out.append(f"    - {_flow(step)}\n")
        if case.get("install"):
            out.append("  install: true\n")
        expect = case.get("expect") or ""
        if expect:
            out.append("  expect: |\n")
            out.extend(f"    {line}\n" for line in expect.splitlines())
        else:
            out.append('  expect: ""\n')
    EXPECTED.write_text("".join(out), encoding="utf-8")


@pytest.fixture(scope="session")
def updated() -> dict[str, dict[str, Any]]:
    """Cases rewritten by this run (UPDATE_GOLDEN=1); written once at the end."""
    cases: dict[str, dict[str, Any]] = {}
    yield cases
    if UPDATE and cases:
        merged = {**load_cases(), **cases}
        write_expected(merged)


@pytest.mark.parametrize("name", fixture_names())
def test_fixture_renders_expected_lines(
    name: str, tmp_path: Path, updated: dict[str, dict[str, Any]]
) -> None:
    case = dict(CASES.get(name) or {})
    got = run_fixture(name, case, tmp_path)
    if UPDATE:
        case["expect"] = got
        updated[name] = case
        return
    assert name in CASES, f"{name}: no entry in expected.yaml (run with UPDATE_GOLDEN=1)"
    assert got == (case.get("expect") or ""), name
    assert "Traceback" not in got


def test_expected_lists_only_existing_fixtures() -> None:
    assert sorted(set(CASES) - set(fixture_names())) == []


def test_clean_fixtures_have_no_diagnostic() -> None:
    clean = [n for n in CASES if n.startswith("clean/")]
    assert len(clean) >= 8
    for name in clean:
        assert not CASES[name].get("expect"), f"{name} must validate clean"


@pytest.mark.parametrize("code", list(CODES))
def test_every_code_has_a_fixture(code: str) -> None:
    """A fixture in the code's own folder prints at least one line of that code."""
    cases = {n: c for n, c in CASES.items() if n.split("/", 1)[0] == code}
    assert cases, f"no fixture under tests/diagnostics/{code}/"
    level = CODES[code].level
    for name, case in cases.items():
        assert bool(case.get("install")) == (code in INSTALL_ONLY), name
        lines = (case.get("expect") or "").splitlines()
        assert any(f": {level} {code}: " in line for line in lines), (
            f"{name} does not trigger {code}"
        )


def test_rendered_lines_are_well_formed() -> None:
    """Every expected line has the shape `path:line:col: level code: message` with a real file
    position, and messages follow the house style (lowercase start, no final period)."""
    for name, case in CASES.items():
        for line in (case.get("expect") or "").splitlines():
            where, _, rest = line.partition(": ")
            path, line_no, col = where.rsplit(":", 2)
            assert path.startswith(name.split("/")[0] + "/"), line
            assert int(line_no) >= 1 and int(col) >= 1, line
            level, code_and_message = rest.split(" ", 1)
            code, _, message = code_and_message.partition(": ")
            assert level == CODES[code].level, line
            assert message and not message.endswith("."), line
            assert not message[0].isupper() or message[0] == "`", line


def test_positions_point_at_text(tmp_path: Path) -> None:
    """Each position names a character that is not blank in its (committed) file (a tab
    where the message is about that tab)."""
    for case in CASES.values():
        if case.get("setup"):
            continue
        for line in (case.get("expect") or "").splitlines():
            where = line.split(": ", 1)[0]
            path, line_no, col = where.rsplit(":", 2)
            text = (FIXTURES / path).read_text(encoding="utf-8").split("\n")
            row = text[int(line_no) - 1] if int(line_no) <= len(text) else None
            assert row is not None, line
            if row.strip():
                assert int(col) <= len(row), line
                # A tab is the mistake the tab error points at; any other blank is a miss.
                char = row[int(col) - 1]
                assert not char.isspace() or (char == "\t" and "a tab" in line), line


def test_setting_missing_is_only_an_install_error(tmp_path: Path) -> None:
    """`validate` accepts a setting without default; install without a value does not."""
    name = "setting-missing/basic"
    assert run_fixture(name, {}, tmp_path / "validate") == ""
    got = run_fixture(name, {"install": True}, tmp_path / "install")
    assert "error setting-missing: setting `team` of `pkg` has no default" in got
    given = tmp_path / "given"
    shutil.copytree(FIXTURES / name, given / name)
    cwd = Path.cwd()
    os.chdir(given)
    try:
        compiled = compile_policy(
            load_and_validate([name]),
            ["claude-code"],
            {"pkg": {"team": "platform"}},
            require_settings=True,
        )
    finally:
        os.chdir(cwd)
    assert compiled.diagnostics == []


# -- a package with many problems reports them all --------------------------------------------

TWENTY = """\
spec: style/v0.3
name: twenty
version: 1.0.0
description: twenty problems in one package
author: nobody
settings:
  - name: team
    default: platform
rules:
  - id: Bad Id
    text: An id with spaces.
  - id: dup
    text: First.
  - id: dup
    text: Second.
  - target: system
    text: No id.
  - id: both
    file: prompts/a.md
    text: And text.
  - id: into-rules
    file: rules/x.md
  - id: missing-file
    file: prompts/nope.md
  - id: empty
    text: "  "
  - id: marker
    text: "Keep <!-- style:end --> as it is."
  - id: template
    text: "Hello {{harness.name | upper}}."
  - id: undeclared
    text: "Team {{settings.teem}}."
  - id: no-prefix
    target: tool
    tool: shell
    text: "Ran {{tool.input.command}}."
  - id: sys-block
    action: block
    text: Blocked.
  - id: after-block
    target: tool
    tool: shell
    action: block
    at: after
    text: Blocked after.
  - id: closed-post
    target: tool
    tool: file.write
    fail: closed
    text: Note it.
  - id: refresh-decimal
    refresh: 2.5
    text: Refresh.
  - id: wrong-field
    tool: shell
    text: Shell tips.
  - id: no-tool
    target: tool
    text: Which tool.
  - id: bad-event
    target: event
    event: PreToolUse
    text: Native name.
  - id: bad-condition
    target: tool
    tool: shell
    when: 'tool.input.command matches "x"'
    text: Condition.
"""


def test_twenty_problems_are_all_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "twenty"
    (pkg / "prompts").mkdir(parents=True)
    (pkg / "rules").mkdir()
    (pkg / "prompts" / "a.md").write_text("A body.\n", encoding="utf-8")
    (pkg / "rules" / "x.md").write_text("A rule file.\n", encoding="utf-8")
    (pkg / "STYLE.yaml").write_text(TWENTY, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    diags = load_and_validate(["twenty"]).diagnostics
    codes = [d.code for d in diags]
    assert codes == [
        "invalid-schema",
        "bad-id",
        "dup-id",
        "inline-missing-id",
        "file-and-text",
        "file-into-rules",
        "file-not-found",
        "empty-body",
        "marker-in-body",
        "invalid-template",
        "undeclared-var",
        "event-var-in-template",
        "action-target",
        "block-after",
        "fail-closed-target",
        "refresh-invalid",
        "field-target",
        "tool-missing",
        "unknown-event",
        "invalid-condition",
    ], render_text(diags)
    assert len({(d.span, d.code) for d in diags}) == 20


# -- files the loader must refuse or accept, built on the spot --------------------------------


def test_unreadable_rule_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule file that cannot be read is `file-not-found` at the `from` entry. As root a
    chmod 000 file is still readable, so a directory named like a rule file stands in."""
    pkg = tmp_path / "pkg"
    (pkg / "rules").mkdir(parents=True)
    (pkg / "STYLE.yaml").write_text(
        "spec: style/v0.3\nname: pkg\nversion: 1.0.0\ndescription: d\n"
        "rules:\n  - id: body\n    file: prompts/secret.md\n",
        encoding="utf-8",
    )
    secret = pkg / "prompts" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("Secret.\n", encoding="utf-8")
    secret.chmod(0)
    monkeypatch.chdir(tmp_path)
    try:
        got = render_text(load_and_validate(["pkg"]).diagnostics)
    finally:
        secret.chmod(0o644)
    if os.access(secret, os.R_OK) and os.geteuid() == 0:
        assert got == ""  # root reads it anyway
    else:
        assert got == (
            "pkg/STYLE.yaml:7:11: error file-not-found: cannot read `prompts/secret.md`: "
            "permission denied\n"
        )


def test_rule_file_that_is_a_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "rules" / "odd.md").mkdir(parents=True)
    (pkg / "rules" / "real.md").write_text("Real.\n", encoding="utf-8")
    (pkg / "STYLE.yaml").write_text(
        "spec: style/v0.3\nname: pkg\nversion: 1.0.0\ndescription: d\n"
        "rules:\n  - from: rules/*.md\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    # A directory is not a rule file: the glob lists files only.
    assert render_text(load_and_validate(["pkg"]).diagnostics) == ""


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_symlink_loop_is_not_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "rules").mkdir(parents=True)
    (pkg / "rules" / "loop.md").symlink_to("loop.md")
    (pkg / "STYLE.yaml").write_text(
        "spec: style/v0.3\nname: pkg\nversion: 1.0.0\ndescription: d\n"
        "rules:\n  - from: rules/*.md\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    lines = render_text(load_and_validate(["pkg"]).diagnostics).splitlines()
    assert len(lines) == 1 and "pkg/STYLE.yaml:6:11: error " in lines[0], lines


def test_yaml_alias_bomb_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        levels.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "STYLE.yaml").write_text("\n".join(levels) + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    diags = load_and_validate(["pkg"]).diagnostics
    assert [d.code for d in diags] == ["invalid-package"]
    assert "aliases expand too far" in diags[0].message


def test_single_file_package_positions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A single-file package reports front matter and body errors at their own lines."""
    (tmp_path / "guard.md").write_text(
        "---\nspec: style/v0.3\nname: guard\nversion: 1.0.0\ndescription: d\n"
        "target: tool\ntool: shell\naction: warn\nrepeat: sometimes\n---\n\n"
        "Careful with {{harness.nme}}.\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    assert render_text(load_and_validate(["guard.md"]).diagnostics) == (
        "guard.md:9:9: error invalid-schema: field `repeat` `sometimes` is not one of: "
        "every, turn, session\n"
        "guard.md:12:14: error undeclared-var: unknown variable `{{harness.nme}}`; "
        "did you mean `{{harness.name}}`?\n"
    )


def test_library_entry_points_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`load_package` + `validate_package` give the same lines as `load_and_validate`."""
    name = "invalid-condition/mapping"
    shutil.copytree(FIXTURES / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    loaded = load_package(name)
    assert loaded.package is not None
    diags: list[Diagnostic] = [*loaded.diagnostics, *validate_package(loaded.package).diagnostics]
    from agentstyle.diagnostics import sort_diagnostics

    assert render_text(sort_diagnostics(diags)) == CASES[name]["expect"]


# -- "did you mean": close matches only ----------------------------------------------------


@pytest.mark.parametrize(
    ("word", "candidates", "meant"),
    [
        ("acton", ["target", "action", "at"], "action"),
        ("actoin", ["action"], "action"),  # two letters swapped: one edit
        ("Action", ["action"], "action"),
        ("event.file.pth", ["event.file.path", "event.prompt"], "event.file.path"),
        ("operator", ["field", "op", "pattern", "value"], "op"),  # an abbreviation
        ("harness.foo", ["harness.cwd", "harness.name"], None),  # three edits in three letters
        ("blah", ["inject", "warn", "block"], None),
        ("re", ["refresh", "repeat", "reason"], None),  # a prefix of several: no guess
        ("action", ["action", "at"], None),  # not a misspelling
    ],
)
def test_closest_suggests_only_close_names(
    word: str, candidates: list[str], meant: str | None
) -> None:
    from agentstyle.diagnostics import closest

    assert closest(word, candidates) == meant
