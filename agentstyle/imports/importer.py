"""`style import`: rules kept elsewhere become rule files of a package, validated before written.

The pipeline (docs/import.md#all-or-nothing): read the sources (polars for tables) → convert every
row or file to a candidate rule file → stage the package as it would be after the import in a
temporary copy → run the real loader and validator on it and map each diagnostic back to its source
row → write all or nothing (`--skip-invalid`: the valid rows), leaving unchanged files untouched →
`--prune` what the sources no longer hold.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic, StyleError
from agentstyle.imports.claude_permissions import permission_candidate, permission_entries
from agentstyle.imports.convert import (
    IMPORT_ROOT,
    Candidate,
    Reason,
    check_id,
    json_fields,
    relocate,
    render,
    row_candidate,
    rule_id,
)
from agentstyle.imports.formats import (
    cursor_candidate,
    expand,
    markdown_candidate,
    omp_candidate,
    read_doc,
)
from agentstyle.imports.hookify import hookify_candidate, rule_files
from agentstyle.imports.manifest import ManifestPlan, plan_manifest
from agentstyle.install.lockfile import atomic_write
from agentstyle.policy.compile import load_and_validate
from agentstyle.policy.files import decode
from agentstyle.policy.scaffold import package_name

TABULAR = ("csv", "tsv", "jsonl", "parquet")
FILE_FORMATS = ("markdown", "oh-my-pi", "cursor", "claude-permissions", "hookify")
FORMATS = (*TABULAR, *FILE_FORMATS)
EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
# Folders a staged copy of the package leaves out: never package source.
STAGE_SKIP = frozenset({".git", ".style", "node_modules", "__pycache__", ".venv"})
# Passes of `--skip-invalid`: dropping a rejected row can change another row's diagnostics.
MAX_PASSES = 3

Progress = Callable[[str, int, int], None]
# A table row: its line (or row number), its values, a problem with its shape.
Row = tuple[int, dict[str, Any], str | None]


class SourceMissing(StyleError):
    """A source argument does not exist (a usage error)."""


@dataclass(slots=True)
class RowResult:
    status: str  # created | updated | unchanged | rejected | valid (nothing was written)
    label: str
    source: str
    line: int | None
    id: str | None
    rule: str | None
    path: str | None
    reasons: list[Reason] = field(default_factory=list)
    notes: list[Reason] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            **json_fields(self, "status", "source", "line", "label", "id", "rule", "path"),
            "diagnostics": [r.to_json() for r in self.reasons],
            "notes": [n.to_json() for n in self.notes],
        }


@dataclass(slots=True)
class ImportReport:
    format: str
    into: str
    written: bool = False
    rows: list[RowResult] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    package: list[Reason] = field(default_factory=list)  # diagnostics outside imported rows
    manifest: str = ""  # created | added | present | covered | "" (not touched)
    manifest_entry: str = ""
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)

    def totals(self) -> dict[str, int]:
        out = {k: 0 for k in ("created", "updated", "unchanged", "rejected", "valid")}
        for row in self.rows:
            out[row.status] += 1
        out["removed"] = len(self.removed)
        return out

    @property
    def ok(self) -> bool:
        return self.written or (not self.rows and not self.package_errors)

    @property
    def package_errors(self) -> list[Reason]:
        return [r for r in self.package if r.level == "error"]

    def to_json(self) -> dict[str, Any]:
        return {
            **json_fields(self, "format", "into", "written", "manifest"),
            "from": self.manifest_entry,
            "rows": [r.to_json() for r in self.rows],
            "removed": self.removed,
            "package": [r.to_json() for r in self.package],
            "notes": self.notes,
            "totals": self.totals(),
        }


# -- reading sources -------------------------------------------------------------------------


def _display(path: Path, given: str) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return given


def _text(path: Path, display: str) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise StyleError(f"cannot read `{display}`: {(exc.strerror or str(exc)).lower()}") from None
    text, problem = decode(raw, display)
    if text is None:
        assert problem is not None
        raise StyleError(f"{problem.span}: {problem.message}")
    return text


def _first_line(exc: Exception) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _record_lines(text: str, sep: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The header and, per record after it, (first line, number of cells) as a CSV reader sees it.

    polars gives no line numbers; the report names rows by the line they start on, which
    differs from the record index once a quoted cell holds a newline.
    """
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    header: list[str] | None = None
    out: list[tuple[int, int]] = []
    previous = 0
    for record in reader:
        start = previous + 1
        previous = reader.line_num
        if header is None:
            header = record
            continue
        out.append((start, len(record)))
    return header or [], out


