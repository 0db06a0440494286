"""The store's transaction blocks: `transaction` commits at its end and rolls back when it raises
or when the block calls `rollback()`; `rolled_back` keeps nothing; neither leaves one open."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentstyle.evaluator.store import (
    Connection,
    connect,
    insert_rows,
    migrate,
    rolled_back,
    transaction,
)
from agentstyle.policy.rows import SettingRow


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[Connection]:
    conn = connect(tmp_path / "style.duckdb")
    migrate(conn)
    yield conn
    conn.close()


def write(conn: Connection, value: str) -> None:
    insert_rows(conn, "settings", SettingRow._fields, [SettingRow("pkg", value, value)])


def stored(conn: Connection) -> list[str]:
    """The rows as another connection to the database sees them: committed ones only."""
    other = conn.cursor()
    try:
        return [str(r[0]) for r in other.execute("SELECT name FROM settings ORDER BY 1").fetchall()]
    finally:
        other.close()


def test_a_transaction_commits_when_its_block_ends(conn: Connection) -> None:
    with transaction(conn):
        write(conn, "a")
        assert stored(conn) == []  # not yet: the block has not ended
    assert stored(conn) == ["a"]


def test_a_transaction_rolls_back_when_its_block_raises(conn: Connection) -> None:
    with pytest.raises(KeyError), transaction(conn):
        write(conn, "a")
        raise KeyError("x")
    assert stored(conn) == []
    with transaction(conn):  # none was left open
        write(conn, "b")
    assert stored(conn) == ["b"]


def test_a_block_may_roll_its_transaction_back_and_end_without_a_commit(conn: Connection) -> None:
    with transaction(conn) as tx:
        write(conn, "a")
        tx.rollback()
        write(conn, "b")  # outside any transaction now: committed by itself
    assert stored(conn) == ["b"]


def test_rolled_back_keeps_nothing_whether_or_not_its_block_raises(conn: Connection) -> None:
    with rolled_back(conn):
        write(conn, "a")
    with pytest.raises(KeyError), rolled_back(conn):
        write(conn, "b")
        raise KeyError("x")
    assert stored(conn) == []
    with transaction(conn):
        write(conn, "c")
    assert stored(conn) == ["c"]
