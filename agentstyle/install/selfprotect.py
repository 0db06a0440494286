"""Self-protection (cli.md): built-in gate rules, package `style`, installed with every package.

They refuse agent tool calls that would switch the guards off from inside the session: running
`style allow`, `style uninstall` or `style engine stop` from the agent's shell, and writing or
editing `.style/**`, `style.lock.yaml` or the hook config files STYLE wrote. An approval has to
come from the person (seed 003); the person's own terminal runs no hook, so it is unaffected.
`protect: false` in `style.lock.yaml` leaves them out.

They are ordinary rules (visible in `style plan`, recorded and audited like any rule), written
as a package under `.style/builtin/style/` at install time, because the config files to guard
depend on the harnesses installed. Hooks are a guardrail, not a sandbox: the shell rules match
the commands the shell will run (shell-aware matching), not every way a program could write.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

from agentstyle import __version__
from agentstyle.engine.paths import StylePaths
from agentstyle.install.lockfile import HarnessInstall, atomic_write, read_lock

PACKAGE = "style"
RULE_IDS = ("self-protect", "self-protect/files", "self-protect/shell-writes")
FOLDER = ("builtin", PACKAGE)
TMP_PREFIX = "style-builtin-"

# The commands only the person may run (cli.md).
_VERBS = r"(allow|uninstall|engine\s+stop)"
# A simple command (quotes removed, one space between words) that runs one of them: `style`,
# `agentstyle`, `python -m agentstyle`, or through `uvx`/`pipx run`/`uv run`.
COMMAND_REGEX = (
    r"^(\S*/)?((style|agentstyle)"
    r"|python[0-9.]*(\s+-\S+)*\s+-m\s+agentstyle(\.cli\.app|\.__main__)?"
    r"|(uvx|pipx|uv)\s(.*\s)?(style|agentstyle))"
    rf"\s+{_VERBS}(\s|$)"
)
# The same inside code a shell call runs (heredoc bodies, local scripts: `shell.code`).
CODE_REGEX = r"(style|agentstyle)[\x22\x27,\s]+(allow|uninstall|engine[\x22\x27,\s]+stop)\b"
# Programs that write, move or delete the files they name.
_WRITERS = (
    r"rm|mv|tee|truncate|shred|unlink|chmod|chown|ln|install|dd|duckdb|sqlite3"
    r"|sed(\s+\S+)*\s+-i\S*|perl(\s+\S+)*\s+-\S*i\S*"
)


def _escape(path: str) -> str:
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", path)


def protected_paths(root: Path, harnesses: Mapping[str, HarnessInstall]) -> list[str]:
    """`.style/`, the lock file and the hook config of every installed harness, relative to
    the folder that holds each (install root or home)."""
    from agentstyle.harnesses import adapter_for

    out = [".style/**", "style.lock.yaml"]
    for name, h in sorted(harnesses.items()):
        adapter = adapter_for(name)
        if h.scope not in adapter.SCOPES:
            continue
        path = Path(adapter.config_path(root, h.scope))
        base = Path.home() if h.scope == "user" else root
        try:
            rel = path.relative_to(base).as_posix()
        except ValueError:
            rel = path.as_posix().lstrip("/")
        if rel not in out:
            out.append(rel)
    return out


def package_text(paths: list[str]) -> str:
    """The built-in package's STYLE.yaml for these protected paths."""
    files = [p for p in paths if not p.endswith("/**")]
    glob = "**/{" + ",".join(paths) + "}"
    end = r"([\s\x22\x27;&|)]|$)"  # a path ends at a space, a quote or an operator
    named = "|".join([rf"\.style(/|{end})", *(_escape(f) + end for f in files)])
    redirect = rf">[>|]?\s*[\x22\x27]?(\S*/)?({named})"
    write = rf"^(\S*/)?({_WRITERS})\s(.*\s)?(\S*/)?({named})"
    copy_to = rf"^(\S*/)?cp\s(.*\s)?(\S*/)?({named})$"
    return f"""spec: style/v0.3
name: {PACKAGE}
version: {__version__}
description: Built-in self-protection; the agent cannot switch STYLE off from its session
priority: 100
rules:
  - id: self-protect
    target: tool
    tool: shell
    action: block
    reason: An approval or an uninstall has to come from the person, never the agent (seed 003).
    when: 'shell.commands regex {_raw(COMMAND_REGEX)} or shell.code regex {_raw(CODE_REGEX)}'
    text: "STYLE self-protect: only the person runs `style allow`, `style uninstall` or `style engine stop`, in their own terminal. Ask the user."
  - id: self-protect/files
    target: tool
    tool: [file.write, file.edit, notebook.edit]
    action: block
    reason: STYLE's database, lock file and hook configs are the guard itself.
    when: 'file.path glob {_raw(glob)}'
    text: "STYLE self-protect: .style/, style.lock.yaml and the hook configs STYLE wrote are changed by the person, not the agent."
  - id: self-protect/shell-writes
    target: tool
    tool: shell
    action: block
    reason: The same files, written through the shell.
    when: 'shell.commands regex {_raw(write)} or shell.commands regex {_raw(copy_to)} or tool.input.command regex {_raw(redirect)}'
    text: "STYLE self-protect: .style/, style.lock.yaml and the hook configs STYLE wrote are changed by the person, not the agent."
"""  # noqa: E501


def _raw(text: str) -> str:
    """A raw string literal of the condition language, inside a YAML single-quoted string:
    no quote of either kind (the regexes spell them `\x22`, `\x27`)."""
    assert '"' not in text and "'" not in text, text
    return 'r"' + text + '"'


def is_builtin(root: Path | str) -> bool:
    """Whether a package folder is the built-in one (installed or temporary)."""
    parent = Path(root).parent.name
    return Path(root).name == PACKAGE and (parent == FOLDER[0] or parent.startswith(TMP_PREFIX))


@contextlib.contextmanager
def builtin_package(
    root: Path,
    harnesses: Mapping[str, HarnessInstall],
    *,
    persist: bool,
    enabled: bool = True,
) -> Iterator[Path | None]:
    """The built-in package folder for an install (None when the lock says `protect: false`).

    `persist`: written under `.style/builtin/` (a real install), else in a temporary folder
    (`--dry-run`, `plan`) that is removed afterwards.
    """
    if not enabled:
        yield None
        return
    text = package_text(protected_paths(root, harnesses))
    if persist:
        folder = StylePaths(root).home.joinpath(*FOLDER)
        target = folder / "STYLE.yaml"
        try:
            current = target.read_text("utf-8")
        except OSError:
            current = None
        if current != text:
            atomic_write(target, text)
        yield folder
        return
    tmp = Path(tempfile.mkdtemp(prefix=TMP_PREFIX))
    try:
        folder = tmp / PACKAGE
        folder.mkdir()
        (folder / "STYLE.yaml").write_text(text, encoding="utf-8")
        yield folder
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def plan_packages(harness: str, start: Path | None = None) -> Iterator[list[str]]:
    """The built-in package for `style plan --harness H` in this project (none when
    `protect: false`), as extra package paths."""
    from agentstyle.engine.paths import find_root

    root = find_root(start)
    lock = read_lock(StylePaths(root).lockfile)
    harnesses = dict(lock.harnesses)
    harnesses.setdefault(harness, HarnessInstall())
    with builtin_package(root, harnesses, persist=False, enabled=lock.protect) as folder:
        yield [str(folder)] if folder else []
