"""`style import`: real sample files in, rule files out; validated clean and firing for real.

The end-to-end cases run the CLI as a subprocess; the imported packages are then compiled and
fed Claude Code payloads through the real evaluator (inside a rolled-back transaction).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentstyle.evaluator.compiled import memory_policy
from agentstyle.evaluator.decision import Decision
from agentstyle.evaluator.evaluate import evaluate
from agentstyle.evaluator.packagetests import FIRING
from agentstyle.evaluator.store import Connection
from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE_CODE
from agentstyle.imports.claude_permissions import bash_regex, path_globs
from agentstyle.imports.formats import slug
from agentstyle.imports.importer import import_rules
from agentstyle.imports.manifest import plan_manifest
from agentstyle.policy.compile import load_and_validate
from tests.support.cli import style_in_process, style_process
from tests.support.environment import SCRATCH_HOME
from tests.support.hooks import bash_call
from tests.support.project import Project

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "datasets" / "imports"
DATA = Path(__file__).resolve().parent / "data" / "import"
CWD = "/home/dev/acme-api"


def style_import(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`style import` is about the files it writes and what it says: its real code, run in
    this process (an empty HOME, nothing of STYLE's in the environment)."""
    return style_in_process(cwd, SCRATCH_HOME, "import", *args)


def import_report(fmt: str, source: Path, tmp: Path) -> Any:
    """Run `style import` into `tmp/pkg`, require success, and read its JSON report."""
    proc = style_import(fmt, str(source), "--into", "pkg", "--format", "json", cwd=tmp)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def imported(fmt: str, source: Path, tmp: Path, *extra: str) -> Path:
    """Run `style import` into `tmp/pkg` and require success."""
    proc = style_import(fmt, str(source), "--into", "pkg", *extra, cwd=tmp)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    return tmp / "pkg"


def assert_clean(pkg: Path) -> None:
    compiled = load_and_validate([str(pkg)])
    assert [d.render() for d in compiled.diagnostics] == []


class Policy:
    """A compiled package in memory: each payload is evaluated and rolled back."""

    def __init__(self, conn: Connection, name: str) -> None:
        self.conn = conn
        self.name = name

    def fire(self, event: str, **payload: Any) -> tuple[Decision, set[str]]:
        body = {"session_id": "import-test", "cwd": CWD, "hook_event_name": event, **payload}
        ev = CLAUDE_CODE.normalize(body, event)
        self.conn.execute("BEGIN TRANSACTION")
        try:
            [evaluation] = evaluate(self.conn, [ev])
        finally:
            self.conn.execute("ROLLBACK")
        fired = {c.rule_id for c in evaluation.candidates if c.outcome in FIRING}
        prefix = f"{self.name}/imported/"
        return evaluation.decision, {f[len(prefix) :] for f in fired if f.startswith(prefix)}

    def tool(self, event: str, tool: str, **tool_input: Any) -> tuple[Decision, set[str]]:
        extra: dict[str, Any] = {"tool_response": {}} if event == "PostToolUse" else {}
        return self.fire(event, tool_name=tool, tool_input=tool_input, **extra)


@pytest.fixture
def policy() -> Iterator[Any]:
    conns: list[Connection] = []

    def make(pkg: Path) -> Policy:
        conn, compiled = memory_policy([str(pkg)], "claude-code")
        conns.append(conn)
        return Policy(conn, compiled.packages[0].package.name)

    yield make
    for conn in conns:
        conn.close()


def path(rel: str) -> str:
    return f"{CWD}/{rel}"


# -- the samples: clean packages whose rules fire where the source rules did -------------------