def read_table(path: Path, display: str, kind: str) -> tuple[list[str], list[Row]]:
    """Columns and rows (line or row number, values, a problem with the row) of a table."""
    try:
        if kind == "parquet":
            frame = pl.read_parquet(path)
            rows: list[Row] = [
                (i, row, None) for i, row in enumerate(frame.iter_rows(named=True), start=1)
            ]
            return [c.strip() for c in frame.columns], _strip_keys(rows)
        text = _text(path, display)
        data = io.BytesIO(text.encode("utf-8"))
        if kind == "jsonl":
            if not text.strip():
                return [], []
            frame = pl.read_ndjson(data, infer_schema_length=None)
            lines = [i for i, line in enumerate(text.split("\n"), start=1) if line.strip()]
            rows_iter = list(frame.iter_rows(named=True))
            numbers = lines if len(lines) == len(rows_iter) else list(range(1, len(rows_iter) + 1))
            rows = [(n, row, None) for n, row in zip(numbers, rows_iter, strict=True)]
            return [c.strip() for c in frame.columns], _strip_keys(rows)
        sep = "\t" if kind == "tsv" else ","
        header, records = _record_lines(text, sep)
        if not header:
            return [], []
        names = [h.strip() for h in header]
        duplicated = sorted({n for n in names if names.count(n) > 1})
        if duplicated:
            raise StyleError(f"`{display}`: column `{duplicated[0]}` appears twice in the header")
        frame = pl.read_csv(
            data,
            separator=sep,
            infer_schema=False,
            truncate_ragged_lines=True,
            raise_if_empty=False,
        )
    except StyleError:
        raise
    except Exception as exc:  # polars raises many kinds; each means the file cannot be read
        raise StyleError(f"cannot read `{display}` as {kind}: {_first_line(exc)}") from None
    frame.columns = names[: len(frame.columns)]
    values = list(frame.iter_rows(named=True))
    # csv.reader yields an empty record for a blank line, polars a row of nulls: aligned.
    aligned = len(records) == len(values)
    out: list[Row] = []
    for i, row in enumerate(values):
        line, cells = records[i] if aligned else (i + 2, len(names))
        problem = None
        if cells > len(names):
            problem = f"the row has {cells} cells, the header {len(names)}"
        out.append((line, row, problem))
    return names, out


def _strip_keys(rows: list[Row]) -> list[Row]:
    return [(n, {k.strip(): v for k, v in row.items()}, p) for n, row, p in rows]


def input_kind(fmt: str, path: Path, input_format: str | None) -> str:
    if input_format is not None:
        return input_format
    if fmt != "csv":
        return fmt
    return EXTENSIONS.get(path.suffix.lower(), "csv")


def collect(
    fmt: str,
    sources: list[str],
    input_format: str | None,
    report: ImportReport,
    progress: Progress | None,
) -> list[Candidate]:
    """Every source row or file as a candidate, in source order."""
    cands: list[Candidate] = []
    for given in sources:
        path = Path(given)
        if not path.exists():
            raise SourceMissing(f"`{given}`: no such file or folder")
        display = _display(path, given)
        if fmt in TABULAR:
            if path.is_dir():
                raise SourceMissing(f"`{given}` is a folder; give the {fmt} file")
            kind = input_kind(fmt, path, input_format)
            columns, rows = read_table(path, display, kind)
            for n, (line, row, problem) in enumerate(rows, start=1):
                cand = row_candidate(row, display, line, f"{display}:{line}", columns)
                if cand is not None:
                    if problem:
                        cand.reject(problem)
                    cands.append(cand)
                if progress is not None and n % 500 == 0:
                    progress("reading", n, len(rows))
        elif fmt == "claude-permissions":
            if path.is_dir():
                raise SourceMissing(f"`{given}` is a folder; give the settings JSON file")
            text = _text(path, display)
            entries, problems, allowed = permission_entries(text, display)
            if problems and not entries:
                raise StyleError(f"`{display}`: {problems[0]}")
            if allowed:
                report.notes.append(
                    f"{display}: {allowed} `permissions.allow` entr"
                    f"{'y' if allowed == 1 else 'ies'} not imported (import takes deny and ask)"
                )
            for pe in entries:
                cands.append(permission_candidate(pe, display, path.name))
        else:
            found = rule_files(path, display) if fmt == "hookify" else expand(path, display, fmt)
            files = list(found)
            if not files:
                report.notes.append(f"{display}: no {fmt} rule files found")
            for file_path, shown, cid in files:
                cands.append(_file_candidate(fmt, file_path, shown, cid))
    return cands


