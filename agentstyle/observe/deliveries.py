"""A check's words kept for the session's next event, where the client has no background hook.

The runner writes what the rule said (model text, the person's notice) as one file per rule
under `<.style>/checks/deliver/<session>/` (a newer result replaces one not yet given: it was
stale); the next hook of that session whose answer can carry
it takes each file by renaming it (so it is given once, whichever hook comes first) and adds it
to its answer. Standard library only: the hook looks for the folder on every event."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentstyle import folders

FOLDER = ("checks", "deliver")


def _folder(home: Path, harness: str, session: str) -> Path:
    return home.joinpath(*FOLDER, folders.digest_of(f"{harness}\0{session}"))


def put(
    home: Path, harness: str, session: str, rule_id: str, said: tuple[list[str], list[str]]
) -> None:
    """Keep what a rule's check said, (model texts, notices), for the session's next event."""
    where = _folder(home, harness, session)
    where.mkdir(parents=True, exist_ok=True)
    name = folders.digest_of(rule_id)
    tmp = where / f".{name}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"contexts": said[0], "messages": said[1]}, fh, ensure_ascii=False)
    os.replace(tmp, where / f"{name}.json")


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def waiting(home: Path, harness: str, session: str) -> bool:
    """Whether anything waits for this session (one `stat` on an event with nothing)."""
    return os.path.isdir(_folder(home, harness, session))


def take(home: Path, harness: str, session: str) -> tuple[list[str], list[str]]:
    """What waits for this session, in the order it was written, now given: (model texts,
    notices for the person)."""
    where = _folder(home, harness, session)
    contexts: list[str] = []
    messages: list[str] = []
    try:
        names = [n for n in os.listdir(where) if n.endswith(".json") and not n.startswith(".")]
        names.sort(key=lambda n: _mtime(where / n))
    except OSError:
        return contexts, messages
    for name in names:
        mine = where / f".{name}.taken.{os.getpid()}"
        try:
            os.rename(where / name, mine)
            with open(mine, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            continue
        finally:
            try:  # noqa: SIM105 - contextlib is one import more
                os.unlink(mine)
            except OSError:
                pass
        if isinstance(data, dict):
            contexts += [str(c) for c in data.get("contexts") or []]
            messages += [str(m) for m in data.get("messages") or []]
    for empty in (where, where.parent):  # so the next event's look costs one failed stat
        try:
            os.rmdir(empty)
        except OSError:
            break
    return contexts, messages
