"""Self-protection: built-in gate rules, package `style`, installed with every package.

See docs/design/cli.md#self-protection.

They refuse the agent's tool calls that would switch STYLE off, weaken its policy or erase its
record, from inside the session (an approval has to come from the person; the
person's own terminal runs no hook, so it is unaffected). One rule per thing protected, each
refusal naming it:

- `style/self-protect/commands`: STYLE's commands that change or stop the guards (`allow`,
  `install`, `uninstall`, `sync`, `engine stop`, `audit prune`), however invoked; the
  read-only ones (`validate`, `plan`, `test`, `explain`, `audit` reports, `packages`,
  `doctor`, `schema`, `replay`, `--dry-run`, `--help`) stay open to the agent;
- `style/self-protect/hook-configs`: the harnesses' hook configs, their folders, user-scope and
  managed copies, and nested agents started with the project's settings left out;
- `style/self-protect/policy`: `style.lock.yaml` and the installed packages' sources;
- `style/self-protect/state`: `.style/` (database, lock, socket, logs), the socket folder, the
  session markers, and the engine process (killed by name, stopped, its lock held);
- `style/self-protect/code`: the installed `agentstyle` code, its site-packages entries, the
  `style` and `style-hook` scripts, the interpreter;
- `style/self-protect/folders`: deleting, moving or overwriting a folder that holds them (the
  project, the home folder, anything above).

Each is matched on what really runs (the shell analysis, docs/design/shell.md): every program that
is not a known reader, redirections, a copy's destination, `sed -i`, `find -delete`, git
subcommands that change files, interpreter code that writes, a path spelled with `./`, `//`,
`..`, `$PWD`, a link (file tools: event.py `resolved_path`), a session whose folder is inside
a guarded one. What is guarded is computed for this machine at install (install/protected.py),
so the package is written under `.style/builtin/style/`; `protect: false` in
`style.lock.yaml` leaves it out. Hooks are a guardrail, not a sandbox: the aim is that
switching STYLE off is never a casual side effect and always needs something a reviewer would
recognise (docs/harnesses/index.md "Self-protection" lists what is not covered).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from agentstyle import __version__
from agentstyle.evaluator.paths import StylePaths
from agentstyle.harnesses.facts import SUPPORTED, spec_for
from agentstyle.install import protected as pr
from agentstyle.install import selfprotect_patterns as sp
from agentstyle.install.lockfile import HarnessInstall, atomic_write, read_lock

PACKAGE = "style"
COMMANDS = "commands"
FOLDERS = "folders"
CONFIG_CHANGE = "config-change"
RULE_IDS = tuple(f"self-protect/{c}" for c in (COMMANDS, *pr.CATEGORIES, FOLDERS, CONFIG_CHANGE))
FOLDER = ("builtin", PACKAGE)
TMP_PREFIX = "style-builtin-"
SHELL_AND_FILES = ["shell", "file.write", "file.edit", "notebook.edit"]
YOURS = "The user can do it from their own terminal."
# Each harness's config folder (`.claude`, …: HarnessSpec.config_folder).
CONFIG_FOLDERS = [f for f in (spec_for(h).config_folder for h in SUPPORTED) if f is not None]

TEXTS = {
    COMMANDS: (
        "STYLE self-protect: `style allow`, install, sync, uninstall, audit prune and engine "
        f"stop change the guards. {YOURS}"
    ),
    # the first folders by name: a list of every client's would outgrow a block reason's budget
    # (T005) as clients are added
    pr.HOOK_CONFIGS: (
        "STYLE self-protect: the harness configs "
        f"({', '.join(f'{f}/' for f in CONFIG_FOLDERS[:2])} and the other clients') "
        f"hold its hooks; read only. {YOURS}"
    ),
    pr.POLICY: (
        "STYLE self-protect: style.lock.yaml and the installed packages are the policy; "
        f"read, do not change. {YOURS}"
    ),
    pr.STATE: (
        "STYLE self-protect: .style/ and the engine keep the guards running; read, do not "
        f"write, lock or stop. {YOURS}"
    ),
    pr.CODE: (
        "STYLE self-protect: the installed agentstyle code and scripts run the guards; read "
        f"them, do not change them. {YOURS}"
    ),
    FOLDERS: (
        "STYLE self-protect: this deletes, moves or overwrites a folder holding STYLE's hooks, "
        f"policy or database. {YOURS}"
    ),
    CONFIG_CHANGE: (
        "STYLE self-protect: a settings change during the session would switch STYLE's hooks "
        "off; it was kept out of this session. A new session reads it."
    ),
}
REASONS = {
    COMMANDS: "An approval, an install or an uninstall has to come from the person.",
    pr.HOOK_CONFIGS: "Without its hook entries no STYLE rule runs at all.",
    pr.POLICY: "Changing the policy through the agent would let it loosen its own rules.",
    pr.STATE: "A broken database, a held lock or a stopped engine makes every rule fail open.",
    pr.CODE: "The hook runs this code: changing it changes every answer.",
    FOLDERS: "Removing the folder removes every guarded file in it at once.",
    CONFIG_CHANGE: "A session that drops its hooks midway runs on unguarded.",
}
# Distinctive words for an analysis that could not take the whole command: refused when the
# raw text mentions what the category guards (nothing it could not see is allowed unseen).
MENTIONS = {
    COMMANDS: r"\b(style|agentstyle)\b.*\b(allow|install|uninstall|sync|prune|stop)\b",
    pr.HOOK_CONFIGS: "(" + "|".join(re.escape(f) for f in CONFIG_FOLDERS) + r")\b",
    pr.POLICY: r"style\.lock\.yaml|STYLE\.yaml",
    pr.STATE: r"\.style\b|engine\.sock|agentstyle-[0-9]|\b(kill|pkill|killall)\b",
    pr.CODE: r"agentstyle|style-hook|site-packages",
}


def _raw(text: str) -> str:
    """A raw string literal of the condition language: the regexes spell quotes `\\x22`,
    `\\x27`, so none may appear as such."""
    assert '"' not in text, text
    return 'r"' + text + '"'


class Builder:
    """The `when` expression of one rule, one alternative per line with what it catches."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(
        self, comment: str, field: str, pattern: str, guard: str = "", *, negate: bool = False
    ) -> None:
        cond = f"{'not ' if negate else ''}{field} regex {_raw(pattern)}"
        if guard:
            cond = f"({guard} and {cond})"
        prefix = "or " if self.lines else ""
        self.lines.append(f"# {comment}\n{prefix}{cond}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _places(root: Path) -> sp.Places:
    roots = pr._forms(root)
    return sp.Places(roots, os.path.expanduser("~"))


def _category(b: Builder, items: list[pr.Item], places: sp.Places) -> None:
    """The alternatives every guarded category shares: file tools, shell writes, code, a
    session folder inside a guarded folder, a shell tool's own working folder."""
    target = sp.words(items, places)
    b.add("a file tool writes it", "file.path", sp.file_path(items, places))
    for what, pattern in sp.writes(target):
        b.add(what, "shell.commands", pattern)
    b.add("a bare redirection (no command)", "tool.input.command", sp.raw_redirect(target))
    code = sp.code_path(items, places)
    b.add("code that writes it", "shell.code", f"(?s){code}.*{sp.WRITE_API}")
    b.add("code that writes it", "shell.code", f"(?s){sp.WRITE_API}.*{code}")
    folders = [i for i in items if i.kind != "file" and "*" not in i.path]
    if folders:
        inside = sp.file_path(folders, places).replace("/?$", "(/.*)?$")
        inside = inside.replace("(/.*)?$", "(/.*)?/?$")
        here = f"harness.cwd regex {_raw(inside)}"
        # One row (the command as sent), not every element: a relative path has no literal
        # for the prefilter, and anything but a plain read from in there is suspect anyway.
        b.add(
            "the session works inside it: a shell call other than a plain read",
            "tool.input.command",
            sp.PLAIN_READ,
            here,
            negate=True,
        )
        b.add("the session works inside it: a file tool", "file.path", r"^[^/]", here)
        raw = "^" + sp.words(folders, places) + "/*$"
        for key in ("dir_path", "directory", "working_directory"):
            b.add("a shell tool run inside it", f"tool.input.{key}", raw)


def _commands(b: Builder) -> None:
    safe = sp.not_words(["--dry-run", "-h", "--help"], char=sp.WORD)
    name = sp.NAME
    prefix = sp.alt(
        [
            rf"{name}(style|agentstyle)( -\S+)*",
            rf"{name}python[0-9.]*( -[^m\s]\S*( [^-\s]\S*)?)* -[a-zA-Z]*m ?agentstyle"
            r"(\.__main__|\.cli(\.app|\.__main__)?)?",
            rf"{name}python[0-9.]*( -\S+)* (\S*/)?(style|agentstyle)(-script\.py|\.py)?",
        ]
    )
    b.add(
        "style allow, install, uninstall, sync",
        "shell.commands",
        rf"{prefix} (allow|install|uninstall|sync)( {safe})*$",
    )
    b.add("style engine stop", "shell.commands", rf"{prefix} engine( -\S+)* stop( {safe})*$")
    b.add(
        "style audit prune",
        "shell.commands",
        rf"{prefix} audit( -\S+( [^-\s]\S*)?)* prune( {safe})*$",
    )
    cli = (
        rf"(agentstyle\.(cli|__main__|install)\b|from\s+agentstyle\s+import|import\s+agentstyle"
        rf"\s*($|[;\n])|run_module\(\s*{sp.QUOTE}agentstyle)"
    )
    verb = r"\b(allow|install|uninstall|sync|prune|stop)\b"
    b.add("code that runs STYLE's command line", "shell.code", f"(?s){cli}.*{verb}")
    b.add("code that runs STYLE's command line", "shell.code", f"(?s){verb}.*{cli}")
    b.add("code that grants allowances", "shell.code", r"agentstyle\.engine\.allowances")


def _state_extras(b: Builder, items: list[pr.Item], places: sp.Places) -> None:
    name = sp.NAME
    stop = "|".join(
        str(int(s))
        for s in (getattr(signal, "SIGSTOP", None), getattr(signal, "SIGTSTP", None))
        if s is not None
    )
    b.add(
        "the engine stopped (SIGSTOP/SIGTSTP: STYLE cannot tell it from any pid)",
        "shell.commands",
        rf"{name}(kill|pkill|killall)( \S+)* (-s |-n |--signal[= ])?-?(?i:(sig)?(stop|tstp)"
        rf"|{stop})( |$)",
    )
    b.add(
        "the engine killed by name",
        "shell.commands",
        rf"{name}(pkill|killall)( \S+)* \S*(agentstyle|resident)",
    )
    b.add(
        "every python process killed",
        "shell.commands",
        rf"{name}(pkill( -\S+)* (python[0-9.]*|\.\*?|\^|\.\+)$|killall( \S+)* python[0-9.]*( |$))",
    )
    b.add(
        "the engine looked up and killed",
        "tool.input.command",
        r"(?s)(agentstyle|resident|engine\.sock|style\.lock\b).*\b(kill|pkill|killall)\b"
        r"|(?s)\b(kill|pkill|killall)\b.*(agentstyle|resident|engine\.sock)",
    )
    lock = [i for i in items if i.path in (".style",)]
    target = sp.words(lock, places)
    b.add(
        "the lock or socket opened for reading (a lock needs no write)",
        "shell.commands",
        rf"(^| )[0-9]*(<|<>) {target}{sp.END}",
    )
    b.add(
        "git clean -x removes the ignored .style/",
        "shell.commands",
        rf"{name}git{sp.GIT_OPTS} clean( \S+)* -[a-zA-Z]*[xX][a-zA-Z]*( |$)",
    )
    b.add(
        "git stash --all stashes the ignored .style/ away",
        "shell.commands",
        rf"{name}git{sp.GIT_OPTS} stash( \S+)* (-a|--all|-[a-zA-Z]*a[a-zA-Z]*)( |$)",
    )
    uid = os.getuid() if hasattr(os, "getuid") else 0
    b.add(
        "code that talks to the engine or takes its lock",
        "shell.code",
        rf"engine\.sock|style\.lock([^.]|$)|agentstyle-{uid}\b|agentstyle\.runtime",
    )


def _hook_config_extras(b: Builder) -> None:
    for harness in SUPPORTED:
        for what, program, arguments in spec_for(harness).hooks_off_commands:
            b.add(what, "shell.commands", f"{sp.NAME}{re.escape(program)}{arguments}")


def _code_extras(b: Builder) -> None:
    b.add(
        "agentstyle uninstalled",
        "shell.commands",
        r"^\S*( \S+)* (uninstall|remove|rm)( \S+)* agentstyle(==\S*)?( |$)",
    )


def _folders(b: Builder, p: pr.Protected, places: sp.Places) -> None:
    folder = sp.holder(p.holders, places)
    basenames = sorted({i.parts[-1] for i in p.items if i.anchor != "abs" and "*" not in i.path})
    for what, pattern in sp.holder_writes(folder, p.top_names, basenames):
        b.add(what, "shell.commands", pattern)


def package_doc(p: pr.Protected) -> dict[str, Any]:
    """The built-in package as a STYLE.yaml document."""
    places = _places(p.root)
    rules: list[dict[str, Any]] = []

    def rule(category: str, tools: list[str] | str, b: Builder) -> None:
        rules.append(
            {
                "id": f"self-protect/{category}",
                "target": "tool",
                "tool": tools,
                "action": "block",
                "reason": REASONS[category],
                "when": b.text(),
                "text": TEXTS[category],
            }
        )

    b = Builder()
    _commands(b)
    _incomplete(b, COMMANDS)
    rule(COMMANDS, "shell", b)
    for category in pr.CATEGORIES:
        items = p.of(category)
        b = Builder()
        _category(b, items, places)
        if category == pr.STATE:
            _state_extras(b, items, places)
        elif category == pr.HOOK_CONFIGS:
            _hook_config_extras(b)
        elif category == pr.CODE:
            _code_extras(b)
        _incomplete(b, category)
        rule(category, SHELL_AND_FILES, b)
    b = Builder()
    _folders(b, p, places)
    rule(FOLDERS, "shell", b)
    rules.append(
        {
            "id": f"self-protect/{CONFIG_CHANGE}",
            "target": "event",
            "event": "config.changed",
            "action": "block",
            # a client without the event has nothing to guard here
            "fallback": "skip",
            "reason": REASONS[CONFIG_CHANGE],
            "when": "# the change leaves the client running none of STYLE's hooks\n"
            "config.hooks_off exists\n",
            "text": TEXTS[CONFIG_CHANGE],
        }
    )
    return {
        "spec": "style/v0.3",
        "name": PACKAGE,
        "version": __version__,
        "description": "Built-in self-protection: the agent cannot switch STYLE off",
        "priority": 100,
        "rules": rules,
    }


def _incomplete(b: Builder, category: str) -> None:
    b.add(
        "the analysis could not take the whole command, and it mentions this",
        "tool.input.command",
        f"(?s){MENTIONS[category]}",
        "shell.incomplete exists",
    )


# libyaml's emitter writes the same text as PyYAML's own (checked over every harness set and
# odd project paths) at a twentieth of the time: the package's patterns are long, and PyYAML
# analyses every character of them in Python, a tenth of an install.
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BaseDumper):  # type: ignore[valid-type, misc]
    pass