def _file_candidate(fmt: str, path: Path, display: str, cid: str) -> Candidate:
    if fmt == "markdown":
        return markdown_candidate(path, display, cid)
    if fmt == "hookify":
        return hookify_candidate(path, display, cid)
    doc, problem, line = read_doc(path, display)
    if doc is None:
        cand = Candidate(display, line or 1, display, cid)
        cand.reject(problem or "cannot read the file")
        return cand
    return omp_candidate(doc, cid) if fmt == "oh-my-pi" else cursor_candidate(doc, cid)


# -- checking --------------------------------------------------------------------------------


def _collisions(cands: list[Candidate], fmt: str) -> None:
    """Two rows that would write one rule file: all of them are rejected (none wins silently)."""
    by_id: dict[str, list[Candidate]] = {}
    for c in cands:
        if c.id is not None:
            by_id.setdefault(c.id, []).append(c)
    for cid, group in by_id.items():
        if len(group) < 2:
            continue
        for c in group:
            others = ", ".join(o.label for o in group if o is not c)
            c.reject(f"id `{rule_id(fmt, cid)}` is also produced by {others}", code=codes.DUP_ID)


def _stage_base() -> str | None:
    """A memory-backed folder for the staged copy where the system has one.

    A large import stages thousands of small files that live for one validation; on a
    disk, creating and deleting them costs more than the validation itself.
    """
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK | os.X_OK):
        return str(shm)
    return None


def _stage(pkg: Path, stage_root: Path, replaced: set[str]) -> Path:
    """A copy of the package, without the files the import replaces or removes."""
    staged = stage_root / (pkg.resolve().name or "pkg")
    if not pkg.is_dir():
        staged.mkdir(parents=True)
        return staged
    root = pkg.resolve()

    def skip(folder: str, names: list[str]) -> set[str]:
        rel = Path(folder).resolve().relative_to(root).as_posix()
        prefix = "" if rel == "." else rel + "/"
        return {n for n in names if n in STAGE_SKIP or prefix + n in replaced}

    shutil.copytree(pkg, staged, symlinks=True, ignore=skip)
    return staged


def _staged_rel(diag: Diagnostic, staged: Path) -> str | None:
    if diag.span is None:
        return None
    p = Path(diag.span.file)
    if not p.is_absolute():
        p = Path.cwd() / p
    try:
        return p.resolve().relative_to(staged.resolve()).as_posix()
    except (ValueError, OSError):
        return None


@dataclass(slots=True)
class _Check:
    reasons: dict[int, list[Reason]]  # id(candidate) → diagnostics of its rule file
    package: list[Reason]


def _validate(
    pkg: Path,
    into_display: str,
    cands: list[Candidate],
    removed: list[str],
    manifest: ManifestPlan | None,
) -> _Check:
    """The real loader and validator over the package as it would be after the import."""
    replaced = {c.rel for c in cands} | set(removed) | {"STYLE.yaml"}
    with tempfile.TemporaryDirectory(prefix="style-import-", dir=_stage_base()) as tmp:
        staged = _stage(
            pkg, Path(tmp), replaced if manifest is not None else replaced - {"STYLE.yaml"}
        )
        for c in cands:
            target = staged / c.rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(c.data)
        if manifest is not None:
            (staged / "STYLE.yaml").write_text(manifest.text, encoding="utf-8", newline="")
        compiled = load_and_validate([str(staged)])
        by_rel = {c.rel: c for c in cands}
        by_rule = {rule_id_of(c): c for c in cands}
        reasons: dict[int, list[Reason]] = {}
        package: list[Reason] = []
        into = into_display.rstrip("/")
        staged_prefix = staged.resolve().as_posix() + "/"
        for d in compiled.diagnostics:
            # A message may name another file of the staged copy: name the package's instead.
            d = replace(d, message=d.message.replace(staged_prefix, into + "/"))
            rel = _staged_rel(d, staged)
            cand = by_rel.get(rel) if rel is not None else None
            if cand is None and d.rule is not None:
                cand = by_rule.get(d.rule)
            if cand is not None:
                if rel != cand.rel:
                    # Reported where the package selects the rule (a `from` entry of
                    # STYLE.yaml): the row is the cause; say where the loader saw it.
                    line = f":{d.span.line}" if d.span else ""
                    message = f"{d.message} (reported at `{into}/{rel}{line}`)"
                    reason = Reason(message, cand.source, cand.line, d.code, d.level)
                else:
                    reason = relocate(d, cand)
                reasons.setdefault(id(cand), []).append(reason)
                continue
            where = f"{into}/{rel}" if rel else into
            package.append(
                Reason(d.message, where, d.span.line if d.span else None, d.code, d.level)
            )
    return _Check(reasons, package)


