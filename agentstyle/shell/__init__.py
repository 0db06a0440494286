"""What a shell command string runs: its simple commands, the code it feeds interpreters, the
code it builds at run time, and whether the analysis took all of it.

The pipeline: `syntax` parses the text (never failing: repairs become issues),
`walk` walks the tree the way bash runs it, with `words` (expansion),
`wrappers` (commands that run commands), `programs` (where interpreters take their
program), `embedded` (shell commands inside interpreter code), `stdout` (output
known from the text), `files` (reading local scripts) and `fallback` (the lexical
split of text the parser did not structure).

The fields (the contract guard packages match on)
----------------------------------------------------

`shell.commands` — every simple command the shell would run, one element each, normalized:
quotes removed the way the shell removes them, words joined by one space, redirections
removed wherever they stand (`git >/dev/null reset --hard` → `git reset --hard`), heredoc
bodies cut out. Commands are found

- across `;`, `&&`, `||`, `|`, `|&`, `&` and newlines, and inside every construct: `$(…)` and
  backticks at any depth, `( … )`, `{ …; }`, `if/elif/else`, `for/select` (also
  `for x in a; { …; }`), `while`, `until`, `case`, `coproc`, `<(…)`/`>(…)`, `[[ … ]]`,
  `(( … ))`, `trap 'ACTION' SIG` actions, `alias` expansions;
- in functions only when they are called (a function defined and never called runs nothing;
  but a command whose name is only known at run time may call any of them, so then all are
  walked);
- behind wrappers, each peeled with its option values and `--`: `sudo`, `doas`, `env` (`-i`,
  `-u`, `-C`, `-P`, `-S`), `nice`, `nohup`, `setsid`, `ionice`, `chrt`, `taskset`, `timeout`,
  `stdbuf`, `time`, `command`, `builtin`, `exec`, `busybox`, `flock` (and `-c`), `chroot`,
  `strace`, `ltrace`, `unshare`, `nsenter`, `watch`, `script -c`, `su`/`runuser`/`sg`,
  `xargs` (`-I {}`, `-n1`, `-0`, `-d`, `-R`, …; with known stdin its items become arguments:
  `echo / | xargs rm -rf` → `rm -rf /`), GNU `parallel` (`:::` inputs substituted), `find
  … -exec/-execdir/-ok/-okdir … {} ;|+`, `bash/sh/zsh/dash/ksh/… -c` (with `--`, `-l`, `-e`,
  clusters, `$SHELL -c`), `eval`, package runners (`npx`, `uvx`, `uv run`, `poetry run`,
  `bundle exec`, …), `docker/podman exec`, `kubectl exec -- …`, `ssh HOST CMD`, `tmux`,
  `hyperfine`, `nix-shell --run`, and `git -c alias.X=… X` (the alias is what runs);
- in text that becomes code: `eval`, a pipe or heredoc into a shell (`printf 'rm -rf /\\n' |
  sh`; `echo, printf, cat, base64 -d, xxd -r -p, rev, tr, gunzip` outputs are computed),
  `source FILE`, `at`/`batch`, local shell scripts the command runs (also a script written
  earlier in the same command line: `cat > x.sh <<EOF … EOF; bash x.sh`), and shell strings
  inside interpreter code (below);
- in code handed over without a shell word: settings git runs (`git -c core.pager=CMD`,
  `git config core.sshCommand CMD`, `git config alias.X '!CMD'`, recorded when defined and
  when `git X` runs), variables a program runs (`GIT_SSH_COMMAND=CMD git fetch`, `EDITOR`,
  `PAGER`, …), `vim -c '!CMD'`, `tar --to-command=CMD`, `rsync -e CMD`,
  `ssh -o ProxyCommand=CMD`.

For a wrapper both the wrapper command and the command(s) it runs are elements. Leading
`VAR=value` assignments (and those of `export`/`declare`/`local`/`readonly`, `sudo VAR=…`,
`env VAR=…`) are elements of their own too, so identity checks read `GIT_AUTHOR_EMAIL=…`.
A command named by path (`/bin/rm`, `git.exe`) is also recorded by its name (`rm …`, `git …`);
one named in capitals (`GIT`) also in lower case (case-insensitive file systems run it).

Redirections never move words, but the files are not lost: a command with file redirections is
recorded a second time with them after its words (`< .env cat` → `cat` and `cat < .env`;
`echo x >> notes`), descriptor duplications (`2>&1`), heredocs and `/dev/null` left out; a
compound command's file redirections are an element of their own (`< .env` for
`while read l; do …; done < .env`). With a known project directory, a command with an
unquoted glob is recorded again with the glob's matches in the project (`cat .e*` → `cat .env`;
at most 256 names; nothing outside the project is listed).

Words are expanded as bash expands them, as far as the text tells: a backslash-newline joins
a word (`git re\\⏎set` → `git reset`), `${IFS}`/`$IFS` separate words, brace expansion
(`/tmp/{a,../b}` → `/tmp/a /tmp/../b`, `{1..3}`), variables assigned earlier in the same
command line (`d=/; rm -rf $d` → `rm -rf /`; `x=rm; $x -rf /` → `rm -rf /`; arrays;
`read x <<< …`; `printf -v`; `HOME=/; rm -rf ~` → `rm -rf /`; a run-time value is held as
written: `R=${HOME}; rm -rf $R` → `rm -rf $HOME`), positional parameters of
`sh -c '…' arg0 args` and of function calls, `${VAR:?}`/`${VAR%/}`/`${VAR:-default}` and
the other operators, and command substitutions whose output is known (`$(echo rm) -rf /` →
`rm -rf /`). A variable assigned in
branches holds every value it may have: the command is then recorded once per value. What is
only known at run time stays as written, normalized: `$HOME`, `${HOME:?}` → `$HOME`,
`$(date)` as written. Argument positions are kept (one word, one position), so a search
pattern (`rg id_rsa docs/`) stays distinguishable from a file operand.

The working directory is followed through the command (`cd`, `pushd`/`popd`, `env -C`,
`sudo -D`; a subshell's `cd` does not leak): after a `cd` that moved away from the starting
directory, each command is recorded a second time with its relative operands resolved against
where it runs. A resolved operand is relative to the project (harness cwd) when it stays inside
it, absolute when it leaves it, `~/…` or `$VAR/…` when the directory is only known that way,
and keeps its `..` when no project directory is known: `cd / && rm -rf *` adds `rm -rf /*`,
`cd .. && rm -rf proj` adds `rm -rf /home/dev/proj`, `cd build && rm -rf out` adds
`rm -rf build/out`. An operand that left the project is also written through `..` when the
`cd` went there from the project by relative steps, or when it is the project's folder, a
parent of it or a glob in one: `cd .. && rm -rf proj` adds `rm -rf ../proj` too, and
`cd /tmp/w && rm -rf *` with the project in /tmp/w/app adds `rm -rf ../*`, so a project under
/tmp does not make its own neighbours and parents look like scratch space. Options,
`NAME=value` words, URLs, and the pattern of `grep`/`rg`/`sed`/`awk`/… stay as they are;
commands whose operands are not paths (`echo`, `git`, …) get no second form.

`shell.code` — program text handed to interpreters: heredoc and herestring bodies fed to
`python`, `node`, `bash`, `psql`, …, inline `-c`/`-e`/`-r`/`eval` programs of non-shell
interpreters (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, `deno eval`, `bun -e`,
`awk 'PROGRAM'`, …), text piped into them when known, and the text of local scripts the
command runs or sources (regular files under the harness cwd, at most 256 KiB, never for a
command in a container or on an ssh host).

Shell strings in that code are also routed into `shell.commands`: `os.system`, `os.popen`,
`subprocess.run/call/check_call/check_output/Popen/getoutput` (string or list argv),
`os.exec*`/`os.spawn*`/`posix_spawn`, `asyncio.create_subprocess_*`, `pty.spawn`;
`child_process.exec/execSync/execFile/spawn/spawnSync`, `execa`, `Bun.spawn`, `` $`…` ``,
`Deno.Command`; Perl/Ruby/PHP `system`, `exec`, backticks, `qx`/`%x`, `IO.popen`, `Open3.*`,
`Kernel.system`, `spawn`, `shell_exec`, `passthru`, `proc_open`, `pcntl_exec`, Perl pipe
`open`; Lua `os.execute`/`io.popen`; awk `system()` and pipes; AppleScript `do shell script`;
psql `\\!` and sqlite/duckdb `.shell`/`.system`.

`shell.dynamic` — kinds of code only built at run time, each present once:
`pipe-to-shell` (a shell reads commands from a pipe: `curl … | bash`, `printf … | sh`,
`source /dev/stdin`), `pipe-to-interpreter` (`curl … | python3`), `downloaded-code` (that code
came from `curl`/`wget`/…), `decoded-code` (it went through `base64 -d`, `xxd -r`, `rev`, `tr`,
a decompressor or another program), `eval-substitution` (`eval "$(…)"`), `eval-variable`
(`eval "$x"`), `source-substitution` (`source <(…)`, `. <(…)`, `bash <(…)`, `source $(…)`),
`shell-c-substitution` (`bash -c "$(curl …)"`), `shell-c-variable` (`sh -c "$x"`),
`shell-c-positional` (`sh -c '… "$1"' _ ARG`), `inline-code-substitution` /
`inline-code-variable` (`python -c "$(…)"`, `node -e "$js"`), `code-shell-variable` (interpreter
code runs a command it builds: `os.system(cmd)`), `dynamic-command` (a command name only known
at run time: `$x args`, `$(…) args`), `computed-command` (a command name computed from the
text: `x=rm; $x …`, `$(echo rm) …`). Known parts are still parsed and recorded.

`shell.incomplete` — present (`true`) when the analysis could not take every part: a repair of
the syntax (unterminated quote, substitution or heredoc, missing `fi`/`done`/`esac`/`}`/`)`,
a stray token), nesting past the limits, more simple commands than MAX_ELEMENTS, the deadline,
a brace expansion or value combination past its limit, a local script over 256 KiB. Parts
that were not parsed are still split lexically into commands, so an element is never dropped
without the flag. `ShellParse.issues` says which limits were hit.
"""