def test_oh_my_pi_sample(tmp_path: Path, policy: Any) -> None:
    pkg = imported("oh-my-pi", SAMPLES / "oh-my-pi" / ".omp" / "rules", tmp_path)
    assert_clean(pkg)
    p = policy(pkg)

    def edit_lib(new: str) -> Any:
        return p.tool(
            "PostToolUse", "Edit", file_path=path("src/lib.rs"), old_string="x", new_string=new
        )

    # interruptMode never: the tool runs, the reminder comes with its result.
    d, fired = edit_lib("let v = parse(s).unwrap();")
    assert fired == {"oh-my-pi/no-unwrap"} and d.verdict is None
    assert "Don't use .unwrap()" in "\n".join(d.contexts)
    _, fired = edit_lib("let v = parse(s)?;")
    assert fired == set()
    _, fired = p.tool("PostToolUse", "Write", file_path=path("notes.md"), content="x.unwrap()")
    assert fired == set()
    # interruptMode always on a bash scope: refused before it runs.
    d, fired = p.tool("PreToolUse", "Bash", command="git push --force origin main")
    assert d.verdict == "block" and fired == {"oh-my-pi/no-force-push"}
    d, _ = p.tool("PreToolUse", "Bash", command="git push origin main")
    assert d.verdict is None
    # tool-only: refused; the glob of the scope narrows it to src/**/*.ts.
    d, fired = p.tool(
        "PreToolUse", "Write", file_path=path("src/app/main.ts"), content="console.log(user)"
    )
    assert d.verdict == "block" and fired == {"oh-my-pi/no-console-log"}
    d, _ = p.tool("PreToolUse", "Write", file_path=path("scripts/dev.ts"), content="console.log(1)")
    assert d.verdict is None
    # prose-only without scope: the text stream, a stop rule that sends the agent back.
    d, fired = p.fire(
        "Stop",
        stop_hook_active=False,
        last_assistant_message="Sorry for the confusion, here is the fix.",
    )
    assert d.verdict == "block" and fired == {"oh-my-pi/no-apology"}
    d, _ = p.fire("Stop", stop_hook_active=False, last_assistant_message="Here is the fix.")
    assert d.verdict is None
    # a glob-like condition (`*.py`) is oh-my-pi's shorthand for edit/write scopes.
    _, fired = p.tool("PostToolUse", "Write", file_path=path("app/models.py"), content="def f(): 1")
    assert fired == {"oh-my-pi/python-types"}
    # alwaysApply: a system rule at session start.
    d, fired = p.fire("SessionStart", source="startup")
    assert "oh-my-pi/project-style" in fired
    assert "tabs for indentation" in "\n".join(d.contexts)


def test_oh_my_pi_rule_file_reads_as_written(tmp_path: Path) -> None:
    pkg = imported("oh-my-pi", SAMPLES / "oh-my-pi" / ".omp" / "rules", tmp_path)
    text = (pkg / "rules/imported/oh-my-pi/no-unwrap.md").read_text("utf-8")
    assert text == (
        "---\n"
        "# imported from no-unwrap.md (oh-my-pi) by style import\n"
        "target: tool\n"
        "tool: [file.edit, file.write]\n"
        "action: inject\n"
        "at: after\n"
        'when: file.path glob "**/*.rs" and tool.added regex r"\\.unwrap\\(\\)"\n'
        "repeat: session\n"
        "reason: 禁止在 Rust 代码中使用 unwrap\n"
        "---\n"
        "Don't use .unwrap(); use proper error handling instead.\n"
    )


def test_cursor_sample(tmp_path: Path, policy: Any) -> None:
    report = import_report("cursor", SAMPLES / "cursor/.cursor/rules", tmp_path)
    pkg = tmp_path / "pkg"
    assert_clean(pkg)
    rows = {r["id"]: r for r in report["rows"]}
    assert {r["status"] for r in rows.values()} == {"created"}
    # description-only rules are flagged in the report
    assert any("description-only" in n["message"] for n in rows["release"]["notes"])
    assert all(not r["notes"] for k, r in rows.items() if k != "release")
    p = policy(pkg)
    d, fired = p.fire("SessionStart", source="startup")
    assert {"cursor/project", "cursor/release"} <= fired
    text = "\n".join(d.contexts)
    assert "Use pnpm, never npm or yarn." in text
    assert "How to cut a release (changelog, version bump, tag): the full rule is in" in text
    assert "cursor/.cursor/rules/release.mdc" in text
    d, fired = p.tool("PreToolUse", "Read", file_path=path("src/components/Button.tsx"))
    assert fired == {"cursor/frontend/react"} and d.verdict is None
    assert "function components" in "\n".join(d.contexts)
    _, fired = p.tool(
        "PreToolUse", "Edit", file_path=path("src/hooks/useAuth.ts"), old_string="a", new_string="b"
    )
    assert fired == {"cursor/frontend/react"}
    _, fired = p.tool("PreToolUse", "Write", file_path=path("db/schema/users.sql"), content="--")
    assert fired == {"cursor/sql"}
    _, fired = p.tool("PreToolUse", "Read", file_path=path("README.md"))
    assert fired == set()


