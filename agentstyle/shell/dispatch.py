"""Running one argument vector: wrappers peeled, then what its first word names.

A builtin, a function, a script, an interpreter, xargs or parallel, or a program recorded as it
is."""

from __future__ import annotations

import os
import posixpath
import re
import time

from agentstyle.shell.builtins import BASH_BUILTINS, PIPE_TO_SHELL, SHELL_SETUP, split_words
from agentstyle.shell.lex import MAX_SYNTAX_DEPTH
from agentstyle.shell.programs import input_picks_program, lang
from agentstyle.shell.scripts import Scripts
from agentstyle.shell.walkstate import DECODE, DOWNLOAD, NO_STDIN, Stdin
from agentstyle.shell.words import (
    F_EXPANDED,
    F_POSITIONAL,
    F_SUB,
    F_VAR,
    MAX_ALTERNATIVES,
    Value,
)
from agentstyle.shell.wrappers import (
    command_name,
    commands_in_options,
    find_slots,
    find_starts,
    unwrap,
)
from agentstyle.shell.wrapspecs import SHELLS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_UNWRAP = 32  # wrappers peeled off one simple command (`sudo env nice … cmd`)

MAX_CALL_DEPTH = 16  # shell functions calling functions

_CLOCK_EVERY = 256  # commands recorded between two looks at the clock

DOWNLOADED_CODE = "downloaded-code"

DECODED_CODE = "decoded-code"

EVAL_SUBSTITUTION = "eval-substitution"

EVAL_VARIABLE = "eval-variable"

SHELL_C_SUBSTITUTION = "shell-c-substitution"

SHELL_C_VARIABLE = "shell-c-variable"

SHELL_C_POSITIONAL = "shell-c-positional"

DYNAMIC_COMMAND = "dynamic-command"

COMPUTED_COMMAND = "computed-command"

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

_POSITIONAL_USE = re.compile(r"\$(?:[0-9@*#]|\{[0-9@*#])")

# Commands whose every operand is a path (no subcommand, mode or count among them): after a
# sure `cd`, their resolved form says all there is.
_ALL_PATHS = frozenset({"rm", "rmdir", "unlink", "shred", "mv", "cp", "ln", "cat"})

_SHELL_LEVEL = frozenset({"builtin", "command", "time"})  # wrappers the shell itself runs


