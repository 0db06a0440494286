"""`style audit coverage` (docs/audit.md#coverage): the tool calls STYLE never saw.

A hook that never fires looks exactly like one that fired and allowed. The harness keeps its own
record of every tool call (its transcript), and STYLE keeps one of every hook event it answered
(the `events` table): this module joins the two. For each session a transcript shows (found
where each client keeps them for this project, or named with `--transcripts`) and each session
STYLE recorded (its transcript looked up where its client writes it), every tool call is matched
to the recorded events: by the call id where the harness gives hooks one (Claude Code's and
Codex's `tool_use_id`), else by session, tool and order. A call is due at a tool event where a
STYLE handler takes its tool, as installed or as the installed policy needs (a call no handler
is due for is unguarded: no rule needs to see it). A due call with no matching event is unseen;
its likely cause is told from the installed hook config (no handler there takes the tool, though
the policy needs one), the transcript (the notice a handler gives where `style-hook` is not on
PATH), `.style/logs/errors.log` (a handler failure at that moment) and the session (no STYLE
event at all: the client ran no hook).
"""

from __future__ import annotations

import datetime as dt
import glob
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentstyle.audit.report import Filters, define_window
from agentstyle.audit.rows import CoverageEventRow, CoverageSessionRow, FirstEventRow
from agentstyle.audit.transcripts import ToolCall, formats, tool_calls, transcript_harness
from agentstyle.evaluator.statements import read_rows
from agentstyle.evaluator.store import Connection
from agentstyle.folders import read_regular_text, regular_lines
from agentstyle.harnesses.facts import spec_for
from agentstyle.harnesses.transcripts import written

# Causes, most certain first (docs/audit.md#coverage).
NO_HOOK = "no-hook"
HOOKS_SKIPPED = "hooks-skipped"
NOT_ON_PATH = "style-not-on-path"
HANDLER_FAILED = "handler-failed"
NOT_RECORDED = "not-recorded"
CAUSE_TEXT = {
    NO_HOOK: "no STYLE handler in the installed config takes this tool at this event",
    HOOKS_SKIPPED: (
        "the client ran no STYLE hook in this session (hooks off or not trusted: "
        "`claude --bare`, `codex exec` without hook trust, another config)"
    ),
    NOT_ON_PATH: "the handler found no `style-hook` on PATH (STYLE not installed there)",
    HANDLER_FAILED: "the handler failed at that moment (see .style/logs/errors.log)",
    NOT_RECORDED: "the hook ran or not, STYLE has no record of it",
}
ERROR_SLACK_S = 10.0  # how far an errors.log line may be from the call it explains
# A session's counts, as both the text table and the JSON rows have them; then its unseen calls:
# their number and causes in the table, the calls themselves in JSON.
COUNTS = ("session", "harness", "transcript", "tool_calls", "seen", "unguarded")
COLUMNS = (*COUNTS, "unseen", "causes")


@dataclass(frozen=True, slots=True)
class Unseen:
    tool: str
    event: str
    time: str
    cause: str

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "event": self.event, "time": self.time, "cause": self.cause}


@dataclass(slots=True)
class SessionCoverage:
    session: str
    harness: str
    transcript: str | None
    tool_calls: int | None  # None: no transcript found for a recorded session
    seen: int | None
    recorded_events: int
    unseen: list[Unseen] = field(default_factory=list)
    unguarded: int | None = None  # calls no STYLE handler was due for (no rule needs them)

    @property
    def wholly_unseen(self) -> bool:
        return bool(self.tool_calls) and self.recorded_events == 0

    def counts(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in COUNTS}

    def to_json(self) -> dict[str, Any]:
        unseen = [u.to_json() for u in self.unseen]
        return {**self.counts(), "unseen": unseen, "wholly_unseen": self.wholly_unseen}

    def row(self) -> dict[str, Any]:
        causes: dict[str, int] = {}
        for u in self.unseen:
            causes[u.cause] = causes.get(u.cause, 0) + 1
        return {
            **self.counts(),
            "unseen": len(self.unseen),
            "causes": ", ".join(f"{c} ×{n}" for c, n in causes.items()),
        }