def test_claude_permissions_sample(tmp_path: Path, policy: Any) -> None:
    pkg = imported("claude-permissions", SAMPLES / "claude-code" / "settings.json", tmp_path)
    assert_clean(pkg)
    p = policy(pkg)

    def verdict(tool: str, **tool_input: Any) -> tuple[str | None, set[str]]:
        d, fired = p.tool("PreToolUse", tool, **tool_input)
        return d.verdict, fired

    assert verdict("Bash", command="git push origin main") == (
        "ask",
        {"claude-permissions/ask/bash-git-push"},
    )
    assert verdict("Bash", command="cd app && git push")[0] == "ask"
    assert verdict("Bash", command="git pushx")[0] is None
    assert verdict("Bash", command='echo "git push"')[0] is None
    assert verdict("Bash", command="sudo rm -rf build")[0] == "block"
    assert verdict("Bash", command="rm -r build")[0] is None
    assert verdict("Bash", command="git reset --hard HEAD~1")[0] == "block"
    assert verdict("Read", file_path=path(".env")) == (
        "block",
        {"claude-permissions/deny/read-env"},
    )
    assert verdict("Read", file_path=path(".env.production"))[0] == "block"
    assert verdict("Read", file_path=path("config/.env.example"))[0] is None
    # no broader than the source: a Read rule refuses reading, not editing or writing
    assert verdict("Write", file_path=path(".env"), content="A=1")[0] is None
    assert verdict("Edit", file_path=path(".env"), old_string="a", new_string="b")[0] is None
    assert verdict("Read", file_path=path("secrets/prod/key.json"))[0] == "block"
    assert verdict("Write", file_path=path("secrets/prod/key.json"), content="x")[0] is None
    # and Claude Code applies Read rules to Grep and Glob: a search inside the path is refused
    assert verdict("Grep", pattern="password", path=path("secrets")) == (
        "block",
        {"claude-permissions/deny/read-secrets-star"},
    )
    assert verdict("Grep", pattern="password", path=path("secrets/prod"))[0] == "block"
    assert verdict("Glob", pattern="**/*.json", path=path("secrets"))[0] == "block"
    assert verdict("Grep", pattern="TODO", path=path("src"))[0] is None
    assert verdict("Glob", pattern="**/*.rs")[0] is None  # the whole project: not refused
    assert verdict("Read", file_path=path("secrets"))[0] is None  # the folder alone is no file
    assert verdict("Grep", pattern="KEY", path=path(".env"))[0] == "block"
    assert (
        verdict("Edit", file_path=path("migrations/001_init.sql"), old_string="a", new_string="b")[
            0
        ]
        == "block"
    )
    assert verdict("Read", file_path=path("migrations/001_init.sql"))[0] is None
    assert verdict("WebFetch", url="https://docs.pastebin.com/raw/x", prompt="p")[0] == "block"
    assert verdict("WebFetch", url="https://pastebin.community/x", prompt="p")[0] is None
    assert verdict("WebFetch", url="https://github.com/acme/api", prompt="p")[0] == "ask"
    assert verdict("WebFetch", url="https://user@github.com/acme", prompt="p")[0] == "ask"
    assert verdict("WebFetch", url="https://github.com.evil.io/", prompt="p")[0] is None
    assert verdict("mcp__github__create_pull_request", title="t")[0] == "ask"
    assert verdict("mcp__github__list_issues")[0] is None
    assert verdict("mcp__filesystem__read_file", path="/etc/hosts")[0] == "block"
    assert verdict("Agent", prompt="p", subagent_type="Explore")[0] == "block"
    assert verdict("Agent", prompt="p", subagent_type="Plan")[0] is None


def test_markdown_sample_is_copied_byte_for_byte(tmp_path: Path, policy: Any) -> None:
    pkg = imported("markdown", SAMPLES / "markdown-rules", tmp_path)
    assert_clean(pkg)
    for src in (SAMPLES / "markdown-rules").rglob("*.md"):
        rel = src.relative_to(SAMPLES / "markdown-rules")
        assert (pkg / "rules/imported/markdown" / rel).read_bytes() == src.read_bytes()
    d, fired = policy(pkg).tool("PreToolUse", "Bash", command="git push -f origin main")
    assert d.verdict == "block" and fired == {"markdown/git/no-force-push"}


@pytest.mark.parametrize("ext", ["csv", "tsv", "jsonl", "parquet"])
def test_tables_give_the_same_rule_files(tmp_path: Path, ext: str) -> None:
    pkg = imported("csv", SAMPLES / "csv" / f"rules.{ext}", tmp_path)
    assert_clean(pkg)
    folder = pkg / "rules/imported/csv"
    files = sorted(p.name for p in folder.glob("*.md"))
    assert len(files) == 12
    reference = tmp_path / "reference"
    reference.mkdir()
    ref = imported("csv", SAMPLES / "csv" / "rules.csv", reference)
    for name in files:
        assert (folder / name).read_bytes() == (ref / "rules/imported/csv" / name).read_bytes()


def test_tsv_format_word_writes_its_own_folder(tmp_path: Path) -> None:
    pkg = imported("tsv", SAMPLES / "csv" / "rules.tsv", tmp_path)
    assert len(list((pkg / "rules/imported/tsv").glob("*.md"))) == 12
    assert "from: rules/imported/tsv/**/*.md" in (pkg / "STYLE.yaml").read_text("utf-8")


def test_csv_rule_fires(tmp_path: Path, policy: Any) -> None:
    pkg = imported("csv", SAMPLES / "csv" / "rules.csv", tmp_path)
    p = policy(pkg)
    d, fired = p.tool("PreToolUse", "Bash", command="git push --force origin main")
    assert d.verdict == "block" and fired == {"csv/no-force-push"}
    d, fired = p.fire("UserPromptSubmit", prompt="Fix ABC-123 please")
    assert fired == {"csv/prompt-ticket"}
    assert "open https://tracker.example/<id>" in "\n".join(d.contexts)


