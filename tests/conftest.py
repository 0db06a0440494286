"""The fixtures every test module may ask for; the helpers they are built on live in
tests/support/ (its __init__ says which module holds what)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.project import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "proj", tmp_path / "home")


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[str], Project]:
    """A factory for projects of one test (nothing installed yet)."""

    def make(name: str) -> Project:
        return Project(tmp_path / name, tmp_path / f"{name}-home")

    return make
