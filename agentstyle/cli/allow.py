"""`style allow [--last|EVENT_ID] [--session]`: the person lets one refused call through."""

from __future__ import annotations

from typing import Annotated

import typer

from agentstyle.cli.common import Format, emit_json
from agentstyle.cli.install import project_root
from agentstyle.diagnostics import StyleError
from agentstyle.engine.allowances import Refusal, grant, pick, refusals
from agentstyle.engine.paths import StylePaths
from agentstyle.engine.store import transaction
from agentstyle.install.install import engine_free_store


def _line(r: Refusal) -> str:
    rules = ", ".join(r.rules) or "-"
    return f"{r.event_id:>6}  {r.harness:<11} {r.native_event:<20} {rules}  {r.what}"


def command(
    event_id: Annotated[
        int | None, typer.Argument(help="the refused event's id (listed when none is given)")
    ] = None,
    last: Annotated[bool, typer.Option("--last", help="the last call STYLE refused")] = False,
    session: Annotated[
        bool, typer.Option("--session", help="for the rest of that session, not just once")
    ] = False,
    fmt: Annotated[Format, typer.Option("--format")] = Format.text,
) -> None:
    """Let a refused call through: the same rule, tool and input pass once (or for the session).

    Run it in your own terminal: an agent's attempt to run it is refused by STYLE's
    self-protection, because an approval has to come from you.
    """
    paths = StylePaths(project_root())
    if not paths.database.exists():
        raise StyleError(f"no rules database at {paths.database}; run `style install` first")
    if last and event_id is not None:
        typer.echo("style: give --last or an EVENT_ID, not both", err=True)
        raise typer.Exit(2)
    with engine_free_store(paths, create=False) as conn:
        if not last and event_id is None:
            recent = refusals(conn)[:10]
            typer.echo(
                "style: say which call to allow: --last, or one of these EVENT_IDs", err=True
            )
            for r in recent:
                typer.echo(_line(r), err=True)
            raise typer.Exit(2)
        with transaction(conn):
            refusal = pick(conn, event_id)
            allowance = grant(conn, refusal, session=session)
    scope = "for the rest of the session" if session else "once"
    if fmt is Format.json:
        emit_json(
            {
                "allowance": allowance,
                "event": refusal.event_id,
                "harness": refusal.harness,
                "session": refusal.session_id,
                "rules": refusal.rules,
                "scope": "session" if session else "once",
            }
        )
        return
    typer.echo(
        f"allowed {scope}: {refusal.what} ({refusal.harness} {refusal.native_event}, "
        f"event {refusal.event_id}); rules: {', '.join(refusal.rules)}"
    )
    typer.echo(
        f"the same call in session {refusal.session_id} now passes these rules "
        f"(allowance {allowance}, recorded in the history)"
    )