# -- all or nothing, and the report --------------------------------------------------------------


def test_three_bad_rows_write_nothing_and_are_all_named(tmp_path: Path) -> None:
    proc = style_import("csv", str(DATA / "bad-rows.csv"), "--into", "pkg", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert not (tmp_path / "pkg").exists()
    out = proc.stdout
    src = DATA / "bad-rows.csv"
    shown = str(src)
    # Row numbers are the lines the rows start on (the quoted cell of line 3 spans two).
    assert f"rejected   {shown}:5" in out and "bad-pattern" in out and "(column `when`)" in out
    assert f"{shown}:7: error invalid-schema: field `action` `explode` is not one of" in out
    assert f"{shown}:8: error invalid-schema: unknown rule field `colour`" in out
    assert out.count("rejected   ") == 3
    assert "3 valid, 3 rejected; nothing written" in out


def test_bad_rows_as_json(tmp_path: Path) -> None:
    proc = style_import(
        "csv", str(DATA / "bad-rows.csv"), "--into", "pkg", "--format", "json", cwd=tmp_path
    )
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["written"] is False
    assert report["totals"] == {
        "created": 0,
        "updated": 0,
        "unchanged": 0,
        "rejected": 3,
        "valid": 3,
        "removed": 0,
    }
    rejected = [r for r in report["rows"] if r["status"] == "rejected"]
    assert [r["line"] for r in rejected] == [5, 7, 8]
    assert [r["diagnostics"][0]["code"] for r in rejected] == [
        "bad-pattern",
        "invalid-schema",
        "invalid-schema",
    ]
    assert rejected[0]["diagnostics"][0]["column"] == "when"


def test_skip_invalid_writes_the_valid_rows(tmp_path: Path) -> None:
    proc = style_import(
        "csv", str(DATA / "bad-rows.csv"), "--into", "pkg", "--skip-invalid", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = tmp_path / "pkg/rules/imported/csv"
    assert sorted(p.stem for p in folder.glob("*.md")) == ["good-one", "good-two", "multi-line"]
    assert "3 created, 0 updated, 0 unchanged, 3 rejected, 0 removed" in proc.stdout
    assert_clean(tmp_path / "pkg")
    assert (folder / "multi-line.md").read_text("utf-8").endswith("---\nLine one\nline two\n")


def test_reimport_is_idempotent(tmp_path: Path) -> None:
    for fmt, src in (
        ("oh-my-pi", SAMPLES / "oh-my-pi/.omp/rules"),
        ("cursor", SAMPLES / "cursor/.cursor/rules"),
        ("claude-permissions", SAMPLES / "claude-code/settings.json"),
        ("csv", SAMPLES / "csv/rules.csv"),
    ):
        imported(fmt, src, tmp_path)
    pkg = tmp_path / "pkg"
    files = sorted(p for p in pkg.rglob("*") if p.is_file())
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files}
    report = import_report("claude-permissions", SAMPLES / "claude-code/settings.json", tmp_path)
    assert {r["status"] for r in report["rows"]} == {"unchanged"}
    assert report["manifest"] == "present"
    assert report["totals"]["unchanged"] == len(report["rows"]) == 12
    proc = style_import("csv", str(SAMPLES / "csv/rules.csv"), "--into", "pkg", cwd=tmp_path)
    assert "0 created, 0 updated, 12 unchanged" in proc.stdout
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files}
    assert after == before
    assert sorted(p for p in pkg.rglob("*") if p.is_file()) == files
    # four formats, four `from` entries, each added once
    assert (pkg / "STYLE.yaml").read_text("utf-8").count("- from: rules/imported/") == 4
    assert_clean(pkg)


def test_prune(tmp_path: Path) -> None:
    src = tmp_path / "rules.csv"
    shutil.copy(DATA / "prune-v1.csv", src)
    imported("csv", src, tmp_path)
    folder = tmp_path / "pkg/rules/imported/csv"
    alpha_mtime = (folder / "alpha.md").stat().st_mtime_ns
    shutil.copy(DATA / "prune-v2.csv", src)
    proc = style_import("csv", str(src), "--into", "pkg", cwd=tmp_path)
    assert proc.returncode == 0
    assert "0 created, 1 updated, 1 unchanged, 0 rejected, 0 removed" in proc.stdout
    assert (folder / "beta.md").exists()  # without --prune a gone row keeps its file
    proc = style_import("csv", str(src), "--into", "pkg", "--prune", cwd=tmp_path)
    assert proc.returncode == 0
    assert "removed    pkg/rules/imported/csv/beta.md" in proc.stdout
    assert "0 created, 0 updated, 2 unchanged, 0 rejected, 1 removed" in proc.stdout
    assert sorted(p.stem for p in folder.glob("*.md")) == ["alpha", "gamma"]
    assert (folder / "alpha.md").stat().st_mtime_ns == alpha_mtime
    assert "Gamma rule (edited)." in (folder / "gamma.md").read_text("utf-8")
    assert_clean(tmp_path / "pkg")


