"""Interpreters: where `python`, `node`, `psql`, `awk`, … take their program from.

`program(name, argv)` says, for one interpreter command line, which inline programs it runs
(`-c`, `-e`, `eval CODE`), which file it runs, and whether it reads its program from stdin.
`family(name)` names the language, so the code can be searched for the shell commands it runs
(`embedded`).
"""

from __future__ import annotations

import itertools
import re

from agentstyle.shell.wrappers import _options, command_name
from agentstyle.shell.wrapspecs import GIT_GLOBAL, SHELLS
from agentstyle.slotted import Slotted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from dataclasses import KW_ONLY

_NONE: frozenset[str] = frozenset()


class Lang(metaclass=Slotted):
    """How an interpreter's command line names its program."""

    family: str
    _: KW_ONLY
    inline: frozenset[str] = _NONE  # options whose value is the program
    script: frozenset[str] = _NONE  # options whose value is a program file
    stop: frozenset[str] = _NONE  # options after which no program file follows
    with_arg: frozenset[str] = _NONE  # other options that swallow a value
    stdin: frozenset[str] = _NONE  # options that make it read the program from stdin
    positional_script: bool = True  # the first operand is the program file
    subcommands: frozenset[str] = _NONE  # `deno run x.ts`, `bun run x.js`
    sql_operand: bool = False  # `sqlite3 DB [SQL…]`: the operand after DB is code
    attached: frozenset[str] = _NONE  # options whose optional value is only attached
    first_operand: bool = False  # `awk PROGRAM file…`: the first operand is the program
    under: tuple[tuple[str, ...], ...] = ()  # `bq query`: an interpreter only under these

    def start(self, argv: Sequence[str]) -> int | None:
        """Where the interpreter's own words start in `argv`: after the subcommand words of
        `under` (`cockroach sql`, `bq --project_id=p query`; options written with `=` may come
        first), None when it runs none of them (`cockroach start` reads no SQL)."""
        if not self.under:
            return 1
        i = 1
        while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
            i += 1
        for words in self.under:
            if tuple(argv[i : i + len(words)]) == words:
                return i + len(words)
        return None


