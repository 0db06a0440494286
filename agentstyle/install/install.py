"""Install, uninstall and sync: compile into the database and merge the harness's hook config."""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from agentstyle.configfiles.hookconfig import handlers_of
from agentstyle.configfiles.jsonedit import JsonEditError
from agentstyle.configfiles.markers import MarkerError
from agentstyle.diagnostics import Diagnostic, StyleError
from agentstyle.evaluator.paths import StylePaths
from agentstyle.evaluator.statements import execute, read_row
from agentstyle.evaluator.store import (
    Connection,
    index_policy,
    replace_policy,
    transaction,
)
from agentstyle.folders import mark_answer_once
from agentstyle.harnesses import adapter_for
from agentstyle.harnesses.facts import spec_for
from agentstyle.harnesses.install import is_style_command
from agentstyle.install import layers
from agentstyle.install.clientversion import client_version, too_old
from agentstyle.install.enginefree import LOCK_WAIT_S, engine_free_store
from agentstyle.install.filechanges import (
    FileChange,
    apply_changes,
    check_writable,
    read_existing,
    relative,
)
from agentstyle.install.handlers import handler_groups, native_groups, static_blocks
from agentstyle.install.library import ref_path
from agentstyle.install.lockfile import HarnessInstall, PackageRef, atomic_write, read_lock
from agentstyle.install.packagerefs import (
    chosen_settings,
    merge_refs,
    named_refs,
    package_ref,
    parse_sets,
    setting_texts,
)
from agentstyle.policy.compile import Compiled, compile_policy, load_and_validate
from agentstyle.policy.model import Package
from agentstyle.policy.plan import PlanEntry
from agentstyle.policy.rows import PolicyRows

SCOPES = ("project", "local", "user", "managed")
# Where install keeps, in the lock's `created` list, what it changed inside a file besides its
# handlers (Cursor's `version`, Gemini's enable flag): `<file>#<marker>` (configedit.py).
MARKER_SEP = "#"

# How a `prompt` check's handler says it is STYLE's (it runs no command): the last line of its
# prompt names the rule that asks.
PROMPT_MARK = "(asked by STYLE rule "

DIGEST_FILE = "policy.digest"  # read by the hook and the resident engine (runtime/client.py)

IsOurs = Callable[[dict[str, Any]], bool]


def is_ours(handler: dict[str, Any]) -> bool:
    if handler.get("type") == "prompt":  # a `prompt` check (harnesses' prompt_handler)
        return PROMPT_MARK in str(handler.get("prompt", ""))
    return is_style_command(str(handler.get("command", "")))


def recognizer(native_commands: Iterable[str]) -> IsOurs:
    """STYLE's handlers: those running `agentstyle.hook`, and the packages' native hooks."""
    known = frozenset(native_commands)
    return lambda handler: is_ours(handler) or str(handler.get("command", "")) in known