def test_prune_keeps_the_file_of_a_rejected_row(tmp_path: Path) -> None:
    src = tmp_path / "rules.csv"
    src.write_text("id,target,text\nalpha,system,Alpha.\nbeta,system,Beta.\n", "utf-8")
    imported("csv", src, tmp_path)
    src.write_text("id,target,text\nalpha,nowhere,Alpha.\ngamma,system,Gamma.\n", "utf-8")
    proc = style_import("csv", str(src), "--into", "pkg", "--prune", "--skip-invalid", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    folder = tmp_path / "pkg/rules/imported/csv"
    assert sorted(p.stem for p in folder.glob("*.md")) == ["alpha", "gamma"]
    assert "target: system" in (folder / "alpha.md").read_text("utf-8")


def test_large_csv_imports_and_validates(tmp_path: Path) -> None:
    from bench.import_bench import write_csv

    src = write_csv(tmp_path / "big.csv", 10_000)
    proc = style_import("csv", str(src), "--into", "pkg", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    report = json.loads(proc.stdout)
    assert report["totals"]["created"] == 10_000
    assert len(list((tmp_path / "pkg/rules/imported/csv").glob("*.md"))) == 10_000


# -- mappings that would be weaker are rejected, with the reason -------------------------------


def test_unmappable_oh_my_pi_rules_are_rejected(tmp_path: Path) -> None:
    proc = style_import(
        "oh-my-pi", str(SAMPLES / "oh-my-pi-rejected/.omp/rules"), "--into", "pkg", cwd=tmp_path
    )
    assert proc.returncode == 1
    assert not (tmp_path / "pkg").exists()
    out = proc.stdout
    assert "ast-no-any.md:3: error: `astCondition` cannot be imported" in out
    assert "judged-tests.md:3: error: `question` cannot be imported" in out
    assert "thinking-scope.md:3: error: scope `thinking`" in out
    # a JavaScript look-ahead is no RE2: the validator's own diagnostic, at the source line
    assert "todo-comments.md:3: error bad-pattern:" in out
    assert "0 valid, 4 rejected; nothing written: every row is rejected" in out


def test_unmappable_permissions_are_rejected(tmp_path: Path) -> None:
    src = SAMPLES / "claude-code-rejected/settings.json"
    proc = style_import("claude-permissions", str(src), "--into", "pkg", cwd=tmp_path)
    assert proc.returncode == 1
    out = proc.stdout
    for needle in (
        "settings.json:4: error: `Read(~/.ssh/**)`: a `~/` path",
        "settings.json:5: error: Claude Code never consults `Write(...)` path rules",
        "settings.json:6: error: `WebFetch(https://example.com)`: only `WebFetch(domain:HOST)`",
        "settings.json:7: error: `Bash(command:…)` is ignored by Claude Code",
        "settings.json:9: error: `Bash(curl * | sh)` spans a shell operator",
    ):
        assert needle in out
    assert "1 valid, 5 rejected; nothing written" in out
    proc = style_import(
        "claude-permissions", str(src), "--into", "pkg", "--skip-invalid", cwd=tmp_path
    )
    assert proc.returncode == 0
    assert sorted(p.stem for p in (tmp_path / "pkg").rglob("*.md")) == ["bash-git-push-force"]


def test_cursor_manual_rule_is_rejected(tmp_path: Path) -> None:
    src = SAMPLES / "cursor-rejected/.cursor/rules"
    proc = style_import("cursor", str(src), "--into", "pkg", cwd=tmp_path)
    assert proc.returncode == 1
    assert "manual rule" in proc.stdout


def test_id_collisions_reject_every_row_involved(tmp_path: Path) -> None:
    report = import_rules("csv", [str(DATA / "collide.csv")], str(tmp_path / "pkg"))
    status = {(r.line, r.status) for r in report.rows}
    assert status == {(2, "rejected"), (3, "rejected"), (4, "valid")}
    [first] = [r for r in report.rows if r.line == 2]
    assert first.reasons[0].code == "dup-id"
    assert "collide.csv:3" in first.reasons[0].message


def test_missing_source_is_a_usage_error(tmp_path: Path) -> None:
    proc = style_import("csv", "nope.csv", "--into", "pkg", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "style: `nope.csv`: no such file or folder"


# -- STYLE.yaml: created once, or edited minimally --------------------------------------------


def test_existing_manifest_gets_one_line(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    original = (DATA / "existing-STYLE.yaml").read_text("utf-8")
    (pkg / "STYLE.yaml").write_text(original, "utf-8")
    imported("csv", DATA / "prune-v1.csv", tmp_path)
    text = (pkg / "STYLE.yaml").read_text("utf-8")
    assert text == original.replace(
        "    Answer briefly.\n", "    Answer briefly.\n- from: rules/imported/csv/**/*.md\n"
    )
    assert_clean(pkg)
    imported("csv", DATA / "prune-v1.csv", tmp_path)
    assert (pkg / "STYLE.yaml").read_text("utf-8") == text


def test_existing_from_glob_that_covers_the_files_is_reused(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "rules").mkdir(parents=True)
    manifest = (
        "spec: style/v0.3\nname: pkg\nversion: 1.0.0\ndescription: d\nrules:\n"
        "  - from: rules/**/*.md\n"
    )
    (pkg / "STYLE.yaml").write_text(manifest, "utf-8")
    report = import_rules("csv", [str(DATA / "prune-v1.csv")], str(pkg))
    assert report.written and report.manifest == "covered"
    assert (pkg / "STYLE.yaml").read_text("utf-8") == manifest
    assert_clean(pkg)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "spec: style/v0.3\nrules: []\nname: x\n",
            "spec: style/v0.3\nrules: [{from: P}]\nname: x\n",
        ),
        (
            "spec: style/v0.3\nrules: [{id: a, text: b}]\n",
            "spec: style/v0.3\nrules: [{id: a, text: b}, {from: P}]\n",
        ),
        ("spec: style/v0.3\nname: x", "spec: style/v0.3\nname: x\nrules:\n  - from: P\n"),
        (
            "spec: style/v0.3\nrules:\n    - id: a\n      text: b\n\n# end\n",
            "spec: style/v0.3\nrules:\n    - id: a\n      text: b\n    - from: P\n\n# end\n",
        ),
        ("rules:\r\n- from: x/*.md\r\n", "rules:\r\n- from: x/*.md\r\n- from: P\r\n"),
        ("rules:\nname: x\n", "rules:\n  - from: P\nname: x\n"),
    ],
)
def test_manifest_edits(before: str, after: str) -> None:
    plan = plan_manifest(before, "x", "P", ["rules/imported/csv/a.md"])
    assert plan.text == after and plan.action == "added"


# -- mapping details ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "regex"),
    [
        ("git push:*", "^git push( |$)"),
        ("rm -rf *", "^rm -rf( |$)"),
        ("npm run test", "^npm run test$"),
        ("ls*", "^ls"),
        ("git * main", "^git .* main$"),
        ("python3 -c print(1)", r"^python3 -c print\(1\)$"),
        ("*", None),
    ],
)
def test_bash_patterns(spec: str, regex: str | None) -> None:
    assert bash_regex(spec)[0] == regex