_PYTHON = Lang(
    "python",
    inline=frozenset({"-c"}),
    stop=frozenset({"-m"}),
    with_arg=frozenset({"-W", "-X", "-Q"}),
)
_NODE = Lang(
    "node",
    inline=frozenset({"-e", "--eval", "-p", "--print"}),
    with_arg=frozenset({"-r", "--require", "--import", "--loader", "-C", "--conditions"}),
    subcommands=frozenset({"run"}),
)
_MYSQL = Lang(
    "sql",
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
_AWK = Lang(
    "awk",
    script=frozenset({"-f", "--file"}),
    with_arg=frozenset({"-F", "-v", "--assign", "--field-separator", "-i", "--include"}),
    first_operand=True,
)


def _sql(
    inline: list[str],
    script: list[str] | None = None,
    with_arg: list[str] | None = None,
    under: tuple[tuple[str, ...], ...] = (),
) -> Lang:
    """A database client: SQL inline (`-e SQL`), from a file, else from stdin; operands are
    the database, never a program file."""
    return Lang(
        "sql",
        inline=frozenset(inline),
        script=frozenset(script or ()),
        with_arg=frozenset(with_arg or ()),
        positional_script=False,
        under=under,
    )


_PSQL = _sql(
    ["-c", "--command"],
    ["-f", "--file"],
    ["-h", "-p", "-U", "-d", "-v", "-o", "-L", "-P", "-F", "-R", "-T"],
)
_MYSQL_ARGS = ["-u", "--user", "-h", "--host", "-P", "--port", "-D", "--database", "-S", "--socket"]
# `-cmd SQL` runs before the operands' SQL, wherever it stands (`sqlite3 -cmd 'DROP …' db`)
_SQLITE = Lang(
    "sql",
    inline=frozenset({"-cmd", "--cmd"}),
    with_arg=frozenset({"-separator", "-newline", "-nullvalue", "-init"}),
    sql_operand=True,
)
_CLICKHOUSE_ARGS = ["-h", "--host", "--port", "-u", "--user", "--password", "-d", "--database"]
_CLICKHOUSE = _sql(["-q", "--query"], ["--queries-file"], _CLICKHOUSE_ARGS)
_TRINO = _sql(["--execute"], ["-f", "--file"], ["--server", "--catalog", "--schema", "--user"])
_HIVE = _sql(["-e"], ["-f"], ["-i", "-d", "--define", "--hiveconf", "--hivevar", "--database"])
LANGS: dict[str, Lang] = {
    "node": _NODE,
    "nodejs": _NODE,
    "bun": Lang(
        "node",
        inline=frozenset({"-e", "--eval", "-p", "--print"}),
        subcommands=frozenset({"run"}),
    ),
    "deno": Lang("node", inline=frozenset({"eval"}), subcommands=frozenset({"run"})),
    "tsx": Lang("node", inline=frozenset({"-e", "--eval", "-p", "--print"})),
    "ts-node": Lang("node", inline=frozenset({"-e", "--eval", "-p", "--print"})),
    "ruby": Lang("ruby", inline=frozenset({"-e"}), with_arg=frozenset({"-I", "-r", "-C"})),
    "perl": Lang("perl", inline=frozenset({"-e", "-E"}), with_arg=frozenset({"-I", "-M", "-m"})),
    "php": Lang("php", inline=frozenset({"-r"}), script=frozenset({"-f"})),
    "lua": Lang("lua", inline=frozenset({"-e"}), with_arg=frozenset({"-l"})),
    "luajit": Lang("lua", inline=frozenset({"-e"}), with_arg=frozenset({"-l"})),
    "Rscript": Lang("r", inline=frozenset({"-e"})),
    "osascript": Lang("osascript", inline=frozenset({"-e"})),
    "pwsh": Lang("pwsh", inline=frozenset({"-c", "-Command"}), script=frozenset({"-f", "-File"})),
    "powershell": Lang(
        "pwsh", inline=frozenset({"-c", "-Command"}), script=frozenset({"-f", "-File"})
    ),
    "tclsh": Lang("tcl"),
    "awk": _AWK,
    "gawk": _AWK,
    "mawk": _AWK,
    "nawk": _AWK,
    "psql": _PSQL,
    "mysql": _MYSQL,
    "mariadb": _MYSQL,
    "duckdb": Lang("sql", inline=frozenset({"-c", "-s", "-cmd", "--cmd"}), sql_operand=True),
    "sqlite3": _SQLITE,
    "sqlite": _SQLITE,
    "litecli": _sql(["-e", "--execute"], with_arg=["-D", "--database", "--liteclirc", "-l"]),
    "ysqlsh": _PSQL,
    "vsql": _PSQL,
    "pgcli": _sql([], with_arg=["-h", "--host", "-p", "--port", "-U", "-u", "-d", "--dbname"]),
    "mycli": _sql(["-e", "--execute"], with_arg=[*_MYSQL_ARGS, "-p", "--password"]),
    "mysqlsh": _sql(["-e", "--execute"], ["-f", "--file"], [*_MYSQL_ARGS, "--uri"]),
    "usql": _sql(["-c", "--command"], ["-f", "--file"], ["-o", "--out", "-v", "--set"]),
    "clickhouse-client": _CLICKHOUSE,
    "clickhouse": _sql(
        ["-q", "--query"],
        ["--queries-file"],
        _CLICKHOUSE_ARGS,
        under=(("client",), ("local",)),
    ),
    "cockroach": _sql(
        ["-e", "--execute"],
        ["-f", "--file"],
        ["--url", "--host", "-d", "--database", "-u", "--user", "--certs-dir", "--format"],
        under=(("sql",),),
    ),
    "cqlsh": _sql(
        ["-e", "--execute"],
        ["-f", "--file"],
        ["-u", "--username", "-p", "--password", "-k", "--keyspace", "--cqlversion"],
    ),
    # the classic `sqlcmd -Q SQL` and go-sqlcmd's `sqlcmd query [--query] SQL`
    "sqlcmd": Lang(
        "sql",
        inline=frozenset({"-Q", "-q", "--query"}),
        script=frozenset({"-i"}),
        with_arg=frozenset({"-S", "-d", "-U", "-P", "-o", "-v", "-s", "-t"}),
        positional_script=False,
        first_operand=True,
        subcommands=frozenset({"query"}),
    ),
    # SQL sent through a cloud CLI's data API: Athena, the Redshift and RDS Data APIs
    "aws": _sql(
        ["--query-string", "--sql"],
        under=(
            ("athena", "start-query-execution"),
            ("redshift-data", "execute-statement"),
            ("rds-data", "execute-statement"),
        ),
    ),
    "snowsql": _sql(
        ["-q", "--query"],
        ["-f", "--filename"],
        ["-a", "--accountname", "-u", "--username", "-d", "--dbname", "-c", "--connection"],
    ),
    "trino": _TRINO,
    "presto": _TRINO,
    "spark-sql": _HIVE,
    "hive": _HIVE,
    "beeline": _sql(["-e"], ["-f"], ["-u", "-n", "-p", "-d", "-i", "--hiveconf", "--hivevar"]),
    "impala-shell": _sql(
        ["-q", "--query"], ["-f", "--query_file"], ["-i", "--impalad", "-d", "--database"]
    ),
    "isql": _sql([]),
    "chdb": Lang("sql", first_operand=True),
    "bq": Lang(
        "sql",
        first_operand=True,
        with_arg=frozenset({"-n", "--max_rows", "--format", "--destination_table"}),
        under=(("query",),),
    ),
    "wrangler": _sql(
        ["--command"],
        ["--file"],
        ["-e", "--env", "-c", "--config", "--persist-to"],
        under=(("d1", "execute"),),
    ),
    "turso": Lang(
        "sql", sql_operand=True, with_arg=frozenset({"--instance"}), under=(("db", "shell"),)
    ),
}
_SHELL_LANG = Lang(
    "shell",
    with_arg=frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}),
    stdin=frozenset({"-s"}),
)
for _shell in SHELLS:
    LANGS[_shell] = _SHELL_LANG
