"""A `redact` rule: secrets taken out of a finished call's output, per harness, and out of history.

Claude Code gets the output back in the tool's own shape with the matches replaced
(`updatedToolOutput`, `updatedMCPToolOutput` for MCP) and the rule's text as context; a client
that cannot replace output gets the notice that the output held a secret; STYLE's database and
`style audit export` keep the replaced output, never the secret (docs/actions.md#redact).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from agentstyle.evaluator.decision import Decision, Redaction
from agentstyle.harnesses import adapter_for
from agentstyle.harnesses.answer import REDACT_NOTICE
from agentstyle.harnesses.claude_code import ADAPTER as CLAUDE
from agentstyle.harnesses.opencode import ADAPTER as OPENCODE
from tests.support.hooks import new_session
from tests.support.packages import package_text
from tests.support.project import Project

FIXTURES = Path(__file__).parent / "fixtures" / "claude-code"
AWS = "AKIAIOSFODNN7EXAMPLE"  # the fake key of every fixture with a secret
REMOVED = "[AWS key removed by STYLE]"
TEXT = "The output held an AWS access key; it was removed. Do not print credentials."

AWS_KEY = "AKIA[0-9A-Z]{16}"


def aws_keys_redacted(rule_id: str, tools: str) -> str:
    """The issue's rule as written, for `tools`."""
    return f"""
- id: {rule_id}
  target: tool
  tool: [{tools}]
  action: redact
  when: 'tool.output regex r"{AWS_KEY}"'
  redact: {{pattern: '{AWS_KEY}', with: '{REMOVED}'}}
  text: {TEXT}
"""


# The rule, and the same for the other tools Claude Code's answer reshapes.
PACKAGE = package_text(
    "pkg",
    aws_keys_redacted("aws-keys-in-output", "shell, file.read, mcp"),
    aws_keys_redacted("aws-keys-searched", "file.search, web.fetch"),
    description="redactions under test",
)


def fixture(name: str, root: Path | None = None) -> dict[str, Any]:
    text = (FIXTURES / f"{name}.json").read_text("utf-8")
    if root is not None:
        text = text.replace("/home/dev/acme-api", root.as_posix())
    payload: dict[str, Any] = json.loads(text)
    return payload


def swapped(value: Any) -> Any:
    """The fixture's output as the answer must give it back: every key replaced, nothing else."""
    return json.loads(json.dumps(value).replace(AWS, REMOVED))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("redact")
    project = Project(root / "repo", root / "home")
    project.write_package(PACKAGE)
    for harness in ("claude-code", "codex"):
        project.install("pkg", "--harness", harness)
    return project


# -- Claude Code's answer, from the adapter, against the fixtures ------------------------------


@pytest.mark.parametrize(
    "name",
    ["bash-env-secrets", "read-config", "grep-keys", "webfetch-page"],
)
def test_claude_code_takes_the_output_in_the_tools_own_shape(name: str) -> None:
    payload = fixture(f"PostToolUse.{name}")
    event = CLAUDE.normalize(payload, "PostToolUse")
    given = payload["tool_response"]
    redaction = Redaction(["pkg/aws"], [TEXT], swapped(given))
    answer = json.loads(CLAUDE.answer(Decision(redaction=redaction), "PostToolUse", event).stdout)
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "PostToolUse"
    assert specific["additionalContext"] == TEXT
    output = specific["updatedToolOutput"]
    # the same object the tool gave, only its texts changed: a string here is ignored
    assert isinstance(output, dict) and output.keys() == given.keys()
    assert output == swapped(given) and AWS not in json.dumps(answer)
    assert "updatedMCPToolOutput" not in specific


