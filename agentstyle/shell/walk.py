"""Walk a shell syntax tree the way bash would run it; record what runs.

The walker keeps the state bash keeps while it runs a command line: variables (each with the
values it may hold), functions, aliases, the positional parameters, the working directory,
and what each command reads on stdin. With it, every simple command is expanded and recorded
(docs/design/shell.md#shell-commands documents the elements), wrappers are peeled (`wrappers`),
strings that are code are parsed in turn (`bash -c`, `eval`, `trap`, a pipe into `sh`, `os.system`
inside `python -c`), and the code interpreters run is collected.
"""

from __future__ import annotations

import math
import os
import posixpath
import re
import time

from agentstyle.shell import stdout as stdout_of
from agentstyle.shell.programs import Lang, input_picks_program, lang, program
from agentstyle.shell.runs import FD_PATHS, Run
from agentstyle.shell.syntax import (
    MAX_SYNTAX_DEPTH,
    AndOr,
    ArithCmd,
    Assign,
    Case,
    Compound,
    Cond,
    Coproc,
    For,
    FuncDef,
    Group,
    If,
    Lit,
    Loop,
    Node,
    Opaque,
    Pipeline,
    ProcSub,
    Redir,
    Seq,
    Simple,
    Sub,
    Subshell,
    Word,
    parse,
)
from agentstyle.shell.words import (
    F_EXPANDED,
    F_GLOB,
    F_POSITIONAL,
    F_PROCSUB,
    F_SUB,
    F_VAR,
    MAX_ALTERNATIVES,
    UNKNOWN,
    Scope,
    Symbolic,
    Value,
    expand,
    expand_text,
    shown,
)
from agentstyle.shell.wrappers import (
    SHELLS,
    command_name,
    commands_in_options,
    git_runs,
    shell_reads_script,
    unwrap,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_ELEMENTS = 50_000  # simple commands recorded; past this the analysis is incomplete
MAX_LEXICAL = 10_000  # more elements the lexical split of an unwalked rest may add
LEXICAL_BUDGET = 4 << 20  # characters the lexical split may scan after a limit stopped the walk
MAX_NESTING = 32  # strings parsed inside strings (`bash -c "eval '…'"`)
MAX_SCRIPTS = 32  # distinct local scripts read for one command
MAX_WRITTEN = 256  # files written with known text that are remembered for a later run
MAX_UNWRAP = 32  # wrappers peeled off one simple command (`sudo env nice … cmd`)
MAX_VALUES = 64  # values one variable may hold (branches, `for` lists)
MAX_CALL_DEPTH = 16  # shell functions calling functions
MAX_STDIN_TEXTS = 8  # alternative texts of one heredoc or herestring (from multi-valued variables)
MAX_DIRS = 8  # working directories one point of the walk may be in (after branches)
MAX_CODE_SCANNED = 4 << 20  # characters of interpreter code tokenized for shell commands
_CLOCK_EVERY = 256  # commands recorded between two looks at the clock

# Kinds of code built at run time (`shell.dynamic`).
PIPE_TO_SHELL = "pipe-to-shell"
PIPE_TO_INTERPRETER = "pipe-to-interpreter"
DOWNLOADED_CODE = "downloaded-code"
DECODED_CODE = "decoded-code"
EVAL_SUBSTITUTION = "eval-substitution"
EVAL_VARIABLE = "eval-variable"
SOURCE_SUBSTITUTION = "source-substitution"
SHELL_C_SUBSTITUTION = "shell-c-substitution"
SHELL_C_VARIABLE = "shell-c-variable"
SHELL_C_POSITIONAL = "shell-c-positional"
INLINE_CODE_SUBSTITUTION = "inline-code-substitution"
INLINE_CODE_VARIABLE = "inline-code-variable"
CODE_SHELL_VARIABLE = "code-shell-variable"
DYNAMIC_COMMAND = "dynamic-command"
COMPUTED_COMMAND = "computed-command"
# `eval "$(direnv hook bash)"`, `source <(kubectl completion bash)`: the output of a known
# shell-setup generator is evaluated. It is recorded under its own kind, not as code no rule
# can read: these tools print the environment, hooks and completions they are asked for, and
# a shell profile runs exactly these lines.
SHELL_SETUP = "shell-setup"
# xargs or parallel items that choose the program: `xargs bash`, `xargs -I{} python3 {}`,
# `parallel < jobs.txt` (each line a command).
INPUT_PROGRAM = "input-program"
# The generators, with the words that ask them for setup code; the rest of the words are
# literal (an option, a shell name, `-`): nothing expands, nothing else runs.
_SETUP = re.compile(
    r"(?:\S*/)?(?:direnv hook|ssh-agent|brew shellenv|(?:pyenv|rbenv|nodenv|jenv|goenv|plenv)"
    r" (?:init|virtualenv-init)|(?:zoxide|starship|atuin|mcfly|oh-my-posh) init|fnm env"
    r"|(?:mise|rtx) activate|(?:kubectl|helm|gh|npm|pnpm|rustup|poetry|docker|minikube|kind"
    r"|uv|uvx|pip|deno|bun|op|glab|flux|kustomize|eksctl|golangci-lint) completion"
    r"|conda shell\.[a-z]+ hook|opam env|luarocks path|thefuck --alias|dircolors)"
    r"(?: [-A-Za-z0-9_.=/]+)*"
)

_DOWNLOAD, _DECODE = 1, 2
_POSITIONAL_USE = re.compile(r"\$(?:[0-9@*#]|\{[0-9@*#])")
# Commands whose operands are not paths: no working-directory form is recorded for them.
_NOT_PATHS = frozenset(
    {
        "echo",
        "printf",
        "git",
        "cd",
        "pushd",
        "popd",
        "export",
        "declare",
        "typeset",
        "local",
        "readonly",
        "set",
        "unset",
        "alias",
        "unalias",
        "eval",
        "exec",
        "command",
        "builtin",
        "type",
        "which",
        "hash",
        "true",
        "false",
        "exit",
        "return",
        "shift",
        "sleep",
        "kill",
        "wait",
        "jobs",
        "read",
        "trap",
        "test",
        "[",
        "[[",
        "let",
        "ssh",
        "curl",
        "wget",
        "npm",
        "pnpm",
        "yarn",
        "pip",
        "pip3",
        "cargo",
        "go",
        "make",
        "docker",
        "kubectl",
        "sudo",
        "env",
        "xargs",
        "timeout",
        "nice",
        "nohup",
    }
)
# The first operand is a pattern or program, not a file (unless given with -e/-f).
_PATTERN_FIRST = frozenset(
    {
        "grep",
        "egrep",
        "fgrep",
        "rg",
        "ag",
        "ack",
        "sed",
        "awk",
        "gawk",
        "jq",
        "yq",
        "perl",
        "zgrep",
        "git-grep",
    }
)
# Commands whose every operand is a path (no subcommand, mode or count among them): after a
# sure `cd`, their resolved form says all there is.
_ALL_PATHS = frozenset({"rm", "rmdir", "unlink", "shred", "mv", "cp", "ln", "cat"})
# Searches, whose words are text (a pattern, a file name): a word that holds spaces is
# recorded with SPACE for each white-space character, so that it stays one word to a rule.
_SEARCHES = frozenset(
    {"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "ack-grep", "git-grep"}
)
SPACE = "\u2420"  # ␠ (SYMBOL FOR SPACE): white space to no regex engine
_WHITE = re.compile(r"[ \t\n\r\f\v]")
_OTHER_WHITE = re.compile(r"[\t\n\r\f\v]")
# Variables whose value a program runs as a command (`GIT_SSH_COMMAND=… git fetch`).
_RUNS_ENV = frozenset(
    {
        "GIT_SSH_COMMAND",
        "GIT_SSH",
        "GIT_PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_ASKPASS",
        "GIT_EXTERNAL_DIFF",
        "GIT_PROXY_COMMAND",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "MANPAGER",
        "LESSOPEN",
        "LESSCLOSE",
        "SUDO_ASKPASS",
        "SSH_ASKPASS",
        "PROMPT_COMMAND",
    }
)
_SHELL_LEVEL = frozenset({"builtin", "command", "time"})  # wrappers the shell itself runs
_STDIN_PATHS = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})


def _runs_program(argv: Sequence[str]) -> bool:
    """`exec cmd …` replaces the shell with cmd; `exec 3>f` and `exec -c 3>f` open descriptors."""
    return any(not w.startswith("-") for w in argv[1:])


_SCRIPT_LANGS = {
    ".sh": "bash",
    ".bash": "bash",
    ".zsh": "zsh",
    ".ksh": "ksh",
    ".py": "python3",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
    ".ts": "node",
    ".rb": "ruby",
    ".pl": "perl",
    ".php": "php",
    ".lua": "lua",
    ".awk": "awk",
    ".r": "Rscript",
    ".R": "Rscript",
    ".sql": "psql",
}
# Commands whose output is a path the walker computes from the folder it runs in and its words:
# `rm -rf "$(dirname "$PWD")"` removes the project's parent.
_PATH_TOOLS = frozenset({"pwd", "dirname", "basename", "realpath", "readlink"})
# Commands whose output the walker computes or marks (the rest have unknown output).
_PRODUCERS = (
    frozenset({"echo", "cat", "tee"}) | stdout_of.DOWNLOADERS | stdout_of.DECODERS | _PATH_TOOLS
)
_SHEBANG = re.compile(r"#!\s*(\S+)(?:\s+(?:-\S+\s+)*(\S+))?")


