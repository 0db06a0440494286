"""Which checks the person allowed to run on this machine, kept outside every project.

Like `direnv allow`: a check that comes with a project's policy (a teammate's clone, the
plugin) runs only after the person allowed its command once, and again after the command
changes. One file per project under the user's state folder, which self-protection guards
(install/protected.py `STATE`). Standard library only: the hook reads it when a check is due."""

from __future__ import annotations

import json
import os

from agentstyle import folders


def _file(root: str) -> str:
    digest = folders.digest_of(os.path.realpath(root))
    return os.path.join(folders.checks_folder(), "accepted", digest + ".json")


def command_digest(run: str) -> str:
    return folders.digest_of(run)


def accepted_commands(root: str) -> dict[str, str]:
    """rule id → the digest of the command the person allowed for it, in project `root`."""
    text = folders.read_regular_text(_file(root))
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    checks = data.get("checks") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in checks.items()} if isinstance(checks, dict) else {}


def is_accepted(root: str, rule_id: str, run: str) -> bool:
    return accepted_commands(root).get(rule_id) == command_digest(run)


def accept(root: str, checks: dict[str, str]) -> None:
    """Allow each rule's command (rule id → command) in project `root`, beside those allowed
    before; written whole or not at all."""
    path = _file(root)
    kept = accepted_commands(root)
    kept.update({rid: command_digest(run) for rid, run in checks.items()})
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"root": os.path.realpath(root), "checks": kept}, fh, indent=1, sort_keys=True)
    os.replace(tmp, path)
