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


# The modules that take longest (a module fixture that installs projects and runs every hook
# process of its scenarios, or many hook processes of their own), longest first. `make test`
# hands whole modules to its workers (`--dist loadfile`: a module fixture is built once) in the
# order collected, so these start first and the run does not end waiting on one of them; the
# rest follow in their usual order.
SLOW_FIRST = (
    "test_hook_scenarios.py",
    "test_observers.py",
    "test_history_state.py",
    "test_doctor_clean.py",
    "test_harness_expected.py",
    "test_doctor.py",
    "test_cross_harness.py",
    "test_hook_concurrency.py",
    "test_runtime_edges.py",
    "test_hook_failures.py",
    "test_import.py",
    "test_init.py",
    "test_hook_fixtures.py",
    "test_redteam.py",
    "test_corpus_floors.py",
    "test_corpus_harnesses.py",
    "test_selfprotect.py",
    "test_harness_install.py",
    "test_allow.py",
    "test_cli_json.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    missing = [name for name in SLOW_FIRST if not (Path(__file__).parent / name).is_file()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py SLOW_FIRST names no module: {missing}")
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
