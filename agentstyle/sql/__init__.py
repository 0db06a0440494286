"""The SQL statements, one per `.sql` file under `sql/<area>/`, loaded by name."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def statement(name: str) -> str:
    """The statement in `sql/<area>/<name>.sql` (e.g. `evaluate/match`)."""
    area, _, stem = name.partition("/")
    return resources.files(__name__).joinpath(area).joinpath(f"{stem}.sql").read_text("utf-8")
