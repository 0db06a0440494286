"""`style explain`: evaluate one payload, print the trace and the exact wire answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from agentstyle.cli.common import harness_option_check
from agentstyle.diagnostics import StyleError
from agentstyle.engine.explain import explain_event
from agentstyle.engine.paths import StylePaths, find_root
from agentstyle.engine.policy import memory_policy
from agentstyle.engine.store import open_store
from agentstyle.harnesses import adapter_for


def command(
    packages: Annotated[
        list[str] | None, typer.Argument(help="packages (default: installed)")
    ] = None,
    harness: Annotated[str, typer.Option(help="claude-code")] = "claude-code",
    payload: Annotated[Path, typer.Option(help="the hook's stdin JSON", exists=False)] = Path("-"),
    event: Annotated[str | None, typer.Option(help="native event (default: from payload)")] = None,
) -> None:
    """Trace one payload through the evaluator without touching history."""
    harness_option_check(harness)
    try:
        text = (
            typer.get_text_stream("stdin").read()
            if str(payload) == "-"
            else payload.read_text("utf-8")
        )
        data = json.loads(text)
    except OSError as exc:
        raise StyleError(f"{payload}: cannot read payload: {exc.strerror}") from None
    except ValueError as exc:
        raise StyleError(f"{payload}: invalid JSON payload: {exc}") from None
    if not isinstance(data, dict):
        raise StyleError(f"{payload}: the payload must be a JSON object")
    native = event or str(data.get("hook_event_name") or "")
    adapter = adapter_for(harness)
    ev = adapter.normalize(data, native)
    if ev.point is None:
        raise StyleError(f"unknown {harness} event `{native}`")
    if packages:
        conn, _ = memory_policy(list(packages), harness)
        try:
            result = explain_event(conn, ev, adapter.answer)
        finally:
            conn.close()
    else:
        paths = StylePaths(find_root())
        with open_store(paths, create=False) as conn:
            result = explain_event(conn, ev, adapter.answer)
    for line in result.lines:
        typer.echo(line)