class Dispatch(Scripts):
    """The walker's step from an argument vector to what it runs."""

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
        name, argv, fresh = self._recorded(argv, stdin)
        return self._run_named(name, argv, stdin, peeled, fresh)

    def _recorded(self, argv: list[str], stdin: Stdin) -> tuple[str, list[str], list[str]]:
        """Record `argv` (and its plain and lower-case names); the name it runs as, its words
        (lower-cased where the name is), and the lines it added that were new."""
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
        return name, argv, fresh

    def _run_named(
        self, name: str, argv: list[str], stdin: Stdin, peeled: int, fresh: list[str]
    ) -> Stdin | None:
        """Walk what the recorded command runs: an alias, a function, a builtin, the commands
        in its options, a wrapped command, an interpreter or a script; its stdout when known."""
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
        hashed = self.st.hashed.get(name)
        if hashed is not None and (name not in BASH_BUILTINS or name in self.st.disabled):
            return self.run([hashed, *argv[1:]], stdin, peeled)  # `hash -p /bin/rm wipe; wipe`
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
                self._script(path, name, [], NO_STDIN, source=True)
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
            out.origins = DECODE
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
        self.frames.append({})
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
            self._return(self.frames.pop())
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
                    self.walk(body, NO_STDIN)
                finally:
                    self.calling.pop()

    def _unwrapped(
        self, name: str, argv: list[str], found: object, stdin: Stdin, peeled: int
    ) -> Stdin | None:
        from agentstyle.shell.wrappers import Unwrapped

        assert isinstance(found, Unwrapped)
        for assign in found.assigns:
            self.emit(assign)
            self._setting_runs(assign)  # `env EDITOR=CMD git commit`, as `EDITOR=CMD git commit`
        if found.noexec:
            return None
        # `env A=1 cmd`, `sudo A=1 cmd`: cmd runs with A set, as with `A=1 cmd`
        saved_env, saved_cleared = self.command_env, self.cleared
        if found.clears:  # `env -i A=1 cmd`: cmd has A and nothing else
            self.command_env, self.cleared = list(found.assigns), True
        elif found.assigns:
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
                    self._child_shell(text, positional, argv[0])
                else:
                    self.run_text(text, positional)
            for before, text, after in found.split:
                words = split_words(text)
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
                        self.run(inner, NO_STDIN, peeled + 1)
                finally:
                    self.found = saved_found
            if found.parallel is not None:
                self._parallel(found.parallel, stdin)
            if name == "find":
                self._resolved(name, argv)  # its start points are paths: `cd / && find .`
        finally:
            self.command_env, self.cleared = saved_env, saved_cleared
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
            self.add_unknown_parts(word, EVAL_SUBSTITUTION, EVAL_VARIABLE)

    def _shell_c_dynamic(self, text: str, positional: list[str] | None, shell: str) -> None:
        self._origins_of(text)
        self.add_unknown_parts(text, SHELL_C_SUBSTITUTION, SHELL_C_VARIABLE)
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
        if origins & DOWNLOAD:
            self.add_dynamic(DOWNLOADED_CODE)
        if origins & DECODE:
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
            # the items are the files a `find` before it finds (`find ~/.ssh -name 'id_*' |
            # xargs -I{} curl -F f=@{} …`): what `{}` stands for, as in `find -exec`
            named_only = self._named_by(stdin.sources) if not (named or picks) else ()
            if named_only and not spec.from_file and spec.replace in (None, "{}"):
                # `find . -name '*.pyc' | xargs rm -rf` is `find . -name '*.pyc' -exec rm -rf {} +`
                self.appending = saved
                try:
                    self.run(_with_found(spec.argv, spec.replace, named_only), NO_STDIN, peeled + 1)
                finally:
                    self.args_from, self.data_from = saved_from, saved_data
                return
            saved_found, saved_slot = self.found, self.slot
            if spec.replace in (None, "{}"):
                self.found = self._found_by(stdin.sources) or self.found
            if spec.replace and not (spec.replace == "{}" and self.found):
                self.slot = spec.replace  # `-I%`: a word that starts with % is only known then
            try:
                self.run(spec.argv, NO_STDIN, peeled + 1)
            finally:
                self.appending = saved
                self.args_from, self.data_from = saved_from, saved_data
                self.found, self.slot = saved_found, saved_slot
            return
        text = "".join(stdin.texts)
        if spec.replace is not None:
            items = [line.strip() for line in text.split("\n") if line.strip()]
        elif spec.delimiter is not None:
            items = [x for x in text.split(spec.delimiter) if x]
        else:
            items = split_words(text)
        if not items:
            if not spec.if_any:  # `printf '' | xargs -r rm -rf /` runs nothing
                self.run(spec.argv, NO_STDIN, peeled + 1)
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
            self.run(argv, NO_STDIN, peeled + 1)
        if len(groups) > MAX_ALTERNATIVES:
            self.issue("alternatives-limit")

    def _child_shell(self, text: str, positional: list[str] | None, shell: str) -> None:
        """`bash -c TEXT`: a new shell, which has the variables it is started with
        (`X=rm bash -c '"$X" -rf /'`; none but env's own after `env -i`), and whose `cd` and
        assignments end with it. Those the line set without exporting stay visible to it: a
        guard reads what it may run, not only what it surely runs."""
        saved = self.st
        self.st = saved.copy()
        if self.cleared:
            self.st.vars, self.st.exported = {}, {}
        for assign in self.command_env:
            name, _, value = assign.partition("=")
            self.st.vars[name.removesuffix("+")] = (value,)
            self.st.exported[name.removesuffix("+")] = assign
        self.cleared = False
        try:
            self._shell_c_dynamic(text, positional, shell)
            self.run_text(text, positional)
        finally:
            self.st = saved

    def _return(self, frame: dict[str, tuple[tuple[Value, ...] | None, str | None]]) -> None:
        """A function returns: the names it made its own hold the caller's values again."""
        for name, (values, exported) in frame.items():
            if values is None:
                self.st.vars.pop(name, None)
            else:
                self.st.vars[name] = values
            if exported is None:
                self.st.exported.pop(name, None)
            else:
                self.st.exported[name] = exported

    def _found_by(self, sources: frozenset[int]) -> tuple[str, ...]:
        """The files the `find` runs among `sources` find (what they print, one a line): as
        its tests name them, else every entry under each start point (`find . | xargs rm -rf`
        is not `rm -rf .`)."""
        out: list[str] = []
        for k in sorted(sources):
            argv = self.run_list[k].argv if k < len(self.run_list) else ()
            if argv and command_name(argv[0]) == "find" and "-exec" not in argv:
                named = any(w in ("-name", "-iname", "-path", "-ipath") for w in argv)
                slots = find_slots(list(argv))
                out += slots if named else [s.rstrip("/") + "/*" for s in slots]
        return tuple(out)

    def _named_by(self, sources: frozenset[int]) -> tuple[str, ...]:
        """The files the runs among `sources` print when every one is a `find` that prints
        only what its name tests name (`find . -name '*.pyc'`); else nothing."""
        out: list[str] = []
        for k in sorted(sources):
            argv = list(self.run_list[k].argv) if k < len(self.run_list) else []
            if not argv or command_name(argv[0]) != "find" or not _prints_named(argv):
                return ()
            out += find_slots(argv)
        return tuple(out)

    def _input_named(self, argv: list[str], replace: str | None) -> bool:
        """Whether an xargs item becomes the name of a command that code the command line
        wrote runs (`xargs sh -c 'eval "$1"' _`, `'command "$1"'`, `'cmd=$1; "$cmd"'`): then
        the input chooses the program, even when it is known, since how xargs splits it into
        items decides which one lands there. Found by walking the command, apart, with a
        marker for the items."""
        if self.level >= _MAX_INPUT_LEVEL:
            return False
        words = [w.replace(replace, _ITEM) for w in argv] if replace else [*argv, _ITEM]
        apart = type(self)(None, self.deadline)
        apart.level = self.level + 1
        apart.run(words, NO_STDIN, 0)
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


