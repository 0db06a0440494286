"""One simple command as the shell would run it: the record the command model reads
(docs/design/shell.md#runs)."""

from __future__ import annotations


class Run:
    """A simple command the shell would run: its words as expanded, where it runs and what
    surrounds it. `dirs` are the directories it may run in, in the analysis's form (an absolute
    folder, `~/…` or `$VAR/…`; "" for the project when its folder is not known)."""

    # A plain slotted class, like ShellParse: every shell event builds several.
    __slots__ = ("argv", "dirs", "env", "redirs", "remote", "runtime_args", "text")

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
    ) -> None:
        self.argv = argv
        self.dirs = dirs
        self.remote = remote  # on another machine or in a container (ssh, docker exec)
        self.env = env  # the NAME=value words it runs with
        self.redirs = redirs  # (operator, file) of its file redirections: (">", "out.txt")
        self.runtime_args = runtime_args  # xargs appends words only known when it runs
        self.text = text  # its element of shell.commands

    def key(self) -> tuple[object, ...]:
        return (self.argv, self.dirs, self.remote, self.env, self.redirs, self.runtime_args)

    def __repr__(self) -> str:
        return f"Run({self.argv!r}, dirs={self.dirs!r}, remote={self.remote!r})"
