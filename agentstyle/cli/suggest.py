"""`style suggest`: propose policy changes learned from the history; nothing is applied."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentstyle.cli.common import Format, FormatOpt, emit_json, usage_error
from agentstyle.cli.install import project_root

if TYPE_CHECKING:  # the audit modules (polars, duckdb) load only when the command runs
    from agentstyle.audit.suggest import Suggestions


def command(
    sessions: Annotated[
        int,
        typer.Option(
            "--sessions",
            metavar="N",
            min=1,
            help="a rule silent in the last N sessions of its harness is proposed to be disabled",
        ),
    ] = 20,
    min_calls: Annotated[
        int,
        typer.Option(
            "--min-calls",
            metavar="N",
            min=1,
            help="approvals (or `style allow`s) of one kind of call before it is proposed",
        ),
    ] = 2,
    min_events: Annotated[
        int,
        typer.Option("--min-events", metavar="N", min=1, help="the sample the `noisy` flag needs"),
    ] = 20,
    package: Annotated[
        str | None,
        typer.Option("--package", "-p", metavar="NAME", help="only proposals for this package"),
    ] = None,
    write: Annotated[
        Path | None,
        typer.Option(
            "--write",
            metavar="DIR",
            help="write a copy of each package with its proposals applied under DIR",
        ),
    ] = None,
    fmt: FormatOpt = Format.text,
) -> None:
    """Propose policy changes learned from the history (nothing is applied).

    Calls a rule asked about that you approved, or let through with `style allow`, again and
    again become allow or narrow proposals; noisy warn/inject rules a `repeat: session`;
    rules that never fired in the last sessions an `enabled: false`. Each proposal comes with
    the diff of its package file, its evidence and a backtest (the recorded events replayed
    with the installed policy and with the proposed one).

    With --format json: one object with `report` (suggest), `history` (`events`, `sessions`,
    `first`, `last`), `settings` (`sessions`, `min_calls`), `proposals` (each `id`, `kind`,
    `rule`, `package`, `edits` (the package whose files change), `reason`, `condition`,
    `diff`, `evidence`, `backtest`), `notes` and `written`.
    """
    from agentstyle.audit import suggest as sg

    if fmt not in (Format.text, Format.json):
        raise usage_error(f"--format {fmt}: style suggest writes text or json")
    root = project_root()
    result = sg.suggest(
        root, sessions=sessions, min_calls=min_calls, min_events=min_events, package=package
    )
    written = sg.write_proposals(result, write) if write is not None and result.proposals else []
    if fmt == Format.json:
        emit_json(_document(result, written))
        return
    _render(result, written, write)


def _document(result: Suggestions, written: list[tuple[Path, list[int]]]) -> dict[str, Any]:
    from agentstyle.audit.suggest import iso

    h = result.history
    return {
        "report": "suggest",
        "history": {
            "events": h.events,
            "sessions": h.sessions,
            "first": iso(h.first),
            "last": iso(h.last),
        },
        "settings": {"sessions": result.sessions, "min_calls": result.min_calls},
        "proposals": [p.document(n) for n, p in enumerate(result.proposals, 1)],
        "notes": result.notes,
        "written": [{"path": str(path), "proposals": numbers} for path, numbers in written],
    }


def _render(result: Suggestions, written: list[tuple[Path, list[int]]], write: Path | None) -> None:
    from agentstyle.audit.suggest import iso, summary_line

    out = sys.stdout
    h = result.history
    out.write(
        f"suggest: {len(result.proposals)} proposal(s) from {h.events:,} events in "
        f"{h.sessions:,} session(s) ({iso(h.first)} to {iso(h.last)}); nothing was changed\n"
    )
    if result.proposals:
        rows = [("#", "KIND", "RULE", "EVIDENCE", "BACKTEST")]
        for n, p in enumerate(result.proposals, 1):
            e, b = p.evidence, p.backtest
            rows.append(
                (
                    str(n),
                    p.kind,
                    p.rule,
                    f"{e['count']} event(s), {e['sessions']} session(s)",
                    f"{b['changed']:,} of {b['evaluated']:,} events change",
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        out.write("\n")
        for r in rows:
            out.write("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n")
        for n, p in enumerate(result.proposals, 1):
            out.write(f"\n{n}. {p.kind} {p.rule}: {p.reason}\n")
            e = p.evidence
            ids = ", ".join(str(i) for i in e["events"][:10])
            more = f" (+{len(e['events']) - 10} more)" if len(e["events"]) > 10 else ""
            seen = e.get("seen") or {}
            where = "; seen in " + ", ".join(f"{k} {v}" for k, v in seen.items()) if seen else ""
            if e.get("declined"):
                where += f"; {e['declined']} of the same kind declined at the prompt"
            if ids:
                out.write(f"   evidence: events {ids}{more}; {e['first']} to {e['last']}{where}\n")
            else:
                out.write(f"   evidence: {e['first']} to {e['last']}{where}\n")
            out.write(f"   backtest: {summary_line(p.backtest)}\n")
            for line in p.diff.splitlines():
                out.write(f"   {line}\n")
    for note in result.notes:
        out.write(f"note: {note}\n")
    for path, numbers in written:
        listed = ", ".join(str(n) for n in numbers)
        out.write(f"wrote {path} (proposal(s) {listed}); review it, then `style install` it\n")
    if write is not None and not written:
        out.write(f"nothing written to {write}: no proposal\n")
