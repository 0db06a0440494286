"""The walker's state and its results, and the base of the `Walker` (`walk.py`).

The limits of one walk, the kinds of code built at run time, what a point of the walk knows
(`State`, `Stdin`), and the base of the `Walker`: what it has recorded, what word expansion asks
it, what a command prints.

The walker is one class in parts, one module a part, each built on the one before:
`walkstate` → `builtins` → `scripts` → `dispatch` → `walk`.
"""

from __future__ import annotations

import os
import posixpath
import re

from agentstyle.shell import stdout as stdout_of
from agentstyle.shell.runs import FD_PATHS, Run
from agentstyle.shell.tree import Node, ProcSub, Seq, Sub
from agentstyle.shell.words import F_SUB, F_VAR, UNKNOWN, Scope, Value, shown
from agentstyle.shell.wrappers import command_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_ELEMENTS = 50_000  # simple commands recorded; past this the analysis is incomplete

LEXICAL_BUDGET = 4 << 20  # characters the lexical split may scan after a limit stopped the walk

MAX_VALUES = 64  # values one variable may hold (branches, `for` lists)

MAX_DIRS = 8  # working directories one point of the walk may be in (after branches)

# Content searches, whose words are text (a pattern, a file name): a word that holds spaces is
# recorded with SPACE for each white-space character, so that it stays one word to a rule. They
# print only the lines their pattern matches (the command model reads that too).
SEARCHES = frozenset(
    {"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "ack-grep", "ugrep", "git-grep"}
)

SPACE = "\u2420"  # ␠ (SYMBOL FOR SPACE): white space to no regex engine

_WHITE = re.compile(r"[ \t\n\r\f\v]")

_OTHER_WHITE = re.compile(r"[\t\n\r\f\v]")

# Commands whose output is a path the walker computes from the folder it runs in and its words:
# `rm -rf "$(dirname "$PWD")"` removes the project's parent.
_PATH_TOOLS = frozenset({"pwd", "dirname", "basename", "realpath", "readlink"})

# Commands whose output the walker computes or marks (the rest have unknown output).
_PRODUCERS = (
    frozenset({"echo", "cat", "tee"}) | stdout_of.DOWNLOADERS | stdout_of.DECODERS | _PATH_TOOLS
)


# Where a substitution's output came from (`Stdin.origins`): a download, a decoder.
DOWNLOAD, DECODE = 1, 2


class State:
    """What bash remembers between commands of one shell."""

    __slots__ = (
        "aliases",
        "allexport",
        "dirs",
        "disabled",
        "dotglob",
        "exported",
        "funcs",
        "hashed",
        "just_cd",
        "lastpipe",
        "positional",
        "prev_dirs",
        "stack",
        "sure",
        "vars",
    )

    def __init__(self) -> None:
        self.vars: dict[str, tuple[Value, ...]] = {}
        # `NAME=value` of the variables exported: every later command runs with them
        self.exported: dict[str, str] = {}
        self.funcs: dict[str, Node] = {}
        self.aliases: dict[str, str] = {}
        self.dirs: tuple[str, ...] = ("",)
        self.prev_dirs: tuple[str, ...] = ("$OLDPWD",)
        self.stack: list[tuple[str, ...]] = []
        self.positional: list[str] | None = None  # [$0, $1, …]; None: not known
        # Whether the shell is surely in one of `dirs`: a `cd` may fail and a command after
        # `;` still runs where the shell was; after `cd DIR &&` it runs only in DIR.
        self.sure = True
        self.just_cd = False  # the last command run was a `cd` that moved
        # `shopt -s dotglob` (zsh `setopt globdots`): a glob's `*` also matches names that
        # start with a dot, so `rm -rf *` reaches `.git` and `.env`
        self.dotglob = False
        self.lastpipe = False  # `shopt -s lastpipe`: a pipeline's last stage runs in this shell
        self.allexport = False  # `set -a`: every variable set from here on is exported
        self.hashed: dict[str, str] = {}  # `hash -p PATH NAME`: NAME runs PATH
        self.disabled: set[str] = set()  # builtins `enable -n` turned off

    def copy(self) -> State:
        new = State()
        new.vars = dict(self.vars)
        new.exported = dict(self.exported)
        new.funcs = dict(self.funcs)
        new.aliases = dict(self.aliases)
        new.dirs = self.dirs
        new.prev_dirs = self.prev_dirs
        new.stack = list(self.stack)
        new.positional = self.positional
        new.sure = self.sure
        new.just_cd = self.just_cd
        new.dotglob = self.dotglob
        new.lastpipe = self.lastpipe
        new.allexport = self.allexport
        new.hashed = dict(self.hashed)
        new.disabled = set(self.disabled)
        return new

    def widen(self, before: State) -> bool:
        """After a command that may not have run (the right of `&&`, `||`): each variable holds
        its value from before it as well. True when some had more values than are kept."""
        cut = False
        for name, values in list(self.vars.items()):
            old = before.vars.get(name, (UNKNOWN,))
            if old == values:
                continue
            merged = [*values, *(v for v in old if v not in values)]
            cut = cut or len(merged) > MAX_VALUES
            self.vars[name] = tuple(merged[:MAX_VALUES])
        return cut

    def absorb(self, branches: Sequence[State]) -> bool:
        """After branches of which any one ran: each variable may hold any branch's value.
        True when some variable or the directory had more values than are kept."""
        cut = False
        names: dict[str, None] = {}
        for b in branches:
            names.update(dict.fromkeys(b.vars))
        for name in names:
            merged: list[Value] = []
            for b in branches:
                for v in b.vars.get(name, (UNKNOWN,)):
                    if v not in merged:
                        merged.append(v)
            cut = cut or len(merged) > MAX_VALUES
            self.vars[name] = tuple(merged[:MAX_VALUES])
        dirs: list[str] = []
        for b in branches:
            for d in b.dirs:
                if d not in dirs:
                    dirs.append(d)
        cut = cut or len(dirs) > MAX_DIRS
        self.dirs = tuple(dirs[:MAX_DIRS])
        self.sure = all(b.sure for b in branches)
        for b in branches:
            self.funcs.update(b.funcs)
            self.aliases.update(b.aliases)
            self.exported.update(b.exported)
        self.dotglob = any(b.dotglob for b in branches)  # set in some branch: it may be on
        self.lastpipe = any(b.lastpipe for b in branches)
        self.allexport = any(b.allexport for b in branches)
        for b in branches:
            self.hashed.update(b.hashed)
            self.disabled |= b.disabled
        return cut


class Stdin:
    """What a command reads on stdin: known text, files, or output not known (a pipe), and
    which recorded runs' output it is (`sources`, for the command model's data flow)."""

    __slots__ = ("files", "origins", "piped", "sources", "texts", "unknown")

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.files: list[str] = []
        self.piped = False
        self.unknown = False
        self.origins = 0
        self.sources: frozenset[int] = frozenset()

    def copy(self) -> Stdin:
        new = Stdin()
        new.texts = list(self.texts)
        new.files = list(self.files)
        new.piped = self.piped
        new.unknown = self.unknown
        new.origins = self.origins
        new.sources = self.sources
        return new


NO_STDIN = Stdin()


class WalkerBase(Scope):
    """Collects commands, code, dynamic kinds and issues from one command string."""

    if TYPE_CHECKING:  # the steps of the parts built on this one that the lower parts call

        def run_text(self, text: str, positional: list[str] | None = None) -> None: ...

        def _fallback(self, text: str) -> None: ...

        def walk(self, node: Node, stdin: Stdin) -> Stdin | None: ...

        def run(self, argv: list[str], stdin: Stdin, peeled: int) -> Stdin | None: ...

        def _call(self, name: str, argv: list[str], stdin: Stdin) -> None: ...

        def finish(self) -> None: ...

        def _setup_code(self, args: Sequence[str], open_: str = "$(") -> bool: ...

        def _origins_of(self, text: str) -> None: ...

        def _code_origins(self, origins: int) -> None: ...

        def _write(self, path: str, text: str, append: bool) -> None: ...

        def _fd_of(self, path: str) -> tuple[str, str | None] | None: ...

        def _fd_text(self, path: str) -> str | None: ...

        def _shell_stdin(
            self, stdin: Stdin, positional: list[str] | None, dynamic: bool = True
        ) -> None: ...

        def _script(
            self,
            word: str,
            runner: str | None,
            args: Sequence[str],
            stdin: Stdin,
            source: bool = False,
            family: str | None = None,
        ) -> None: ...

        def _runs_itself(self, word: str) -> bool: ...

    def __init__(self, cwd: str | None, deadline: float) -> None:
        self.commands: dict[str, None] = {}
        self.code: dict[str, None] = {}
        self.dynamic: dict[str, None] = {}
        self.issues: dict[str, None] = {}
        self.root = os.path.realpath(cwd) if cwd else None
        self.start = self.root or ""
        # Directories the command reached from the project by relative steps only (`cd ..`):
        # an operand there that leaves the project is also written through `..`, as it is
        # relative to the project wherever the project sits (under /tmp too).
        self.reached: set[str] = {self.start}
        self.st = State()
        self.st.dirs = (self.start,)
        self.deadline = deadline
        self.full = False
        self.level = 0  # strings parsed inside strings
        self.depth = 0  # syntax constructs open in the walk (for the parser's depth budget)
        self.remote = 0  # container/ssh wrappers around the current command
        self.scripts: set[str] = set()
        self.flags: dict[str, int] = {}
        self.sub_origins: dict[str, int] = {}
        self.decoded: dict[str, int] = {}  # known substitution outputs that were decoded
        self.written: dict[str, str] = {}  # files this command line writes, and their text
        self.written_overflow = False
        self.git_aliases: dict[str, str] = {}
        self.command_env: list[str] = []  # the NAME=value words before the command being run
        self.cleared = False  # `env -i` before it: it starts with no environment but its own
        self.command_redirs: tuple[tuple[str, str], ...] = ()  # its file redirections
        self.found: tuple[str, ...] = ()  # what `{}` stands for in a command find runs
        self.appending = False  # xargs appends words only known when it runs
        self.slot = ""  # …or puts them where this string is (`xargs -I{}`)
        self.recorded: dict[tuple[object, ...], int] = {}  # every simple command: its position
        self.run_list: list[Run] = []  # …in ShellParse.runs, for the model
        self.touched: list[int] = []  # the position of each run as it is met, again or not
        self.args_from: frozenset[int] = frozenset()  # runs whose output the words hold
        self.data_from: frozenset[int] = frozenset()  # …as arguments only (xargs appends them)
        self.background = 0  # statements ended by `&` around the current command
        self.repeating = 0  # endless loops around the current command
        self.fds: dict[str, tuple[str, str | None]] = {}  # `exec N>file`, `exec N<<<text`
        self.procsubs: dict[str, Stdin] = {}
        # `>(…)` and coprocs: the command that reads what is written to it (its name as a word,
        # or the descriptor's), walked again with that text as its stdin (`feed`)
        self.readers: dict[str, Node] = {}
        self.namerefs: dict[str, str] = {}  # `declare -n ref=var`: ref stands for var
        self.calling: list[str] = []
        # per function being walked, the caller's value (and export) of each name it made its
        # own with `local`: given back when it returns
        self.frames: list[dict[str, tuple[tuple[Value, ...] | None, str | None]]] = []
        self.recursed: set[str] = set()  # functions being walked that called themselves
        self.running: list[
            tuple[str, str | None, str]
        ] = []  # scripts being walked: word, key, path
        self.called: set[str] = set()
        self.defined: dict[str, Node] = {}
        self.saw_dynamic_command = False
        self.code_scanned = 0
        self.runs = 0
        self.queue: list[str] | None = None  # texts waiting for the lexical split
        self.lexical_budget = LEXICAL_BUDGET

    # -- results -------------------------------------------------------------------------------

    def issue(self, what: str) -> None:
        if len(self.issues) < 64:
            self.issues[what] = None

    def emit(self, element: str) -> None:
        if self.full or not element:
            return
        if element in self.commands:
            return
        if len(self.commands) >= MAX_ELEMENTS:
            self.full = True
            self.issue("element-limit")
            return
        self.commands[element] = None

    def _env(self) -> tuple[str, ...]:
        """The `NAME=value` words a command runs with: those exported before it, then its own
        (`X=1 cmd`, `env X=1 cmd`), which win."""
        own = {text.partition("=")[0].removesuffix("+") for text in self.command_env}
        exported = [t for name, t in self.st.exported.items() if name not in own]
        if self.cleared:  # `env -i cmd`: nothing of the shell's environment
            exported = []
        return (*exported, *self.command_env)

    def _record_run(self, argv: list[str], text: str, stdin: Stdin | None = None) -> None:
        """The simple command for the command model (shell/runs.py): where it may run (after
        `cd DIR;` the `cd` may have failed, so the starting folder too), what surrounds it and
        whose output reaches it."""
        if len(self.recorded) >= MAX_ELEMENTS:
            return
        dirs = self.st.dirs
        if not self.st.sure and self.start not in dirs:
            dirs = (*dirs, self.start)
        name = command_name(argv[0]) if argv else ""
        recursive = (name in self.st.funcs and name in self.calling) or (
            bool(self.running) and self._runs_itself(argv[0])
        )
        args_from = self.args_from
        for word in argv[1:]:
            opened = self._fd_of(word) if word.startswith(FD_PATHS) else None
            sub = self.procsubs.get(str(opened[1])) if opened is not None else None
            if sub is not None:  # `bash /dev/fd/$fd` after `exec {fd}< <(curl …)`
                args_from = args_from | sub.sources
        run = Run(
            tuple(argv),
            dirs,
            remote=bool(self.remote),
            env=self._env(),
            redirs=self.command_redirs,
            runtime_args=self.appending,
            text=text,
            stdin_from=tuple(sorted(stdin.sources)) if stdin is not None else (),
            args_from=tuple(sorted(args_from)),
            data_from=tuple(sorted(self.data_from)),
            background=self.background > 0,
            repeating=self.repeating > 0 or recursive,
            fds=tuple((n, str(f[1])) for n, f in self.fds.items() if f[0] == "file"),
            found=self.found if self.appending or any("{}" in w for w in argv) else (),
            dotglob=self._dotglob(),
            slot=self.slot if self.appending and any(self.slot in w for w in argv[1:]) else "",
        )
        key = run.key()
        if key not in self.recorded:
            self.recorded[key] = len(self.run_list)
            self.run_list.append(run)
        self.touched.append(self.recorded[key])
        self.appending = False  # the words xargs appends are this command's, not what it runs
        self.slot = ""
        self.data_from = frozenset()

    def _dotglob(self) -> bool:
        """Whether a glob of this command matches dot-files: `shopt -s dotglob`, or GLOBIGNORE
        set to something (bash then turns dotglob on)."""
        ignore = self.st.vars.get("GLOBIGNORE", ())
        return self.st.dotglob or any(v != "" for v in ignore)

    def _since(self, first: int) -> frozenset[int]:
        """The runs met since `first = len(self.touched)`: recorded then, or earlier when a
        word is expanded again (a `<(…)` in an `exec` that opens a descriptor)."""
        return frozenset(self.touched[first:])

    def _line(self, argv: Sequence[str]) -> str:
        """One recorded command: its words joined by spaces. A search's words are text, so
        each stays one word (docs/design/shell.md#one-word): `grep -rn 'cat .env' docs/` is
        one pattern and one folder to a rule, never a read of `.env` or a `.*` glob."""
        joined = " ".join(argv)
        if (joined.count(" ") == len(argv) - 1 and not _OTHER_WHITE.search(joined)) or command_name(
            argv[0]
        ).lower() not in SEARCHES:
            return joined  # no word holds white space (the common case), or not a search
        words = [argv[0]]
        for word in argv[1:]:
            if self.flags.get(word, 0) & (F_VAR | F_SUB) or not _WHITE.search(word):
                words.append(word)  # a run-time word is kept as written
            else:
                words.append(_WHITE.sub(SPACE, word))
        return " ".join(words)

    def add_dynamic(self, kind: str) -> None:
        self.dynamic[kind] = None

    def add_code(self, text: str) -> None:
        if text.strip():
            self.code[text] = None

    def add_unknown_parts(self, text: str, substitution: str, variable: str) -> None:
        """The dynamic kinds of code text (run by `eval`, `sh -c`, an interpreter's `-c`) that
        is not known before it runs: `substitution` where it holds a command substitution (whose
        origins then count), `variable` where it holds a variable."""
        flags = self.flags.get(text, 0)
        if flags & F_SUB:
            self.add_dynamic(substitution)
            self._origins_of(text)
        if flags & F_VAR:
            self.add_dynamic(variable)

    # -- Scope (what word expansion asks) ------------------------------------------------------

    def referent(self, name: str) -> str:
        """The variable `name` stands for: itself, or what `declare -n name=other` made it a
        reference to (followed a few steps, as bash follows a chain of them)."""
        for _ in range(8):
            if name not in self.namerefs:
                break
            name = self.namerefs[name]
        return name

    def values(self, name: str) -> tuple[Value, ...] | None:
        name = self.referent(name)
        found = self.st.vars.get(name)
        if found is None and name == "PWD":
            here = self._here()
            return (here,) if here is not None else None
        return found

    def _here(self) -> str | None:
        """The folder the shell is in, when the text fixes it (one absolute folder)."""
        dirs = self.st.dirs
        return dirs[0] if len(dirs) == 1 and dirs[0].startswith("/") else None

    def positional(self) -> list[str] | None:
        return self.st.positional

    def substitution(self, sub: Sub) -> str | None:
        saved = self.st
        self.st = saved.copy()  # a subshell: nothing it does leaks out
        try:
            out = self._body(sub.body, sub.inner, NO_STDIN)
        finally:
            self.st = saved
        if out is not None and out.origins:
            self.sub_origins[shown(sub)] = out.origins
        if out is None or out.unknown or out.files or not out.texts:
            return None
        text = "".join(out.texts)
        if out.origins and len(self.decoded) < 256:
            # Known, but decoded or downloaded: code built from it is still hidden code.
            self.decoded[text.rstrip("\n")] = out.origins
        return text

    def process_substitution(self, sub: ProcSub) -> None:
        saved = self.st
        self.st = saved.copy()
        first = len(self.touched)
        try:
            out = self._body(sub.body, sub.inner, NO_STDIN)
        finally:
            self.st = saved
        out = out.copy() if out is not None else Stdin()
        if not out.texts:
            out.unknown = True
        out.sources = out.sources | self._since(first)
        self.procsubs[shown(sub)] = out
        if sub.writes and sub.body is not None:
            self.readers[shown(sub)] = sub.body  # `exec 3> >(bash)`: what fd 3 gets, it runs

    def feed(self, target: str, text: str) -> None:
        """`echo CMD > >(bash)`, `… | tee >(sh)`, `echo CMD >&3` after `exec 3> >(bash)` or
        into a coproc's descriptor: the reader is walked again with the text on its stdin."""
        body = self.readers.pop(target)  # once: its own output may be fed back to it
        stdin = Stdin()
        stdin.texts.append(text)
        stdin.piped = True
        saved = self.st
        self.st = saved.copy()
        self.depth += 1
        try:
            self.walk(body, stdin)
        finally:
            self.st = saved
            self.depth -= 1
            self.readers[target] = body

    def flag(self, text: str, flags: int) -> None:
        self.flags[text] = self.flags.get(text, 0) | flags

    def overflow(self, what: str) -> None:
        self.issue(what)

    def _body(self, body: Seq | None, inner: str, stdin: Stdin) -> Stdin | None:
        if body is None:
            self._fallback(inner)
            return None
        self.depth += 1
        try:
            return self.walk(body, stdin)
        finally:
            self.depth -= 1

    # -- output --------------------------------------------------------------------------------

    def _stdout(self, name: str, argv: list[str], stdin: Stdin) -> Stdin | None:
        if name not in _PRODUCERS and not (stdin.texts and name in stdout_of.FILTERS):
            return None
        out = Stdin()
        if name in _PATH_TOOLS:
            text = self._path_output(name, argv[1:])
            if text is None:
                return None
            out.texts.append(text)
            return out
        if name == "echo":
            out.texts.append(stdout_of.echo(argv[1:]))
            return out
        if name == "cat":
            operands = [w for w in argv[1:] if not (w.startswith("-") and len(w) > 1)]
            if not operands or operands == ["-"]:
                return stdin if (stdin.texts or stdin.files or stdin.unknown) else None
            out.files.extend(w for w in operands if w != "-")
            return out
        if name in stdout_of.DOWNLOADERS:
            out.unknown = True
            out.origins = DOWNLOAD
            return out
        if stdin.texts and not stdin.unknown and not stdin.files:
            text = stdout_of.transform(name, argv, "".join(stdin.texts))
            if text is not None and len(text) >= stdout_of.MAX_OUTPUT:
                self.issue("output-limit")
            if text is not None:
                out.texts.append(text)
                out.origins = stdin.origins | (DECODE if name in stdout_of.DECODERS else 0)
                return out
        if name == "tee" and stdin.texts and not stdin.unknown:
            for path in (w for w in argv[1:] if not w.startswith("-")):
                self._write(path, "".join(stdin.texts), append="-a" in argv[1:])
            out.texts.extend(stdin.texts)
            return out
        if name in stdout_of.DECODERS or name in ("tee",):
            out.unknown = True
            out.origins = stdin.origins | (DECODE if name != "tee" else 0)
            return out
        return None

    def _path_output(self, name: str, args: list[str]) -> str | None:
        """What `pwd`, `dirname`, `basename`, `realpath` and `readlink -f` print, when the words
        and the folder fix it (a word only known at run time, or an option not read: None)."""
        here = self._here()
        if name == "pwd":
            return here + "\n" if here is not None and not args else None
        operands = [w for w in args if not w.startswith("-")]
        options = [w for w in args if w.startswith("-")]
        if not operands or any(self.flags.get(w, 0) & (F_VAR | F_SUB) for w in operands):
            return None
        if name == "dirname" and not options:
            return "".join((posixpath.dirname(w.rstrip("/")) or ".") + "\n" for w in operands)
        if name == "basename" and not options and len(operands) == 1:
            return (posixpath.basename(operands[0].rstrip("/")) or "/") + "\n"
        if (name == "realpath" and not options) or (name == "readlink" and options == ["-f"]):
            if here is None and not all(w.startswith("/") for w in operands):
                return None
            return "".join(
                posixpath.normpath(posixpath.join(here or "/", w)) + "\n" for w in operands
            )
        return None
