"""One simple command as the shell would run it: the record the command model reads.

See docs/design/shell.md#runs."""

from __future__ import annotations

# Paths that name one of the process's open descriptors: `/dev/fd/3` is what fd 3 was opened on.
FD_PATHS = ("/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/")


class Run:
    """A simple command the shell would run: its words as expanded, where it runs and what
    surrounds it. `dirs` are the directories it may run in, in the analysis's form (an absolute
    folder, `~/…` or `$VAR/…`; "" for the project when its folder is not known)."""

    # A plain slotted class, like ShellParse: every shell event builds several.
    __slots__ = (
        "args_from",
        "argv",
        "background",
        "data_from",
        "dirs",
        "dotglob",
        "env",
        "fds",
        "found",
        "redirs",
        "remote",
        "repeating",
        "runtime_args",
        "slot",
        "stdin_from",
        "text",
    )

    def __init__(
        self,
        argv: tuple[str, ...],
        dirs: tuple[str, ...],
        *,
        remote: bool = False,
        env: tuple[str, ...] = (),
        redirs: tuple[tuple[str, str], ...] = (),
        runtime_args: bool = False,
        text: str = "",
        stdin_from: tuple[int, ...] = (),
        args_from: tuple[int, ...] = (),
        data_from: tuple[int, ...] = (),
        background: bool = False,
        repeating: bool = False,
        fds: tuple[tuple[str, str], ...] = (),
        found: tuple[str, ...] = (),
        dotglob: bool = False,
        slot: str = "",
    ) -> None:
        self.argv = argv
        self.dirs = dirs
        self.remote = remote  # on another machine or in a container (ssh, docker exec)
        self.env = env  # the NAME=value words it runs with
        self.redirs = redirs  # (operator, file) of its file redirections: (">", "out.txt")
        self.runtime_args = runtime_args  # xargs appends words only known when it runs
        self.text = text  # its element of shell.commands
        # Data flow (docs/design/commands.md#flow): the runs (by position in
        # ShellParse.runs) whose output reaches its stdin, and its words (`$(…)`, `<(…)`)
        self.stdin_from = stdin_from
        self.args_from = args_from
        self.data_from = data_from  # …whose output xargs appends as arguments (never code)
        self.background = background  # started in the background (`&`)
        self.repeating = repeating  # in an endless loop, or a function that calls itself
        # the descriptors the line opened before it (`exec 3>/dev/tcp/h/p`): (number, file), for
        # a word that names one (`tar -cf /dev/fd/3`)
        self.fds = fds
        # the path words `{}` stands for in a command `find -exec` runs: the files it finds
        self.found = found
        self.dotglob = dotglob  # its globs match dot-files too (`shopt -s dotglob`)
        # the string xargs replaces with each item it reads (`xargs -I{}`), when they are only
        # known at run time: a word that starts with it names a path only known then
        self.slot = slot

    def key(self) -> tuple[object, ...]:
        return (
            self.argv,
            self.dirs,
            self.remote,
            self.env,
            self.redirs,
            self.runtime_args,
            self.stdin_from,
            self.args_from,
            self.data_from,
            self.background,
            self.repeating,
            self.fds,
            self.found,
            self.dotglob,
            self.slot,
        )

    def __repr__(self) -> str:
        return f"Run({self.argv!r}, dirs={self.dirs!r}, remote={self.remote!r})"
