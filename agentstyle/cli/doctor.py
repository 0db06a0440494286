"""`style doctor`: check the installation end to end (docs/design/cli.md#doctor)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentstyle.cli.common import Format, FormatOpt, emit_json
from agentstyle.cli.install import project_root

if TYPE_CHECKING:
    from agentstyle.doctor.checks import Finding


def command(
    fmt: FormatOpt = Format.text,
    fire: Annotated[
        bool,
        typer.Option(
            "--fire/--no-fire", help="run each harness's installed hook command with an event"
        ),
    ] = True,
    live: Annotated[
        bool,
        typer.Option(
            "--live",
            help="also fire a canary each installed tool gate must refuse (exit 1 if one does not)",
        ),
    ] = False,
) -> None:
    """Check the installation end to end; exit 1 on any error.

    For every installed harness: the config and its handlers, the interpreter, a synthetic
    event through the installed command (answer and time), the database, rules that can
    never fire, and the tool calls of the last 7 days STYLE never saw (`style audit
    coverage`). Then the layers in force: the managed, user and project policies (folder,
    lock, packages, installs) and what the evaluating database holds of each. With --live,
    each tool gate is also fired, as installed, with a harmless call self-protection refuses
    (a write into .style/, never run): the gate must refuse it.

    With --format json: a list of findings, each with `level` (ok, warning or error), `harness`
    (null for the project's own checks, `layers` for the layers section) and `message`.
    """
    from agentstyle.doctor.checks import run_doctor
    from agentstyle.doctor.layers import layer_findings

    root = project_root()
    findings = run_doctor(root, fire=fire) + layer_findings(root)
    findings += coverage_findings(root)
    if live:
        from agentstyle.doctor.live import run_live

        findings += run_live(root)
    if fmt == Format.json:
        emit_json([f.to_json() for f in findings])
    else:
        for finding in findings:
            typer.echo(finding.line)
    if any(f.level == "error" for f in findings):
        raise typer.Exit(1)


COVERAGE_DAYS = 7
COVERAGE_WAIT_S = 5.0  # a database held longer: the line is left out, doctor goes on


def coverage_findings(root: Path) -> list[Finding]:
    """The tool calls of the last week the harnesses' transcripts show and STYLE never saw
    (docs/audit.md#coverage): one warning with the command that lists them."""
    import datetime as dt

    from agentstyle.audit import coverage, report
    from agentstyle.doctor.checks import Finding
    from agentstyle.evaluator.paths import StylePaths

    if not StylePaths(root).database.exists():
        return []  # run_doctor said so already
    filters = report.Filters(since=report.utc_now() - dt.timedelta(days=COVERAGE_DAYS))
    try:
        with report.project_history(root, wait_s=COVERAGE_WAIT_S) as conn:
            found = coverage.coverage(conn, root, filters)
    except Exception as exc:  # a report that cannot run is a warning, never a traceback
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return [Finding("warning", None, f"could not compare the transcripts: {first}")]
    line = coverage.summary_line(found, COVERAGE_DAYS)
    if line is None:
        return []
    return [
        Finding("warning", None, f"{line}; see `style audit coverage --since {COVERAGE_DAYS}d`")
    ]
