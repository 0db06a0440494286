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
    from collections.abc import Iterator

    from agentstyle.diagnostics import Diagnostic
    from agentstyle.harnesses.facts import HarnessSpec
    from agentstyle.policy.compile import Compiled
    from agentstyle.policy.plan import PlanEntry
    from agentstyle.policy.validconditions import RuleInfo


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
    from agentstyle.harnesses.facts import spec_for

    compiled = _compiled(packages_or_cwd(packages), harness)
    spec = spec_for(harness)
    by_rule: dict[str, list[PlanEntry]] = {}
    for entry in compiled.plan:
        by_rule.setdefault(entry.rule_id, []).append(entry)
    if fmt == Format.json:
        emit_json(_json(compiled, spec, by_rule))
        return
    typer.echo(f"plan for {harness}")
    for line in _table(compiled, spec, by_rule):
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


def _compiled(packages: list[str], harness: str) -> Compiled:
    """The packages and the built-in self-protection rules compiled for the harness, as
    install places them (docs/design/cli.md#self-protection); exit 1 with the errors where
    loading or compiling fails: only a package without errors is planned (lowering assumes
    validated rules)."""
    from agentstyle.install.selfprotect import plan_packages
    from agentstyle.policy.compile import compile_policy, load_and_validate

    with plan_packages(harness) as builtin:
        loaded = load_and_validate(packages + builtin)
        _exit_on_errors(loaded.diagnostics)
        compiled = compile_policy(loaded, [harness])
    _exit_on_errors(compiled.diagnostics)
    return compiled


def _exit_on_errors(diagnostics: list[Diagnostic]) -> None:
    errors = [d for d in diagnostics if d.level == "error"]
    if errors:
        typer.echo(render_text(errors), nl=False, err=True)
        raise typer.Exit(1)


def _json(
    compiled: Compiled, spec: HarnessSpec, by_rule: dict[str, list[PlanEntry]]
) -> list[dict[str, object]]:
    """`--format json`: one object per rule, in the packages' order."""
    from agentstyle.policy.plan import check_lines, refresh_lines

    narrowing = _narrowing(compiled)
    return [
        {
            "rule": rid,
            "entries": [_entry_dict(e) for e in by_rule[rid]],
            "refresh": [line.strip() for line in refresh_lines(info, spec)],
            "check": [line.strip() for line in check_lines(info)],
            "exceptions": narrowing.get(rid, []),
        }
        for rid, info in _rules(compiled)
    ]


def _table(compiled: Compiled, spec: HarnessSpec, by_rule: dict[str, list[PlanEntry]]) -> list[str]:
    """The text form: a row per rule and point, in aligned columns, each rule's refresh,
    check and exception lines under its last row."""
    from agentstyle.policy.plan import check_lines, refresh_lines

    narrowing = _narrowing(compiled)
    rows = [("RULE", "POINT", "NATIVE EVENT", "MATCHER", "STATUS", "ACTION", "REPEAT", "REASON")]
    extra: dict[int, list[str]] = {}
    for rid, info in _rules(compiled):
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
    out: list[str] = []
    for i, row in enumerate(rows):
        cells = [c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)] + [row[-1]]
        out.append("  ".join(cells).rstrip())
        out.extend(extra.get(i, []))
    return out


def _rules(compiled: Compiled) -> Iterator[tuple[str, RuleInfo]]:
    """Each compiled rule with its qualified id, in the packages' order."""
    from agentstyle.policy.compile import ordered
    from agentstyle.policy.lower import qualified

    for cp in ordered(compiled.packages):
        for info in cp.rules:
            yield qualified(cp.package, info.rule.id), info


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