def test_claude_code_bash_answer_is_the_bash_response_object() -> None:
    payload = fixture("PostToolUse.bash-env-secrets")
    event = CLAUDE.normalize(payload, "PostToolUse")
    output = swapped(payload["tool_response"])
    redaction = Redaction(["pkg/aws"], [TEXT], output)
    wire = CLAUDE.answer(Decision(redaction=redaction), "PostToolUse", event)
    specific = json.loads(wire.stdout)["hookSpecificOutput"]
    assert specific["updatedToolOutput"] == {
        "stdout": (
            f"HOME=/home/dev\nAWS_ACCESS_KEY_ID={REMOVED}\n"
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
            "PATH=/usr/local/bin:/usr/bin\n"
        ),
        "stderr": f"warning: credentials for {REMOVED} expire in 2 hours\n",
        "interrupted": False,
        "isImage": False,
    }
    assert wire.exit_code == 0


def test_claude_code_mcp_output_goes_in_its_own_field() -> None:
    payload = fixture("PostToolUse.mcp-vault")
    event = CLAUDE.normalize(payload, "PostToolUse")
    redaction = Redaction(["pkg/aws"], [TEXT], swapped(payload["tool_response"]))
    specific = json.loads(
        CLAUDE.answer(Decision(redaction=redaction), "PostToolUse", event).stdout
    )["hookSpecificOutput"]
    assert specific["updatedMCPToolOutput"] == swapped(payload["tool_response"])
    assert "updatedToolOutput" not in specific


def test_an_output_that_could_not_be_rebuilt_gets_the_notice_not_a_field() -> None:
    event = CLAUDE.normalize(fixture("PostToolUse.bash-env-secrets"), "PostToolUse")
    decision = Decision(redaction=Redaction(["pkg/aws-keys"], [TEXT], None))
    specific = json.loads(CLAUDE.answer(decision, "PostToolUse", event).stdout)[
        "hookSpecificOutput"
    ]
    assert "updatedToolOutput" not in specific
    assert specific["additionalContext"] == REDACT_NOTICE.format(rules="aws-keys")


def test_opencode_plugin_gets_the_result_back_replaced() -> None:
    """STYLE's OpenCode plugin sets a `result` answer's title, output and metadata on the
    result OpenCode hands the model (harnesses/opencode_plugin.js)."""
    given = {
        "title": "cat creds.txt",
        "output": f"KEY={AWS}\n",
        "metadata": {"output": f"KEY={AWS}\n", "exit": 0, "truncated": False},
    }
    payload = {
        "hook_event_name": "tool.execute.after",
        "session_id": "ses_1",
        "cwd": "/p",
        "tool_name": "bash",
        "tool_input": {"command": "cat creds.txt", "description": "read"},
        "tool_use_id": "toolu_1",
        "tool_response": given,
    }
    event = OPENCODE.normalize(payload, "tool.execute.after")
    assert event.output == given
    redaction = Redaction(["pkg/aws"], [TEXT], swapped(given))
    wire = OPENCODE.answer(Decision(redaction=redaction), "tool.execute.after", event)
    assert json.loads(wire.stdout) == {"result": swapped(given), "context": TEXT}


# -- the real hook: evaluated, answered, recorded ----------------------------------------------


def post(project: Project, name: str, **how: Any) -> dict[str, Any]:
    payload = fixture(f"PostToolUse.{name}", project.root)
    payload["session_id"] = new_session()
    result = project.hook("PostToolUse", payload, **how)
    result.check_clean()
    assert result.code == 0, result.stderr
    answer: dict[str, Any] = result.json or {}
    return answer


@pytest.mark.parametrize(
    "name",
    ["bash-env-secrets", "read-config", "grep-keys", "webfetch-page", "mcp-vault"],
)
def test_the_installed_hook_replaces_the_key_in_every_tools_output(
    project: Project, name: str
) -> None:
    given = fixture(f"PostToolUse.{name}", project.root)["tool_response"]
    specific = post(project, name)["hookSpecificOutput"]
    field = "updatedMCPToolOutput" if name.startswith("mcp") else "updatedToolOutput"
    assert specific[field] == swapped(given)
    assert specific["additionalContext"] == TEXT


