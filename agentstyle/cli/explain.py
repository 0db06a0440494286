"""`style explain`: evaluate one payload, print the trace and the exact wire answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from agentstyle.cli.common import Format, emit_json, harness_option_check
from agentstyle.cli.install import project_root
from agentstyle.diagnostics import StyleError
from agentstyle.engine.compiled import memory_policy
from agentstyle.engine.explain import Explained, explain_event
from agentstyle.engine.paths import StylePaths
from agentstyle.harnesses import adapter_for
from agentstyle.install.install import engine_free_store


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
    packages: Annotated[
        list[str] | None, typer.Argument(help="packages (default: the installed policy)")
    ] = None,
    harness: Annotated[str, typer.Option(help="claude-code")] = "claude-code",
    payload: Annotated[Path, typer.Option(help="the hook's stdin JSON (`-`: stdin)")] = Path("-"),
    event: Annotated[str | None, typer.Option(help="native event (default: from payload)")] = None,
    fmt: Annotated[Format, typer.Option("--format")] = Format.text,
) -> None:
    """Trace one payload through the evaluator without touching history."""
    harness_option_check(harness)
    data = read_payload(payload)
    native = event or str(data.get("hook_event_name") or "")
    adapter = adapter_for(harness)
    ev = adapter.normalize(data, native)
    if ev.point is None:
        raise StyleError(
            f"unknown {harness} event `{native}`: pass --event or set `hook_event_name`"
        )
    result: Explained
    if packages:
        conn, _ = memory_policy(list(packages), harness)
        try:
            result = explain_event(conn, ev, adapter.answer)
        finally:
            conn.close()
    else:
        paths = StylePaths(project_root())
        with engine_free_store(paths, create=False) as conn:
            result = explain_event(conn, ev, adapter.answer)
    if fmt is Format.json:
        emit_json(
            {
                "trace": result.lines[:-2],
                "verdict": result.evaluation.decision.verdict or "none",
                "rules": result.evaluation.decision.rules,
                "stdout": result.wire.stdout,
                "exit": result.wire.exit_code,
            }
        )
        return
    for line in result.lines:
        typer.echo(line)
