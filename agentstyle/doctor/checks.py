"""`style doctor` (docs/design/cli.md#doctor): check an installation end to end.

For each harness in `style.lock.yaml`: the hook config is there and valid, STYLE's handlers are
the ones install writes (not edited by hand), their interpreter exists, and the exact installed
command, fired with a synthetic event of that harness, answers correctly and in time. Then the
rules database opens, and rules that can never fire are listed, then the calls STYLE let
through unchecked in the last week (from `.style/logs/errors.log`, counted per cause). A broken
install is one `error` line; rules that never fire and past fail-open answers are `warning`
lines; working checks are `ok` lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from agentstyle.configfiles.hookconfig import handlers_of
from agentstyle.configfiles.jsonedit import JsonEditError
from agentstyle.configfiles.markers import MarkerError, read_blocks
from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.paths import StylePaths, privacy_warning
from agentstyle.evaluator.statements import execute, read_rows
from agentstyle.evaluator.store import Connection, transaction
from agentstyle.harnesses import project_dir_env
from agentstyle.harnesses.install import HOOK_SCRIPT
from agentstyle.install.hookcommand import canonical, program_of, same_program
from agentstyle.install.lockfile import HarnessInstall, LockFile, read_lock
from agentstyle.install.pluginstate import doctor_views
from agentstyle.policy.plan import PlanEntry

if TYPE_CHECKING:
    from agentstyle.harnesses.protocol import HarnessAdapter

DEAD_AFTER_EVENTS = 100  # docs/audit.md#flags `dead`
FAIL_OPEN_DAYS = 7  # how far back doctor lists the calls STYLE let through unchecked
SESSION_PREFIX = "style-doctor-"


@dataclass(frozen=True, slots=True)
class Finding:
    level: str  # ok | warning | error
    harness: str | None
    message: str

    @property
    def line(self) -> str:
        where = f"{self.harness}: " if self.harness else ""
        return f"{self.level}: {where}{self.message}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Policy:
    """What the database says was installed (None fields: it could not be read)."""

    entries: list[PlanEntry]
    unplaced: list[tuple[str, str]]
    dead: list[tuple[str, int]]


def _cause(exc: BaseException) -> str:
    from agentstyle.runtime.causes import failure_of

    return failure_of(exc).text


class ClosedRow(NamedTuple):
    """A rule that fails closed (doctor/closed_rules.sql)."""

    rule_id: str


class InstalledEntryRow(NamedTuple):
    """A plan entry as installed (doctor/entries.sql): EntryRow's columns, then what a check's
    entry gives its handler."""

    rule_id: str
    harness: str
    point: str | None
    native_event: str | None
    matcher: str | None
    status: str
    reason: str | None
    effective_action: str
    effective_repeat: str | None
    capability: str | None
    check_s: float | None
    prompt: str | None


class UnplacedRow(NamedTuple):
    """An enabled rule that runs nowhere (doctor/unplaced.sql)."""

    rule_id: str
    why: str


class DeadRow(NamedTuple):
    """A rule that never fired while its points saw events (doctor/dead.sql)."""

    rule_id: str
    events: int


def read_policy(conn: Connection, harnesses: list[str]) -> Policy:
    from agentstyle.install.selfprotect import PACKAGE as BUILTIN

    closed = {r.rule_id for r in read_rows(conn, "doctor/closed_rules", ClosedRow)}
    # An entry row is a plan entry but for `fail_closed`, which is its rule's.
    entries = [
        PlanEntry(*e[:-2], fail_closed=e.rule_id in closed, check_s=e.check_s, prompt=e.prompt)
        for e in read_rows(conn, "doctor/entries", InstalledEntryRow)
    ]
    params = {"harnesses": harnesses, "builtin": BUILTIN}
    rows = read_rows(conn, "doctor/unplaced", UnplacedRow, params)
    unplaced = [(str(r.rule_id), str(r.why)) for r in rows]
    seen = {"min_events": DEAD_AFTER_EVENTS}
    dead = [(str(r.rule_id), int(r.events)) for r in read_rows(conn, "doctor/dead", DeadRow, seen)]
    return Policy(entries, unplaced, dead)


def forget(conn: Connection, prefix: str) -> None:
    """Drop the synthetic events' history, so audits never count them."""
    with transaction(conn):
        for table in ("hits", "event_fields", "session_facts", "claims", "events", "sessions"):
            execute(conn, f"doctor/forget_{table}", {"prefix": prefix})


