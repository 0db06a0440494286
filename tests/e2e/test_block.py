"""A blocked shell call in each real client, and proof the suite can fail."""

from __future__ import annotations

import json
import stat
import sys

import pytest

from e2e.clients import HARNESSES, Session, is_style_command
from e2e.scenarios import BLOCK_PACKAGE, BLOCK_REASON, assert_blocked, block_script, tool_results


@pytest.mark.parametrize("harness", HARNESSES)
def test_blocked_shell_call(session, harness: str) -> None:
    s: Session = session(harness, block_script(harness))
    s.install(BLOCK_PACKAGE)
    s.run("delete victim.txt")
    assert_blocked(s)
    # the reason arrives as the call's result, where the model reads what its call did
    results = [t for r in s.requests() for t in tool_results(r.body)]
    assert any(BLOCK_REASON in t for t in results), results


BROKEN_WRAPPER = """#!{python}
# A hook whose answer is broken the way a shell profile banner breaks it: one line before the
# JSON on stdout. The client then ignores the JSON, so the call runs.
import subprocess, sys
done = subprocess.run({command!r}, shell=True, stdin=sys.stdin, capture_output=True)
sys.stdout.write("welcome to the machine\\n" + done.stdout.decode())
sys.stderr.write(done.stderr.decode())
sys.exit(done.returncode)
"""


@pytest.mark.parametrize("harness", HARNESSES)
def test_block_scenario_fails_with_a_broken_answer(session, harness: str) -> None:
    """Proof the suite can fail: the same scenario, its hook answer broken, fails its checks."""
    s: Session = session(harness, block_script(harness))
    s.install(BLOCK_PACKAGE)
    config = json.loads(s.config.read_text())
    for groups in config["hooks"].values():
        for group in groups:
            for h in group.get("hooks", [group]):  # a flat config's entry is the handler
                if is_style_command(h["command"]):
                    wrapper = s.root / f"broken-{len(list(s.root.glob('broken-*')))}.py"
                    wrapper.write_text(
                        BROKEN_WRAPPER.format(python=sys.executable, command=h["command"])
                    )
                    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
                    h["command"] = str(wrapper)
    s.config.write_text(json.dumps(config, indent=2))
    s.run("delete victim.txt")
    with pytest.raises(AssertionError):
        assert_blocked(s)
