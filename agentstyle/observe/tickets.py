"""Due checks handed from the hook that found them to the runner that runs them.

The hook answers at once: it writes one ticket per due check (the event's payload and the
check) into `<.style>/checks/due/`, named after the event's identity (the same for every STYLE
handler of one event: evaluator/answered.py) and the rule. A runner takes a ticket by renaming
it, so of two runners one gets it. Standard library only."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from agentstyle import folders

FOLDER = ("checks", "due")
_TAKEN = ".taken"
# A ticket no runner took in this long never will be (its client ended first): dropped.
STALE_S = 3600.0


def folder(home: Path) -> Path:
    return home.joinpath(*FOLDER)


def prefix_of(identity: str) -> str:
    return folders.digest_of(identity)


def write(home: Path, identity: str, rule_id: str, ticket: dict[str, Any]) -> str:
    """Write one ticket whole (a runner never reads half of one); its path."""
    where = folder(home)
    where.mkdir(parents=True, exist_ok=True)
    _prune(where)
    path = where / f"{prefix_of(identity)}-{folders.digest_of(rule_id)}.json"
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(ticket, fh, ensure_ascii=False)
    os.replace(tmp, path)
    return str(path)


def _prune(where: Path) -> None:
    now = time.time()
    try:
        with os.scandir(where) as entries:
            for e in entries:
                try:
                    if now - e.stat(follow_symlinks=False).st_mtime > STALE_S:
                        os.unlink(e.path)
                except OSError:
                    continue
    except OSError:
        return


def take(path: str) -> dict[str, Any] | None:
    """The ticket at `path`, now this process's alone; None when another took it first or it
    cannot be read."""
    mine = f"{path}{_TAKEN}.{os.getpid()}"
    try:
        os.rename(path, mine)
    except OSError:
        return None
    try:
        with open(mine, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        data = None
    finally:
        try:  # noqa: SIM105 - contextlib is one import more
            os.unlink(mine)
        except OSError:
            pass
    return data if isinstance(data, dict) else None


def _whole(name: str) -> bool:
    return name.endswith(".json")


def wait_for(home: Path, identity: str, wait_s: float) -> list[str]:
    """The tickets the hook wrote for this event, waited for up to `wait_s` (the client starts
    its background hook beside the one that decides): their paths, or none."""
    where, prefix = folder(home), prefix_of(identity) + "-"
    until = time.monotonic() + wait_s
    while True:
        try:
            found = sorted(
                str(where / n)
                for n in os.listdir(where)
                if n.startswith(prefix) and n.endswith(".json")
            )
        except OSError:
            found = []
        if found or time.monotonic() >= until:
            return found
        time.sleep(0.05)
