"""Install, uninstall and sync: compile into the database and merge the harness's hook config."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import difflib
import hashlib
import json
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from agentstyle.configfiles.jsonedit import JsonEditError
from agentstyle.configfiles.markers import MarkerError
from agentstyle.diagnostics import Diagnostic, StyleError
from agentstyle.engine.locking import LockTimeout
from agentstyle.engine.paths import StylePaths
from agentstyle.engine.statements import execute, read_row
from agentstyle.engine.store import (
    Connection,
    index_policy,
    open_store,
    replace_policy,
    transaction,
)
from agentstyle.folders import mark_answer_once
from agentstyle.grammar.ast import Text
from agentstyle.harnesses import adapter_for
from agentstyle.harnesses.facts import HarnessSpec, spec_for
from agentstyle.harnesses.install import is_style_command
from agentstyle.install import layers
from agentstyle.install.hookcommand import hook_command
from agentstyle.install.library import bundled, bundled_path, ref_path
from agentstyle.install.lockfile import (
    HarnessInstall,
    LockFile,
    PackageRef,
    atomic_write,
    read_lock,
)
from agentstyle.policy.compile import Compiled, compile_policy, load_and_validate
from agentstyle.policy.model import Package, SettingDecl
from agentstyle.policy.plan import PlanEntry, format_matcher, split_matcher
from agentstyle.policy.rows import PolicyRows

SCOPES = ("project", "local", "user", "managed")
# Handlers `--fail-closed` protects (onFailure / failClosed + the flag): the tool gates always
# (docs/design/runtime.md#fail-modes: PreToolUse), another gate event (a prompt gate) only when a
# gate rule runs there, so a broken handler does not refuse every prompt of a project that never
# asked for it.
GATE_ACTIONS = ("block", "ask", "allow")
# Where install keeps, in the lock's `created` list, what it changed inside a file besides its
# handlers (Cursor's `version`, Gemini's enable flag): `<file>#<marker>` (configedit.py).
MARKER_SEP = "#"

LOCK_WAIT_S = 30.0
DIGEST_FILE = "policy.digest"  # read by the hook and the resident engine (runtime/client.py)

IsOurs = Callable[[dict[str, Any]], bool]


def is_ours(handler: dict[str, Any]) -> bool:
    return is_style_command(str(handler.get("command", "")))


def recognizer(native_commands: Iterable[str]) -> IsOurs:
    """STYLE's handlers: those running `agentstyle.hook`, and the packages' native hooks."""
    known = frozenset(native_commands)
    return lambda handler: is_ours(handler) or str(handler.get("command", "")) in known


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
        {**_texts(taken.settings), **chosen},
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


def markers_of(created: list[str], label: str) -> list[str]:
    prefix = label + MARKER_SEP
    return [c[len(prefix) :] for c in created if c.startswith(prefix)]


def _set_markers(created: list[str], label: str, markers: list[str]) -> None:
    prefix = label + MARKER_SEP
    created[:] = [c for c in created if not c.startswith(prefix)]
    created.extend(prefix + m for m in markers)


def is_gate(native_event: str, entries: list[PlanEntry], spec: HarnessSpec) -> bool:
    if native_event not in spec.gate_events:
        return False
    if spec.point_of(native_event) == "tool.pre":
        return True
    return any(e.action in GATE_ACTIONS for e in entries)


Parts = tuple[list[str], list[str]] | None  # (exact names, patterns); None = every tool


def routed(entry: PlanEntry, spec: HarnessSpec) -> list[tuple[str, Parts]]:
    """The native events an entry's handlers go to, each with the matcher parts it needs.

    Without routes that is the entry's own event; on a routed point (Cursor's tool.pre) its
    native tool names are split over the gates that own them.
    """
    assert entry.point is not None and entry.native_event is not None
    routes = spec.routes.get(entry.point, ())
    if not routes:
        return [(entry.native_event, split_matcher(entry.matcher) if entry.matcher else None)]
    default = spec.points[entry.point].native_event
    if entry.matcher is None:
        every: list[tuple[str, Parts]] = [(r.spec.native_event, None) for r in routes]
        return [*every, (default, None)]
    exact, patterns = split_matcher(entry.matcher)
    by_key = {n: k for k, names in spec.tool_names.items() for n in names}
    by_key.update({n: "mcp" for n in spec.mcp_names or ()})
    out: dict[str, tuple[list[str], list[str]]] = {}
    for name in exact:
        key = by_key.get(name, "mcp" if name.startswith("mcp__") else "other")
        gate = spec.route_of(entry.point, key)
        out.setdefault(gate.native_event if gate else default, ([], []))[0].append(name)
    for pattern in patterns:
        gate = spec.route_of(entry.point, "mcp")
        out.setdefault(gate.native_event if gate else default, ([], []))[1].append(pattern)
    return [(native, parts) for native, parts in out.items()]


def handler_groups(
    plan: list[PlanEntry], harness: str, fail_closed: bool, scope: str = "project"
) -> dict[str, list[dict[str, Any]]]:
    """One handler per native event that has entries, with the narrowest matcher
    (docs/design/harnesses.md#install)."""
    spec = spec_for(harness)
    adapter = adapter_for(harness)
    by_event: dict[str, list[tuple[PlanEntry, Parts]]] = {}
    for e in plan:
        if e.harness == harness and e.hooked and e.native_event and e.point:
            for native, parts in routed(e, spec):
                by_event.setdefault(native, []).append((e, parts))
    if not by_event:
        return {}
    for native in spec.bookkeeping:
        by_event.setdefault(native, [])
    groups: dict[str, list[dict[str, Any]]] = {}
    order = spec.native_events()
    for native in sorted(by_event, key=lambda n: order.index(n) if n in order else 99):
        items = by_event[native]
        entries = [e for e, _ in items]
        ps = spec.spec_of(native)
        gate = fail_closed and is_gate(native, entries, spec)
        # A `fail: closed` rule here: the command says so, so the config (which survives a
        # broken or deleted database) still refuses when STYLE cannot evaluate.
        closed = gate or (any(e.fail_closed for e in entries) and adapter.can_refuse(native))
        handler = adapter.handler(hook_command(harness, native, closed, scope), native, gate)
        matcher = None
        if (
            ps is not None
            and ps.matcher == "tool"
            and items
            and all(parts is not None for _, parts in items)
        ):
            exact = [n for _, parts in items if parts for n in parts[0]]
            patterns = [p for _, parts in items if parts for p in parts[1]]
            matcher = format_matcher(spec, exact, patterns)
        groups[native] = [adapter.group(handler, matcher)]
    return groups


def native_groups(
    packages: list[Package], harness: str, notes: list[str]
) -> dict[str, list[dict[str, Any]]]:
    """The packages' `native_hooks` for a harness, as they are (docs/packages.md#native_hooks)."""
    spec = spec_for(harness)
    adapter = adapter_for(harness)
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
            groups.setdefault(ps.native_event, []).append(adapter.group(handler, hook.matcher))
    return groups


def client_version(harness: str) -> tuple[int, ...] | None:
    """The harness client's version (its adapter's `version_command`), or None when none answers."""
    command = list(adapter_for(harness).version_command)
    exe = shutil.which(command[0])
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, *command[1:]], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(x) for x in m.groups()) if m else None