_VERSIONED = re.compile(r"(python|pypy|php|ruby|perl|node|lua)\d+(\.\d+)*")


def lang(name: str) -> Lang | None:
    """The interpreter `name` (`python3.12`, `node`, `bash`), or None."""
    found = LANGS.get(name)
    if found is not None:
        return found
    versioned = _VERSIONED.fullmatch(name)
    if versioned is None and name not in ("python", "pypy"):
        return None
    family = versioned[1] if versioned else name
    return _PYTHON if family in ("python", "pypy") else LANGS.get(family)


class Program:
    """Where one interpreter call takes its program from."""

    __slots__ = ("args", "inline", "reads_stdin", "script")

    def __init__(self) -> None:
        self.inline: list[str] = []
        self.script: str | None = None
        self.reads_stdin = False
        self.args: list[str] = []  # the words after the program (its arguments)


def program(lang: Lang, argv: Sequence[str]) -> Program:
    """Where interpreter `argv` takes its program from: inline text, a file, or stdin."""
    prog = Program()
    start = lang.start(argv)
    if start is None:
        return prog
    i = start
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
            if lang.positional_script or lang.sql_operand or lang.first_operand:
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
            prog.args = list(argv[i + step :])
            return prog
        elif flag in lang.stop:
            return prog  # `python -m pkg` runs an installed module, not a local file
        elif flag in lang.stdin:
            prog.reads_stdin = True
            return prog
        else:
            i += step if flag in lang.with_arg else 1
    if prog.inline and not lang.sql_operand:  # `sqlite3 -cmd X db Y` runs X, then Y
        prog.args = list(argv[i:])
        return prog
    operand = argv[i] if i < len(argv) else "-"
    if lang.first_operand:
        if i < len(argv):
            prog.inline.append(operand)
        else:  # `bq query`, `sqlcmd -S host` with no SQL given read it from stdin
            prog.reads_stdin = lang.family == "sql"
        return prog
    if lang.sql_operand:
        prog.inline.extend([" ".join(argv[i + 1 :])] if i + 1 < len(argv) else [])
        prog.reads_stdin = i + 1 >= len(argv)  # no SQL after the database: stdin is read
    elif operand == "-" or not lang.positional_script:
        prog.reads_stdin = True
        prog.args = list(argv[i + 1 :])
    elif not lang.subcommands or "." in operand or "/" in operand or argv[1] in lang.subcommands:
        prog.script = operand  # `bun x.ts`, `bun run x.ts`; never `bun install`
        prog.args = list(argv[i + 1 :])
    return prog