def rule_id_of(cand: Candidate) -> str:
    return cand.rel[len("rules/") : -len(".md")]


# -- writing ---------------------------------------------------------------------------------


def _write_bytes(path: Path, data: bytes) -> None:
    """Through a temporary file and a rename: a reader never sees half a rule file.

    Not fsynced one by one: 10,000 fsyncs would take minutes, and the files are source that
    the import can write again.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.style-tmp-{os.getpid()}")
    tmp.write_bytes(data)
    if path.exists():
        os.chmod(tmp, path.stat().st_mode & 0o7777)
    os.replace(tmp, path)


def _existing(folder: Path, pkg: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(
        p.relative_to(pkg).as_posix() for p in folder.rglob("*.md") if p.is_file() or p.is_symlink()
    )


def _remove_empty_dirs(folder: Path) -> None:
    if not folder.is_dir():
        return
    for d in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        with contextlib.suppress(OSError):
            d.rmdir()


def import_rules(
    fmt: str,
    sources: list[str],
    into: str,
    *,
    prune: bool = False,
    skip_invalid: bool = False,
    input_format: str | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Convert, validate and (when every row is valid, or with `skip_invalid`) write."""
    if fmt not in FORMATS:
        raise StyleError(f"unknown import format `{fmt}` (one of: {', '.join(FORMATS)})")
    if input_format is not None and (fmt not in TABULAR or input_format not in TABULAR):
        raise StyleError("`--input-format` is one of csv, tsv, jsonl, parquet, for tables only")
    pkg = Path(into)
    if pkg.exists() and not pkg.is_dir():
        raise StyleError(f"`{into}` is not a folder; `--into` names a directory package")
    report = ImportReport(fmt, into)
    timings = report.timings
    t0 = time.perf_counter()
    cands = _converted(collect(fmt, sources, input_format, report, progress), fmt)
    timings["convert"] = time.perf_counter() - t0

    folder = pkg / IMPORT_ROOT / fmt
    report.manifest_entry = f"{IMPORT_ROOT}/{fmt}/**/*.md"
    manifest_path = pkg / "STYLE.yaml"
    manifest_text = _text(manifest_path, f"{into}/STYLE.yaml") if manifest_path.exists() else None
    existing = _existing(folder, pkg)
    t0 = time.perf_counter()
    checked = _check(pkg, into, fmt, cands, existing, manifest_text, prune, skip_invalid, progress)
    timings["validate"] = time.perf_counter() - t0

    reasons = checked.reasons
    # Candidates are compared by identity: dataclass equality would compare every field.
    rejected = {id(c) for c in cands if not c.ok or _has_error(reasons.get(id(c)))}
    valid = [c for c in cands if id(c) not in rejected]
    report.package = checked.package
    write = bool(valid) and not report.package_errors and (skip_invalid or not rejected)
    if not valid and prune and not rejected and existing:
        write = False
        report.notes.append("the sources hold no rules; nothing pruned (the folder would be empty)")
    t0 = time.perf_counter()
    for i, c in enumerate(cands):
        report.rows.append(
            _row_result(pkg, fmt, c, reasons.get(id(c), []), id(c) in rejected, write)
        )
        if progress is not None and (i + 1) % 500 == 0:
            progress("writing", i + 1, len(cands))
    if write:
        assert checked.manifest is not None
        _write_manifest(report, manifest_path, checked.manifest)
        for rel in checked.removed:
            (pkg / rel).unlink(missing_ok=True)
        report.removed = checked.removed
        _remove_empty_dirs(folder)
    report.written = write
    timings["write"] = time.perf_counter() - t0
    return report


