"""Split a shell command into the simple commands it runs and the code it feeds interpreters."""

from __future__ import annotations

import functools
import os
import re
import stat
import time
from dataclasses import dataclass

# Not `typing.TYPE_CHECKING`: importing typing alone costs the hook ~2 ms; mypy honours the name.
TYPE_CHECKING = False
if TYPE_CHECKING:  # tree-sitter is loaded lazily, see `_parser`
    from collections.abc import Sequence

    from tree_sitter import Node as _Node
    from tree_sitter import Parser

__all__ = [
    "MAX_ELEMENTS",
    "MAX_NESTING",
    "MAX_PARSE_SECONDS",
    "MAX_SCRIPT_BYTES",
    "ShellParse",
    "parse_shell",
]

# Bounds on the work one command can cause: a typical command parses in well under a
# millisecond, a hostile 50,000-character one in a fraction of a second, and no input keeps the
# parser busy much past MAX_PARSE_SECONDS.
MAX_NESTING = 5  # `bash -c` / `eval` strings parsed inside each other
MAX_ELEMENTS = 10_000  # simple commands kept; the walk stops past this
MAX_SCRIPT_BYTES = 256 * 1024  # a local script larger than this is not read
MAX_SCRIPTS = 32  # distinct local scripts read for one command
MAX_UNWRAP = 16  # wrappers peeled off one simple command (`sudo env nice … cmd`)
# Syntax-tree nesting (summed over nested strings) walked before the text counts as
# unparseable; it keeps the recursive walk far from Python's recursion limit.
_MAX_TREE_DEPTH = 150
# tree-sitter's error recovery is quadratic on some hostile input (tens of thousands of `<<`
# take seconds): one parse may take this long, all parses of one command together
# MAX_PARSE_SECONDS. A parse cut short counts as unparseable (the whole text is one element).
PARSE_SLICE_SECONDS = 0.5
MAX_PARSE_SECONDS = 1.5
_READ_CHUNK = 1024  # `node.text` reads through the callback too: small chunks, little copying


@dataclass(frozen=True, slots=True)
class ShellParse:
    """What a shell command string runs.

    `commands` holds every simple command the shell would run, normalized: quotes removed the
    way the shell removes them, words joined by one space, redirections dropped, heredoc bodies
    cut out. Expansions (`$x`, `$(…)`, globs) stay as written; the commands inside `$(…)` are
    elements of their own. Leading `VAR=value` assignments are elements of their own and the
    command without them is another. For a wrapper (`sudo`, `env`, `xargs`, `bash -c`,
    `docker exec`, `kubectl exec … --`, `ssh HOST CMD`, …) both the wrapper command and the
    command(s) it runs are elements.

    `code` holds the program text handed to interpreters: heredoc and herestring bodies fed to
    `python`, `node`, `bash`, …, inline `-c`/`-e` programs of non-shell interpreters, and the text
    of local scripts the command runs (regular files under `cwd`, at most 256 KiB; never for a
    command run in a container or on an ssh host, whose files are not the project's).

    `fallback` is true when the text could not be parsed (a syntax error such as an unbalanced
    quote, or nesting deeper than the walk follows); `commands` is then the whole stripped text
    as one element and `code` is empty. A `bash -c`/`eval` string that does not parse stays one
    element of its own without making the whole parse fall back.
    """

    commands: tuple[str, ...]
    code: tuple[str, ...]
    fallback: bool


@functools.cache
def _parser() -> Parser:
    # Imported here, not at module top: the hook imports this module on every event, and
    # tree-sitter is only worth loading once a Bash command actually needs matching.
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def parse_shell(command: str, cwd: str | None = None) -> ShellParse:
    """Parse `command` as bash; read local scripts only under `cwd` (none when it is None)."""
    text = command.strip()
    if not text:
        return ShellParse(commands=(), code=(), fallback=False)
    walker = _Walker(cwd)
    if not walker.parse(command, depth=0):
        return ShellParse(commands=(text,), code=(), fallback=True)
    return ShellParse(commands=tuple(walker.commands), code=tuple(walker.code), fallback=False)


# ---------------------------------------------------------------------------------------------
# Words: the shell's quote removal, applied to one syntax node.

_BACKSLASH_UNQUOTED = re.compile(r"\\(\n|.)", re.DOTALL)
_BACKSLASH_DOUBLE = re.compile(r'\\([$`"\\\n])')
_ANSI_C = re.compile(
    r"\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})|c(.)|(.))",
    re.DOTALL,
)
_ANSI_C_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def _unescape_unquoted(raw: str) -> str:
    return _BACKSLASH_UNQUOTED.sub(lambda m: "" if m[1] == "\n" else m[1], raw)


def _unescape_double(raw: str) -> str:
    return _BACKSLASH_DOUBLE.sub(lambda m: "" if m[1] == "\n" else m[1], raw)


def _ansi_c_char(m: re.Match[str]) -> str:
    hex2, hex4, hex8, octal, ctrl, other = m.groups()
    if hex2 or hex4 or hex8:
        code = int(hex2 or hex4 or hex8, 16)
    elif octal:
        code = int(octal, 8) & 0xFF
    elif ctrl:
        code = ord(ctrl.upper()) ^ 0x40
    else:
        return _ANSI_C_SIMPLE.get(other, other)
    return chr(code) if code < 0x110000 else "\ufffd"


