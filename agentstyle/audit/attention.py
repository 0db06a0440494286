"""What a lead looks at first: the flagged rules and the failure causes, worst first.

Each comes with a one-line reason and the command that digs in.

Built from the `rules` and `errors` reports (sql/audit), so it says nothing those reports do not;
it only ranks, explains and points.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentstyle.audit.rows import ConfigChangeRow

# Worst first: a rule that fails or a hook that answers without evaluating is wrong now; a
# loop costs whole turns; noise trains people to ignore; broad and dead rules waste less.
# A settings file that holds STYLE's hooks changed during a session: tamper evidence.
SEVERITY = ("erroring", "fail-open", "config-changed", "looping", "noisy", "broad", "dead")
SHOWN = 8  # the few a person reads; the reports hold the rest
COLUMNS = ("kind", "subject", "reason", "command")


@dataclass(frozen=True, slots=True)
class Item:
    kind: str  # the rule's flags (worst first), `fail-open` or `config-changed`
    subject: str  # the rule id, the failure's cause, or the settings file
    reason: str  # one line
    command: str  # what to run next


@dataclass(frozen=True, slots=True)
class Context:
    """What the suggested commands name: where each rule's package lives, where the sessions'
    transcripts are, and the sample flags need."""

    sources: dict[str, str]  # rule id → package source as installed
    folders: dict[str, str]  # harness → the project folder its sessions ran in
    errors: dict[str, tuple[str, int]]  # rule id → (most frequent error detail, its count)
    min_events: int
    root: Path | None = None


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _source(rule: str, ctx: Context) -> str:
    source = ctx.sources.get(rule)
    if not source:
        return rule.split("/", 1)[0]
    if ctx.root is not None:
        try:
            relative = Path(source).resolve().relative_to(ctx.root.resolve())
            return relative.as_posix() or "."
        except (ValueError, OSError):
            pass
    return source


def replay_sources(cwd: str) -> str | None:
    """Where the transcripts `style replay` reads are kept for sessions run in `cwd`, as the
    person types it (`TranscriptFormat.sessions_glob`)."""
    from agentstyle.audit.transcripts import replayed_format

    return replayed_format().sessions_glob(cwd)


def _replay(rule: str, ctx: Context) -> str:
    from agentstyle.audit.transcripts import replayed_format

    cwd = ctx.folders.get(replayed_format().harness)
    sessions = (replay_sources(cwd) if cwd else None) or "SESSIONS"
    return f"style replay {sessions} --package {shlex.quote(_source(rule, ctx))}"


def _rule_items(row: dict[str, Any], ctx: Context) -> list[Item]:
    rule = str(row["rule"])
    flags = [f for f in str(row["flag"] or "").split(",") if f]
    out = []
    for flag in flags:
        reason = _flag_reason(flag, row, ctx)
        if reason is not None:
            out.append(Item(flag, rule, reason, _dig_in(flag, rule, ctx)))
    return out


def _flag_reason(flag: str, row: dict[str, Any], ctx: Context) -> str | None:
    """Why the rule of a `rules` report row carries `flag`, with its numbers (None: a flag
    this list does not know)."""
    rule, action = str(row["rule"]), row["action"] or "fire"
    cands, fired, blocked = int(row["candidates"]), int(row["fired"]), int(row["blocked"])
    if flag == "erroring":
        detail, _n = ctx.errors.get(rule, ("", 0))
        return f"{row['errors']} of its {fired} firings failed" + (
            f": {_one_line(detail)}" if detail else ""
        )
    if flag == "looping":
        return (
            f"blocks {_pct(blocked, cands)} of stops ({blocked} of {cands}): the agent is "
            "sent back most times it tries to finish"
        )
    if flag == "noisy":
        verb = {"warn": "warns", "ask": "asks", "inject": "injects"}.get(action, "fires")
        reason = f"{verb} on {_pct(fired, cands)} of its candidate events ({fired} of {cands})"
        return reason + (
            ": a question asked this often trains a reflexive yes"
            if action == "ask"
            else f", {row['tokens_emitted']} tokens"
            if action == "inject"
            else ": a warning this frequent is read past"
        )
    if flag == "broad":
        return (
            f"its condition held on every one of its {cands} candidate events: it may not "
            "say what was meant"
        )
    if flag == "dead":
        return (
            f"never fired on its {cands} candidate events"
            if cands
            else "never fired: no event of the window was a candidate (check its tool and event)"
        )
    return None


def _dig_in(flag: str, rule: str, ctx: Context) -> str:
    """The command that looks closer at a flagged rule: its errors, its `rules` row (a dead
    rule has no firing to replay), or a replay of its firings."""
    if flag == "erroring":
        return f"style audit errors --rule {rule}"
    if flag == "dead":
        return f"style audit rules --rule {rule}"
    return _replay(rule, ctx)


def _one_line(text: str, n: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


def _error_item(row: dict[str, Any]) -> Item | None:
    open_ = int(row["fail_open"])
    if open_ <= 0:
        return None
    refused = int(row["refused"])
    where = str(row["native_events"] or "").replace(",", ", ")
    cause = _one_line(str(row["cause"]), 160)
    noun = "event" if open_ == 1 else "events"
    reason = (
        f"{open_} {row['harness']}{' ' + where if where else ''} {noun} answered without "
        f"evaluation{f' ({refused} more refused)' if refused else ''}: {cause}"
    )
    return Item("fail-open", cause, reason, "style doctor")


def _config_item(row: ConfigChangeRow) -> Item:
    n, sessions = int(row.changes), int(row.sessions)
    when = f", last {row.last_seen:%Y-%m-%d %H:%M}" if row.last_seen is not None else ""
    reason = (
        f"changed {n} {'time' if n == 1 else 'times'} during {sessions} {row.harness} "
        f"{'session' if sessions == 1 else 'sessions'}{when}: it holds STYLE's hooks, which the "
        "agent may not edit; if no one here changed it, something may have tampered with "
        "STYLE's guard"
    )
    if row.kept_out:
        reason += f" ({row.kept_out} kept out of the session: it would have switched them off)"
    return Item("config-changed", row.file, reason, "style doctor")


def items(
    rules: list[dict[str, Any]],
    errors: list[dict[str, Any]],
    ctx: Context,
    changes: list[ConfigChangeRow] | None = None,
) -> list[Item]:
    """Every item, worst kind first; within a kind, the most events first. `changes`: the
    settings files that changed during the window's sessions (those that hold STYLE's hooks
    are tamper evidence)."""
    found: list[tuple[int, int, Item]] = []
    for change in changes or []:
        if change.guarded:
            rank = SEVERITY.index("config-changed")
            found.append((rank, -int(change.changes), _config_item(change)))
    for row in rules:
        flagged = _rule_items(row, ctx)
        if not flagged:
            continue
        # One item a rule: the worst flag's reason and command, the other flags named after it.
        flagged.sort(key=lambda i: SEVERITY.index(i.kind))
        worst, rest = flagged[0], [i.kind for i in flagged[1:]]
        item = Item(
            ",".join([worst.kind, *rest]),
            worst.subject,
            worst.reason + (f"; also {', '.join(rest)}" if rest else ""),
            worst.command,
        )
        found.append((SEVERITY.index(worst.kind), -int(row["candidates"]), item))
    for row in errors:
        if row["rule"] is not None:  # a rule's errors: its `erroring` item speaks for them
            continue
        error_item = _error_item(row)
        if error_item is not None:
            found.append((SEVERITY.index("fail-open"), -int(row["fail_open"]), error_item))
    found.sort(key=lambda t: (t[0], t[1], t[2].subject))
    return [item for _s, _w, item in found]


def threshold_note(min_events: int) -> str:
    return (
        f"flags need {min_events} candidate events, dead {5 * min_events} at its point; "
        "--min-events N changes it"
    )


def render_text(found: list[Item], min_events: int, *, color: bool = False) -> str:
    """The section as text: a heading, two lines an item (reason, command), the count left out."""
    bold, yellow, red, reset = (
        ("\x1b[1m", "\x1b[33m", "\x1b[31m", "\x1b[0m") if color else ("",) * 4
    )
    note = threshold_note(min_events)
    if not found:
        return f"{bold}needs attention{reset}: nothing ({note})\n"
    lines = [f"{bold}needs attention{reset} ({note})"]
    for item in found[:SHOWN]:
        paint = red if item.kind.startswith(("erroring", "fail-open", "config-changed")) else yellow
        # a rule's line names it; a failure's reason already ends with its cause
        subject = "" if item.kind == "fail-open" else f" {item.subject}"
        lines.append(f"  {paint}{item.kind}{reset}{subject}: {item.reason}")
        lines.append(f"      {item.command}")
    if len(found) > SHOWN:
        lines.append(f"  … and {len(found) - SHOWN} more: style audit attention")
    return "\n".join(lines) + "\n"