def _converted(cands: list[Candidate], fmt: str) -> list[Candidate]:
    """The collected candidates, each id checked against the others' and, where the candidate is
    still valid, its rule file rendered."""
    for c in cands:
        check_id(c, fmt)
    _collisions(cands, fmt)
    for c in cands:
        if c.ok:
            render(c, fmt)
    return cands


@dataclass(slots=True)
class _Checked:
    """What the validation passes leave: each candidate's diagnostics, the package's own, the
    manifest as it would be written and the files `--prune` removes."""

    reasons: dict[int, list[Reason]] = field(default_factory=dict)
    package: list[Reason] = field(default_factory=list)
    manifest: ManifestPlan | None = None
    removed: list[str] = field(default_factory=list)


def _check(
    pkg: Path,
    into: str,
    fmt: str,
    cands: list[Candidate],
    existing: list[str],
    manifest_text: str | None,
    prune: bool,
    skip_invalid: bool,
    progress: Progress | None,
) -> _Checked:
    """The valid candidates validated in the staged package; with `skip_invalid`, again without
    the ones a pass rejected (up to MAX_PASSES), as dropping one can change another's."""
    pattern = f"{IMPORT_ROOT}/{fmt}/**/*.md"
    out = _Checked()
    for _ in range(MAX_PASSES):
        valid = [c for c in cands if c.ok and not _has_error(out.reasons.get(id(c)))]
        # A row still in the source keeps its file, even when it is rejected this time.
        sourced = {f"{IMPORT_ROOT}/{fmt}/{c.id}.md" for c in cands if c.id is not None}
        out.removed = [r for r in existing if r not in sourced] if prune else []
        out.manifest = None
        if not valid:
            break  # nothing to write: nothing to validate either
        out.manifest = plan_manifest(
            manifest_text,
            package_name(pkg),
            pattern,
            sorted({c.rel for c in valid} | set(existing)),
        )
        if progress is not None:
            progress("validating", 0, 1)
        check = _validate(pkg, into, valid, out.removed, out.manifest)
        if progress is not None:
            progress("validating", 1, 1)
        changed = any(_has_error(check.reasons.get(id(c))) for c in valid)
        for c in valid:
            out.reasons[id(c)] = check.reasons.get(id(c), [])
        out.package = check.package
        if not (skip_invalid and changed):
            break
    return out


def _row_result(
    pkg: Path, fmt: str, c: Candidate, reasons: list[Reason], rejected: bool, write: bool
) -> RowResult:
    """A candidate's line of the report; when `write`, its rule file is written first (a file
    that holds the same bytes is left untouched)."""
    errors = c.problems + [r for r in reasons if r.level == "error"]
    warnings = [r for r in reasons if r.level != "error"]
    if rejected:
        status = "rejected"
    else:
        target = pkg / c.rel
        old = target.read_bytes() if target.is_file() else None
        if not write:
            status = "valid"
        elif old == c.data:
            status = "unchanged"
        else:
            _write_bytes(target, c.data)
            status = "created" if old is None else "updated"
    return RowResult(
        status,
        c.label,
        c.source,
        c.line,
        c.id,
        rule_id(fmt, c.id) if c.id is not None else None,
        f"{IMPORT_ROOT}/{fmt}/{c.id}.md" if c.id is not None else None,
        errors + warnings if status == "rejected" else warnings,
        c.notes,
    )


def _write_manifest(report: ImportReport, manifest_path: Path, manifest: ManifestPlan) -> None:
    """STYLE.yaml written where the import creates it or adds its `from` entry; the report says
    which, and names an existing entry that already covers the imported files."""
    if manifest.action in ("created", "added"):
        atomic_write(manifest_path, manifest.text)
    report.manifest = manifest.action
    if manifest.action == "covered":
        report.manifest_entry = manifest.covering or report.manifest_entry
        if manifest.overrides:
            report.notes.append(
                f"`from: {manifest.covering}` already selects the imported files and sets "
                f"{', '.join(f'`{o}`' for o in manifest.overrides)} on them"
            )


def _has_error(reasons: list[Reason] | None) -> bool:
    return bool(reasons) and any(r.level == "error" for r in reasons or [])
