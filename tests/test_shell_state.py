"""What bash remembers between commands and the walker keeps (docs/design/shell.md): a
function's locals, what `&&`/`||` may leave set, a child shell's variables, unset and its
defaults, shell options, descriptors read by `read -u`/`mapfile`, names bound by `hash -p`."""

from __future__ import annotations

import pytest

from agentstyle.shell import parse_shell


def argvs(line: str) -> list[tuple[str, ...]]:
    return [r.argv for r in parse_shell(line, "/tmp/project").runs]


def runs_rm(line: str) -> bool:
    return any(a[:1] in (("rm",), ("/bin/rm",)) and "-rf" in a for a in argvs(line))


@pytest.mark.parametrize(
    ("line", "rm"),
    [
        # a function's `local` (and declare/typeset) ends with it; without it, it sets the caller's
        ('T=rm; f() { local T=echo; }; f; "$T" -rf x', True),
        ('T=echo; f() { local T=rm; }; f; "$T" -rf x', False),
        ('T=echo; f() { declare T=rm; }; f; "$T" -rf x', False),
        ('T=echo; f() { declare -g T=rm; }; f; "$T" -rf x', True),
        ('T=echo; f() { T=rm; }; f; "$T" -rf x', True),
        ('f() { local T=rm; "$T" -rf x; }; f', True),
        ('T=rm; f() { local T; unset T; }; f; "$T" -rf x', True),
        # what follows && or || may not run: both values
        ('T=echo; true && T=rm || T=echo; "$T" -rf x', True),
        ('T=rm; false && T=echo; "$T" -rf x', True),
        # a child shell has what it is started with
        ("T=rm bash -c '\"$T\" -rf x'", True),
        ("env T=rm sh -c '$T -rf x'", True),
        ("env -i T=rm sh -c '$T -rf x'", True),
        # unset, and the defaults that tell it from empty
        ('unset U; eval "${U-rm -rf x}"', True),
        ('U=; eval "${U-rm -rf x}"', False),
        ('U=; eval "${U:-rm -rf x}"', True),
        ('unset U; eval "${U+rm -rf x}"', False),
        # lastpipe: the last stage of a pipeline runs in this shell
        ("shopt -s lastpipe; echo rm | read T; $T -rf x", True),
        ("shopt -s lastpipe; shopt -u lastpipe; echo rm | read T; $T -rf x", False),
        # read -u and mapfile -u from a descriptor that holds a text
        ("exec 4<<<'rm -rf x'; read -r -u 4 c; eval \"$c\"", True),
        ('exec {d}<<<\'rm -rf x\'; mapfile -tu"$d" l; eval "${l[0]}"', True),
        ("exec {d}<<<'rm -rf x'; readarray -t -u \"$d\" l; ${l[0]}", True),
        ("exec 4<<<'ls -la'; read -u 4 c; eval \"$c\"", False),
        # hash -p binds a name to a program; not a builtin's while it is enabled; PATH, -r forget
        ("hash -p /bin/rm wipe; wipe -rf x", True),
        ("hash -p /bin/rm echo; echo -rf x", False),
        ("hash -p /bin/rm echo; enable -n echo; echo -rf x", True),
        ("hash -p /bin/rm wipe; PATH=/bin; wipe -rf x", False),
        ("hash -p /bin/rm wipe; hash -r; wipe -rf x", False),
        ("hash -p /bin/rm wipe; hash -d wipe; wipe -rf x", False),
        # tmux's flags before the command it runs; xargs -r with no input
        ("tmux new-session -ds s 'rm -rf x'", True),
        ("tmux new -d -s s", False),
        ("printf '' | xargs -r rm -rf x", False),
        ("printf '' | xargs rm -rf x", True),
        # +n turns an earlier -n off
        ("bash -n +n -c 'rm -rf x'", True),
        ("bash +n -n -c 'rm -rf x'", False),
        # a name reference stands for its variable, set before or after it
        ('T=rm; declare -n r=T; "$r" -rf x', True),
        ("declare -n r=T; T=rm; $r -rf x", True),
        ('declare -n r=T; r=rm; "$T" -rf x', True),
        ('T=rm; declare -n r=U; "$r" -rf x', False),
        # what is written into a >(…) or a coprocess, its reader runs
        ("exec 3> >(bash); echo 'rm -rf x' >&3", True),
        ("exec 3> >(cat); echo 'rm -rf x' >&3", False),
        ("echo 'rm -rf x' | tee >(sh)", True),
        ("coproc bash; echo 'rm -rf x' >&${COPROC[1]}", True),
        ("coproc C { cat; }; echo 'rm -rf x' >&${C[1]}", False),
        # a shell reading a descriptor opened on a string; mapfile's callback
        ("exec 4<<<'rm -rf x'; bash <&4", True),
        ("mapfile -C 'rm -rf x' -c 1 l < f", True),
        ("mapfile -C 'rm -rf x' --bad l < f", False),
    ],
)
def test_what_the_shell_remembers_decides_what_runs(line: str, rm: bool) -> None:
    assert runs_rm(line) is rm, argvs(line)


def test_a_child_shell_keeps_its_own_cd_and_variables() -> None:
    runs = parse_shell("bash -c 'cd /; X=1'; rm -rf x", "/tmp/project").runs
    [rm] = [r for r in runs if r.argv[:1] == ("rm",)]
    assert rm.dirs == ("/tmp/project",)


def test_env_i_runs_a_command_without_the_exported_variables() -> None:
    runs = parse_shell("export A=1; env -i B=2 git status", "/tmp/project").runs
    [git] = [r for r in runs if r.argv[:1] == ("git",)]
    assert git.env == ("B=2",)
    runs = parse_shell("export A=1; env B=2 git status", "/tmp/project").runs
    [git] = [r for r in runs if r.argv[:1] == ("git",)]
    assert git.env == ("A=1", "B=2")


def test_set_a_exports_what_the_line_sets_after_it() -> None:
    def env_of(line: str) -> tuple[str, ...]:
        return next(r.env for r in parse_shell(line, "/tmp/project").runs if r.argv[:1] == ("git",))

    assert "GIT_PAGER=cat" in env_of("set -a; GIT_PAGER=cat; git log")
    assert "GIT_PAGER=cat" in env_of("set -o allexport; GIT_PAGER=cat; git log")
    assert "GIT_PAGER=cat" not in env_of("GIT_PAGER=cat; git log")
    assert "GIT_PAGER=cat" not in env_of("set -a; set +a; GIT_PAGER=cat; git log")


def test_dotglob_is_kept_per_shell() -> None:
    runs = parse_shell("shopt -s dotglob; (shopt -u dotglob; ls *); ls *", "/tmp/p").runs
    assert [r.dotglob for r in runs if r.argv[:1] == ("ls",)] == [False, True]
