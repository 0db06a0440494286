"""Commands that run other commands: what `sudo …`, `xargs …`, `bash -c …`, `find -exec` run.

`unwrap(argv)` reads one simple command's words and says what it runs: argument vectors
(with our stdin or without), shell strings (with their positional parameters), assignments
it sets, the directory it changes to, whether the command runs elsewhere (a container, an
ssh host: no local scripts). Each wrapper's option shape is a table row: which options take
a value, how many operands come before the command, which options mean there is no command.
"""

from __future__ import annotations

import re

from agentstyle.shell.gitruns import GIT_BUILTINS, git_commands
from agentstyle.shell.wrapspecs import (
    COMPOSE,
    CONTAINER_EXEC,
    CONTAINER_GLOBAL,
    CONTAINER_TOOLS,
    EDITORS,
    FIND_EXEC,
    FLOCK,
    GIT_GLOBAL,
    HYPERFINE,
    NPX,
    PARALLEL,
    REMOTE_HOME,
    RTK_OWN,
    RTK_RUNS,
    RUNNERS,
    RUNS_OPTION,
    SCRIPT,
    SHELL_OPTS_WITH_ARG,
    SHELLS,
    SPECS,
    SSH,
    SU,
    TMUX_GLOBAL,
    TMUX_KEYS,
    TMUX_SHELL,
    UVX,
    WATCH,
    XARGS,
    Spec,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    Unwrapper = Callable[[str, list[str], "Unwrapped"], "Unwrapped | None"]


_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


class Unwrapped:
    """What one wrapper runs."""

    __slots__ = (
        "argvs",
        "assigns",
        "chdir",
        "clears",
        "detached",
        "found",
        "noexec",
        "parallel",
        "remote",
        "repeats",
        "split",
        "strings",
        "xargs",
    )

    def __init__(self) -> None:
        self.argvs: list[list[str]] = []  # run with the wrapper's stdin
        self.detached: list[list[str]] = []  # run without it (`find -exec`)
        # what `{}` stands for in a command find runs: the files it finds, as path words
        self.found: tuple[str, ...] = ()
        # shell strings, with their positional parameters ($0 first) when the caller gave any
        self.strings: list[tuple[str, list[str] | None]] = []
        # (words before, text split into words as the shell would, words after): `env -S`,
        # a git alias
        self.split: list[tuple[list[str], str, list[str]]] = []
        self.assigns: list[str] = []
        self.chdir: str | None = None
        self.remote = False
        self.repeats = False  # runs the command again and again until stopped (`watch`)
        self.noexec = False  # `bash -n`: read, never run
        self.clears = False  # `env -i`: the command starts with no environment but its own
        self.xargs: Xargs | None = None
        self.parallel: Parallel | None = None


class Xargs:
    """How `xargs` turns its stdin into arguments of `argv`."""

    __slots__ = ("argv", "delimiter", "from_file", "if_any", "max_args", "replace")

    def __init__(self, argv: list[str], replace: str | None, delimiter: str | None, max_args: int):
        self.argv = argv
        self.replace = replace
        self.if_any = False  # `-r`: nothing runs when the input holds no item
        self.from_file = False  # `-a FILE`/`--arg-file`: the items come from a file, not stdin
        self.delimiter = delimiter  # None: blanks and newlines (with quotes), "\0" with -0
        self.max_args = max_args  # 0: as many as fit


class Parallel:
    """GNU parallel: a command template and its inputs (`:::` lists, else stdin lines)."""

    __slots__ = ("inputs", "template")

    def __init__(self, template: list[str], inputs: list[list[str]] | None) -> None:
        self.template = template
        self.inputs = inputs


def command_name(word: str) -> str:
    """`/usr/bin/git` → `git`, `git.exe` → `git`: the name a rule anchors at."""
    if "$" in word or "`" in word or "(" in word:
        return word  # `$(cmd)/x`, `$HOME/bin/x`: not a path known before it runs
    name = word.rsplit("/", 1)[-1]
    if "\\" in name:
        name = name.rsplit("\\", 1)[-1]
    if name.lower().endswith(".exe"):
        name = name[:-4]
    return name


# -- reading options -------------------------------------------------------------------------------


class _Opts:
    """Options read by `_options`: where the operands start and what the options said."""

    __slots__ = ("chdir", "end", "nocmd", "seen", "strings", "values")

    def __init__(self) -> None:
        self.end = 0
        self.chdir: str | None = None
        self.nocmd = False
        self.strings: list[str] = []
        self.seen: list[str] = []  # every option name in order (`-c`, `--user`)
        self.values: dict[str, str] = {}


def _options(argv: Sequence[str], i: int, spec: Spec) -> _Opts:
    """Read the options of `argv` from `i` (getopt, stopping at the first operand or `--`)."""
    out = _Opts()
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "--":
            i += 1
            break
        if not word.startswith("-") or word == "-":
            break
        if spec.numeric and word[1:].isdigit():
            i += 1
            continue
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            width = spec.long.get(name, 0)
            if width and not eq:
                value = argv[i + 1] if i + 1 < n else ""
                step = 1 + width
            else:
                step = 1
            _record(out, spec, name, value if (width or eq) else None)
            i += step
            continue
        step = 1
        for j in range(1, len(word)):
            flag = "-" + word[j]
            if word[j] in spec.short:
                rest = word[j + 1 :]
                if rest:
                    _record(out, spec, flag, rest)
                else:
                    _record(out, spec, flag, argv[i + 1] if i + 1 < n else "")
                    step = 2
                break
            if word[j] in spec.optional:
                _record(out, spec, flag, word[j + 1 :])
                break
            _record(out, spec, flag, None)
        i += step
    out.end = min(i, n)
    return out


def _record(out: _Opts, spec: Spec, name: str, value: str | None) -> None:
    out.seen.append(name)
    if value is not None:
        out.values[name] = value
    if name in spec.nocmd:
        out.nocmd = True
    if name in spec.chdir and value is not None:
        out.chdir = value
    if name in spec.strings and value is not None:
        out.strings.append(value)


def _generic(argv: list[str], i: int, spec: Spec, found: Unwrapped) -> Unwrapped:
    opts = _options(argv, i, spec)
    found.chdir = opts.chdir
    found.remote = spec.remote
    for text in opts.strings:
        found.strings.append((text, None))
    if opts.nocmd or opts.strings:
        return found
    i = opts.end + spec.operands
    if spec.assigns:
        while i < len(argv) and _ASSIGNMENT.match(argv[i]):
            found.assigns.append(argv[i])
            i += 1
    if i < len(argv):
        if spec.join:
            _joined(argv[i:], found)
        else:
            found.argvs.append(argv[i:])
    return found


def _joined(words: list[str], found: Unwrapped) -> None:
    """Words a program joins with spaces into one shell string (`watch`, `ssh`): what runs is
    that string. A word that holds spaces was most likely meant as one word (`watch sh -c 'git
    reset --hard'`), as `watch -x` or another version would pass it: both readings count."""
    found.strings.append((" ".join(words), None))
    if len(words) > 1 and any(c.isspace() for w in words for c in w):
        found.argvs.append(words)


# -- the wrappers ---------------------------------------------------------------------------------


def unwrap(argv: list[str]) -> Unwrapped | None:
    """What `argv` runs, or None when it is not a command that runs other commands."""
    name = command_name(argv[0])
    found = Unwrapped()
    spec = SPECS.get(name)
    if spec is not None:
        if name == "taskset" and any(w.startswith("-") and "p" in w[1:] for w in argv[1:2]):
            return found  # `taskset -p MASK PID`
        return _generic(argv, 1, spec, found)
    if len(argv) > 1 and (name, argv[1]) in RUNNERS:
        if name == "ip":
            return _unwrap_ip(argv, found)
        return _generic(argv, 2, RUNNERS[(name, argv[1])], found)
    step = _UNWRAPPERS.get(name)
    if step is not None:
        return step(name, argv, found)
    if name in SHELLS:
        return _unwrap_shell(argv, found)
    return None


# Options whose value is a command the program runs itself, on this machine: git's are in
# shell/gitruns.py.


def commands_in_options(name: str, argv: Sequence[str]) -> list[str]:
    """Shell commands given as option values the program runs itself (`tar --to-command`,
    `rsync -e`, `ssh -o ProxyCommand=`, `vim -c '!cmd'`, `less '+!cmd'`, `git -c
    core.pager=`, `git rebase --exec`)."""
    out: list[str] = []
    if name in EDITORS:
        for k, word in enumerate(argv[1:], start=1):
            value = None
            if word in ("-c", "--cmd") and k + 1 < len(argv):
                value = argv[k + 1]
            elif word.startswith("+") and len(word) > 1:
                value = word[1:]
            if value is not None:
                value = value.lstrip(": ")
                if value.startswith("!"):
                    out.append(value[1:])
                elif value.startswith(("r !", "r!", "w !", "w!")):
                    out.append(value.split("!", 1)[1])
        return out
    if name == "git":
        return git_commands(argv)
    if name == "less":
        # `less '+!cmd' file` (`++!cmd` for every file): less runs its initial command at
        # start, and its `!` command is a shell command
        starts = (w.lstrip("+") for w in argv[1:] if w.startswith("+"))
        return [c[1:] for c in starts if c.startswith("!") and c[1:].strip()]
    shape = RUNS_OPTION.get(name)
    if shape is None:
        return out
    takes, prefixes, letters = shape
    words = list(argv[1:])
    k = 0
    while k < len(words):
        word = words[k]
        k += 1
        if word == "--":
            break
        if word in takes and k < len(words):
            out.append(words[k])
            k += 1
            continue
        if word.startswith("--"):
            out += [word[len(p) :] for p in prefixes if word.startswith(p)]
            continue
        if not word.startswith("-") or word == "-":
            continue
        # a cluster of short options: the first that takes a value takes the rest of the word
        # (or the next word); that value is a command for the ones in `takes`
        for at, letter in enumerate(word[1:], start=1):
            if letter not in letters:
                continue
            value = word[at + 1 :]
            if not value and k < len(words):
                value, k = words[k], k + 1
            if "-" + letter in takes:
                out.append(value)
            elif letter == "o":
                out += _ssh_setting_command(value, prefixes)
            break
    return [c for c in out if c.strip()]


def _ssh_setting_command(setting: str, keys: frozenset[str]) -> list[str]:
    """The command an ssh `-o` setting runs (`ProxyCommand=…`, `proxycommand …`), if any."""
    m = re.match(r"\s*([A-Za-z]+)\s*(?:=|\s)\s*(.*)", setting, re.S)
    if m is None or m.group(1).lower() not in keys:
        return []
    return [m.group(2)]


def _unwrap_env(argv: list[str], found: Unwrapped) -> Unwrapped:
    """`env [-i] [-u NAME] [-C DIR] [-P PATH] [-S STRING] [NAME=value…] [cmd…]`."""
    i = 1
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word in ("-", "--ignore-environment"):  # `-` is the old spelling of `-i`
            found.clears = True
            i += 1
            continue
        if not word.startswith("-"):
            break
        if not word.startswith("--") and "i" in word[1 : _first_valued(word) or None]:
            found.clears = True
        width = 1
        value: str | None = None
        key = word
        if word.startswith("--"):
            key, eq, value_text = word.partition("=")
            if key in ("--split-string", "--unset", "--chdir", "--argv0"):
                value = value_text if eq else (argv[i + 1] if i + 1 < n else "")
                width = 1 if eq else 2
            elif key in ("--help", "--version"):
                return found
        else:
            for j in range(1, len(word)):
                if word[j] in "uCSPa":
                    key = "-" + word[j]
                    value = word[j + 1 :] or (argv[i + 1] if i + 1 < n else "")
                    width = 1 if word[j + 1 :] else 2
                    break
        if key in ("-S", "--split-string") and value is not None:
            # `env -S 'A=1 cmd args'` splits the string into more arguments.
            found.split.append(([argv[0]], value, argv[i + width :]))
            return found
        if key in ("-C", "--chdir"):
            found.chdir = value
        i += width
    # every word with a `=` is a variable to env, whatever its name (`BASH_FUNC_f%%=() {…}`)
    while i < n and "=" in argv[i].lstrip("="):
        found.assigns.append(argv[i])
        i += 1
    if i < n:
        found.argvs.append(argv[i:])
    return found


def _first_valued(word: str) -> int:
    """Where, in a cluster of env's short options, the first that takes a value is (0: none)."""
    return next((j for j in range(1, len(word)) if word[j] in "uCSPa"), 0)


def _unwrap_xargs(argv: list[str], found: Unwrapped) -> Unwrapped:
    opts = _options(argv, 1, XARGS)
    inner = argv[opts.end :] or ["echo"]
    replace: str | None = None
    for flag in ("-I", "-J", "--replace", "-i"):
        if flag in opts.values:
            replace = opts.values[flag] or "{}"
    if ("-i" in opts.seen or "--replace" in opts.seen) and replace is None:
        replace = "{}"  # `-i`, `--replace` alone: the replace string is {}
    delimiter: str | None = None
    if "-0" in opts.seen or "--null" in opts.seen:
        delimiter = "\0"
    for flag in ("-d", "--delimiter"):
        if flag in opts.values:
            delimiter = _unescape_delimiter(opts.values[flag])
    max_args = 0
    for flag in ("-n", "--max-args", "-L", "--max-lines", "-l"):
        value = opts.values.get(flag, "")
        if value.isdigit():
            max_args = int(value)
        elif flag == "-l" and flag in opts.seen:
            max_args = 1
    if replace is not None:
        max_args = 1
    found.xargs = Xargs(inner, replace, delimiter, max_args)
    found.xargs.from_file = "-a" in opts.values or "--arg-file" in opts.values
    found.xargs.if_any = "-r" in opts.seen or "--no-run-if-empty" in opts.seen
    found.detached.append(inner)
    return found


def _unescape_delimiter(text: str) -> str:
    table = {"\\n": "\n", "\\t": "\t", "\\0": "\0", "\\\\": "\\"}
    return table.get(text, text[:1] or "\n")


def _unwrap_parallel(argv: list[str], found: Unwrapped) -> Unwrapped:
    opts = _options(argv, 1, PARALLEL)
    if "--dry-run" in opts.seen:
        return found  # prints the jobs it would run and runs none
    rest = argv[opts.end :]
    template: list[str] = []
    inputs: list[list[str]] = []
    k = 0
    while k < len(rest) and rest[k] not in (":::", "::::", ":::+", "::::+"):
        template.append(rest[k])
        k += 1
    from_stdin = k >= len(rest)
    while k < len(rest):
        sep = rest[k]
        k += 1
        group: list[str] = []
        while k < len(rest) and rest[k] not in (":::", "::::", ":::+", "::::+"):
            group.append(rest[k])
            k += 1
        if sep.startswith("::::"):
            from_stdin = True  # input files: their lines are only known at run time
        else:
            inputs.append(group)
    found.parallel = Parallel(template, None if from_stdin and not inputs else inputs)
    return found


def _unwrap_script(argv: list[str], found: Unwrapped) -> Unwrapped:
    opts = _options(argv, 1, SCRIPT)
    for text in opts.strings:
        found.strings.append((text, None))
    operands = argv[opts.end :]
    if not opts.strings and len(operands) > 1:
        found.argvs.append(operands[1:])  # BSD/macOS: `script [-q] FILE COMMAND…`
    return found


def _unwrap_su(name: str, argv: list[str], found: Unwrapped) -> Unwrapped:
    opts = _options(argv, 1, SU)
    for text in opts.strings:
        found.strings.append((text, None))
    if name == "runuser" and "-u" in opts.values:
        rest = argv[opts.end :]
        if rest:
            found.argvs.append(rest)  # `runuser -u USER -- cmd…`
        return found
    if name == "sg" and not opts.strings:
        rest = argv[opts.end :]
        if len(rest) > 1:
            _joined(rest[1:], found)  # `sg GROUP cmd`: run by sh -c
        return found
    if not opts.strings:
        # `su - root -c …` puts options after the user: read the words after the operands too.
        rest = argv[opts.end :]
        for k, word in enumerate(rest):
            if word in ("-c", "--command") and k + 1 < len(rest):
                found.strings.append((rest[k + 1], None))
            elif word.startswith("--command="):
                found.strings.append((word.partition("=")[2], None))
    return found


def _unwrap_flock(argv: list[str], found: Unwrapped) -> Unwrapped:
    opts = _options(argv, 1, FLOCK)
    strings = list(opts.strings)
    rest = argv[opts.end :]
    if len(rest) > 1 and rest[1] in ("-c", "--command") and len(rest) > 2:
        strings.append(rest[2])  # `flock FILE -c CMD`: GNU getopt reads options after FILE
    for text in strings:
        found.strings.append((text, None))
    if strings:
        return found
    if len(rest) > 1:
        found.argvs.append(rest[1:])  # `flock FILE cmd…`; `flock FD` alone runs nothing
    return found


# find's options before its start points, and those of them that take a value
_FIND_LEADING = frozenset({"-H", "-L", "-P"})
_FIND_NAMES = frozenset({"-name", "-iname"})


def find_starts(argv: list[str]) -> tuple[list[str], list[str]]:
    """A `find`'s start points as written (none given: empty) and its expression, the words
    after them."""
    i, starts = 1, []
    while i < len(argv) and (argv[i] in _FIND_LEADING or argv[i].startswith(("-D", "-O"))):
        i += 2 if argv[i] == "-D" else 1
    while i < len(argv) and not argv[i].startswith(("-", "(", "!", ",")):
        starts.append(argv[i])
        i += 1
    return starts, argv[i:]


def find_slots(argv: list[str]) -> tuple[str, ...]:
    """The files `find` hands the command it runs as `{}`: under each start point (`.` when
    none is given), named as its -name/-iname tests say (`./**/.env` and `./.env`), or
    -path's pattern; the start point itself when no test names them."""
    written, expression = find_starts(argv)
    starts = [s.rstrip("/") or "/" for s in written] or ["."]
    tests = _unpruned(expression)
    names = [
        f
        for k in range(len(tests) - 1)
        if tests[k] in _FIND_NAMES
        for f in _name_forms(tests[k], tests[k + 1])
    ]
    paths = [tests[k + 1] for k in range(len(tests) - 1) if tests[k] in ("-path", "-ipath")]
    if not names and not paths:
        return tuple(starts)
    # `**/` may be no folder at all: `find . -name .git` finds ./.git itself too
    return tuple([f for s in starts for n in names for f in (f"{s}/**/{n}", f"{s}/{n}")] + paths)


def _name_forms(test: str, name: str) -> list[str]:
    """The names a -name/-iname pattern stands for as a shell glob: -iname's lower case too,
    and `.git` where the pattern matches it, since find's wildcards match a leading dot (`-name
    '*'` finds .git, which the shell's `*` does not)."""
    from fnmatch import fnmatchcase

    forms = list(dict.fromkeys([name, name.lower()] if test == "-iname" else [name]))
    dotted = any(f[:1] in ("*", "?", "[") and fnmatchcase(".git", f) for f in forms)
    return [*forms, ".git"] if dotted else forms


def _unpruned(expression: list[str]) -> list[str]:
    """find's expression without the branches that only prune (`-name .git -prune -o …`):
    what they name is left out of the walk, never handed to the command. A branch that also
    runs something (`-name .git -prune -exec rm -rf {} +`) runs it on what it names, and
    stays; so does a lone branch."""
    branches: list[list[str]] = [[]]
    for word in expression:
        if word in ("-o", "-or"):
            branches.append([])
        else:
            branches[-1].append(word)
    if len(branches) == 1:
        return expression
    return [
        w
        for branch in branches
        if "-prune" not in branch or any(x in FIND_EXEC or x == "-delete" for x in branch)
        for w in branch
    ]


def _unwrap_find(argv: list[str], found: Unwrapped) -> Unwrapped:
    found.found = find_slots(argv)
    i = 1
    while i < len(argv):
        if argv[i] in FIND_EXEC:
            end = i + 1
            while end < len(argv) and argv[end] not in (";", "+"):
                end += 1
            if end > i + 1:
                found.detached.append(argv[i + 1 : end])
            i = end
        i += 1
    return found


def _unwrap_ip(argv: list[str], found: Unwrapped) -> Unwrapped:
    # `ip netns exec NAME cmd…`
    if argv[2:3] == ["exec"] and len(argv) > 4:
        found.argvs.append(argv[4:])
    return found


def _unwrap_container(name: str, argv: list[str], found: Unwrapped) -> Unwrapped | None:
    """The command of `docker exec`, `docker compose exec`, `kubectl exec … -- CMD`."""
    if name in ("kubectl", "oc"):
        # `kubectl [-n NS] exec [-it] POD [-c C] -- CMD…`; the old form without `--` is not read.
        if "--" in argv and "exec" in argv[1 : argv.index("--")]:
            rest = argv[argv.index("--") + 1 :]
            if rest:
                found.argvs.append(rest)
            found.remote = True
            return found
        return None
    if name == "docker-compose":
        i = _options(argv, 1, COMPOSE).end
    else:
        i = _options(argv, 1, CONTAINER_GLOBAL).end
        if argv[i : i + 1] == ["compose"]:
            i = _options(argv, i + 1, COMPOSE).end
    if argv[i : i + 1] != ["exec"]:
        return None
    i = _options(argv, i + 1, CONTAINER_EXEC).end + 1  # then CONTAINER / SERVICE
    if i < len(argv):
        found.argvs.append(argv[i:])
    found.remote = True
    return found


def _unwrap_tmux(argv: list[str], found: Unwrapped) -> Unwrapped | None:
    opts = _options(argv, 1, TMUX_GLOBAL)
    found.strings.extend((text, None) for text in opts.strings)  # `tmux -c CMD`
    i = opts.end
    if i >= len(argv):
        return found if opts.strings else None
    sub = argv[i]
    if sub in TMUX_SHELL:
        opts = _options(argv, i + 1, Spec(TMUX_SHELL[sub]))
        rest = argv[opts.end :]
        if rest:
            found.strings.append((" ".join(rest), None))
        return found
    if sub in ("send-keys", "send"):
        opts = _options(argv, i + 1, Spec("NtcT", nocmd=("-X",)))
        if opts.nocmd:
            return found
        keys = argv[opts.end :]
        literal = "-l" in opts.seen
        text = "".join(k if literal else TMUX_KEYS.get(k, k + " ") for k in keys)
        if text.strip():
            found.strings.append((text, None))  # keys typed into the pane's shell
        return found
    return None


def _unwrap_git(argv: list[str], found: Unwrapped) -> Unwrapped | None:
    """`git -c alias.NAME=VALUE … NAME args`: the alias is what runs."""
    if not any(w.startswith(("alias.", "-calias.")) for w in argv[1:]):
        return None
    aliases: dict[str, str] = {}
    kept: list[str] = [argv[0]]
    i = 1
    while i < len(argv):
        word = argv[i]
        if word.startswith("-c") and (len(word) > 2 or i + 1 < len(argv)):
            # `-c alias.x=…` or attached, `-calias.x=…`
            setting = word[2:] if len(word) > 2 else argv[i + 1]
            step = 1 if len(word) > 2 else 2
            key, eq, value = setting.partition("=")
            if key.lower().startswith("alias.") and eq:
                aliases[key[len("alias.") :]] = value
            else:
                kept.extend(argv[i : i + step])
            i += step
            continue
        if not word.startswith("-"):
            break
        opts = _options([argv[0], *argv[i : i + 2]], 1, GIT_GLOBAL)
        step = max(1, opts.end - 1)
        kept.extend(argv[i : i + step])
        i += step
    if i >= len(argv) or argv[i] not in aliases or argv[i] in GIT_BUILTINS:
        return None
    value = aliases[argv[i]]
    rest = argv[i + 1 :]
    if value.startswith("!"):
        # git runs a `!` alias with sh, the arguments appended
        found.strings.append((" ".join([value[1:], *(_sh_quote(w) for w in rest)]), None))
    else:
        found.split.append((kept, value, rest))
    return found


def _sh_quote(word: str) -> str:
    if word and all(c.isalnum() or c in "-_./=:@%+," for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def _unwrap_shell(argv: list[str], found: Unwrapped) -> Unwrapped | None:
    parsed = shell_c(argv)
    if parsed is None:
        return None
    text, positional, noexec = parsed
    found.noexec = noexec
    if not noexec:
        found.strings.append((text, positional))
    return found


def _shell_options(argv: Sequence[str]) -> tuple[int, str, bool]:
    """Read a shell's options: (index of the first operand, the option letters, `-` seen).

    Options come in any order and clusters (`-lc`, `-ec`, `-c -e`, `-eo pipefail`); `--`
    ends them, so `bash -c -- 'cmd'` runs `cmd`.
    """
    i = 1
    letters: list[str] = []
    n = len(argv)
    while i < n:
        word = argv[i]
        if word in SHELL_OPTS_WITH_ARG:
            i += 2
            continue
        if word == "--":
            return i + 1, "".join(letters), False
        if word == "-":
            return i + 1, "".join(letters), True
        if not word.startswith(("-", "+")) or len(word) < 2:
            break
        if not word.startswith("--"):
            cluster = word[1:]
            at = min((k for k in (cluster.find("o"), cluster.find("O")) if k >= 0), default=-1)
            given = cluster if at < 0 else cluster[:at]
            if word.startswith("-"):
                # what follows the cluster's `o` is its value (zsh's `-onotify`), not letters
                letters.append(given)
            else:  # `+n` turns off what an earlier `-n` turned on (`bash -n +n` runs)
                letters = ["".join(c for c in group if c not in given) for group in letters]
            if at >= 0 and at == len(cluster) - 1:
                i += 1  # the cluster's `o` takes the next word
        i += 1
    return i, "".join(letters), False


def shell_c(argv: Sequence[str]) -> tuple[str, list[str], bool] | None:
    """`bash [opts] -c STRING [ARG0 [ARGS…]]`: (string, [$0, $1, …], -n given); None without -c."""
    i, letters, _ = _shell_options(argv)
    if "c" not in letters:
        return None
    n = len(argv)
    text = argv[i] if i < n else ""
    positional = list(argv[i + 1 :]) if i + 1 < n else [argv[0]]
    return text, positional, "n" in letters


def shell_reads_script(argv: Sequence[str]) -> tuple[str | None, bool, bool]:
    """For a shell without `-c`: (script operand or None, reads stdin, -n given)."""
    i, letters, dash = _shell_options(argv)
    noexec = "n" in letters
    if dash or "s" in letters or i >= len(argv):
        return None, True, noexec
    return argv[i], False, noexec


def _unwrap_watch(argv: list[str], found: Unwrapped) -> Unwrapped:
    opts = _options(argv, 1, WATCH)
    rest = argv[opts.end :]
    found.repeats = True
    if rest:
        if "-x" in opts.seen or "--exec" in opts.seen:
            found.argvs.append(rest)
        else:
            _joined(rest, found)
    return found


def _unwrap_eval(argv: list[str], found: Unwrapped) -> Unwrapped:
    if len(argv) > 1:
        found.strings.append((" ".join(argv[1:]), None))
    return found


def _unwrap_machine_exec(argv: list[str], found: Unwrapped) -> Unwrapped | None:
    """`lxc exec NAME -- cmd` (incus, multipass): the command runs in the machine."""
    if argv[1:2] != ["exec"]:
        return None
    if "--" in argv:
        rest = argv[argv.index("--") + 1 :]
        if rest:
            found.argvs.append(rest)
    found.remote = True
    return found


def _unwrap_ssh(argv: list[str], found: Unwrapped) -> Unwrapped:
    opts = _options(argv, 1, SSH)
    i = opts.end + 1  # the operand after the options is the host
    if i < len(argv):
        _joined(argv[i:], found)
    found.remote = True
    found.chdir = REMOTE_HOME
    return found


def _unwrap_vagrant(argv: list[str], found: Unwrapped) -> Unwrapped | None:
    if argv[1:2] != ["ssh"]:
        return None
    for k, word in enumerate(argv):
        if word in ("-c", "--command") and k + 1 < len(argv):
            found.strings.append((argv[k + 1], None))
    found.remote = True
    found.chdir = REMOTE_HOME
    return found


def _unwrap_screen(argv: list[str], found: Unwrapped) -> Unwrapped:
    opts = _options(argv, 1, Spec("SceHhpstTX", nocmd=("-X", "-r", "-R", "-x", "-ls", "-list")))
    if not opts.nocmd and opts.end < len(argv):
        found.argvs.append(argv[opts.end :])
    return found


def _unwrap_hyperfine(argv: list[str], found: Unwrapped) -> Unwrapped:
    opts = _options(argv, 1, HYPERFINE)
    for text in opts.strings:
        found.strings.append((text, None))
    found.strings.extend((w, None) for w in argv[opts.end :])
    return found


def _unwrap_nix_shell(argv: list[str], found: Unwrapped) -> Unwrapped:
    for k, word in enumerate(argv):
        if word in ("--run", "--command") and k + 1 < len(argv):
            found.strings.append((argv[k + 1], None))
    return found


def _unwrap_nix(argv: list[str], found: Unwrapped) -> Unwrapped | None:
    if argv[1:2] not in (["shell"], ["develop"]):
        return None
    for k, word in enumerate(argv):
        if word in ("-c", "--command") and k + 1 < len(argv):
            found.argvs.append(argv[k + 1 :])
            break
    return found


def _unwrap_rtk(argv: list[str], found: Unwrapped) -> Unwrapped | None:
    """`rtk [-v|-u|--skip-env…] PROGRAM args…` runs PROGRAM; `rtk test CMD…` runs CMD."""
    k = 1
    while k < len(argv) and argv[k].startswith("-"):
        k += 1
    if k >= len(argv) or argv[k] in RTK_OWN:
        return None
    found.argvs.append(argv[k + 1 :] if argv[k] in RTK_RUNS else argv[k:])
    return found


# The wrappers that are not one option shape (SPECS, RUNNERS), by name: (name, argv, found).
_UNWRAPPERS: dict[str, Unwrapper] = {
    **dict.fromkeys(("npx", "pnpx", "bunx"), lambda _, argv, found: _generic(argv, 1, NPX, found)),
    "uvx": lambda _, argv, found: _generic(argv, 1, UVX, found),
    **dict.fromkeys(("env", "genv"), lambda _, argv, found: _unwrap_env(argv, found)),
    **dict.fromkeys(("xargs", "gxargs"), lambda _, argv, found: _unwrap_xargs(argv, found)),
    **dict.fromkeys(("parallel", "sem"), lambda _, argv, found: _unwrap_parallel(argv, found)),
    "watch": lambda _, argv, found: _unwrap_watch(argv, found),
    "script": lambda _, argv, found: _unwrap_script(argv, found),
    **dict.fromkeys(("su", "runuser", "sg"), _unwrap_su),
    "flock": lambda _, argv, found: _unwrap_flock(argv, found),
    "eval": lambda _, argv, found: _unwrap_eval(argv, found),
    "find": lambda _, argv, found: _unwrap_find(argv, found),
    **dict.fromkeys((*CONTAINER_TOOLS, "docker-compose", "kubectl", "oc"), _unwrap_container),
    **dict.fromkeys(
        ("lxc", "incus", "multipass"), lambda _, argv, found: _unwrap_machine_exec(argv, found)
    ),
    "ssh": lambda _, argv, found: _unwrap_ssh(argv, found),
    "vagrant": lambda _, argv, found: _unwrap_vagrant(argv, found),
    "tmux": lambda _, argv, found: _unwrap_tmux(argv, found),
    "screen": lambda _, argv, found: _unwrap_screen(argv, found),
    "hyperfine": lambda _, argv, found: _unwrap_hyperfine(argv, found),
    "nix-shell": lambda _, argv, found: _unwrap_nix_shell(argv, found),
    "nix": lambda _, argv, found: _unwrap_nix(argv, found),
    "git": lambda _, argv, found: _unwrap_git(argv, found),
    "rtk": lambda _, argv, found: _unwrap_rtk(argv, found),
}
