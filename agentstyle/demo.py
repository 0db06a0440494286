"""`make demo`: a tour of STYLE on the bundled packages, from validate to replay.

It validates and plans the bundled packages, installs one, drives a session through it, audits
it, and replays a recorded transcript against a package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = REPO / "agentstyle" / "library"  # the bundled library
FIXTURES = REPO / "tests" / "fixtures" / "claude-code"
PROJECT = REPO / "demo-project"
# A synthetic session (datasets/transcripts/README.md): edits adding unwrap(), a .env read, a
# stop without tests.
REPLAYED = "datasets/transcripts/01-auth-unwrap.jsonl"

# A realistic session, in order: (native event, payload overrides).
SESSION: list[tuple[str, dict[str, object]]] = [
    ("SessionStart", {"source": "startup", "model": "claude-sonnet-4-5-20250929"}),
    ("UserPromptSubmit", {"prompt": "Drop the unwrap() calls in src/auth/session.rs"}),
    ("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "cargo build -p acme-auth"}}),
    (
        "PreToolUse",
        {
            "tool_name": "Edit",
            "tool_input": {
                "file_path": "{cwd}/src/auth/session.rs",
                "old_string": "let t = h.to_str()?;",
                "new_string": 'let t = h.to_str().expect("ascii");',
            },
        },
    ),
    (
        "PostToolUse",
        {
            "tool_name": "Edit",
            "tool_input": {
                "file_path": "{cwd}/src/auth/session.rs",
                "old_string": "a",
                "new_string": "b",
            },
            "tool_response": {"filePath": "{cwd}/src/auth/session.rs"},
        },
    ),
    (
        "PostToolUse",
        {
            "tool_name": "Edit",
            "tool_input": {
                "file_path": "{cwd}/src/auth/token.rs",
                "old_string": "a",
                "new_string": "b",
            },
            "tool_response": {"filePath": "{cwd}/src/auth/token.rs"},
        },
    ),
    ("PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": "{cwd}/.env.production"}}),
    (
        "PreToolUse",
        {
            "tool_name": "Bash",
            "tool_input": {"command": "cargo fmt && GIT_TRACE=0 git push -f origin main"},
        },
    ),
    ("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "echo 'rm -rf /' > notes.txt"}}),
    ("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "sudo rm -rf ./target /tmp/x"}}),
    ("PreCompact", {"trigger": "auto", "custom_instructions": ""}),
    ("SessionStart", {"source": "compact"}),
    (
        "Stop",
        {
            "stop_hook_active": False,
            "last_assistant_message": "Replaced the unwraps. I did not run the tests.",
        },
    ),
    ("Stop", {"stop_hook_active": True, "last_assistant_message": "Tests pass (14)."}),
]


HOOK_ENV = {
    **os.environ,
    "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
}


def style(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentstyle", *args],
        cwd=cwd,
        text=True,
        capture_output=True,
        check=False,
    )


def step(title: str) -> None:
    print(f"\n== {title}")


def fill(value: object, cwd: str) -> object:
    if isinstance(value, str):
        return value.replace("{cwd}", cwd)
    if isinstance(value, dict):
        return {k: fill(v, cwd) for k, v in value.items()}
    return value


def installed_commands(project: Path) -> dict[str, str]:
    settings = json.loads((project / ".claude" / "settings.json").read_text("utf-8"))
    return {
        event: groups[0]["hooks"][0]["command"]
        for event, groups in settings.get("hooks", {}).items()
    }


def main() -> int:
    step("1. validate and plan every bundled package")
    packages = sorted(str(p.relative_to(REPO)) for p in PACKAGES.iterdir() if p.is_dir())
    result = style("validate", *packages, cwd=REPO)
    print(result.stdout + result.stderr, end="")
    if result.returncode != 0:
        return 1
    print(
        style("plan", "agentstyle/library/starter", "--harness", "claude-code", cwd=REPO).stdout,
        end="",
    )

    step("2. install `starter` into a scratch project")
    shutil.rmtree(PROJECT, ignore_errors=True)
    (PROJECT / "src" / "auth").mkdir(parents=True)
    result = style("install", str(PACKAGES / "starter"), "--harness", "claude-code", cwd=PROJECT)
    print(result.stdout + result.stderr, end="")
    if result.returncode != 0:
        return 1
    commands = installed_commands(PROJECT)
    # One portable command per event (no path of this machine: the file is committed).
    first = next(iter(commands.values()), "")
    print(f"  handlers for {', '.join(commands)}; each like:\n    {first}")

    step("3. a session through the installed hook commands (payload on stdin)")
    base = (
        json.loads((FIXTURES / "PreToolUse.bash-rm-rf.json").read_text("utf-8"))
        if FIXTURES.exists()
        else {"session_id": "demo-session"}
    )
    cwd = str(PROJECT)
    for native, overrides in SESSION:
        filled = fill(overrides, cwd)
        assert isinstance(filled, dict)
        payload: dict[str, object] = {
            "session_id": base.get("session_id", "demo"),
            "cwd": cwd,
            "hook_event_name": native,
            **filled,
        }
        handler = commands.get(native)
        if handler is None:
            print(f"  {native:<17} (no STYLE handler installed: the harness does not call STYLE)")
            continue
        # As the harness runs it: `sh -c COMMAND`, STYLE's scripts on PATH as an install puts
        # them (pipx / uv tool / an activated venv).
        run = subprocess.run(
            ["/bin/sh", "-c", handler],
            input=json.dumps(payload),
            text=True,
            capture_output=True,
            cwd=PROJECT,
            env=HOOK_ENV,
            check=False,
        )
        what = (
            payload.get("tool_input")
            or payload.get("prompt")
            or payload.get("source")
            or payload.get("last_assistant_message")
            or payload.get("trigger", "")
        )
        if isinstance(what, dict):
            what = what.get("command") or str(what.get("file_path", "")).replace(cwd + "/", "")
        print(f"  {native:<17} {str(what)[:60]!s:<62} exit={run.returncode}")
        print(f"    stdout: {run.stdout.strip() or '(nothing: no opinion)'}")

    step("4. what the history holds")
    from agentstyle.audit.history import outcomes_by_rule

    # The hooks started a resident engine, which holds the database until it is asked to stop.
    style("engine", "stop", cwd=PROJECT)
    for row in outcomes_by_rule(PROJECT):
        print(f"  {row.rule_id:<28} {row.outcome:<18} {row.n}")

    step("5. audit summary of that history")
    result = style("audit", "summary", cwd=PROJECT)
    print(result.stdout + result.stderr, end="")
    if result.returncode != 0:
        return 1

    step(f"6. replay of a bundled transcript ({REPLAYED}) against `starter`, before installing it")
    result = style(
        "replay",
        REPLAYED,
        "--package",
        "agentstyle/library/starter",
        "--harness",
        "claude-code",
        cwd=REPO,
    )
    print(result.stdout + result.stderr, end="")
    if result.returncode != 0:
        return 1
    print(f"\nThe scratch project is {PROJECT} (removed and made anew by the next `make demo`).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