def _text(node: _Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


def _unquote(node: _Node) -> str:
    """The word after quote removal; expansions and substitutions stay as written."""
    kind = node.type
    raw = _text(node)
    if kind == "word":
        return _unescape_unquoted(raw)
    if kind == "raw_string":
        return raw[1:-1]
    if kind == "string":
        return _unescape_double(raw[1:-1])
    if kind == "translated_string":
        return _unescape_double(raw[2:-1])
    if kind == "ansi_c_string":
        return _ANSI_C.sub(_ansi_c_char, raw[2:-1])
    if kind in ("concatenation", "command_name"):
        # Children of a word are adjacent, but keep any uncovered byte so nothing is lost.
        out: list[str] = []
        pos = node.start_byte
        base = node.start_byte
        data = node.text or b""
        for child in node.children:
            if child.start_byte > pos:
                out.append(data[pos - base : child.start_byte - base].decode("utf-8", "replace"))
            out.append(_unquote(child))
            pos = child.end_byte
        if node.end_byte > pos:
            out.append(data[pos - base :].decode("utf-8", "replace"))
        return "".join(out)
    return raw


# ---------------------------------------------------------------------------------------------
# Commands that run other commands.

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
# Shells whose stdin/heredoc text is bash-compatible enough to split into commands too.
_POSIX_SHELLS = _SHELLS - {"fish"}


class _Opts:
    """getopt-style option shapes of one command: which options swallow a value."""

    # Internal records are plain slotted classes, not dataclasses: building a dataclass costs
    # about a millisecond at import, and this module is imported on every hook call.
    __slots__ = ("long_arg", "short_arg")

    def __init__(self, short_arg: str = "", long_arg: frozenset[str] = frozenset()) -> None:
        self.short_arg = short_arg
        self.long_arg = long_arg


def _option_width(word: str, opts: _Opts) -> int:
    """How many words option `word` spans: 2 when its value is the next word."""
    if word.startswith("--"):
        return 2 if "=" not in word and word in opts.long_arg else 1
    for j in range(1, len(word)):
        if word[j] in opts.short_arg:
            # The value is the rest of this word (`-n10`), or the next word when none is left.
            return 2 if j == len(word) - 1 else 1
    return 1


def _skip_options(argv: Sequence[str], i: int, opts: _Opts) -> int:
    """Index of the first operand at or after `i`, skipping options and their values."""
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return i + 1
        if not word.startswith("-") or word == "-":
            return i
        i += _option_width(word, opts)
    return i


# Prefix commands: options, then the command they run with the same stdin.
_PREFIXES: dict[str, _Opts] = {
    "sudo": _Opts(
        "ugpCDrtUThR",
        frozenset(
            {
                "--user",
                "--group",
                "--prompt",
                "--close-from",
                "--chdir",
                "--role",
                "--type",
                "--other-user",
                "--command-timeout",
                "--host",
                "--chroot",
            }
        ),
    ),
    "doas": _Opts("uC"),
    "nice": _Opts("n", frozenset({"--adjustment"})),
    "nohup": _Opts(),
    "time": _Opts("fo", frozenset({"--format", "--output"})),
    "stdbuf": _Opts("ioe", frozenset({"--input", "--output", "--error"})),
    "exec": _Opts("a"),
    "command": _Opts(),
    "builtin": _Opts(),
}
_TIMEOUT = _Opts("sk", frozenset({"--signal", "--kill-after"}))
_ENV = _Opts("uCS", frozenset({"--unset", "--chdir", "--split-string"}))
_XARGS = _Opts(
    "adEILnPs",
    frozenset(
        {
            "--arg-file",
            "--delimiter",
            "--eof",
            "--replace",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        }
    ),
)
_SHELL_OPTS_WITH_ARG = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# `docker exec [OPTS] CONTAINER CMD…`, `docker compose exec [OPTS] SERVICE CMD…`: the command
# runs in a container, with our stdin under `-i` (`docker exec -i db psql < dump.sql`).
_CONTAINER_EXEC = _Opts(
    "uwe",
    frozenset({"--user", "--workdir", "--env", "--env-file", "--detach-keys", "--index"}),
)
_CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl"})
_COMPOSE = _Opts("fp", frozenset({"--file", "--project-name", "--env-file", "--profile"}))
_CONTAINER_GLOBAL = _Opts(
    "cHl", frozenset({"--context", "--host", "--config", "--log-level", "--url", "--connection"})
)
# `ssh [OPTS] HOST [CMD…]`: the words after the host are one command string for the remote shell.
_SSH = _Opts("BbcDEeFIiJLlmOoPpRSWw")


class _Unwrapped:
    """What a wrapper runs: argv lists (same stdin), shell strings, assignments it sets."""

    __slots__ = ("argvs", "assigns", "remote", "strings")

    def __init__(self) -> None:
        self.argvs: list[list[str]] = []
        self.strings: list[str] = []
        self.assigns: list[str] = []
        self.remote = False  # runs on another filesystem (container, ssh): no local scripts


def _command_name(argv: Sequence[str]) -> str:
    return argv[0].rsplit("/", 1)[-1]


def _unwrap(argv: list[str]) -> _Unwrapped | None:
    name = _command_name(argv)
    found = _Unwrapped()
    if name in _PREFIXES:
        i = _skip_options(argv, 1, _PREFIXES[name])
        if name in ("command", "builtin") and any(
            w.startswith("-") and ("v" in w or "V" in w) for w in argv[1:i]
        ):
            return found  # `command -v rm` only looks `rm` up
        if name == "sudo":  # sudo accepts VAR=value before the command
            while i < len(argv) and _ASSIGNMENT.match(argv[i]):
                found.assigns.append(argv[i])
                i += 1
        if i < len(argv):
            found.argvs.append(argv[i:])
        return found
    if name == "timeout":
        i = _skip_options(argv, 1, _TIMEOUT) + 1  # the operand after the options is DURATION
        if i < len(argv):
            found.argvs.append(argv[i:])
        return found
    if name == "env":
        return _unwrap_env(argv, found)
    if name == "xargs":
        i = _skip_options(argv, 1, _XARGS)
        if i < len(argv):
            found.argvs.append(argv[i:])
        return found
    if name == "eval":
        if len(argv) > 1:
            found.strings.append(" ".join(argv[1:]))
        return found
    if name == "su":
        for i, word in enumerate(argv[1:], start=1):
            if word in ("-c", "--command") and i + 1 < len(argv):
                found.strings.append(argv[i + 1])
            elif word.startswith("--command="):
                found.strings.append(word.partition("=")[2])
        return found
    if name == "find":
        return _unwrap_find(argv, found)
    if name in _CONTAINER_TOOLS or name in ("docker-compose", "kubectl", "oc"):
        return _unwrap_container(name, argv, found)
    if name == "ssh":
        i = _skip_options(argv, 1, _SSH) + 1  # the operand after the options is the host
        if i < len(argv):
            found.strings.append(" ".join(argv[i:]))
        found.remote = True
        return found
    if name in _SHELLS:
        shell_c = _shell_c_string(argv)
        if shell_c is None:
            return None
        found.strings.append(shell_c)
        return found
    return None


def _unwrap_env(argv: list[str], found: _Unwrapped) -> _Unwrapped:
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word != "-" and not word.startswith("-"):
            break
        split: str | None = None
        if word in ("-S", "--split-string") and i + 1 < len(argv):
            split = argv[i + 1]
        elif word.startswith("--split-string="):
            split = word.partition("=")[2]
        elif word.startswith("-S") and len(word) > 2:
            split = word[2:]
        if split is not None:
            # `env -S 'A=1 cmd args'` splits the string into more arguments; parse it as words.
            rest = argv[i + _option_width(word, _ENV) :]
            found.strings.append(" ".join([split, *rest]))
            return found
        i += _option_width(word, _ENV)  # `-` alone is the old spelling of `-i`
    while i < len(argv) and _ASSIGNMENT.match(argv[i]):
        found.assigns.append(argv[i])
        i += 1
    if i < len(argv):
        found.argvs.append(argv[i:])
    return found


def _unwrap_container(name: str, argv: list[str], found: _Unwrapped) -> _Unwrapped | None:
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
        i = _skip_options(argv, 1, _COMPOSE)
    else:
        i = _skip_options(argv, 1, _CONTAINER_GLOBAL)
        if argv[i : i + 1] == ["compose"]:
            i = _skip_options(argv, i + 1, _COMPOSE)
    if argv[i : i + 1] != ["exec"]:
        return None
    i = _skip_options(argv, i + 1, _CONTAINER_EXEC) + 1  # then CONTAINER / SERVICE
    if i < len(argv):
        found.argvs.append(argv[i:])
    found.remote = True
    return found


def _unwrap_find(argv: list[str], found: _Unwrapped) -> _Unwrapped:
    i = 1
    while i < len(argv):
        if argv[i] in _FIND_EXEC:
            end = i + 1
            while end < len(argv) and argv[end] not in (";", "+"):
                end += 1
            if end > i + 1:
                found.argvs.append(argv[i + 1 : end])
            i = end
        i += 1
    return found


def _shell_c_string(argv: Sequence[str]) -> str | None:
    """The command string of `bash -c STR` / `bash -lc STR`; None without `-c`."""
    i = 1
    has_c = False
    while i < len(argv):
        word = argv[i]
        if word in _SHELL_OPTS_WITH_ARG:
            i += 2
            continue
        if word == "--" or word == "-" or not word.startswith(("-", "+")) or len(word) < 2:
            break
        if not word.startswith("--") and "c" in word[1:]:
            has_c = True
        i += 1
    if not has_c:
        return None
    return argv[i] if i < len(argv) else ""


# ---------------------------------------------------------------------------------------------
# Interpreters: where their program comes from.


_NONE: frozenset[str] = frozenset()


class _Lang:
    """How an interpreter's command line names its program."""

    __slots__ = (
        "attached",
        "inline",
        "positional_script",
        "script",
        "sql_operand",
        "stdin",
        "stop",
        "subcommands",
        "with_arg",
    )

    def __init__(
        self,
        *,
        inline: frozenset[str] = _NONE,  # options whose value is the program
        script: frozenset[str] = _NONE,  # options whose value is a program file
        stop: frozenset[str] = _NONE,  # options after which no program file follows
        with_arg: frozenset[str] = _NONE,  # other options that swallow a value
        stdin: frozenset[str] = _NONE,  # options that make it read the program from stdin
        positional_script: bool = True,  # the first operand is the program file
        subcommands: frozenset[str] = _NONE,  # `deno run x.ts`, `bun run x.js`
        sql_operand: bool = False,  # `sqlite3 DB [SQL…]`: the operand after DB is code
        attached: frozenset[str] = _NONE,  # options whose optional value is only attached
    ) -> None:
        self.attached = attached
        self.inline = inline
        self.script = script
        self.stop = stop
        self.with_arg = with_arg
        self.stdin = stdin
        self.positional_script = positional_script
        self.subcommands = subcommands
        self.sql_operand = sql_operand


_PYTHON = _Lang(
    inline=frozenset({"-c"}), stop=frozenset({"-m"}), with_arg=frozenset({"-W", "-X", "-Q"})
)
_NODE = _Lang(
    inline=frozenset({"-e", "--eval", "-p", "--print"}),
    with_arg=frozenset({"-r", "--require", "--import", "--loader", "-C", "--conditions"}),
    subcommands=frozenset({"run"}),
)
_MYSQL = _Lang(
    inline=frozenset({"-e", "--execute"}),
    with_arg=frozenset(
        {
            "-u",
            "--user",
            "-h",
            "--host",
            "-P",
            "--port",
            "-D",
            "--database",
            "-S",
            "--socket",
            "--protocol",
            "--default-character-set",
            "--login-path",
        }
    ),
    positional_script=False,
    attached=frozenset({"-p"}),  # `-pSECRET`, never `-p SECRET`; `-p` alone prompts
)
_LANGS: dict[str, _Lang] = {
    "node": _NODE,
    "nodejs": _NODE,
    "bun": _NODE,
    "deno": _Lang(inline=frozenset({"eval"}), subcommands=frozenset({"run"})),
    "ruby": _Lang(inline=frozenset({"-e"}), with_arg=frozenset({"-I", "-r", "-C"})),
    "perl": _Lang(inline=frozenset({"-e", "-E"}), with_arg=frozenset({"-I", "-M", "-m"})),
    "php": _Lang(inline=frozenset({"-r"}), script=frozenset({"-f"})),
    "lua": _Lang(inline=frozenset({"-e"}), with_arg=frozenset({"-l"})),
    "luajit": _Lang(inline=frozenset({"-e"}), with_arg=frozenset({"-l"})),
    "Rscript": _Lang(inline=frozenset({"-e"})),
    "osascript": _Lang(inline=frozenset({"-e"})),
    "pwsh": _Lang(inline=frozenset({"-c", "-Command"}), script=frozenset({"-f", "-File"})),
    "tclsh": _Lang(),
    "psql": _Lang(
        inline=frozenset({"-c", "--command"}),
        script=frozenset({"-f", "--file"}),
        with_arg=frozenset({"-h", "-p", "-U", "-d", "-v", "-o", "-L", "-P", "-F", "-R", "-T"}),
        positional_script=False,
    ),
    "mysql": _MYSQL,
    "mariadb": _MYSQL,
    "duckdb": _Lang(inline=frozenset({"-c"}), sql_operand=True),
    "sqlite3": _Lang(with_arg=frozenset({"-cmd", "-separator", "-newline"}), sql_operand=True),
}
for _shell in _SHELLS:
    _LANGS[_shell] = _Lang(with_arg=_SHELL_OPTS_WITH_ARG, stdin=frozenset({"-s"}))
_VERSIONED = re.compile(r"(python|pypy|php|ruby|perl|node|lua)\d+(\.\d+)*")


def _lang(name: str) -> _Lang | None:
    if name in _LANGS:
        return _LANGS[name]
    versioned = _VERSIONED.fullmatch(name)
    if versioned is None and name not in ("python", "pypy"):
        return None
    family = versioned[1] if versioned else name
    return _PYTHON if family in ("python", "pypy") else _LANGS.get(family)


class _Program:
    """Where one interpreter call takes its program from."""

    __slots__ = ("inline", "reads_stdin", "script")

    def __init__(self) -> None:
        self.inline: list[str] = []
        self.script: str | None = None
        self.reads_stdin = False


def _program(lang: _Lang, argv: Sequence[str]) -> _Program:
    """Where interpreter `argv` takes its program from: inline text, a file, or stdin."""
    prog = _Program()
    i = 1
    if i < len(argv) and argv[i] in lang.subcommands:
        i += 1
    elif i < len(argv) and argv[i] in lang.inline and not argv[i].startswith("-"):
        # A subcommand that takes the program: `deno eval CODE`.
        prog.inline.extend(argv[i + 1 : i + 2])
        return prog
    while i < len(argv):
        word = argv[i]
        if word == "--":
            i += 1
            break
        if word == "-" or not word.startswith("-"):
            if lang.positional_script or lang.sql_operand:
                break
            # `psql mydb -c SQL`, `mysql shop -e SQL`: getopt permutes, options may follow the
            # database name.
            i += 1
            continue
        if word.startswith("--"):
            flag, eq, value = word.partition("=")
        else:
            flag, value = _short_hit(word, lang) or (word, "")
            eq = "=" if value else ""
        taken = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
        step = 1 if eq else 2
        if flag in lang.inline:
            prog.inline.append(taken)  # `ruby -e a -e b` runs both; later words are its args
            i += step
        elif flag in lang.script:
            prog.script = taken
            return prog
        elif flag in lang.stop:
            return prog  # `python -m pkg` runs an installed module, not a local file
        elif flag in lang.stdin:
            prog.reads_stdin = True
            return prog
        else:
            i += step if flag in lang.with_arg else 1
    if prog.inline:
        return prog
    operand = argv[i] if i < len(argv) else "-"
    if lang.sql_operand:
        prog.inline.extend([" ".join(argv[i + 1 :])] if i + 1 < len(argv) else [])
        prog.reads_stdin = not prog.inline
    elif operand == "-" or not lang.positional_script:
        prog.reads_stdin = True
    elif not lang.subcommands or "." in operand or "/" in operand or argv[1] in lang.subcommands:
        prog.script = operand  # `bun x.ts`, `bun run x.ts`; never `bun install`
    return prog


def _short_hit(word: str, lang: _Lang) -> tuple[str, str] | None:
    """In a short-option cluster (`-Bc`, `-pe`, `-Mstrict`), the first option taking a value."""
    for j in range(1, len(word)):
        flag = "-" + word[j]
        groups = (lang.inline, lang.script, lang.stop, lang.with_arg, lang.attached)
        if any(flag in group for group in groups):
            return flag, word[j + 1 :]
        if flag in lang.stdin:
            return flag, ""
    return None


# ---------------------------------------------------------------------------------------------
# Reading a local script, never leaving the project and never blocking.

_O_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the stat must not block the hook
    | getattr(os, "O_NOFOLLOW", 0)  # nor a symlink swapped in after realpath
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def _read_project_file(path: str, root: str) -> tuple[str, str] | None:
    """`(real path, text)` of a regular file under `root` of at most MAX_SCRIPT_BYTES."""
    try:
        real = os.path.realpath(path)
        if os.path.commonpath((real, root)) != root:
            return None
        if not _small_regular(os.stat(real)):
            return None
        fd = os.open(real, _O_FLAGS)
        try:
            if not _small_regular(os.fstat(fd)):
                return None
            chunks: list[bytes] = []
            size = 0
            while size <= MAX_SCRIPT_BYTES:
                chunk = os.read(fd, MAX_SCRIPT_BYTES + 1 - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None
    data = b"".join(chunks)
    if len(data) > MAX_SCRIPT_BYTES or b"\0" in data:
        return None  # grew since the stat, or a compiled binary: no code to match
    return real, data.decode("utf-8", "replace")


def _small_regular(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode) and st.st_size <= MAX_SCRIPT_BYTES


# ---------------------------------------------------------------------------------------------
# The walk over the syntax tree.

_UNCOVERED_OK = re.compile(r"(?:\s|\\\r?\n)*")
# Nodes whose text between children is literal (quoted text, heredoc lines), not syntax.
_LITERAL = frozenset({"string", "translated_string", "heredoc_body"})
_HEREDOC_SYNTAX = frozenset({"heredoc_start", "heredoc_end"})
# Child scopes: a `cd` inside them does not move the commands after them.
_SCOPES = frozenset({"subshell", "command_substitution", "process_substitution"})


class _TooDeep(Exception):
    """The syntax tree nests deeper than the walk is allowed to follow."""


class _Stdin:
    """Text the shell hands a command on stdin (heredoc, herestring, pipe, `< file`)."""

    __slots__ = ("files", "texts")

    def __init__(self, texts: list[str], files: list[str]) -> None:
        self.texts = texts
        self.files = files


def _no_stdin() -> _Stdin:
    return _Stdin([], [])


class _Walker:
    """Collects commands and code from one parse, bounded in depth, count and file reads."""

    def __init__(self, cwd: str | None) -> None:
        # Insertion-ordered sets: `eval "$(x)"` reaches `x` twice, one element is enough.
        self.commands: dict[str, None] = {}
        self.code: dict[str, None] = {}
        self.root = os.path.realpath(cwd) if cwd else None
        self.dir: str | None = self.root  # follows literal `cd DIR`; None once unknown
        self.scripts: set[str] = set()
        self.full = False
        self.remote = 0  # depth of container/ssh wrappers around the current command
        self.deadline = time.monotonic() + MAX_PARSE_SECONDS

    # -- entry points --------------------------------------------------------------------

    def parse(self, text: str, depth: int, level: int = 0) -> bool:
        """Walk `text`; False (and nothing recorded) when it does not parse cleanly."""
        source = text.encode("utf-8", "replace")
        root = self._tree(source)
        if root is None or root.has_error or not _covered(root, source):
            # tree-sitter-bash cannot parse some heredocs the shell runs fine: `psql <<SQL; ls`,
            # `python3 - <<PY 2>&1 | tail`, `cmd <<EOF &`, two heredocs on one line. Cut the
            # bodies out ourselves and hand each to its command as an equivalent herestring.
            rewritten = _heredocs_as_herestrings(text)
            if rewritten is None:
                return False
            source = rewritten.encode("utf-8", "replace")
            root = self._tree(source)
            if root is None or root.has_error or not _covered(root, source):
                return False
        try:
            self._walk(root, depth, level)
        except _TooDeep:
            if level:
                raise  # only the outermost parse decides; it falls back as a whole
            return False
        return True

    def _tree(self, source: bytes) -> _Node | None:
        """The syntax tree of `source`, or None when parsing ran past its time slice."""
        parser = _parser()
        stop = min(self.deadline, time.monotonic() + PARSE_SLICE_SECONDS)

        def read(offset: int, _point: object) -> bytes:
            return source[offset : offset + _READ_CHUNK]

        def late(_offset: int, _has_error: bool) -> bool:
            return time.monotonic() > stop

        try:
            tree = parser.parse(read, progress_callback=late)
        except ValueError:  # cancelled by `late`
            parser.reset()  # else the next parse would resume this one
            return None
        return tree.root_node

    def _parse_nested(self, text: str, depth: int, level: int) -> None:
        """Walk a string the shell will run (`bash -c`, `eval`, a heredoc fed to `sh`)."""
        if self.full:
            return
        saved = self.dir
        if depth > MAX_NESTING or not self.parse(text, depth, level + 1):
            # Too deep or unparseable: keep the whole string as one command, the way the
            # top level falls back, so a pattern anchored at its start still sees it.
            self._emit(" ".join(text.split()))
        self.dir = saved

    def _emit(self, element: str) -> None:
        if len(self.commands) >= MAX_ELEMENTS:
            self.full = True
            return
        if element:
            self.commands[element] = None

    # -- statements ----------------------------------------------------------------------

    def _walk(self, node: _Node, depth: int, level: int) -> None:
        if self.full:
            return
        if level > _MAX_TREE_DEPTH:
            raise _TooDeep
        kind = node.type
        if kind == "command":
            self._command(node, depth, level, _no_stdin(), [])
        elif kind == "redirected_statement":
            self._redirected(node, depth, level, None)
        elif kind == "list":
            # `a && b && c` nests to the left, one level per operator: flatten it so a long
            # chain costs no recursion depth.
            for item in _flatten_list(node):
                self._walk(item, depth, level + 1)
        elif kind == "pipeline":
            saved = self.dir  # every stage runs in a subshell
            self._pipeline(node.children, depth, level, None)
            self.dir = saved
        elif kind in ("variable_assignment", "variable_assignments", "declaration_command"):
            self._declaration(node, depth, level)
        elif kind == "unset_command":
            self._emit(" ".join(_unquote(child) for child in node.children))
        elif kind == "test_command":
            # `[ -f x ]` runs the `[` command; `[[ … ]]` is shown the same way for symmetry.
            for child in node.children:
                self._nested(child, depth, level)
            self._emit(" ".join(_flat_words(node)))
        elif kind in ("comment", "heredoc_body"):
            return  # heredoc bodies are reached through their redirect, never as commands
        elif kind in _SCOPES:
            saved = self.dir
            for child in node.children:
                self._walk(child, depth, level + 1)
            self.dir = saved
        else:
            for child in node.children:
                self._walk(child, depth, level + 1)

    def _nested(self, node: _Node, depth: int, level: int) -> None:
        """Commands inside a word, a redirect target or an assignment value: `$(…)`, `<(…)`."""
        self._walk(node, depth, level + 1)

    def _declaration(self, node: _Node, depth: int, level: int) -> None:
        if node.type == "variable_assignment":
            self._emit(_assignment(node))
            self._nested_value(node, depth, level)
            return
        if node.type == "declaration_command":
            words = [
                _assignment(c) if c.type == "variable_assignment" else _unquote(c)
                for c in node.children
                if c.type != "comment"
            ]
            self._emit(" ".join(words))
        for child in node.children:
            if child.type == "variable_assignment":
                # `export GIT_AUTHOR_EMAIL=…` sets identity for later commands: show it alone.
                self._emit(_assignment(child))
                self._nested_value(child, depth, level)
            else:
                self._nested(child, depth, level)

    def _nested_value(self, assignment: _Node, depth: int, level: int) -> None:
        value = assignment.child_by_field_name("value")
        if value is not None:
            self._nested(value, depth, level)

    def _pipeline(
        self, children: Sequence[_Node], depth: int, level: int, piped: _Stdin | None
    ) -> None:
        # Each stage's stdin is the previous stage's stdout; that is known for `cat <<EOF`
        # and `echo TEXT`, which is how `echo 'rm -rf /' | sh` hides what it runs.
        for child in children:
            if child.type not in ("|", "|&"):
                out = self._stage(child, depth, level + 1, piped)
                piped = _Stdin([out], []) if out is not None else None

    def _stage(self, node: _Node, depth: int, level: int, piped: _Stdin | None) -> str | None:
        """Walk one pipeline stage fed `piped`; return its stdout when known."""
        if self.full:
            return None
        if level > _MAX_TREE_DEPTH:
            raise _TooDeep
        if node.type == "command":
            return self._command(node, depth, level, piped or _no_stdin(), [])
        if node.type == "redirected_statement":
            return self._redirected(node, depth, level, piped)
        if node.type == "list":
            # `cat <<EOF | sh && echo done` comes out as `cat` piped into `sh && echo done`:
            # only the first command of that list reads the pipe.
            items = _flatten_list(node)
            self._stage(items[0], depth, level + 1, piped)
            for item in items[1:]:
                self._walk(item, depth, level + 1)
            return None
        if node.type == "pipeline":
            self._pipeline(node.children, depth, level, piped)
            return None
        self._walk(node, depth, level)  # a `( … )` or `{ … }` stage: its stdin is not followed
        return None

    def _redirected(self, node: _Node, depth: int, level: int, piped: _Stdin | None) -> str | None:
        body = node.child_by_field_name("body")
        stdin = _Stdin(list(piped.texts), list(piped.files)) if piped else _no_stdin()
        later: list[_Node] = []  # statements tree-sitter hangs inside a heredoc redirect
        extra: list[str] = []
        for index, child in enumerate(node.children):
            if node.field_name_for_child(index) == "body":
                continue
            if child.type == "heredoc_redirect":
                self._heredoc(child, depth, level, stdin, later, extra)
            elif child.type == "herestring_redirect":
                stdin.texts.append(_herestring(child))
                self._nested(child, depth, level)
            elif child.type == "file_redirect":
                _input_file(child, stdin)
                self._nested(child, depth, level)
            elif child.type != "comment":
                self._nested(child, depth, level)
        if body is not None:
            # tree-sitter-bash drops a lone `-` right before `<<` (`python3 - <<EOF`) from
            # the command; it is the argument that makes python read the heredoc.
            gap = _gap_words(node, body)
            if body.type == "command":
                out = self._command(body, depth, level + 1, stdin, gap + extra)
            else:
                self._walk(body, depth, level + 1)  # `while …; done <<EOF`: a loop's input
                out = None
        else:
            out = None
        if not later:
            return out
        for stmt in later:
            if stmt.type == "pipeline" and stmt.children[0].type in ("|", "|&"):
                saved = self.dir
                piped_out = _Stdin([out], []) if out is not None else None
                self._pipeline(stmt.children, depth, level, piped_out)
                self.dir = saved
            else:
                self._walk(stmt, depth, level + 1)
        return None

    def _heredoc(
        self,
        node: _Node,
        depth: int,
        level: int,
        stdin: _Stdin,
        later: list[_Node],
        extra: list[str],
    ) -> None:
        quoted = False
        dash = False
        for index, child in enumerate(node.children):
            kind = child.type
            if node.field_name_for_child(index) == "argument":
                # `python3 <<EOF - arg`: words after the delimiter belong to the command.
                extra.append(_unquote(child))
                self._nested(child, depth, level)
            elif kind in ("<<", "<<-"):
                operator = _text(child)
                dash = operator.endswith("-")
                if operator.startswith("-"):
                    extra.append("-")  # `cat -<<EOF` lexes the `-` argument into the operator
            elif kind == "heredoc_start":
                quoted = any(q in _text(child) for q in "'\"\\")
            elif kind == "heredoc_body":
                body = _text(child)
                if dash:  # `<<-` strips leading tabs from every line
                    body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
                stdin.texts.append(body)
                if not quoted:  # `$(…)` inside an unquoted heredoc runs
                    for part in child.children:
                        self._nested(part, depth, level)
            elif kind == "file_redirect":
                _input_file(child, stdin)
                self._nested(child, depth, level)
            elif kind in _HEREDOC_SYNTAX or kind in ("&&", "||", ";", "&"):
                continue
            else:
                later.append(child)

    # -- simple commands -----------------------------------------------------------------

    def _command(
        self, node: _Node, depth: int, level: int, stdin: _Stdin, extra: list[str]
    ) -> str | None:
        """Emit one simple command; return its stdout when that is known literal text."""
        assigns: list[str] = []
        argv: list[str] = []
        stdin = _Stdin(list(stdin.texts), list(stdin.files))
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment":
                if argv:
                    argv.append(_assignment(child))
                else:
                    assigns.append(_assignment(child))
                self._nested_value(child, depth, level)
            elif kind == "herestring_redirect":
                stdin.texts.append(_herestring(child))
                self._nested(child, depth, level)
            elif kind == "file_redirect":
                _input_file(child, stdin)
                self._nested(child, depth, level)
            elif kind == "comment":
                continue
            else:
                argv.append(_unquote(child))
                self._nested(child, depth, level)
        argv.extend(extra)
        for assign in assigns:
            self._emit(assign)
        if not argv:
            return None
        return self._run(argv, stdin, depth, level, 0)

    def _run(
        self, argv: list[str], stdin: _Stdin, depth: int, level: int, peeled: int
    ) -> str | None:
        self._emit(" ".join(argv))
        name = _command_name(argv)
        if argv[0].startswith("/") and name:
            # `/bin/rm -rf x` is `rm -rf x` to a pattern anchored at the command name.
            self._emit(" ".join([name, *argv[1:]]))
        if name in ("cd", "pushd"):
            self._cd(argv)
            return None
        unwrapped = _unwrap(argv) if peeled < MAX_UNWRAP else None
        if unwrapped is not None:
            self.remote += int(unwrapped.remote)
            for assign in unwrapped.assigns:
                self._emit(assign)
            for string in unwrapped.strings:
                self._parse_nested(string, depth + 1, level)
            for inner in unwrapped.argvs:
                # xargs and find hand the inner command no stdin of ours; prefixes pass it on.
                passes = name not in ("xargs", "find")
                self._run(inner, stdin if passes else _no_stdin(), depth, level, peeled + 1)
            self.remote -= int(unwrapped.remote)
            return None
        lang = _lang(name)
        if lang is not None:
            self._interpreter(name, lang, argv, stdin, depth, level)
            return None
        if name in ("source", ".") and len(argv) > 1:
            self._script(argv[1])
        elif "/" in argv[0]:
            self._script(argv[0])  # `./deploy.sh`, `scripts/x.sh`
        return _stdout(name, argv, stdin)

    def _interpreter(
        self, name: str, lang: _Lang, argv: list[str], stdin: _Stdin, depth: int, level: int
    ) -> None:
        prog = _program(lang, argv)
        if name not in _SHELLS:
            self.code.update(dict.fromkeys(prog.inline))  # a shell's -c string becomes commands
        if prog.script is not None:
            self._script(prog.script)
        if prog.reads_stdin:
            self.code.update(dict.fromkeys(stdin.texts))
            for path in stdin.files:
                self._script(path)
            if name in _POSIX_SHELLS:
                for text in stdin.texts:
                    self._parse_nested(text, depth + 1, level)

    def _script(self, word: str) -> None:
        if self.root is None or self.remote or len(self.scripts) >= MAX_SCRIPTS:
            return  # a path inside a container or on an ssh host is not our project's file
        if any(ch in word for ch in "$`*?["):
            return  # the path is only known at run time
        path = os.path.expanduser(word)
        if not os.path.isabs(path):
            if self.dir is None:
                return
            path = os.path.join(self.dir, path)
        found = _read_project_file(path, self.root)
        if found is None or found[0] in self.scripts:
            return
        self.scripts.add(found[0])
        self.code[found[1]] = None

    def _cd(self, argv: list[str]) -> None:
        operands = [w for w in argv[1:] if not w.startswith("-") or w == "-"]
        target = operands[0] if operands else "~"
        if target == "-" or any(ch in target for ch in "$`*?["):
            self.dir = None
            return
        target = os.path.expanduser(target)
        if os.path.isabs(target):
            self.dir = os.path.normpath(target)
        elif self.dir is not None:
            self.dir = os.path.normpath(os.path.join(self.dir, target))


_WORDS = frozenset(
    {
        "word",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "arithmetic_expansion",
        "process_substitution",
    }
)


def _flat_words(node: _Node) -> list[str]:
    """The words of a test expression, each unquoted, in source order."""
    words: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _WORDS or not current.children:
            words.append(_unquote(current))
        else:
            stack.extend(reversed(current.children))
    return words


def _flatten_list(node: _Node) -> list[_Node]:
    items: list[_Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "list":
            stack.extend(reversed(current.children))
        elif current.type not in ("&&", "||", "comment"):
            items.append(current)
    return items


def _stdout(name: str, argv: list[str], stdin: _Stdin) -> str | None:
    if name == "cat" and all(w == "-" for w in argv[1:]) and stdin.texts:
        return "".join(stdin.texts)
    if name == "echo":
        words = argv[1:]
        while words and words[0] in ("-n", "-e", "-E", "-ne", "-en"):
            words = words[1:]
        return " ".join(words) + "\n"
    return None


def _assignment(node: _Node) -> str:
    """`NAME=value` with the value's quotes removed (`FOO="a b"` → `FOO=a b`)."""
    value = node.child_by_field_name("value")
    raw = _text(node)
    if value is None:
        return raw
    head = raw[: value.start_byte - node.start_byte]
    return head + (_unquote(value) if value.type != "array" else _text(value))


def _herestring(node: _Node) -> str:
    words = [_unquote(c) for c in node.children if c.type not in ("<<<", "comment")]
    return " ".join(words) + "\n"


def _input_file(node: _Node, stdin: _Stdin) -> None:
    """Record `< file`: an interpreter reading it runs the file."""
    operator = [c.type for c in node.children if c.type in ("<", ">", ">>", "&>", "<&", ">&")]
    destination = node.child_by_field_name("destination")
    if operator == ["<"] and destination is not None:
        stdin.files.append(_unquote(destination))


def _gap_words(parent: _Node, body: _Node) -> list[str]:
    """Words between `body` and the next sibling that no syntax node covers."""
    following = [c for c in parent.children if c.start_byte >= body.end_byte]
    if not following:
        return []
    data = parent.text or b""
    gap = data[body.end_byte - parent.start_byte : following[0].start_byte - parent.start_byte]
    return gap.decode("utf-8", "replace").split()


def _covered(root: _Node, source: bytes) -> bool:
    """Whether the syntax nodes account for every non-blank byte of `source`.

    tree-sitter-bash can skip a token without reporting an error; a command missing a word
    would match wrongly, so such text counts as unparseable. The one skip we know and repair
    is the lone `-` before a heredoc (`python3 - <<EOF`), see `_Walker._redirected`.
    """
    stack: list[_Node] = [root]
    while stack:
        node = stack.pop()
        children = node.children
        if not children:
            continue  # a leaf covers its own text
        literal = node.type in _LITERAL
        pos = node.start_byte
        for child in children:
            stack.append(child)
            if literal or child.start_byte <= pos or _blank(source[pos : child.start_byte]):
                pos = max(pos, child.end_byte)
                continue
            dash = source[pos : child.start_byte].split() == [b"-"]
            if not (dash and child.type == "heredoc_redirect"):
                return False
            pos = max(pos, child.end_byte)
        if not literal and node.end_byte > pos and not _blank(source[pos : node.end_byte]):
            return False
    return True


def _blank(gap: bytes) -> bool:
    return _UNCOVERED_OK.fullmatch(gap.decode("utf-8", "replace")) is not None


# ---------------------------------------------------------------------------------------------
# Heredocs tree-sitter-bash cannot place, rewritten as the herestrings they are equivalent to.

_DELIM_END = frozenset(" \t\n;&|<>()")


def _heredocs_as_herestrings(text: str) -> str | None:
    """`text` with every heredoc turned into a herestring carrying its body; None if none.

    `psql db <<SQL; ls` + body becomes `psql db <<< 'body'; ls`: the same stdin for the same
    command, on one line tree-sitter-bash parses. A quoted delimiter gives a single-quoted
    (literal) herestring, an unquoted one a double-quoted string, so `$(…)` in the body still
    counts as run. `<<-` strips leading tabs. Returns None when there is no heredoc, or one
    is not terminated: the text then stays unparseable.
    """
    out: list[str] = []
    pending: list[tuple[int, str, bool, bool]] = []  # (slot in out, delimiter, quoted, dash)
    found = False
    i = 0
    size = len(text)
    while i < size:
        ch = text[i]
        if ch == "\\":
            out.append(text[i : i + 2])
            i += 2
        elif ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                return None
            out.append(text[i : end + 1])
            i = end + 1
        elif ch == '"':
            end = _double_quote_end(text, i)
            if end < 0:
                return None
            out.append(text[i : end + 1])
            i = end + 1
        elif ch == "#" and (i == 0 or text[i - 1] in " \t\n;&|()"):
            end = text.find("\n", i)
            end = size if end < 0 else end
            out.append(text[i:end])
            i = end
        elif text.startswith("((", i):
            end = _arithmetic_end(text, i)  # `$((1 << 2))` is a shift, not a heredoc
            if end < 0:
                return None
            out.append(text[i:end])
            i = end
        elif text.startswith("<<<", i):
            out.append("<<<")
            i += 3
        elif text.startswith("<<", i):
            parsed = _heredoc_operator(text, i)
            if parsed is None:
                return None
            i, delimiter, quoted, dash = parsed
            pending.append((len(out), delimiter, quoted, dash))
            out.append("")  # the slot the herestring goes into once the body is read
            found = True
        elif ch == "\n" and pending:
            out.append("\n")
            i += 1
            for slot, delimiter, quoted, dash in pending:
                body, i = _heredoc_body(text, i, delimiter, dash)
                if body is None:
                    return None
                out[slot] = " <<< " + (_single_quoted(body) if quoted else _double_quoted(body))
            pending.clear()
        else:
            out.append(ch)
            i += 1
    if pending or not found:
        return None
    return "".join(out)


def _double_quote_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i
        else:
            i += 1
    return -1


def _arithmetic_end(text: str, start: int) -> int:
    """Index after the `))` closing the `((` at `start`; -1 if unbalanced."""
    depth = 0
    i = start
    while i < len(text):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def _heredoc_operator(text: str, start: int) -> tuple[int, str, bool, bool] | None:
    """`<<[-] DELIM` at `start`: (index after it, delimiter, quoted, strips tabs)."""
    i = start + 2
    dash = text.startswith("-", i)
    if dash:
        i += 1
    while i < len(text) and text[i] in " \t":
        i += 1
    word: list[str] = []
    quoted = False
    while i < len(text) and text[i] not in _DELIM_END:
        ch = text[i]
        if ch in "'\"":
            end = text.find(ch, i + 1)
            if end < 0:
                return None
            word.append(text[i + 1 : end])
            quoted = True
            i = end + 1
        elif ch == "\\" and i + 1 < len(text):
            word.append(text[i + 1])
            quoted = True
            i += 2
        else:
            word.append(ch)
            i += 1
    delimiter = "".join(word)
    if not delimiter:
        return None
    return i, delimiter, quoted, dash


def _heredoc_body(text: str, start: int, delimiter: str, dash: bool) -> tuple[str | None, int]:
    """The body from `start` up to the line `delimiter`, and the index after that line."""
    lines: list[str] = []
    i = start
    while i <= len(text):
        end = text.find("\n", i)
        line = text[i:] if end < 0 else text[i:end]
        if dash:
            line = line.lstrip("\t")
        if line == delimiter:
            body = "".join(part + "\n" for part in lines)
            return body, len(text) if end < 0 else end + 1
        if end < 0:
            break
        lines.append(line)
        i = end + 1
    return None, start


def _single_quoted(body: str) -> str:
    """A herestring word whose value is `body` minus the newline the herestring adds back."""
    return "'" + body.removesuffix("\n").replace("'", "'\\''") + "'"


def _double_quoted(body: str) -> str:
    """Like `_single_quoted`, keeping `$…` and backquotes live as in an unquoted heredoc."""
    out: list[str] = ['"']
    text = body.removesuffix("\n")
    i = 0
    while i < len(text):
        ch = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch == "\\" and nxt in ("$", "`", "\\", "\n"):
            out.append(ch + nxt)  # the same escape in a heredoc and in double quotes
            i += 2
            continue
        if ch == "\\" and nxt == '"':
            out.append('\\\\\\"')  # a heredoc keeps both characters
            i += 2
            continue
        out.append('\\"' if ch == '"' else ch)
        i += 1
    out.append('"')
    return "".join(out)
