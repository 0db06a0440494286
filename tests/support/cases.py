"""Long tables of test cases kept as data: tests/data/cases/<file>.yaml maps a table's name to
its rows, each a mapping of an `id` and the fields its test takes. A table read as data is
checked by the one test that names it, and a row is added without writing Python.

A YAML list reads back as a tuple (what the code under test returns); a field a row leaves out
is None.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
import yaml

from tests.support.environment import REPO

CASES = REPO / "tests" / "data" / "cases"


@functools.cache
def _tables(file: str) -> dict[str, list[dict[str, Any]]]:
    tables: dict[str, list[dict[str, Any]]] = yaml.safe_load(
        (CASES / f"{file}.yaml").read_text("utf-8")
    )
    return tables


def _value(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def rows(file: str, table: str, *fields: str) -> list[Any]:
    """The rows of `table` in `file` as pytest params of `fields`, each with the row's id."""
    return [
        pytest.param(*(_value(row.get(field)) for field in fields), id=row["id"])
        for row in _tables(file)[table]
    ]


def cases(file: str, table: str, *fields: str) -> pytest.MarkDecorator:
    """A test run once for each row of `table` in `file`, its arguments named `fields`."""
    return pytest.mark.parametrize(fields, rows(file, table, *fields))
