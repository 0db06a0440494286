"""Plan statuses on every harness (docs/design/harnesses.md#plan): the capability tables are
data, so one package shows every status and every install-error reason the tables can give."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agentstyle.policy.compile import compile_policy, load_and_validate
from tests.support.harness import HARNESSES
from tests.support.packages import package_text

PACKAGE = package_text(
    "p",
    """
- id: brief
  target: system
  text: Hello.
- id: static-tone
  target: system
  mode: replace
  text: Answer in short sentences.
- id: push-ask
  target: tool
  tool: shell
  action: ask
  fallback: degrade
  text: Sure?
- id: edit-ask
  target: tool
  tool: file.edit
  action: ask
  fallback: degrade
  text: Sure?
- id: edit-ask-strict
  target: tool
  tool: file.edit
  action: ask
  text: Sure?
- id: closed-ask
  target: tool
  tool: shell
  action: ask
  fail: closed
  fallback: degrade
  text: Sure?
- id: closed-mixed
  target: tool
  tool: [shell, file.edit]
  action: block
  fail: closed
  text: No.
- id: pre-warn
  target: tool
  tool: shell
  at: before
  action: warn
  text: Careful.
- id: prompt-inject
  target: event
  event: prompt.submitted
  text: Context.
- id: prompt-inject-skip
  target: event
  event: prompt.submitted
  fallback: skip
  text: Context.
- id: failed-note
  target: event
  event: tool.failed
  text: It failed.
- id: sub-start
  target: event
  event: subagent.start
  text: Child context.
- id: compact-warn
  target: event
  event: compact
  action: warn
  text: Compacting.
- id: gemini-only
  when:
    harness: [gemini-cli]
  text: Hi Gemini.
