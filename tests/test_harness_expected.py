"""Every Codex, Cursor, Gemini CLI, Copilot CLI, Qwen Code and OpenCode row of
tests/fixtures/expected-outputs.md, through the real hook command.

Each row names a fixture, an action and the exact stdout. The rules of `tests/data/harness/rows`
carry the rows' texts (the texts are illustrative; the engine adds none:
docs/design/runtime.md#precedence); each variant is installed with `style install` into its own
project, and every fixture runs in its own session, all at once. The table is read from
tests/fixtures/expected-outputs.md itself, so a row cannot be cited wrongly here.

Decisions on rows the contract leaves open (all documented in the adapters):
- X1′, U1′, G1′ are the exit-code alternatives of X1, U1, G1: STYLE answers with the JSON form.
- U3 is a preToolUse shell call. STYLE's own Cursor install gates shell calls at
  beforeShellExecution (one gate per tool class, docs/design/harnesses.md#cursor-gates), so a
  preToolUse copy of the call is not evaluated twice there; U3 is the payload Cursor sends through a
  Claude Code config (docs/design/harnesses.md#cursor-claude-hooks), read and answered as Cursor's.
  Its second form (older docs) is picked by `cursor_version` below `PERMISSION_FORM_SINCE`.
- U2's `agent_message` is the row's illustration of "what the model reads while the person is
  asked": a rule has one body (the question), so STYLE writes one fixed sentence there.
- G2's `systemMessage` ("STYLE blocked a write to .env") is not written: a deny on Gemini CLI
  carries its reason to the model and shows the refused tool call to the person, as G1 does;
  one refusal form for every tool.
"""

from __future__ import annotations

import json
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from agentstyle.harnesses import cursor
from tests.support.harness import DATA, FIXTURES, HarnessProject
from tests.support.hooks import new_session

EXPECTED_MD = FIXTURES / "expected-outputs.md"
FOLDERS = {
    "codex": "codex",
    "cursor": "cursor",
    "gemini": "gemini-cli",
    "copilot-cli": "copilot-cli",
    "qwen-code": "qwen-code",
    "opencode": "opencode",
}

# Row → (project, harness the hook runs as, index of the stdout alternative in the row).
ROWS: dict[str, tuple[str, str, int]] = {
    **{f"X{i}": ("codex-a", "codex", 0) for i in (1, 2, 3, 5, 6, 8, 9, 10, 11, 12)},
    "X4": ("codex-b", "codex", 0),
    "X7": ("codex-b", "codex", 0),
    **{f"U{i}": ("cursor-a", "cursor", 0) for i in (1, 2, 5, 7, 8, 9, 10, 11, 12)},
    "U3": ("cursor-b", "claude-code", 0),
    "U3-older": ("cursor-b", "claude-code", 1),
    "U4": ("cursor-b", "claude-code", 0),
    "U6": ("cursor-b", "claude-code", 0),
    **{f"G{i}": ("gemini-a", "gemini-cli", 0) for i in range(1, 8)},
    "G8": ("gemini-b", "gemini-cli", 0),
    **{f"P{i}": ("copilot-a", "copilot-cli", 0) for i in range(1, 15)},
    "P15": ("copilot-b", "copilot-cli", 0),
    **{f"Q{i}": ("qwen-a", "qwen-code", 0) for i in range(1, 12)},
    **{f"O{i}": ("opencode-a", "opencode", 0) for i in (1, 2, 4, 5, 6, 8, 9, 12)},
    **{f"O{i}": ("opencode-b", "opencode", 0) for i in (3, 7, 10, 11)},
}
# Harnesses each project is installed for.
INSTALLS = {
    "codex-a": ["codex"],
    "codex-b": ["codex"],
    "cursor-a": ["cursor"],
    "cursor-b": ["claude-code"],
    "gemini-a": ["gemini-cli"],
    "gemini-b": ["gemini-cli"],
    "copilot-a": ["copilot-cli"],
    "copilot-b": ["copilot-cli"],
    "qwen-a": ["qwen-code"],
    "opencode-a": ["opencode"],
    "opencode-b": ["opencode"],
}
EXIT_CODE_FORMS = {"X1′", "U1′", "G1′"}
# Where STYLE's answer differs from the row's illustration, key by key (see the docstring).
DEVIATIONS: dict[str, dict[str, Any]] = {
    "U2": {"agent_message": cursor.ASK_AGENT_MESSAGE},
    "G2": {"systemMessage": None},
}
# "any, no rule" (G8) runs this fixture.
ANY_FIXTURE = {"G8": "gemini/BeforeTool.replace-rs.json"}