def test_a_call_no_redact_rule_matches_gets_no_opinion(project: Project) -> None:
    assert post(project, "bash") == {}


def codex_post(project: Project, response: Any) -> dict[str, Any]:
    """Codex's PostToolUse of a Bash call that printed `response`, answered by the hook."""
    payload = {
        "session_id": new_session(),
        "turn_id": "turn-1",
        "transcript_path": None,
        "cwd": str(project.root),
        "hook_event_name": "PostToolUse",
        "model": "gpt-5.5-codex",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_use_id": "call_redact",
        "tool_input": {"command": "env"},
        "tool_response": response,
    }
    result = project.hook("PostToolUse", payload, harness="codex")
    result.check_clean()
    assert AWS not in result.stdout  # nothing in the answer repeats it
    return result.json or {}


def test_codex_replaces_the_result_with_a_block_reason(project: Project) -> None:
    """Codex's PostToolUse `decision: block` puts its reason in place of the call's result:
    the output, replaced, and the rule's text."""
    answer = codex_post(project, f"HOME=/home/dev\nAWS_ACCESS_KEY_ID={AWS}\n")
    assert answer == {
        "decision": "block",
        "reason": f"HOME=/home/dev\nAWS_ACCESS_KEY_ID={REMOVED}\n\n\n{TEXT}",
    }


def test_a_result_that_is_not_all_text_gets_the_notice(project: Project) -> None:
    """An output no reason can stand for (an image part beside the text) is not replaced: the
    model is told it held a secret."""
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    answer = codex_post(project, {"content": [{"type": "text", "text": AWS}, image]})
    assert "decision" not in answer
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert context == REDACT_NOTICE.format(rules="aws-keys-in-output")


@pytest.mark.parametrize(
    ("harness", "native_event", "tool", "key", "given", "decision", "text"),
    [
        (
            "copilot-cli",
            "PostToolUse",
            "bash",
            "tool_result",
            {"result_type": "success", "text_result_for_llm": f"KEY={AWS}\n"},
            "block",
            f"KEY={REMOVED}\n",
        ),
        (
            "gemini-cli",
            "AfterTool",
            "run_shell_command",
            "tool_response",
            {"llmContent": f"Stdout: {AWS}", "returnDisplay": AWS},
            "deny",
            f"Stdout: {REMOVED}",
        ),
        (
            "gemini-cli",
            "AfterTool",
            "run_shell_command",
            "tool_response",
            {"llmContent": [{"text": "key "}, {"text": AWS}]},
            "deny",
            f"key {REMOVED}",
        ),
    ],
)
def test_a_refusal_reason_stands_in_for_the_result(
    harness: str, native_event: str, tool: str, key: str, given: Any, decision: str, text: str
) -> None:
    """Copilot CLI's PostToolUse block and Gemini CLI's AfterTool deny make their reason the
    result the model reads ("Tool result blocked: …"): the text the model reads of the call
    (`text_result_for_llm`, `llmContent`), replaced, then the rule's text."""
    adapter = adapter_for(harness)
    payload = {
        "hook_event_name": native_event,
        "session_id": "s",
        "cwd": "/p",
        "tool_name": tool,
        "tool_input": {"command": "cat creds.txt"},
        key: given,
    }
    event = adapter.normalize(payload, native_event)
    assert event.output == given
    redaction = Redaction(["pkg/aws"], [TEXT], swapped(given))
    answer = json.loads(adapter.answer(Decision(redaction=redaction), native_event, event).stdout)
    assert answer == {"decision": decision, "reason": f"{text}\n\n{TEXT}"}


