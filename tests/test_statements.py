"""Statements bind by name and are read by name (docs/design/storage.md#sql-files): no SQL file
takes a positional parameter, and a statement whose result columns are not the fields of the
type its rows are read as fails loudly, naming both, instead of handing values to the wrong
fields."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from agentstyle.duck import duckdb
from agentstyle.evaluator.records import GrammarRow
from agentstyle.evaluator.statements import ColumnMismatch, execute, read_row, read_rows
from agentstyle.evaluator.store import memory_store
from tests.support.environment import REPO, clean_env
from tests.support.packages import package_text, shell_rule


def sql_files() -> list[str]:
    folder = resources.files("agentstyle.sql")
    return sorted(
        f"{area.name}/{f.name}"
        for area in folder.iterdir()
        if area.is_dir()
        for f in area.iterdir()
        if f.name.endswith(".sql")
    )


def test_no_sql_file_binds_a_parameter_by_position() -> None:
    """DuckDB's own parse of every statement: `$1` and `?` come back as numbered parameters."""
    conn = duckdb.connect()
    folder = resources.files("agentstyle.sql")
    positional: dict[str, list[str]] = {}
    for name in sql_files():
        area, _, file = name.partition("/")
        text = folder.joinpath(area).joinpath(file).read_text("utf-8")
        for parsed in conn.extract_statements(text):
            numbered = sorted(p for p in parsed.named_parameters if not p.isidentifier())
            if numbered:
                positional[name] = numbered
    assert len(sql_files()) > 150  # every file was read
    assert positional == {}


def test_a_positional_parameter_is_what_the_check_sees() -> None:
    """The check above finds what it looks for (`$1`, `?`), not words in strings or comments."""
    conn = duckdb.connect()
    [by_number] = conn.extract_statements("SELECT $1 -- $name")
    [by_mark] = conn.extract_statements("SELECT '?', ?")
    [by_name] = conn.extract_statements("SELECT $name, '$1'")
    assert not all(p.isidentifier() for p in by_number.named_parameters)
    assert not all(p.isidentifier() for p in by_mark.named_parameters)
    assert by_name.named_parameters == {"name"}


class Swapped(NamedTuple):
    """evaluate/program_grammars.sql's columns with two of them the other way round."""

    program: str
    grammar: str
    family: str


def test_rows_read_as_a_type_whose_fields_are_the_columns() -> None:
    conn = memory_store()
    try:
        conn.execute(
            "INSERT INTO program_grammars (program, family, grammar) VALUES ('git', 'vcs', '{}')"
        )
        rows = read_rows(conn, "evaluate/program_grammars", GrammarRow, {"programs": ["git"]})
        assert rows == [GrammarRow(program="git", family="vcs", grammar="{}")]
        assert type(rows[0]) is GrammarRow
        one = read_row(conn, "evaluate/program_grammars", GrammarRow, {"programs": ["none"]})
        assert one is None
    finally:
        conn.close()


def test_fields_in_another_order_than_the_columns_fail_naming_both() -> None:
    conn = memory_store()
    try:
        conn.execute(
            "INSERT INTO program_grammars (program, family, grammar) VALUES ('git', 'vcs', '{}')"
        )
        # read correctly first: the check made once for GrammarRow does not let Swapped through
        read_rows(conn, "evaluate/program_grammars", GrammarRow, {"programs": None})
        with pytest.raises(ColumnMismatch) as raised:
            read_rows(conn, "evaluate/program_grammars", Swapped, {"programs": None})
        with pytest.raises(ColumnMismatch):  # no row at all: still checked
            read_row(conn, "evaluate/program_grammars", Swapped, {"programs": ["none"]})
    finally:
        conn.close()
    message = str(raised.value)
    assert "sql/evaluate/program_grammars.sql" in message
    assert "(program, family, grammar)" in message
    assert "Swapped (program, grammar, family)" in message
    assert raised.value.statement == "evaluate/program_grammars"


def test_parameters_are_bound_by_name_and_extra_keys_left_out() -> None:
    """A report's filters serve many statements: keys a statement does not name are left out;
    one it names and is not given is DuckDB's error."""
    conn = memory_store()
    try:
        conn.execute(
            "INSERT INTO program_grammars (program, family, grammar) VALUES ('git', 'vcs', '{}')"
        )
        params = {"programs": ["git"], "since": None}
        assert len(read_rows(conn, "evaluate/program_grammars", GrammarRow, params)) == 1
        with pytest.raises(duckdb.InvalidInputException):
            execute(conn, "evaluate/program_grammars", {"since": None})
    finally:
        conn.close()


PACKAGE = package_text(
    "acme",
    shell_rule("no-force-push", "^git push .*--force", "No force pushes."),
    description="one rule that blocks force pushes",
)

DECIDE = """\
import sys
from agentstyle.evaluator.compiled import memory_policy
from agentstyle.evaluator.evaluate import decide
from agentstyle.harnesses.claude_code import ADAPTER

conn, _ = memory_policy([sys.argv[1]], "claude-code")
payload = {
    "session_id": "s1",
    "cwd": "/p",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git push --force origin main"},
    "tool_use_id": "toolu_1",
}
[e] = decide(conn, [ADAPTER.normalize(payload, "PreToolUse")])
assert memory_policy.__code__.co_filename.startswith(sys.argv[2]), "not the copy"
print(e.decision.verdict, [(c.action, c.status) for c in e.candidates])
"""


def _decide_with(package: Path, tmp_path: Path, sql_edit: tuple[str, str] | None) -> Any:
    """DECIDE run on a copy of the package, with one edit of evaluate/candidates.sql."""
    copy = tmp_path / "src"
    shutil.copytree(
        REPO / "agentstyle", copy / "agentstyle", ignore=shutil.ignore_patterns("__pycache__")
    )
    if sql_edit is not None:
        candidates = copy / "agentstyle" / "sql" / "evaluate" / "candidates.sql"
        text = candidates.read_text("utf-8")
        assert sql_edit[0] in text
        candidates.write_text(text.replace(*sql_edit), "utf-8")
    env = clean_env(tmp_path, {"PYTHONPATH": str(copy)})
    return subprocess.run(
        [sys.executable, "-c", DECIDE, str(package), str(copy)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,  # not the repository's folder, whose agentstyle/ would come first
        timeout=120,
    )


@pytest.fixture
def package(tmp_path: Path) -> Path:
    folder = tmp_path / "acme"
    folder.mkdir()
    (folder / "STYLE.yaml").write_text(textwrap.dedent(PACKAGE), "utf-8")
    return folder


def test_the_engine_as_shipped_reads_its_candidates(package: Path, tmp_path: Path) -> None:
    run = _decide_with(package, tmp_path, None)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "block [('block', 'native')]"


def test_a_reordered_select_in_the_engine_fails_loudly(package: Path, tmp_path: Path) -> None:
    """`action` and `status` swapped in candidates.sql: both text, so unpacking by position gave
    the candidate the action `native` and the status `block` (as it did before rows were read by
    name); the read by name refuses, naming the statement and both orders."""
    swap = ("rule_id, action, repeat, status,", "rule_id, status, repeat, action,")
    run = _decide_with(package, tmp_path, swap)
    assert run.returncode != 0
    assert "ColumnMismatch: sql/evaluate/candidates.sql returns the columns (harness, point, " in (
        run.stderr
    )
    assert "rule_order, rule_id, status, repeat, action, fails_closed)" in run.stderr
    assert "EntryRow (harness, point, rule_order, rule_id, action, repeat, status," in run.stderr
