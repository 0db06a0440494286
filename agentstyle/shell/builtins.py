"""The walker's builtins that change the shell's state, and the files a command line writes.

`cd`, `export`, `read`, `set`, `alias`, `trap`, `source`…; the files written are remembered for a
later run."""

from __future__ import annotations

import os
import posixpath
import re

from agentstyle.shell import stdout as stdout_of
from agentstyle.shell.gitruns import GIT_BUILTINS, git_runs
from agentstyle.shell.lex import MAX_SYNTAX_DEPTH
from agentstyle.shell.syntax import parse
from agentstyle.shell.tree import Lit, Redir, Simple
from agentstyle.shell.walkstate import NO_STDIN, Stdin, WalkerBase
from agentstyle.shell.words import (
    F_GLOB,
    F_PROCSUB,
    F_SUB,
    F_VAR,
    UNKNOWN,
    UNSET,
    Symbolic,
    arith_values,
    expand_text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_WRITTEN = 256  # files written with known text that are remembered for a later run

# Kinds of code built at run time (`shell.dynamic`).
PIPE_TO_SHELL = "pipe-to-shell"

SOURCE_SUBSTITUTION = "source-substitution"

# `eval "$(direnv hook bash)"`, `source <(kubectl completion bash)`: the output of a known
# shell-setup generator is evaluated. It is recorded under its own kind, not as code no rule
# can read: these tools print the environment, hooks and completions they are asked for, and
# a shell profile runs exactly these lines.
SHELL_SETUP = "shell-setup"

# bash's builtins: a name `hash -p` binds still runs the builtin while it is enabled.
_BASH_BUILTIN_NAMES = """. : [ alias bg bind break builtin caller cd command compgen complete
compopt continue declare dirs disown echo enable eval exec exit export false fc fg getopts hash
help history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly
return set shift shopt source suspend test times trap true type typeset ulimit umask unalias
unset wait"""
BASH_BUILTINS = frozenset(_BASH_BUILTIN_NAMES.split())

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

STDIN_PATHS = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})