_BOUND = re.compile(r"^\s*(>=|<=|==|=|>|<|\^|~)?\s*v?(\d+(?:\.\d+)*)\s*$")


def version_ok(version: tuple[int, ...], spec: str) -> bool | None:
    """Whether `version` satisfies a range like `>=2.1.0` or `>=0.50, <1` (None: unreadable)."""
    for part in spec.split(","):
        m = _BOUND.match(part)
        if not m:
            return None
        op = m.group(1) or ">="
        want = tuple(int(x) for x in m.group(2).split("."))
        size = max(len(want), len(version))
        have = version + (0,) * (size - len(version))
        want = want + (0,) * (size - len(want))
        ok = {
            ">=": have >= want,
            ">": have > want,
            "<=": have <= want,
            "<": have < want,
            "==": have == want,
            "=": have == want,
            "^": have >= want and have[:1] == want[:1],
            "~": have >= want and have[:2] == want[:2],
        }[op]
        if not ok:
            return False
    return True


def too_old(compiled: Compiled, harness: str, notes: list[str]) -> list[PlanEntry]:
    """Plan entries of packages whose `requires.harnesses` range the installed client misses
    (install-error `harness-too-old`); when no client answers, a note says it was not checked."""
    wanted = {
        cp.package.name: str(cp.package.requires.get("harnesses", {}).get(harness))
        for cp in compiled.packages
        if isinstance(cp.package.requires.get("harnesses"), dict)
        and harness in cp.package.requires["harnesses"]
    }
    if not wanted:
        return []
    version = client_version(harness)
    if version is None:
        notes.append(
            f"could not ask the {harness} client for its version; `requires.harnesses` "
            "was not checked"
        )
        return []
    shown = ".".join(map(str, version))
    old: dict[str, str] = {}
    for package, spec in wanted.items():
        if version_ok(version, spec) is False:
            old[package] = f"harness-too-old: {harness} {shown} is not {spec}"
    return [
        dataclasses.replace(e, status="install-error", reason=old[e.rule_id.split("/")[0]])
        for e in compiled.plan
        if e.harness == harness and e.rule_id.split("/")[0] in old
    ]


def static_blocks(compiled: Compiled, harness: str, own: set[str] | None = None) -> dict[str, str]:
    """Bodies of `static` entries, settings rendered, for the instruction file (`own`: of
    these packages only)."""
    static = {
        e.rule_id
        for e in compiled.plan
        if e.harness == harness
        and e.status == "static"
        and (own is None or e.rule_id.split("/", 1)[0] in own)
    }
    blocks: dict[str, str] = {}
    values = {}
    for row in compiled.rows.settings:
        values[(row.package, row.name)] = row.value
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


