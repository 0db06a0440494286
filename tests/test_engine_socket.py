"""Where the engine listens, for any project path (docs/design/storage.md#the-resident-engine):
`.style/engine.sock` when it fits a Unix socket address (about 108 bytes), else a short path in this
user's private folder `/tmp/agentstyle-<uid>/`; and `style engine start` says why when an engine
cannot start.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentstyle.runtime import client, enginelog
from tests.support.engine import installed
from tests.support.hooks import new_session
from tests.support.packages import NO_RM_RF, package_text
from tests.support.project import Project

PACKAGE = package_text("sock", NO_RM_RF, description="engine socket tests")
ENGINE_ON = {"STYLE_ENGINE": "on", "STYLE_ENGINE_IDLE_S": "120"}


def engine(project: Project, command: str) -> subprocess.CompletedProcess[str]:
    return project.process("engine", command, env=ENGINE_ON, timeout=60)


@pytest.fixture
def deep(tmp_path: Path) -> Iterator[Project]:
    """A project whose `.style/engine.sock` would be far over the socket address limit."""
    root = tmp_path / ("a-project-folder-with-a-long-name-" * 5) / "proj"
    project = Project(root, tmp_path / "home")
    assert len(str(project.style / "engine.sock")) > 150
    with installed(project, PACKAGE):
        yield project


def test_a_deep_project_gets_a_short_private_socket(deep: Project) -> None:
    out = engine(deep, "start")
    assert out.stdout.startswith("engine: running"), out.stdout + out.stderr
    path = Path(client.socket_path(str(deep.style)))
    folder = path.parent
    assert folder == Path("/tmp") / f"agentstyle-{os.getuid()}"
    assert len(os.fsencode(path)) < client.SUN_PATH_MAX
    assert not (deep.style / "engine.sock").exists()
    assert stat.S_ISSOCK(os.lstat(path).st_mode)
    assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.lstat(folder).st_mode) == 0o700
    served = (client.ping(str(deep.style)) or {})["served"]
    # hooks go through it
    session = new_session()
    payload = deep.payload("PreToolUse.bash-rm-rf.json", session_id=session)
    for _ in range(2):
        result = deep.hook("PreToolUse", payload, env=ENGINE_ON)
        assert "No recursive deletes." in result.stdout
    assert (client.ping(str(deep.style)) or {})["served"] == served + 2  # type: ignore[operator]
    assert engine(deep, "stop").stdout == "engine: stopped\n"
    assert not path.exists()


def test_the_same_project_through_a_link_meets_the_same_engine(
    deep: Project, tmp_path: Path
) -> None:
    """The place is computed from the real path: a hook that reached the project through a
    symbolic link (a short path) and `style engine` (the long one) agree."""
    link = tmp_path / "short"
    link.symlink_to(deep.root)
    assert client.socket_path(str(link / ".style")) == client.socket_path(str(deep.style))


def test_engine_start_says_why_it_cannot_start(project: Project) -> None:
    project.install(str(project.write_package(PACKAGE)))
    (project.style / "engine.sock").mkdir()  # nothing can listen there
    out = engine(project, "start")
    assert out.returncode == 1
    assert (
        out.stdout == f"engine: not running ({project.style.resolve()}/engine.sock is a folder)\n"
    )
    log = enginelog.path(project.style).read_text("utf-8")
    assert "could not start:" in log and "is a folder" in log
    # hooks still answer, directly
    payload = project.payload("PreToolUse.bash-rm-rf.json", session_id=new_session())
    assert "No recursive deletes." in project.hook("PreToolUse", payload, env=ENGINE_ON).stdout


def test_the_short_folder_must_be_private(tmp_path: Path) -> None:
    made = client.runtime_folder(str(tmp_path), create=True)
    assert stat.S_IMODE(os.lstat(made).st_mode) == 0o700
    assert client.runtime_folder(str(tmp_path)) == made
    os.chmod(made, 0o770)
    with pytest.raises(client.SocketPlaceError, match="open to other users"):
        client.runtime_folder(str(tmp_path), create=True)
    os.rmdir(made)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, made)  # a link planted in its place is not followed
    with pytest.raises(client.SocketPlaceError, match="is not a folder"):
        client.runtime_folder(str(tmp_path), create=True)
    with pytest.raises(client.SocketPlaceError, match="does not exist"):
        client.runtime_folder(str(tmp_path / "nowhere"))