@dataclass(slots=True)
class InstallResult:
    compiled: Compiled
    changes: list[FileChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    blocked: list[PlanEntry] = field(default_factory=list)  # install-error entries
    own: set[str] | None = None  # the root's own packages (None: every compiled one)

    @property
    def ok(self) -> bool:
        return self.compiled.ok and not self.blocked


def compile_layered(
    root: Path, loaded: Compiled, harnesses: Iterable[str], chosen: dict[str, dict[str, str]]
) -> tuple[Compiled, layers.TakenIn]:
    """`loaded` (the root's own packages) with every other layer's that applies at `root`,
    compiled as one policy for the harnesses of all of them, each rule stamped with its layer
    (docs/design/storage.md#layers)."""
    taken = layers.take_in(root, loaded)
    compiled = compile_policy(
        loaded,
        sorted({*harnesses, *taken.harnesses}),
        {**setting_texts(taken.settings), **chosen},
        require_settings=True,
        layer_of={**taken.layer_of},
    )
    layers.stamp(compiled.rows, taken.layer_of, layers.own_layer(root))
    return compiled, taken


def extension_serves(root: Path, harness: str) -> bool:
    """Whether the harness also runs STYLE as its own extension for `root` (an enabled plugin
    or extension), so that its handlers and this install's fire for the same events
    (docs/design/runtime.md#answered-once)."""
    try:
        return adapter_for(harness).extension(root) is not None
    except Exception:  # the client's files say nothing readable: no extension seen
        return False


def check_scope(harness: str, scope: str) -> None:
    scopes = adapter_for(harness).scopes
    if scope not in scopes:
        raise StyleError(f"{harness} has no `{scope}` scope (use: {', '.join(scopes)})")


def config_file(root: Path, scope: str, harness: str) -> Path:
    """The hook config STYLE writes for a harness and scope."""
    if scope not in SCOPES:
        raise StyleError(f"unknown scope `{scope}` (project, local, user or managed)")
    check_scope(harness, scope)
    path: Path = adapter_for(harness).config_path(root, scope)
    return path


def instruction_file(root: Path, scope: str, harness: str) -> Path | None:
    path: Path | None = adapter_for(harness).static_path(root, scope)
    return path


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


def markers_of(created: list[str], label: str) -> list[str]:
    prefix = label + MARKER_SEP
    return [c[len(prefix) :] for c in created if c.startswith(prefix)]


def _set_markers(created: list[str], label: str, markers: list[str]) -> None:
    prefix = label + MARKER_SEP
    created[:] = [c for c in created if not c.startswith(prefix)]
    created.extend(prefix + m for m in markers)


def _json_error(path: Path, exc: JsonEditError) -> StyleError:
    where = f" (line {exc.span.line}, column {exc.span.column})" if exc.span else ""
    return StyleError(f"refusing to touch {path}: {exc.message}{where}; fix the file and retry")


def _config_removal(
    root: Path, path: Path, created: list[str], ours: IsOurs, harness: str
) -> FileChange | None:
    """STYLE's handlers (and the keys it set) out of one config file; the file goes when install
    created it and nothing else is left."""
    before = read_existing(path)
    if before is None:
        return None
    label = relative(root, path)
    adapter = adapter_for(harness)
    try:
        after: str | None = adapter.strip_config(
            before, ours, markers_of(created, label), str(path)
        )
    except JsonEditError as exc:
        raise _json_error(path, exc) from None
    if label in created and after is not None and after.strip() in ("{}", ""):
        after = None
    return FileChange(path, before, after, label)


def _config_change(
    root: Path,
    config: Path,
    groups: dict[str, list[dict[str, Any]]],
    created: list[str],
    ours: IsOurs,
    harness: str,
) -> FileChange | None:
    """The harness's config with STYLE's handlers replaced; the lock's markers updated."""
    before = read_existing(config)
    if before is None and not groups:
        return None
    label = relative(root, config)
    adapter = adapter_for(harness)
    old_markers = markers_of(created, label)
    try:
        if groups:
            after, markers = adapter.write_config(before, groups, ours, str(config), old_markers)
        else:
            after = adapter.strip_config(before or "{}\n", ours, old_markers, str(config))
            markers = []
    except JsonEditError as exc:
        raise _json_error(config, exc) from None
    _set_markers(created, label, markers)
    result: str | None = after
    if not groups and label in created and after.strip() in ("{}", ""):
        result = None
    return FileChange(config, before, result, label)


def _static_change(
    root: Path, path: Path | None, blocks: dict[str, str], created: list[str], harness: str
) -> FileChange | None:
    if path is None:
        return None
    before = read_existing(path)
    if not blocks and before is None:
        return None
    adapter = adapter_for(harness)
    try:
        after: str | None = adapter.place_static(before, blocks, str(path))
    except MarkerError as exc:
        raise StyleError(f"refusing to touch {path}: {exc}") from None
    label = relative(root, path)
    if not blocks and (after or "") == "" and label in created:
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
    base: list[PackageRef] | None = None,
) -> InstallResult:
    """Validate, compile into the database, merge the hook config, write the lock file.

    `base` replaces the lock's package list as the starting point (`style uninstall PKG`).
    A refused install leaves no `.style/` folder behind when there was none.
    """
    try:
        spec_for(harness)
    except KeyError:
        raise StyleError(f"unknown harness `{harness}`") from None
    if scope not in SCOPES:
        raise StyleError(f"unknown scope `{scope}` (project, local, user or managed)")
    check_scope(harness, scope)
    home = StylePaths(root).home
    existed = home.exists()
    result: InstallResult | None = None
    try:
        result = _install(root, packages, harness, scope, sets, fail_closed, dry_run, base)
        return result
    finally:
        if not existed and (result is None or not result.ok or dry_run):
            _drop_if_only_builtin(home)


