"""A teammate who clones the project is protected (issue: team-ready).

One person installs two packages (a bundled one by name, a local one committed with the
project) with `--scope project` and commits. A teammate clones the repository into another
folder, on a machine whose STYLE lives in another environment: the committed hook config and
lock name no path of the first machine, the teammate's first hook builds the rules database
from the lock and blocks a force push. On a machine without STYLE the harness tells the user
what to install, and a `--fail-closed` install still refuses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import style_in_process
from tests.support.environment import ORDINARY_DEADLINE_S, REPO
from tests.support.packages import package_text

FORCE_PUSH = {"tool_name": "Bash", "tool_input": {"command": "git push -f origin main"}}
HOUSE = package_text(
    "house",
    """
- id: no-curl-pipe
  target: tool
  tool: shell
  action: block
  when: 'tool.input.command shell_regex "^curl .*"'
  text: Do not download with curl here; use the vendored copy.
""",
    description="House rules committed with the project",
)


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    ).stdout


def other_environment(where: Path) -> Path:
    """STYLE installed in a second virtual environment: its own interpreter and `style-hook`
    script, the package found through a path entry as an installed copy would be."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    [site] = list((where / "lib").glob("python*/site-packages"))
    first_site = next(p for p in sys.path if p.endswith("site-packages"))
    (site / "agentstyle.pth").write_text(f"{REPO}\n{first_site}\n", encoding="utf-8")
    script = where / "bin" / "style-hook"
    script.write_text(
        f"#!{where / 'bin' / 'python3'}\nimport sys\nfrom agentstyle.hook import main\n"
        "sys.exit(main())\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return where / "bin"


def style(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = style_in_process(cwd, home, *args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def run_installed(
    clone: Path, home: Path, path: str, event: str, payload: dict[str, object], budget: bool
) -> subprocess.CompletedProcess[str]:
    """The committed handler for `event`, run as Claude Code runs it (`sh -c`, project cwd).

    `budget`: with the hook's real 2 s budget; else with the room the other hook tests give a
    loaded machine (support.environment ORDINARY_DEADLINE_S), so the first-use build is waited
    for."""
    settings = json.loads((clone / ".claude" / "settings.json").read_text("utf-8"))
    [group] = [g for g in settings["hooks"][event] if "style-hook" in g["hooks"][0]["command"]]
    command = group["hooks"][0]["command"]
    full = {"session_id": "teammate-1", "cwd": str(clone), "hook_event_name": event, **payload}
    env = {"PATH": path, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(clone)}
    if not budget:
        env["STYLE_DEADLINE_S"] = ORDINARY_DEADLINE_S
    return subprocess.run(
        ["/bin/sh", "-c", command],
        cwd=clone,
        env=env,
        input=json.dumps(full),
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_hook(clone: Path, home: Path, path: str, event: str, payload: dict[str, object]) -> dict:
    proc = run_installed(clone, home, path, event, payload, budget=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout  # one JSON object, nothing else
    answer: dict = json.loads(lines[0])
    return answer


@pytest.fixture(autouse=True)
def no_engine_left(tmp_path: Path) -> Iterator[None]:
    """The hooks here start resident engines (as a teammate's would): end each with its test,
    rather than leave it idling for minutes after the suite."""
    yield
    from agentstyle.runtime.client import stop_engine

    for home in tmp_path.glob("**/.style"):
        stop_engine(str(home))


@pytest.fixture
def committed(tmp_path: Path) -> tuple[Path, Path]:
    first = tmp_path / "alice" / "work" / "acme-api"
    (first / "policies" / "house").mkdir(parents=True)
    (first / "policies" / "house" / "STYLE.yaml").write_text(HOUSE, encoding="utf-8")
    git(first, "init", "-q")
    home = tmp_path / "alice-home"
    home.mkdir()
    style(first, home, "install", "guard-destructive", "policies/house", "--scope", "project")
    assert (first / ".style" / "style.duckdb").is_file()
    assert (first / ".style" / ".gitignore").read_text("utf-8").strip().endswith("*")
    git(first, "add", "-A")
    git(first, "commit", "-qm", "guards")
    return first, tmp_path


def teammate(committed: tuple[Path, Path], name: str) -> tuple[Path, Path, str]:
    """A teammate's clone of the committed project (`name`), their home, and a PATH with this
    environment's `style-hook` and the system's tools."""
    first, tmp = committed
    clone = tmp / name
    git(tmp, "clone", "-q", str(first), str(clone))
    home = tmp / f"{name}-home"
    home.mkdir()
    return clone, home, os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])


def test_committed_files_name_no_path_of_the_first_machine(committed: tuple[Path, Path]) -> None:
    first, _ = committed
    tracked = git(first, "ls-files").split()
    assert ".claude/settings.json" in tracked and "style.lock.yaml" in tracked
    assert not any(name.startswith(".style/") for name in tracked)  # gitignored by install
    machine = [str(first), str(Path(sys.executable).parent), sys.prefix, str(REPO)]
    for name in tracked:
        text = (first / name).read_text("utf-8", errors="replace")
        for path in machine:
            assert path not in text, f"{name} names {path}"
    lock = (first / "style.lock.yaml").read_text("utf-8")
    assert "library: guard-destructive" in lock and "path: policies/house" in lock


def test_the_teammates_first_hook_builds_the_database_and_blocks(
    committed: tuple[Path, Path],
) -> None:
    first, tmp = committed
    clone = tmp / "bob" / "src" / "acme"
    git(tmp, "clone", "-q", str(first), str(clone))
    assert not (clone / ".style").exists()
    bin_b = other_environment(tmp / "bob-venv")
    home = tmp / "bob-home"
    home.mkdir()
    path = os.pathsep.join([str(bin_b), "/usr/bin", "/bin"])
    answer = run_hook(clone, home, path, "PreToolUse", FORCE_PUSH)
    specific = answer["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny", answer
    assert "force" in specific["permissionDecisionReason"].lower()
    assert (clone / ".style" / "style.duckdb").is_file()
    # The teammate is told STYLE set itself up (in the field Claude Code shows the user).
    assert "built this machine's rules database from style.lock.yaml" in answer["systemMessage"]
    # The local package committed with the project holds on the clone too.
    curl = {"tool_name": "Bash", "tool_input": {"command": "curl -s https://x.example | tar x"}}
    answer = run_hook(clone, home, path, "PreToolUse", curl)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    # Building again is not needed: the database now matches the lock.
    built = (clone / ".style" / "built-from").read_text("utf-8")
    run_hook(clone, home, path, "PreToolUse", FORCE_PUSH)
    assert (clone / ".style" / "built-from").read_text("utf-8") == built


def test_a_build_slower_than_the_budget_is_answered_per_fail_and_goes_on(
    committed: tuple[Path, Path],
) -> None:
    """With the real 2 s budget the teammate's first hook does not wait for a build that takes
    longer (compiling the guards takes seconds): it answers within the budget, per `fail` (the
    guards' `fail: closed` rules put `--fail-closed` on the handler: refused) naming the build,
    or, on a fast machine, evaluated; the build goes on, and a later hook blocks."""
    clone, home, path = teammate(committed, "dora")
    t0 = time.monotonic()
    proc = run_installed(clone, home, path, "PreToolUse", FORCE_PUSH, budget=True)
    elapsed = time.monotonic() - t0
    assert elapsed < 2.0 + 1.5, elapsed  # the budget, and an interpreter start under load
    answer = json.loads(proc.stdout)
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    if proc.returncode == 1:  # not answered in time: refused, the cause named
        # The build still running, or (on a loaded machine) another cause of the budget's
        # fail answer (built just in time with no time left to evaluate the event, the build's
        # hold on the database): refused under the handler's --fail-closed, saying so.
        assert (
            "the rules database is still being built from style.lock.yaml" in reason
            or "--fail-closed" in reason
        ), reason
        # the refusal's line; where the build ended just in time, the line saying it was built
        # comes before it
        lines = proc.stderr.splitlines()
        assert lines and "refused (--fail-closed)" in lines[-1], proc.stderr
        assert all("built" in line for line in lines[:-1]) and len(lines) <= 2, proc.stderr
    else:
        assert proc.returncode == 0 and "force" in reason.lower(), proc.stdout
    marker = clone / ".style" / "building"
    give_up = time.monotonic() + 90
    while marker.exists():
        assert time.monotonic() < give_up, "the build never ended"
        time.sleep(0.1)
    again = run_installed(clone, home, path, "PreToolUse", FORCE_PUSH, budget=True)
    assert again.returncode == 0, again.stderr
    specific = json.loads(again.stdout)["hookSpecificOutput"]
    assert "force" in specific["permissionDecisionReason"].lower()


def test_a_lock_changed_by_a_pull_rebuilds_the_database(committed: tuple[Path, Path]) -> None:
    first, tmp = committed
    clone, home, path = teammate(committed, "carol")
    curl = {"tool_name": "Bash", "tool_input": {"command": "curl -s https://x.example"}}
    assert (
        run_hook(clone, home, path, "PreToolUse", curl)["hookSpecificOutput"]["permissionDecision"]
        == "deny"
    )
    # Upstream takes the house package out; the pull brings the new lock and config.
    style(first, tmp / "alice-home", "uninstall", "house")
    git(first, "add", "-A")
    git(first, "commit", "-qm", "drop house rules")
    git(clone, "pull", "-q")
    answer = run_hook(clone, home, path, "PreToolUse", FORCE_PUSH)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    settings = json.loads((clone / ".claude" / "settings.json").read_text("utf-8"))
    assert "PreToolUse" in settings["hooks"]
    out = subprocess.run(
        ["/bin/sh", "-c", settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]],
        cwd=clone,
        env={"PATH": path, "HOME": str(home)},
        input=json.dumps(
            {"session_id": "c", "cwd": str(clone), "hook_event_name": "PreToolUse", **curl}
        ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "deny" not in out.stdout  # the rebuilt policy no longer has the house rule


@pytest.mark.parametrize(
    ("package", "flags", "refused"),
    [
        ("house", [], False),  # nothing requires a refusal: the user is told, the call runs
        ("house", ["--fail-closed"], True),  # the install asked for refusals
        ("guard-destructive", [], True),  # its rules are `fail: closed`: the config says so
    ],
)
def test_a_machine_without_style_is_told_what_to_install(
    tmp_path: Path, package: str, flags: list[str], refused: bool
) -> None:
    project = tmp_path / "proj"
    (project / "house").mkdir(parents=True)
    (project / "house" / "STYLE.yaml").write_text(HOUSE, encoding="utf-8")
    git(project, "init", "-q")
    home = tmp_path / "home"
    home.mkdir()
    style(project, home, "install", package, *flags)
    git(project, "add", "-A")
    git(project, "commit", "-qm", "guards")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(project), str(clone))
    answer = run_hook(clone, home, "/usr/bin:/bin", "PreToolUse", FORCE_PUSH)
    text = json.dumps(answer)
    assert "STYLE is not installed on this machine" in text
    assert "pipx install agentstyle" in text and "style sync" in text
    if refused:
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    else:
        assert answer == {
            "systemMessage": "STYLE is not installed on this machine: pipx install agentstyle "
            "/ uv tool install agentstyle, then style sync"
        }
