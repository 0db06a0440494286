"""Install the real harness clients at their pinned versions (clients.json) into the cache folder.

`make e2e` runs this before the suite: each client goes into `.e2e-cache/<harness>-<version>/`
with the registry's ordinary client (`npm install --prefix`), once; a folder that already holds
the pinned version is kept. A client that cannot be installed ends the run with one line naming
it and the reason, exit 1: the suite never skips a client silently.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CLIENTS_FILE = HERE / "clients.json"
INSTALL_TIMEOUT_S = 900  # the Claude Code package pulls a ~400 MB native binary


def cache_root() -> Path:
    return Path(os.environ.get("STYLE_E2E_CACHE") or REPO / ".e2e-cache")


def pinned() -> dict[str, dict[str, str]]:
    data: dict[str, dict[str, str]] = json.loads(CLIENTS_FILE.read_text(encoding="utf-8"))
    return data


def prefix_of(harness: str, spec: dict[str, str]) -> Path:
    return cache_root() / f"{harness}-{spec['version']}"


def binary_of(harness: str, spec: dict[str, str]) -> Path:
    return prefix_of(harness, spec) / "node_modules" / ".bin" / spec["bin"]


def installed_version(harness: str, spec: dict[str, str]) -> str | None:
    manifest = prefix_of(harness, spec) / "node_modules" / spec["package"] / "package.json"
    try:
        version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
    return version if isinstance(version, str) else None


def install(harness: str, spec: dict[str, str]) -> str | None:
    """Install one client; None when it is in place, else the one-line reason it is not."""
    if installed_version(harness, spec) == spec["version"] and binary_of(harness, spec).exists():
        return None
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not on PATH"
    prefix = prefix_of(harness, spec)
    prefix.mkdir(parents=True, exist_ok=True)
    want = f"{spec['package']}@{spec['version']}"
    try:
        done = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                want,
            ],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return f"`npm install {want}` did not finish in {INSTALL_TIMEOUT_S} s"
    if done.returncode != 0:
        lines = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
        return f"`npm install {want}` failed: {lines[-1] if lines else 'no output'}"
    got = installed_version(harness, spec)
    if got != spec["version"]:
        return f"`npm install {want}` left version {got or 'none'} in {prefix}"
    if not binary_of(harness, spec).exists():
        return f"`npm install {want}` installed no `{spec['bin']}` command"
    return None


def main() -> int:
    failed = False
    for harness, spec in pinned().items():
        problem = install(harness, spec)
        if problem:
            print(f"e2e: cannot install {harness}: {problem}", file=sys.stderr)
            failed = True
        else:
            print(f"e2e: {harness} {spec['version']} ready in {prefix_of(harness, spec)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
