"""The client's version, and what it means for an install.

Version bounds read from a package, and the rules whose hook events need a newer client than the
one installed."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess

from agentstyle.harnesses import adapter_for
from agentstyle.policy.compile import Compiled
from agentstyle.policy.plan import PlanEntry


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
