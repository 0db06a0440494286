"""`style doctor --live` (docs/commands.md#style-doctor): a canary through each installed gate.

`style doctor` checks that the hook config holds what install wrote and that the command answers.
The canary checks the one thing that matters to a guard: that a call a rule refuses is refused,
through the config exactly as the harness reads it. For every tool gate of every installed
harness it takes STYLE's handler from the installed config (the group whose matcher takes the
harness's shell tool), runs its command as the harness does (`sh -c COMMAND`, the payload on
stdin, the project as working folder, the harness's project variable set), with a shell call
that self-protection refuses (a write into `.style/`, docs/design/cli.md#self-protection), and
reads the answer as the harness would: a refusal in its wire format, in time. Each harness's
session start handler runs first with the canary's session, as the harness always sends it
before a tool call (so the gate is judged as a session's calls meet it). The call itself is
never run; only the hook is. Its events are recorded under a `style-canary-` session and dropped
again after the run, as doctor's synthetic ones are, so audits never count them.

Prompt gates are not probed (no built-in rule refuses a prompt), nor gates that take no shell
call (Cursor's `beforeReadFile`, `beforeMCPExecution`).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentstyle.diagnostics import StyleError
from agentstyle.doctor.checks import Finding, forget_in, gate_timeout, run_as_harness, style_command
from agentstyle.evaluator.paths import StylePaths
from agentstyle.install.hookcommand import MISSING
from agentstyle.install.lockfile import read_lock

SESSION_PREFIX = "style-canary-"
# Harmless by construction: only the hook sees it (the harness never runs a call it is asked
# about here), and a write into `.style/` is what self-protection refuses on every harness.
CANARY_COMMAND = "echo style-canary > .style/style-canary"
SELF_PROTECT_RULE = "style/self-protect/state"


@dataclass(frozen=True, slots=True)
class Gates:
    """What the canary fires for one harness: its session start handler first (a session's
    first event, which the harness always sends before a tool call), then each probe."""

    start: tuple[str, str] | None  # (native event, STYLE's command for it)
    probes: list[Probe]


@dataclass(frozen=True, slots=True)
class Probe:
    harness: str
    event: str
    tool: str
    command: str | None  # the installed handler's command (None: no handler takes the tool)
    why_none: str = ""


def _with_canary(payload: Any) -> tuple[Any, bool]:
    """The synthetic payload with its harmless shell command (`true`) made the canary."""
    if isinstance(payload, dict):
        out: dict[str, Any] = {}
        hit = False
        for key, value in payload.items():
            if key == "command" and value == "true":
                out[key], hit = CANARY_COMMAND, True
            else:
                out[key], sub = _with_canary(value)
                hit = hit or sub
        return out, hit
    return payload, False


def _shell_tool(payload: dict[str, Any], default: str) -> str:
    name = payload.get("tool_name")
    return str(name) if isinstance(name, str) and name else default


def _matcher(group: dict[str, Any]) -> str | None:
    # groups layout: the group's matcher; flat layout (Cursor): the handler carries it
    matcher = group.get("matcher")
    return matcher if isinstance(matcher, str) else None


def refusal_of(stdout: str, code: int, stderr: str) -> str | None:
    """The reason of a refusal in any supported harness's wire format, or None (not refused):
    exit code 2 (the reason on stderr), or a JSON answer that denies
    (`hookSpecificOutput.permissionDecision` / `.decision.behavior`, a top-level `decision`
    of `block` / `deny` or `permissionDecision` of `deny`, Cursor's `permission: deny`)."""
    if code == 2:
        return stderr.strip().splitlines()[0] if stderr.strip() else "exit 2"
    try:
        obj = json.loads(stdout) if stdout.strip() else None
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    inner = obj.get("hookSpecificOutput")
    if isinstance(inner, dict):
        if inner.get("permissionDecision") == "deny":
            return str(inner.get("permissionDecisionReason") or "denied")
        decision = inner.get("decision")
        if isinstance(decision, dict) and decision.get("behavior") == "deny":
            return str(decision.get("message") or "denied")
    if obj.get("decision") in ("block", "deny"):
        return str(obj.get("reason") or "denied")
    if obj.get("permissionDecision") == "deny":
        return str(obj.get("permissionDecisionReason") or "denied")
    if obj.get("permission") == "deny":
        return str(obj.get("user_message") or obj.get("agent_message") or "denied")
    return None


def probes(root: Path, name: str, scope: str) -> Gates | str:
    """Each tool gate of a harness to fire the canary at, with the handler command the installed
    config runs for the shell tool; or why the config cannot be read."""
    from agentstyle.folders import not_regular
    from agentstyle.harnesses import adapter_for
    from agentstyle.harnesses.facts import spec_for
    from agentstyle.install.filechanges import relative
    from agentstyle.install.install import config_file, is_ours
    from agentstyle.policy.plan import matcher_accepts

    adapter = adapter_for(name)
    spec = spec_for(name)
    try:
        path = config_file(root, scope, name)
        kind = not_regular(str(path))
        if kind is not None:  # opening a FIFO would wait for a writer
            return f"its hook config is {kind}, not a file; remove it, then run `style sync`"
        text = path.read_text("utf-8")
        found = adapter.installed_handlers(text, is_ours, str(path))
    except FileNotFoundError:
        return "its hook config is missing; run `style sync`"
    except Exception as exc:
        return f"its hook config cannot be read ({str(exc).splitlines()[0] if str(exc) else exc})"
    label = relative(root, path)
    out: list[Probe] = []
    # where a route gates shell calls apart (Cursor's beforeShellExecution), that event is the
    # shell's gate and the point's own event is not
    shell_route = next(
        (r.spec.native_event for r in spec.routes.get("tool.pre", ()) if "shell" in r.keys), None
    )
    for event in spec.gate_events:
        if spec.point_of(event) != "tool.pre":
            continue
        if shell_route is not None and event != shell_route:
            continue
        payload, has_shell = _with_canary(adapter.synthetic_payload(event, root.as_posix(), "x"))
        if not has_shell:
            continue
        tool = _shell_tool(payload, spec.tool_names.get("shell", ("shell",))[0])
        groups = found.get(event, [])
        if not groups:
            if event in (spec.points["tool.pre"].native_event, shell_route):
                out.append(Probe(name, event, tool, None, f"{label} has no STYLE handler for it"))
            continue  # a second gate (PermissionRequest) is installed only where rules need it
        taking = [g for g in groups if matcher_accepts(_matcher(g), tool)]
        command = style_command(taking)
        why = "" if command else f"no STYLE handler in {label} has `{tool}` in its matcher"
        out.append(Probe(name, event, tool, command, why))
    start = next((e for e in spec.bookkeeping if spec.point_of(e) == "session.start"), None)
    start_command = style_command(found.get(start or "", []))
    return Gates((start, start_command) if start and start_command else None, out)


def start_session(root: Path, harness: str, start: tuple[str, str], session: str) -> None:
    """The canary session's start, as the harness sends it first: the session's bookkeeping,
    and the engine started as a session start starts it. Its answer is doctor's to judge."""
    from agentstyle.harnesses import adapter_for, timeout_for

    event, command = start
    payload = adapter_for(harness).synthetic_payload(event, root.as_posix(), session)
    with contextlib.suppress(subprocess.TimeoutExpired, OSError):
        run_as_harness(root, harness, command, payload, timeout_for(harness, event))


def fire(root: Path, probe: Probe, session: str) -> Finding:
    """Run one probe's command as the harness would; the finding says what it answered."""
    from agentstyle.harnesses import adapter_for

    where = f"{probe.event} ({probe.tool})"
    if probe.command is None:
        return Finding("error", probe.harness, f"{where}: {probe.why_none}; run `style sync`")
    adapter = adapter_for(probe.harness)
    timeout = gate_timeout(probe.harness, probe.event)
    payload, _ = _with_canary(adapter.synthetic_payload(probe.event, root.as_posix(), session))
    started = time.monotonic()
    try:
        proc = run_as_harness(root, probe.harness, probe.command, payload, timeout)
    except subprocess.TimeoutExpired:
        return Finding(
            "error",
            probe.harness,
            f"{where}: timed out: no answer within {timeout:g} s (the harness would give up "
            "and run the call)",
        )
    except OSError as exc:
        return Finding("error", probe.harness, f"{where}: the command could not start ({exc})")
    ms = (time.monotonic() - started) * 1000
    stdout = proc.stdout.decode("utf-8", errors="replace")
    stderr = proc.stderr.decode("utf-8", errors="replace")
    first = stderr.strip().splitlines()[0] if stderr.strip() else ""
    if proc.returncode == 127:
        return Finding(
            "error",
            probe.harness,
            f"{where}: command not found (exit 127{': ' + first if first else ''})",
        )
    if MISSING in stdout or MISSING in stderr:
        return Finding(
            "error",
            probe.harness,
            f"{where}: command not found: the handler found no `style-hook` on PATH and "
            "answered that STYLE is not installed",
        )
    problem = adapter.wire_problem(probe.event, stdout, proc.returncode)
    reason = refusal_of(stdout, proc.returncode, stderr)
    if problem:
        return Finding(
            "error",
            probe.harness,
            f"{where}: an answer the harness cannot read ({problem}), so it would run the call",
        )
    if reason is None:
        said = first or stdout.strip()[:160] or "no output"
        return Finding(
            "error",
            probe.harness,
            f"{where}: answered allow to the canary `{CANARY_COMMAND}` ({said}); "
            f"{SELF_PROTECT_RULE} should refuse it",
        )
    return Finding(
        "ok",
        probe.harness,
        f"{where}: refused the canary in {ms:.0f} ms as installed ({reason[:80]})",
    )


def run_live(root: Path) -> list[Finding]:
    """The canary through every installed harness's tool gates; its events dropped after."""

    paths = StylePaths(root)
    try:
        lock = read_lock(paths.lockfile)
    except StyleError as exc:
        return [Finding("error", None, f"live: {exc}")]
    if not lock.harnesses:
        return [
            Finding("error", None, "live: nothing installed here: no harness in style.lock.yaml")
        ]
    if not lock.protect:
        return [
            Finding(
                "error",
                None,
                "live: self-protection is off (`protect: false` in style.lock.yaml): no built-in "
                "rule refuses the canary, so the gates cannot be proven",
            )
        ]
    session = f"{SESSION_PREFIX}{uuid.uuid4()}"
    findings: list[Finding] = []
    fired = False
    for name in sorted(lock.harnesses):
        found = probes(root, name, lock.harnesses[name].scope)
        if isinstance(found, str):
            findings.append(Finding("error", name, f"live: {found}"))
            continue
        if not found.probes:
            findings.append(Finding("warning", name, "live: no tool gate to probe"))
        elif found.start is not None:
            start_session(root, name, found.start, session)
            fired = True
        for probe in found.probes:
            fired = fired or probe.command is not None
            f = fire(root, probe, session)
            findings.append(Finding(f.level, f.harness, f"live: {f.message}"))
    failed = forget_in(paths, SESSION_PREFIX) if fired and paths.database.exists() else None
    if failed is not None:
        findings.append(
            Finding("warning", None, f"live: could not drop the canary's events: {failed}")
        )
    return findings
