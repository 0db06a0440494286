"""`style suggest`: policy changes learned from the history, backtested, never applied.

See docs/audit.md#suggest.

Three sources of proposals, each from what the history already holds:

- **consent**: calls a rule asked about that the person approved (the call's post event came,
  sql/suggest/consented.sql; or, where no post event shows it, the harness's own transcript
  holds the call's result: audit/transcripts.py `call_answers`), or refusals the person let
  through with `style allow`. Grouped
  by rule and by the call (the same command; the same program and subcommand; the same folder
  of a path), a group seen `min_calls` times becomes an exception on the rule (`narrow`) and,
  for an approved ask, an `allow` rule for exactly those calls (`allow`): precedence lets no
  allow win beside an ask (docs/design/runtime.md#precedence), so the exception is what turns
  the ask into the allow. Self-protection rules and `fail: closed` rules are never proposed
  for: their packages say a refusal must stand even when the guard is broken.
- **noise**: a `warn` or `inject` rule the `rules` report flags `noisy` (the same SQL and the
  same sample, docs/audit.md#flags) that speaks at every event or turn: `repeat: session`.
- **dead**: a rule that fired in none of the last `sessions` sessions of its harnesses:
  `enabled: false`.

Every proposal is a set of edits of the package's own files (audit/suggest_patch.py), shown as
a unified diff, loaded again by the loader `style validate` uses, and backtested: the installed
policy and the proposed one are replayed (audit/replay.py, the same evaluator as the hook) over
the recorded events, and the events whose verdict, or whose outcome for the proposal's rules,
differs are counted.
"""

from __future__ import annotations

import datetime as dt
import json
import posixpath
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.audit import suggest_patch as patch
from agentstyle.audit.replay import Policy, Replayed, installed_packages, load_policy, replay
from agentstyle.audit.report import Filters, project_history, records, run_report
from agentstyle.audit.suggest_files import (
    OWN,
    Op,
    OwnPackage,
    apply_ops,
    is_bundled,
    own_package,
    problems,
    unified_diff,
    write_copy,
)
from agentstyle.audit.transcripts import (
    Recorded,
    call_answers,
    merge,
    replayed_format,
    stored_events,
)
from agentstyle.diagnostics import StyleError
from agentstyle.evaluator.paths import StylePaths
from agentstyle.evaluator.store import Connection, query_rows, sql
from agentstyle.install.lockfile import read_lock
from agentstyle.install.selfprotect import plan_packages

SESSIONS = 20  # recent sessions per harness a rule must have stayed silent in to be dead
MIN_CALLS = 2  # approvals (or allowances) of one kind of call before it is proposed
# What a generalized command's varying tail may not hold: a shell operator, redirection,
# quote, substitution, escape or line break (so it stays one simple command with plain words).
TAIL_WORD = r"[^-+;&|<>()$\x60\x5c\x22\x27\s][^;&|<>()$\x60\x5c\x22\x27\s]*"
SHELL_META = frozenset(";&|<>()$`\\'\"\n\r")
GLOB_META = frozenset("*?[]{}")
RE2_META = frozenset("\\.^$|?*+()[]{}")
KINDS = ("allow", "narrow", "quiet", "disable")  # the order proposals are listed in
SELF_PROTECT = "style"  # the built-in package (docs/design/cli.md#self-protection)


# -- what the history says -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Consent:
    """One call a person let through after a rule stopped it."""

    how: str  # approved | allowed | declined
    seen: str  # where: post event | transcript | style allow
    event_id: int
    ts: dt.datetime
    harness: str
    session_id: str
    rule_id: str
    tool: str | None
    native_tool: str | None
    command: str | None
    path: str | None
    input: str | None


@dataclass(frozen=True, slots=True)
class RuleFacts:
    rule_id: str
    package: str
    local_id: str
    target: str
    action: str
    repeat: str | None
    fail: str
    source: str  # the package folder (or single file) as installed
    source_file: str


