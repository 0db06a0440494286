"""Install, uninstall and sync: compile into the database and merge the harness's hook config."""

from __future__ import annotations

import contextlib
import datetime as dt
import difflib
import hashlib
import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.diagnostics import Diagnostic, StyleError
from agentstyle.engine.compile import Compiled, compile_policy, load_and_validate
from agentstyle.engine.jsonedit import JsonEditError, install_hooks, uninstall_hooks
from agentstyle.engine.lockfile import HarnessInstall, LockFile, atomic_write, read_lock
from agentstyle.engine.locking import LockTimeout
from agentstyle.engine.markers import MarkerError, place_blocks, remove_blocks
from agentstyle.engine.model import Package, SettingDecl
from agentstyle.engine.paths import StylePaths
from agentstyle.engine.plan import PlanEntry, combine_matchers
from agentstyle.engine.store import Connection, open_store, replace_policy, sql
from agentstyle.grammar.ast import Text
from agentstyle.harnesses import spec_for

HOOK_MODULE = "agentstyle.hook"
ON_FAILURE_MIN = (2, 1, 295)
SCOPES = ("project", "local", "user")
# Events whose handlers STYLE always installs: the session clock (runtime.md step 3).
BOOKKEEPING = ("SessionStart", "UserPromptSubmit")
# Handlers `--fail-closed` protects (onFailure + the flag): the tool gates always (seed 000:
# PreToolUse), a prompt gate only when a gate rule runs there, so a broken handler does not
# refuse every prompt of a project that never asked for it. Claude ignores onFailure on Stop.
TOOL_GATES = ("PreToolUse", "PermissionRequest")
GATE_EVENTS = (*TOOL_GATES, "UserPromptSubmit")
GATE_ACTIONS = ("block", "ask", "allow")

LOCK_WAIT_S = 30.0
DIGEST_FILE = "policy.digest"  # read by the hook and the resident engine (engine/client.py)

IsOurs = Callable[[dict[str, Any]], bool]


def is_ours(handler: dict[str, Any]) -> bool:
    return HOOK_MODULE in str(handler.get("command", ""))


def recognizer(native_commands: Iterable[str]) -> IsOurs:
    """STYLE's handlers: those running `agentstyle.hook`, and the packages' native hooks."""
    known = frozenset(native_commands)
    return lambda handler: is_ours(handler) or str(handler.get("command", "")) in known


def interpreter() -> str:
    return Path(sys.executable).absolute().as_posix()


def quoted(path: str) -> str:
    """A path in double quotes for `sh -c`: `$`, backquote, `"` and backslash stay literal."""
    return '"' + re.sub(r'([\\"$`])', r"\\\1", path) + '"'


def hook_command(harness: str, native_event: str, fail_closed: bool) -> str:
    tail = " --fail-closed" if fail_closed else ""
    return (
        f"{quoted(interpreter())} -m {HOOK_MODULE} --harness {harness} --event {native_event}{tail}"
    )


@dataclass(slots=True)
class FileChange:
    path: Path
    before: str | None  # None: the file does not exist
    after: str | None  # None: delete the file
    label: str = ""  # the path as shown (relative to the install root when inside)

    def diff(self) -> str:
        name = self.label or self.path.name
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        old = f"a/{name}" if self.before is not None else "/dev/null"
        new = f"b/{name}" if self.after is not None else "/dev/null"
        lines = list(difflib.unified_diff(a, b, old, new))
        # A last line without a line break would glue onto the next header.
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


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


def instruction_file(root: Path, scope: str, harness: str) -> Path | None:
    name = spec_for(harness).instruction_file
    if name is None:
        return None
    return (Path.home() / ".claude" / name) if scope == "user" else root / name


def relative(root: Path, path: Path) -> str:
    """How the lock file and messages name a file: relative to the install root when inside."""
    full = path.parent.resolve() / path.name
    try:
        return full.relative_to(root.resolve()).as_posix()
    except ValueError:
        return full.as_posix()


def _created(root: Path, h: HarnessInstall | None) -> list[str]:
    """The lock's `created` list, root-relative (older lock files held absolute paths)."""
    out: list[str] = []
    for item in h.created if h else []:
        folder = item.endswith("/")
        path = Path(item) if Path(item).is_absolute() else root / item
        key = relative(root, path) + ("/" if folder else "")
        if key not in out:
            out.append(key)
    return out


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


def is_gate(native_event: str, entries: list[PlanEntry]) -> bool:
    if native_event in TOOL_GATES:
        return True
    return native_event in GATE_EVENTS and any(e.action in GATE_ACTIONS for e in entries)


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
        gate = fail_closed and is_gate(native, entries)
        handler: dict[str, Any] = {
            "type": "command",
            "command": hook_command(harness, native, gate),
        }
        if gate:
            handler["onFailure"] = "block"
        group: dict[str, Any] = {}
        if ps is not None and ps.matcher == "tool" and entries:
            matcher = _matchers(entries)
            if matcher:
                group["matcher"] = matcher
        group["hooks"] = [handler]
        groups[native] = [group]
    return groups


