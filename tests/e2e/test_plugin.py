"""STYLE as a Claude Code plugin (`claude --plugin-dir plugins/style`), in the real client: a
project that carries only a committed `style.lock.yaml` (no `.claude/settings.json`, no
`.style/`) is guarded, its rules database built from the lock on first use; a folder without a
lock costs nothing (docs/harnesses/claude-code.md#as-a-plugin)."""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
import time

from agentstyle.harnesses.gemini_cli import NOT_HERE as NOT_GEMINI
from agentstyle.install import plugin
from e2e.clients import CLIENT, REPO, RUN_TIMEOUT_S, Session, binary, end_group
from e2e.mockapi import Say, Script
from e2e.scenarios import BLOCK_PACKAGE, assert_blocked, shell, tool_results

PLUGIN_DIR = REPO / "plugins" / "style"
PLUGIN_ID = "style@agentstyle"
WARM_UP = "E2E-WARM-UP say hello"
BUILD_WAIT_S = 90.0


def plugin_args() -> list[str]:
    return ["--plugin-dir", str(PLUGIN_DIR)]


def plugin_runs(run_debug: str) -> int:
    """How many hook runs of the plugin's `style-hook` command the debug log records."""
    return run_debug.count("exec style-hook --harness claude-code")


def lock_only(s: Session) -> None:
    """A teammate's clone: the lock and the package it names committed, nothing else of STYLE
    (no hook config, no `.style/`)."""
    policy = s.project / "policy"
    policy.mkdir()
    (policy / "STYLE.yaml").write_text(textwrap.dedent(BLOCK_PACKAGE).lstrip())
    s.style("install", "policy", "--harness", s.harness)
    s.style("engine", "stop", check=False)
    shutil.rmtree(s.config.parent)
    shutil.rmtree(s.project / ".style")
    left = sorted(p.name for p in s.project.iterdir() if p.name != ".git")
    assert left == ["README.md", "policy", "style.lock.yaml", "victim.txt"], left


def wait_for_first_build(s: Session) -> None:
    database = s.project / ".style" / "style.duckdb"
    deadline = time.monotonic() + BUILD_WAIT_S
    while not (database.exists() and not (s.project / ".style" / "building").exists()):
        assert time.monotonic() < deadline, "the first hook did not build the rules database"
        time.sleep(0.5)


def script(harness: str = "claude-code") -> Script:
    def warm_up(req):  # the first session only starts the first-use build
        return [Say("hello")] if WARM_UP in req.text and req.step == 0 else None

    return Script([[Say("Deleting it."), shell(harness, "rm victim.txt")]], pick=warm_up)


def test_plugin_guards_a_lock_only_project(session) -> None:
    s: Session = session("claude-code", script())
    lock_only(s)
    first = s.run(WARM_UP, extra=plugin_args())
    assert plugin_runs(first.debug) >= 1, "the plugin's hooks never ran"
    wait_for_first_build(s)
    assert not (s.project / ".claude").exists(), "the plugin install edited the project"

    run = s.run("delete victim.txt", extra=plugin_args())
    assert_blocked(s)
    assert plugin_runs(run.debug) >= 2
    assert not (s.project / ".claude").exists()
    assert recorded_harnesses(s) == ["claude-code"]


def test_plugin_does_nothing_in_a_folder_without_a_lock(session) -> None:
    s: Session = session("claude-code", script())
    run = s.run("delete victim.txt", extra=plugin_args())
    assert not (s.project / "victim.txt").exists(), "the call did not run without a policy"
    assert not (s.project / ".style").exists(), "the plugin's hooks made a .style folder"
    assert plugin_runs(run.debug) >= 2, "the plugin's hooks never ran"
    # the hooks answered nothing: no hook error, no STYLE text anywhere the model reads
    assert "finished with status 0" in run.debug
    assert all("STYLE" not in r.text for r in s.requests()), "a STYLE answer reached the model"