@dataclass(slots=True)
class History:
    """Everything `suggest` reads from the project's database, read in one opening."""

    events: int
    sessions: int
    first: dt.datetime | None
    last: dt.datetime | None
    bare: int  # events stored without their fields (`log: hits`)
    consents: list[Consent]
    declined: list[Consent]  # asked calls the transcript shows refused at the prompt
    unseen: list[str]  # notes: asked calls neither a post event nor a transcript answers
    rules: dict[str, RuleFacts]
    dead: list[dict[str, Any]]
    report: list[dict[str, Any]]  # the `rules` report (its flags)
    hits: dict[str, dict[str, Any]]  # rule → its firings (rule_hits.sql), for flagged rules
    streams: list[list[Recorded]]
    harnesses: list[str]


def read_history(root: Path, *, sessions: int, min_events: int) -> History:
    with project_history(root) as conn:
        return _read(conn, sessions=sessions, min_events=min_events)


def _rows(
    conn: Connection, name: str, params: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    names, _types, rows = query_rows(conn, sql(name), params)
    return [dict(zip(names, row, strict=True)) for row in rows]


def _read(conn: Connection, *, sessions: int, min_events: int) -> History:
    [window] = _rows(conn, "suggest/window")
    if not window["events"]:
        raise StyleError(
            "the history has no recorded events yet: `style suggest` learns from sessions the "
            "installed hooks answered"
        )
    conn.execute(sql("suggest/asked_macros"))
    consents = [Consent(**row) for row in _rows(conn, "suggest/consented")]
    approved, declined, unseen = from_transcripts(_rows(conn, "suggest/unseen_asks"))
    consents = sorted(consents + approved, key=lambda c: (c.rule_id, c.event_id))
    rules = {r["rule_id"]: RuleFacts(**r) for r in _rows(conn, "suggest/rule_facts")}
    report = records(run_report(conn, "rules", Filters(min_events=min_events)))
    hits = {}
    for row in report:
        if "noisy" in str(row["flag"] or "").split(","):
            [hits[row["rule"]]] = _rows(conn, "suggest/rule_hits", {"rule": row["rule"]})
    streams, _bare = stored_events(conn, "history")
    harnesses = sorted({str(r.event.harness) for s in streams for r in s if r.event})
    return History(
        int(window["events"]),
        int(window["sessions"]),
        window["first_ts"],
        window["last_ts"],
        int(window["bare"]),
        consents,
        declined,
        unseen,
        rules,
        _rows(conn, "suggest/dead", {"sessions": sessions}),
        report,
        hits,
        streams,
        harnesses,
    )


def from_transcripts(
    rows: list[dict[str, Any]],
) -> tuple[list[Consent], list[Consent], list[str]]:
    """Asked calls no post event answers (sql/suggest/unseen_asks.sql), looked up in the
    transcript each event named: approved (the call's result is there), declined (refused at
    the permission prompt), and notes on the calls left without evidence. Each file is read
    once; one that cannot be read gives no evidence, never an error."""
    answers: dict[str, dict[str, str] | None] = {}
    approved: list[Consent] = []
    declined: list[Consent] = []
    unreadable: list[str] = []
    no_transcript = unread = unanswered = failed = 0
    for row in rows:
        path, call_id = row.pop("transcript"), row.pop("call_id")
        if not path or not call_id:
            no_transcript += 1
            continue
        # `call_answers` reads the transcripts `style replay` reads: the other harnesses' files
        # are of other shapes, and a shape misread must never count as an approval.
        if row["harness"] != replayed_format().harness:
            unread += 1
            continue
        if path not in answers:
            try:
                answers[path] = call_answers(Path(path))
            except StyleError as exc:
                answers[path] = None
                unreadable.append(str(exc))
        found = answers[path]
        answer = found.get(call_id) if found is not None else None
        if answer == "ran":
            approved.append(Consent("approved", "transcript", **row))
        elif answer == "refused":
            declined.append(Consent("declined", "transcript", **row))
        elif answer == "failed":
            failed += 1
        elif found is not None:
            unanswered += 1
    notes = []
    missing = sum(1 for v in answers.values() if v is None)
    if unreadable:
        notes.append(
            f"{missing} transcript(s) named by asked calls cannot be read ({unreadable[0]}): "
            "their calls give no evidence of approval"
        )
    if unanswered:
        notes.append(
            f"{unanswered} asked call(s) have no result in their transcript (interrupted, or "
            "still running): no evidence of approval"
        )
    if failed:
        notes.append(
            f"{failed} asked call(s) have an error result in their transcript (the call failed, "
            "or the client refused it without a prompt, as `claude -p` does with an ask): no "
            "evidence of approval"
        )
    if unread:
        notes.append(
            f"{unread} asked call(s) of harnesses whose transcripts suggest does not read "
            "came to no post event (none comes where no installed rule runs after tool "
            "calls): no evidence of approval"
        )
    if no_transcript:
        notes.append(
            f"{no_transcript} asked call(s) name no transcript (or no call id) and no post "
            "event came for them: no evidence of approval"
        )
    return approved, declined, notes


# -- the calls a proposal lets through -------------------------------------------------------------


def _re2_escape(text: str) -> str:
    return "".join("\\" + c if c in RE2_META else c for c in text)


def _string(value: str) -> str:
    """A string literal of the condition language (docs/conditions.md#the-expression-language):
    JSON escapes are what it reads."""
    return json.dumps(value, ensure_ascii=False)


def _one_of(field_name: str, values: list[str]) -> str:
    if len(values) == 1:
        return f"{field_name} == {_string(values[0])}"
    return f"{field_name} in [{', '.join(_string(v) for v in values)}]"


def call_group(c: Consent) -> tuple[str, ...] | None:
    """What calls are grouped by: a command's program and subcommand (or the whole command
    when it is not plain words), a path's folder, or else the whole input."""
    if c.command is not None:
        words = c.command.split()
        if any(ch in SHELL_META for ch in c.command) or len(words) < 2:
            return ("command", c.command)
        return ("words", *words[:2])
    if c.path is not None:
        return ("folder", posixpath.dirname(c.path))
    if c.input is not None:
        return ("input", c.input)
    return None  # the history kept no input (`log: off`): nothing to name the call by


def condition_for(group: tuple[str, ...], consents: list[Consent]) -> tuple[str, str]:
    """The condition that holds for the group's calls, and a short description. Never wider
    than the calls seen, but for two generalizations: commands of one program and subcommand
    share their common leading words and take any further plain words (no option, operator,
    quote or substitution); paths of one folder take that folder's files."""
    kind = group[0]
    if kind in ("command", "words"):
        commands = sorted({str(c.command) for c in consents})
        if len(commands) == 1 or kind == "command":
            return _one_of("tool.input.command", commands), " | ".join(commands)
        split = [c.split() for c in commands]
        common: list[str] = []
        for words in zip(*split, strict=False):
            if len(set(words)) != 1:
                break
            common.append(words[0])
        prefix = " ".join(common)
        regex = f"^{_re2_escape(prefix)}( {TAIL_WORD})*$"
        # An option or an odd word in what varies: the generalization would not even cover
        # the calls seen, so name them one by one (Python's `re` reads this RE2 subset alike).
        if not all(re.fullmatch(regex, c) for c in commands):
            return _one_of("tool.input.command", commands), " | ".join(commands)
        # a raw string: the regex has no quote (they are written \x22, \x27), and reads as is
        return f'tool.input.command regex r"{regex}"', f"{prefix} …"
    if kind == "folder":
        paths = sorted({str(c.path) for c in consents})
        folder = group[1]
        if len(paths) == 1 or not folder or any(ch in GLOB_META for ch in folder):
            return _one_of("file.path", paths), " | ".join(paths)
        return f"file.path glob {_string(folder + '/*')}", f"{folder}/*"
    inputs = sorted({str(c.input) for c in consents})
    return _one_of("tool.input", inputs), " | ".join(inputs)


# -- proposals -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Proposal:
    kind: str  # allow | narrow | quiet | disable
    rule: str
    package: str
    reason: str
    ops: list[Op]
    evidence: dict[str, Any]
    condition: str | None = None
    # The package whose files change: the rule's own, or for a rule of a bundled package, the
    # project's own package, given an `exceptions:` entry (`OWN` until suggest() knows it).
    edits: str = ""
    diff: str = ""
    files: dict[str, str] = field(default_factory=dict)  # relative path → proposed text
    backtest: dict[str, Any] = field(default_factory=dict)

    def document(self, number: int) -> dict[str, Any]:
        return {
            "id": number,
            "kind": self.kind,
            "rule": self.rule,
            "package": self.package,
            "edits": self.edits,
            "reason": self.reason,
            "condition": self.condition,
            "diff": self.diff,
            "evidence": self.evidence,
            "backtest": self.backtest,
        }


def iso(value: Any) -> str | None:
    return value.isoformat(sep=" ", timespec="seconds") if value is not None else None


def _evidence(consents: list[Consent], declined: int = 0) -> dict[str, Any]:
    seen: dict[str, int] = {}
    for c in consents:
        seen[c.seen] = seen.get(c.seen, 0) + 1
    return {
        "events": [c.event_id for c in consents],
        "count": len(consents),
        "sessions": len({(c.harness, c.session_id) for c in consents}),
        "first": iso(min(c.ts for c in consents)),
        "last": iso(max(c.ts for c in consents)),
        "approved": sum(c.how == "approved" for c in consents),
        "allowed": sum(c.how == "allowed" for c in consents),
        "seen": seen,  # where each was seen: post event | transcript | style allow
        "declined": declined,  # calls of the same kind refused at the prompt (transcript)
        "calls": sorted({c.command or c.path or c.input or "" for c in consents}),
    }


def _free_id(taken: set[str], base: str) -> str:
    n, candidate = 1, base
    while candidate in taken:
        n += 1
        candidate = f"{base}-{n}"
    taken.add(candidate)
    return candidate


CallGroup = tuple[str, str, tuple[str, ...]]  # rule, tool, the calls' group (call_group)


def consent_proposals(
    history: History, min_calls: int, notes: list[str], bundled: set[str]
) -> list[Proposal]:
    """Allow and narrow proposals; for a rule of a `bundled` package, an `exceptions:` entry in
    the project's own package instead of an edit of the bundled file."""
    groups, refused = _consent_groups(history, notes)
    taken = {f.local_id for f in history.rules.values()}
    out = []
    for (rule_id, tool, key), found in groups.items():
        declined = refused.get((rule_id, tool, key), 0)
        facts = history.rules.get(rule_id)
        if len(found) < min_calls or facts is None:
            continue
        if facts.package == SELF_PROTECT:
            continue  # approvals come from the person; self-protection is never relaxed
        condition, described = condition_for(key, found)
        approved = sum(c.how == "approved" for c in found)
        how = (
            f"approved {approved} time(s)"
            if approved
            else f"let through with `style allow` {len(found)} time(s)"
        )
        sessions = len({(c.harness, c.session_id) for c in found})
        reason = f"{described}: {how} in {sessions} session(s)"
        evidence = _evidence(found, declined)
        if facts.package in bundled:
            entry = (
                ("rule", patch.scalar(rule_id, quoted=False)),
                ("unless", patch.scalar(condition)),
                ("reason", patch.scalar(f"The user {how} (style suggest).")),
            )
            ops = [Op("except", fields=entry)]
            out.append(
                Proposal(
                    "narrow", rule_id, facts.package, reason, ops, evidence, condition, edits=OWN
                )
            )
            continue
        # A bundled guard is `fail: closed` so that a broken STYLE refuses; the team's own
        # exception, with its reason, does not weaken that. A team's own rule says it itself.
        if facts.fail == "closed":
            notes.append(
                f"{rule_id}: {len(found)} call(s) let through, but the rule is `fail: closed` "
                "(a refusal that must stand): no proposal"
            )
            continue
        ops = [Op("exception", facts.local_id, value=condition)]
        allow = _allow_rule(facts, tool, condition, approved, taken)
        if allow is not None:
            ops.append(allow)
        kind = "narrow" if allow is None else "allow"
        out.append(Proposal(kind, rule_id, facts.package, reason, ops, evidence, condition))
    return out


def _consent_groups(
    history: History, notes: list[str]
) -> tuple[dict[CallGroup, list[Consent]], dict[CallGroup, int]]:
    """The calls let through by rule, tool and group of calls, and how many of each group the
    person refused at the prompt; calls stored without their input are only counted in a
    note."""
    groups: dict[CallGroup, list[Consent]] = {}
    unnamed = 0
    for c in history.consents:
        key = call_group(c)
        if key is None:
            unnamed += 1
            continue
        groups.setdefault((c.rule_id, c.tool or "", key), []).append(c)
    refused: dict[CallGroup, int] = {}
    for c in history.declined:
        key = call_group(c)
        if key is not None:
            group = (c.rule_id, c.tool or "", key)
            refused[group] = refused.get(group, 0) + 1
    if unnamed:
        notes.append(
            f"{unnamed} approved or allowed call(s) were stored without their input "
            "(`log: off`): nothing can name them"
        )
    return groups, refused


def _allow_rule(
    facts: RuleFacts, tool: str, condition: str, approved: int, taken: set[str]
) -> Op | None:
    """The rule an `ask` rule's approved calls propose beside the exception: one that allows
    them outright, so they are not asked about again (None: not for this rule, or a rule in
    a single file)."""
    single_file = not Path(facts.source).is_dir()
    if facts.action != "ask" or not approved or facts.target != "tool" or not tool or single_file:
        return None
    base = "allow-" + facts.local_id.replace("/", "-")
    return Op(
        "append",
        fields=(
            ("id", patch.scalar(_free_id(taken, base), quoted=False)),
            ("target", "tool"),
            ("tool", patch.scalar(tool, quoted=False)),
            ("action", "allow"),
            ("when", patch.scalar(condition)),
            (
                "text",
                patch.scalar(
                    f"The user approved this call {approved} time(s) when "
                    f"{facts.rule_id} asked (style suggest)."
                ),
            ),
        ),
    )


def noise_proposals(history: History) -> list[Proposal]:
    out = []
    for row in history.report:
        facts = history.rules.get(str(row["rule"]))
        flags = str(row["flag"] or "").split(",")
        if facts is None or "noisy" not in flags or facts.package == SELF_PROTECT:
            continue
        if facts.action not in ("warn", "inject") or facts.repeat not in ("every", "turn"):
            continue
        fired = history.hits.get(facts.rule_id, {})
        out.append(
            Proposal(
                "quiet",
                facts.rule_id,
                facts.package,
                f"fires on {row['fired']} of its {row['candidates']} candidate events "
                f"(repeat: {facts.repeat}): say it once a session",
                [Op("set", facts.local_id, key="repeat", value="session")],
                {
                    "events": list(fired.get("events") or []),
                    "count": int(row["fired"]),
                    "candidates": int(row["candidates"]),
                    "sessions": int(fired.get("sessions") or 0),
                    "first": iso(fired.get("first_ts")),
                    "last": iso(fired.get("last_ts")),
                },
            )
        )
    return out


def dead_proposals(history: History, sessions: int) -> list[Proposal]:
    out = []
    for row in history.dead:
        facts = history.rules.get(str(row["rule"]))
        if facts is None:
            continue
        out.append(
            Proposal(
                "disable",
                facts.rule_id,
                facts.package,
                f"never fired in the last {row['sessions']} session(s) of its harness(es) "
                f"({row['events']} events)",
                [Op("set", facts.local_id, key="enabled", value="false")],
                {
                    "events": [],
                    "count": 0,
                    "sessions": int(row["sessions"]),
                    "session_events": int(row["events"]),
                    "first": iso(row["first_ts"]),
                    "last": iso(row["last_ts"]),
                },
            )
        )
    return out


# -- the backtest ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Backtester:
    """Replays of the installed policy (once per harness) and of proposed ones."""

    root: Path
    packages: list[str]
    settings: dict[str, dict[str, Any]]
    recorded: list[Recorded]
    harnesses: list[str]
    baselines: dict[str, Replayed] = field(default_factory=dict)

    def _replayed(self, packages: list[str], harness: str) -> Replayed:
        with plan_packages(harness, self.root) as builtin:
            policy: Policy = load_policy(packages + builtin, harness, self.settings)
        try:
            return replay(policy, self.recorded, examples=0)
        finally:
            policy.close()

    def baseline(self, harness: str) -> Replayed:
        if harness not in self.baselines:
            self.baselines[harness] = self._replayed(self.packages, harness)
        return self.baselines[harness]

    def run(self, swap: dict[str, str], rules: set[str], added: list[str]) -> dict[str, Any]:
        """What changes when the packages in `swap` (installed path → proposed copy) replace
        the installed ones, and those `added` are installed beside them: per event the verdict,
        and the outcomes of `rules`."""
        proposed = [swap.get(str(Path(p).resolve()), p) for p in self.packages] + added
        evaluated = changed = 0
        changes: dict[str, int] = {}
        outcomes: dict[str, int] = {}
        for harness in self.harnesses:
            before = self.baseline(harness)
            after = self._replayed(proposed, harness)
            for i, verdict in enumerate(before.verdicts):
                if verdict is None:
                    continue
                evaluated += 1
                moved = False
                new = after.verdicts[i] or "none"
                if new != verdict:
                    key = f"{verdict}->{new}"
                    changes[key] = changes.get(key, 0) + 1
                    moved = True
                for rule in sorted(rules):
                    b = before.outcomes[i].get(rule, "none")
                    a = after.outcomes[i].get(rule, "none")
                    if a != b:
                        key = f"{b}->{a}"
                        outcomes[key] = outcomes.get(key, 0) + 1
                        moved = True
                changed += moved
        return {
            "evaluated": evaluated,
            "changed": changed,
            "changes": changes,
            "outcomes": outcomes,
        }


def summary_line(backtest: dict[str, Any]) -> str:
    """`would have changed 37 of 1,204 events: 37 asks become allows`"""
    ev, ch = backtest["evaluated"], backtest["changed"]
    parts = [
        f"{n} {a} → {b}" for key, n in backtest["changes"].items() for a, b in [key.split("->")]
    ]
    parts += [
        f"{n} outcome(s) {a} → {b}"
        for key, n in backtest["outcomes"].items()
        for a, b in [key.split("->")]
    ]
    tail = f": {', '.join(parts)}" if parts else ""
    return f"would have changed {ch:,} of {ev:,} events{tail}"


# -- the whole -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Suggestions:
    history: History
    proposals: list[Proposal]
    notes: list[str]
    sessions: int
    min_calls: int
    packages: dict[str, str]  # package name → installed source (or where suggest creates it)
    own: OwnPackage


@contextmanager
def _scratch() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="style-suggest-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def suggest(
    root: Path,
    *,
    sessions: int = SESSIONS,
    min_calls: int = MIN_CALLS,
    min_events: int = 20,
    package: str | None = None,
) -> Suggestions:
    history = read_history(root, sessions=sessions, min_events=min_events)
    lockfile = StylePaths(root).lockfile
    lock = read_lock(lockfile)
    if not lock.packages:
        raise StyleError(f"no installed packages in {lockfile}: nothing to propose changes to")
    packages, settings = installed_packages(root)
    sources = {f.package: f.source for f in history.rules.values() if f.package != SELF_PROTECT}
    if package is not None and package not in sources:
        known = ", ".join(sorted(sources)) or "none"
        raise StyleError(f"no installed package `{package}` (installed: {known})")
    notes: list[str] = []
    if history.bare:
        notes.append(
            f"{history.bare:,} of {history.events:,} events were stored without their fields "
            "(`log: hits` keeps them only where a rule matched): the backtest replays them "
            "without their content"
        )
    notes.extend(history.unseen)
    bundled = {name for name, src in sources.items() if is_bundled(src)}
    own = own_package(root, lock.packages, bundled)
    found = (
        consent_proposals(history, min_calls, notes, bundled)
        + noise_proposals(history)
        + dead_proposals(history, sessions)
    )
    if package is not None:
        found = [p for p in found if p.package == package]
    order = {rule: i for i, rule in enumerate(history.rules)}
    found.sort(
        key=lambda p: (
            KINDS.index(p.kind),
            order.get(p.rule, len(order)),
            p.evidence["first"] or "",
        )
    )
    harnesses = [h for h in history.harnesses if h in lock.harnesses]
    tester = Backtester(root, packages, settings, merge(history.streams), harnesses)
    kept = []
    edited = dict(sources)
    if any(p.edits == OWN for p in found):
        edited[own.name] = str(own.source)
        if own.new:
            notes.append(own.note)
    with _scratch() as scratch:
        for n, proposal in enumerate(found, 1):
            proposal.edits = own.name if proposal.edits == OWN else proposal.package
            source = Path(edited[proposal.edits])
            if not source.exists():
                notes.append(
                    f"{proposal.rule}: its package is no longer at {source}; nothing proposed"
                )
                continue
            seed = {"STYLE.yaml": own.manifest} if proposal.edits == own.name and own.new else {}
            files = apply_ops(source, proposal.ops, seed)
            if files is None:
                notes.append(
                    f"{proposal.rule}: a {proposal.kind} proposal, but its file is written in "
                    "a form suggest does not edit (a flow mapping, or a condition set by a "
                    "`from` entry)"
                )
                continue
            copy = write_copy(source, files, scratch / str(n) / source.name)
            errors = problems(copy)
            if errors:
                notes.append(f"{proposal.rule}: the proposed edit does not validate: {errors[0]}")
                continue
            proposal.files = files
            proposal.diff = unified_diff(source, files)
            swap = {str(source.resolve()): str(copy)}
            added = [str(copy)] if seed else []
            proposal.backtest = tester.run(swap, {proposal.rule}, added)
            if proposal.kind in ("allow", "narrow") and not proposal.backtest["changes"]:
                notes.append(
                    f"{proposal.rule}: the {proposal.kind} proposal would change no recorded "
                    "verdict (the rule's condition may come from elsewhere); left out"
                )
                continue
            kept.append(proposal)
    return Suggestions(history, kept, notes, sessions, min_calls, edited, own)