@dataclass(frozen=True, slots=True)
class Installed:
    """STYLE's tool-event handlers as one harness's installed config has them: native event →
    the matchers of STYLE's groups for it (None: every tool)."""

    harness: str
    config: str
    handlers: dict[str, list[str | None]]
    readable: bool = True
    written: float = 0.0  # when the config was last written (seconds since the epoch)
    # the same for the handlers the installed policy needs (what `style sync` would write)
    expected: dict[str, list[str | None]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StyleEvent:
    """One hook event STYLE recorded for a session's tool call (sql/audit/coverage_events)."""

    native_event: str
    point: str | None
    tool: str | None
    call_id: str | None
    ts: float
    verdict: str | None


# -- where each client keeps its transcripts (its adapter's `TranscriptFormat`) ------------------


def discover(home: Path, root: Path, harnesses: Iterable[str], since: float = 0.0) -> list[Path]:
    """The transcripts each installed client keeps of sessions run in this project, written
    at or after `since` (a file last written before holds no call after)."""
    names = set(harnesses)
    out = [p for f in formats() if f.harness in names for p in f.files(home, root, since)]
    return [p for p in out if written(p) >= since]


def transcript_of(home: Path, harness: str, session: str, cwd: str | None) -> Path | None:
    """Where a recorded session's transcript is, by its client's conventions."""
    fmt = next((f for f in formats() if f.harness == harness), None)
    return fmt.of_session(home, session, cwd) if fmt is not None else None


def expand(patterns: Iterable[str]) -> list[Path]:
    """The files `--transcripts` globs name (`~` expanded; a folder stands for its files)."""
    out: list[Path] = []
    for pattern in patterns:
        for name in sorted(glob.glob(os.path.expanduser(pattern), recursive=True)):
            path = Path(name)
            if path.is_dir():
                out.extend(sorted(p for p in path.rglob("*") if p.suffix in (".jsonl", ".json")))
            else:
                out.append(path)
    return out


# -- the installed hook configs --------------------------------------------------------------------


def installed_handlers(root: Path, conn: Connection) -> dict[str, Installed]:
    """Per harness of `style.lock.yaml`: STYLE's handlers for its tool events as installed, and
    as the installed policy needs them."""
    from agentstyle.doctor.checks import read_policy
    from agentstyle.evaluator.paths import StylePaths
    from agentstyle.harnesses import adapter_for
    from agentstyle.install.filechanges import relative
    from agentstyle.install.handlers import handler_groups
    from agentstyle.install.install import config_file, is_ours
    from agentstyle.install.lockfile import read_lock

    try:
        lock = read_lock(StylePaths(root).lockfile)
    except Exception:  # no lock: nothing installed here that a call could have missed
        return {}
    try:
        entries = read_policy(conn, sorted(lock.harnesses)).entries
    except Exception:  # a policy that cannot be read: the installed config alone decides
        entries = []
    out: dict[str, Installed] = {}
    for name, h in lock.harnesses.items():
        adapter = adapter_for(name)
        spec = spec_for(name)
        tool_events = [
            e.native_event
            for e in (spec.points.get(p) for p in ("tool.pre", "tool.post"))
            if e is not None
        ]
        planned = handler_groups(entries, name, h.fail_closed, h.scope) if entries else {}
        expected = {e: _matchers(planned.get(e, [])) for e in tool_events}
        try:
            path = config_file(root, h.scope, name)
            text = read_regular_text(path)
            if text is None:  # missing, or no regular file (a FIFO never holds the reader)
                raise OSError
            found = adapter.installed_handlers(text, is_ours, str(path))
        except Exception:
            out[name] = Installed(name, "", {}, readable=False, expected=expected)
            continue
        handlers = {e: _matchers(found.get(e, [])) for e in tool_events}
        out[name] = Installed(
            name, relative(root, path), handlers, written=_mtime(path), expected=expected
        )
    return out


def _matchers(groups: list[dict[str, Any]]) -> list[str | None]:
    return [m if isinstance(m := g.get("matcher"), str) else None for g in groups]


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def takes(matchers: list[str | None], tool: str) -> bool:
    from agentstyle.policy.plan import matcher_accepts

    return any(matcher_accepts(m, tool) for m in matchers)


# -- the join --------------------------------------------------------------------------------------


def _stamp(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if ts else ""


def _naive(ts: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(ts, dt.UTC).replace(tzinfo=None)


def _in_window(ts: float, filters: Filters) -> bool:
    if not ts:
        return filters.since is None and filters.until is None
    moment = _naive(ts)
    if filters.since is not None and moment < filters.since:
        return False
    return filters.until is None or moment < filters.until


def _recorded(conn: Connection, sessions: list[str]) -> dict[tuple[str, str], list[StyleEvent]]:
    out: dict[tuple[str, str], list[StyleEvent]] = {}
    if not sessions:
        return out
    rows = read_rows(conn, "audit/coverage_events", CoverageEventRow, {"sessions": sessions})
    for r in rows:
        stamp = r.ts.replace(tzinfo=dt.UTC).timestamp() if r.ts is not None else 0.0
        out.setdefault((str(r.harness), str(r.session)), []).append(
            StyleEvent(str(r.native_event), r.point, r.native_tool, r.call_id, stamp, r.verdict)
        )
    return out


def _due(
    event: str | None, tool: str, installed: Installed | None, recorded: list[StyleEvent]
) -> bool:
    """Whether a call of `tool` should have reached STYLE at `event`: a STYLE handler takes it
    there, as installed or as the installed policy needs. A call no rule needs to see is not
    missed (a policy without a rule on `Read` installs no handler for it)."""
    if event is None:
        return False
    if installed is None:  # a harness not installed here: only what its record shows
        return any(r.native_event == event for r in recorded)
    return takes(installed.handlers.get(event, []), tool) or takes(
        installed.expected.get(event, []), tool
    )


def _refused(hit: StyleEvent | None) -> bool:
    """STYLE refused (or asked about) the call at its gate: it never ran, no post hook is due."""
    return hit is not None and hit.verdict in ("block", "ask")


def _match(
    calls: list[ToolCall], recorded: list[StyleEvent], native_event: str, points: tuple[str, ...]
) -> list[StyleEvent | None]:
    """Each call's recorded event at `native_event`: by call id, else the n-th event of that
    tool for the n-th call of it."""
    events = [r for r in recorded if r.native_event == native_event or r.point in points]
    by_id = {r.call_id: r for r in events if r.call_id}
    queues: dict[str, list[StyleEvent]] = {}
    for r in events:
        if not r.call_id:
            queues.setdefault(str(r.tool), []).append(r)
    out: list[StyleEvent | None] = []
    for call in calls:
        hit = by_id.get(call.call_id) if call.call_id else None
        if hit is None:
            queue = queues.get(call.tool, [])
            hit = queue.pop(0) if queue else None
        out.append(hit)
    return out


def _cause(
    call: ToolCall,
    event: str,
    installed: Installed | None,
    session_events: int,
    missing_notice: bool,
    errors: list[tuple[float, str]],
) -> str:
    if installed is None:
        return NO_HOOK  # STYLE is not installed for this harness here
    if installed.readable and not takes(installed.handlers.get(event, []), call.tool):
        return NO_HOOK
    if missing_notice:
        return NOT_ON_PATH
    if any(abs(when - call.ts) <= ERROR_SLACK_S for when, _e in errors):
        return HANDLER_FAILED
    if session_events == 0:
        return HOOKS_SKIPPED
    return NOT_RECORDED


def _mentions_missing(path: str) -> bool:
    """Whether the transcript holds the notice a portable handler answers where `style-hook` is
    not on PATH (agentstyle/install/hookcommand.py MISSING): Claude Code keeps a hook's output
    in `attachment` records (`hook_success`, with `stdout`). The handler's `command`, which
    Claude Code keeps beside it, spells the notice out too: it is not read."""
    from agentstyle.install.hookcommand import MISSING

    for line in regular_lines(path):
        if MISSING not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if _holds(record, MISSING):
            return True
    return False


def _holds(value: Any, text: str) -> bool:
    if isinstance(value, str):
        return text in value
    if isinstance(value, dict):
        return any(_holds(v, text) for k, v in value.items() if k != "command")
    if isinstance(value, list):
        return any(_holds(v, text) for v in value)
    return False


@dataclass(slots=True)
class Coverage:
    """The report: its sessions (unseen first), and what it left out and why."""

    sessions: list[SessionCoverage]
    covered_since: float | None  # STYLE's first sign of life here: calls before it not counted
    before_install: int = 0  # sessions whose calls were all before `covered_since`
    notes: list[str] = field(default_factory=list)


def covered_since(conn: Connection, configs: dict[str, Installed]) -> float | None:
    """When STYLE was first here: its first recorded event or the earliest installed config
    write, whichever came first (None: neither is known)."""
    rows = read_rows(conn, "audit/coverage_since", FirstEventRow)
    first = rows[0].first_event if rows else None
    moments = [c.written for c in configs.values() if c.written]
    if first is not None:
        moments.append(first.replace(tzinfo=dt.UTC).timestamp())
    return min(moments) if moments else None


def coverage(
    conn: Connection,
    root: Path,
    filters: Filters,
    *,
    home: Path | None = None,
    extra: Iterable[str] = (),
) -> Coverage:
    """Every session of the window, transcripts joined with STYLE's record, unseen first."""
    from agentstyle.evaluator.paths import StylePaths
    from agentstyle.runtime import errorlog

    home = home or Path.home()
    configs = installed_handlers(root, conn)
    harnesses = set(configs) or {f.harness for f in formats()}
    since = covered_since(conn, configs)
    define_window(conn)
    rows = read_rows(conn, "audit/coverage_sessions", CoverageSessionRow, filters.params())
    known = {(str(r.harness), str(r.session)): r.cwd for r in rows}
    notes: list[str] = []
    window_start = filters.since.replace(tzinfo=dt.UTC).timestamp() if filters.since else 0.0
    files, asked = _transcript_files(
        home, root, harnesses, max(window_start, since or 0.0), extra, known, notes
    )
    calls = _read_calls(files, root, asked, filters, since, notes)
    keys = set(calls.by_session) | set(known)
    recorded = _recorded(conn, sorted({s for _h, s in keys}))
    error_entries = errorlog.read(StylePaths(root).error_log, 0.0)
    out: list[SessionCoverage] = []
    for key in sorted(keys):
        harness, session = key
        events = recorded.get(key, [])
        transcript = calls.transcripts.get(key)
        if transcript is None:
            out.append(SessionCoverage(session, harness, None, None, None, len(events)))
            continue
        errors = [(e.when, e.event) for e in error_entries if e.harness == harness]
        session_calls = sorted(calls.by_session.get(key, []), key=lambda c: c.ts)
        installed = configs.get(harness)
        out.append(_join(key, transcript, session_calls, events, installed, errors))
    out.sort(
        key=lambda s: (not (s.unseen or s.wholly_unseen), -len(s.unseen), s.harness, s.session)
    )
    before = len(calls.early - set(calls.by_session) - set(known))
    return Coverage(out, since, before, notes)


def _transcript_files(
    home: Path,
    root: Path,
    harnesses: set[str],
    since: float,
    extra: Iterable[str],
    known: dict[tuple[str, str], str | None],
    notes: list[str],
) -> tuple[list[Path], set[str]]:
    """The transcripts to read, each once: those the clients keep of this project's sessions
    since `since`, those `--transcripts` names (the second part: their names, so a file that
    is no transcript can be told), and those of the sessions STYLE recorded."""
    files: dict[str, Path] = {}
    for path in discover(home, root, harnesses, since):
        files.setdefault(str(path), path)
    asked: set[str] = set()
    for pattern in extra:
        named = expand([pattern])
        if not named:
            notes.append(f"--transcripts {pattern}: no file matches")
        for path in named:
            files.setdefault(str(path), path)
            asked.add(str(path))
    for (harness, session), cwd in known.items():
        found = transcript_of(home, harness, session, cwd)
        if found is not None:
            files.setdefault(str(found), found)
    return list(files.values()), asked


@dataclass(slots=True)
class _Calls:
    """The transcripts' tool calls by (harness, session), within the window and the filters."""

    by_session: dict[tuple[str, str], list[ToolCall]] = field(default_factory=dict)
    transcripts: dict[tuple[str, str], str] = field(default_factory=dict)
    early: set[tuple[str, str]] = field(default_factory=set)  # calls from before STYLE was here


def _read_calls(
    files: list[Path],
    root: Path,
    asked: set[str],
    filters: Filters,
    since: float | None,
    notes: list[str],
) -> _Calls:
    """The tool calls of `files` by session; a file `--transcripts` named that no client
    wrote is a note."""
    out = _Calls()
    titles = [spec_for(f.harness).title for f in formats()]
    kinds = "a " + " or ".join(filter(None, (", ".join(titles[:-1]), titles[-1])))
    for path in files:
        harness = transcript_harness(path)
        if harness is None:
            if str(path) in asked:
                notes.append(f"{path}: not {kinds} transcript; skipped")
            continue
        for call in tool_calls(path, root, harness):
            key = (call.harness, call.session_id)
            if filters.harness is not None and call.harness != filters.harness:
                continue
            if filters.session is not None and call.session_id != filters.session:
                continue
            out.transcripts.setdefault(key, call.transcript)
            if not _in_window(call.ts, filters):
                continue
            if since is not None and call.ts and call.ts < since:
                out.early.add(key)  # before STYLE was here: not a call it missed
                continue
            out.by_session.setdefault(key, []).append(call)
    return out


def _join(
    key: tuple[str, str],
    transcript: str,
    calls: list[ToolCall],
    events: list[StyleEvent],
    installed: Installed | None,
    errors: list[tuple[float, str]],
) -> SessionCoverage:
    """One session's calls (`key`: harness, session) matched to its recorded events at the
    tool gate and after the call."""
    harness, session = key
    spec = spec_for(harness)
    pre_spec, post_spec = spec.points.get("tool.pre"), spec.points.get("tool.post")
    pre = pre_spec.native_event if pre_spec is not None else None
    post = post_spec.native_event if post_spec is not None else None
    if installed is None and not events:
        pre_due = list(calls)  # STYLE is not installed for this harness: nothing was seen
    else:
        pre_due = [c for c in calls if _due(pre, c.tool, installed, events)]
    pre_hits: dict[int, StyleEvent | None] = {}
    if pre is not None:
        pre_hits = dict(
            zip(map(id, pre_due), _match(pre_due, events, pre, ("tool.pre",)), strict=True)
        )
    post_due = [
        c
        for c in calls
        if c.finished
        and _due(post, c.tool, installed, events)
        and not _refused(pre_hits.get(id(c)))
    ]
    post_hits: dict[int, StyleEvent | None] = {}
    if post is not None:
        matched = _match(post_due, events, post, ("tool.post", "tool.failed"))
        post_hits = dict(zip(map(id, post_due), matched, strict=True))
    missing = _mentions_missing(transcript)
    unseen: list[Unseen] = []
    seen = unguarded = 0
    for call in calls:
        if id(call) not in pre_hits and id(call) not in post_hits:
            unguarded += 1
            continue
        misses = [
            event
            for event, hits in ((pre, pre_hits), (post, post_hits))
            if event is not None and id(call) in hits and hits[id(call)] is None
        ]
        for event in misses:
            cause = _cause(call, event, installed, len(events), missing, errors)
            unseen.append(Unseen(call.tool, event, _stamp(call.ts), cause))
        seen += not misses
    return SessionCoverage(
        session, harness, transcript, len(calls), seen, len(events), unseen, unguarded
    )


# -- output ----------------------------------------------------------------------------------------


def document(found: Coverage, filters: Filters) -> dict[str, Any]:
    """The one JSON document of the report (the shape every report has; a row per session)."""
    return {
        "report": "coverage",
        "source": "database",
        "filters": filters.describe(),
        "columns": [*COUNTS, "unseen"],
        "rows": [s.to_json() for s in found.sessions],
        "totals": totals_of(found),
        "covered_since": _stamp(found.covered_since) if found.covered_since else None,
        "notes": found.notes,
    }


def totals_of(found: Coverage) -> dict[str, int]:
    sessions = found.sessions
    return {
        "sessions": len(sessions),
        "tool_calls": sum(s.tool_calls or 0 for s in sessions),
        "unseen_calls": sum(len({(u.tool, u.time) for u in s.unseen}) for s in sessions),
        # a wholly unseen session counts whatever its tools: its session and prompt hooks
        # did not run either
        "sessions_with_unseen": sum(1 for s in sessions if s.unseen or s.wholly_unseen),
        "wholly_unseen_sessions": sum(1 for s in sessions if s.wholly_unseen),
        "sessions_without_transcript": sum(1 for s in sessions if s.transcript is None),
        "sessions_before_install": found.before_install,
    }


def summary_line(found: Coverage, days: int | None = None) -> str | None:
    """`last 7 days: 2 sessions with 14 tool calls STYLE never saw` (None: every call seen)."""
    t = totals_of(found)
    if not t["sessions_with_unseen"]:
        return None
    when = f"last {days} days: " if days else ""
    wholly = t["wholly_unseen_sessions"]
    if not t["unseen_calls"]:
        return f"{when}{wholly} session(s) STYLE never saw at all (not one of their hooks ran)"
    return (
        f"{when}{t['sessions_with_unseen']} session(s) with {t['unseen_calls']} tool call(s) "
        "STYLE never saw" + (f" ({wholly} wholly unseen)" if wholly else "")
    )


def render_text(found: Coverage, filters: Filters) -> str:
    """The sessions table, then each unseen (session, tool, event, cause) with its count."""
    from agentstyle.audit import report

    types = ("VARCHAR", "VARCHAR", "VARCHAR", "BIGINT", "BIGINT", "BIGINT", "BIGINT", "VARCHAR")
    rows = [tuple(s.row()[c] for c in COLUMNS) for s in found.sessions]
    frame = report.frame_of(COLUMNS, types, rows)
    title = report.title_of("coverage", filters, "database")
    lines = [report.render_text(frame, title=title, color=False).rstrip("\n")]
    line = summary_line(found)
    if line is None:
        lines.append(
            "every tool call the transcripts show reached STYLE"
            if any(s.tool_calls for s in found.sessions)
            else "no transcript with a tool call found for this project"
        )
    else:
        lines.append(line + ":")
        for s in found.sessions:
            groups: dict[tuple[str, str, str], int] = {}
            for u in s.unseen:
                k = (u.tool, u.event, u.cause)
                groups[k] = groups.get(k, 0) + 1
            for (tool, event, cause), n in groups.items():
                lines.append(
                    f"  {s.harness} {s.session}: {n} × {tool} at {event}: {cause} "
                    f"({CAUSE_TEXT[cause]})"
                )
    missing = [s for s in found.sessions if s.transcript is None]
    if missing:
        lines.append(
            f"{len(missing)} recorded session(s) whose transcript was not found: name them "
            "with --transcripts GLOB"
        )
    if found.before_install:
        lines.append(
            f"{found.before_install} session(s) from before STYLE was installed here "
            f"({_stamp(found.covered_since or 0.0)}) not counted"
        )
    return "\n".join(lines) + "\n"