def claude_plugin(s: Session, *args: str) -> str:
    """`claude plugin ARGS` of the pinned client, in the session's HOME and project."""
    done = subprocess.run(
        [str(binary("claude-code")), "plugin", *args],
        cwd=s.project,
        env={**s.env(), "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"claude plugin {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def test_marketplace_install_guards_and_doctor_sees_it(session) -> None:
    """`claude plugin marketplace add` + `claude plugin install style@agentstyle` (what
    `/plugin …` does in a session): no --plugin-dir, no settings hooks; `style doctor` reports
    the plugin, and warns once a settings install of STYLE runs beside it."""
    s: Session = session("claude-code", script())
    lock_only(s)
    claude_plugin(s, "marketplace", "add", str(REPO))
    claude_plugin(s, "install", PLUGIN_ID)
    settings = json.loads((s.home / ".claude" / "settings.json").read_text())
    assert settings["enabledPlugins"] == {PLUGIN_ID: True}
    assert "hooks" not in settings and not (s.project / ".claude").exists()

    s.run(WARM_UP)
    wait_for_first_build(s)
    s.run("delete victim.txt")
    assert_blocked(s)

    doctor = s.style("doctor", check=False)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert f"ok: claude-code: STYLE plugin enabled ({PLUGIN_ID}, in ~/.claude/settings.json" in (
        doctor.stdout
    )
    # the synthetic events go through the copy of the plugin the client runs
    assert "ok: claude-code: PreToolUse: the installed command answered" in doctor.stdout
    assert "twice" not in doctor.stdout and ".claude/settings.json is missing" not in doctor.stdout

    s.style("install", "policy", "--harness", "claude-code")
    doctor = s.style("doctor", "--no-fire", check=False)
    assert "warning: claude-code: STYLE is installed twice here" in doctor.stdout, doctor.stdout

    claude_plugin(s, "disable", PLUGIN_ID)
    doctor = s.style("doctor", "--no-fire", check=False)
    assert "STYLE plugin enabled" not in doctor.stdout and "twice" not in doctor.stdout


def gemini_extension(s: Session, *args: str) -> str:
    """`gemini extensions ARGS` of the pinned client, in the session's HOME."""
    done = subprocess.run(
        [str(binary("gemini-cli")), "extensions", *args],
        cwd=s.project,
        env={**s.env(), "GEMINI_CLI_NO_RELAUNCH": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"gemini extensions {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout + done.stderr  # (the list goes to stderr)


def install_gemini_extension(s: Session) -> None:
    """The extension installed from a folder holding the repository's two extension files (a
    local install copies its whole source, and a checkout has virtual environments in it)."""
    source = s.root / "extension-source"
    (source / "hooks").mkdir(parents=True)
    for rel in plugin.extension_paths("gemini-cli"):
        shutil.copyfile(REPO / rel, source / rel)
    # the client asks before it installs from a folder it does not trust
    trusted = s.home / ".gemini" / "trustedFolders.json"
    trust = json.loads(trusted.read_text())
    trusted.write_text(json.dumps({**trust, str(source): "TRUST_FOLDER"}))
    gemini_extension(s, "install", str(source), "--consent")
    assert "style (" in gemini_extension(s, "list")
    copy = s.home / ".gemini" / "extensions" / "style"
    assert (copy / "gemini-extension.json").is_file() and (copy / "hooks" / "hooks.json").is_file()


def test_gemini_extension_guards_a_lock_only_project(session) -> None:
    """`gemini extensions install <repo>`: the extension's hooks, with no hooks in any
    settings file (nor their enable flag), guard a lock-only project."""
    s: Session = session("gemini-cli", script("gemini-cli"))
    lock_only(s)
    install_gemini_extension(s)
    user = json.loads((s.home / ".gemini" / "settings.json").read_text())
    assert "hooks" not in user and "tools" not in user
    s.run(WARM_UP)
    wait_for_first_build(s)
    s.run("delete victim.txt")
    assert_blocked(s)
    assert not (s.project / ".gemini").exists(), "the extension edited the project"
    assert recorded_harnesses(s) == ["gemini-cli"]
    doctor = s.style("doctor", check=False)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert (
        "ok: gemini-cli: STYLE extension enabled (style, in ~/.gemini/extensions; "
        "hooks from ~/.gemini/extensions/style)"
    ) in doctor.stdout
    assert "ok: gemini-cli: BeforeTool: the installed command answered" in doctor.stdout
    # (a user-scope disable writes `!<home>/*`, and a folder outside the home folder that no
    # rule matches stays enabled, by Gemini CLI's rules as doctor reads them)
    gemini_extension(s, "disable", "style", "--scope", "workspace")
    assert "STYLE extension enabled" not in s.style("doctor", "--no-fire", check=False).stdout


def test_gemini_extension_does_nothing_in_a_folder_without_a_lock(session) -> None:
    s: Session = session("gemini-cli", script("gemini-cli"))
    install_gemini_extension(s)
    s.run("delete victim.txt")
    assert not (s.project / "victim.txt").exists(), "the call did not run without a policy"
    assert not (s.project / ".style").exists(), "the extension's hooks made a .style folder"
    assert all("STYLE" not in r.text for r in s.requests()), "a STYLE answer reached the model"


def codex_plugin(s: Session, *args: str) -> str:
    """`codex plugin ARGS` of the pinned client, in the session's CODEX_HOME."""
    done = subprocess.run(
        [str(binary("codex")), "plugin", *args],
        cwd=s.project,
        env={**s.env(), "CODEX_HOME": str(s.home / ".codex")},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"codex plugin {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def recorded_harnesses(s: Session) -> list[str]:
    """The harnesses the project's recorded events name (the engine stopped first)."""
    import duckdb

    s.style("engine", "stop", check=False)
    with duckdb.connect(str(s.project / ".style" / "style.duckdb"), read_only=True) as db:
        return [row[0] for row in db.execute("SELECT DISTINCT harness FROM events").fetchall()]


def install_codex_plugin(s: Session) -> None:
    """Codex reads the Claude Code marketplace; the plugin's `.codex-plugin/plugin.json` points
    it at the Codex hooks (`hooks/codex.json`), which alone it runs."""
    codex_plugin(s, "marketplace", "add", str(REPO))
    codex_plugin(s, "add", PLUGIN_ID)
    copy = s.home / ".codex" / "plugins" / "cache" / "agentstyle" / "style"
    [version] = list(copy.iterdir())
    assert (version / ".codex-plugin" / "plugin.json").is_file()


def test_codex_plugin_guards_a_lock_only_project(session) -> None:
    s: Session = session("codex", script("codex"))
    lock_only(s)
    install_codex_plugin(s)
    s.run(WARM_UP)
    wait_for_first_build(s)
    s.run("delete victim.txt")
    assert_blocked(s)
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any("Command blocked by PreToolUse hook" in t for t in results), results
    # the Codex hooks answered, not the Claude Code ones the same plugin folder carries
    assert recorded_harnesses(s) == ["codex"]
    doctor = s.style("doctor", check=False)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert f"ok: codex: STYLE plugin enabled ({PLUGIN_ID}, in ~/.codex/config.toml" in doctor.stdout
    assert "ok: codex: PreToolUse: the installed command answered" in doctor.stdout
    assert not (s.project / ".codex").exists(), "the plugin edited the project"


def test_codex_plugin_does_nothing_in_a_folder_without_a_lock(session) -> None:
    s: Session = session("codex", script("codex"))
    install_codex_plugin(s)
    s.run("delete victim.txt")
    assert not (s.project / "victim.txt").exists(), "the call did not run without a policy"
    assert not (s.project / ".style").exists(), "the plugin's hooks made a .style folder"
    assert all("STYLE" not in r.text for r in s.requests()), "a STYLE answer reached the model"


def test_the_repository_root_is_no_claude_code_plugin(session) -> None:
    """`claude --plugin-dir <repository root>` loads the root's `hooks/hooks.json`, the Gemini
    CLI extension's: its hooks answer in no dialect there and say which folder is the plugin."""
    s: Session = session("claude-code", script())
    lock_only(s)
    run = s.run("delete victim.txt", extra=["--plugin-dir", str(REPO)])
    assert "exec style-hook --harness gemini-cli" in run.debug, "the root's hooks did not load"
    assert "finished with status 1" in run.debug
    assert NOT_GEMINI in run.stdout, "the person was not told which folder is the plugin"
    assert not (s.project / ".style").exists(), "a Gemini CLI hook ran STYLE under Claude Code"


def test_codex_plugin_hooks_run_only_once_trusted(session) -> None:
    """Without hook trust (`--dangerously-bypass-hook-trust` in these runs, `/hooks` for a
    person), `codex exec` skips the plugin's hooks silently, as it skips a project's."""
    s: Session = session("codex", script("codex"))
    lock_only(s)
    install_codex_plugin(s)
    argv, env, _ = CLIENT["codex"].command(s, "delete victim.txt", False, [])
    untrusted = [a for a in argv if a != "--dangerously-bypass-hook-trust"]
    assert len(untrusted) == len(argv) - 1
    proc = subprocess.Popen(
        untrusted,
        cwd=s.project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        proc.communicate(timeout=RUN_TIMEOUT_S)
    finally:
        end_group(proc)
    assert not (s.project / "victim.txt").exists(), "an untrusted plugin hook refused the call"
    assert not (s.project / ".style").exists(), "an untrusted plugin hook ran"
