"""The wrappers' option shapes, as data: one `Spec` per wrapper or runner subcommand.

A wrapper is `sudo`, `timeout`, `xargs`, …; a runner's subcommand `npx`, `uv run`, ….
`wrappers.py` reads a command's words with them; a new wrapper is a row here (and, when its words
need more than options, a few lines there)."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


class Spec:
    """The option shape of one wrapper (getopt style, options end at the first operand)."""

    __slots__ = (
        "assigns",
        "chdir",
        "join",
        "long",
        "nocmd",
        "numeric",
        "operands",
        "optional",
        "remote",
        "short",
        "strings",
    )

    def __init__(
        self,
        short: str = "",
        long: Sequence[str] | dict[str, int] = (),
        *,
        optional: str = "",
        operands: int = 0,
        assigns: bool = False,
        numeric: bool = False,
        strings: Sequence[str] = (),
        chdir: Sequence[str] = (),
        nocmd: Sequence[str] = (),
        remote: bool = False,
        join: bool = False,
    ) -> None:
        self.short = short  # short options whose value is the rest of the word or the next word
        # long options taking values, with how many words (most take one)
        self.long = dict(long) if isinstance(long, dict) else dict.fromkeys(long, 1)
        self.optional = optional  # short options whose value is optional and attached only
        self.operands = operands  # operands between the options and the command (`timeout 5`)
        self.assigns = assigns  # NAME=value words may precede the command (`sudo A=1 cmd`)
        self.numeric = numeric  # `-10` is an option (`nice -10 cmd`)
        self.strings = frozenset(strings)  # options whose value is a shell command string
        self.chdir = frozenset(chdir)  # options whose value is the directory the command runs in
        self.nocmd = frozenset(nocmd)  # options after which no command runs (`command -v`)
        self.remote = remote  # the command runs on another filesystem
        self.join = join  # the command words are joined into one shell string (`watch`)


# -- the option shapes -----------------------------------------------------------------------------

_SUDO = Spec(
    "ugpCDrtUThR",
    (
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
    ),
    assigns=True,
    chdir=("-D", "--chdir"),
    nocmd=("-e", "--edit", "-l", "--list", "-v", "--validate", "-V", "--version", "-K"),
)
_TIMEOUT = Spec("sk", ("--signal", "--kill-after"), operands=1)
_STRACE = Spec(
    "abeEIoOpPsSuXU",
    ("--output", "--attach", "--signal", "--trace", "--string-limit", "--user", "--env"),
    nocmd=("-p", "--attach"),
)
_LTRACE = Spec("aAeFlLnopsuwxD", ("--output", "--library", "--indent"), nocmd=("-p",))
_RUNNER = Spec()  # `nohup cmd`, `catchsegv cmd`: options none, the command follows

SPECS: dict[str, Spec] = {
    "sudo": _SUDO,
    "doas": Spec("uCs", nocmd=("-C",)),
    "nice": Spec("n", ("--adjustment",), numeric=True),
    "nohup": _RUNNER,
    "setsid": Spec(),
    "ionice": Spec(
        "cnpPu",
        ("--class", "--classdata", "--pid", "--pgid", "--uid"),
        nocmd=("-p", "--pid", "-P", "--pgid", "-u", "--uid"),
    ),
    "chrt": Spec(
        "TPD",
        ("--sched-runtime", "--sched-period", "--sched-deadline"),
        operands=1,
        nocmd=("-p", "--pid", "-m", "--max"),
    ),
    "taskset": Spec(operands=1, nocmd=("-p", "--pid")),
    "timeout": _TIMEOUT,
    "gtimeout": _TIMEOUT,
    "stdbuf": Spec("ioe", ("--input", "--output", "--error")),
    "gstdbuf": Spec("ioe", ("--input", "--output", "--error")),
    "time": Spec("fo", ("--format", "--output")),
    "command": Spec(nocmd=("-v", "-V")),
    "builtin": Spec(),
    "exec": Spec("a"),
    "busybox": Spec(nocmd=("--install", "--list", "--help")),
    "toybox": Spec(),
    "chroot": Spec(long=("--userspec", "--groups"), operands=1, remote=True),
    "strace": _STRACE,
    "ltrace": _LTRACE,
    "unshare": Spec(
        "SGRw",
        (
            "--setuid",
            "--setgid",
            "--root",
            "--wd",
            "--propagation",
            "--setgroups",
            "--map-user",
            "--map-group",
            "--map-users",
            "--map-groups",
            "--load-interp",
        ),
    ),
    "nsenter": Spec("tSG", ("--target", "--setuid", "--setgid"), optional="rwmuinpUCT"),
    "pkexec": Spec(long=("--user",)),
    "gosu": Spec(operands=1),
    "su-exec": Spec(operands=1),
    "chpst": Spec("ugUevn/lmdofpc"),
    "setpriv": Spec(
        long=(
            "--reuid",
            "--regid",
            "--ruid",
            "--rgid",
            "--euid",
            "--egid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--pdeathsig",
            "--selinux-label",
            "--apparmor-profile",
            "--landlock-access",
            "--landlock-rule",
        ),
    ),
    "systemd-run": Spec(
        "upEMHd",
        (
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--setenv",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
            "--machine",
            "--host",
            "--on-calendar",
            "--on-active",
            "--on-boot",
            "--on-startup",
            "--on-unit-active",
            "--on-unit-inactive",
            "--timer-property",
            "--path-property",
            "--socket-property",
            "--service-type",
        ),
        chdir=("--working-directory",),
    ),
    "numactl": Spec(
        "ipmNCP",
        ("--interleave", "--preferred", "--membind", "--cpunodebind", "--physcpubind"),
        nocmd=("-s", "--show", "-H", "--hardware"),
    ),
    "cgexec": Spec("g"),
    "firejail": Spec(),
    "bwrap": Spec(
        long={
            "--bind": 2,
            "--ro-bind": 2,
            "--dev-bind": 2,
            "--bind-try": 2,
            "--ro-bind-try": 2,
            "--dev-bind-try": 2,
            "--symlink": 2,
            "--setenv": 2,
            "--file": 2,
            "--bind-data": 2,
            "--ro-bind-data": 2,
            "--chmod": 2,
            "--overlay": 3,
            "--chdir": 1,
            "--uid": 1,
            "--gid": 1,
            "--hostname": 1,
            "--tmpfs": 1,
            "--proc": 1,
            "--dev": 1,
            "--dir": 1,
            "--remount-ro": 1,
            "--unsetenv": 1,
            "--lock-file": 1,
            "--sync-fd": 1,
            "--info-fd": 1,
            "--seccomp": 1,
            "--exec-label": 1,
            "--file-label": 1,
            "--cap-add": 1,
            "--cap-drop": 1,
            "--args": 1,
            "--userns": 1,
            "--userns2": 1,
            "--pidns": 1,
            "--perms": 1,
            "--size": 1,
            "--overlay-src": 1,
            "--tmp-overlay": 1,
            "--ro-overlay": 1,
            "--argv0": 1,
            "--block-fd": 1,
            "--userns-block-fd": 1,
            "--json-status-fd": 1,
            "--mqueue": 1,
        },
        chdir=("--chdir",),
    ),
    "fakeroot": Spec("lsib", ("--lib", "--faked")),
    "sandbox-exec": Spec("fpDn"),
    "caffeinate": Spec("tw"),
    # macOS's `arch -arm64 cmd`, `arch -x86_64 -e VAR=1 cmd`: the command under another CPU type
    "arch": Spec("ed"),
    "unbuffer": Spec(),
    "rlwrap": Spec("bCDefgHlOpPqSstwz"),
    "torsocks": Spec("upaP"),
    "proxychains": Spec("f"),
    "proxychains4": Spec("f"),
    "sshpass": Spec("pfdP"),
    "catchsegv": _RUNNER,
    "valgrind": Spec(),
    "chronic": Spec(),
    "ifne": Spec(),
    "dbus-launch": Spec(),
    "xvfb-run": Spec(
        "nspfe",
        ("--server-num", "--server-args", "--auth-file", "--error-file", "--xauth-protocol"),
    ),
    "entr": Spec(strings=()),
    "lxterminal": Spec(),
    "flatpak-spawn": Spec(),
    "cross-env": Spec(assigns=True),
    "dotenv": Spec("ecv"),
    "env-cmd": Spec("f", ("--file", "--environments")),
}
# `TOOL SUBCOMMAND [options] cmd…`: package runners and environment managers.
RUNNERS: dict[tuple[str, str], Spec] = {
    ("npm", "exec"): Spec("pcw", ("--package", "--call", "--workspace"), strings=("-c", "--call")),
    ("pnpm", "exec"): Spec("C", ("--dir", "--filter")),
    ("pnpm", "dlx"): Spec(long=("--package",)),
    ("yarn", "exec"): Spec(),
    ("yarn", "dlx"): Spec("p", ("--package",)),
    ("bun", "x"): Spec(),
    ("uv", "run"): Spec(
        "pw",
        (
            "--python",
            "--with",
            "--project",
            "--directory",
            "--package",
            "--env-file",
            "--group",
            "--extra",
            "--index",
            "--from",
        ),
    ),
    ("uv", "tool"): Spec(),
    ("pipx", "run"): Spec(long=("--spec", "--python", "--pip-args")),
    ("poetry", "run"): Spec("C", ("--directory", "--project")),
    ("pipenv", "run"): Spec(),
    ("pdm", "run"): Spec("p", ("--project",)),
    ("hatch", "run"): Spec(),
    ("rye", "run"): Spec(),
    ("conda", "run"): Spec("np", ("--name", "--prefix", "--cwd"), chdir=("--cwd",)),
    ("mamba", "run"): Spec("np", ("--name", "--prefix")),
    ("micromamba", "run"): Spec("np", ("--name", "--prefix")),
    ("bundle", "exec"): Spec(long=("--gemfile",)),
    ("direnv", "exec"): Spec(operands=1),
    ("mise", "exec"): Spec("C", ("--cd",)),
    ("mise", "x"): Spec("C", ("--cd",)),
    ("rtx", "exec"): Spec(),
    ("asdf", "exec"): Spec(),
    ("devbox", "run"): Spec("c", ("--config",)),
    ("nix", "develop"): Spec(long=("--command",)),
    ("op", "run"): Spec(long=("--env-file",)),
    ("doppler", "run"): Spec("pc", ("--project", "--config", "--command"), strings=("--command",)),
    ("infisical", "run"): Spec(long=("--env", "--path", "--command"), strings=("--command",)),
    ("dotenvx", "run"): Spec("f", ("--env-file",)),
    ("aws-vault", "exec"): Spec(operands=1),
    ("ip", "netns"): Spec(),  # `ip netns exec NAME cmd`, see _unwrap_ip
}
NPX = Spec("pc", ("--package", "--call"), strings=("-c", "--call"))
UVX = Spec("p", ("--from", "--with", "--python", "--index", "--with-requirements"))
XARGS = Spec(
    "adEILnPsRSJ",
    (
        "--arg-file",
        "--delimiter",
        "--max-lines",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
    ),
    optional="eil",
)
PARALLEL = Spec(
    "jSadEInNLPeCsXx",
    (
        "--jobs",
        "--sshlogin",
        "--arg-file",
        "--delimiter",
        "--eof",
        "--colsep",
        "--joblog",
        "--results",
        "--res",
        "--tmpdir",
        "--timeout",
        "--retries",
        "--delay",
        "--max-args",
        "--max-lines",
        "--max-procs",
        "--env",
        "--halt",
        "--memfree",
        "--load",
        "--block",
        "--workdir",
        "--wd",
        "--basefile",
        "--bf",
        "--return",
        "--transferfile",
        "--tf",
        "--tagstring",
        "--sshloginfile",
        "--slf",
        "--resume-failed",
        "--termseq",
        "--nice",
        "--limit",
        "--shebang-wrap",
        "--tmux",
        "--arg-sep",
        "--arg-file-sep",
        "--replace",
        "--extensionreplace",
        "--basenamereplace",
        "--dirnamereplace",
        "--seqreplace",
        "--header",
        "--profile",
    ),
)
# rtk, a proxy that filters a command's output for agents: `rtk git push`, `rtk cargo test`
# run the program named after it (a word it has no filter for too), `rtk err|test|summary|proxy
# CMD…` the command after it; these of its own run no other program (`rtk read FILE` prints a
# file, `rtk gain` its statistics).
RTK_OWN = frozenset(
    {"read", "smart", "json", "deps", "env", "log", "gain", "discover", "init", "config", "learn"}
    | {"trust", "untrust", "verify", "cc-economics", "hook-audit", "session", "help"}
)
RTK_RUNS = frozenset({"err", "test", "summary", "proxy"})
WATCH = Spec("nq", ("--interval", "--equexit", "--chgexit"), optional="d", join=True)
SCRIPT = Spec(
    "cETIOBm",
    (
        "--command",
        "--echo",
        "--log-timing",
        "--log-in",
        "--log-out",
        "--log-io",
        "--logging-format",
    ),
    optional="t",
    strings=("-c", "--command"),
)
SU = Spec(
    "cgGsw",
    (
        "--command",
        "--session-command",
        "--group",
        "--supp-group",
        "--shell",
        "--whitelist-environment",
    ),
    strings=("-c", "--command", "--session-command"),
)
FLOCK = Spec(
    "wEc",
    ("--timeout", "--conflict-exit-code", "--command"),
    operands=1,
    strings=("-c", "--command"),
)
SHELL_OPTS_WITH_ARG = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})
SHELLS = frozenset(
    {
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "mksh",
        "ash",
        "fish",
        "yash",
        "oksh",
        "loksh",
        "posh",
        "rbash",
        "tcsh",
        "csh",
        "pdksh",
        "ksh93",
    }
)
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
CONTAINER_EXEC = Spec(
    "uwe",
    ("--user", "--workdir", "--env", "--env-file", "--detach-keys", "--index"),
)
CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl"})
COMPOSE = Spec("fp", ("--file", "--project-name", "--env-file", "--profile", "--project-directory"))
CONTAINER_GLOBAL = Spec(
    "cHl", ("--context", "--host", "--config", "--log-level", "--url", "--connection")
)
SSH = Spec("BbcDEeFIiJLlmOoPpRSWwQ")
# A command run over ssh starts in the remote user's home folder, never in this project: its
# relative paths are judged from `~`, outside any project (docs/design/shell.md#remote).
REMOTE_HOME = "~"
GIT_GLOBAL = Spec(
    "Cc",
    (
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--super-prefix",
        "--exec-path",
        "--list-cmds",
        "--attr-source",
    ),
)
TMUX_GLOBAL = Spec("cfLST", strings=("-c",))
# per subcommand that runs a shell command, its short options that take a value (tmux(1);
# the others are flags: `new-session -ds NAME CMD` is -d, then -s NAME)
TMUX_SHELL = {
    "new-session": "cefFnstxy",
    "new": "cefFnstxy",
    "new-window": "ceFnt",
    "neww": "ceFnt",
    "split-window": "ceFlpt",
    "splitw": "ceFlpt",
    "respawn-pane": "cet",
    "respawnp": "cet",
    "respawn-window": "cet",
    "respawnw": "cet",
    "run-shell": "cdt",
    "run": "cdt",
    "display-popup": "bcdehsSTtwxy",
    "popup": "bcdehsSTtwxy",
}
TMUX_KEYS = {"Enter": "\n", "C-m": "\n", "KPEnter": "\n", "C-j": "\n", "Space": " ", "Tab": "\t"}
HYPERFINE = Spec(
    "wmMrpcsPLDSnuo",
    {
        "--warmup": 1,
        "--min-runs": 1,
        "--max-runs": 1,
        "--runs": 1,
        "--prepare": 1,
        "--conclude": 1,
        "--cleanup": 1,
        "--setup": 1,
        "--parameter-scan": 3,
        "--parameter-list": 2,
        "--parameter-step-size": 1,
        "--shell": 1,
        "--command-name": 1,
        "--export-asciidoc": 1,
        "--export-csv": 1,
        "--export-json": 1,
        "--export-markdown": 1,
        "--export-orgmode": 1,
        "--style": 1,
        "--sort": 1,
        "--time-unit": 1,
        "--output": 1,
        "--input": 1,
        "--reference": 1,
    },
    strings=("-p", "--prepare", "-c", "--cleanup", "-s", "--setup", "--conclude", "--reference"),
)


# -- commands given as option values (wrappers.commands_in_options) -------------------------

# ssh's settings whose value is a command it runs locally (ssh reads a key in any case, and
# `KEY=value` or `KEY value`: `-o 'ProxyCommand nc %h %p'`)
SSH_COMMANDS = frozenset({"proxycommand", "localcommand", "knownhostscommand"})
RUNS_OPTION: dict[str, tuple[frozenset[str], frozenset[str], str]] = {
    # name: (options taking the command as the next word, `--opt=` prefixes and `-o KEY=` ssh
    # settings, the short options that take a value: a cluster ends at one, which takes the
    # rest of the word or the next word, `tar -cI CMD`, `rsync -ae CMD`, `scp -qvoKEY=CMD`)
    "tar": (
        frozenset(
            {
                "--to-command",
                "-I",
                "--use-compress-program",
                "-F",
                "--info-script",
                "--new-volume-script",
            }
        ),
        frozenset(
            {
                "--to-command=",
                "--use-compress-program=",
                "--info-script=",
                "--new-volume-script=",
                "--checkpoint-action=exec=",
            }
        ),
        "bCfFgHIKLNTVX",
    ),
    "rsync": (frozenset({"-e", "--rsh"}), frozenset({"--rsh=", "--rsync-path="}), "BefMT"),
    "ssh": (frozenset(), SSH_COMMANDS, "BbcDEeFIiJLlmOoPpQRSWw"),
    "scp": (frozenset({"-S"}), SSH_COMMANDS, "cDFiJloPSX"),
    "sftp": (frozenset({"-S"}), SSH_COMMANDS, "BbcDFiJloPRSsX"),
    "man": (frozenset({"-P", "--pager"}), frozenset({"--pager="}), "CMPSemLp"),
    "git": (frozenset(), frozenset(), ""),
}
EDITORS = frozenset({"vim", "vi", "nvim", "view", "ex", "gvim", "vimdiff"})