from __future__ import annotations

import gc
import time

from agentstyle.shell.files import MAX_SCRIPT_BYTES
from agentstyle.shell.syntax import parse
from agentstyle.shell.walk import MAX_ELEMENTS, MAX_NESTING, Stdin, Walker

__all__ = [
    "MAX_ELEMENTS",
    "MAX_NESTING",
    "MAX_PARSE_SECONDS",
    "MAX_SCRIPT_BYTES",
    "ShellParse",
    "parse_shell",
]

# The whole analysis of one command stops here (flagged incomplete): the shortest hook timeout
# STYLE writes is 10 s, and evaluation still needs its share.
MAX_PARSE_SECONDS = 2.0


class ShellParse:
    """The fields of one shell command (see the module docstring for what each holds)."""

    # A plain slotted class: a dataclass costs this module most of its import time, and
    # every shell event imports it.
    __slots__ = ("code", "commands", "dynamic", "issues")

    def __init__(
        self,
        commands: tuple[str, ...],
        code: tuple[str, ...],
        dynamic: tuple[str, ...] = (),
        issues: tuple[str, ...] = (),  # why the analysis is incomplete; empty when complete
    ) -> None:
        self.commands = commands
        self.code = code
        self.dynamic = dynamic
        self.issues = issues

    @property
    def incomplete(self) -> bool:
        return bool(self.issues)

    def _key(self) -> tuple[tuple[str, ...], ...]:
        return (self.commands, self.code, self.dynamic, self.issues)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShellParse) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"ShellParse(commands={self.commands!r}, code={self.code!r}, "
            f"dynamic={self.dynamic!r}, issues={self.issues!r})"
        )


