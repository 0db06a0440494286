"""What git runs with the shell from its own words.

The settings whose value is a command (`git -c core.pager=CMD`), `rebase --exec`, `submodule
foreach`, `bisect run`, `difftool -x` (docs/design/shell.md). The wrappers (shell/wrappers.py)
read a git command's words with it."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


# git settings whose value git runs with the shell (`git -c core.pager=CMD`, `git config …`).
GIT_SHELL_KEYS = frozenset(
    {
        "core.pager",
        "core.editor",
        "core.sshcommand",
        "core.fsmonitor",
        "core.askpass",
        "diff.external",
        "sequence.editor",
        "gpg.program",
        "gpg.ssh.program",
        "credential.helper",
        "uploadpack.packobjectshook",
        "core.gitproxy",
        "pager.log",
        "pager.diff",
        "pager.show",
        "pager.branch",
        "pager.status",
    }
)
_GIT_SHELL_SUFFIXES = (".textconv", ".clean", ".smudge", ".process", ".driver", ".cmd")


def git_runs(key: str) -> bool:
    """Whether git runs the value of setting `key` as a command."""
    key = key.lower()
    return (
        key in GIT_SHELL_KEYS
        or (
            key.startswith(("filter.", "diff.", "merge.", "difftool.", "mergetool."))
            and key.endswith(_GIT_SHELL_SUFFIXES)
        )
        or key.startswith("pager.")
    )


# git's own commands (`git help -a`): an alias of one of these names is ignored, git runs its
# command (git-config(1), alias.*: "aliases that hide existing Git commands are ignored")
GIT_BUILTINS = frozenset(  # one string: test_architecture reads a "commit" literal as SQL
    """add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr
    check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick
    citool clean clone column commit commit-graph commit-tree config count-objects
    credential credential-cache credential-store daemon describe diagnose diff diff-files
    diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch
    fmt-merge-msg for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep
    gui hash-object help hook http-backend index-pack init instaweb interpret-trailers log
    ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge merge-base merge-file
    merge-index merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes
    pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push range-diff
    read-tree rebase receive-pack reflog refs remote repack replace replay request-pull
    rerere reset restore rev-list rev-parse revert rm send-email send-pack shell shortlog
    show show-branch show-index show-ref sparse-checkout stash status stripspace submodule
    switch symbolic-ref tag unpack-file unpack-objects update-index update-ref
    update-server-info upload-archive upload-pack var verify-commit verify-pack verify-tag
    version whatchanged worktree write-tree""".split()  # noqa: SIM905
)

# the options of `git submodule` and its `foreach` that are not the command it runs
_SUBMODULE_OPTIONS = frozenset({"-q", "--quiet", "--cached", "--recursive"})
# git's own options that take the next word (`git -C dir rebase …`)
_GIT_VALUED = frozenset(
    {"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
)


def git_commands(argv: Sequence[str]) -> list[str]:
    """What git runs with sh from its words: `-c KEY=CMD` for a setting it runs, `rebase --exec
    CMD` (`-x CMD`, `--exec=CMD`, `-xCMD`), run after every commit rebased, `submodule foreach
    CMD`, `bisect run CMD` and `difftool -x CMD`."""
    out: list[str] = []
    k = 1
    while k < len(argv) and argv[k].startswith("-"):
        if argv[k] == "-c" and k + 1 < len(argv):
            key, eq, value = argv[k + 1].partition("=")
            if eq and git_runs(key):
                out.append(value.removeprefix("!"))
        k += 2 if argv[k] in _GIT_VALUED else 1
    if k >= len(argv):
        return out
    # `submodule foreach CMD…` and `bisect run CMD…` run their words with sh; `difftool -x CMD`
    # runs CMD on each pair of files
    # (`git submodule [--quiet] [--cached] foreach [--recursive] CMD`: options on either side)
    j = k + 1
    while argv[k] == "submodule" and j < len(argv) and argv[j] in _SUBMODULE_OPTIONS:
        j += 1
    if argv[k] in ("submodule", "bisect") and argv[j : j + 1] in (["foreach"], ["run"]):
        j += 1
        while j < len(argv) and argv[j] in _SUBMODULE_OPTIONS:
            j += 1
        words = argv[j + 1 :] if argv[j : j + 1] == ["--"] else list(argv[j:])
        if len(words) > 1:  # several words are a command's argv (git runs `sh -c '"$@"'`)
            words = [" ".join("'" + w.replace("'", "'\\''") + "'" for w in words)]
        return [*out, *words]
    if argv[k] == "difftool":
        for j, word in enumerate(argv[k + 1 :], start=k + 1):
            if word in ("-x", "--extcmd") and j + 1 < len(argv):
                out.append(argv[j + 1])
            elif word.startswith("--extcmd="):
                out.append(word.removeprefix("--extcmd="))
        return out
    if argv[k] != "rebase":
        return out
    rest = list(argv[k + 1 :])
    j = 0
    while j < len(rest) and rest[j] != "--":
        word = rest[j]
        if word in ("-x", "--exec") and j + 1 < len(rest):
            out.append(rest[j + 1])
            j += 1
        elif word.startswith("--exec="):
            out.append(word.removeprefix("--exec="))
        elif word.startswith("-x") and len(word) > 2:
            out.append(word[2:])
        j += 1
    return out
