"""The repository stands on its own: nothing in it reads or names a folder beside the clone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The reference shelf some sessions keep beside the clone; a user who clones the project
# has nothing there. Spelled in two parts so this file does not name it itself.
SIBLING = "../" + "shared"


def tracked_files(repo: Path) -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True
    ).stdout.decode()
    return [repo / name for name in out.split("\0") if name]


def test_no_file_of_the_repository_names_the_folder_beside_it() -> None:
    offenders = []
    for path in tracked_files(REPO):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if SIBLING.encode() in data:
            offenders.append(path.relative_to(REPO).as_posix())
    assert offenders == []


def test_a_clone_with_nothing_beside_it_runs_the_demo_and_collects_every_test(
    tmp_path: Path,
) -> None:
    """A fresh clone in an empty folder: the demo runs and the whole suite collects there."""
    clone = tmp_path / "alone" / "style"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    # The clone holds what is committed; bring the working tree's changes for a dirty checkout.
    diff = subprocess.run(
        ["git", "diff", "HEAD", "--binary"], cwd=REPO, capture_output=True, check=True
    ).stdout
    if diff:
        subprocess.run(["git", "apply", "--allow-empty"], cwd=clone, input=diff, check=True)
    untracked = subprocess.run(
        ["git", "ls-files", "-z", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, untracked.split("\0")):
        target = clone / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((REPO / name).read_bytes())
    assert sorted(p.name for p in (tmp_path / "alone").iterdir()) == ["style"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STYLE_", "CLAUDE_"))}
    env["PYTHONPATH"] = str(clone)

    def python(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, *args], cwd=clone, env=env, capture_output=True, text=True, timeout=300
        )

    demo = python("-m", "agentstyle.demo")
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    collect = python("-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider")
    assert collect.returncode == 0, collect.stdout[-3000:] + collect.stderr[-2000:]
    assert "error" not in collect.stdout.lower().splitlines()[-1]