""",
    description="every plan status",
    version="0.1.0",
)

RULES = (
    "brief",
    "static-tone",
    "push-ask",
    "edit-ask",
    "edit-ask-strict",
    "closed-ask",
    "closed-mixed",
    "pre-warn",
    "prompt-inject",
    "prompt-inject-skip",
    "failed-note",
    "sub-start",
    "compact-warn",
    "gemini-only",
)
Status = tuple[str, str | None]  # (status, reason prefix or None)
CAPABILITY_MISSING: Status = ("install-error", "capability-missing")
ASK_BLOCKS: Status = ("degraded", "ask became block")
ASK_BLOCKS_ALLOW: Status = ("degraded", "ask became block; approve with `style allow --last`")
NO_FAIL_CLOSED: Status = ("install-error", "fail-closed-unsupported")
NO_POINT: Status = ("install-error", "point-unavailable")


def _expected(harness: str, differ: dict[str, Status]) -> dict[str, Status]:
    """Every rule of PACKAGE in `harness`: native, the tone static, the Gemini-only rule
    skipped, the compaction warn an install error, but where `differ` says otherwise."""
    assert set(differ) <= set(RULES), set(differ) - set(RULES)
    common: dict[str, Status] = {rule: ("native", None) for rule in RULES} | {
        "static-tone": ("static", None),
        "compact-warn": CAPABILITY_MISSING,
        "gemini-only": ("skipped", f"when.harness excludes {harness}"),
    }
    return common | differ


# harness → rule → (status, reason prefix or None)
EXPECTED: dict[str, dict[str, Status]] = {
    "claude-code": _expected("claude-code", {}),
    "codex": _expected(
        "codex",
        {
            "push-ask": ASK_BLOCKS_ALLOW,
            "edit-ask": ASK_BLOCKS,
            "edit-ask-strict": CAPABILITY_MISSING,
            "closed-ask": NO_FAIL_CLOSED,
            "failed-note": NO_POINT,
            "compact-warn": ("partial", None),
        },
    ),
    "cursor": _expected(
        "cursor",
        {
            "push-ask": ("native", None),  # beforeShellExecution can ask
            "edit-ask": ASK_BLOCKS,  # preToolUse cannot
            "edit-ask-strict": CAPABILITY_MISSING,
            # over two gates (shell, edit): each gate's command says --fail-closed (install)
            "closed-mixed": ("native", None),
            "pre-warn": CAPABILITY_MISSING,
            "prompt-inject": CAPABILITY_MISSING,
            "prompt-inject-skip": ("skipped", "capability-missing"),
            "failed-note": CAPABILITY_MISSING,  # observe only
            "sub-start": CAPABILITY_MISSING,
        },
    ),
    "gemini-cli": _expected(
        "gemini-cli",
        {
            "push-ask": ASK_BLOCKS,
            "edit-ask": ASK_BLOCKS,
            "edit-ask-strict": CAPABILITY_MISSING,
            "closed-ask": NO_FAIL_CLOSED,
            "pre-warn": ("partial", None),  # BeforeTool: the user's message only
            "failed-note": ("native", None),  # AfterTool with an error
            "sub-start": NO_POINT,
            "gemini-only": ("native", None),
        },
    ),
    "copilot-cli": _expected(
        "copilot-cli",
        {
            "pre-warn": ("partial", None),  # PreToolUse: the model's context only
            "compact-warn": CAPABILITY_MISSING,  # observe only
        },
    ),
    "qwen-code": _expected(
        "qwen-code",
        {
            "push-ask": ("native", None),  # asks in the terminal, refuses in `qwen -p`
            "pre-warn": CAPABILITY_MISSING,  # PreToolUse shows nothing
            "failed-note": ("native", None),  # PostToolUseFailure
        },
    ),
    "opencode": _expected(
        "opencode",
        {
            "push-ask": ASK_BLOCKS_ALLOW,
            "edit-ask": ASK_BLOCKS,
            "edit-ask-strict": CAPABILITY_MISSING,
            "closed-ask": NO_FAIL_CLOSED,
            "pre-warn": ("partial", None),  # tool.execute.before: the person's toast only
            "failed-note": ("native", None),  # tool.execute.after of a non-zero exit
            "sub-start": NO_POINT,
            "compact-warn": NO_POINT,
        },
    ),
}


@pytest.fixture(scope="module")
def plans(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, tuple[str, str]]]:
    folder = tmp_path_factory.mktemp("plan") / "p"
    folder.mkdir()
    (folder / "STYLE.yaml").write_text(textwrap.dedent(PACKAGE).lstrip(), encoding="utf-8")
    loaded = load_and_validate([str(folder)])
    assert loaded.ok, loaded.diagnostics
    compiled = compile_policy(loaded, list(HARNESSES))
    out: dict[str, dict[str, tuple[str, str]]] = {h: {} for h in HARNESSES}
    for e in compiled.plan:
        out[e.harness][e.rule_id.split("/", 1)[1]] = (e.status, e.reason or "")
    return out


@pytest.mark.parametrize("harness", HARNESSES)
def test_plan_status_and_reason(plans: dict[str, dict[str, tuple[str, str]]], harness: str) -> None:
    for rule, (status, reason) in EXPECTED[harness].items():
        got_status, got_reason = plans[harness][rule]
        assert got_status == status, (harness, rule, got_status, got_reason)
        if reason is not None:
            assert got_reason.startswith(reason), (harness, rule, got_reason)


def test_fail_closed_is_never_degraded(plans: dict[str, dict[str, tuple[str, str]]]) -> None:
    for harness in HARNESSES:
        assert plans[harness]["closed-ask"][0] in ("native", "install-error")
        assert plans[harness]["closed-mixed"][0] in ("native", "install-error")


def test_the_plan_names_the_native_event_of_each_gate(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "STYLE.yaml").write_text(textwrap.dedent(PACKAGE).lstrip(), "utf-8")
    compiled = compile_policy(load_and_validate([str(tmp_path / "p")]), ["cursor", "gemini-cli"])
    native = {(e.harness, e.rule_id): e.native_event for e in compiled.plan}
    assert native[("cursor", "p/push-ask")] == "beforeShellExecution"
    assert native[("cursor", "p/edit-ask")] == "preToolUse"
    assert native[("cursor", "p/static-tone")] == ".cursor/rules/style.mdc"
    assert native[("gemini-cli", "p/failed-note")] == "AfterTool"
    assert native[("gemini-cli", "p/static-tone")] == "GEMINI.md"


def test_a_fail_closed_rule_over_several_gates_marks_each_gates_command() -> None:
    """Cursor gates a shell call and an edit at different events: a `fail: closed` rule over
    both is promised at both, by `--fail-closed` in each gate's own command."""
    import tempfile

    from agentstyle.install.handlers import handler_groups

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "p").mkdir()
        (Path(tmp) / "p" / "STYLE.yaml").write_text(textwrap.dedent(PACKAGE).lstrip(), "utf-8")
        compiled = compile_policy(load_and_validate([str(Path(tmp) / "p")]), ["cursor"])
    mixed = [e for e in compiled.plan if e.rule_id == "p/closed-mixed"]
    groups = handler_groups(mixed, "cursor", fail_closed=False)
    commands = {event: [h["command"] for h in gs] for event, gs in groups.items()}
    assert "--fail-closed" in commands["beforeShellExecution"][0]
    assert "--fail-closed" in commands["preToolUse"][0]