@pytest.mark.parametrize(
    ("spec", "globs"),
    [
        ("./.env", [".env", ".env/**"]),
        (".env", ["**/.env", "**/.env/**"]),
        ("src/**", ["src/**"]),
        ("docs/", ["**/docs/**"]),
        ("./build/", ["build/**"]),
        ("//etc/passwd", ["/etc/passwd", "/etc/passwd/**"]),
        ("/config/*.yml", ["config/*.yml", "config/*.yml/**"]),
        ("~/.ssh/id_rsa", None),
    ],
)
def test_path_patterns(spec: str, globs: list[str] | None) -> None:
    assert path_globs(spec, "Read")[0] == globs


def test_slugs_are_valid_ids() -> None:
    assert slug("Read(./.env.*)") == "read-env-star"
    assert slug("No Unwrap!") == "no-unwrap"
    assert slug("禁止").startswith("rule-")


def test_front_matter_values_read_back_unchanged() -> None:
    """The hand-written YAML emitter against PyYAML's reader, over awkward strings."""
    import random

    import yaml

    from agentstyle.imports.convert import _yaml_line

    alphabet = [*"aZ09 _-.:#,[]{}'\"\\/*?!&|>%@`~=<+\t\n\r()", "é", "禁", "\u2028", "\x85"]
    alphabet += ["\ufeff", "\x00", "\U0001f600", "\x7f", "\x1b", "\ufffe", "\xa0"]
    rng = random.Random(2024)
    words = ["yes", "No", "on", "null", "~", "1", "1.5", "2024-01-01", "0x1f", ".inf", "=", "-"]
    words += ["- a", "? x", ": x", "a: b", "a #b", "#x", "x:", "file.*", "**/*.rs", "禁止"]
    cases = words + ["".join(rng.choices(alphabet, k=rng.randint(0, 12))) for _ in range(5_000)]
    for s in cases:
        for value in (s, [s, "x"]):
            assert yaml.safe_load(_yaml_line("k", value)) == {"k": value}, repr(value)