def native_groups(
    packages: list[Package], harness: str, notes: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """The packages' `native_hooks` for a harness, as they are (package.md)."""
    spec = spec_for(harness)
    groups: dict[str, list[dict[str, Any]]] = {}
    for pkg in packages:
        for hook in pkg.native_hooks:
            if hook.harness is not None and hook.harness != harness:
                continue
            ps = spec.points.get(hook.event)
            if ps is None:
                notes.append(
                    f"native hook `{pkg.name}/{hook.id}`: {harness} has no `{hook.event}` "
                    "event; not installed"
                )
                continue
            handler: dict[str, Any] = {"type": "command", "command": hook.command}
            if hook.timeout is not None:
                handler["timeout"] = hook.timeout
            group: dict[str, Any] = {"matcher": hook.matcher} if hook.matcher else {}
            group["hooks"] = [handler]
            groups.setdefault(ps.native_event, []).append(group)
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


def _relative_package(root: Path, package: str) -> str:
    p = Path(package).resolve()
    try:
        return p.relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return p.as_posix()


def parse_sets(sets: list[str]) -> dict[str, dict[str, str]]:
    """`--set name=value` or `--set pkg.name=value`; a bare name goes to every package with it."""
    out: dict[str, dict[str, str]] = {}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise StyleError(f"--set `{item}`: expected NAME=VALUE")
        pkg, dot, name = key.strip().rpartition(".")
        out.setdefault(pkg if dot else "*", {})[name] = value
    return out


def _setting_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def _check_setting(pkg: str, decl: SettingDecl, value: str) -> None:
    allowed: list[str] | None = None
    if decl.type == "int" and not re.fullmatch(r"-?[0-9]+", value):
        problem = "an integer"
    elif decl.type == "bool" and value not in ("true", "false"):
        problem = "true or false"
    elif decl.type == "enum":
        allowed = [_setting_text(v) for v in decl.values or []]
        if value in allowed:
            return
        problem = "one of: " + ", ".join(allowed)
    else:
        return
    raise StyleError(f"setting `{decl.name}` of `{pkg}` must be {problem}, got `{value}`")


def chosen_settings(
    lock: LockFile, sets: dict[str, dict[str, str]], packages: list[Package]
) -> dict[str, dict[str, str]]:
    """Values chosen for each package: the lock's, then `--set`; checked against the declarations.

    Only chosen values are kept (not defaults), so a default the package changes later reaches
    `sync`.
    """
    declared = {p.name: {s.name: s for s in p.settings} for p in packages}
    for pkg, values in sets.items():
        if pkg != "*" and pkg not in declared:
            raise StyleError(f"--set {pkg}.…: `{pkg}` is not among the installed packages")
        for name in values:
            owners = [p for p in declared if name in declared[p]] if pkg == "*" else [pkg]
            if not owners or not all(name in declared[o] for o in owners):
                who = "no package being installed declares" if pkg == "*" else f"`{pkg}` has no"
                raise StyleError(f"--set {name}: {who} setting `{name}`")
    chosen: dict[str, dict[str, str]] = {}
    for package in packages:
        decls = declared[package.name]
        values = {
            k: _setting_text(v)
            for k, v in lock.settings.get(package.name, {}).items()
            if k in decls
        }
        values.update({k: v for k, v in sets.get("*", {}).items() if k in decls})
        values.update(sets.get(package.name, {}))
        for name, value in values.items():
            _check_setting(package.name, decls[name], value)
        chosen[package.name] = values
    return chosen


def _json_error(path: Path, exc: JsonEditError) -> StyleError:
    where = f" (line {exc.span.line}, column {exc.span.column})" if exc.span else ""
    return StyleError(f"refusing to touch {path}: {exc.message}{where}; fix the file and retry")


def _config_removal(root: Path, path: Path, created: list[str], ours: IsOurs) -> FileChange | None:
    """STYLE's handlers out of one config file; the file goes when install created it."""
    before = _read(path)
    if before is None:
        return None
    try:
        after: str | None = uninstall_hooks(before, is_ours=ours, name=str(path))
    except JsonEditError as exc:
        raise _json_error(path, exc) from None
    label = relative(root, path)
    if label in created and after is not None and after.strip() in ("{}", ""):
        after = None
    return FileChange(path, before, after, label)


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
    try:
        spec_for(harness)
    except KeyError:
        raise StyleError(f"unknown harness `{harness}`") from None
    if scope not in SCOPES:
        raise StyleError(f"unknown scope `{scope}` (project, local or user)")
    paths = StylePaths(root)
    lock = read_lock(paths.lockfile)
    wanted = list(dict.fromkeys([*lock.packages, *(_relative_package(root, p) for p in packages)]))
    if not wanted:
        raise StyleError("nothing to install: name a package folder")
    previous = lock.harnesses.get(harness)
    created = _created(root, previous)
    h = HarnessInstall(
        scope,
        fail_closed if fail_closed is not None else bool(previous and previous.fail_closed),
        created,
    )
    harnesses = dict(lock.harnesses)
    harnesses[harness] = h
    abs_packages = [str(root / p) if not Path(p).is_absolute() else p for p in wanted]
    loaded = load_and_validate(abs_packages)
    if not loaded.ok:
        return InstallResult(loaded)
    package_list = [cp.package for cp in loaded.packages]
    chosen = chosen_settings(lock, parse_sets(sets or []), package_list)
    compiled = compile_policy(loaded, sorted(harnesses), dict(chosen), require_settings=True)
    result = InstallResult(compiled)
    if not compiled.ok:
        return result
    result.blocked = [e for e in compiled.plan if e.status == "install-error"]
    if result.blocked:
        return result
    if h.fail_closed and harness == "claude-code":
        version = claude_version()
        if version is None:
            result.notes.append(
                "could not run `claude --version`; wrote onFailure: block, "
                "which needs Claude Code 2.1.295 or newer"
            )
        elif version < ON_FAILURE_MIN:
            raise StyleError(
                f"--fail-closed needs Claude Code 2.1.295+ (onFailure); `claude --version` "
                f"says {'.'.join(map(str, version))}"
            )
    groups = handler_groups(compiled.plan, harness, h.fail_closed)
    natives = native_groups(package_list, harness, result.notes)
    h.native = sorted(
        {str(hd["command"]) for gs in natives.values() for g in gs for hd in g["hooks"]}
    )
    for event, extra in natives.items():
        groups.setdefault(event, []).extend(extra)
    ours = recognizer([*(previous.native if previous else []), *h.native])
    if previous is not None and previous.scope != scope and previous.scope != "user":
        old = settings_file(root, previous.scope)
        if old != settings_file(root, scope):
            removal = _config_removal(root, old, created, ours)
            if removal is not None:
                result.changes.append(removal)
    config = settings_file(root, scope)
    before = _read(config)
    if before is not None or groups:
        try:
            after: str | None = install_hooks(before, groups, is_ours=ours, name=str(config))
        except JsonEditError as exc:
            raise _json_error(config, exc) from None
        label = relative(root, config)
        if not groups and label in created and after is not None and after.strip() == "{}":
            after = None
        result.changes.append(FileChange(config, before, after, label))
    instructions = instruction_file(root, scope, harness)
    if instructions is not None:
        ibefore = _read(instructions)
        blocks = static_blocks(compiled, harness)
        if blocks or ibefore is not None:
            try:
                iafter: str | None = place_blocks(ibefore, blocks, name=str(instructions))
            except MarkerError as exc:
                raise StyleError(f"refusing to touch {instructions}: {exc}") from None
            label = relative(root, instructions)
            if not blocks and iafter == "" and label in created:
                iafter = None
            result.changes.append(FileChange(instructions, ibefore, iafter, label))
    if dry_run:
        return result
    with engine_free_store(paths) as conn:
        replace_policy(conn, compiled.rows)
        atomic_write(paths.home / DIGEST_FILE, policy_digest(compiled.rows) + "\n")
    apply_changes(paths, root, result.changes, h.created)
    lock.packages = wanted
    lock.settings = {name: values for name, values in chosen.items() if values}
    lock.harnesses = harnesses
    atomic_write(paths.lockfile, lock.to_yaml())
    return result


def _stop_engine(home: Path) -> None:
    """A resident engine holds the lock and the open database; ask it to exit (storage.md)."""
    try:
        from agentstyle.engine.client import stop_engine
    except ImportError:  # pragma: no cover - builds without the resident engine
        return
    stop_engine(str(home))


@contextlib.contextmanager
def engine_free_store(
    paths: StylePaths, *, create: bool = True, wait_s: float = LOCK_WAIT_S
) -> Iterator[Connection]:
    """The database under the OS lock, a running engine asked to stop first.

    A hook may start a new engine between the request and our lock, so the lock is tried in
    short rounds, each after another stop request, until `wait_s` passes.
    """
    deadline = time.monotonic() + wait_s
    with contextlib.ExitStack() as stack:
        while True:
            _stop_engine(paths.home)
            round_end = min(deadline, time.monotonic() + 2.0)
            try:
                conn = stack.enter_context(open_store(paths, deadline=round_end, create=create))
                break
            except LockTimeout:
                if time.monotonic() >= deadline:
                    raise StyleError(
                        f"the rules database stayed locked by another process for "
                        f"{wait_s:.0f} s; try again"
                    ) from None
        yield conn


def policy_digest(rows: Any) -> str:
    """What the hook hands the resident engine, so an engine never answers with an old policy."""
    from agentstyle.engine.store import POLICY_TABLES

    doc = {table: getattr(rows, table) for table in POLICY_TABLES}
    text = json.dumps(doc, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _missing_folders(path: Path) -> list[Path]:
    missing = []
    folder = path.parent
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing


def apply_changes(
    paths: StylePaths, root: Path, changes: list[FileChange], created: list[str]
) -> None:
    """Write the changes (backing up what was there); keep `created` up to date."""
    for change in changes:
        if change.before == change.after:
            continue
        label = change.label or relative(root, change.path)
        if change.before is None:
            for folder in _missing_folders(change.path):
                key = relative(root, folder) + "/"
                if key not in created:
                    created.append(key)
            if label not in created:
                created.append(label)
        elif change.after is None and label in created:
            created.remove(label)
        _write(paths, change)


def _backup_name(label: str, stamp: str) -> str:
    flat = re.sub(r"[^A-Za-z0-9._-]+", "_", label.lstrip("./")) or "file"
    return f"{flat}.{stamp}.bak"


def _write(paths: StylePaths, change: FileChange) -> None:
    if change.before is not None:
        paths.backups.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S%f")
        label = change.label or change.path.name
        backup = paths.backups / _backup_name(label, stamp)
        n = 1
        while backup.exists():
            n += 1
            backup = paths.backups / _backup_name(label, f"{stamp}-{n}")
        with open(backup, "w", encoding="utf-8", newline="") as fh:
            fh.write(change.before)
    if change.after is None:
        change.path.unlink(missing_ok=True)
    else:
        atomic_write(change.path, change.after)


def uninstall(root: Path, harness: str, *, dry_run: bool = False) -> list[FileChange]:
    """Remove exactly what install added for a harness; every other byte stays."""
    try:
        spec_for(harness)
    except KeyError:
        raise StyleError(f"unknown harness `{harness}`") from None
    paths = StylePaths(root)
    lock = read_lock(paths.lockfile)
    h = lock.harnesses.get(harness, HarnessInstall())
    created = _created(root, h)
    ours = recognizer(h.native)
    changes: list[FileChange] = []
    # Project and local settings are both looked at: only STYLE's handlers can go, and a lock
    # file lost or edited by hand must not leave them behind.
    scopes = ["user"] if h.scope == "user" else [h.scope, *(s for s in SCOPES[:2] if s != h.scope)]
    for scope in scopes:
        change = _config_removal(root, settings_file(root, scope), created, ours)
        if change is not None:
            changes.append(change)
    instructions = instruction_file(root, h.scope, harness)
    ibefore = _read(instructions) if instructions is not None else None
    if instructions is not None and ibefore is not None:
        try:
            iafter: str | None = remove_blocks(ibefore, name=str(instructions))
        except MarkerError as exc:
            raise StyleError(f"refusing to touch {instructions}: {exc}") from None
        label = relative(root, instructions)
        if iafter == "" and label in created:
            iafter = None
        changes.append(FileChange(instructions, ibefore, iafter, label))
    if dry_run:
        return changes
    apply_changes(paths, root, changes, created)
    for item in sorted((c for c in created if c.endswith("/")), key=len, reverse=True):
        folder = Path(item) if Path(item).is_absolute() else root / item
        with contextlib.suppress(OSError):  # only an empty folder goes: the user's files stay
            folder.rmdir()
    if paths.database.exists():
        with engine_free_store(paths, create=False) as conn:
            conn.execute("BEGIN TRANSACTION")
            conn.execute(sql("policy/drop_harness"), [harness])
            conn.execute("COMMIT")
            # The policy changed: an engine still holding the old digest must not answer.
            (paths.home / DIGEST_FILE).unlink(missing_ok=True)
    lock.harnesses.pop(harness, None)
    if lock.harnesses:
        atomic_write(paths.lockfile, lock.to_yaml())
    else:
        paths.lockfile.unlink(missing_ok=True)
    return changes


def sync(root: Path, *, dry_run: bool = False) -> list[tuple[str, InstallResult]]:
    """Reinstall everything the lock file records (after a package was edited)."""
    lock = read_lock(StylePaths(root).lockfile)
    if not lock.harnesses:
        raise StyleError("nothing to sync: no style.lock.yaml with an installed harness here")
    results = []
    for name, h in sorted(lock.harnesses.items()):
        result = install(root, [], name, scope=h.scope, fail_closed=h.fail_closed, dry_run=dry_run)
        results.append((name, result))
        if not result.ok:
            break
    return results


def install_errors(result: InstallResult) -> list[Diagnostic]:
    return [d for d in result.compiled.diagnostics if d.level == "error"]