def test_history_and_export_keep_the_replaced_output_never_the_secret(
    project: Project,
) -> None:
    post(project, "bash-env-secrets")
    kept = project.query(
        "SELECT f.value FROM event_fields f JOIN events e USING (event_id) "
        "WHERE e.native_event = 'PostToolUse' AND f.field = 'tool.output.stdout'"
    )
    assert kept and all(AWS not in str(v) for (v,) in kept)
    assert any(REMOVED in str(v) for (v,) in kept)
    secret_rows = project.query(
        "SELECT count(*) FROM event_fields WHERE contains(value, ?)", (AWS,)
    )
    assert secret_rows == [(0,)]
    out = project.root / "export"
    run = project.cli("audit", "export", "--out", str(out))
    assert run.returncode == 0, run.stderr
    files = sorted(out.rglob("*.parquet"))
    assert files
    with duckdb.connect() as conn:
        rows = [conn.execute("SELECT * FROM read_parquet(?)", [str(f)]).fetchall() for f in files]
    exported = [json.dumps(r, default=str) for r in rows]
    assert any(REMOVED in text for text in exported)
    assert not any(AWS in text for text in exported)


# -- plan: which harness replaces, which tells ------------------------------------------------


@pytest.mark.parametrize(
    ("fallback", "harness", "status"),
    [
        (None, "claude-code", "native"),
        (None, "codex", "native"),
        (None, "gemini-cli", "native"),
        (None, "cursor", "degraded"),
        (None, "copilot-cli", "native"),
        (None, "opencode", "native"),
        (None, "qwen-code", "degraded"),
        ("skip", "cursor", "skipped"),
        ("error", "qwen-code", "install-error"),
        ("error", "claude-code", "native"),
    ],
)
def test_plan_says_per_harness_whether_the_output_is_replaced(
    project: Project, fallback: str | None, harness: str, status: str
) -> None:
    text = PACKAGE.replace("name: pkg", "name: planned")
    if fallback is not None:
        text = text.replace(
            "    action: redact\n", f"    action: redact\n    fallback: {fallback}\n"
        )
    folder = project.write_package(text, "planned")
    run = project.cli("plan", str(folder), "--harness", harness, "--format", "json")
    rules = json.loads(run.stdout)
    mine = [e for r in rules if r["rule"] == "planned/aws-keys-in-output" for e in r["entries"]]
    assert [e["status"] for e in mine] == [status]
    if status == "degraded":
        assert mine[0]["reason"] == "redact became a notice (the client cannot replace output)"
    if harness == "claude-code":
        # `mcp` in the tool list: every MCP call, beside the named tools
        assert mine[0]["matcher"] == "^(Read|Bash|PowerShell|mcp__[^/]*__.*)$"


def test_a_call_no_redact_rule_matches_loads_nothing_of_redaction(tmp_path: Path) -> None:
    """The cost of a call that no `redact` rule fires on stays what it was: the module that
    replaces output is loaded only once one fires (a process of its own, so that no other
    test has loaded it)."""
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "STYLE.yaml").write_text(PACKAGE, encoding="utf-8")
    code = (
        "import json, sys\n"
        "from agentstyle.evaluator.compiled import memory_policy\n"
        "from agentstyle.evaluator.evaluate import decide\n"
        "from agentstyle.harnesses.claude_code import ADAPTER\n"
        f"conn, _ = memory_policy([{str(folder)!r}], 'claude-code')\n"
        "def post(text):\n"
        "    payload = {'session_id': 's', 'cwd': '/tmp', 'hook_event_name': 'PostToolUse',\n"
        "               'tool_name': 'Bash', 'tool_input': {'command': 'env'},\n"
        "               'tool_response': {'stdout': text, 'stderr': '', 'interrupted': False,\n"
        "                                 'isImage': False}}\n"
        "    [e] = decide(conn, [ADAPTER.normalize(payload, 'PostToolUse')])\n"
        "    return e.decision.redaction is not None\n"
        "plain = post('HOME=/home/dev')\n"
        "before = 'agentstyle.evaluator.redaction' in sys.modules\n"
        f"secret = post('KEY={AWS}')\n"
        "after = 'agentstyle.evaluator.redaction' in sys.modules\n"
        "print(json.dumps([plain, before, secret, after]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [False, False, True, True]
