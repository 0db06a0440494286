"""`style engine start|stop|status`: the resident engine of this project (storage.md)."""

from __future__ import annotations

import time

import typer

from agentstyle.diagnostics import StyleError
from agentstyle.engine.paths import StylePaths, find_root
from agentstyle.runtime import client, enginelog

app = typer.Typer(
    help="The resident engine that keeps the database warm for hooks.", no_args_is_help=True
)


def _home() -> str:
    paths = StylePaths(find_root())
    if not paths.database.exists():
        raise StyleError(f"no rules database at {paths.database}; run `style install` first")
    return str(paths.home)


@app.command("status")
def status() -> None:
    """Whether an engine runs, its pid, version and policy digest."""
    home = _home()
    info = client.ping(home)
    if info is None:
        typer.echo("engine: not running")
        raise typer.Exit(1)
    typer.echo(
        f"engine: running pid={info.get('pid')} served={info.get('served')} "
        f"version={info.get('version')} digest={str(info.get('digest'))[:12]}"
    )


@app.command("start")
def start() -> None:
    """Start an engine in the background (hooks also start one when none runs)."""
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
            typer.echo(f"engine: not running ({why})")
            raise typer.Exit(1)
    status()


@app.command("stop")
def stop() -> None:
    """Stop the engine; hooks evaluate directly until the next one starts."""
    stopped = client.stop_engine(_home())
    typer.echo("engine: stopped" if stopped else "engine: not running")