def _short_hit(word: str, lang: Lang) -> tuple[str, str] | None:
    """In a short-option cluster (`-Bc`, `-pe`, `-Mstrict`), the first option taking a value;
    a single-dash long option the client lists whole is that option (duckdb's `-cmd` is not
    `-c md`)."""
    groups = (lang.inline, lang.script, lang.stop, lang.with_arg, lang.attached)
    if any(word in group for group in groups):
        return word, ""
    for j in range(1, len(word)):
        flag = "-" + word[j]
        if any(flag in group for group in groups):
            rest = word[j + 1 :]
            if flag in lang.inline and rest and all("-" + c in lang.inline for c in rest):
                return flag, ""  # `node -pe CODE`: -p and -e both name the next word
            return flag, rest
        if flag in lang.stdin:
            return flag, ""
    return None


# What an xargs item stands for when the input is not known: no real word holds it.
INPUT = "\x00./input\x00"  # a path, as a script named by the input would be


def input_picks_program(argv: list[str], replace: str | None) -> bool:
    """Whether the items xargs reads choose the program `argv` runs: the script or code of an
    interpreter (`xargs bash`, `xargs -I{} python3 {}`, `-I{} awk -f {}`), what `eval` runs,
    the git subcommand (`xargs -I{} git {}`), also behind `find -exec/-ok` (`-I{} find .
    -execdir eval {} ;`)."""
    words = [w.replace(replace, INPUT) for w in argv] if replace else [*argv, INPUT]
    starts = [0] + [j + 1 for j, w in enumerate(words) if w in _FIND_RUNS]
    return any(j < len(words) and _runs_input(words[j:]) for j in starts)


_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _runs_input(words: list[str]) -> bool:
    if INPUT in words[0]:
        return True  # the command name itself
    name = command_name(words[0])
    if name in ("eval", "source", "."):
        return any(INPUT in w for w in words[1:])
    if name == "git":
        opts = _options(words, 1, GIT_GLOBAL)
        return opts.end < len(words) and INPUT in words[opts.end]
    interp = lang(name)
    if interp is None or (name in SHELLS and "-n" in words[1:]):
        return False  # `bash -n FILE` reads the script and never runs it
    if any(w == "-m" and INPUT in n for w, n in itertools.pairwise(words)):
        return True  # `python3 -m {}`: the module
    prog = program(interp, words)
    # An inline program counts when the input is all of it (`python3 -c {}`); input inside
    # a program the command line wrote (`sh -c 'mv {} {}.bak'`) is data that other rules read.
    # (A shell's `-c` code is its script here: one that holds spaces was written, not read.)
    script = prog.script or ""
    return (INPUT in script and not any(c.isspace() for c in script)) or INPUT in prog.inline