def table() -> dict[str, tuple[str, list[str], int]]:
    """Codex, Cursor, Gemini CLI, Copilot CLI, Qwen Code and OpenCode rows: id → (fixture, stdout
    alternatives, exit code)."""
    rows: dict[str, tuple[str, list[str], int]] = {}
    line_re = re.compile(r"^\| ([XUGPQO]\d+′?) \| ([^|]+) \|[^|]+\| (.+) \| (\d) \|$")
    fixture = ""
    for line in EXPECTED_MD.read_text("utf-8").splitlines():
        m = line_re.match(line)
        if not m:
            continue
        named = re.match(r"`([a-z-]+/[^`]+\.json)`", m.group(2).strip())
        if named:
            fixture = named.group(1)
        elif m.group(2).strip() != "same":  # "same": the row above's fixture
            fixture = ""  # "any, no rule"
        outs = re.findall(r"`(\{.*?\})`", m.group(3).strip())
        rows[m.group(1)] = (fixture, outs or [""], int(m.group(4)))
    return rows


TABLE = table()


def test_the_table_is_what_the_suite_cites() -> None:
    ids = {r for r in TABLE if r not in EXIT_CODE_FORMS}
    assert ids == {r for r in ROWS if not r.endswith("-older")}
    assert {r[0] for r in TABLE} == {"X", "U", "G", "P", "Q", "O"}
    assert len(TABLE) == 12 + 1 + 12 + 1 + 8 + 1 + 15 + 11 + 12
    for row in EXIT_CODE_FORMS:
        assert TABLE[row][2] == 2  # the alternative STYLE does not use


def _payload(p: HarnessProject, row: str) -> tuple[str, dict[str, Any]]:
    base = row.split("-")[0]
    fixture = TABLE[base][0] or ANY_FIXTURE[base]
    folder, name = fixture.split("/", 1)
    harness = FOLDERS[folder]
    data = p.fixture(harness, name)
    sid = new_session()
    data["conversation_id" if harness == "cursor" else "session_id"] = sid
    if row == "U3-older":
        data["cursor_version"] = "1.7.0"
    return str(data["hook_event_name"]), data


def _expected(row: str) -> tuple[str, int]:
    base = row.split("-")[0]
    _fixture, outs, code = TABLE[base]
    out = outs[ROWS[row][2]]
    if row in DEVIATIONS and out:
        doc = json.loads(out)
        for key, value in DEVIATIONS[row].items():
            if value is None:
                doc.pop(key)
            else:
                doc[key] = value
        out = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    return out, code


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    projects: dict[str, HarnessProject] = {}
    for name, harnesses in INSTALLS.items():
        base = tmp_path_factory.mktemp(name)
        p = HarnessProject(base / "acme-api", base / "home")
        shutil.copytree(DATA / "rows" / name, p.root / name)
        for harness in harnesses:
            proc = p.cli("install", name, "--harness", harness)
            assert proc.returncode == 0, proc.stderr
        projects[name] = p

    def run(row: str) -> Any:
        project, harness, _alt = ROWS[row]
        p = projects[project]
        event, payload = _payload(p, row)
        if harness == "claude-code":
            # Cursor's payload through the Claude Code config: the handler of the Claude event
            # Cursor maps its own to (cursor.FROM_CLAUDE_EVENTS).
            claude = {v: k for k, v in cursor.FROM_CLAUDE_EVENTS.items()}
            event = claude.get(event, "PreToolUse")
        # Eight hooks at once queue for one project's lock; on a loaded machine the last would
        # pass the 9 s internal deadline of a 10 s harness timeout and fail open. The answers
        # are what this test checks (deadlines: test_hook_failures), so the longest one runs.
        return p.hook_as(harness, event, payload, env={"STYLE_DEADLINE_S": "55"})

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = dict(zip(ROWS, pool.map(run, ROWS), strict=True))
    return {"projects": projects, "results": results}


@pytest.mark.parametrize("row", sorted(ROWS))
def test_row(answers: dict[str, Any], row: str) -> None:
    result = answers["results"][row]
    out, code = _expected(row)
    assert (result.stdout, result.code, result.stderr) == ((out + "\n") if out else "", code, "")


def test_no_row_left_an_error(answers: dict[str, Any]) -> None:
    for name, p in answers["projects"].items():
        assert not p.error_log.exists(), name


def test_deviations_keep_the_rows_shape() -> None:
    """The rows STYLE answers differently keep every other key and value of the row."""
    for row, changes in DEVIATIONS.items():
        doc = json.loads(TABLE[row][1][0])
        ours = json.loads(_expected(row)[0])
        assert {k: v for k, v in doc.items() if k not in changes} == {
            k: v for k, v in ours.items() if k not in changes
        }