def write_proposals(result: Suggestions, dest: Path) -> list[tuple[Path, list[int]]]:
    """Each package with proposals copied under `dest/<name>/` with all of them applied; the
    live packages are never written. Returns what was written and which proposals it holds."""
    where = dest.resolve()
    for name, installed in sorted(result.packages.items()):
        if name == result.own.name and result.own.new:
            continue  # not installed yet: nothing of it to overwrite
        folder = Path(installed).resolve()
        folder = folder if folder.is_dir() else folder.parent
        if where == folder or folder in where.parents:
            raise StyleError(
                f"--write {dest} is inside the installed package `{name}` ({folder}); "
                "give a folder outside it"
            )
    by_package: dict[str, list[int]] = {}
    for n, p in enumerate(result.proposals, 1):
        by_package.setdefault(p.edits, []).append(n)
    planned = []
    for name, numbers in by_package.items():
        source = Path(result.packages[name])
        new = name == result.own.name and result.own.new
        target = dest / (name if new else source.name if source.is_dir() else source.stem)
        if target.exists():
            raise StyleError(f"{target} already exists; give --write a new or empty folder")
        ops = [op for n in numbers for op in result.proposals[n - 1].ops]
        files = apply_ops(source, ops, {"STYLE.yaml": result.own.manifest} if new else {})
        if files is None:
            raise StyleError(f"the proposals for `{name}` cannot be applied together")
        planned.append((name, source, target, files, numbers))
    # Every copy is made and validated in a scratch folder first, so a failure leaves
    # nothing half-written under `dest`.
    written = []
    with _scratch() as scratch:
        staged = []
        for name, source, target, files, numbers in planned:
            path = write_copy(source, files, scratch / target.name)
            errors = problems(path)
            if errors:
                raise StyleError(
                    f"the proposals for `{name}` together do not validate: {errors[0]}"
                )
            staged.append((scratch / target.name, target, path, numbers))
        dest.mkdir(parents=True, exist_ok=True)
        for folder, target, path, numbers in staged:
            shutil.copytree(folder, target)
            written.append((target / path.relative_to(folder), numbers))
    return written
