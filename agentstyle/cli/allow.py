"""`style allow [--last|EVENT_ID] [--session]`: the person lets one refused call through."""

from __future__ import annotations

from typing import Annotated

import typer

from agentstyle.cli.common import Format, FormatOpt, emit_json, usage_error
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
        int | None,
        typer.Argument(
            metavar="EVENT_ID", help="the refused event's id (the last ones are listed without it)"
        ),
    ] = None,
    last: Annotated[bool, typer.Option("--last", help="the last call STYLE refused")] = False,
    session: Annotated[
        bool, typer.Option("--session", help="for the rest of that session, not just once")
    ] = False,
    fmt: FormatOpt = Format.text,
) -> None:
    """Let one refused call through, once or for the rest of its session.

    The same rule, tool and input pass again. Run it in your own terminal: an agent's attempt
    to run it is refused by STYLE's self-protection, because an approval has to come from you.

    With --format json: one object with `allowance` (its id), `event`, `harness`, `session`,
    `rules` and `scope` (once or session).
    """
    if last and event_id is not None:
        raise usage_error("give --last or an EVENT_ID, not both")
    paths = StylePaths(project_root())
    if not paths.database.exists():
        raise StyleError(f"no rules database at {paths.database}; run `style install` first")
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
    if fmt == Format.json:
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