class State:
    """What bash remembers between commands of one shell."""

    __slots__ = (
        "aliases",
        "dirs",
        "exported",
        "funcs",
        "just_cd",
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
        return new

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


_NO_STDIN = Stdin()


class Walker(Scope):
    """Collects commands, code, dynamic kinds and issues from one command string."""

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
        self.command_redirs: tuple[tuple[str, str], ...] = ()  # its file redirections
        self.found: tuple[str, ...] = ()  # what `{}` stands for in a command find runs
        self.appending = False  # xargs appends words only known when it runs
        self.recorded: dict[tuple[object, ...], int] = {}  # every simple command: its position
        self.run_list: list[Run] = []  # …in ShellParse.runs, for the model
        self.touched: list[int] = []  # the position of each run as it is met, again or not
        self.args_from: frozenset[int] = frozenset()  # runs whose output the words hold
        self.data_from: frozenset[int] = frozenset()  # …as arguments only (xargs appends them)
        self.background = 0  # statements ended by `&` around the current command
        self.repeating = 0  # endless loops around the current command
        self.fds: dict[str, tuple[str, str | None]] = {}  # `exec N>file`, `exec N<<<text`
        self.procsubs: dict[str, Stdin] = {}
        self.calling: list[str] = []
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
            found=self.found if "{}" in argv else (),
        )
        key = run.key()
        if key not in self.recorded:
            self.recorded[key] = len(self.run_list)
            self.run_list.append(run)
        self.touched.append(self.recorded[key])
        self.appending = False  # the words xargs appends are this command's, not what it runs
        self.data_from = frozenset()

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
        ).lower() not in _SEARCHES:
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

    # -- Scope (what word expansion asks) ------------------------------------------------------

    def values(self, name: str) -> tuple[Value, ...] | None:
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
            out = self._body(sub.body, sub.inner, _NO_STDIN)
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
            out = self._body(sub.body, sub.inner, _NO_STDIN)
        finally:
            self.st = saved
        out = out.copy() if out is not None else Stdin()
        if not out.texts:
            out.unknown = True
        out.sources = out.sources | self._since(first)
        self.procsubs[shown(sub)] = out

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

    # -- text ----------------------------------------------------------------------------------

    def run_text(self, text: str, positional: list[str] | None = None) -> None:
        """Parse and walk `text`, a string the shell will run, one level deeper."""
        if self.full:
            self.lexical(text)
            return
        if (
            self.queue is not None
            or self.level >= MAX_NESTING
            or self.depth >= MAX_SYNTAX_DEPTH - 2
        ):
            self.issue("nesting-limit")
            self._fallback(text)
            return
        parsed = parse(text, self.deadline, self.depth + self.level)
        for what in parsed.issues:
            self.issue(what.split("@", 1)[0] if self.level else what)
        saved_positional = self.st.positional
        if positional is not None:
            self.st.positional = positional
        self.level += 1
        try:
            self.walk(parsed.tree, _NO_STDIN)
        finally:
            self.level -= 1
            self.st.positional = saved_positional
        if self.full:
            self.lexical(text)  # stopped inside this text: what was not walked, split

    def lexical(self, text: str) -> None:
        """After a limit stopped the walk: the commands of `text` by the lexical split, recorded
        as they are (no walking: the limit holds), within a budget of text scanned."""
        if self.lexical_budget <= 0:
            return
        self.lexical_budget -= len(text)
        room = MAX_ELEMENTS + MAX_LEXICAL - len(self.commands)
        from agentstyle.shell.fallback import flat_commands  # only once a limit is hit

        commands, cut = flat_commands(text, max(room, 0))
        for argv in commands:
            self.commands.setdefault(" ".join(argv), None)
        if cut:
            self.issue("element-limit")

    def _fallback(self, text: str) -> None:
        """Text not parsed (too deep): its commands by the lexical split, each then run as any
        command is (wrappers peeled). A string such a command runs is split the same way, from
        a work list, so nesting of any depth costs no recursion."""
        if self.queue is not None:
            self.queue.append(text)
            return
        from agentstyle.shell.fallback import flat_commands  # only for text nested deep

        self.queue = [text]
        try:
            while self.queue and not self.full:
                commands, cut = flat_commands(self.queue.pop(), MAX_ELEMENTS)
                if cut:
                    self.issue("element-limit")
                for argv in commands:
                    if self.full:
                        break
                    self.run(argv, _NO_STDIN, 0)
        finally:
            self.queue = None

    # -- statements ----------------------------------------------------------------------------

    def walk(self, node: Node, stdin: Stdin) -> Stdin | None:
        """Walk `node` fed `stdin`; return its stdout when known."""
        if self.full:
            return None
        if isinstance(node, Simple):
            return self._simple(node, stdin)
        if isinstance(node, Seq):
            return self._seq(node, stdin)
        if isinstance(node, AndOr):
            outs = []
            made_sure = False
            for k, item in enumerate(node.items):
                outs.append(self.walk(item, stdin))
                if k < len(node.ops) and node.ops[k] == "&&" and self.st.just_cd:
                    self.st.sure = made_sure = True  # `cd DIR && …` runs the rest in DIR
            if made_sure:
                self.st.sure = False  # after the list: the cd may have failed and ended it
            return _concat(outs) if all(op == "&&" for op in node.ops) else None
        if isinstance(node, Pipeline):
            return self._pipeline(node, stdin)
        assert isinstance(node, Compound)
        return self._compound(node, stdin)

    def _seq(self, node: Seq, stdin: Stdin, turn: bool = False) -> Stdin | None:
        """Statements in order. One ended by `&` runs in the background unless this shell waits
        for it (`_reaped`); `turn`: the list is a loop's body."""
        outs: list[Stdin | None] = []
        reaped = _reaped(node, turn)
        for item, background, waited in zip(node.items, node.background, reaped, strict=True):
            if background:
                saved = self.st
                self.st = saved.copy()
                left = 0 if waited else 1
                self.background += left
                try:
                    self.walk(item, stdin)
                finally:
                    self.st = saved
                    self.background -= left
                outs.append(None)
            else:
                outs.append(self.walk(item, stdin))
        return _concat(outs)

    def _pipeline(self, node: Pipeline, stdin: Stdin) -> Stdin | None:
        piped: Stdin = stdin
        out: Stdin | None = None
        many = len(node.cmds) > 1
        for k, cmd in enumerate(node.cmds):
            saved = self.st
            if many:
                self.st = saved.copy()  # every stage runs in a subshell
            first = len(self.touched)
            try:
                out = self.walk(cmd, piped)
            finally:
                self.st = saved
            nxt = out.copy() if out is not None else Stdin()
            if out is None:
                nxt.unknown = True
            nxt.piped = True
            nxt.sources = nxt.sources | self._since(first)  # the stage's output
            if k + 1 < len(node.cmds):
                piped = nxt
        return out

    def _compound(self, node: Compound, stdin: Stdin) -> Stdin | None:
        if node.redirs:
            stdin = self._redirections(node.redirs, stdin)
            files = self._file_redirections(node.redirs)
            if files:
                self.emit(files)  # `while read l; do …; done < .env` reads .env
                self._opened(node.redirs, files)
        self.depth += 1
        try:
            return self._compound_body(node, stdin)
        finally:
            self.depth -= 1

    def _compound_body(self, node: Compound, stdin: Stdin) -> Stdin | None:
        if isinstance(node, (Subshell, Coproc)):
            saved = self.st
            self.st = saved.copy()
            try:
                return self.walk(node.body, stdin)
            finally:
                self.st = saved
        if isinstance(node, Group):
            return self.walk(node.body, stdin)
        if isinstance(node, If):
            return self._if(node, stdin)
        if isinstance(node, Loop):
            self.walk(node.cond, stdin)
            before = self.st.copy()
            endless = _endless(node)
            self.repeating += endless
            try:
                self._seq(node.body, stdin, turn=True)
            finally:
                self.repeating -= endless
            self.walk(node.cond, stdin)
            self._absorb([before, self.st.copy()])  # the body may run no time at all
            return None
        if isinstance(node, For):
            return self._for(node, stdin)
        if isinstance(node, Case):
            return self._case(node, stdin)
        if isinstance(node, FuncDef):
            # A function runs only when called: its body is walked at the call.
            self.st.funcs[node.name] = node.body
            self.defined.setdefault(node.name, node.body)
            return None
        if isinstance(node, Cond):
            words = [w for word in node.words for alt in expand(word, self, False) for w in alt]
            self.emit(" ".join(["[[", *words, "]]"]))
            return None
        if isinstance(node, ArithCmd):
            expand(Word([node.arith], "", 0, 0), self, False)
            return None
        if isinstance(node, Opaque):
            self._fallback(node.text)
            return None
        return None  # pragma: no cover - every compound is handled above

    def _absorb(self, branches: list[State]) -> None:
        if self.st.absorb(branches):
            self.issue("values-limit")

    def _branch(self, body: Seq, stdin: Stdin) -> State:
        """Walk `body` from a copy of the state; the state it ends in (the walk's is kept)."""
        saved = self.st
        self.st = saved.copy()
        try:
            self.walk(body, stdin)
            return self.st
        finally:
            self.st = saved

    def _if(self, node: If, stdin: Stdin) -> Stdin | None:
        branches: list[State] = []
        for cond, body in node.arms:
            self.walk(cond, stdin)
            branches.append(self._branch(body, stdin))
        if node.orelse is not None:
            branches.append(self._branch(node.orelse, stdin))
        else:
            branches.append(self.st.copy())
        self._absorb(branches)
        return None

    def _case(self, node: Case, stdin: Stdin) -> Stdin | None:
        if node.subject is not None:
            expand(node.subject, self, False)
        branches: list[State] = [self.st.copy()]
        for patterns, body in node.arms:
            for pattern in patterns:
                expand(pattern, self, False)
            branches.append(self._branch(body, stdin))
        self._absorb(branches)
        return None

    def _for(self, node: For, stdin: Stdin) -> Stdin | None:
        if node.arith is not None:
            expand(Word([node.arith], "", 0, 0), self, False)
            endless = 0 if _leaves(node.body) else _endless_arith(node.arith)
            self.repeating += endless
            try:
                self._seq(node.body, stdin, turn=True)
            finally:
                self.repeating -= endless
            return None
        values: list[Value] = []
        # a list of more turns than MANY_TURNS repeats its body like an endless loop
        many = 1 if node.items is not None and _turns(node.items) > MANY_TURNS else 0
        if node.items is None:
            args = self.st.positional
            values = list(args[1:]) if args is not None else [UNKNOWN]
        else:
            for word in node.items:
                for alt in expand(word, self):
                    values.extend(alt)
        if len(values) > MAX_VALUES:
            self.issue("loop-values-limit")
            values = values[:MAX_VALUES]
        before = self.st.copy()
        if node.name:
            unique = [
                Symbolic(v) if isinstance(v, str) and self.flags.get(v, 0) & (F_VAR | F_SUB) else v
                for v in dict.fromkeys(values)
            ]
            self.st.vars[node.name] = tuple(unique) if unique else (UNKNOWN,)
        many = 0 if _leaves(node.body) else many
        self.repeating += many
        try:
            self._seq(node.body, stdin, turn=True)
        finally:
            self.repeating -= many
        if values:
            self._absorb([before, self.st.copy()])
        else:
            self.st = before
        return None

    # -- simple commands -----------------------------------------------------------------------

    def _simple(self, node: Simple, stdin: Stdin) -> Stdin | None:
        assigns: list[list[str]] = []
        first = len(self.touched)
        for assign in node.assigns:
            assigns.append(self._assignment(assign))
        argvs = self._argvs(node.words) if node.words else []
        # the runs a `$(…)` or `<(…)` of its words ran: their output is in its words
        words_from = self._since(first)
        if node.redirs:
            stdin = self._redirections(node.redirs, stdin)
        if node.redirs and argvs and argvs[0][:1] == ["exec"] and not _runs_program(argvs[0]):
            self._exec_fds(node.redirs)  # `exec 3>/dev/tcp/h/p`: later commands write to fd 3
        elif node.redirs:
            self._exec_fds(node.redirs, named_only=True)  # `: {sock}>/dev/tcp/h/p` stays open
        if not node.words:
            for assign, texts in zip(node.assigns, assigns, strict=True):
                for text in texts:
                    self.emit(text)
                self._set(assign, texts)
            if node.redirs:
                # No command, yet the shell opens the files: `> .env` empties it, `X=1 < f`
                # reads it. Recorded as a compound command's redirections are.
                self._bare_redirections(node.redirs)
            return None
        env = [t for texts in assigns for t in texts]
        for text in env:
            self._setting_runs(text)
        files = self._file_redirections(node.redirs) if node.redirs else ""
        redirs = self._redirection_pairs(node.redirs) if node.redirs else ()
        out: Stdin | None = None
        for argv in argvs:
            if not argv:
                continue
            for text in env:
                self.emit(text)
            saved_env, self.command_env = self.command_env, env
            saved_redirs, self.command_redirs = self.command_redirs, redirs
            saved_from, self.args_from = self.args_from, self.args_from | words_from
            try:
                out = self.run(argv, stdin, 0)
            finally:
                self.command_env = saved_env
                self.command_redirs = saved_redirs
                self.args_from = saved_from
            if out is not None and out.texts and not out.unknown and node.redirs:
                self._writes(node.redirs, "".join(out.texts))
            if files:
                # The words stay in their positions above; the files the command reads and
                # writes are seen here: `< .env cat` is also `cat < .env`.
                self.emit(self._line(argv) + " " + files)
                for d in self.st.dirs:  # after a `cd`, the files where they really are
                    moved = self._file_redirections(node.redirs, d) if d != self.start else files
                    if moved != files:
                        self.emit(self._line(argv) + " " + moved)
        return out if len(argvs) == 1 else None

    def _argvs(self, words: Sequence[Word]) -> list[list[str]]:
        """Every argument vector the words may expand to (one per combination of values)."""
        combos: list[list[str]] = [[]]
        for word in words:
            alternatives = expand(word, self)
            if len(alternatives) == 1:
                for combo in combos:
                    combo.extend(alternatives[0])
                continue
            combos = [c + a for c in combos for a in alternatives][:MAX_ALTERNATIVES]
            if len(combos) >= MAX_ALTERNATIVES:
                self.issue("alternatives-limit")
        return combos

    def _assignment(self, assign: Assign) -> list[str]:
        """The `NAME=value` texts an assignment reads as (one per value it may hold)."""
        head = assign.name + ("[" + assign.index + "]" if assign.index else "")
        head += "+=" if assign.append else "="
        if assign.array is not None:
            items = [w for word in assign.array for alt in expand(word, self) for w in alt]
            return [head + "(" + " ".join(items) + ")"]
        if assign.value is None:
            return [head]
        values = expand_text(assign.value.parts, self)
        if len(values) > MAX_VALUES:
            self.issue("values-limit")
        return [head + v for v in values[:MAX_VALUES]]

    def _set(self, assign: Assign, texts: list[str]) -> None:
        head = len(assign.name) + (len(assign.index) + 2 if assign.index else 0)
        head += 2 if assign.append else 1
        if assign.array is not None:
            items = [w for word in assign.array for alt in expand(word, self) for w in alt]
            self.st.vars[assign.name] = (tuple(items),)
            return
        values: list[Value] = []
        for text in texts:
            value = text[head:]
            flags = self.flags.get(value, 0)
            if flags & (F_VAR | F_SUB):
                values.append(Symbolic(value))  # `R=${HOME}` holds `$HOME`
            elif assign.append:
                old = self.st.vars.get(assign.name, ("",))
                values.extend(o + value if isinstance(o, str) else UNKNOWN for o in old)
            else:
                values.append(value)
        if assign.index is not None and assign.index not in ("0",):
            self.st.vars.setdefault(assign.name, (UNKNOWN,))
            return
        self.st.vars[assign.name] = tuple(dict.fromkeys(values))[:MAX_VALUES] or ("",)
        if assign.name in self.st.exported and texts:
            self.st.exported[assign.name] = texts[0]  # an exported variable set again

    def _bare_redirections(self, redirs: Sequence[Redir]) -> None:
        files = self._file_redirections(redirs)
        pairs = self._redirection_pairs(redirs)
        if pairs:
            # a run with no words, for the command model: the files the shell opens
            saved, self.command_redirs = self.command_redirs, pairs
            try:
                self._record_run([], " ".join(o + " " + t for o, t in pairs))
            finally:
                self.command_redirs = saved
        if files:
            self.emit(files)
            for d in self.st.dirs:
                if d != self.start:
                    self.emit(self._file_redirections(redirs, d))
            self._opened(redirs, files)

    def _opened(self, redirs: Sequence[Redir], text: str) -> None:
        """A run with no words, for the command model: the files the shell opens for
        redirections no program owns (`> .env` alone, `while …; done < .env`)."""
        pairs = self._redirection_pairs(redirs)
        if pairs:
            saved, self.command_redirs = self.command_redirs, pairs
            try:
                self._record_run([], text)
            finally:
                self.command_redirs = saved

    def _file_redirections(self, redirs: Sequence[Redir], directory: str | None = None) -> str:
        """`< in > out` of the redirections that name files (not `2>&1`, not heredocs);
        relative ones resolved against `directory` when given (`cd .claude && echo > x`)."""
        out: list[str] = []
        for redir in redirs:
            if redir.heredoc is not None or redir.target is None or redir.op == "<<<":
                continue
            target = expand_text(redir.target.parts, self)[0]
            if redir.op in (">&", "<&") and (target.isdigit() or target in ("-", "")):
                continue  # `2>&1`, `>&-`: descriptors, not files
            if target == "/dev/null":
                continue
            if directory is not None and target and not target.startswith(("/", "~", "$")):
                target = self._render(directory, target)
            out.append((redir.fd or "") + redir.op + " " + target)
        return " ".join(out)

    def _redirection_pairs(self, redirs: Sequence[Redir]) -> tuple[tuple[str, str], ...]:
        """(operator, file) of the redirections that name files: `2>&1` and heredocs are not
        files; `/dev/null` is kept (a rule may read where output goes)."""
        out: list[tuple[str, str]] = []
        opened: dict[str, str] = {}  # this command's descriptors opened on files, so far
        for redir in redirs:
            if redir.heredoc is not None or redir.target is None or redir.op == "<<<":
                continue
            target = expand_text(redir.target.parts, self)[0]
            fd = redir.fd if redir.fd and redir.fd.isdigit() else None
            if redir.op in (">&", "<&"):
                source = target.rstrip("-")
                if source in opened or (source in self.fds and self.fds[source][0] == "file"):
                    # `0>&1` after `>& /dev/tcp/h/p`, `>&3` after `exec 3>/dev/tcp/h/p`: the
                    # descriptor goes where that one was opened (fd 0 is read from)
                    file = opened.get(source) or str(self.fds[source][1])
                    mine = fd or ("0" if redir.op == "<&" else "1")
                    op = ("" if mine in "01" else mine) + ("<" if mine == "0" else ">")
                    out.append((op, file))
                    opened[mine] = file
                    continue
                if target.isdigit() or target in ("-", ""):
                    continue
            out.append(((redir.fd or "") + redir.op, target))
            if redir.op in ("&>", ">&", "&>>"):
                opened["1"] = opened["2"] = target
            else:
                opened[fd or ("0" if redir.op.startswith("<") else "1")] = target
        return tuple(out)

    def _exec_fds(self, redirs: Sequence[Redir], *, named_only: bool = False) -> None:
        """`exec N>FILE`, `exec N<FILE`, `exec N<<<TEXT`, `exec N<<EOF…`, `exec N>&M`: what
        descriptor N is for the rest of the command line (`>&N`, `source /dev/fd/N`). A named
        descriptor (`{sock}>/dev/tcp/h/p`, on any command: bash keeps it open) gets a number
        of its own, from 10 as bash gives them, held in its variable (`>&$sock`)."""
        for redir in redirs:
            fd = redir.fd
            closing = (
                redir.op in (">&", "<&")
                and redir.target is not None
                and (expand_text(redir.target.parts, self)[0] == "-")
            )
            if fd and fd.startswith("{") and fd.endswith("}") and fd[1:-1].isidentifier():
                name = fd[1:-1]
                known = self.st.vars.get(name, ())
                if closing and len(known) == 1 and str(known[0]) in self.fds:
                    fd = str(known[0])  # `exec {sock}>&-` closes the one it names
                else:
                    fd = str(10 + sum(1 for n in self.fds if int(n) >= 10))
                    self.st.vars[name] = (fd,)
            elif named_only or not fd or not fd.isdigit():
                continue
            if closing:
                self.fds.pop(fd, None)  # `exec 3>&-`: a later `>&3` writes nowhere
                continue
            if redir.op in (">&", "<&") and redir.target is not None:
                source = expand_text(redir.target.parts, self)[0].rstrip("-")
                if source in self.fds:  # `exec 3>&4-`, `exec {copy}>&$sock`: the same file
                    self.fds[fd] = self.fds[source]
                continue
            if redir.heredoc is not None:
                doc = redir.heredoc
                body = expand_text(doc.parts, self)[0] if not doc.quoted else doc.body
                self.fds[fd] = ("text", body)
            elif redir.target is not None and redir.op == "<<<":
                self.fds[fd] = ("text", expand_text(redir.target.parts, self)[0] + "\n")
            elif redir.target is not None and redir.op in (">", ">>", "<", "<>", ">|"):
                self.fds[fd] = ("file", expand_text(redir.target.parts, self)[0])

    def _redirections(self, redirs: Sequence[Redir], stdin: Stdin) -> Stdin:
        new = stdin.copy()
        replaced = False
        for redir in redirs:
            op = redir.op
            doc = redir.heredoc
            if doc is not None:
                texts = expand_text(doc.parts, self) if not doc.quoted else [doc.body]
                if not replaced:
                    new = Stdin()
                    replaced = True
                if len(texts) > MAX_STDIN_TEXTS:
                    self.issue("values-limit")
                new.texts.extend(texts[:MAX_STDIN_TEXTS])
                continue
            if redir.target is None:
                continue
            # A redirection's word is expanded but never split (a herestring, a file name).
            targets = expand_text(redir.target.parts, self)[:MAX_STDIN_TEXTS]
            if op == "<<<":
                if not replaced:
                    new = Stdin()
                    replaced = True
                new.texts.extend(t + "\n" for t in targets)
            elif op in ("<", "<&") and (redir.fd in (None, "0")):
                if op == "<&":  # `bash <&$fd` after `exec {fd}< <(curl …)`
                    found = [self.fds.get(t.rstrip("-")) for t in targets]
                    targets = [str(f[1]) for f in found if f is not None and f[0] == "file"]
                    if not targets:
                        continue
                if not replaced:
                    new = Stdin()
                    replaced = True
                for target in targets:
                    sub = self.procsubs.get(target)
                    if sub is not None:
                        new.texts.extend(sub.texts)
                        new.files.extend(sub.files)
                        new.unknown = new.unknown or sub.unknown
                        new.origins |= sub.origins
                        new.sources = new.sources | sub.sources
                        new.piped = True
                    else:
                        new.files.append(target)
        return new

    # -- running one argument vector -----------------------------------------------------------

    def run(self, argv: list[str], stdin: Stdin, peeled: int) -> Stdin | None:
        """Record `argv` and everything it runs; return its stdout when known."""
        if self.full or not argv:
            return None
        self.runs += 1
        self.st.just_cd = False
        if self.runs % _CLOCK_EVERY == 0 and time.thread_time() > self.deadline:
            self.full = True
            self.issue("deadline")
            return None
        if (" " in argv[0] or "\t" in argv[0] or "\n" in argv[0]) and self._spaced_name(argv[0]):
            # One word that holds spaces names the program (`"$1"` with $1 = 'git reset
            # --hard'): the shell looks for a program of that name and runs nothing else. It is
            # recorded quoted, so that it does not read as the command its words spell. (A
            # run-time word, `$(…)` or `$x` kept as written, is not a value.)
            self.emit(" ".join([_quote(argv[0]), *argv[1:]]))
            return None
        raw = [self._line(argv)]
        head = argv[0]
        head_flags = self.flags.get(head, 0)
        name = command_name(head)
        if name != argv[0] and name:
            # `/bin/rm -rf x`, `git.exe push` are `rm -rf x`, `git push` to a rule.
            raw.append(self._line([name, *argv[1:]]))
        fresh = [line for line in raw if line not in self.commands]
        for line in raw:
            self.emit(line)
        if name.isascii() and not name.islower() and name.lower() != name and name.isalpha():
            # A case-insensitive file system (macOS, Windows) runs `GIT` as `git`, and what
            # `XARGS`, `SUDO` or `BASH -c` run is walked as their lower-case selves run it
            # (the shell's own functions and aliases keep their case).
            self.emit(self._line([name.lower(), *argv[1:]]))
            if name not in self.st.funcs and name not in self.st.aliases:
                name = name.lower()
                argv = [name, *argv[1:]]
        self._record_run(argv, raw[0], stdin)
        if head_flags & (F_VAR | F_SUB):
            self.add_dynamic(DYNAMIC_COMMAND)
            self.saw_dynamic_command = True
            if argv[0].lstrip('"').startswith(("$SHELL", "${SHELL")) or "-c" in argv[1:3]:
                name = "sh"  # `$SHELL -c '…'`, `$(which bash) -c '…'`
        elif head_flags & (F_EXPANDED | F_POSITIONAL):
            self.add_dynamic(COMPUTED_COMMAND)
            self._origins_of(head)
        if (
            name in self.st.aliases
            and name not in self.calling
            and len(self.calling) < MAX_CALL_DEPTH
        ):
            self.calling.append(name)
            try:
                self.run_text(" ".join([self.st.aliases[name], *(_quote(w) for w in argv[1:])]))
            finally:
                self.calling.pop()
        if name in self.st.funcs:
            self._call(name, argv, stdin)
            return None
        builtin = _BUILTINS.get(name)
        if builtin is not None:
            return builtin(self, argv, stdin)
        for text in commands_in_options(name, argv):
            self.run_text(text)  # `tar --to-command=…`, `rsync -e …`, `vim -c '!…'`
        if name == "git":
            argv = self._git(argv)
        elif name in ("at", "batch"):
            self._at(argv, stdin)
            return None
        if name == "eval" and self._setup_code(argv[1:]):
            self.add_dynamic(SHELL_SETUP)  # the generator itself was recorded when expanded
            return None
        if name in SHELLS:
            # Startup files the shell runs before its script or -c string: `--rcfile F`,
            # `--init-file F`, `BASH_ENV=F bash …`, `ENV=F sh -i`.
            for path in _startup_files(argv, self.command_env):
                self._script(path, name, [], _NO_STDIN, source=True)
        unwrapped = unwrap([name, *argv[1:]] if name == "sh" and argv[0] != "sh" else argv)
        if unwrapped is not None:
            if peeled < MAX_UNWRAP:
                return self._unwrapped(name, argv, unwrapped, stdin, peeled)
            self.issue("unwrap-limit")
        interpreter = lang(name)
        if interpreter is not None and interpreter.start(argv) is not None:
            self._interpreter(name, interpreter, argv, stdin)
            out = Stdin()
            out.unknown = True
            out.origins = _DECODE
            return out
        if "/" in argv[0] and not self.remote:
            self._script(argv[0], None, argv[1:], stdin)
        if self._resolved(name, argv) and name in _ALL_PATHS and self._surely_moved():
            # After `cd DIR &&` the operands as written, relative to the project, name
            # nothing this command touches (`cd src && rm -rf ../dist` deletes dist): only
            # the resolved form stands. After `cd DIR;` the cd may have failed: both stand.
            for line in fresh:
                self.commands.pop(line, None)
        self._globbed(argv)
        return self._stdout(name, argv, stdin)

    def _call(self, name: str, argv: list[str], stdin: Stdin) -> None:
        self.called.add(name)
        if name in self.calling:
            self.recursed.add(name)
            return  # a recursive call walks nothing it has not walked
        if len(self.calling) >= MAX_CALL_DEPTH:
            self.issue("call-depth-limit")
            return
        saved = self.st.positional
        self.st.positional = [saved[0] if saved else "bash", *argv[1:]]
        self.calling.append(name)
        self.depth += 1
        try:
            if self.depth < MAX_SYNTAX_DEPTH:
                self.walk(self.st.funcs[name], stdin)
                recursive = name in self.recursed
                self.recursed.discard(name)
                if recursive and not self.repeating:
                    # it calls itself: everything its body runs, it runs again and again (once
                    # walked so, every call below is already repeated)
                    self.repeating += 1
                    try:
                        self.walk(self.st.funcs[name], stdin)
                    finally:
                        self.repeating -= 1
                        self.recursed.discard(name)
            else:
                self.issue("nesting-limit")
        finally:
            self.depth -= 1
            self.calling.pop()
            self.st.positional = saved

    def finish(self) -> None:
        """Functions defined and never called stay silent, unless something ran a command
        whose name is only known at run time: then any of them may have been called."""
        if not self.saw_dynamic_command:
            return
        while not self.full:
            waiting = [(n, b) for n, b in self.defined.items() if n not in self.called]
            if not waiting:
                return
            for name, body in waiting:  # walking one may define more: loop until none is left
                self.called.add(name)
                self.calling.append(name)
                try:
                    self.walk(body, _NO_STDIN)
                finally:
                    self.calling.pop()

    def _unwrapped(
        self, name: str, argv: list[str], found: object, stdin: Stdin, peeled: int
    ) -> Stdin | None:
        from agentstyle.shell.wrappers import Unwrapped

        assert isinstance(found, Unwrapped)
        for assign in found.assigns:
            self.emit(assign)
        if found.noexec:
            return None
        # `env A=1 cmd`, `sudo A=1 cmd`: cmd runs with A set, as with `A=1 cmd`
        saved_env = self.command_env
        if found.assigns:
            self.command_env = [*self.command_env, *found.assigns]
        self.remote += int(found.remote)
        self.repeating += int(found.repeats)
        saved_dirs = self.st.dirs
        if found.chdir is not None:
            self.st.dirs = tuple(self._moved(d, found.chdir) for d in saved_dirs)
        out: Stdin | None = None
        # The shell's functions are the shell's: `eval f` and the reserved word `time f` call
        # one; a program (`sudo`, `xargs`, `env`, an external `time` after `X=1`, `find
        # -exec`), `command` and a new shell (`sh -c f`) look the name up on PATH instead.
        # (`export -f f` already walked f's body, for a child bash that may call it.)
        funcs = self.st.funcs
        if not (name == "eval" or (name == "time" and not self.command_env)):
            self.st.funcs = {}
        try:
            if name == "eval":
                self._eval_dynamic(argv[1:])
            for text, positional in found.strings:
                if name in SHELLS or name == "sh":
                    self._shell_c_dynamic(text, positional, argv[0])
                self.run_text(text, positional)
            for before, text, after in found.split:
                words = _split_words(text)
                self.run([*before, *words, *after], stdin, peeled + 1)
            for inner in found.argvs:
                if name == "time" and inner[0] == "!" and len(inner) > 1:
                    inner = inner[1:]  # `time -p -- ! cmd`: the shell's `time` of a negation
                out = self.run(inner, stdin, peeled + 1)
            if found.xargs is not None:
                self._xargs(found.xargs, stdin, peeled)
            else:
                saved_found, self.found = self.found, found.found or self.found
                try:
                    for inner in found.detached:
                        self.run(inner, _NO_STDIN, peeled + 1)
                finally:
                    self.found = saved_found
            if found.parallel is not None:
                self._parallel(found.parallel, stdin)
            if name == "find":
                self._resolved(name, argv)  # its start points are paths: `cd / && find .`
        finally:
            self.command_env = saved_env
            self.st.funcs = funcs
            self.remote -= int(found.remote)
            self.repeating -= int(found.repeats)
            # `builtin cd ..`, `command cd ..`, `time cd ..` run the shell's own cd: the move
            # stays. A program wrapper (`sudo`, `env -C`) runs in a child, which cannot move it.
            if found.chdir is not None or name not in _SHELL_LEVEL:
                self.st.dirs = saved_dirs
        return out

    def _spaced_name(self, word: str) -> bool:
        head = word.split(maxsplit=1)
        if len(head) < 2 or "/" in head[0] or "\\" in head[0]:
            return False  # a path with spaces: `"/opt/My App/tool"`, `"C:\\Program Files\\…"`
        return not self.flags.get(word, 0) & (F_VAR | F_SUB)

    def _setup_code(self, args: Sequence[str], open_: str = "$(") -> bool:
        """`eval "$(GENERATOR …)"` / `source <(GENERATOR …)`: one substitution, of a known
        shell-setup generator (_SETUP), its words literal."""
        if len(args) != 1 or not args[0].startswith(open_) or not args[0].endswith(")"):
            return False
        return _SETUP.fullmatch(args[0][len(open_) : -1].strip()) is not None

    def _eval_dynamic(self, args: Sequence[str]) -> None:
        self._origins_of(" ".join(args))
        for word in args:
            flags = self.flags.get(word, 0)
            if flags & F_SUB:
                self.add_dynamic(EVAL_SUBSTITUTION)
                self._origins_of(word)
            if flags & F_VAR:
                self.add_dynamic(EVAL_VARIABLE)

    def _shell_c_dynamic(self, text: str, positional: list[str] | None, shell: str) -> None:
        self._origins_of(text)
        flags = self.flags.get(text, 0)
        if flags & F_SUB:
            self.add_dynamic(SHELL_C_SUBSTITUTION)
            self._origins_of(text)
        if flags & F_VAR:
            self.add_dynamic(SHELL_C_VARIABLE)
        given = positional is not None and positional != [shell]
        if given and _POSITIONAL_USE.search(text):
            self.add_dynamic(SHELL_C_POSITIONAL)  # `sh -c 'rm -rf "$1"' _ /`

    def _origins_of(self, text: str) -> None:
        for raw, origins in self.sub_origins.items():
            if raw in text:
                self._code_origins(origins)
        for known, origins in self.decoded.items():
            if known and known in text:
                self._code_origins(origins)

    def _code_origins(self, origins: int) -> None:
        if origins & _DOWNLOAD:
            self.add_dynamic(DOWNLOADED_CODE)
        if origins & _DECODE:
            self.add_dynamic(DECODED_CODE)

    def _xargs(self, spec: object, stdin: Stdin, peeled: int) -> None:
        from agentstyle.shell.wrappers import Xargs

        assert isinstance(spec, Xargs)
        named = self._input_named(spec.argv, spec.replace)
        if named:
            self.add_dynamic(INPUT_PROGRAM)
        if stdin.unknown or not stdin.texts or spec.from_file:
            picks = input_picks_program(spec.argv, spec.replace)
            if picks:
                self.add_dynamic(INPUT_PROGRAM)
            saved, self.appending = self.appending, True
            # What xargs reads becomes words of what it runs: the program or its code
            # (`xargs -I{} sh -c '{}'`), or only arguments (`xargs -I{} curl -F f=@{} …`).
            saved_from, saved_data = self.args_from, self.data_from
            if named or picks:
                self.args_from = self.args_from | stdin.sources
            else:
                self.data_from = self.data_from | stdin.sources
            try:
                self.run(spec.argv, _NO_STDIN, peeled + 1)
            finally:
                self.appending = saved
                self.args_from, self.data_from = saved_from, saved_data
            return
        text = "".join(stdin.texts)
        if spec.replace is not None:
            items = [line.strip() for line in text.split("\n") if line.strip()]
        elif spec.delimiter is not None:
            items = [x for x in text.split(spec.delimiter) if x]
        else:
            items = _split_words(text)
        if not items:
            self.run(spec.argv, _NO_STDIN, peeled + 1)
            return
        groups: list[list[str]]
        if spec.max_args:
            groups = [items[k : k + spec.max_args] for k in range(0, len(items), spec.max_args)]
        else:
            groups = [items]
        for group in groups[:MAX_ALTERNATIVES]:
            if spec.replace is not None:
                argv = [w.replace(spec.replace, group[0]) for w in spec.argv]
            else:
                argv = [*spec.argv, *group]
            self.run(argv, _NO_STDIN, peeled + 1)
        if len(groups) > MAX_ALTERNATIVES:
            self.issue("alternatives-limit")

    def _input_named(self, argv: list[str], replace: str | None) -> bool:
        """Whether an xargs item becomes the name of a command that code the command line
        wrote runs (`xargs sh -c 'eval "$1"' _`, `'command "$1"'`, `'cmd=$1; "$cmd"'`): then
        the input chooses the program, even when it is known, since how xargs splits it into
        items decides which one lands there. Found by walking the command, apart, with a
        marker for the items."""
        if self.level >= _MAX_INPUT_LEVEL:
            return False
        words = [w.replace(replace, _ITEM) for w in argv] if replace else [*argv, _ITEM]
        apart = Walker(None, self.deadline)
        apart.level = self.level + 1
        apart.run(words, _NO_STDIN, 0)
        return any(_ITEM in e.split(" ", 1)[0] for e in apart.commands if e != " ".join(words))

    def _parallel(self, spec: object, stdin: Stdin) -> None:
        from agentstyle.shell.wrappers import Parallel

        assert isinstance(spec, Parallel)
        inputs = spec.inputs
        if inputs is None:
            if not spec.template and stdin.piped:
                self.add_dynamic(PIPE_TO_SHELL)  # each input line is a command
                self._code_origins(stdin.origins)
            elif not spec.template and stdin.files:
                self.add_dynamic(INPUT_PROGRAM)  # `parallel < jobs.txt`: each line a command
            if stdin.unknown or not stdin.texts:
                if spec.template and (stdin.piped or stdin.files):
                    # as with xargs: input from a pipe or a file that picks the program
                    # (`cat jobs | parallel sh -c`, `ls | parallel python3 {}`) is code no rule
                    # has seen
                    words = [_PARALLEL_SLOT.sub("{}", w) for w in spec.template]
                    slot = "{}" if any(map(_PARALLEL_SLOT.search, spec.template)) else None
                    if input_picks_program(words, slot):
                        self.add_dynamic(INPUT_PROGRAM)
                if spec.template:
                    # the template gets its words from the input when it runs, as with xargs
                    slotted = any(map(_PARALLEL_SLOT.search, spec.template))
                    saved, self.appending = self.appending, not slotted
                    saved_data, self.data_from = self.data_from, self.data_from | stdin.sources
                    try:
                        self.run_text(" ".join(spec.template))
                    finally:
                        self.appending, self.data_from = saved, saved_data
                return
            inputs = [[line for line in "".join(stdin.texts).split("\n") if line.strip()]]
        combos: list[list[str]] = [[]]
        for group in inputs:
            combos = [[*c, x] for c in combos for x in group][: MAX_ALTERNATIVES + 1]
        if len(combos) > MAX_ALTERNATIVES:
            self.issue("alternatives-limit")
            combos = combos[:MAX_ALTERNATIVES]
        # GNU parallel joins the template's words with spaces for a shell (so `bash -c 'rm -rf
        # {}'` runs `bash -c rm -rf …`); without -q, and as the writer meant it, each word is
        # one word: a word that holds spaces gets both readings.
        spaced = len(spec.template) > 1 and any(map(_spaced, spec.template))
        readings = [False, True] if spaced else [False]
        for combo in combos:
            for quoted in readings:
                self.run_text(_parallel_command(spec.template, combo, quoted))

    # -- builtins that change the shell's state -------------------------------------------------

    def _cd(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        operands = [w for w in argv[1:] if not (w.startswith("-") and len(w) > 1) or w == "-"]
        target = operands[0] if operands else "~"
        name = argv[0]
        if name == "popd":
            if self.st.stack:
                self.st.prev_dirs = self.st.dirs
                self.st.dirs = self.st.stack.pop()
            return None
        if name == "pushd":
            if not operands:
                if self.st.stack:
                    top = self.st.stack.pop()
                    self.st.stack.append(self.st.dirs)
                    self.st.dirs = top
                return None
            if target.startswith(("+", "-")) and target[1:].isdigit():
                self.st.dirs = ("$PWD",)
                return None
            self.st.stack.append(self.st.dirs)
        if target == "-":
            self.st.dirs, self.st.prev_dirs = self.st.prev_dirs, self.st.dirs
            return None
        self.st.prev_dirs = self.st.dirs
        flags = self.flags.get(target, 0)
        if flags & (F_VAR | F_SUB) and not target.startswith("$"):
            target = "$" + target  # an unknown value that does not read as one
        self.st.dirs = tuple(dict.fromkeys(self._moved(d, target) for d in self.st.dirs))
        self.st.sure = False  # until `&&` says the move succeeded
        self.st.just_cd = True
        return None

    def _moved(self, current: str, target: str) -> str:
        """Where `cd target` from `current` lands, remembering whether it is still reached
        from the project by relative steps."""
        landed = self._cd_target(current, target)
        if current in self.reached and not target.startswith(("/", "~", "$")):
            self.reached.add(landed)
        return landed

    def _cd_target(self, current: str, target: str) -> str:
        if target.startswith(("~", "$")):
            head, _, tail = target.partition("/")
            return head + ("/" + posixpath.normpath(tail) if tail and tail != "." else "")
        if target.startswith("/"):
            return posixpath.normpath(target)
        if current.startswith(("~", "$")):
            head, _, tail = current.partition("/")
            joined = (
                posixpath.normpath(posixpath.join(tail, target))
                if tail
                else posixpath.normpath(target)
            )
            return head if joined == "." else head + "/" + joined
        if not current:
            joined = posixpath.normpath(target)
            return "" if joined == "." else joined
        return posixpath.normpath(posixpath.join(current, target))

    def _surely_moved(self) -> bool:
        """The shell is surely away from where it started, in directories the text names as
        they are: a symbolic link on the way would make `..` lead elsewhere than the text."""
        if not self.st.sure or self.start in self.st.dirs:
            return False
        try:
            return all(not d.startswith("/") or os.path.realpath(d) == d for d in self.st.dirs)
        except (OSError, ValueError):
            return False

    def _resolved(self, name: str, argv: list[str]) -> bool:
        """The command again with relative path operands resolved against the directory a
        `cd` moved to: `cd / && rm -rf *` is also `rm -rf /*`. True when some operand
        resolved differently in every directory the shell may be in."""
        dirs = self.st.dirs
        if dirs == (self.start,) or name in _NOT_PATHS or len(argv) < 2:
            return False
        every = True
        pattern_first = name in _PATTERN_FIRST and not any(
            w in ("-e", "-f", "--regexp", "--file") or w.startswith(("--regexp=", "--file="))
            for w in argv[1:]
        )
        for d in dirs:
            if d == self.start:
                continue
            out = [argv[0]]
            left: list[int] = []  # positions of operands the `cd` took out of the project
            changed = False
            options_done = False
            skipped = not pattern_first
            for word in argv[1:]:
                if not options_done and word == "--":
                    options_done = True
                    out.append(word)
                    continue
                literal_path = word and not ("=" in word or "://" in word)
                if (not options_done and word.startswith("-")) or not literal_path:
                    out.append(word)
                    continue
                if word.startswith(("/", "~", "$")):
                    out.append(word)
                    continue
                if not skipped:
                    skipped = True
                    out.append(word)
                    continue
                resolved = self._render(d, word)
                if word.endswith("/") and not resolved.endswith("/"):
                    resolved += "/"  # `build/` names a directory; keep saying so
                changed = changed or resolved != word
                if resolved.startswith("/"):
                    left.append(len(out))
                out.append(resolved)
            every = every and changed
            if changed:
                self.emit(self._line(out))
            root = self.root
            if changed and left and root and (d in self.reached or _holds(out, left, root)):
                for i in left:
                    slash = "/" if out[i].endswith("/") else ""
                    out[i] = posixpath.relpath(out[i], root) + slash
                self.emit(self._line(out))
        return every

    def _globbed(self, argv: list[str]) -> None:
        """The command again with its globs matched against the project's files, as the shell
        will match them: `cat .e*` is also `cat .env` when `.env` is there."""
        if self.root is None or self.remote or len(self.st.dirs) != 1:
            return
        words = [w for w in argv[1:] if self.flags.get(w, 0) & F_GLOB and not w.startswith("-")]
        if not words:
            return
        base = self.st.dirs[0]
        if not base.startswith("/"):
            return  # the directory is only known at run time
        out = [argv[0]]
        changed = False
        for word in argv[1:]:
            matches = _glob(base, word, self.root) if word in words else []
            if base != self.start and not word.startswith("/"):
                matches = [self._render(base, m) for m in matches]
            if matches:
                out.extend(matches)
                changed = True
            else:
                out.append(word)
        if changed:
            self.emit(self._line(out))

    def _render(self, directory: str, word: str) -> str:
        if directory.startswith(("~", "$")):
            return self._cd_target(directory, word)
        if directory.startswith("/"):
            path = posixpath.normpath(posixpath.join(directory, word))
            root = self.root
            if root is not None:
                if path == root:
                    return "."
                if path.startswith(root.rstrip("/") + "/"):
                    return path[len(root.rstrip("/")) + 1 :]
            return path
        joined = posixpath.normpath(posixpath.join(directory, word))
        return joined

    def _setting_runs(self, assignment: str) -> None:
        """`GIT_SSH_COMMAND=CMD git fetch`, `export EDITOR=CMD`: the program runs CMD later."""
        name, eq, value = assignment.partition("=")
        if not eq or not value.strip():
            return
        if name in _RUNS_ENV:
            self.run_text(value)
        elif name in ("BASH_ENV", "ENV"):
            self._script(value, "bash", [], _NO_STDIN, source=True)  # sourced by a new shell

    def _writes(self, redirs: Sequence[Redir], text: str) -> None:
        """Files a command writes its known output to: a script run later in the same command
        line is read from here (`cat > x.sh <<EOF … EOF; bash x.sh`)."""
        for redir in redirs:
            if redir.heredoc is not None or redir.target is None:
                continue
            if redir.op in (">", ">|", ">>", "&>", "&>>") and redir.fd in (None, "1"):
                path = expand_text(redir.target.parts, self)[0]
                self._write(path, text, append=redir.op.endswith(">>"))

    def _write(self, path: str, text: str, append: bool) -> None:
        key = self._file_key(path)
        if key is None:
            return
        if key not in self.written and len(self.written) >= MAX_WRITTEN:
            self.written_overflow = True  # an incomplete analysis only if one is run later
            return
        self.written[key] = (self.written.get(key, "") if append else "") + text

    def _file_key(self, path: str) -> str | None:
        if not path or (path.startswith(("$", "~")) and not path.startswith("~/")):
            return None
        path = os.path.expanduser(path)
        if path.startswith("/"):
            return posixpath.normpath(path)
        if len(self.st.dirs) != 1 or self.st.dirs[0].startswith(("~", "$")):
            return None
        return posixpath.normpath(posixpath.join(self.st.dirs[0] or ".", path))

    def _git(self, argv: list[str]) -> list[str]:
        """`git config alias.X …` and the settings git runs as commands; `git X` for an alias
        this command line defined becomes what the alias runs."""
        k = 1
        while k < len(argv) and argv[k].startswith("-"):
            if argv[k] == "--":
                # git ends its own options there and runs the command after it
                # (`git -- reset --hard`)
                if k + 1 < len(argv):
                    self.run([*argv[:k], *argv[k + 1 :]], _NO_STDIN, 1)
                return argv
            k += 2 if argv[k] in ("-c", "-C", "--git-dir", "--work-tree", "--namespace") else 1
        if k >= len(argv):
            return argv
        sub = argv[k]
        if sub == "config":
            operands = []
            j = k + 1
            while j < len(argv):
                word = argv[j]
                if word in ("-f", "--file", "--blob", "--type", "--default"):
                    j += 2
                    continue
                if not word.startswith("-"):
                    operands.append(word)
                j += 1
            if len(operands) >= 2:
                key, value = operands[0], " ".join(operands[1:])
                if key.lower().startswith("alias."):
                    self.git_aliases[key[len("alias.") :]] = value
                    # It runs whenever `git NAME` does, in this command or a later one.
                    if value.startswith("!"):
                        self.run_text(value[1:])
                    else:
                        self.run(["git", *_split_words(value)], _NO_STDIN, 1)
                elif git_runs(key):
                    self.run_text(value.removeprefix("!"))
            return argv
        if sub in self.git_aliases:
            return [argv[0], "-c", f"alias.{sub}={self.git_aliases[sub]}", *argv[1:]]
        from_env = git_env_config(self._env()).get("alias." + sub)
        if from_env is not None:
            return [argv[0], "-c", f"alias.{sub}={from_env}", *argv[1:]]
        return argv

    def _at(self, argv: list[str], stdin: Stdin) -> None:
        """`at`/`batch` run the commands they read (stdin, or `-f FILE`) later, with sh."""
        if "-f" in argv[1:-1]:
            self._script(argv[argv.index("-f") + 1], "sh", [], _NO_STDIN)
            return
        if any(w in ("-l", "-d", "-r", "-c", "-V") for w in argv[1:]):
            return  # listing, removing, showing jobs
        self._shell_stdin(stdin, positional=None)

    def _declare(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        flags_given = [w for w in argv[1:] if w.startswith("-") and not w.startswith("--")]
        functions = any("f" in w[1:] for w in flags_given)
        # `export X=1`, `declare -x X=1`: the commands after it run with X
        exporting = not functions and (argv[0] == "export" or any("x" in w for w in flags_given))
        for word in argv[1:]:
            if word.startswith(("-", "+")):
                continue
            m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=(.*)", word, re.S)
            if m is None:
                if functions:
                    self.called.add(word)  # `export -f f`: a child shell may call it
                    if word in self.st.funcs:
                        self._call(word, [word], _NO_STDIN)
                elif exporting:
                    known = self.st.vars.get(word, ())
                    if len(known) == 1 and isinstance(known[0], str):
                        self.st.exported[word] = f"{word}={known[0]}"  # `X=1; export X`
                continue
            # `export GIT_AUTHOR_EMAIL=…` sets identity for later commands: show it alone.
            self.emit(word)
            self._setting_runs(word)
            name, _, value = m.groups()
            flags = self.flags.get(value, 0)
            self.st.vars[name] = (Symbolic(value),) if flags & (F_VAR | F_SUB) else (value,)
            if exporting:
                self.st.exported[name] = word
        return None

    def _unset(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        functions = "-f" in argv[1:]
        for word in argv[1:]:
            if word.startswith("-"):
                continue
            if functions:
                self.st.funcs.pop(word, None)
            else:
                self.st.vars[word] = ("",)
                self.st.exported.pop(word, None)
        return None

    def _read(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        names: list[str] = []
        skip = False
        for word in argv[1:]:
            if skip:
                skip = False
                continue
            if word.startswith("-"):
                skip = word[-1] in "adinNptu" and len(word) == 2
                if word in ("-a",):
                    skip = False
                continue
            names.append(word)
        names = names or ["REPLY"]
        text = "".join(stdin.texts).split("\n", 1)[0] if stdin.texts and not stdin.unknown else None
        if text is None:
            for name in names:
                self.st.vars[name] = (UNKNOWN,)
            return None
        fields = text.split(None, len(names) - 1)
        for k, name in enumerate(names):
            self.st.vars[name] = (fields[k] if k < len(fields) else "",)
        return None

    def _set_builtin(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        if "--" in argv:
            k = argv.index("--")
            current = self.st.positional
            self.st.positional = [current[0] if current else "bash", *argv[k + 1 :]]
        return None

    def _shift(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        args = self.st.positional
        if args is not None:
            count = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
            self.st.positional = [args[0], *args[1 + count :]]
        return None

    def _alias(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        for word in argv[1:]:
            name, eq, value = word.partition("=")
            if eq and not name.startswith("-"):
                self.st.aliases[name] = value
        return None

    def _trap(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        args = [w for w in argv[1:] if w != "--"]
        if not args or args[0] in ("-p", "-l", "-P") or args[0] == "-":
            return None
        if len(args) >= 2 and args[0]:
            self.run_text(args[0])  # the action runs when the signal comes
        return None

    def _source(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        if len(argv) < 2:
            return None
        path = argv[1]
        text = self._fd_text(path)
        if text is not None:
            # `exec 3<<<'…'; source /dev/fd/3`: the text given to the descriptor runs
            self.run_text(text)
            return None
        flags = self.flags.get(path, 0)
        if flags & F_PROCSUB and len(argv) == 2 and self._setup_code([path], "<("):
            self.add_dynamic(SHELL_SETUP)
            return None
        if flags & F_PROCSUB or path in _STDIN_PATHS:
            sub = self.procsubs.get(path) if flags & F_PROCSUB else stdin
            self.add_dynamic(SOURCE_SUBSTITUTION if flags & F_PROCSUB else PIPE_TO_SHELL)
            if sub is not None:
                self._code_origins(sub.origins)
                self._shell_stdin(sub, positional=None)
            return None
        if flags & F_SUB:
            self.add_dynamic(SOURCE_SUBSTITUTION)
            self._origins_of(path)
            return None
        if not self.remote:
            self._script(path, "bash", argv[2:], stdin, source=True)
        return None

    def _printf(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        args = argv[1:]
        target: str | None = None
        if len(args) >= 2 and args[0] == "-v":
            target, args = args[1], args[2:]
        text = stdout_of.printf(args)
        if text is not None and len(text) >= stdout_of.MAX_OUTPUT:
            self.issue("output-limit")
        if target is not None:
            self.st.vars[target] = (text,) if text is not None else (UNKNOWN,)
            return None
        out = Stdin()
        if text is None:
            out.unknown = True
        else:
            out.texts.append(text)
        return out

    # -- interpreters and scripts --------------------------------------------------------------

    def _interpreter(self, name: str, interp: Lang, argv: list[str], stdin: Stdin) -> None:
        if interp.family == "shell":
            script, reads_stdin, noexec = shell_reads_script(argv)
            if noexec:
                return  # `bash -n x.sh` only checks the syntax
            if script is not None:
                self._shell_script(script, argv, stdin)
            elif reads_stdin:
                self._shell_stdin(stdin, positional=None)
            return
        prog = program(interp, argv)
        for text in prog.inline:
            self.add_code(text)
            flags = self.flags.get(text, 0)
            if flags & F_SUB:
                self.add_dynamic(INLINE_CODE_SUBSTITUTION)
                self._origins_of(text)
            if flags & F_VAR:
                self.add_dynamic(INLINE_CODE_VARIABLE)
            self._scan_code(interp.family, text)
        if prog.script is not None:
            flags = self.flags.get(prog.script, 0)
            if flags & F_PROCSUB:
                self.add_dynamic(SOURCE_SUBSTITUTION)
                sub = self.procsubs.get(prog.script)
                if sub is not None:
                    self._code_origins(sub.origins)
                    for text in sub.texts:
                        self.add_code(text)
                        self._scan_code(interp.family, text)
            elif prog.script in _STDIN_PATHS:
                self._interpreter_stdin(interp, stdin)
            else:
                self._record_run([prog.script, *prog.args], " ".join([prog.script, *prog.args]))
                if not self.remote:
                    self._script(prog.script, name, prog.args, _NO_STDIN)
        if prog.reads_stdin:
            self._interpreter_stdin(interp, stdin)

    def _interpreter_stdin(self, interp: Lang, stdin: Stdin) -> None:
        if stdin.piped:
            self.add_dynamic(PIPE_TO_INTERPRETER)
            self._code_origins(stdin.origins)
        for text in stdin.texts:
            self.add_code(text)
            self._scan_code(interp.family, text)
        for path in stdin.files:
            if not self.remote:
                self._script(path, None, [], _NO_STDIN, family=interp.family)

    def _fd_of(self, path: str) -> tuple[str, str | None] | None:
        """What descriptor N was opened on, for `/dev/fd/N` (or `/proc/self/fd/N`): ("text",
        TEXT) after `exec N<<<TEXT`, ("file", FILE) after `exec N<FILE`."""
        for prefix in FD_PATHS:
            if path.startswith(prefix):
                return self.fds.get(path[len(prefix) :])
        return None

    def _fd_text(self, path: str) -> str | None:
        found = self._fd_of(path)
        return found[1] if found is not None and found[0] == "text" else None

    def _shell_script(self, script: str, argv: list[str], stdin: Stdin) -> None:
        text = self._fd_text(script)
        if text is not None:
            self.run_text(text)  # `bash /dev/fd/3` after `exec 3<<<'…'`
            return
        opened = self._fd_of(script)
        if opened is not None and opened[1] in self.procsubs:
            script = str(opened[1])  # `bash /dev/fd/$fd` after `exec {fd}< <(curl …)`
        flags = self.flags.get(script, 0) | (F_PROCSUB if script in self.procsubs else 0)
        if flags & F_PROCSUB:
            self.add_dynamic(SOURCE_SUBSTITUTION)  # `bash <(curl …)`
            sub = self.procsubs.get(script)
            if sub is not None:
                self._code_origins(sub.origins)
                self._shell_stdin(sub, positional=None, dynamic=False)
            return
        if script in _STDIN_PATHS:
            self._shell_stdin(stdin, positional=None)
            return
        k = argv.index(script) if script in argv else len(argv)
        # `bash deploy.sh prod` runs deploy.sh with `prod`: a command of the script's own for
        # the command model (docs/design/commands.md#runs)
        self._record_run([script, *argv[k + 1 :]], " ".join([script, *argv[k + 1 :]]))
        if not self.remote:
            self._script(script, "bash", argv[k + 1 :], _NO_STDIN)

    def _shell_stdin(
        self, stdin: Stdin, positional: list[str] | None, dynamic: bool = True
    ) -> None:
        """A shell reading its commands from stdin: what it reads becomes commands."""
        if stdin.piped and dynamic:
            self.add_dynamic(PIPE_TO_SHELL)
            self._code_origins(stdin.origins)
        for text in stdin.texts:
            self.add_code(text)
            self.run_text(text, positional)
        for path in stdin.files:
            if not self.remote:
                self._script(path, "bash", [], _NO_STDIN)

    def _scan_code(self, family: str, text: str) -> None:
        """Shell commands inside interpreter code (`os.system("…")`) become commands too."""
        if self.code_scanned >= MAX_CODE_SCANNED:
            self.issue("code-scan-limit")
            return
        # Imported on the first interpreter code: most commands run none, and its patterns
        # are the largest to compile.
        from agentstyle.shell.embedded import shell_calls

        found = shell_calls(family, text)
        self.code_scanned += found.scanned
        if found.dynamic:
            self.add_dynamic(CODE_SHELL_VARIABLE)
        for kind, value in found.calls:
            if self.full:
                return
            if kind == "sh":
                assert isinstance(value, str)
                self.run_text(value)
            else:
                assert isinstance(value, list)
                self.run(value, _NO_STDIN, 0)

    def _script(
        self,
        word: str,
        runner: str | None,
        args: Sequence[str],
        stdin: Stdin,
        source: bool = False,
        family: str | None = None,
    ) -> None:
        """Read the local script `word` into code; walk it when it is shell code."""
        if self.remote:
            return
        key = self._file_key(word) if self.written else None
        if key is not None and key not in self.written and self.written_overflow:
            self.issue("script-limit")  # it may be one of the files not remembered
        if key is not None and key in self.written and key not in self.scripts:
            # Written earlier in this command line: its text is known without reading it.
            self.scripts.add(key)
            self.running.append((word, key, key))
            try:
                self._script_text(self.written[key], word, runner, args, source, family)
            finally:
                self.running.pop()
            return
        if self.root is None:
            return
        if len(self.scripts) >= MAX_SCRIPTS:
            self.issue("script-limit")
            return
        if any(ch in word for ch in "$`*?[") or not word:
            return  # the path is only known at run time
        path = os.path.expanduser(word)
        if not os.path.isabs(path):
            base = self.st.dirs[0] if len(self.st.dirs) == 1 else None
            if base is None or base.startswith(("~", "$")):
                return
            path = os.path.join(base or self.root, path)
        from agentstyle.shell.files import LARGE, OK, read_project_file

        status, real, text = read_project_file(path, self.root)
        if status == LARGE:
            self.issue("script-too-large")
            return
        if status != OK or real in self.scripts:
            return
        self.scripts.add(real)
        self.running.append((word, self._file_key(word), real))
        try:
            self._script_text(text, word, runner, args, source, family)
        finally:
            self.running.pop()

    def _runs_itself(self, word: str) -> bool:
        """A script being walked starts itself again: by the word it was called by (`$0`), or
        by its path (`./spawn.sh` in spawn.sh)."""
        key = self._file_key(word)
        for called, called_key, path in self.running:
            if word == called or (key is not None and key == called_key):
                return True
            root = self.root
            if key is not None and root is not None and _real(root, key) == path:
                return True
        return False

    def _script_text(
        self,
        text: str,
        word: str,
        runner: str | None,
        args: Sequence[str],
        source: bool,
        family: str | None,
    ) -> None:
        self.add_code(text)
        kind = family or _script_family(runner, word, text)
        if kind == "shell":
            if source:  # `source x.sh` runs in this shell: its functions and variables stay
                self.run_text(text, None)
                return
            # A script is a shell of its own: its functions are only its own to call.
            saved = (self.st, self.defined, self.called, self.saw_dynamic_command)
            self.st = _fresh(saved[0])
            self.defined, self.called, self.saw_dynamic_command = {}, set(), False
            try:
                self.run_text(text, [word, *args])
                self.finish()
            finally:
                self.st, self.defined, self.called, self.saw_dynamic_command = saved
        elif kind is not None:
            self._scan_code(kind, text)

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
            out.origins = _DOWNLOAD
            return out
        if stdin.texts and not stdin.unknown and not stdin.files:
            text = stdout_of.transform(name, argv, "".join(stdin.texts))
            if text is not None and len(text) >= stdout_of.MAX_OUTPUT:
                self.issue("output-limit")
            if text is not None:
                out.texts.append(text)
                out.origins = stdin.origins | (_DECODE if name in stdout_of.DECODERS else 0)
                return out
        if name == "tee" and stdin.texts and not stdin.unknown:
            for path in (w for w in argv[1:] if not w.startswith("-")):
                self._write(path, "".join(stdin.texts), append="-a" in argv[1:])
            out.texts.extend(stdin.texts)
            return out
        if name in stdout_of.DECODERS or name in ("tee",):
            out.unknown = True
            out.origins = stdin.origins | (_DECODE if name != "tee" else 0)
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


def _endless(loop: Loop) -> int:
    """1 for a loop its condition never ends (`while true`, `while :`, `while /bin/true`,
    `while [ 1 ]`, `while [[ x ]]`, `while ((1))`, `until false`), unless its body leaves it
    on the first turn; else 0."""
    if not loop.cond.items or _leaves(loop.body):
        return 0
    return int(_constant(loop.cond.items[-1]) is (not loop.until))


def _constant(node: Node) -> bool | None:
    """The exit status a loop condition always has (True: it succeeds), None when it
    depends on anything: `true`, `:` and `false` by any path, a test of one literal word (`[ x
    ]`, `test x`, `[[ x ]]`: true when the word is not empty), `((N))` of a literal number."""
    if isinstance(node, Cond):
        tested = [_literal(w) for w in node.words]
        if len(tested) == 1 and tested[0] is not None:
            return bool(tested[0])
        return None
    if isinstance(node, ArithCmd):
        raw = node.arith.raw.strip("()$ ")
        return int(raw) != 0 if raw.isdigit() else None
    words = [p.text for p in _words_of(node)]
    if not words:
        return None
    name = command_name(words[0])
    if len(words) == 1 and name in ("true", ":", "false"):
        return name != "false"
    if name == "[" and len(words) == 3 and words[2] == "]":
        return bool(words[1])
    if name == "test" and len(words) == 2:
        return bool(words[1])
    return None


def _literal(word: Word) -> str | None:
    """The text of a word with nothing to expand, else None."""
    if all(isinstance(p, Lit) for p in word.parts):
        return "".join(p.text for p in word.parts if isinstance(p, Lit))
    return None


def _leaves(body: Seq) -> bool:
    """A loop body that leaves on its first turn: `break`, `exit` or `return` as one of its own
    statements (not under a condition, not in the background)."""
    for item, background in zip(body.items, body.background, strict=True):
        words = _words_of(item)
        if not background and words and words[0].text in ("break", "exit", "return"):
            return True
    return False


def _real(root: str, path: str) -> str:
    return os.path.realpath(os.path.join(root, path))


def _reaped(seq: Seq, turn: bool) -> list[bool]:
    """For each statement of `seq`: started in the background (`&`) and waited for by this same
    shell, so it does not outlive the list: a `wait` statement of the list comes after it (`job
    & wait`, `wait -n`, `wait $!`), or the list is a loop's body that starts with `wait` (the
    next turn reaps it). A `disown` before that wait takes the job off the shell's list."""
    names = [
        None if bg else _first_word(item)
        for item, bg in zip(seq.items, seq.background, strict=True)
    ]
    leading = turn and bool(names) and names[0] == "wait"
    out = [False] * len(names)
    after: str | None = None  # the first `wait` or `disown` after the statement
    for k in range(len(names) - 1, -1, -1):
        if seq.background[k]:
            out[k] = after == "wait" or (after is None and leading)
        elif names[k] in ("wait", "disown"):
            after = names[k]
    return out


def _first_word(node: Node) -> str | None:
    """The command word of a simple command when it is literal text."""
    if isinstance(node, Simple) and node.words:
        parts = node.words[0].parts
        if parts and all(isinstance(p, Lit) for p in parts):
            return "".join(p.text for p in parts if isinstance(p, Lit))
    return None


def _words_of(node: Node) -> list[Lit]:
    if isinstance(node, Simple) and not node.assigns and not node.redirs:
        parts = [w.parts[0] for w in node.words if len(w.parts) == 1]
        if len(parts) == len(node.words) and all(isinstance(p, Lit) for p in parts):
            return [p for p in parts if isinstance(p, Lit)]
    return []


MANY_TURNS = 1000  # a `for` list longer than this repeats its body like an endless loop
_RANGE = re.compile(r"\{(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?\}")


def _turns(items: list[Word]) -> float:
    """How many turns a `for` list gives, as far as its words say: a brace range counts its
    numbers (`{1..100000}`), `$(seq …)` of literal numbers what seq prints (`seq inf` never
    ends), every other word one."""
    total = 0.0
    for word in items:
        count = 1.0
        part = word.parts[0] if len(word.parts) == 1 else None
        if isinstance(part, Sub) and not part.quoted:
            count = _seq_count(part)
        elif all(isinstance(p, Lit) and not p.quoted for p in word.parts):
            text = "".join(p.text for p in word.parts if isinstance(p, Lit))
            for m in _RANGE.finditer(text):
                first, last, step = int(m[1]), int(m[2]), abs(int(m[3] or 1)) or 1
                count *= abs(last - first) // step + 1
        total += count
    return total


def _seq_count(sub: Sub) -> float:
    """The lines `$(seq [FIRST [STEP]] LAST)` prints (1 for any other substitution)."""
    body = sub.body
    if body is None or len(body.items) != 1:
        return 1.0
    words = [p.text for p in _words_of(body.items[0])]
    if not words or command_name(words[0]) != "seq":
        return 1.0
    numbers: list[float] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        try:
            numbers.append(float(word))
        except ValueError:
            if word in ("-f", "-s"):
                skip = True  # the format or separator
            elif not word.startswith("-"):
                return 1.0
    if not 1 <= len(numbers) <= 3:
        return 1.0
    first, step, last = (
        (1.0, 1.0, numbers[0])
        if len(numbers) == 1
        else (numbers[0], 1.0, numbers[1])
        if len(numbers) == 2
        else (numbers[0], numbers[1], numbers[2])
    )
    if step == 0 or math.isnan(first + step + last) or (last - first) * step < 0:
        return 1.0
    return math.inf if math.isinf(last) else math.floor((last - first) / step) + 1


def _endless_arith(arith: object) -> int:
    """1 for `for ((;;))` and `for ((i=0;;i++))` (no condition), else 0."""
    raw = getattr(arith, "raw", None)
    if not isinstance(raw, str):
        return 0
    parts = raw.strip("()$ ").split(";")
    return int(len(parts) == 3 and not parts[1].strip())


MAX_GLOB = 256  # file names one glob is matched to (in the extra element; the word stays)


def _holds(words: list[str], positions: list[int], root: str) -> bool:
    """Whether an absolute operand is the project's folder, one of its parents, or a glob in
    one of them (`cd /tmp/work && rm -rf *` with the project in /tmp/work/app)."""
    for i in positions:
        path = words[i].rstrip("/") or "/"
        if root == path or root.startswith(path.rstrip("/") + "/"):
            return True
        parent, _, name = path.rpartition("/")
        if any(c in name for c in "*?[") and (root + "/").startswith((parent or "") + "/"):
            return True
    return False


def _glob(base: str, pattern: str, root: str) -> list[str]:
    """`pattern`'s matches under `base`, written as the pattern was (relative or absolute);
    only inside the project, and nothing when it matches nothing (the shell keeps the word)."""
    if pattern.startswith(("~", "$")) or "\0" in pattern:
        return []
    full = pattern if pattern.startswith("/") else posixpath.join(base, pattern)
    full = posixpath.normpath(full)
    if not (full == root or full.startswith(root.rstrip("/") + "/")):
        return []
    import glob  # only for a command with a glob, inside a known project

    try:
        if pattern.startswith("/"):
            found = sorted(glob.glob(pattern))
        else:
            found = sorted(glob.glob(pattern, root_dir=base))
    except (OSError, ValueError):
        return []
    return found[:MAX_GLOB]


def _script_family(runner: str | None, word: str, text: str) -> str | None:
    """The language of a local script: its runner, else its `#!` line, else its extension."""
    name = runner
    if name is None:
        m = _SHEBANG.match(text)
        if m:
            interp = command_name(m.group(1))
            name = command_name(m.group(2)) if interp == "env" and m.group(2) else interp
    if name is None:
        ext = os.path.splitext(word)[1]
        name = _SCRIPT_LANGS.get(ext, "bash" if not ext else None)
    if name is None:
        return None
    found = lang(name)
    return found.family if found is not None else None


def _fresh(state: State) -> State:
    """The state a script starts with: the directory, nothing else of the calling shell."""
    new = State()
    new.dirs = state.dirs
    new.exported = dict(state.exported)  # a child process inherits what was exported
    for name, text in new.exported.items():
        new.vars[name] = (text.partition("=")[2],)
    return new


def _concat(outs: Sequence[Stdin | None]) -> Stdin | None:
    """The output of statements run one after another, when every one is known."""
    known = [o for o in outs if o is not None]
    if not known:
        return None
    if len(known) == 1 and len(outs) == 1:
        return known[0]
    if any(o is None for o in outs) or any(o.unknown or o.files for o in known):
        out = Stdin()
        out.unknown = True
        for o in known:
            out.origins |= o.origins
        return out
    out = Stdin()
    for o in known:
        out.texts.extend(o.texts)
        out.origins |= o.origins
    return out


_GIT_PARAMETER = re.compile(r"'([^']*)'(?:='([^']*)')?")


def git_env_config(env: Sequence[str]) -> dict[str, str]:
    """The settings git reads from its environment: GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n /
    GIT_CONFIG_VALUE_n, and GIT_CONFIG_PARAMETERS (what `git -c` passes to child gits:
    `'alias.x=reset'` or `'alias.x'='reset'`, space-separated)."""
    values = dict(text.partition("=")[::2] for text in env if text.startswith("GIT_CONFIG_"))
    out: dict[str, str] = {}
    for m in _GIT_PARAMETER.finditer(values.get("GIT_CONFIG_PARAMETERS", "")):
        key, eq, value = m[1].partition("=")
        if m[2] is not None:
            out[m[1].lower()] = m[2]
        elif eq:
            out[key.lower()] = value
    count = values.get("GIT_CONFIG_COUNT", "")
    for n in range(min(int(count), 64) if count.isdigit() else 0):
        key = values.get(f"GIT_CONFIG_KEY_{n}")
        if key is not None:
            out[key.lower()] = values.get(f"GIT_CONFIG_VALUE_{n}", "")
    return out


def _quote(word: str) -> str:
    if word and all(c.isalnum() or c in "-_./=:@%+,^" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def _split_words(text: str) -> list[str]:
    """`text` split into words the way the shell splits one command's words (quotes removed)."""
    parsed = parse(text, None, MAX_SYNTAX_DEPTH - 1)
    words: list[str] = []
    for item in parsed.tree.items:
        if isinstance(item, Simple):
            for word in [*(a.raw for a in item.assigns)]:
                words.append(word)
            for w in item.words:
                words.append(
                    "".join(
                        p.text if isinstance(p, Lit) else getattr(p, "raw", "") for p in w.parts
                    )
                )
        else:
            words.extend(text.split())
            break
    return words


# The items of xargs in `_input_named`'s walk: a word no command line holds.
_ITEM = "__style_xargs_item__"
_MAX_INPUT_LEVEL = 4


def _startup_files(argv: Sequence[str], env: Sequence[str]) -> list[str]:
    found = [e.split("=", 1)[1] for e in env if e.startswith(("BASH_ENV=", "ENV="))]
    for k, word in enumerate(argv[1:], 1):
        if word in ("--rcfile", "--init-file") and k + 1 < len(argv):
            found.append(argv[k + 1])
        elif word.startswith(("--rcfile=", "--init-file=")):
            found.append(word.split("=", 1)[1])
        elif word == "--" or not word.startswith(("-", "+")):
            break
    return [f for f in found if f]


def _spaced(word: str) -> bool:
    return any(c.isspace() for c in word)


def _parallel_command(template: list[str], args: list[str], quoted: bool = False) -> str:
    """One job of GNU parallel: the template with `{}`, `{1}`, `{.}`, … replaced, or the
    arguments appended; with no template the input itself is the command. Parallel quotes
    what it substitutes (`{}` of `a;b` is one word); `quoted` also keeps each template word
    one word (`parallel -q`)."""
    if not template:
        return " ".join(args)
    joined = " ".join(args)
    replaced = False

    def value(m: re.Match[str]) -> str:
        nonlocal replaced
        replaced = True
        key = m.group(1)
        if key.isdigit():
            k = int(key) - 1
            return args[k] if 0 <= k < len(args) else ""
        base = joined.rsplit("/", 1)[-1]
        return {
            "": joined,
            ".": os.path.splitext(joined)[0],
            "/": base,
            "//": posixpath.dirname(joined) or ".",
            "/.": os.path.splitext(base)[0],
            "#": "1",
            "%": "1",
        }.get(key, m.group(0))

    if quoted:  # substituted inside each word, then the word quoted whole
        text = " ".join(_quote(_PARALLEL_SLOT.sub(value, w)) for w in template)
    else:
        text = _PARALLEL_SLOT.sub(lambda m: _quote(value(m)), " ".join(template))
    return text if replaced else text + " " + " ".join(_quote(a) for a in args)


_PARALLEL_SLOT = re.compile(r"\{(\d+|\.|/|//|/\.|#|%|)\}")


_BUILTINS = {
    "cd": Walker._cd,
    "pushd": Walker._cd,
    "popd": Walker._cd,
    "export": Walker._declare,
    "declare": Walker._declare,
    "typeset": Walker._declare,
    "local": Walker._declare,
    "readonly": Walker._declare,
    "unset": Walker._unset,
    "read": Walker._read,
    "set": Walker._set_builtin,
    "shift": Walker._shift,
    "alias": Walker._alias,
    "trap": Walker._trap,
    "source": Walker._source,
    ".": Walker._source,
    "printf": Walker._printf,
}