def forget_in(paths: StylePaths, prefix: str) -> Exception | None:
    """`forget` in the project's database, its resident engine stopped first; what went wrong
    when it could not."""
    from agentstyle.install.enginefree import engine_free_store

    try:
        with engine_free_store(paths, create=False, wait_s=10.0) as conn:
            forget(conn, prefix)
    except Exception as exc:
        return exc
    return None


def run_doctor(root: Path, *, fire: bool = True) -> list[Finding]:
    """Every check for the installation at `root`."""
    from agentstyle.install.enginefree import engine_free_store

    paths = StylePaths(root)
    findings: list[Finding] = []
    # Read before this run's own synthetic events can add to the log.
    history = fail_open_findings(root, paths)
    try:
        lock = read_lock(paths.lockfile)
    except StyleError as exc:
        return [Finding("error", None, str(exc)), *history]
    if not lock.harnesses:
        return [
            Finding("error", None, "nothing installed here: no harness in style.lock.yaml"),
            *history,
        ]
    names = sorted(lock.harnesses)
    # A client may run STYLE as its own extension instead of (or, by mistake, beside) the
    # handlers in its config (docs/harnesses/index.md#plugins-and-extensions).
    plugins = doctor_views(root, names)
    for harness, view in plugins.items():
        findings.extend(Finding(level, harness, text) for level, text in view.notes)
    wide = privacy_warning(root, paths)  # looked at before opening the database tightens it
    if wide:
        findings.append(Finding("warning", None, wide))
    policy: Policy | None = None
    if not paths.database.exists():
        findings.append(
            Finding(
                "error",
                None,
                f"the rules database {_label(root, paths.database)} is missing; run `style sync`",
            )
        )
    else:
        try:
            with engine_free_store(paths, create=False, wait_s=10.0) as conn:
                policy = read_policy(conn, names)
        except Exception as exc:
            cause = _cause(exc)
            detail = cause.removeprefix("the rules database ")
            what = detail if detail != cause else f"cannot be used ({cause})"
            findings.append(
                Finding(
                    "error",
                    None,
                    f"the rules database {_label(root, paths.database)} {what}; move it away "
                    "(its history goes with it) and run `style sync`",
                )
            )
    session = f"{SESSION_PREFIX}{uuid.uuid4()}"
    fired = False
    for name in names:
        plugin = plugins.get(name)
        if plugin is not None and plugin.serves:
            if fire and policy is not None and plugin.hooks:
                hooks = plugin.hooks
                ran = fire_harness(root, name, lock.harnesses[name], session, findings, hooks)
                fired = ran or fired
            continue
        broken = check_harness(root, name, lock.harnesses[name], lock, policy, findings)
        if fire and not broken and policy is not None:
            fired = fire_harness(root, name, lock.harnesses[name], session, findings) or fired
    if policy is not None:
        for rule_id, why in policy.unplaced:
            findings.append(Finding("warning", None, f"rule {rule_id} can never fire: {why}"))
        for rule_id, events in policy.dead:
            findings.append(
                Finding("warning", None, f"rule {rule_id} never fired in {events} events (dead)")
            )
        failed = forget_in(paths, session) if fired else None
        if failed is not None:
            findings.append(
                Finding("warning", None, f"could not drop the synthetic events: {_cause(failed)}")
            )
    return findings + history


def fail_open_findings(root: Path, paths: StylePaths, now: float | None = None) -> list[Finding]:
    """The calls STYLE allowed because it could not evaluate them, in the last
    FAIL_OPEN_DAYS days of `.style/logs/errors.log`: one warning per cause, with its count
    and the last one. Lines from before outcomes were logged are counted apart."""
    from agentstyle.runtime import errorlog
    from agentstyle.runtime.causes import Cause

    now = time.time() if now is None else now
    entries = errorlog.read(paths.error_log, now - FAIL_OPEN_DAYS * 86400)
    log = _label(root, paths.error_log)
    findings = []
    for outcome in (errorlog.FAIL_OPEN, errorlog.UNKNOWN):
        chosen = [e for e in entries if e.outcome == outcome]
        by_cause: dict[Cause, list[errorlog.Entry]] = {}
        for entry in chosen:
            by_cause.setdefault(entry.counted, []).append(entry)
        for cause, group in sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0].value)):
            last = group[-1]
            stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(last.when))
            what = (
                "call(s) allowed unchecked"
                if outcome == errorlog.FAIL_OPEN
                else "handler error(s), outcome not logged,"
            )
            findings.append(
                Finding(
                    "warning",
                    None,
                    f"{len(group)} {what} in the last {FAIL_OPEN_DAYS} days: "
                    f"{cause.doctor_text} (last {stamp}, {last.harness} {last.event}: "
                    f"{last.cause}); see {log}",
                )
            )
    return findings