def _quote(word: str) -> str:
    if word and all(c.isalnum() or c in "-_./=:@%+,^" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


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
    "cd": Dispatch._cd,
    "pushd": Dispatch._cd,
    "popd": Dispatch._cd,
    "export": Dispatch._declare,
    "declare": Dispatch._declare,
    "typeset": Dispatch._declare,
    "local": Dispatch._declare,
    "readonly": Dispatch._declare,
    "unset": Dispatch._unset,
    "read": Dispatch._read,
    "mapfile": Dispatch._mapfile,
    "readarray": Dispatch._mapfile,
    "set": Dispatch._set_builtin,
    "shift": Dispatch._shift,
    "shopt": Dispatch._shopt,
    "setopt": Dispatch._shopt,
    "unsetopt": Dispatch._shopt,
    "alias": Dispatch._alias,
    "hash": Dispatch._hash,
    "enable": Dispatch._enable,
    "trap": Dispatch._trap,
    "let": Dispatch._let,
    "source": Dispatch._source,
    ".": Dispatch._source,
    "printf": Dispatch._printf,
}


def _with_found(argv: list[str], replace: str | None, found: tuple[str, ...]) -> list[str]:
    """xargs's command with the files a find prints in its words: appended, or each in place
    of `{}` (`-I{}`), as `find -exec` has them."""
    if replace is None:
        return [*argv, *found]
    return [
        f for w in argv for f in ((w.replace(replace, x) for x in found) if replace in w else (w,))
    ]


# What a find may hold and still print only the files its name tests name: tests that narrow
# (with their value) and actions that print. `-o`, `!`, `-not`, `,` and parentheses are left
# out: `find . -name '*.pyc' -o -print` prints everything else too.
_NARROWING_VALUED = frozenset(
    [
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-type",
        "-xtype",
        "-size",
        "-perm",
        "-user",
        "-group",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-newer",
        "-maxdepth",
        "-mindepth",
    ]
)
_NARROWING = _NARROWING_VALUED | frozenset(
    ["-empty", "-depth", "-xdev", "-mount", "-print", "-print0", "-a", "-and", "-true"]
)


def _prints_named(argv: list[str]) -> bool:
    """Whether a `find` prints only the files its -name/-iname/-path/-ipath tests name (its
    slots, `find_slots`): every other word of its expression only narrows or prints."""
    _starts, expression = find_starts(argv)
    named, i = False, 0
    while i < len(expression):
        word = expression[i]
        if word not in _NARROWING:
            return False
        named = named or word in ("-name", "-iname", "-path", "-ipath")
        i += 2 if word in _NARROWING_VALUED else 1
    return named