def test_json_lines_take_native_types_and_mapping_conditions(tmp_path: Path, policy: Any) -> None:
    src = tmp_path / "rules.jsonl"
    rows = [
        {
            "id": "keys",
            "target": "tool",
            "tool": ["file.read", "file.edit"],
            "action": "warn",
            "when": {"any": [{"field": "file.path", "op": "glob", "pattern": "**/*.pem"}]},
            "model_text": "Key material: keep it out of the chat.",
            "text": "A key file was opened.",
        },
        {"id": "brief", "target": "system", "priority": 70, "enabled": True, "text": "Be brief."},
    ]
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", "utf-8")
    pkg = imported("jsonl", src, tmp_path)
    assert_clean(pkg)
    text = (pkg / "rules/imported/jsonl/keys.md").read_text("utf-8")
    assert "tool: [file.read, file.edit]\n" in text
    assert "when:\n  any:\n  - field: file.path\n" in text
    # a warn rule runs after the call (docs/rules.md#at)
    _, fired = policy(pkg).tool("PostToolUse", "Read", file_path=path("certs/server.pem"))
    assert fired == {"jsonl/keys"}


def test_excel_csv_with_bom_and_input_format(tmp_path: Path) -> None:
    src = tmp_path / "export.txt"
    src.write_bytes("\ufeffid,target,enabled,text\r\nbrief,system,TRUE,Be brief.\r\n".encode())
    report = import_rules("csv", [str(src)], str(tmp_path / "pkg"), input_format="csv")
    assert report.written, [r.to_json() for r in report.rows]
    text = (tmp_path / "pkg/rules/imported/csv/brief.md").read_text("utf-8")
    assert "enabled: true\n" in text


def test_warnings_are_reported_and_do_not_reject(tmp_path: Path) -> None:
    src = tmp_path / "rules.csv"
    long_reason = "This command is refused because " + "it is dangerous and " * 12 + "final."
    src.write_text(
        "id,target,tool,action,repeat,text\n"
        f"long-block,tool,shell,block,,{long_reason}\n"
        "repeat-block,tool,shell,block,session,No.\n",
        "utf-8",
    )
    report = import_rules("csv", [str(src)], str(tmp_path / "pkg"))
    assert report.written
    codes = {r.id: [w.code for w in r.reasons] for r in report.rows}
    assert codes == {"long-block": ["T005"], "repeat-block": ["block-repeat"]}
    [repeat] = [r for r in report.rows if r.id == "repeat-block"]
    assert repeat.reasons[0].column == "repeat" and repeat.reasons[0].line == 3


def test_oh_my_pi_edge_mappings(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "quiet-text.md").write_text(
        "---\ncondition: 'TODO'\ninterruptMode: never\n---\nNo TODOs.\n", "utf-8"
    )
    (rules / "mixed.md").write_text(
        "---\ncondition: 'x'\nscope: 'text, tool:bash'\n---\nBody.\n", "utf-8"
    )
    (rules / "gap.md").write_text(
        "---\ncondition: 'x'\nscope: tool:bash\nrepeatMode: after-gap\n---\nBody.\n", "utf-8"
    )
    (rules / "python.md").write_text(
        "---\ncondition: 'x'\nscope: tool:python\n---\nBody.\n", "utf-8"
    )
    report = import_rules("oh-my-pi", [str(rules)], str(tmp_path / "pkg"))
    assert not report.written
    why = {r.id: r.reasons[0].message for r in report.rows if r.reasons}
    # not weaker, only not deliverable everywhere: mapped, with a note
    [quiet] = [r for r in report.rows if r.id == "quiet-text"]
    assert quiet.status == "valid" and "a reminder at `stop`" in quiet.notes[0].message
    assert "mixes the text stream and tool calls" in why["mixed"]
    assert "after a gap" in why["gap"]
    assert "oh-my-pi tool `python` has no STYLE tool" in why["python"]


# -- hookify ---------------------------------------------------------------------------------


def style_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return style_process(cwd, None, *args, timeout=300)