def _label(root: Path, path: Path) -> str:
    from agentstyle.install.filechanges import relative

    return relative(root, path)


def check_harness(
    root: Path,
    name: str,
    h: HarnessInstall,
    lock: LockFile,
    policy: Policy | None,
    findings: list[Finding],
) -> bool:
    """Static checks of one harness's install; True when it is broken (one error line)."""
    from agentstyle.harnesses.facts import spec_for

    config = _read_config(root, name, h)
    if isinstance(config, Finding):
        findings.append(config)
        return True
    label, text, found = config
    handlers = [hd for groups in found.values() for g in groups for hd in handlers_of(g)]
    broken = _programs_finding(root, name, label, handlers)
    if broken is None:
        other = _other_hook_finding(root, name, handlers)
        if other is not None:
            findings.append(other)
        if policy is not None:
            broken = _policy_finding(root, name, h, policy, label, text, found)
    if broken is not None:
        findings.append(broken)
        return True
    findings.append(Finding("ok", name, f"{label}: {len(handlers)} STYLE handler(s) as installed"))
    # what the client does with a call when the hook process itself dies or hangs
    findings.append(Finding("ok", name, spec_for(name).hook_failure(h.fail_closed)))
    return False


class _Config(NamedTuple):
    """A harness's hook config as doctor reads it: its label, text and STYLE's handlers."""

    label: str
    text: str
    found: dict[str, list[dict[str, Any]]]


def _read_config(root: Path, name: str, h: HarnessInstall) -> _Config | Finding:
    """The harness's hook config, or the error that it is missing or unreadable."""
    from agentstyle.harnesses import adapter_for
    from agentstyle.install.filechanges import relative
    from agentstyle.install.install import config_file, is_ours

    adapter = adapter_for(name)
    try:
        path = config_file(root, h.scope, name)
    except StyleError as exc:
        return Finding("error", name, f"style.lock.yaml: {exc}")
    label = relative(root, path)
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return Finding("error", name, f"{label} is missing; run `style sync`")
    except (OSError, UnicodeDecodeError) as exc:
        return Finding("error", name, f"{label} cannot be read ({exc})")
    try:
        found = adapter.installed_handlers(text, is_ours, label)
    except JsonEditError as exc:
        where = f" at line {exc.span.line}, column {exc.span.column}" if exc.span else ""
        return Finding(
            "error",
            name,
            f"{label} is not valid JSON{where} (edited by hand?); fix it, then run `style sync`",
        )
    return _Config(label, text, found)


def _programs_of(handlers: list[dict[str, Any]]) -> set[str]:
    return {prog for hd in handlers if (prog := program_of(str(hd.get("command", "")))) is not None}


def _programs_finding(
    root: Path, name: str, label: str, handlers: list[dict[str, Any]]
) -> Finding | None:
    """The error when a program the handlers run is not there."""
    missing = sorted(str(prog) for prog in _programs_of(handlers) if not _runnable(prog))
    if HOOK_SCRIPT in missing:
        return Finding(
            "error",
            name,
            f"{len(handlers)} handler(s) in {label} run `{HOOK_SCRIPT}`, which is not on "
            f"PATH here, so they answer that STYLE is not installed; install STYLE with "
            f"`pipx install agentstyle` or `uv tool install agentstyle`, or put "
            f"{_label(root, Path(sys.executable).parent)} on PATH",
        )
    if missing:
        return Finding(
            "error",
            name,
            f"{len(handlers)} handler(s) in {label} run {', '.join(missing)}, which is "
            "missing (STYLE's environment moved?); run `style sync` with the `style` you "
            "use now",
        )
    return None


def _other_hook_finding(root: Path, name: str, handlers: list[dict[str, Any]]) -> Finding | None:
    """The warning when the `style-hook` the handlers run is another environment's."""
    if HOOK_SCRIPT not in _programs_of(handlers):
        return None
    other = _other_style_hook()
    if other is None:
        return None
    return Finding(
        "warning",
        name,
        f"`{HOOK_SCRIPT}` on PATH is {other}, not this STYLE's "
        f"({_label(root, Path(sys.executable).parent)}): hooks run that one",
    )


def _policy_finding(
    root: Path,
    name: str,
    h: HarnessInstall,
    policy: Policy,
    label: str,
    text: str,
    found: dict[str, list[dict[str, Any]]],
) -> Finding | None:
    """The error when the config or the instruction file is not what the policy installs."""
    from agentstyle.harnesses import adapter_for

    problems = _handler_problems(name, h, policy, found)
    problems.extend(adapter_for(name).config_problems(text))
    if problems:
        return Finding(
            "error",
            name,
            f"{label} differs from what STYLE installed ({'; '.join(problems)}: edited "
            "by hand?); run `style sync`",
        )
    return _lost_blocks_finding(root, name, h, policy)