def _drop_if_only_builtin(home: Path) -> None:
    """Remove a `.style/` that holds nothing but the built-in package install just wrote."""
    from agentstyle.install.selfprotect import FOLDER

    try:
        entries = list(home.iterdir())
    except OSError:
        return
    if all(e.name == FOLDER[0] for e in entries):
        shutil.rmtree(home, ignore_errors=True)


def _install(
    root: Path,
    packages: list[str],
    harness: str,
    scope: str,
    sets: list[str] | None,
    fail_closed: bool | None,
    dry_run: bool,
    base: list[PackageRef] | None = None,
) -> InstallResult:
    adapter = adapter_for(harness)
    paths = StylePaths(root)
    lock = read_lock(paths.lockfile)
    locked = lock.packages if base is None else base
    wanted = merge_refs(locked, [package_ref(root, p) for p in packages])
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
    abs_packages = [ref_path(root, ref) for ref in wanted]
    from agentstyle.install import selfprotect

    with selfprotect.builtin_package(
        root, harnesses, persist=not dry_run, enabled=lock.protect, packages=abs_packages
    ) as builtin:
        loaded = load_and_validate(abs_packages + ([str(builtin)] if builtin else []))
        wanted = named_refs(root, wanted, loaded, locked)
        if not loaded.ok:
            return InstallResult(loaded)
        own_packages = [cp.package for cp in loaded.packages]
        chosen = chosen_settings(lock, parse_sets(sets or []), own_packages)
        compiled, taken = compile_layered(root, loaded, harnesses, chosen)
        package_list = [cp.package for cp in loaded.packages if cp.package.name in taken.own]
    result = InstallResult(compiled, own=taken.own)
    result.notes.extend(taken.notes)
    if not compiled.ok:
        return result
    # The other layers' rules are evaluated here, but their handlers and instruction-file
    # blocks are their own installs' (a user's personal rules never go into a committed file).
    own_plan = [e for e in compiled.plan if e.rule_id.split("/", 1)[0] in taken.own]
    result.blocked = [e for e in compiled.plan if e.status == "install-error"]
    result.blocked += too_old(compiled, harness, result.notes)
    if result.blocked:
        return result
    if h.fail_closed and adapter.spec.fail_closed_since is not None:
        note = adapter.fail_closed_check(client_version(harness))
        if note is not None:
            result.notes.append(note)
    result.notes.extend(adapter.install_notes(h.fail_closed))
    groups = _groups(own_plan, package_list, harness, h, scope, result.notes)
    ours = recognizer([*(previous.native if previous else []), *h.native])
    if previous is not None and previous.scope != scope and previous.scope != "user":
        old = config_file(root, previous.scope, harness)
        if old != config_file(root, scope, harness):
            removal = _config_removal(root, old, created, ours, harness)
            if removal is not None:
                _set_markers(created, removal.label, [])
                result.changes.append(removal)
    config = config_file(root, scope, harness)
    change = _config_change(root, config, groups, created, ours, harness)
    if change is not None:
        result.changes.append(change)
        trust = adapter.trust_note
        if trust and change.before != change.after and change.after is not None:
            result.notes.append(trust)
    static = _static_change(
        root,
        instruction_file(root, scope, harness),
        static_blocks(compiled, harness, taken.own),
        created,
        harness,
    )
    if static is not None:
        result.changes.append(static)
    for c in result.changes:
        check_writable(c)
    if dry_run:
        return result
    with engine_free_store(paths) as conn:
        replace_policy(conn, compiled.rows)
        atomic_write(paths.home / DIGEST_FILE, policy_digest(compiled.rows) + "\n")
        mark_answer_once(paths.home, "layers", bool(taken.others))
        if extension_serves(root, harness):
            mark_answer_once(paths.home, "plugin", True)
    apply_changes(paths, root, result.changes, h.created)
    lock.packages = wanted
    kept = {ref.name for ref in wanted}
    lock.settings = {name: values for name, values in chosen.items() if values and name in kept}
    lock.harnesses = harnesses
    atomic_write(paths.lockfile, lock.to_yaml())
    _built_from_lock(root)
    return result


