"""`style engine start|stop|status`: the resident engine of this project.

See docs/design/storage.md#the-resident-engine."""

from __future__ import annotations

import time
from typing import Any

import typer

from agentstyle.cli.common import Format, FormatOpt, emit_json
from agentstyle.cli.usage import StyleCommand, StyleGroup
from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.paths import StylePaths, find_root

app = typer.Typer(
    help="The resident engine that keeps the database warm for hooks.",
    cls=StyleGroup,
    no_args_is_help=True,
    rich_markup_mode=None,
)
STATUS_JSON = (
    "With --format json: one object with `running`, `pid`, `served` (events answered), "
    "`version` and `digest` (of the policy it serves); null values when none runs."
)


def _home() -> str:
    paths = StylePaths(find_root())
    if not paths.database.exists():
        raise StyleError(f"no rules database at {paths.database}; run `style install` first")
    return str(paths.home)


def _status(home: str, fmt: str) -> None:
    from agentstyle.runtime import client

    info: dict[str, Any] | None = client.ping(home)
    if fmt == Format.json:
        keys = ("pid", "served", "version", "digest")
        emit_json({"running": info is not None, **{k: (info or {}).get(k) for k in keys}})
    elif info is None:
        typer.echo("engine: not running")
    else:
        typer.echo(
            f"engine: running pid={info.get('pid')} served={info.get('served')} "
            f"version={info.get('version')} digest={str(info.get('digest'))[:12]}"
        )
    if info is None:
        raise typer.Exit(1)


@app.command("status", cls=StyleCommand, epilog=STATUS_JSON)
def status(fmt: FormatOpt = Format.text) -> None:
    """Whether an engine runs: its pid, version and policy digest.

    Exit 1 when none runs.
    """
    _status(_home(), fmt)


@app.command("start", cls=StyleCommand, epilog=STATUS_JSON)
def start(fmt: FormatOpt = Format.text) -> None:
    """Start an engine in the background.

    Hooks also start one when none runs; this starts it before the first event.
    """
    from agentstyle.runtime import client, enginelog

    if not client.available():
        raise StyleError("the resident engine is off (no Unix sockets, or STYLE_ENGINE=off)")
    home = _home()
    if client.ping(home) is None:
        since = enginelog.size(home)
        client.start_engine(home, force=True)
        deadline = time.monotonic() + 10
        while client.ping(home) is None and time.monotonic() < deadline:
            if enginelog.start_failure(home, since):
                break  # it said why it cannot start: no use waiting
            time.sleep(0.05)
        why = enginelog.start_failure(home, since)
        if why and client.ping(home) is None:
            if fmt == Format.json:
                emit_json({"running": False, "reason": why})
            else:
                typer.echo(f"engine: not running ({why})")
            raise typer.Exit(1)
    _status(home, fmt)


@app.command(
    "stop",
    cls=StyleCommand,
    epilog="With --format json: one object with `stopped` (true or false).",
)
def stop(fmt: FormatOpt = Format.text) -> None:
    """Stop the engine; hooks evaluate directly until the next one starts."""
    from agentstyle.runtime import client

    stopped = client.stop_engine(_home())
    if fmt == Format.json:
        emit_json({"stopped": stopped})
        return
    typer.echo("engine: stopped" if stopped else "engine: not running")