def _handler_problems(
    name: str, h: HarnessInstall, policy: Policy, found: dict[str, list[dict[str, Any]]]
) -> list[str]:
    """How the config's STYLE handlers differ from the ones install writes, per event."""
    from agentstyle.install.handlers import handler_groups

    expected = handler_groups(policy.entries, name, h.fail_closed, h.scope)
    ours = {e: [_strip_native(g, h) for g in gs] for e, gs in expected.items()}
    ours = {e: gs for e, gs in ours.items() if gs}
    have = {e: [_strip_native(g, h) for g in gs] for e, gs in found.items()}
    have = {e: gs for e, gs in have.items() if gs}
    problems = []
    for event in sorted(set(ours) | set(have)):
        if event not in have:
            problems.append(f"{event} handler missing")
        elif event not in ours:
            problems.append(f"unexpected {event} handler")
        elif _canon(have[event]) != _canon(ours[event]):
            problems.append(f"{event} handler changed")
    return problems


def _lost_blocks_finding(
    root: Path, name: str, h: HarnessInstall, policy: Policy
) -> Finding | None:
    """The error when the instruction file lost a static rule's block."""
    from agentstyle.install.filechanges import relative
    from agentstyle.install.install import instruction_file

    static = [e.rule_id for e in policy.entries if e.harness == name and e.status == "static"]
    ipath = instruction_file(root, h.scope, name)
    if not static or ipath is None:
        return None
    try:
        blocks = read_blocks(ipath.read_text("utf-8"), name=str(ipath))
    except (OSError, MarkerError, UnicodeDecodeError):
        blocks = {}
    lost = [r for r in static if r not in blocks]
    if not lost:
        return None
    return Finding(
        "error",
        name,
        f"{relative(root, ipath)} lost STYLE's block for {', '.join(lost)}; run `style sync`",
    )


def _strip_native(group: dict[str, Any], h: HarnessInstall) -> dict[str, Any]:
    """A group with only STYLE's own handlers (the packages' native hooks are theirs)."""
    from agentstyle.install.install import is_ours

    hooks = group.get("hooks")
    if isinstance(hooks, list):
        kept = [hd for hd in hooks if is_ours(hd) and hd.get("command") not in h.native]
        return {**group, "hooks": kept} if kept else {}
    return group if is_ours(group) and group.get("command") not in h.native else {}


def _canon(groups: list[dict[str, Any]]) -> list[str]:
    """Groups compared by meaning: a matcher as its set of names, a command by what it runs."""
    return sorted(json.dumps(_canon_item(g), sort_keys=True) for g in groups if g)


def _canon_item(item: dict[str, Any]) -> dict[str, Any]:
    from agentstyle.policy.plan import split_matcher

    out = dict(item)
    matcher = out.get("matcher")
    if isinstance(matcher, str) and matcher not in ("", "*"):
        exact, patterns = split_matcher(matcher)
        out["matcher"] = [sorted(set(exact)), sorted(set(patterns))]
    if isinstance(out.get("command"), str):
        out["command"] = canonical(out["command"])
    if isinstance(out.get("hooks"), list):
        out["hooks"] = [_canon_item(h) if isinstance(h, dict) else h for h in out["hooks"]]
    return out


def _other_style_hook() -> str | None:
    """The `style-hook` PATH finds, when it belongs to another environment than this one."""
    from shutil import which

    found = which(HOOK_SCRIPT)
    if found is None:
        return None
    mine = Path(sys.executable).parent / HOOK_SCRIPT
    try:
        if Path(found).resolve() == mine.resolve():
            return None
        with open(found, encoding="utf-8", errors="replace") as fh:
            shebang = fh.readline().removeprefix("#!").strip()
    except OSError:
        return found
    if shebang and same_program(shebang, sys.executable):
        return None
    return found


def _runnable(program: str) -> bool:
    if "/" not in program:
        from shutil import which

        return which(program) is not None
    return os.path.isfile(program) and os.access(program, os.X_OK)