def _groups(
    plan: list[PlanEntry],
    packages: list[Package],
    harness: str,
    h: HarnessInstall,
    scope: str,
    notes: list[str],
) -> dict[str, list[dict[str, Any]]]:
    """The handler groups by native event: STYLE's own, then the packages' native hooks (their
    commands kept in `h.native`, so a later install knows them as its own)."""
    groups = handler_groups(plan, harness, h.fail_closed, scope)
    natives = native_groups(packages, harness, notes)
    h.native = sorted(
        {str(hd["command"]) for gs in natives.values() for g in gs for hd in handlers_of(g)}
    )
    for event, extra in natives.items():
        groups.setdefault(event, []).extend(extra)
    return groups


def _built_from_lock(root: Path) -> None:
    from agentstyle.runtime import freshness

    freshness.record(str(root))


def build_from_lock(root: Path, wait_s: float, *, force: bool = False) -> list[str]:
    """The rules database compiled from `style.lock.yaml` alone, hook configs untouched: what
    the first hook on a teammate's machine (no `.style/`, or a lock changed by a pull) does.

    Returns notes for the user (a package whose content changed since the lock was written).
    """
    from agentstyle.install import selfprotect
    from agentstyle.runtime import freshness

    paths = StylePaths(root)
    lock = read_lock(paths.lockfile)
    others = layers.other_layers(root)
    if not others and (not lock.harnesses or not lock.packages):
        raise StyleError("style.lock.yaml names no installed package")
    harnesses = dict(lock.harnesses)
    for layer in others:  # (a root with no lock of its own: protected for the layers' harnesses)
        for name, install in layer.lock.harnesses.items():
            harnesses.setdefault(name, install)
    with engine_free_store(paths, wait_s=wait_s) as conn:
        if not force and freshness.stale(str(root)) is None and _has_policy(conn):
            return []  # another hook built it while this one waited for the lock
        locked = [ref_path(root, ref) for ref in lock.packages]
        with selfprotect.builtin_package(
            root, harnesses, persist=True, enabled=lock.protect, packages=locked
        ) as builtin:
            loaded = load_and_validate(locked + ([str(builtin)] if builtin else []))
            errors = [d for d in loaded.diagnostics if d.level == "error"]
            if errors:
                raise StyleError(f"the locked packages have errors: {errors[0].render()}")
            chosen = chosen_settings(lock, {}, [cp.package for cp in loaded.packages])
            compiled, taken = compile_layered(root, loaded, harnesses, chosen)
        errors = [d for d in compiled.diagnostics if d.level == "error"]
        if errors:
            raise StyleError(f"the locked packages do not compile: {errors[0].render()}")
        replace_policy(conn, compiled.rows)
        atomic_write(paths.home / DIGEST_FILE, policy_digest(compiled.rows) + "\n")
        mark_answer_once(paths.home, "layers", bool(taken.others))
    freshness.record(str(root))
    notes = list(taken.notes)
    by_root = {cp.package.root.resolve(): cp.package for cp in loaded.packages}
    for ref in lock.packages:
        pkg = by_root.get(Path(ref_path(root, ref)).resolve())
        if pkg is not None and ref.digest and ref.digest != f"sha256:{pkg.digest}":
            notes.append(
                f"package `{pkg.name}` changed since style.lock.yaml was written; "
                "review it and run `style sync`"
            )
    return notes


class RuleCount(NamedTuple):
    """policy/count_rules.sql"""

    rules: int


def _has_policy(conn: Connection) -> bool:
    row = read_row(conn, "policy/count_rules", RuleCount)
    return bool(row and row.rules)


