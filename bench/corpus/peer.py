"""Each case through another guard's PreToolUse hook (cc-safety-net from the npm registry).

The peer is installed by `make corpus` into the git-ignored `.corpus-cache/` (`npm install
--prefix .corpus-cache cc-safety-net@VERSION`). It runs as Claude Code runs a PreToolUse hook:
one process per case, the same payload STYLE is given on stdin, the case's scratch project as
the working directory; its verdict is read from the wire (`permissionDecision` deny or ask, or
exit code 2). Its own configuration and logs go to `.corpus-cache/home/`, never to the user's
home. A node process start costs about a tenth of a second, so the answers are cached by the
peer's version, the content of its script (not its path: the cache holds in another checkout)
and the case's call (`.corpus-cache/answers-<peer>.json`): a rerun only runs the cases that
changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench.corpus.cases import ROOT, Case
from bench.corpus.guards import SCRATCH, Outcome, prepare

CACHE = ROOT / ".corpus-cache"  # git ignores it; `make corpus` installs the peer here
PACKAGE = CACHE / "node_modules" / "cc-safety-net"
TIMEOUT_S = 60.0
SAVE_EVERY = 200  # answers between two writes of the cache


@dataclass(frozen=True, slots=True)
class Peer:
    label: str  # "cc-safety-net 2.4.5", as the tables print it
    argv: tuple[str, ...]
    env: Mapping[str, str]
    ident: tuple[str, ...] = ()  # what the answers are cached by besides the label (`_ident`)


def installed() -> Peer | None:
    """cc-safety-net as `make corpus` installs it, or None when it is not there."""
    manifest = PACKAGE / "package.json"
    script = PACKAGE / "dist" / "bin" / "cc-safety-net.js"
    if not manifest.exists() or not script.exists():
        return None
    version = json.loads(manifest.read_text(encoding="utf-8")).get("version", "?")
    home = CACHE / "home"
    home.mkdir(parents=True, exist_ok=True)
    # its own home for config, audit logs and compile cache; the default (standard) level
    env = {"CC_SAFETY_NET_HOME": str(home)}
    argv = ("node", str(script), "hook", "--coding-cli")
    return Peer(f"cc-safety-net {version}", argv, env, _ident(argv))


def command(text: str) -> Peer:
    """Any other PreToolUse hook command line (`--peer 'CMD'`)."""
    argv = tuple(shlex.split(text))
    return Peer(Path(argv[0]).name if argv else "peer", argv, {}, _ident(argv))


def wire_verdict(returncode: int, stdout: str) -> str:
    """A Claude Code PreToolUse answer as block | ask | allow."""
    verdict = "block" if returncode == 2 else "allow"
    try:
        answer = json.loads(stdout or "{}")
    except ValueError:
        return verdict
    specific = answer.get("hookSpecificOutput") if isinstance(answer, dict) else None
    decision = specific.get("permissionDecision") if isinstance(specific, dict) else None
    return {"deny": "block", "ask": "ask"}.get(str(decision), verdict)


def key(peer: Peer, case: Case) -> str:
    call = [peer.label, list(peer.ident), case.tool, case.cmd, case.input, case.files]
    call.append(case.links)
    return hashlib.sha256(json.dumps(call, sort_keys=True).encode()).hexdigest()[:24]


def _ident(argv: Sequence[str]) -> tuple[str, ...]:
    """The peer's command line as the cache knows it: its script (the first word after the
    interpreter that names a file, else the program itself) by the file's content, so that
    the cache holds in any checkout, wherever it sits, and a changed script is asked again."""
    out = list(argv)
    for k in [*range(1, len(argv)), 0]:
        path = Path(argv[k])
        if path.is_absolute() and path.is_file():
            out[k] = "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
            break
    return tuple(out)


def pending(cases: Sequence[Case], peer: Peer, cache: Path | None) -> int:
    """How many of the cases have no cached answer yet (each will start a hook process)."""
    known = json.loads(cache.read_text(encoding="utf-8")) if cache and cache.exists() else {}
    return sum(1 for c in cases if key(peer, c) not in known)


def run_hook(
    cases: Sequence[Case], peer: Peer, workers: int = 2, cache: Path | None = None
) -> dict[str, Outcome]:
    """Every case through the peer's hook; case name -> outcome (answers cached when asked)."""
    known: dict[str, str] = {}
    if cache is not None and cache.exists():
        known = json.loads(cache.read_text(encoding="utf-8"))
    todo = [c for c in cases if key(peer, c) not in known]
    env = {**os.environ, **peer.env}

    def one(case: Case, root: Path) -> tuple[str, str]:
        project = prepare(case, root)
        try:
            done = subprocess.run(
                list(peer.argv),
                input=json.dumps(case.payload(str(project))),
                capture_output=True,
                text=True,
                cwd=project,
                env=env,
                timeout=TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return key(peer, case), "allow"  # a hook that never answers lets the call through
        return key(peer, case), wire_verdict(done.returncode, done.stdout)

    def save() -> None:
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(json.dumps(known, sort_keys=True, indent=0), encoding="utf-8")

    if todo:
        SCRATCH.mkdir(parents=True, exist_ok=True)
        with (
            tempfile.TemporaryDirectory(prefix="corpus-peer-", dir=SCRATCH) as tmp,
            ThreadPoolExecutor(max_workers=workers) as pool,
        ):
            for done, (k, verdict) in enumerate(pool.map(lambda c: one(c, Path(tmp)), todo), 1):
                known[k] = verdict
                if done % SAVE_EVERY == 0:
                    save()  # an interrupted first run resumes where it stopped
        save()
    return {c.name: Outcome(known[key(peer, c)], (peer.label,), ()) for c in cases}


def cache_file(peer: Peer) -> Path:
    slug = "".join(ch if ch.isalnum() or ch in ".-" else "-" for ch in peer.label)
    return CACHE / f"answers-{slug}.json"