def test_hookify_examples_import_validate_and_fire(tmp_path: Path) -> None:
    """hookify's documented example rules (its examples/, README and skill) through
    `style test`: each fires on the payload it was written for, and not beside it."""
    proc = style_import("hookify", str(SAMPLES / "hookify"), "--into", "pkg", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "9 created, 0 updated, 0 unchanged, 0 rejected, 0 removed in `pkg`" in proc.stdout
    pkg = tmp_path / "pkg"
    compiled = load_and_validate([str(pkg)])
    # clean but for the advice that the longest block message (kept as written) is long
    assert [(d.code, d.level) for d in compiled.diagnostics] == [("T005", "warning")]
    assert "dangerous-rm" in compiled.diagnostics[0].message
    (pkg / "tests").mkdir()
    shutil.copy(DATA / "hookify-cases.yaml", pkg / "tests" / "hookify.yaml")
    run = style_cli("test", str(pkg), cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "14 passed, 0 failed"
    rm = (pkg / "rules/imported/hookify/dangerous-rm.md").read_text("utf-8")
    assert rm.startswith(
        "---\n# imported from hookify.dangerous-rm.local.md (hookify rule block-dangerous-rm) "
        "by style import\ntarget: tool\ntool: shell\naction: block\nat: before\n"
        'when: tool.input.command regex r"(?i)rm\\s+-rf"\n---\n'
    )


def test_hookify_rule_refuses_through_the_installed_hook(tmp_path: Path) -> None:
    """The imported block rule, installed, refuses the call through the real hook command."""
    project = tmp_path / "proj"
    project.mkdir()
    shutil.copytree(SAMPLES / "hookify" / ".claude", project / ".claude")
    proc = style_import("hookify", ".", "--into", "guards", cwd=project)  # finds .claude/
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert style_cli("install", "guards", cwd=project).returncode == 0
    payload = bash_call(project, "s1", "cd build && rm -rf ./out", "toolu_1")
    hook = Project(project, tmp_path / "proj-home").hook("PreToolUse", payload)
    answer = (hook.json or {})["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "Dangerous rm command detected!" in answer["permissionDecisionReason"]


def test_unmappable_hookify_rules_are_rejected_with_the_reason(tmp_path: Path) -> None:
    proc = style_import(
        "hookify", str(SAMPLES / "hookify-rejected"), "--into", "pkg", "--format", "json",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1
    assert not (tmp_path / "pkg" / "rules").exists()
    report = json.loads(proc.stdout)
    got = {
        Path(r["source"]).name: (r["status"], r["diagnostics"][0]["line"],
                                 r["diagnostics"][0]["message"])
        for r in report["rows"]
    }  # fmt: skip
    assert {k: v[0] for k, v in got.items()} == dict.fromkeys(
        [
            "hookify.all-events.local.md",
            "hookify.compound-command.local.md",
            "hookify.quoted-escape.local.md",
            "hookify.require-tests-stop.local.md",
            "hookify.stop-checklist.local.md",
        ],
        "rejected",
    )
    assert got["hookify.all-events.local.md"][1:] == (
        4,
        "`event: all` (the default) runs at every hook — tool calls, prompts, stops — and reads "
        "each field from whatever payload comes; write one rule per event",
    )
    assert got["hookify.require-tests-stop.local.md"][1] == 7  # the condition's line
    assert "does not read the session transcript" in got["hookify.require-tests-stop.local.md"][2]
    assert got["hookify.compound-command.local.md"][2].startswith("operator `is_compound`")
    assert got["hookify.stop-checklist.local.md"][2].endswith(
        "importing it would add a rule the source does not enforce"
    )
    assert got["hookify.quoted-escape.local.md"][1] == 5


HOOKIFY_EDGE = {
    "hookify.disabled.local.md": (
        "---\nname: off-for-now\nenabled: false\nevent: bash\npattern: git\\s+push\n---\nNo.\n"
    ),
    "hookify.negated.local.md": (
        "---\nname: no-todo\nevent: file\naction: block\nconditions:\n"
        "  - field: file_path\n    operator: ends_with\n    pattern: .py\n"
        "  - field: new_text\n    operator: not_contains\n    pattern: TODO\n"
        "  - field: old_text, operator: contains, pattern: def\n---\nNo TODO-free edits.\n"
    ),
    "hookify.prompt-block.local.md": (
        "---\nname: no-prod\nevent: prompt\naction: block\npattern: prod\n---\nCareful.\n"
    ),
    "hookify.matcher.local.md": (
        "---\nname: write-only\nevent: file\ntool_matcher: Write\naction: block\n"
        "pattern: eval\\(\nseverity: high\n---\nNo eval.\n"
    ),
}


def test_hookify_edge_mappings(tmp_path: Path) -> None:
    src = tmp_path / "src" / ".claude"
    src.mkdir(parents=True)
    for name, text in HOOKIFY_EDGE.items():
        (src / name).write_text(text, encoding="utf-8")
    proc = style_import("hookify", str(src), "--into", "pkg", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = tmp_path / "pkg/rules/imported/hookify"

    def front(name: str) -> str:
        return (folder / f"{name}.md").read_text("utf-8").split("---\n")[1]

    assert "enabled: false\n" in front("disabled")  # validated, not installed
    # a negated operator also needs the field (hookify fails a condition on a missing field);
    # an inline `- a: x, b: y` item is read as hookify reads it
    assert (
        'when: tool.input.file_path ends_with ".py" and (tool.added exists and tool.added '
        'not_contains "TODO") and tool.input.old_string contains "def"\n'
    ) in front("negated")
    # hookify shows a block rule's message at a prompt without blocking it
    assert "action: warn\n" in front("prompt-block") and "event: prompt.submitted\n" in front(
        "prompt-block"
    )
    assert "names: [Write]\n" in front("matcher") and "tool:" not in front("matcher")
    assert "`severity` is not a hookify rule field; ignored" in proc.stdout
    assert "hookify shows a `block` rule's message at a prompt without blocking" in proc.stdout
    assert_clean(tmp_path / "pkg")