def parse_shell(command: str, cwd: str | None = None) -> ShellParse:
    """Analyse `command` as bash; read local scripts only under `cwd` (none when it is None)."""
    # Blank ends are not part of any command (and would run into an unterminated quote).
    command = command.strip()
    if not command:
        return ShellParse(commands=(), code=())
    deadline = time.monotonic() + MAX_PARSE_SECONDS
    walker = Walker(cwd, deadline)
    # The syntax tree holds no reference cycles: the cyclic collector would only rescan it
    # (a third of the parse time on large input). Reference counting still frees it.
    collecting = gc.isenabled()
    gc.disable()
    try:
        parsed = parse(command, deadline)
        for issue in parsed.issues:
            walker.issue(issue)
        walker.walk(parsed.tree, Stdin())
        walker.finish()
    except RecursionError:  # the depth limits keep the walk far from this; never a traceback
        walker.issue("nesting-limit")
        walker.lexical(command)
    except Exception as exc:  # a bug here must not cost the hook its answer
        # The analysis is incomplete, says why, and still has the commands split lexically;
        # the fuzz tests fail on this issue, so it is never the normal path.
        walker.issue(f"analysis-error: {type(exc).__name__}")
        walker.full = True
    finally:
        if collecting:
            gc.enable()
    if walker.full:
        # Out of time or elements: what was not walked is still split into commands.
        walker.lexical(command)
    return ShellParse(
        commands=tuple(walker.commands),
        code=tuple(walker.code),
        dynamic=tuple(walker.dynamic),
        issues=tuple(walker.issues),
    )
