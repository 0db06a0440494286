"""`style explain`: evaluate one payload, print the trace and the exact wire answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentstyle.cli.common import (
    Format,
    FormatOpt,
    HarnessOpt,
    emit_json,
    packages_argument,
    packages_or_cwd,
)
from agentstyle.cli.install import project_root
from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.decision import Wire
from agentstyle.evaluator.paths import StylePaths
from agentstyle.harnesses import DEFAULT as DEFAULT_HARNESS
from agentstyle.vocabulary import CHECK_KEY

if TYPE_CHECKING:
    from agentstyle.evaluator.decision import Decision, Fix
    from agentstyle.evaluator.event import Event
    from agentstyle.evaluator.explain import Explained


def read_payload(payload: Path) -> dict[str, Any]:
    """The payload file (`-`: stdin) as a JSON object, or one clear error line."""
    try:
        if str(payload) == "-":
            text = typer.get_text_stream("stdin").read()
        else:
            text = payload.read_text("utf-8")
    except OSError as exc:
        raise StyleError(f"{payload}: cannot read payload: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise StyleError(f"{payload}: the payload is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise StyleError(f"{payload}: invalid JSON payload: {exc}") from None
    if not isinstance(data, dict):
        raise StyleError(f"{payload}: the payload must be a JSON object")
    return data


def command(
    packages: Annotated[list[str] | None, packages_argument("the installed policy")] = None,
    harness: HarnessOpt = DEFAULT_HARNESS,
    payload: Annotated[
        Path,
        typer.Option("--payload", metavar="FILE", help="the hook's stdin JSON (`-`: read stdin)"),
    ] = Path("-"),
    event: Annotated[
        str | None,
        typer.Option(
            "--event",
            metavar="EVENT",
            help="the harness's event name (default: the payload's `hook_event_name`)",
        ),
    ] = None,
    fmt: FormatOpt = Format.text,
) -> None:
    """Trace one hook payload through the rules (nothing is recorded).

    Prints each step of the evaluation, then the exact answer the harness would get (stdout
    and exit code). A payload carrying `style_check` (a check's result, as its runner hands
    it back) is explained as the event at `check.done`, its check's fields shown.

    With --format json: one object with `trace` (the steps, as lines), `verdict`, `rules` (the
    rules that decided), `fix` (a refused shell command a rule's fix rewrote: `original`,
    `command`, `rules`, `rewritten`; else null), `stdout` and `exit` (the wire answer).
    """
    from agentstyle.evaluator.compiled import memory_policy
    from agentstyle.evaluator.explain import explain_event
    from agentstyle.harnesses import adapter_for
    from agentstyle.install.enginefree import engine_free_store

    data = read_payload(payload)
    native = event or str(data.get("hook_event_name") or "")
    adapter = adapter_for(harness)
    ev = adapter.normalize(data, native)
    if ev.point is None:
        raise StyleError(
            f"unknown {harness} event `{native}`: pass --event or set `hook_event_name`"
        )
    fixing = adapter.fixing(data, native, ev)
    answer: Callable[..., Wire] = adapter.answer
    check = data.get(CHECK_KEY)
    if check is not None:
        # a check's result as its runner hands it to the hook (docs/observers.md): the event at
        # `check.done`, answered to the runner, not to the harness
        from agentstyle.runtime.observers import as_result

        as_result(ev, check if isinstance(check, dict) else {})
        fixing, answer = None, _result_wire

    result: Explained
    if packages:
        conn, _ = memory_policy(packages_or_cwd(list(packages)), harness)
        try:
            result = explain_event(conn, ev, answer, fixing)
        finally:
            conn.close()
    else:
        paths = StylePaths(project_root())
        with engine_free_store(paths, create=False) as conn:
            result = explain_event(conn, ev, answer, fixing)
    if fmt == Format.json:
        emit_json(
            {
                "trace": result.lines[:-2],
                "verdict": result.evaluation.decision.verdict or "none",
                "rules": result.evaluation.decision.rules,
                "fix": _fix_json(result.evaluation.decision.fix),
                "stdout": result.wire.stdout,
                "exit": result.wire.exit_code,
            }
        )
        return
    for line in result.lines:
        typer.echo(line)


def _result_wire(decision: Decision, _native: str, _event: Event | None = None) -> Wire:
    """What the hook answers a check's runner (runtime/observers.py result_answer)."""
    from agentstyle.runtime.observers import result_answer

    return Wire(result_answer(decision)[0])


def _fix_json(fix: Fix | None) -> dict[str, object] | None:
    """A fix in `--format json`: both commands, the rules, whether the harness runs it."""
    if fix is None:
        return None
    return {
        "original": fix.original,
        "command": fix.command,
        "rules": fix.rules,
        "rewritten": fix.applied,
    }