def package_ref(root: Path, package: str) -> PackageRef:
    """How the lock names a package given on the command line: a folder or file by its path
    (relative to the install root when inside it, so the lock is the same on every clone),
    else a bundled package by name."""
    given = Path(package)
    if given.exists() or given.is_symlink():
        p = given.resolve()
        try:
            return PackageRef(path=p.relative_to(root.resolve()).as_posix() or ".")
        except ValueError:
            return PackageRef(path=p.as_posix())
    if bundled_path(package) is not None:
        return PackageRef(library=package)
    names = [b.name for b in bundled()]
    close = difflib.get_close_matches(package, names, n=1)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    raise StyleError(
        f"`{package}`: no such package folder or file, and no bundled package of that name"
        f"{hint}; `style packages` lists the bundled ones"
    )


def _same_ref(a: PackageRef, b: PackageRef) -> bool:
    return (a.library, a.path) == (b.library, b.path)


def merge_refs(locked: list[PackageRef], given: list[PackageRef]) -> list[PackageRef]:
    """The lock's packages, then the newly given ones that are not there yet."""
    out = list(locked)
    for ref in given:
        if not any(_same_ref(ref, r) for r in out):
            out.append(ref)
    return out


def named_refs(
    root: Path, refs: list[PackageRef], loaded: Compiled, locked: list[PackageRef]
) -> list[PackageRef]:
    """The refs with the name and content digest of the package each one loaded.

    A package name already installed from another place is a clear refusal: one project has
    one `guards`, and which copy wins must be the user's choice, not `dup-id`.
    """
    by_root = {cp.package.root.resolve(): cp.package for cp in loaded.packages}
    out: list[PackageRef] = []
    seen: dict[str, PackageRef] = {}
    for ref in refs:
        pkg = by_root.get(Path(ref_path(root, ref)).resolve())
        if pkg is None:
            out.append(ref)
            continue
        earlier = seen.get(pkg.name)
        if earlier is not None:
            first, second = (
                (earlier, ref)
                if any(_same_ref(earlier, r) for r in locked)
                else (
                    ref,
                    earlier,
                )
            )
            raise StyleError(
                f"package `{pkg.name}` is already installed from `{first.label}`; to use the "
                f"one at `{second.label}` instead, run `style uninstall {pkg.name}` first"
            )
        named = PackageRef(ref.path, ref.library, pkg.name, f"sha256:{pkg.digest}")
        seen[pkg.name] = named
        out.append(named)
    return out


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
    if isinstance(value, list):  # a list setting written as a YAML list in the lock file
        return ",".join(_setting_text(v) for v in value)
    return "" if value is None else str(value)


def _texts(settings: dict[str, dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Another layer's chosen values as its lock holds them, as text (`chosen_settings`)."""
    return {
        pkg: {k: _setting_text(v) for k, v in values.items()} for pkg, values in settings.items()
    }


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


def _config_removal(
    root: Path, path: Path, created: list[str], ours: IsOurs, harness: str
) -> FileChange | None:
    """STYLE's handlers (and the keys it set) out of one config file; the file goes when install
    created it and nothing else is left."""
    before = _read(path)
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
    before = _read(config)
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
    before = _read(path)
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
    groups = handler_groups(own_plan, harness, h.fail_closed, scope)
    natives = native_groups(package_list, harness, result.notes)
    h.native = sorted(
        {str(hd["command"]) for gs in natives.values() for g in gs for hd in _handlers_of(g)}
    )
    for event, extra in natives.items():
        groups.setdefault(event, []).extend(extra)
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
        _check_writable(c)
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


def _check_writable(change: FileChange) -> None:
    """Before anything is written: a file where a folder of the path must be is one clear line
    (the database and the config would otherwise disagree after a half install)."""
    for folder in change.path.parents:
        if folder.exists():
            if not folder.is_dir():
                name = change.label or str(change.path)
                raise StyleError(f"cannot write {name}: `{folder}` is a file, not a folder")
            return


def _handlers_of(group: dict[str, Any]) -> list[dict[str, Any]]:
    """The handlers of a group (groups layout) or the handler itself (flat layout)."""
    hooks = group.get("hooks")
    return list(hooks) if isinstance(hooks, list) else [group]


def _stop_engine(home: Path) -> None:
    """A resident engine holds the lock and the open database; ask it to exit
    (docs/design/storage.md#who-stops-the-engine)."""
    try:
        from agentstyle.runtime.client import stop_engine
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


def policy_digest(rows: PolicyRows) -> str:
    """What the hook hands the resident engine, so an engine never answers with an old policy."""
    doc = {table: table_rows for table, _columns, table_rows in rows.tables()}
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
    ibefore = _read(instructions) if instructions is not None else None
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
