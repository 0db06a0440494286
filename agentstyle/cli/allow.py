"""`style allow [--last|EVENT_ID|CODE] [--session]`: the person lets one refused call through."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, NamedTuple

import typer

from agentstyle.cli.common import Format, FormatOpt, emit_json, usage_error
from agentstyle.cli.install import project_root
from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.paths import StylePaths

if TYPE_CHECKING:
    from agentstyle.evaluator.allowances import Refusal


def _line(r: Refusal) -> str:
    rules = ", ".join(r.rules) or "-"
    code = r.code or "-"
    tail = "" if r.tool_call else "  (cannot be allowed: not a tool call)"
    return (
        f"{r.event_id:>6}  {code:<4}  {r.harness:<11} {r.native_event:<20} {rules}  {r.what}{tail}"
    )


class _CheckRow(NamedTuple):
    """allow/checks.sql"""

    rule_id: str
    run: str


def _allow_checks(fmt: str) -> None:
    """`style allow --checks`: every check of the installed policy may run on this machine,
    until its command changes (docs/observers.md#allowing-checks)."""
    from agentstyle.evaluator.statements import read_rows
    from agentstyle.install.enginefree import engine_free_store
    from agentstyle.observe.accepted import accept

    root = project_root()
    paths = StylePaths(root)
    if not paths.database.exists():
        raise StyleError(f"no rules database at {paths.database}; run `style install` first")
    with engine_free_store(paths, create=False) as conn:
        found = read_rows(conn, "allow/checks", _CheckRow, {})
    accept(str(root), {r.rule_id: r.run for r in found})
    if fmt == Format.json:
        emit_json({"checks": [{"rule": r.rule_id, "run": r.run} for r in found]})
        return
    if not found:
        typer.echo("the policy has no checks; nothing to allow")
        return
    for r in found:
        typer.echo(f"allowed: {r.rule_id} runs `{r.run}`")
    typer.echo(f"{len(found)} check(s) may run in {root} on this machine until they change")


def _target(text: str | None) -> int | str | None:
    from agentstyle.evaluator.allowances import looks_like_code

    if text is None:
        return None
    if text.isdigit():
        return int(text)
    if looks_like_code(text):
        return text
    raise typer.BadParameter(
        f"`{text}` is neither an event id (a number) nor an allow code (like `k7f3`)",
        param_hint="EVENT_ID|CODE",
    )


def command(
    target: Annotated[
        str | None,
        typer.Argument(
            help="the refused event's id, or the allow code its reason gave (listed when none)",
            metavar="EVENT_ID|CODE",
        ),
    ] = None,
    last: Annotated[bool, typer.Option("--last", help="the last tool call STYLE refused")] = False,
    session: Annotated[
        bool, typer.Option("--session", help="for the rest of that session, not just once")
    ] = False,
    checks: Annotated[
        bool,
        typer.Option(
            "--checks", help="let the policy's checks run on this machine (each command shown)"
        ),
    ] = False,
    fmt: FormatOpt = Format.text,
) -> None:
    """Let one refused call through, once or for the rest of its session.

    The same rule, tool and input pass again. Run it in your own terminal: an agent's attempt
    to run it is refused by STYLE's self-protection, because an approval has to come from you.

    With --format json: one object with `allowance` (its id), `status` (granted, already or
    widened), `event`, `code`, `harness`, `session`, `rules`, `scope` (once or session) and
    `uses`.
    """
    from agentstyle.evaluator.allowances import grant, pick, refusals
    from agentstyle.evaluator.store import transaction
    from agentstyle.install.enginefree import engine_free_store

    if checks:
        if last or target is not None or session:
            raise usage_error("--checks allows the policy's checks; it takes no call to allow")
        _allow_checks(fmt)
        return
    if last and target is not None:
        raise usage_error("give --last, an EVENT_ID or a CODE, not both")
    chosen = _target(target)
    paths = StylePaths(project_root())
    if not paths.database.exists():
        raise StyleError(f"no rules database at {paths.database}; run `style install` first")
    with engine_free_store(paths, create=False) as conn:
        if not last and chosen is None:
            recent = refusals(conn)[:10]
            typer.echo(
                "style: say which call to allow: --last, or one of these EVENT_IDs (or CODEs)",
                err=True,
            )
            for r in recent:
                typer.echo(_line(r), err=True)
            raise typer.Exit(2)
        with transaction(conn):
            refusal = pick(conn, chosen)
            granted = grant(conn, refusal, session=session)
            newest = refusals(conn)[:1] if last else []
    if newest and newest[0].event_id != refusal.event_id and not newest[0].tool_call:
        typer.echo(
            f"style: the last refusal (event {newest[0].event_id}) was a {newest[0].kind}, which "
            "cannot be allowed; this is the last refused tool call",
            err=True,
        )
    if fmt == Format.json:
        emit_json(
            {
                "allowance": granted.allowance,
                "status": granted.status,
                "event": refusal.event_id,
                "code": refusal.code,
                "harness": refusal.harness,
                "session": refusal.session_id,
                "rules": refusal.rules,
                "scope": granted.scope,
                "uses": granted.uses,
            }
        )
        return
    scope = "for the rest of the session" if granted.scope == "session" else "once"
    call = f"{refusal.what} ({refusal.harness} {refusal.native_event}, event {refusal.event_id})"
    if granted.status == "already":
        typer.echo(
            f"already allowed {scope}: {call} (allowance {granted.allowance}, not used yet); "
            "nothing added"
        )
        return
    verb = "widened to the rest of the session" if granted.status == "widened" else "allowed"
    if granted.status == "granted":
        verb = f"allowed {scope}"
    typer.echo(f"{verb}: {call}; rules: {', '.join(refusal.rules)}")
    typer.echo(
        f"the same call in session {refusal.session_id} now passes these rules "
        f"(allowance {granted.allowance}, recorded in the history)"
    )