def policy_digest(rows: PolicyRows) -> str:
    """What the hook hands the resident engine, so an engine never answers with an old policy."""
    doc = {table: table_rows for table, _columns, table_rows in rows.tables()}
    text = json.dumps(doc, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def uninstall(root: Path, harness: str, *, dry_run: bool = False) -> list[FileChange]:
    """Remove exactly what install added for a harness; every other byte stays."""
    try:
        spec_for(harness)
    except KeyError:
        raise StyleError(f"unknown harness `{harness}`") from None
    adapter = adapter_for(harness)
    paths = StylePaths(root)
    lock = read_lock(paths.lockfile)
    h = lock.harnesses.get(harness, HarnessInstall())
    created = _created(root, h)
    ours = recognizer(h.native)
    changes: list[FileChange] = []
    # Every project-side scope is looked at: only STYLE's handlers can go, and a lock file lost
    # or edited by hand must not leave them behind.
    # The personal and the managed configs only when the lock says they are this install's.
    scopes: list[str] = (
        [h.scope]
        if h.scope in ("user", "managed")
        else [h.scope, *(s for s in adapter.scopes if s not in (h.scope, "user", "managed"))]
    )
    for scope in scopes:
        if scope not in adapter.scopes:
            continue
        change = _config_removal(root, config_file(root, scope, harness), created, ours, harness)
        if change is not None:
            changes.append(change)
    instructions = instruction_file(root, h.scope, harness)
    ibefore = read_existing(instructions) if instructions is not None else None
    if instructions is not None and ibefore is not None:
        try:
            iafter: str | None = adapter.strip_static(ibefore, str(instructions))
        except MarkerError as exc:
            raise StyleError(f"refusing to touch {instructions}: {exc}") from None
        label = relative(root, instructions)
        if iafter == "" and label in created:
            iafter = None
        changes.append(FileChange(instructions, ibefore, iafter, label))
    if dry_run:
        return changes
    for change in changes:
        _set_markers(created, change.label, [])
    apply_changes(paths, root, changes, created)
    for item in sorted((c for c in created if c.endswith("/")), key=len, reverse=True):
        folder = Path(item) if Path(item).is_absolute() else root / item
        with contextlib.suppress(OSError):  # only an empty folder goes: the user's files stay
            folder.rmdir()
    if paths.database.exists():
        with engine_free_store(paths, create=False) as conn:
            with transaction(conn):
                execute(conn, "policy/drop_harness", {"harness": harness})
                index_policy(conn)
            # The policy changed: an engine still holding the old digest must not answer.
            (paths.home / DIGEST_FILE).unlink(missing_ok=True)
    lock.harnesses.pop(harness, None)
    if lock.harnesses:
        atomic_write(paths.lockfile, lock.to_yaml())
        _built_from_lock(root)
    else:
        paths.lockfile.unlink(missing_ok=True)
    if paths.database.exists() and layers.other_layers(root):
        # The managed and user layers still answer here, through their own handlers: the
        # database keeps their rules (a project's uninstall never switches the organisation's off).
        build_from_lock(root, LOCK_WAIT_S, force=True)
    return changes


def _matches(ref: PackageRef, given: str, root: Path) -> bool:
    if given in (ref.name, ref.library, ref.path):
        return True
    if ref.path is not None and Path(given).exists():
        return Path(ref_path(root, ref)).resolve() == Path(given).resolve()
    return False


def remove_packages(
    root: Path, names: list[str], *, dry_run: bool = False
) -> tuple[list[FileChange], list[tuple[str, InstallResult]]]:
    """`style uninstall PKG…`: take packages out of every harness, config and database in step.

    The rest is reinstalled (handlers narrow to what is left); with nothing left, every
    harness is uninstalled as `style uninstall --harness H` would.
    """
    paths = StylePaths(root)
    lock = read_lock(paths.lockfile)
    if not lock.packages:
        raise StyleError("no packages installed here (no style.lock.yaml)")
    remaining = list(lock.packages)
    for given in names:
        found = [ref for ref in remaining if _matches(ref, given, root)]
        if not found:
            known = ", ".join(ref.name or ref.label for ref in lock.packages)
            raise StyleError(f"`{given}` is not installed here (installed: {known})")
        remaining = [ref for ref in remaining if ref not in found]
    if not remaining:
        changes: list[FileChange] = []
        for harness in sorted(lock.harnesses):
            changes.extend(uninstall(root, harness, dry_run=dry_run))
        return changes, []
    results = []
    for name, h in sorted(lock.harnesses.items()):
        result = install(
            root,
            [],
            name,
            scope=h.scope,
            fail_closed=h.fail_closed,
            dry_run=dry_run,
            base=remaining,
        )
        results.append((name, result))
        if not result.ok:
            break
    return [], results


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
