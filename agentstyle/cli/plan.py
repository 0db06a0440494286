"""`style plan`: where each rule runs on a harness, with status, reason and refresh strategy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from agentstyle.cli.common import (
    Format,
    FormatOpt,
    HarnessOpt,
    PackagesArg,
    emit_json,
    packages_or_cwd,
)
from agentstyle.diagnostics import render_text
from agentstyle.harnesses import DEFAULT as DEFAULT_HARNESS

if TYPE_CHECKING:
    from agentstyle.harnesses.facts import HarnessSpec
    from agentstyle.policy.compile import Compiled
    from agentstyle.policy.plan import PlanEntry


def command(
    packages: PackagesArg = None,
    harness: HarnessOpt = DEFAULT_HARNESS,
    fmt: FormatOpt = Format.text,
    verbose: Annotated[
        bool, typer.Option("--verbose", help="time each compiler pass (on stderr)")
    ] = False,
) -> None:
    """Show where each rule runs on a harness, and why.

    One row per rule and point: the native event, matcher, status, action, repeat and reason.
    The built-in self-protection rules are planned with the packages, as install places them.

    With --format json: a list with one object per rule: `rule`, `entries` (each with
    `rule_id`, `harness`, `point`, `native_event`, `matcher`, `status`, `reason`, `action`,
    `repeat`, `capability`), `refresh` (how its context is kept fresh, as lines), `check`
    (the command or prompt of its check, as lines) and `exceptions` (where another package's
    `exceptions:` entry narrows it: each `package`, `reason` and `source`).
    """
    # Only a package without errors is planned: lowering assumes validated rules. The built-in
    # self-protection rules are planned with them, as install places them
    # (docs/design/cli.md#self-protection).
    from agentstyle.harnesses.facts import spec_for
    from agentstyle.install.selfprotect import plan_packages
    from agentstyle.policy.compile import compile_policy, load_and_validate, ordered
    from agentstyle.policy.lower import qualified
    from agentstyle.policy.plan import check_lines, refresh_lines

    with plan_packages(harness) as builtin:
        loaded = load_and_validate(packages_or_cwd(packages) + builtin)
        errors = [d for d in loaded.diagnostics if d.level == "error"]
        if errors:
            typer.echo(render_text(errors), nl=False, err=True)
            raise typer.Exit(1)
        compiled = compile_policy(loaded, [harness])
    errors = [d for d in compiled.diagnostics if d.level == "error"]
    if errors:
        typer.echo(render_text(errors), nl=False, err=True)
        raise typer.Exit(1)
    spec = spec_for(harness)
    by_rule: dict[str, list[PlanEntry]] = {}
    for entry in compiled.plan:
        by_rule.setdefault(entry.rule_id, []).append(entry)
    narrowing = _narrowing(compiled)
    if fmt == Format.json:
        out = []
        for cp in ordered(compiled.packages):
            for info in cp.rules:
                rid = qualified(cp.package, info.rule.id)
                out.append(
                    {
                        "rule": rid,
                        "entries": [_entry_dict(e) for e in by_rule[rid]],
                        "refresh": [line.strip() for line in refresh_lines(info, spec)],
                        "check": [line.strip() for line in check_lines(info)],
                        "exceptions": narrowing.get(rid, []),
                    }
                )
        emit_json(out)
        return
    rows = [("RULE", "POINT", "NATIVE EVENT", "MATCHER", "STATUS", "ACTION", "REPEAT", "REASON")]
    extra: dict[int, list[str]] = {}
    for cp in ordered(compiled.packages):
        for info in cp.rules:
            rid = qualified(cp.package, info.rule.id)
            for e in by_rule[rid]:
                rows.append(
                    (
                        rid,
                        e.point or "-",
                        e.native_event or "-",
                        # A matcher means something only where a hook is installed.
                        (e.matcher or "*") if e.hooked else "-",
                        e.status,
                        e.action if e.runs or not e.hooked else "-",
                        e.repeat or "-",
                        e.reason or "",
                    )
                )
            lines = refresh_lines(info, spec) if any(e.runs for e in by_rule[rid]) else []
            lines += check_lines(info)
            lines += [
                f"    excepted by {x['package']}: {x['reason']} ({x['source']})"
                for x in narrowing.get(rid, [])
            ]
            if lines:
                extra[len(rows) - 1] = lines
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    typer.echo(f"plan for {harness}")
    for i, row in enumerate(rows):
        cells = [c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)] + [row[-1]]
        typer.echo("  ".join(cells).rstrip())
        for line in extra.get(i, []):
            typer.echo(line)
    if any(e.hooked and e.harness == harness for e in compiled.plan):
        typer.echo(_always_installed(spec))
    gated = (
        e.runs and e.action in ("block", "ask") and e.native_event in spec.gate_events
        for e in compiled.plan
    )
    if any(gated):  # where a rule refuses, what a dead or hung hook does to the call
        typer.echo(spec.hook_failure())
    if verbose:
        for name, seconds in compiled.timings.items():
            typer.echo(f"pass {name}: {seconds * 1000:.1f} ms", err=True)


def _always_installed(spec: HarnessSpec) -> str:
    """The handlers install writes beside the rules' (install/handlers.py): the session clock,
    and the events only the audit reads (`HarnessSpec.audited`)."""
    parts = [", ".join(spec.bookkeeping) + " (the session clock)"]
    for point in spec.audited:
        native = spec.points[point].native_event
        parts.append(f"{native} ({point}, recorded for `style audit refusals`)")
    return "also installed: " + "; ".join(parts)


def _narrowing(compiled: Compiled) -> dict[str, list[dict[str, str]]]:
    """Per rule, the other packages' `exceptions:` entries that narrow it."""
    narrowing: dict[str, list[dict[str, str]]] = {}
    for x in compiled.rows.rule_exceptions:
        if x.rule_id.startswith(x.package + "/"):
            continue  # the rule's own `unless` is part of the rule, not an exception to it
        narrowing.setdefault(x.rule_id, []).append(
            {"package": x.package, "reason": x.reason, "source": f"{x.source_file}:{x.source_line}"}
        )
    return narrowing


def _entry_dict(e: PlanEntry) -> dict[str, object]:
    fields = (
        "rule_id",
        "harness",
        "point",
        "native_event",
        "matcher",
        "status",
        "reason",
        "action",
        "repeat",
        "capability",
    )
    return {f: getattr(e, f) for f in fields}