def _block(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _block)

HEADER = (
    "# Written by STYLE at install: the built-in self-protection for this machine\n"
    "# (agentstyle/install/selfprotect.py). Do not edit; `protect: false` in style.lock.yaml\n"
    "# leaves it out.\n"
)


def package_text(p: pr.Protected) -> str:
    body = yaml.dump(package_doc(p), Dumper=_Dumper, sort_keys=False, width=1 << 20)
    return HEADER + body


def protected_for(
    root: Path, harnesses: Mapping[str, HarnessInstall], packages: Sequence[str] = ()
) -> pr.Protected:
    return pr.protected(root, harnesses, packages, StylePaths(root).home)


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
    packages: Sequence[str] = (),
) -> Iterator[Path | None]:
    """The built-in package folder for an install (None when the lock says `protect: false`).

    `packages`: the package folders (or files) being installed, absolute. `persist`: written
    under `.style/builtin/` (a real install), else in a temporary folder (`--dry-run`,
    `plan`) that is removed afterwards.
    """
    if not enabled:
        yield None
        return
    text = package_text(protected_for(root, harnesses, packages))
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
    from agentstyle.evaluator.paths import find_root
    from agentstyle.install.library import ref_path

    root = find_root(start)
    lock = read_lock(StylePaths(root).lockfile)
    harnesses = dict(lock.harnesses)
    harnesses.setdefault(harness, HarnessInstall())
    packages = []
    for ref in lock.packages:
        with contextlib.suppress(Exception):
            packages.append(ref_path(root, ref))
    with builtin_package(
        root, harnesses, persist=False, enabled=lock.protect, packages=packages
    ) as folder:
        yield [str(folder)] if folder else []
