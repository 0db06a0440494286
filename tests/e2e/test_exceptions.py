"""A team's exception to a bundled guard, in the real Claude Code: the excepted command runs, a
line that holds it beside a command the guard still refuses is refused whole
(docs/packages.md#exceptions)."""

from __future__ import annotations

from e2e.clients import Session
from e2e.mockapi import Say, Script
from e2e.scenarios import shell, tool_results

HARNESS = "claude-code"
REASON = "E2E-EXCEPTION the build cache is ours to clear"


def test_an_exception_lets_its_command_through_and_no_other(session) -> None:
    # run from the project: `../cache` is beside it, outside it and not scratch space
    script = Script(
        [
            [Say("Clearing x."), shell(HARNESS, "rm -rf ../cache/x")],
            [Say("Clearing y and keep."), shell(HARNESS, "rm -rf ../cache/y && rm -rf ../keep")],
        ],
        last=[Say("Done.")],
    )
    s: Session = session(HARNESS, script)
    cache = s.root / "cache"
    for name in ("x", "y"):
        (cache / name).mkdir(parents=True)
    keep = s.root / "keep"
    keep.mkdir()
    team = s.package(
        f"""
        spec: style/v0.3
        name: team
        version: 1.0.0
        description: the team's exceptions to the bundled guards
        exceptions:
          - rule: guard-destructive/rm-outside-project
            unless: 'command "rm" where (path glob "{cache}/**")'
            reason: "{REASON}"
        """,
        "team",
    )
    s.style("install", "guard-destructive", str(team), "--harness", HARNESS)
    plan = s.style("plan", "guard-destructive", str(team), "--harness", HARNESS).stdout
    assert f"excepted by team: {REASON}" in plan
    s.run("clear the build cache")
    assert not (cache / "x").exists(), "the excepted rm did not run"
    # the second call is refused whole: its first command is excepted, its second is not
    assert (cache / "y").exists() and keep.exists(), "a refused line ran"
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any("rm-outside-project" in t for t in results), results
    # the history says where the exception took effect, with its reason
    audit = s.style("audit", "rules", "--format", "json").stdout
    assert REASON in audit
