"""A rule's fix in each real client: Claude Code and Copilot CLI run the rewritten command, the
others are told it (docs/design/runtime.md#fixes)."""

from __future__ import annotations

import pytest

from e2e.clients import HARNESSES, Session
from e2e.scenarios import FIX_PACKAGE, FIXED, block_script, tool_results


@pytest.mark.parametrize("harness", HARNESSES)
def test_fix(session, harness: str) -> None:
    # The block scenario's script: the model asks for `rm victim.txt`.
    s: Session = session(harness, block_script(harness))
    s.install(FIX_PACKAGE)
    s.run("delete victim.txt")
    victim, trash = s.project / "victim.txt", s.project / "victim.txt.trash"
    results = [t for r in s.requests() for t in tool_results(r.body)]
    if harness in ("claude-code", "copilot-cli"):
        # The client ran the rewritten call: the file was moved, not deleted, and not left.
        assert trash.exists(), (
            f"the fixed command did not run: {sorted(p.name for p in s.project.iterdir())}"
        )
        assert not victim.exists()
        later = [r.text for r in s.requests() if r.step >= 1]
        assert any(FIXED in t for t in later), "the model was not told which command ran"
    else:
        # Refused, with the command to run instead where the model reads the call's result.
        assert victim.exists() and not trash.exists()
        assert any(f"Run this instead: `{FIXED}`" in t for t in results), results
