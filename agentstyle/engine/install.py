"""Install, uninstall and sync: compile into the database and merge the harness's hook config."""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.diagnostics import Diagnostic, StyleError
from agentstyle.engine.compile import Compiled, compile_policy, load_and_validate
from agentstyle.engine.jsonedit import JsonEditError, install_hooks, uninstall_hooks
from agentstyle.engine.lockfile import HarnessInstall, LockFile, atomic_write, read_lock
from agentstyle.engine.markers import MarkerError, place_blocks, remove_blocks
from agentstyle.engine.paths import StylePaths
from agentstyle.engine.plan import PlanEntry, combine_matchers
from agentstyle.engine.store import open_store, replace_policy, sql
from agentstyle.grammar.ast import Text
from agentstyle.harnesses import spec_for

HOOK_MODULE = "agentstyle.hook"
ON_FAILURE_MIN = (2, 1, 295)
# Events whose handlers STYLE always installs: the session clock (runtime.md step 3).
BOOKKEEPING = ("SessionStart", "UserPromptSubmit")
GATE_EVENTS = ("PreToolUse", "UserPromptSubmit", "PermissionRequest")


def is_ours(handler: dict[str, Any]) -> bool:
    return HOOK_MODULE in str(handler.get("command", ""))


def interpreter() -> str:
    return Path(sys.executable).absolute().as_posix()


def hook_command(harness: str, native_event: str, fail_closed: bool) -> str:
    tail = " --fail-closed" if fail_closed else ""
    return f'"{interpreter()}" -m {HOOK_MODULE} --harness {harness} --event {native_event}{tail}'


@dataclass(slots=True)
class FileChange:
    path: Path
    before: str | None
    after: str | None  # None: delete the file

    def diff(self) -> str:
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, f"a/{self.path.name}", f"b/{self.path.name}"))


@dataclass(slots=True)
class InstallResult:
    compiled: Compiled
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    blocked: list[PlanEntry] = field(default_factory=list)  # install-error entries

    @property
    def ok(self) -> bool:
        return self.compiled.ok and not self.blocked


def settings_file(root: Path, scope: str) -> Path:
    if scope == "project":
        return root / ".claude" / "settings.json"
    if scope == "local":
        return root / ".claude" / "settings.local.json"
    if scope == "user":
        return Path.home() / ".claude" / "settings.json"
    raise StyleError(f"unknown scope `{scope}` (project, local or user)")


def instruction_file(root: Path, scope: str, harness: str) -> Path:
    name = spec_for(harness).instruction_file or "CLAUDE.md"
    return (Path.home() / ".claude" / name) if scope == "user" else root / name


def _matchers(entries: list[PlanEntry]) -> str | None:
    exact: list[str] = []
    patterns: list[str] = []
    for e in entries:
        if e.matcher is None:
            return None
        if e.matcher.startswith("^(") and e.matcher.endswith(")$"):
            inner = e.matcher[2:-2]
            for part in _split_alternatives(inner):
                if re.fullmatch(r"[A-Za-z0-9_\- ]+", part.replace("\\", "")):
                    exact.append(part.replace("\\", ""))
                else:
                    patterns.append(part)
        else:
            exact.extend(e.matcher.split("|"))
    return combine_matchers(exact, patterns)


def _split_alternatives(regex: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in regex:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def handler_groups(
    plan: list[PlanEntry], harness: str, fail_closed: bool
) -> dict[str, list[dict[str, Any]]]:
    """One handler per native event that has entries, with the narrowest matcher (harnesses.md)."""
    spec = spec_for(harness)
    by_event: dict[str, list[PlanEntry]] = {}
    for e in plan:
        if e.harness == harness and e.runs and e.native_event:
            by_event.setdefault(e.native_event, []).append(e)
    if not by_event:
        return {}
    for native in BOOKKEEPING:
        by_event.setdefault(native, [])
    groups: dict[str, list[dict[str, Any]]] = {}
    order = [p.native_event for p in spec.points.values()]
    for native in sorted(by_event, key=lambda n: order.index(n) if n in order else 99):
        entries = by_event[native]
        point = spec.point_of(native)
        ps = spec.points.get(point or "")
        handler: dict[str, Any] = {
            "type": "command",
            "command": hook_command(harness, native, fail_closed),
        }
        if fail_closed and native in GATE_EVENTS:
            handler["onFailure"] = "block"
        group: dict[str, Any] = {}
        if ps is not None and ps.matcher == "tool" and entries:
            matcher = _matchers(entries)
            if matcher:
                group["matcher"] = matcher
        group["hooks"] = [handler]
        groups[native] = [group]
    return groups


def claude_version() -> tuple[int, ...] | None:
    """`claude --version` as a tuple, or None when no client answers."""
    exe = shutil.which("claude")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(x) for x in m.groups()) if m else None


