"""The named passes from package paths to policy rows: load → validate → plan → lower."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic, sort_diagnostics
from agentstyle.harnesses.facts import spec_for
from agentstyle.policy.load import load_package
from agentstyle.policy.lower import lower_entries, lower_rule, qualified
from agentstyle.policy.lowervalues import Lowering
from agentstyle.policy.model import Package
from agentstyle.policy.plan import PlanEntry, plan_rule
from agentstyle.policy.rows import PackageRow, PolicyRows, ProgramGrammarRow, SettingRow
from agentstyle.policy.settingrefs import setting_text
from agentstyle.policy.validate import ExceptionInfo, validate_package
from agentstyle.policy.validconditions import RuleInfo


@dataclass(slots=True)
class CompiledPackage:
    package: Package
    rules: list[RuleInfo]
    exceptions: list[ExceptionInfo] = field(default_factory=list)


@dataclass(slots=True)
class Compiled:
    packages: list[CompiledPackage] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    plan: list[PlanEntry] = field(default_factory=list)
    rows: PolicyRows = field(default_factory=PolicyRows)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.level == "error" for d in self.diagnostics)


def _timed(timings: dict[str, float], name: str, start: float) -> None:
    timings[name] = timings.get(name, 0.0) + time.perf_counter() - start


def load_and_validate(paths: list[str]) -> Compiled:
    """The load and validate passes for every package; diagnostics sorted, all collected."""
    out = Compiled()
    diags: list[Diagnostic] = []
    for path in paths:
        t0 = time.perf_counter()
        loaded = load_package(path)
        _timed(out.timings, "load", t0)
        diags.extend(loaded.diagnostics)
        if loaded.package is None:
            continue
        t0 = time.perf_counter()
        validation = validate_package(loaded.package)
        _timed(out.timings, "validate", t0)
        diags.extend(validation.diagnostics)
        out.packages.append(
            CompiledPackage(loaded.package, validation.rules, validation.exceptions)
        )
    names: dict[str, Package] = {}
    for cp in out.packages:
        if cp.package.name in names:
            diags.append(
                Diagnostic.make(
                    codes.DUP_ID,
                    f"package `{cp.package.name}` is given twice",
                    cp.package.manifest_span,
                )
            )
        names[cp.package.name] = cp.package
    out.diagnostics = sort_diagnostics(diags)
    return out


def ordered(packages: list[CompiledPackage]) -> list[CompiledPackage]:
    """Evaluation order of packages (docs/design/runtime.md#package-order): priority desc, then
    name."""
    return sorted(packages, key=lambda cp: (-cp.package.priority, cp.package.name))


def settings_for(pkg: Package, chosen: dict[str, Any]) -> tuple[dict[str, str], list[Diagnostic]]:
    """Setting values: chosen at install, else the default; neither is `setting-missing`."""
    values: dict[str, str] = {}
    diags: list[Diagnostic] = []
    for s in pkg.settings:
        if s.name in chosen:
            value = chosen[s.name]
        elif s.has_default:
            value = s.default
        else:
            diags.append(
                Diagnostic.make(
                    codes.SETTING_MISSING,
                    f"setting `{s.name}` of `{pkg.name}` has no default; pass "
                    f"`--set {s.name}=VALUE`",
                    s.span,
                )
            )
            continue
        values[s.name] = setting_text(s.type, value)
    return values, diags


def installed_regex_errors(low: Lowering) -> list[Diagnostic]:
    """`bad-pattern` for regexes that the installed setting values break (a value that is no
    regex, `--set protected_branches='[main'`): the install stops, nothing is written."""
    if not low.regex_checks:
        return []
    from agentstyle.policy.re2 import regex_errors  # duckdb is the RE2 that will run them

    errors = regex_errors(sorted({pattern for pattern, _, _, _ in low.regex_checks}))
    return [
        Diagnostic.make(
            codes.BAD_PATTERN, f"regex `{pattern}`{note}: {errors[pattern]}", span, rule=rid
        )
        for pattern, span, rid, note in low.regex_checks
        if pattern in errors
    ]


# How strong a layer is: an exception may narrow rules of its own layer or a weaker one.
LAYER_STRENGTH = {"project": 0, "local": 0, "user": 1, "managed": 2}


def exceptions_by_rule(
    packages: list[CompiledPackage], layer_of: dict[str, str] | None
) -> tuple[dict[str, list[tuple[Package, ExceptionInfo]]], list[Diagnostic]]:
    """Each rule's exceptions from the packages compiled together (docs/packages.md#exceptions):
    one naming a rule not among them, or of a stronger layer than its own, is said and left
    out."""
    layer_of = layer_of or {}
    rules = {
        qualified(cp.package, info.rule.id): cp.package for cp in packages for info in cp.rules
    }
    out: dict[str, list[tuple[Package, ExceptionInfo]]] = {}
    diags: list[Diagnostic] = []
    for cp in packages:
        for exc in cp.exceptions:
            target = exc.decl.rule
            owner = rules.get(target)
            if owner is None:
                diags.append(
                    Diagnostic.make(
                        codes.EXCEPTION_TARGET,
                        f"exception for `{target}`: no rule of that id is installed with it, so "
                        "it narrows nothing",
                        exc.decl.rule_span,
                    )
                )
                continue
            mine = layer_of.get(cp.package.name, "project")
            theirs = layer_of.get(owner.name, "project")
            if LAYER_STRENGTH.get(mine, 0) < LAYER_STRENGTH.get(theirs, 0):
                diags.append(
                    Diagnostic.make(
                        codes.EXCEPTION_TARGET,
                        f"exception for `{target}`: that rule is the {theirs} policy's, which "
                        f"a {mine} package cannot narrow",
                        exc.decl.rule_span,
                    )
                )
                continue
            out.setdefault(target, []).append((cp.package, exc))
    return out, diags


def compile_policy(
    compiled: Compiled,
    harnesses: list[str],
    chosen: dict[str, dict[str, Any]] | None = None,
    *,
    require_settings: bool = False,
    layer_of: dict[str, str] | None = None,
) -> Compiled:
    """The plan and lower passes over loaded packages: rows for every policy table.

    Packages with errors are not lowered (their rules may be half-formed); the diagnostics
    say why nothing was compiled.
    """
    if not compiled.ok:
        return compiled
    from agentstyle.commands.catalog import shipped_rows

    rows = PolicyRows()
    rows.program_grammars = [ProgramGrammarRow(*row) for row in shipped_rows()]
    chosen = chosen or {}
    extra: list[Diagnostic] = []
    low = Lowering()
    rule_order = 0
    t0 = time.perf_counter()
    excepted, exception_diags = exceptions_by_rule(compiled.packages, layer_of)
    extra.extend(exception_diags)
    for pkg_order, cp in enumerate(ordered(compiled.packages)):
        pkg = cp.package
        values, missing = settings_for(pkg, chosen.get(pkg.name, {}))
        if require_settings:
            extra.extend(missing)
        rows.packages.append(
            PackageRow(
                name=pkg.name,
                version=pkg.version,
                priority=pkg.priority,
                source=str(pkg.root),
                digest=pkg.digest,
                pkg_order=pkg_order,
                per_rule=pkg.per_rule,
                per_event=pkg.per_event,
                allow_code=pkg.allow_code,
            )
        )
        for name, value in values.items():
            rows.settings.append(SettingRow(package=pkg.name, name=name, value=value))
        for info in cp.rules:
            narrowing = excepted.get(qualified(pkg, info.rule.id), [])
            for _owner, exc in narrowing:
                # the exception's values are lowered with the rule's (policy/lower.py)
                info.item_preds.update(exc.info.item_preds)
                info.regexes.update(exc.info.regexes)
            lower_rule(pkg, info, rule_order, values, rows, extra, low, narrowing)
            rule_order += 1
            for harness in harnesses:
                compiled.plan.extend(
                    plan_rule(info, qualified(pkg, info.rule.id), spec_for(harness))
                )
    extra.extend(installed_regex_errors(low))
    lower_entries(compiled.plan, rows)
    _timed(compiled.timings, "plan+lower", t0)
    compiled.rows = rows
    compiled.diagnostics = sort_diagnostics([*compiled.diagnostics, *extra])
    return compiled
