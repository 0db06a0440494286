"""A secret in a tool's output, against the real clients: where the client can replace a tool's
result (Claude Code's `updatedToolOutput`, Codex's block and Gemini CLI's deny reason, the
result STYLE's OpenCode plugin sets) the model reads
the output with the secret replaced; the others' read it as printed and the notice of the
`redact` rule's fallback. STYLE's own history holds the replacement in every client
(docs/actions.md#redact)."""

from __future__ import annotations

import pytest

from agentstyle.harnesses.facts import Can, spec_for
from e2e.clients import HARNESSES, Session
from e2e.mockapi import Say, Script
from e2e.scenarios import shell, tool_results

# Shapes the bundled guard-secrets-output package knows; made up, in a file the call prints
# (a command holding the secret would put it in the model's own history).
AWS_KEY = "AKIAQ7E2ERDCT5KEY7ZX"
PASSWORD = "e2e-Hunter2-horse-staple"
SECRETS = f"AWS_ACCESS_KEY_ID={AWS_KEY}\nDB_PASSWORD={PASSWORD}\n"
REPLACED = ("[AWS access key removed by STYLE]", "DB_PASSWORD=[secret removed by STYLE]")
TOLD = "STYLE removed it. Do not print or store credentials."
NOTICE = "could not be removed before you read it"


def leak_session(session, harness: str) -> Session:
    """A session whose model prints creds.txt once, with guard-secrets-output installed."""
    s: Session = session(
        harness, Script([[Say("Reading it."), shell(harness, "cat creds.txt")]], last=[Say("Ok.")])
    )
    (s.project / "creds.txt").write_text(SECRETS)
    s.style("install", "guard-secrets-output", "--harness", harness)
    s.run("show me creds.txt")
    return s


def stored_text(s: Session) -> str:
    """Everything STYLE keeps of the session: its database file (the engine stopped, its log
    written into the file) and `style audit export`, as text."""
    s.style("engine", "stop", check=False)
    out = s.root / "export"
    s.style("audit", "export", "--out", str(out))
    files = [s.project / ".style" / "style.duckdb", *sorted(out.rglob("*"))]
    return "".join(p.read_bytes().decode("latin-1") for p in files if p.is_file())


@pytest.mark.parametrize("harness", [*HARNESSES, "opencode", "qwen-code"])
def test_a_secret_in_the_output(session, harness: str) -> None:
    s = leak_session(session, harness)
    later = [r for r in s.requests() if r.step >= 1]
    assert later, "the model was not asked again after the call"
    results = "".join(t for r in later for t in tool_results(r.body))
    text = "".join(r.text for r in later)
    if Can.REPLACE_OUTPUT in spec_for(harness).points["tool.post"].capabilities:
        # the model reads the output as replaced, and the rules' text
        assert AWS_KEY not in text and PASSWORD not in text, results
        assert all(r in results for r in REPLACED), results
        assert TOLD in text
    else:
        # the client cannot replace a tool's output: the model reads it, and is told
        assert AWS_KEY in results, results
        assert NOTICE in text, text
    stored = stored_text(s)
    assert REPLACED[0] in stored, "the redacted output is not in STYLE's history"
    assert AWS_KEY not in stored and PASSWORD not in stored
