"""`style replay`: backtest a policy on recorded sessions, print its `rules` report and examples."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from agentstyle.cli.common import (
    Format,
    FormatOpt,
    HarnessOpt,
    emit_json,
    packages_or_cwd,
    progress_bar,
    use_color,
)
from agentstyle.cli.install import project_root
from agentstyle.diagnostics import StyleError
from agentstyle.harnesses import DEFAULT as DEFAULT_HARNESS

if TYPE_CHECKING:  # polars and duckdb load only when the command runs
    from agentstyle.audit.replay import Policy, Replayed
    from agentstyle.audit.transcripts import Sources

# A replay that ends sooner draws no bar (docs/design/cli.md#progress-bars).
BAR_AFTER_S = 1.0


def command(
    sources: Annotated[
        list[Path],
        typer.Argument(
            metavar="SRC...",
            help="Claude Code transcripts (*.jsonl), folders of hook payloads (*.json) or of "
            "`style audit export` Parquet files",
        ),
    ],
    package: Annotated[
        list[str] | None,
        typer.Option(
            "--package",
            "-p",
            metavar="PKG",
            help="a package to replay (default: the installed ones)",
        ),
    ] = None,
    harness: HarnessOpt = DEFAULT_HARNESS,
    baseline: Annotated[
        list[str] | None,
        typer.Option("--baseline", metavar="PKG", help="a package of the policy to compare with"),
    ] = None,
    fmt: FormatOpt = Format.text,
    examples: Annotated[
        int, typer.Option("--examples", metavar="N", min=0, help="example events per rule")
    ] = 3,
    batch_size: Annotated[
        int,
        typer.Option("--batch-size", metavar="N", min=1, help="most events evaluated per query"),
    ] = 2000,
) -> None:
    """Backtest a policy on recorded sessions (nothing is recorded).

    Prints the `rules` report of what the policy would have done, with example events, and
    with --baseline how it differs from another policy.

    With --format json: one object with `report` (replay), `harness`, `files`, `sessions`,
    `recorded`, `evaluated`, `not_delivered`, `unknown_events`, `check_results` (recorded
    results of checks, left out), `checks_due` (checks the events would have started: replay
    runs none), `batches`, `cuts`, `seconds`, `packages`, `rules` (`columns` and `rows`),
    `examples` and `baseline` (null, or `packages`, `evaluated`, `verdict_changes` and
    `diff`).
    """
    from agentstyle.audit import replay as rp
    from agentstyle.evaluator.paths import StylePaths
    from agentstyle.install.lockfile import read_lock

    root = project_root()
    settings = read_lock(StylePaths(root).lockfile).settings
    if package:
        packages = packages_or_cwd(list(package))
    else:
        packages, settings = rp.installed_packages(root)
    read = _read_events(sources, harness)
    policy, base_policy = _load_policies(
        root, packages, baseline, harness, settings, layered=None if package else root
    )
    try:
        result = rp.replay(
            policy,
            read.events,
            batch_size=batch_size,
            examples=examples,
            progress=progress_bar("replaying", BAR_AFTER_S),
        )
        base = (
            rp.replay(
                base_policy,
                read.events,
                batch_size=batch_size,
                examples=0,
                progress=progress_bar("replaying the baseline", BAR_AFTER_S),
            )
            if base_policy is not None
            else None
        )
        _render(read, result, base, fmt, examples)
    finally:
        policy.close()
        if base_policy is not None:
            base_policy.close()


def _read_events(sources: list[Path], harness: str) -> Sources:
    """The recorded events of `sources`, their notes said on stderr; a StyleError when there
    are none, or when they are transcripts of another harness than `harness`."""
    from agentstyle.audit.transcripts import read_sources, replayed_format
    from agentstyle.harnesses.facts import spec_for

    read = read_sources(sources)
    for note in read.notes:
        typer.echo(f"style: {note}", err=True)
    if read.skipped_lines:
        typer.echo(f"style: {read.skipped_lines} line(s) were not JSON records; skipped", err=True)
    if not read.events:
        raise StyleError("no events in the sources")
    replayed = replayed_format().harness
    if harness != replayed and any(r.kind == "transcript" for r in read.events):
        title = spec_for(replayed).title
        raise StyleError(f"{title} transcripts are replayed with `--harness {replayed}`")
    return read


def _load_policies(
    root: Path,
    packages: list[str],
    baseline: list[str] | None,
    harness: str,
    settings: dict[str, dict[str, Any]],
    *,
    layered: Path | None,
) -> tuple[Policy, Policy | None]:
    """The policy to replay and the baseline's (None: no --baseline), each with the built-in
    self-protection rules; `layered`: the install root whose other layers apply."""
    from agentstyle.audit import replay as rp
    from agentstyle.install.selfprotect import plan_packages

    # The built-in self-protection rules go with every install, so with every replay too
    # (as `style plan` shows them), unless the lock file says `protect: false`.
    with plan_packages(harness, root) as builtin:
        # The installed policy is replayed as the hooks evaluate it: with the other layers.
        policy = rp.load_policy(packages + builtin, harness, settings, layered=layered)
        try:
            base_policy = (
                rp.load_policy(packages_or_cwd(list(baseline)) + builtin, harness, settings)
                if baseline
                else None
            )
        except BaseException:
            policy.close()
            raise
    return policy, base_policy


def _render(
    read: Sources, result: Replayed, base: Replayed | None, fmt: str, examples: int
) -> None:
    from agentstyle.audit import replay as rp
    from agentstyle.audit import report

    frame = rp.rules_frame(result)
    base_frame = rp.rules_frame(base) if base is not None else None
    diff = rp.baseline_diff(base_frame, frame) if base_frame is not None else None
    changes = rp.verdict_changes(base, result) if base is not None else {}
    if fmt == Format.json:
        doc: dict[str, Any] = {
            "report": "replay",
            "harness": result.policy.harness,
            **_counts(read, result),
            "packages": result.policy.packages,
            "rules": {"columns": list(frame.columns), "rows": report.records(frame)},
            "examples": rp.examples_document(result),
            "baseline": None,
        }
        if base is not None and diff is not None:
            doc["baseline"] = {
                "packages": base.policy.packages,
                "evaluated": base.evaluated,
                "verdict_changes": changes,
                "diff": {"columns": list(diff.columns), "rows": report.records(diff)},
            }
        emit_json(doc)
        return
    color = use_color()
    out = sys.stdout
    out.write(_header(read, result) + "\n\n")
    out.write(
        report.render_text(report.shown_in_text("rules", frame), title="replay rules", color=color)
    )
    out.write(f"{report.footnote('rules', report.Filters())}\n")  # what the flags needed
    shown = {rule: found for rule, found in result.examples.items() if found}
    if examples and shown:
        out.write(f"\nexamples (up to {examples} per rule: tool, input, output, source)\n")
        for rule in [r for r in frame["rule"].to_list() if r in shown]:
            found = shown[rule]
            out.write(f"  {rule}\n")
            width = max(len(e.outcome) for e in found)
            tool = max(len(e.tool) for e in found)
            for e in found:
                origin = Path(e.origin).name
                out.write(f"    {e.outcome:<{width}}  {e.tool:<{tool}}  {e.input}  ({origin})\n")
                if e.output:
                    out.write(f"    {'':<{width}}  → {e.output}\n")
    if base is not None and diff is not None:
        out.write(f"\nbaseline: {', '.join(base.policy.packages)}\n")
        if changes:
            listed = ", ".join(f"{k}: {v}" for k, v in changes.items())
            out.write(f"events changing verdict: {listed}\n")
        else:
            out.write("no event changes verdict\n")
        if diff.height:
            out.write(report.render_text(diff, title="rules that differ", color=color))
        else:
            out.write("no rule differs\n")


def _counts(read: Sources, result: Replayed) -> dict[str, Any]:
    return {
        "files": read.files,
        "sessions": read.sessions,
        "recorded": result.recorded,
        "evaluated": result.evaluated,
        "not_delivered": result.recorded - result.evaluated - result.unknown - result.check_results,
        "unknown_events": result.unknown,
        "check_results": result.check_results,
        "checks_due": result.checks_due,
        "batches": result.batches,
        "cuts": result.cuts,
        "seconds": round(result.seconds, 3),
    }


def _header(read: Sources, result: Replayed) -> str:
    c = _counts(read, result)
    rate = c["evaluated"] / result.seconds if result.seconds > 0 else 0.0
    lines = [
        f"replay: {c['evaluated']:,} of {c['recorded']:,} recorded events evaluated, "
        f"{c['sessions']:,} session(s) from {c['files']:,} file(s)",
        f"policy: {', '.join(result.policy.packages)} ({result.policy.harness}); "
        f"{c['batches']:,} batch(es), {c['cuts']:,} cut at a dependent event, "
        f"{result.seconds:.2f} s ({rate:,.0f} events/s)",
    ]
    if c["not_delivered"]:
        lines.append(
            f"{c['not_delivered']:,} event(s) not evaluated: the installed hooks would not "
            "hand them to STYLE (no handler for the event or the tool)"
        )
    if c["unknown_events"]:
        lines.append(
            f"{c['unknown_events']:,} event(s) of a kind the harness adapter does not know"
        )
    if c["checks_due"]:
        lines.append(
            f"{c['checks_due']:,} check(s) would have started; replay does not run checks, so "
            "their rules' results are not replayed"
        )
    if c["check_results"]:
        lines.append(
            f"{c['check_results']:,} recorded check result(s) left out: not harness events"
        )
    return "\n".join(lines)