def static_blocks(compiled: Compiled, harness: str) -> dict[str, str]:
    """Bodies of `static` entries, settings rendered, for the instruction file."""
    static = {e.rule_id for e in compiled.plan if e.harness == harness and e.status == "static"}
    blocks: dict[str, str] = {}
    values = {}
    for row in compiled.rows.settings:
        values[(row[0], row[1])] = row[2]
    for cp in compiled.packages:
        for info in cp.rules:
            rid = f"{cp.package.name}/{info.rule.id}"
            if rid in static:
                parts = []
                for seg in info.body:
                    if isinstance(seg, Text):
                        parts.append(seg.text)
                    else:
                        name = seg.name.split(".", 1)[1]
                        parts.append(values.get((cp.package.name, name), seg.default or ""))
                blocks[rid] = "".join(parts)
    return blocks


def _read(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise StyleError(f"{path}: cannot read: {exc}") from None


def _relative(root: Path, package: str) -> str:
    p = Path(package).resolve()
    try:
        return p.relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return p.as_posix()


def parse_sets(sets: list[str], packages: list[str]) -> dict[str, dict[str, str]]:
    """`--set name=value` or `--set pkg.name=value`; a bare name applies to every package."""
    out: dict[str, dict[str, str]] = {}
    for item in sets:
        if "=" not in item:
            raise StyleError(f"--set `{item}`: expected NAME=VALUE")
        key, value = item.split("=", 1)
        if "." in key:
            pkg, name = key.split(".", 1)
            out.setdefault(pkg, {})[name] = value
        else:
            out.setdefault("*", {})[key] = value
    return out


def _chosen(
    lock: LockFile, sets: dict[str, dict[str, str]], names: list[str]
) -> dict[str, dict[str, Any]]:
    chosen: dict[str, dict[str, Any]] = {k: dict(v) for k, v in lock.settings.items()}
    for name in names:
        chosen.setdefault(name, {}).update(sets.get("*", {}))
        chosen[name].update(sets.get(name, {}))
    return chosen


def install(
    root: Path,
    packages: list[str],
    harness: str,
    *,
    scope: str = "project",
    sets: list[str] | None = None,
    fail_closed: bool | None = None,
    dry_run: bool = False,
) -> InstallResult:
    """Validate, compile into the database, merge the hook config, write the lock file."""
    spec_for(harness)
    paths = StylePaths(root)
    lock = read_lock(paths.lockfile)
    wanted = list(dict.fromkeys([*lock.packages, *(_relative(root, p) for p in packages)]))
    if not wanted:
        raise StyleError("nothing to install: name a package folder")
    previous = lock.harnesses.get(harness)
    h = HarnessInstall(
        scope,
        bool(fail_closed) if fail_closed is not None else bool(previous and previous.fail_closed),
        list(previous.created) if previous else [],
    )
    harnesses = dict(lock.harnesses)
    harnesses[harness] = h
    abs_packages = [str((root / p) if not Path(p).is_absolute() else Path(p)) for p in wanted]
    loaded = load_and_validate(abs_packages)
    names = [cp.package.name for cp in loaded.packages]
    chosen = _chosen(lock, parse_sets(sets or [], wanted), names)
    compiled = compile_policy(loaded, sorted(harnesses), chosen, require_settings=True)
    result = InstallResult(compiled)
    if not compiled.ok:
        return result
    result.blocked = [e for e in compiled.plan if e.status == "install-error"]
    if result.blocked:
        return result
    for name in names:
        lock.settings[name] = {str(r[1]): r[2] for r in compiled.rows.settings if r[0] == name}
    if h.fail_closed:
        version = claude_version()
        if version is None:
            result.notes.append(
                "could not run `claude --version`; wrote onFailure: block, "
                "which needs Claude Code 2.1.295 or newer"
            )
        elif version < ON_FAILURE_MIN:
            raise StyleError(
                f"--fail-closed needs Claude Code 2.1.295+ (onFailure); found "
                f"{'.'.join(map(str, version))}"
            )
    config = settings_file(root, scope)
    before = _read(config)
    groups = handler_groups(compiled.plan, harness, h.fail_closed)
    try:
        after = install_hooks(before, groups, is_ours=is_ours, name=str(config))
    except JsonEditError as exc:
        raise StyleError(
            f"refusing to touch {config}: {exc.message}"
            + (f" at {exc.span.line}:{exc.span.column}" if exc.span else "")
        ) from None
    result.changes.append(FileChange(config, before, after))
    instructions = instruction_file(root, scope, harness)
    ibefore = _read(instructions)
    blocks = static_blocks(compiled, harness)
    if blocks or (ibefore is not None):
        try:
            iafter: str | None = place_blocks(ibefore, blocks, name=str(instructions))
        except MarkerError as exc:
            raise StyleError(f"refusing to touch {instructions}: {exc}") from None
        if ibefore is None and not blocks:
            iafter = None
        result.changes.append(FileChange(instructions, ibefore, iafter))
    if dry_run:
        return result
    with open_store(paths) as conn:
        replace_policy(conn, compiled.rows)
    for change in result.changes:
        if change.before == change.after:
            continue
        if change.before is None:
            key = str(change.path)
            if key not in h.created:
                h.created.append(key)
        _write(paths, change)
    lock.packages = wanted
    lock.harnesses = harnesses
    atomic_write(paths.lockfile, lock.to_yaml())
    return result


def _write(paths: StylePaths, change: FileChange) -> None:
    if change.before is not None:
        paths.backups.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        backup = paths.backups / f"{change.path.name}.{stamp}.bak"
        with open(backup, "w", encoding="utf-8", newline="") as fh:
            fh.write(change.before)
    if change.after is None:
        change.path.unlink(missing_ok=True)
    else:
        atomic_write(change.path, change.after)


def uninstall(root: Path, harness: str, *, dry_run: bool = False) -> list[FileChange]:
    """Remove exactly what install added for a harness; every other byte stays."""
    spec_for(harness)
    paths = StylePaths(root)
    lock = read_lock(paths.lockfile)
    h = lock.harnesses.get(harness, HarnessInstall())
    changes: list[FileChange] = []
    config = settings_file(root, h.scope)
    before = _read(config)
    if before is not None:
        try:
            after: str | None = uninstall_hooks(before, is_ours=is_ours, name=str(config))
        except JsonEditError as exc:
            raise StyleError(f"refusing to touch {config}: {exc.message}") from None
        if str(config) in h.created and after is not None and after.strip() in ("{}", ""):
            after = None
        changes.append(FileChange(config, before, after))
    instructions = instruction_file(root, h.scope, harness)
    ibefore = _read(instructions)
    if ibefore is not None:
        try:
            removed: str | None = remove_blocks(ibefore, name=str(instructions))
        except MarkerError as exc:
            raise StyleError(f"refusing to touch {instructions}: {exc}") from None
        iafter = removed
        if iafter == "" and str(instructions) in h.created:
            iafter = None
        changes.append(FileChange(instructions, ibefore, iafter))
    if dry_run:
        return changes
    for change in changes:
        if change.before != change.after:
            _write(paths, change)
    if paths.database.exists():
        with open_store(paths) as conn:
            conn.execute("BEGIN TRANSACTION")
            conn.execute(sql("policy/drop_harness"), [harness])
            conn.execute("COMMIT")
    lock.harnesses.pop(harness, None)
    if lock.harnesses:
        atomic_write(paths.lockfile, lock.to_yaml())
    else:
        paths.lockfile.unlink(missing_ok=True)
    return changes


def sync(root: Path, *, dry_run: bool = False) -> list[InstallResult]:
    """Reinstall everything the lock file records (after a package was edited)."""
    lock = read_lock(StylePaths(root).lockfile)
    if not lock.harnesses:
        raise StyleError("nothing to sync: no style.lock.yaml with an installed harness here")
    results = []
    for name, h in sorted(lock.harnesses.items()):
        results.append(
            install(root, [], name, scope=h.scope, fail_closed=h.fail_closed, dry_run=dry_run)
        )
        if not results[-1].ok:
            break
    return results


def install_errors(result: InstallResult) -> list[Diagnostic]:
    return [d for d in result.compiled.diagnostics if d.level == "error"]