def _fire_events(name: str, found: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The native events to fire: the session start bookkeeping and the first tool gate."""
    from agentstyle.harnesses.facts import spec_for

    spec = spec_for(name)
    chosen: list[str] = []
    start = next((e for e in spec.bookkeeping if e in found), None)
    if start:
        chosen.append(start)
    gate = next(
        (e for e in spec.gate_events if e in found and spec.point_of(e) == "tool.pre"), None
    )
    if gate:
        chosen.append(gate)
    return chosen or sorted(found)[:1]


def fire_harness(
    root: Path,
    name: str,
    h: HarnessInstall,
    session: str,
    findings: list[Finding],
    hooks: dict[str, list[dict[str, Any]]] | None = None,
) -> bool:
    """Run the installed commands of a harness with synthetic payloads (`hooks`: those of a
    plugin instead of the config's); True if any ran."""

    found = hooks if hooks is not None else _installed_hooks(root, name, h)
    ran = False
    for event in _fire_events(name, found):
        command = style_command(found[event])
        if command is None:
            continue
        ran = True
        findings.append(_fire_one(root, name, event, command, session))
    return ran


def style_command(groups: list[dict[str, Any]]) -> str | None:
    """The command of the first of STYLE's handlers in an event's groups."""
    from agentstyle.install.install import is_ours

    return next((str(hd["command"]) for g in groups for hd in handlers_of(g) if is_ours(hd)), None)


def _installed_hooks(root: Path, name: str, h: HarnessInstall) -> dict[str, list[dict[str, Any]]]:
    """STYLE's handlers per event in the harness's hook config."""
    from agentstyle.harnesses import adapter_for
    from agentstyle.install.install import config_file, is_ours

    path = config_file(root, h.scope, name)
    return adapter_for(name).installed_handlers(path.read_text("utf-8"), is_ours, str(path))


def _fire_one(root: Path, name: str, event: str, command: str, session: str) -> Finding:
    """Run one installed command with a synthetic `event` payload, as the harness would, and
    judge its answer and its time."""
    from agentstyle.harnesses import adapter_for
    from agentstyle.runtime.hookcall import deadline_seconds

    adapter = adapter_for(name)
    timeout = gate_timeout(name, event)
    # The deadline the hook itself works to: `STYLE_DEADLINE_S` where the user set it, as
    # the harness then passes it to every hook too.
    deadline = deadline_seconds(timeout)
    payload = adapter.synthetic_payload(event, root.as_posix(), session)
    started = time.monotonic()
    try:
        proc = run_as_harness(root, name, command, payload, timeout + 5.0)
    except subprocess.TimeoutExpired:
        return Finding(
            "error",
            name,
            f"{event}: no answer within {timeout:g} s (the harness "
            "would give up and let the call run)",
        )
    except OSError as exc:
        return Finding("error", name, f"{event}: the command could not start ({exc})")
    elapsed = time.monotonic() - started
    problem = _answer_problem(adapter, event, proc)
    if problem is not None:
        return Finding("error", name, f"{event}: {problem}")
    ms = elapsed * 1000
    if elapsed > deadline:
        return Finding(
            "error", name, f"{event}: answered in {ms:.0f} ms, past STYLE's {deadline:g} s deadline"
        )
    return Finding(
        "ok",
        name,
        f"{event}: the installed command answered in {ms:.0f} ms (deadline {deadline:g} s)",
    )


def gate_timeout(harness: str, event: str) -> float:
    """How long the harness waits for a hook on `event` before it gives up."""
    from agentstyle.harnesses import timeout_for
    from agentstyle.harnesses.facts import spec_for

    ps = spec_for(harness).spec_of(event)
    return ps.timeout_s if ps is not None else timeout_for(harness, event)


def run_as_harness(
    root: Path, harness: str, command: str, payload: Any, timeout: float
) -> subprocess.CompletedProcess[bytes]:
    """`command` as the harness runs a hook: `sh -c`, the payload on stdin, the project as
    working folder and in the harness's project variable."""
    env = dict(os.environ)
    variable = project_dir_env(harness)
    if variable is not None:
        env[variable] = str(root)
    return subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload).encode("utf-8"),
        cwd=root,
        env=env,
        capture_output=True,
        timeout=timeout,
    )


def _answer_problem(
    adapter: HarnessAdapter, event: str, proc: subprocess.CompletedProcess[bytes]
) -> str | None:
    """What is wrong with a fired command's answer: it failed, it answered with a handler
    error, or its output is not what the harness expects."""
    stdout = proc.stdout.decode("utf-8", errors="replace")
    stderr = proc.stderr.decode("utf-8", errors="replace").strip()
    first = stderr.splitlines()[0] if stderr else ""
    if proc.returncode == 127 or (proc.returncode != 0 and not first.startswith("STYLE")):
        return (
            f"the installed command failed (exit {proc.returncode}{': ' + first if first else ''})"
        )
    if first.startswith("STYLE"):
        return f"answered with a handler error: {first}"
    problem = adapter.wire_problem(event, stdout, proc.returncode)
    return f"wrong answer ({problem})" if problem else None