class Builtins(WalkerBase):
    """The walker with the shell's own builtins."""

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
            self._script(value, "bash", [], NO_STDIN, source=True)  # sourced by a new shell
        elif name.startswith("BASH_FUNC_") and value.lstrip().startswith("()"):
            # `env 'BASH_FUNC_ls%%=() { …; }' bash -c ls`: a new bash defines the function
            # from its environment, and the name may then run its body
            self.run_text(value.lstrip()[2:])

    def _writes(self, redirs: Sequence[Redir], text: str) -> None:
        """Files a command writes its known output to: a script run later in the same command
        line is read from here (`cat > x.sh <<EOF … EOF; bash x.sh`)."""
        for redir in redirs:
            if redir.heredoc is not None or redir.target is None:
                continue
            if redir.op in (">", ">|", ">>", "&>", "&>>") and redir.fd in (None, "1"):
                path = expand_text(redir.target.parts, self)[0]
                self._write(path, text, append=redir.op.endswith(">>"))
            elif redir.op == ">&" and redir.fd in (None, "1"):  # `>&3`: where fd 3 was opened
                opened = self.fds.get(expand_text(redir.target.parts, self)[0].rstrip("-"))
                if opened is not None and opened[0] == "file" and opened[1]:
                    self._write(opened[1], text, append=True)

    def _write(self, path: str, text: str, append: bool) -> None:
        if path in self.readers:
            self.feed(path, text)  # `>(bash)`, a coproc: a command reads it
            return
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
                    self.run([*argv[:k], *argv[k + 1 :]], NO_STDIN, 1)
                return argv
            k += 2 if argv[k] in ("-c", "-C", "--git-dir", "--work-tree", "--namespace") else 1
        if k >= len(argv):
            return argv
        sub = argv[k]
        if sub == "config":
            operands: list[str] = []
            j = k + 1
            while j < len(argv):
                word = argv[j]
                # `git config KEY VALUE` stops reading options at its key, so a value may
                # start with a dash (`alias.l "-c core.pager=… log"`); `git config set` does not
                if operands[:1] not in ([], ["set"]):
                    operands.append(word)
                elif word in ("-f", "--file", "--blob", "--type", "--default"):
                    j += 1
                elif not word.startswith("-"):
                    operands.append(word)
                j += 1
            if operands[:1] == ["set"]:
                operands = operands[1:]
            if len(operands) >= 2:
                key, value = operands[0], " ".join(operands[1:])
                if key.lower().startswith("alias.") and key[6:].lower() in GIT_BUILTINS:
                    pass  # never runs: git's own command of that name does
                elif key.lower().startswith("alias."):
                    self.git_aliases[key[len("alias.") :]] = value
                    # It runs whenever `git NAME` does, in this command or a later one.
                    if value.startswith("!"):
                        self.run_text(value[1:])
                    else:
                        self.run(["git", *split_words(value)], NO_STDIN, 1)
                elif git_runs(key):
                    self.run_text(value.removeprefix("!"))
            return argv
        if sub in GIT_BUILTINS:
            return argv  # an alias cannot replace one of git's own commands
        if sub in self.git_aliases:
            return [argv[0], "-c", f"alias.{sub}={self.git_aliases[sub]}", *argv[1:]]
        from_env = git_env_config(self._env()).get("alias." + sub)
        if from_env is not None:
            return [argv[0], "-c", f"alias.{sub}={from_env}", *argv[1:]]
        return argv

    def _at(self, argv: list[str], stdin: Stdin) -> None:
        """`at`/`batch` run the commands they read (stdin, or `-f FILE`) later, with sh."""
        if "-f" in argv[1:-1]:
            self._script(argv[argv.index("-f") + 1], "sh", [], NO_STDIN)
            return
        if any(w in ("-l", "-d", "-r", "-c", "-V") for w in argv[1:]):
            return  # listing, removing, showing jobs
        self._shell_stdin(stdin, positional=None)

    def _declare(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        flags_given = [w for w in argv[1:] if w.startswith("-") and not w.startswith("--")]
        functions = any("f" in w[1:] for w in flags_given)
        # `export X=1`, `declare -x X=1`: the commands after it run with X
        exporting = not functions and (argv[0] == "export" or any("x" in w for w in flags_given))
        # in a function, `local`, `declare` and `typeset` (not -g) make the name its own
        scoped = argv[0] in ("local", "declare", "typeset") and not any(
            "g" in w for w in flags_given
        )
        for word in argv[1:]:
            if word.startswith(("-", "+")):
                continue
            m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(\+?)=(.*)", word, re.S)
            if m is None:
                if scoped and not functions and self._local(word):
                    self.st.vars[word] = (UNSET,)  # `local X`: the function's own, unset
                if functions:
                    self.called.add(word)  # `export -f f`: a child shell may call it
                    if word in self.st.funcs:
                        self._call(word, [word], NO_STDIN)
                elif exporting:
                    known = self.st.vars.get(word, ())
                    if len(known) == 1 and isinstance(known[0], str):
                        self.st.exported[word] = f"{word}={known[0]}"  # `X=1; export X`
                continue
            # `export GIT_AUTHOR_EMAIL=…` sets identity for later commands: show it alone.
            self.emit(word)
            self._setting_runs(word)
            name, _, value = m.groups()
            if any("n" in w[1:] for w in flags_given) and re.fullmatch(r"[A-Za-z_]\w*", value):
                self.namerefs[name] = value  # `declare -n ref=var`: `$ref` is `$var` from here
                continue
            if scoped:
                self._local(name)  # `local X=…`, `declare X=…` in a function
            flags = self.flags.get(value, 0)
            self.st.vars[name] = (Symbolic(value),) if flags & (F_VAR | F_SUB) else (value,)
            if exporting:
                self.st.exported[name] = word
        return None

    def _local(self, name: str) -> bool:
        """`local NAME` (and `declare`/`typeset` without -g, in a function): the function's own
        NAME from here on; the caller's comes back when it returns (`_call`). True when it is
        newly the function's own."""
        if not self.frames or name in self.frames[-1]:
            return False
        self.frames[-1][name] = (self.st.vars.get(name), self.st.exported.get(name))
        return True

    def _unset(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        functions = "-f" in argv[1:]
        for word in argv[1:]:
            if word.startswith("-"):
                continue
            if functions:
                self.st.funcs.pop(word, None)
            else:
                self.st.vars[word] = (UNSET,)
                self.st.exported.pop(word, None)
        return None

    def _read(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        names, values = _builtin_words(argv, "dinNptu")
        names = names or ["REPLY"]
        stdin = self._input_fd(values.get("u"), stdin)
        text = "".join(stdin.texts).split("\n", 1)[0] if stdin.texts and not stdin.unknown else None
        if text is None:
            for name in names:
                self.st.vars[name] = (UNKNOWN,)
            return None
        fields = text.split(None, len(names) - 1)
        for k, name in enumerate(names):
            self.st.vars[name] = (fields[k] if k < len(fields) else "",)
        return None

    def _mapfile(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        """`mapfile -t rows` (`readarray`): the array of the lines it reads, from stdin or the
        descriptor `-u N` names (`exec {fd}<<<'…'; mapfile -tu "$fd" rows`)."""
        names, values = _builtin_words(argv, "dnOsCcu")
        name = names[-1] if names else "MAPFILE"
        if values.get("C") and set(values) <= set("dnOsCcut"):
            # `-C CALLBACK`: evaluated every `-c` lines (an option mapfile does not know makes
            # it fail first: `mapfile -C CMD --bad rows` runs nothing)
            self.run_text(values["C"])
        stdin = self._input_fd(values.get("u"), stdin)
        if not stdin.texts or stdin.unknown:
            self.st.vars[name] = (UNKNOWN,)
            return None
        lines = "".join(stdin.texts).splitlines(keepends="t" not in values)
        self.st.vars[name] = (tuple(lines),)
        return None

    def _input_fd(self, fd: str | None, stdin: Stdin) -> Stdin:
        """What `read -u N` reads: the text descriptor N was opened on (`exec 3<<<'…'`), or
        nothing known; stdin when no descriptor is named."""
        if fd is None:
            return stdin
        opened = self.fds.get(fd)
        out = Stdin()
        if opened is not None and opened[0] == "text" and opened[1] is not None:
            out.texts.append(opened[1])
        else:
            out.unknown = True
        return out

    def _set_builtin(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        """`set -- ARGS` (the positional parameters); `set -a` / `set -o allexport` (`+a`,
        `+o` undo it): every variable set after it is exported to the commands it runs."""
        for k, word in enumerate(argv[1:], start=1):
            if word == "--":
                break
            named = word in ("-o", "+o") and argv[k + 1 : k + 2] == ["allexport"]
            if named or (word[:1] in "-+" and word[1:].isalpha() and "a" in word[1:]):
                self.st.allexport = word.startswith("-")
        if "--" in argv:
            k = argv.index("--")
            current = self.st.positional
            self.st.positional = [current[0] if current else "bash", *argv[k + 1 :]]
        return None

    def _shopt(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        """`shopt -s dotglob` / `-u`, zsh's `setopt globdots` / `unsetopt`: whether the globs of
        the commands after it match dot-files (`.git`, `.env`); `shopt -s lastpipe`."""
        words = [w.lower().replace("_", "") for w in argv[1:]]
        if argv[0] == "shopt" and ("-s" in words or "-u" in words):
            on = "-s" in words
            if "dotglob" in words:
                self.st.dotglob = on
            if "lastpipe" in words:  # the last stage of a pipeline runs in this shell
                self.st.lastpipe = on
        elif "globdots" in words:
            self.st.dotglob = argv[0] == "setopt"
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

    def _hash(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        """`hash -p /bin/rm wipe`: the name `wipe` runs that program from now on (a builtin's
        name only once `enable -n` turned the builtin off); `hash -r` forgets them all, and so
        does setting PATH (`_set`)."""
        names, values = _builtin_words(argv, "pdt")
        if "r" in values:
            self.st.hashed = {}
        if values.get("p"):
            for name in names:
                self.st.hashed[name] = values["p"]
        elif "d" in values:
            for name in [values["d"], *names]:
                self.st.hashed.pop(name, None)
        return None

    def _enable(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        """`enable -n echo`: the builtin is off, so `echo` is looked up as a program."""
        names, values = _builtin_words(argv, "f")
        if "n" in values:
            self.st.disabled = self.st.disabled | set(names)
        else:
            self.st.disabled = self.st.disabled - set(names)
        return None

    def _let(self, argv: list[str], stdin: Stdin) -> Stdin | None:
        """`let EXPR…`: each word is an arithmetic expression (`let x` with x='a[$(cmd)]')."""
        for word in argv[1:]:
            arith_values(word, self)
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
        if flags & F_PROCSUB or path in STDIN_PATHS:
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


MAX_GLOB = 256  # file names one glob is matched to (in the extra element; the word stays)


def _builtin_words(argv: list[str], valued: str) -> tuple[list[str], dict[str, str]]:
    """A builtin's operands and its options' values (`read -u 3 -r x`, `mapfile -tu3 rows`):
    the letters in `valued` take the rest of the word or the next word; the others are flags,
    recorded with an empty value."""
    names: list[str] = []
    values: dict[str, str] = {}
    k = 1
    while k < len(argv):
        word = argv[k]
        k += 1
        if not word.startswith("-") or word == "-":
            names.append(word)
            continue
        for at, letter in enumerate(word[1:], start=1):
            if letter in valued:
                value = word[at + 1 :]
                if not value and k < len(argv):
                    value, k = argv[k], k + 1
                values[letter] = value
                break
            values[letter] = ""
    return names, values


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


def split_words(text: str) -> list[str]:
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
