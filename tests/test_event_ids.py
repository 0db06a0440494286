"""Event ids come from a one-row counter (schema 010), not from max(event_id) over the history:
a database written before it migrates in place, keeps its ids, and the next event continues
after the last one, through the real hook; a rolled-back evaluation gives its ids back, and
pruned events never have theirs reused."""

from __future__ import annotations

from pathlib import Path

from agentstyle.evaluator.store import connect, latest_version, memory_store, migrate, sql
from tests.support.hooks import new_session
from tests.support.packages import package_text, shell_rule
from tests.support.project import Project

PACKAGE = package_text(
    "acme",
    shell_rule("no-force-push", "^git push .*--force", "STYLE no-force-push: no force pushes."),
    description="one rule that blocks force pushes",
)


def _as_before_010(project: Project, ids: list[int]) -> None:
    """The project's database as STYLE left it before schema 010: no counter (001's unused
    sequence instead), events under ids max() gave, the schema at 009 (and none of the later
    migrations' tables and columns)."""
    project.execute("DELETE FROM schema_version WHERE version >= 10")
    for table in (
        "program_grammars",
        "command_heads",
        "command_literals",
        "command_match_rows",
        "rule_exceptions",
    ):
        project.execute(f"DROP TABLE {table}")  # 013
    # what the migrations after 010 added goes too, so that they apply again (DuckDB drops a
    # column only from a table without indexes: the events' are taken off meanwhile)
    indexes = project.query(
        "SELECT index_name, sql FROM duckdb_indexes() WHERE table_name = 'events'"
    )
    for name, _sql in indexes:
        project.execute(f"DROP INDEX {name}")
    project.execute("ALTER TABLE events DROP COLUMN transcript")  # 012
    for _name, statement in indexes:
        project.execute(statement)
    project.execute("DROP TABLE answered")  # 011
    project.execute("ALTER TABLE rules DROP COLUMN layer")
    project.execute("ALTER TABLE packages DROP COLUMN layer")
    project.execute("DROP TABLE event_counter")
    project.execute("CREATE SEQUENCE event_ids START 1")
    for event_id in ids:
        project.execute(
            "INSERT INTO events (event_id, ts, harness, native_event) "
            "VALUES (?, TIMESTAMP '2026-01-01 00:00:00', 'claude-code', 'PreToolUse')",
            [event_id],
        )


def _bash(project: Project, session: str, n: int, command: str) -> None:
    payload = project.payload(
        "PreToolUse.bash-rm-rf.json",
        session_id=session,
        tool_use_id=f"toolu_{n}",
        tool_input={"command": command},
    )
    project.hook("PreToolUse", payload)


def test_an_old_database_keeps_its_ids_and_the_sequence_continues(project: Project) -> None:
    project.write_package(PACKAGE)
    project.install("pkg")
    _as_before_010(project, [1, 2, 3, 57])
    sid = new_session()
    _bash(project, sid, 1, "ls -la")
    _bash(project, sid, 2, "git push --force origin main")
    assert project.scalar("SELECT max(version) FROM schema_version") == latest_version()
    rows = project.query("SELECT event_id, session_id FROM events ORDER BY event_id")
    assert [r[0] for r in rows] == [1, 2, 3, 57, 58, 59]
    assert [r[1] for r in rows[4:]] == [sid, sid]
    # the refused call's hit points at its own event
    assert project.query("SELECT event_id, outcome FROM hits") == [(59, "blocked")]


def test_an_empty_old_database_starts_at_one(project: Project) -> None:
    project.write_package(PACKAGE)
    project.install("pkg")
    _as_before_010(project, [])
    _bash(project, new_session(), 1, "ls")
    assert project.query("SELECT event_id FROM events") == [(1,)]


def test_a_batch_takes_one_block_of_ids_in_arrival_order(tmp_path: Path) -> None:
    conn = connect(tmp_path / "style.duckdb")
    try:
        migrate(conn)
        params = {
            "seq": [0, 1, 2],
            "harness": ["claude-code"] * 3,
            "session_id": ["a", "b", "c"],
            "point": ["tool.pre"] * 3,
            "source": [None] * 3,
            "model": [None] * 3,
        }
        first = [r[1] for r in conn.execute(sql("evaluate/book"), params).fetchall()]
        one = {k: v[0] for k, v in params.items() if k != "seq"}
        [(_seq, single, *_)] = conn.execute(sql("evaluate/book_one"), one).fetchall()
        params["session_id"] = ["a", "a", "b"]
        batch = [r[1] for r in conn.execute(sql("evaluate/book_batch"), params).fetchall()]
    finally:
        conn.close()
    assert first == [1, 2, 3]
    assert single == 4
    assert batch == [5, 6, 7]


def test_a_rolled_back_evaluation_gives_its_id_back(tmp_path: Path) -> None:
    conn = connect(tmp_path / "style.duckdb")
    one = {"harness": "codex", "session_id": "s", "point": "prompt.submitted"}
    one |= {"source": None, "model": None}
    try:
        migrate(conn)
        conn.execute("BEGIN TRANSACTION")
        [(_seq, first, *_)] = conn.execute(sql("evaluate/book_one"), one).fetchall()
        conn.execute("ROLLBACK")
        [(_seq, again, *_)] = conn.execute(sql("evaluate/book_one"), one).fetchall()
    finally:
        conn.close()
    assert first == again == 1


def test_pruned_events_do_not_give_their_ids_to_new_ones(project: Project) -> None:
    project.write_package(PACKAGE)
    project.install("pkg")
    sid = new_session()
    _bash(project, sid, 1, "ls")
    _bash(project, sid, 2, "ls -la")
    project.execute("DELETE FROM events")  # what `style audit prune` does to old events
    _bash(project, sid, 3, "pwd")
    assert project.query("SELECT event_id FROM events") == [(3,)]


def test_a_memory_store_numbers_from_one() -> None:
    conn = memory_store()
    try:
        one = {"harness": "codex", "session_id": "s", "point": "prompt.submitted"}
        [(_seq, event_id, *_)] = conn.execute(
            sql("evaluate/book_one"), {**one, "source": None, "model": None}
        ).fetchall()
    finally:
        conn.close()
    assert event_id == 1


def test_a_session_start_of_unknown_source_is_booked(tmp_path: Path) -> None:
    """An exported SessionStart whose fields were not kept (`log: hits`, no hit) has no
    source: replaying it books it as neither a reset nor a compaction, in a batch or alone."""
    conn = connect(tmp_path / "style.duckdb")
    params = {
        "seq": [0, 1],
        "harness": ["claude-code"] * 2,
        "session_id": ["a", "a"],
        "point": ["session.start", "session.start"],
        "source": [None, None],
        "model": [None] * 2,
    }
    try:
        migrate(conn)
        batch = conn.execute(sql("evaluate/book_batch"), params).fetchall()
        alone = conn.execute(
            sql("evaluate/book_one"),
            {"harness": "codex", "session_id": "b", "point": "session.start"}
            | {"source": None, "model": None},
        ).fetchall()
    finally:
        conn.close()
    assert [(r[2], r[3]) for r in batch] == [(0, 0), (0, 0)]
    assert [(r[2], r[3]) for r in alone] == [(0, 0)]
