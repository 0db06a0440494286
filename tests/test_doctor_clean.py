"""`style doctor` is right on a clean install of every bundled package on every harness, and
the command its advice names fixes what it reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentstyle.harnesses.facts import Can, spec_for
from agentstyle.install.library import LIBRARY, bundled_path
from tests.support.harness import HARNESSES, HarnessProject
from tests.support.project import Saved

# `bundled()`'s names, without parsing every package at collection (in every test process)
PACKAGES = sorted(p.name for p in LIBRARY.iterdir() if bundled_path(p.name))
# The settings a bundled package has no default for: install asks for them (`setting-missing`).
REQUIRED = {"observers": ("--set", "test_command=true")}


def errors(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("error:")]


# Doctor fires each installed command as a process of its own (two a harness): over every
# package and harness that is some 240 hook processes, each running the same code per harness.
# So each package fires on one harness, the harnesses taken in turn (every package's rules
# answer a fire, every harness's commands are fired, with several packages), and doctor reads
# every other pair's install without firing (tests/test_doctor.py fires every harness too).
FIRED = {package: HARNESSES[i % len(HARNESSES)] for i, package in enumerate(PACKAGES)}


def test_every_harness_is_fired_with_some_package() -> None:
    assert set(FIRED.values()) == set(HARNESSES)


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("package", PACKAGES)
def test_doctor_passes_right_after_installing_a_bundled_package(
    tmp_path: Path, package: str, harness: str
) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    installed = p.cli("install", package, "--harness", harness, *REQUIRED.get(package, ()))
    if installed.returncode != 0 and Can.DENY not in spec_for(harness).points["stop"].capabilities:
        # a harness that cannot continue a stop (OpenCode) refuses the bundled stop gates by
        # name, and nothing else
        refused = [line for line in installed.stderr.splitlines() if "install-error" in line]
        assert refused, installed.stderr
        assert all(line.endswith(f"on {harness} at stop: capability-missing") for line in refused)
        assert FIRED[package] != harness, "the package fires nowhere: give it another harness"
        return
    # every bundled package installs on every harness, given its required settings (what a
    # harness lacks, it degrades)
    assert installed.returncode == 0, installed.stderr
    fire = FIRED[package] == harness
    proc = p.cli("doctor", "--fire" if fire else "--no-fire")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert errors(proc.stdout) == []
    assert f"ok: {harness}:" in proc.stdout
    assert ("the installed command answered" in proc.stdout) == fire, proc.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Saved:
    """guard-destructive installed for every harness once; each test breaks its own copy."""

    def setup(base: Path) -> None:
        p = HarnessProject(base / "proj", base / "home")
        for harness in HARNESSES:
            assert p.cli("install", "guard-destructive", "--harness", harness).returncode == 0

    return Saved.build(tmp_path_factory, "guarded", setup)


@pytest.fixture
def guarded(installed: Saved) -> HarnessProject:
    return installed.project(HarnessProject)


def _fixed_by_its_advice(p: HarnessProject) -> None:
    """Doctor reports one problem naming `style sync`; after `style sync` it passes. What is
    broken here is a file doctor reads, so it is asked without firing the installed commands
    (what they answer on a clean install is the test above's)."""
    broken = p.cli("doctor", "--no-fire")
    assert broken.returncode == 1
    assert errors(broken.stdout) and all("style sync" in e for e in errors(broken.stdout))
    assert p.cli("sync").returncode == 0
    fixed = p.cli("doctor", "--no-fire")
    assert fixed.returncode == 0, fixed.stdout


def test_a_deleted_database_is_fixed_by_sync(guarded: HarnessProject) -> None:
    p = guarded
    (p.root / ".style" / "style.duckdb").unlink()
    _fixed_by_its_advice(p)


def test_a_hand_edited_config_is_fixed_by_sync(guarded: HarnessProject) -> None:
    p = guarded
    config = p.config("claude-code")
    doc = json.loads(config.read_text("utf-8"))
    del doc["hooks"]["PreToolUse"]
    config.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    _fixed_by_its_advice(p)


def test_a_deleted_config_is_fixed_by_sync(guarded: HarnessProject) -> None:
    p = guarded
    p.config("codex").unlink()
    _fixed_by_its_advice(p)


def test_a_lost_static_block_is_fixed_by_sync(tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    pkg = p.root / "brief"
    pkg.mkdir(parents=True)
    (pkg / "STYLE.yaml").write_text(
        "spec: style/v0.3\nname: brief\nversion: 1.0.0\ndescription: d\nrules:\n"
        "  - id: house\n    mode: replace\n    text: We write tests first.\n",
        encoding="utf-8",
    )
    assert p.cli("install", "brief", "--harness", "claude-code").returncode == 0
    (p.root / "CLAUDE.md").write_text("# notes\n", encoding="utf-8")
    _fixed_by_its_advice(p)
    assert "We write tests first." in (p.root / "CLAUDE.md").read_text("utf-8")


def test_a_moved_style_folder_is_fixed_by_sync(guarded: HarnessProject) -> None:
    p = guarded
    shutil.rmtree(p.root / ".style")
    _fixed_by_its_advice(p)


def test_a_history_readable_by_others_is_a_warning_and_sync_tightens_it(tmp_path: Path) -> None:
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    assert p.cli("install", "guard-destructive").returncode == 0
    home, db = p.root / ".style", p.root / ".style" / "style.duckdb"
    assert (home.stat().st_mode & 0o777, db.stat().st_mode & 0o777) == (0o700, 0o600)
    home.chmod(0o755)
    db.chmod(0o644)
    proc = p.cli("doctor")
    assert proc.returncode == 0  # a warning, not a broken install
    [line] = [x for x in proc.stdout.splitlines() if "readable by other users" in x]
    assert line.startswith("warning: ") and "style.duckdb is 0644" in line
    assert p.cli("sync").returncode == 0
    assert (home.stat().st_mode & 0o777, db.stat().st_mode & 0o777) == (0o700, 0o600)
    assert "readable by other users" not in p.cli("doctor").stdout


def test_audit_warns_on_a_history_readable_by_others(tmp_path: Path) -> None:
    """`style audit` reads the history: it gives doctor's warning (on stderr, the report on
    stdout stays clean), until `style sync` tightens the modes."""
    p = HarnessProject(tmp_path / "proj", tmp_path / "home")
    assert p.cli("install", "guard-destructive").returncode == 0
    quiet = p.cli("audit", "summary", "--format", "json")
    assert quiet.returncode == 0 and "readable by other users" not in quiet.stderr
    (p.root / ".style" / "style.duckdb").chmod(0o644)
    proc = p.cli("audit", "summary", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.startswith("style: warning: the history in .style")
    assert "style.duckdb is 0644 (want 0600)" in line and "`style sync`" in line
    json.loads(proc.stdout)  # the report itself is untouched
    assert p.cli("sync").returncode == 0
    assert "readable by other users" not in p.cli("audit", "summary").stderr
