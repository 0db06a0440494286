"""How the bundled guards' long regexes are built, and the check that the packages hold them.

The guard packages (agentstyle/library/guard-*/STYLE.yaml) are plain YAML with RE2 patterns;
RE2 has no look-around, and a condition on a list field holds when *any* element matches, so
an exception ("a .env file other than .env.example", "a command other than ls") has to be
spelled inside the one regex as the complement of a word list. Writing those by hand is how
they go wrong, so they are built here from readable parts, and every pattern line of a package
that ends in `# gen: NAME` must equal `PATTERNS[NAME]` (tests/test_library_patterns.py).

    python tests/guard_patterns.py            # check, list the differences
    python tests/guard_patterns.py --write    # rewrite the marked lines in place

Conventions of the text the patterns run on (docs/design/shell.md): one element per
simple command, its words after quote removal joined by one space; `^` is the command name.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path

LIBRARY = Path(__file__).resolve().parent.parent / "agentstyle" / "library"
MARK = re.compile(r"^(?P<head>\s*(?:- )?pattern: )'(?P<body>.*)'(?P<tail>\s*# gen: (?P<name>\S+))$")


# ---------------------------------------------------------------------------------------------
# Building blocks.


def alt(*parts: str) -> str:
    return "(" + "|".join(parts) + ")"


def opt(part: str) -> str:
    return f"({part})?"


def esc(text: str) -> str:
    """RE2 escaping of a literal (only what needs it, to keep the patterns readable)."""
    return re.sub(r"([.^$*+?()\[\]{}|\\/])", lambda m: "\\" + m[1] if m[1] != "/" else "/", text)


def not_words(words: Iterable[str], char: str = r"\S", stop: str = r"\s") -> str:
    """A word (one or more `char`s) that is none of `words`: the complement, built from a trie.

    "Differs at some letter, or stops early, or goes on after the whole word": for {ab} over
    `\\S` it is `([^a\\s]\\S*|a([^b\\s]\\S*|b\\S+)?)`. `char` is the class of a word
    character (`\\S`, or `[^/\\s]` for one path component) and `stop` what the "differs"
    classes exclude besides the letter, so that they stay inside the word.
    """
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    star, plus = char + "*", char + "+"

    def differs(letters: list[str]) -> str:
        excluded = "".join("\\" + ch if ch in "]\\^-" else ch for ch in letters)
        return f"[^{excluded}{stop}]{star}"

    def below(node: dict[str, dict]) -> str:
        """The rest of a word that leaves the set, once a prefix reached `node`."""
        letters = sorted(k for k in node if k)
        terminal = "" in node
        if not letters:
            return plus  # a whole word of the set: only going on differs
        branches = [differs(letters)] + [esc(ch) + below(node[ch]) for ch in letters]
        body = "(" + "|".join(branches) + ")"
        # stopping here differs unless this prefix is itself a word of the set
        return body if terminal else body + "?"

    letters = sorted(k for k in trie if k)
    branches = [differs(letters)] + [esc(ch) + below(trie[ch]) for ch in letters]
    return "(" + "|".join(branches) + ")"


def prefixes(word: str, shortest: int) -> str:
    """`--word` and every abbreviation git or GNU getopt accepts from `shortest` characters on:
    prefixes("hard", 1) is `h(a(rd?)?)?`."""
    head, rest = word[:shortest], word[shortest:]
    out = ""
    for ch in reversed(rest):
        out = f"({esc(ch)}{out})?"
    return esc(head) + out


# ---------------------------------------------------------------------------------------------
# Shared words.

SHORT = "-[a-zA-Z0-9]*"  # the start of a short-option cluster such as -rf, -uf


def cluster(letter: str) -> str:
    """A short-option cluster holding `letter`: -f, -uf, -fdx."""
    return f"-[a-zA-Z0-9]*{letter}[a-zA-Z0-9]*"


def long_opt(word: str, shortest: int, value: bool = False) -> str:
    """`--word` or an abbreviation of it (git and getopt accept unambiguous prefixes)."""
    return "--" + prefixes(word, shortest) + ("(=\\S*)?" if value else "")


# git [global options] SUBCOMMAND: the global options git takes before the subcommand, those
# with a separate value first. The name is matched without case (`GIT` runs git on a
# case-insensitive file system; subcommands are case-sensitive, as git is), spelled as classes
# so that the subcommand (` push `) stays the literal the evaluator tests before the regex.
GIT = (
    r"^[Gg][Ii][Tt]( -[Cc] \S+| --(git-dir|work-tree|namespace|exec-path|super-prefix|config-env"
    r"|attr-source|list-cmds) \S+| --?[a-zA-Z][-a-zA-Z]*(=\S+)?)*"
)


# An operand outside the project: /, ~, ~user, $HOME and ${HOME…}, a path through `..`, an
# absolute path other than a named entry under /tmp/ or /var/tmp/ (scratch space: /tmp itself,
# /tmp/ and /tmp/* are outside), and the project's own history (.git).
SCRATCH = "(" + "|".join(["tmp", "var/tmp"]) + ")"


def absolute_outside(c: str = r"\S", stop: str = r"\s") -> str:
    """`/` then anything but `tmp/NAME` or `var/tmp/NAME` (NAME not starting with * or /):
    the complement of the two scratch roots, over word characters `c`."""

    def d(ex: str) -> str:  # a character that differs from `ex`, then anything
        return f"[^{ex}{stop}]{c}*"

    tmp_tail = f"p({d('/')}|/([*/]{c}*)?)?"  # after "tm": p, then not a named entry
    return (
        f"/({d('tv')}|t({d('m')}|m({d('p')}|{tmp_tail})?)?"
        f"|v({d('a')}|a({d('r')}|r({d('/')}|/({d('t')}|t({d('m')}|m({d('p')}|{tmp_tail})?)?)?)?)?)?)?"
    )


OUTSIDE = alt(
    r"~\S*",
    r"\$\{?HOME(\}|[:%#/][^}\s]*\})?(/\S*)?",
    r"(\S*/)?\.\.(/\S*)?",
    absolute_outside(),
    r"(\./)?\.git/?",
)
RECURSIVE = alt(cluster("[rR]"), long_opt("recursive", 1))
BRACED = r"(\{[^}\s]*\}|%)"  # an xargs/parallel placeholder: {}, {.}, {/}, %

PATTERNS: dict[str, str] = {}


def pattern(name: str, text: str) -> None:
    assert name not in PATTERNS, name
    PATTERNS[name] = text


# ---------------------------------------------------------------------------------------------
# guard-destructive

# The analysis also records a command with its file redirections appended (`rm -rf ./tmp 2>
# /root/err.log`): a word right after a redirection operator is written to, not deleted.
NOT_REDIRECT = (
    r"([^0-9<>&\s]\S*|[0-9]+([^0-9<>\s]\S*)?|[0-9]*[<>]([^<>|&\s]\S*|[<>|&]\S+)"
    r"|&([^>\s]\S*|>([^>\s]\S*|>\S+))?)"
)
# `.` too for rm: typed, rm refuses it; resolved after a `cd` (`cd .. && rm -rf project`), it is
# the project itself.
# A hidden-file glob matches the project's .git as well: `.*`, `.[!.]*`, `.g*`.
RM_OUTSIDE = alt(OUTSIDE, r"\./?", r"(\./)?\.(\*|\[[!^]\.\]\*|g\*|gi\*|git\*|\?\?\?\*?)")
pattern(
    "rm-recursive-outside",
    f"^rm (.* )?{RECURSIVE}(( \\S+)* {NOT_REDIRECT})? {RM_OUTSIDE}( |$)",
)
pattern("rm-outside-recursive", f"^rm (.* )?{RM_OUTSIDE} (.* )?{RECURSIVE}( |$)")
# operands that only arrive at run time: none, or placeholders
pattern("rm-run-time-targets", f"^rm ((-\\S+|{BRACED}) )*{RECURSIVE}( (-\\S+|{BRACED}))*$")
pattern("xargs-rm", r"^(xargs|parallel) (.* )?(\S*/)?rm( |$)")
# parallel's inputs after ::: fill the template's {}: `parallel rm -rf {} ::: /`, also when the
# template is a shell string (`parallel bash -c 'rm -rf {}' ::: /`). `--dry-run` before the
# template prints the jobs and runs none.
pattern(
    "parallel-rm-outside",
    f"^parallel( {not_words(['--dry-run'])})* (\\S*/)?rm (.* )?{RECURSIVE} (.* )?::: (.* )?"
    f"{OUTSIDE}( |$)",
)
# xargs or parallel running a shell whose code comes from the input: `xargs bash -c`,
# `xargs -I{} sh -c {}` (known input is substituted by the analysis; unknown input is code
# no rule has seen).
pattern(
    "shell-from-input",
    r"^(xargs|parallel) (.* )?(\S*/)?(bash|sh|zsh|dash|ksh|mksh|fish)( -\S+)* -[a-zA-Z]*c"
    rf"( {BRACED}( .*)?)?$",
)

FIND_HEAD = r"^find( -[HLP])*( -D \S+| -O[0-9])*"
EXEC_WRAPPERS = r"((\S*/)?(env|sudo|doas|command|busybox|nice|nohup|time|timeout \S+)( -\S+)* )*"
FIND_START = r"( [^-\s(!]\S*)*"
FIND_DELETES = (
    rf" (.* )?(-delete|-(exec|execdir|ok|okdir) {EXEC_WRAPPERS}(\S*/)?(rm|shred|unlink|rmdir))( |$)"
)
pattern("find-outside", f"{FIND_HEAD}{FIND_START} {OUTSIDE}{FIND_START}{FIND_DELETES}")
# `find . -delete` with no test that narrows it: the whole project, .git included
# Also from a start only known at run time, when it is a variable's whole folder (`find
# $TMPDIR -delete`, `"${DIR}/."`): like `/tmp` itself, the root of what it names. And any rm,
# unlink or shred that -exec runs on each file: find does the recursing (`find . -exec rm -f
# {} ;` empties the project, .git included).
pattern(
    "find-everything",
    f"{FIND_HEAD}( (\\./?|\\$\\{{?[A-Za-z_][A-Za-z0-9_]*\\}}?(/\\.?)*/?))?"
    f"( -(type|mindepth|maxdepth) \\S+| -depth| -xdev| -mount| -print0?)*"
    f" (-delete|-(exec|execdir) {EXEC_WRAPPERS}(\\S*/)?(rm|unlink|shred)( -\\S+)*"
    f" \\{{\\}}( \\+| ;)?)( |$)",
)


# Force pushes, for the starter package (guard-destructive reads them on command conditions).
# PROTECTED is the package's `protected_branches` setting (a list of branch regexes), filled in
# at install. A lone `--` that ends git's own options (`git -- push`) is read past.
def dgit(sub: str) -> str:
    return f"{GIT}( --)? {sub}"


PROTECTED = "{{settings.protected_branches}}"
FORCE = alt(cluster("f"), "--" + prefixes("force-with-lease", 1) + r"(=\S*)?")
DELETE = alt(cluster("d"), long_opt("delete", 2))
# `+` marks a forced refspec; written before the destination (`main:+main`) it is read so too
TARGET = rf"\+?(\S*:)?(refs/heads/)?({PROTECTED})"
pattern(
    "force-push-protected",
    dgit(
        f"push (.* )?({alt(FORCE, DELETE)} (.* )?{TARGET}|{TARGET} (.* )?{alt(FORCE, DELETE)}"
        rf"|[+:](\S*:)?(refs/heads/)?({PROTECTED})|\S*:\+(refs/heads/)?({PROTECTED}))( |$)"
    ),
)
CURRENT = r"(\S*:)?(HEAD|@)"
pattern(
    "force-push-current",
    dgit(f"push (.* )?({FORCE} (.* )?{CURRENT}|{CURRENT} (.* )?{FORCE}|\\+{CURRENT})( |$)"),
)
PUSH_OPTION = r"( (-o|--push-option|--repo|--receive-pack|--exec) \S+| -\S+)"
pattern(
    "force-push-unnamed",
    dgit(f"push({PUSH_OPTION})* {FORCE}({PUSH_OPTION})*( [^-\\s]\\S*)?({PUSH_OPTION})*$"),
)
pattern(
    "force-push-unnamed-after-remote",
    dgit(f"push({PUSH_OPTION})* [^-\\s]\\S*({PUSH_OPTION})* {FORCE}({PUSH_OPTION})*$"),
)
pattern("push-mirror", dgit(f"push (.* )?{long_opt('mirror', 1)}( |$)"))

# A command the analysis could not take whole, that mentions what this package guards.
pattern(
    "mentions-destructive",
    r"\brm\b[^\n]*-[a-zA-Z]*[rR]|--recursive|\bfind\b[^\n]*-(delete|exec)"
    r"|\bgit\b[^\n]*\b(reset|clean|push|checkout|restore|switch|stash|branch|worktree)\b"
    r"|rmtree|rmSync|rm_rf|remove_tree|remove_dir_all",
)


# Deletion APIs of interpreters (shell.code: -c/-e programs, heredocs, local scripts) given an
# outside path: a literal like rm-outside-project's, or the home directory by API.
CODE_C = r"[^\s\"'`]"
CODE_OUTSIDE = alt(
    "[rbfu]?[\"'`]"
    + alt(f"~{CODE_C}*", rf"\.\.(/{CODE_C}*)?", absolute_outside(CODE_C, r"\s\"'`"))
    + "[\"'`]",
    r"(os\.path\.expanduser|(pathlib\.)?Path\.home|(require\([\"']os[\"']\)|os)\.homedir)\(",
    r"Dir\.home\b",
    r"(ENV|os\.environ)(\.get\(|\[)[\"']HOME[\"']",
    r"process\.env\.HOME\b",
    r"\$ENV\{HOME\}",
)
DELETE_API = alt(
    r"(shutil\.)?rmtree",
    r"os\.removedirs",
    "remove_tree",
    r"(fs\.|fsp\.|promises\.)?(rmSync|rmdirSync|removeSync|emptyDirSync)",
    r"fs\.(promises\.)?rm(dir)?",
    r"rimraf(\.sync)?",
    r"(FileUtils\.)?(rm_rf|rm_r|remove_dir|remove_entry(_secure)?)",
    r"(std::fs::)?remove_dir_all",
    r"os\.RemoveAll",
    r"Deno\.remove(Sync)?",
)
# Perl calls without parentheses too (`rmtree "/srv"`), and Perl's unlink of a glob, which
# deletes every name it matches (`unlink glob("/etc/*")`, `unlink </etc/*>`).
OPEN = r"[ \t]*(\([ \t]*)?"
ANGLE_OUTSIDE = alt(f"~{CODE_C}*", rf"\.\.(/{CODE_C}*)?", absolute_outside(CODE_C, r"\s>"))
pattern(
    "delete-api-outside",
    alt(
        alt(DELETE_API, f"unlink{OPEN}glob") + OPEN + CODE_OUTSIDE,
        f"unlink{OPEN}<{ANGLE_OUTSIDE}>",
    ),
)


def not_prefixed(words: Iterable[str], char: str = r"\S", stop: str = r"\s") -> str:
    """A word (one or more `char`s) that starts with none of `words`."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def differs(letters: list[str]) -> str:
        excluded = "".join("\\" + ch if ch in "]\\^-" else ch for ch in letters)
        return f"[^{excluded}{stop}]{char}*"

    def alternatives(node: dict[str, dict]) -> str:
        letters = sorted(node)
        branches = [differs(letters)]
        for ch in letters:
            rest = below(node[ch])
            if rest is not None:
                branches.append(esc(ch) + rest)
        return "(" + "|".join(branches) + ")"

    def below(node: dict[str, dict]) -> str | None:
        if "" in node:
            return None  # a whole prefix of the set: whatever follows, the word starts with it
        return alternatives(node) + "?"

    return alternatives(trie)


# ---------------------------------------------------------------------------------------------
# guard-destructive: disks and devices, system files and permissions, init and the session.

# A device node that holds data: anything under /dev/ but the pseudo-devices commands write to
# and read from every day (the bit bucket, the random sources, terminals, descriptors).
SAFE_DEVICES = [
    "null", "zero", "full", "random", "urandom", "tty", "stdin", "stdout", "stderr", "fd/",
    "pts/", "shm/", "console", "ptmx", "tcp/", "udp/", "kmsg", "log", "cu.", "mqueue/",
    "serial/",
]  # fmt: skip
DEVICE = "/dev/" + not_prefixed(SAFE_DEVICES)
WRITE_OP = r"(^| )[0-9]*(>|>>|>\||<>|&>|&>>) "  # a redirection that writes the word after it
pattern("dd-device", rf"^(dd|dcfldd|dc3dd) (.* )?of={DEVICE}( |$)")
pattern("redirect-device", rf"{WRITE_OP}{DEVICE}( |$)")
pattern("tee-device", rf"^tee (.* )?{DEVICE}( |$)")
pattern("copy-to-device", rf"^(cp|install|mv|pv|rsync) (.* )?\S+ {DEVICE}$")
# ddrescue IN OUT [MAPFILE]: the device after the input path is the one written.
pattern("ddrescue-device", rf"^ddrescue (.* )?\S*[/.]\S* {DEVICE}( \S+)?$")

# Formatting, wiping, discarding and repartitioning: the tool is named, the operand a device
# (an image file in the project is how images are built, so it passes).
MKFS = r"(mkfs(\.\S+)?|mke2fs|mkswap|mkntfs|mkdosfs|mkexfatfs|mkudffs|newfs(_\S+)?)"
pattern("format-device", rf"^{MKFS} (.* )?{DEVICE}( |$)")
WIPE_ALL = alt(cluster("[ao]"), long_opt("all", 1), long_opt("offset", 1, value=True))
pattern(
    "wipefs-device",
    rf"^wipefs (.* )?({WIPE_ALL} (.* )?{DEVICE}|{DEVICE} (.* )?{WIPE_ALL})( |$)",
)
# shred overwrites and (-u) deletes any file for good, a device or not; blkdiscard only takes
# devices. A bare call or --help / --version names no operand and passes.
pattern("shred-any", r"^shred (.* )?[^-\s]")
pattern("blkdiscard-any", r"^blkdiscard (.* )?[^-\s]")
SGDISK_WRITE = alt(
    r"-[ZzodnNgmlRr]\S*",
    "--"
    + alt(
        "zap(-all)?",
        "clear",
        "delete",
        "new",
        "largest-new",
        "mbrtogpt",
        "gpttombr",
        "load-backup",
        "replicate",
        "transpose",
    )
    + r"(=\S*)?",
)
pattern("sgdisk-write", rf"^sgdisk (.* )?{SGDISK_WRITE}( |$)")
# fdisk and friends edit the table given a device and no listing option (interactively, or
# from a script on stdin for sfdisk).
PART_READS = [
    "-l", "-lu", "--list", "-x", "--list-details", "-s", "--getsz", "--show-size", "-F",
    "--list-free", "-d", "--dump", "-J", "--json", "-g", "--show-geometry", "-V", "--verify",
    "-v", "--version", "-h", "--help",
]  # fmt: skip
NOT_PART_READ = not_words(PART_READS)
pattern(
    "partition-device",
    rf"^(fdisk|sfdisk|gdisk|cfdisk|cgdisk)( {NOT_PART_READ})* {DEVICE}( {NOT_PART_READ})*$",
)
PARTED_WRITES = "mklabel|mktable|mkpart|mkpartfs|rm|resizepart|resize|mkfs|move|rescue"
pattern("parted-write", rf"^parted( (.* )?(?i:{PARTED_WRITES})( |$)|( -\S+)* {DEVICE}$)")
pattern(
    "cryptsetup-erase",
    r"^cryptsetup (.* )?(?i:luksFormat|erase|luksErase|luksKillSlot|luksRemoveKey|reencrypt)"
    r"( |$)",
)
pattern(
    "diskutil-erase",
    r"^diskutil (.* )?(?i:erase\S*|zeroDisk|randomDisk|secureErase|partitionDisk|reformat"
    r"|deleteVolume|deleteContainer|deleteSnapshot|splitPartition|mergePartitions"
    r"|resizeVolume|addPartition)( |$)",
)
pattern(
    "hdparm-erase",
    r"^hdparm (.* )?--(security-erase(-enhanced)?|trim-sector-ranges(-stdin)?|write-sector"
    r"|make-bad-sector|fwdownload\S*)( |$)",
)
pattern("nvme-erase", r"^nvme (.* )?(format|sanitize|delete-ns|detach-ns)( |$)")

# Pools, volumes, arrays and mappings whose removal takes the data on them.
pattern("zpool-destroy", r"^zpool (.* )?(destroy|labelclear)( |$)")
pattern("zfs-destroy", r"^zfs (.* )?(destroy|rollback)( |$)")
pattern("lvm-remove", r"^(lv|vg|pv)remove( |$)")
pattern("lvm-reduce", r"^(lv|vg)reduce( |$)")
pattern("lvm-move", r"^pvmove( |$)")
MDADM_WRITE = alt(
    cluster("[CSBrf]"),
    "--" + alt("stop", "zero-superblock", "create", "build", "remove", "fail", "grow"),
)
pattern("mdadm-destroy", rf"^mdadm (.* )?{MDADM_WRITE}( |$)")
BTRFS_DELETE = prefixes("delete", 1)
pattern(
    "btrfs-destroy",
    rf"^btrfs (.* )?({prefixes('subvolume', 2)} {BTRFS_DELETE}"
    rf"|{prefixes('device', 3)} ({prefixes('remove', 3)}|{BTRFS_DELETE})"
    r"|check (.* )?--repair|rescue (zero-log|chunk-recover|super-recover))( |$)",
)
pattern("dmsetup-remove", r"^dmsetup (.* )?(remove|remove_all|wipe_table)( |$)")
pattern("nbd-disconnect", r"^nbd-client (.* )?(-d|--disconnect)( |$)")

# Permissions and owners. The root, the home folder (~, ~user, $HOME, /home/NAME, /Users/NAME)
# and the system folders, each alone or with /, /*: recursive changes there break the machine
# or the user's login. /usr/local and anything below a system folder are not in the list
# (`chown -R $USER /usr/local/lib/node_modules` is the usual npm fix).
SYSTEM_DIRS = [
    "etc", "usr", "var", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "boot", "opt",
    "root", "home", "srv", "dev", "proc", "sys", "run", "snap", "System", "Library", "Users",
    "Applications", "private", "usr/bin", "usr/sbin", "usr/lib", "usr/share", "var/lib",
    "private/etc", "private/var",
]  # fmt: skip
ROOTISH = alt(
    r"/\*?",
    "/" + alt(*(esc(d) for d in SYSTEM_DIRS), r"(home|Users)/[^/\s*]+") + r"/?\*?",
    r"~[^/\s]*/?\*?",
    r"\$\{?HOME\}?/?\*?",
)
PERM_TOOL = "(chmod|chown|chgrp|setfacl|chattr)"
PERM_R = alt(cluster("R"), long_opt("recursive", 3))
pattern(
    "permissions-recursive-system",
    rf"^{PERM_TOOL} (.* )?({PERM_R} (.* )?{ROOTISH}|{ROOTISH} (.* )?{PERM_R})( |$)",
)
# A mode that lets everyone write: an octal mode whose last digit has the write bit, or a
# symbolic clause for all/others (or no one named: all, less the umask) that adds or sets w.
OPEN_MODE = alt(r"0*[0-7]{0,3}[2367]", r"(\S*,)?([ugoa]*[ao][ugoa]*)?[+=][rwxXst]*w\S*")
OPEN_TARGET = alt(
    ROOTISH,
    r"(~|\$\{?HOME\}?)/\.ssh(/\S*)?",
    r"(/private)?/etc/\S*",
    r"/(usr/bin|usr/sbin|usr/lib|bin|sbin|lib|lib64|boot)/\S*",
)
pattern("chmod-open-system", rf"^chmod (.* )?{OPEN_MODE} (.* )?{OPEN_TARGET}( |$)")

# The files a login depends on: deleted, emptied or replaced wholesale. Appending (>>, tee -a)
# and editing tools (sed -i, visudo, vipw, usermod) pass.
SYSTEM_FILES = (
    r"(/private)?/etc/(passwd|shadow|group|gshadow|master\.passwd|sudoers|sudoers\.d(/\S*)?"
    r"|fstab|crypttab|hosts|nsswitch\.conf|login\.defs|pam\.d(/\S*)?|ssh/sshd_config)"
)
pattern("system-file-delete", rf"^(rm|unlink|shred|truncate|srm|mv) (.* )?{SYSTEM_FILES}( |$)")
pattern("system-file-overwrite", rf"^(cp|install|ln|rsync|dd) (.* )?(of=)?{SYSTEM_FILES}$")
pattern("system-file-redirect", rf"(^| )[0-9]*(>|>\||&>|<>) {SYSTEM_FILES}( |$)")
NOT_APPEND = not_words(["-a", "-ai", "-ia"] + ["--" + "append"[:n] for n in range(1, 7)])
pattern("system-file-tee", rf"^tee( {NOT_APPEND})* {SYSTEM_FILES}( {NOT_APPEND})*$")

# Signals to init (PID 1) or to every process (-1): any signal but 0 (which only checks).
# A signal name has two letters or more (HUP, KILL, SIGTERM); -s, -n, -l, -L are options.
NONZERO_SIGNAL = r"([1-9][0-9]*|[A-Za-z][A-Za-z0-9+-]+)"
SIGSPEC = alt(rf"(-s|-n|--signal|--sig|--si)[ =]?{NONZERO_SIGNAL}", f"-{NONZERO_SIGNAL}")
# `kill -1 PID` sends signal 1: a -1 is the process -1 only after a signal, `--` or a PID.
KILL_FIRST = rf"({SIGSPEC}|--|[^-\s]\S*)"
pattern("kill-init-or-all", rf"^kill(( {KILL_FIRST}( \S+)*)? 1| {KILL_FIRST}( \S+)* -1)( |$)")
# pkill / killall given a user and no process pattern: every process of that user, the session.
PKILL_OPT = r"( (-[gGPstFUuoy]|--(euid|uid|user|pgroup|group|parent|session|terminal|pidfile"
PKILL_OPT += r"|signal|ns|nslist|older-than|younger-than)) \S+| -\S+)"
pattern(
    "pkill-user",
    rf"^(pkill|killall)({PKILL_OPT})* (-u|-U|--euid|--uid|--user)[ =]\S+({PKILL_OPT})*$",
)
SESSION_PROCESSES = (
    "init|systemd|systemd-logind|launchd|loginwindow|WindowServer|sshd|Xorg|Xwayland"
    r"|gnome-session\S*|gnome-shell|plasmashell|kwin\S*|dbus-daemon"
)
pattern("pkill-system", rf"^(pkill|killall)({PKILL_OPT})* ({SESSION_PROCESSES})( |$)")
pattern("killall5", r"^killall5( |$)")
# The same from interpreter code: os.kill(-1, sig), process.kill(1), Process.kill(sig, -1).
pattern(
    "kill-in-code",
    r"(os\.kill|process\.kill|posix_kill)[ \t]*\([ \t]*-?1[ \t]*(\)|,[ \t]*[1-9A-Za-z])"
    r"|Process\.kill[ \t]*\([^,()]*,[ \t]*-?1[ \t]*\)",
)
pattern(
    "session-terminate",
    r"^loginctl (.* )?(terminate-(user|session|seat)|kill-(user|session))( |$)",
)
pattern("launchctl-bootout", r"^launchctl (.* )?(bootout (gui|user)/\S*|reboot)( |$)")

# Shutting the machine down ends every session and may not come back (a remote host).
NOT_POWER_EXCEPT = not_words(["--help", "--version", "-c", "-k", "-w", "--wtmp-only"])
pattern("power-off", rf"^(shutdown|reboot|poweroff|halt)( {NOT_POWER_EXCEPT})*$")
pattern(
    "systemctl-power",
    r"^systemctl (.* )?(poweroff|reboot|halt|kexec|soft-reboot|emergency|rescue"
    r"|(start|isolate) (poweroff|reboot|halt|kexec|emergency|rescue|runlevel[016])"
    r"(\.target)?)( |$)",
)
pattern("telinit", r"^(tel)?init [016sS]$")

# Interpreter code (shell.code) doing the same by API: opening a system path or the home
# folder to everyone, deleting or overwriting a login file, writing a device.
CODE_Q = "[rbfu]?[\"'`]"
CODE_SYSTEM = (
    CODE_Q
    + alt(
        r"/\*?",
        "/" + alt(*(esc(d) for d in SYSTEM_DIRS)) + r"/?",
        r"~/?",
        r"(~|/home/[^/\"'`\s]+)/\.ssh(/[^\"'`\s]*)?",
        r"/etc/[^\"'`\s]*",
    )
    + "[\"'`]"
)
HOME_API = (
    r"(os\.path\.expanduser\([^)]*\)|(pathlib\.)?Path\.home\(\)|(require\([\"']os[\"']\)|os)"
    r"\.homedir\(\)|Dir\.home|(ENV|os\.environ)(\.get\(|\[)[\"']HOME[\"']\)?\]?|process\.env\.HOME)"
)
CODE_MODE = r"(0o?)?[0-7]{0,3}[2367]\b"
pattern(
    "chmod-open-in-code",
    rf"chmod(Sync|_R)?[ \t]*\([ \t]*({alt(CODE_SYSTEM, HOME_API)}[ \t]*,[ \t]*{CODE_MODE}"
    rf"|{CODE_MODE}[ \t]*,[ \t]*{alt(CODE_SYSTEM, HOME_API)})",
)
CODE_SYSTEM_FILE = CODE_Q + SYSTEM_FILES + "[\"'`]"
pattern(
    "system-file-in-code",
    r"(remove|unlink|unlinkSync|rmSync|truncate|truncateSync|writeFile|writeFileSync|delete"
    r"|rm|rm_f|copyfile|copy|copyFileSync)[ \t]*\(?[ \t]*([^,()]*,[ \t]*)?"
    + CODE_SYSTEM_FILE
    + r"|open[ \t]*\([ \t]*"
    + CODE_SYSTEM_FILE
    + r"[ \t]*,[ \t]*[\"'][rbt]*[w+]",
)
CODE_DEVICE = CODE_Q + "/dev/" + not_prefixed(SAFE_DEVICES, "[^\"'`\\s]", "\"'`\\s") + "[\"'`]"
pattern(
    "device-open-in-code",
    rf"open[ \t]*\([ \t]*{CODE_DEVICE}[ \t]*,[ \t]*[\"'][rbt]*[wa+]",
)
pattern(
    "device-write-in-code",
    r"(writeFileSync|writeFile|createWriteStream|File\.write|IO\.write)[ \t]*\([ \t]*"
    + CODE_DEVICE,
)

# A command the analysis could not take whole, that mentions what these rules guard.
pattern(
    "mentions-local-destruction",
    r"\bof=/dev/|>\s*/dev/(sd|nvme|disk|rdisk|mmcblk|vd|xvd|hd)|\bmkfs|\bmke2fs\b|\bmkswap\b"
    r"|\bwipefs\b|\bshred\b|\bblkdiscard\b|\bsgdisk\b|\b[scg]?fdisk\b|\bparted\b|luksFormat"
    r"|\bdiskutil\b[^\n]*\b(?i:erase|partition)|\b(zpool|zfs)\b[^\n]*\bdestroy\b"
    r"|\b(lv|vg|pv)(remove|reduce)\b|\bmdadm\b[^\n]*--(stop|zero|create)|\bdmsetup\b[^\n]*\bremove"
    r"|\bch(mod|own|grp)\b[^\n]*(-R|--rec|777|666)|/etc/(passwd|shadow|sudoers)"
    r"|\bkill\b[^\n]*\s-?1\b|\b(pkill|killall5?)\b[^\n]*-u|\bloginctl\b[^\n]*\b(terminate|kill)-"
    r"|\b(shutdown|reboot|poweroff)\b",
)


# ---------------------------------------------------------------------------------------------
# Secret files, and the globs that may match one: `cat .e*`, `.en?`, `.[e]nv`, `*.pem`.
#
# The evaluator compiles a pattern for every value it runs on, and skips the values that lack
# the pattern's required literal; so each kind of secret gets a pattern of its own whose name
# (`.env`, `id_`, `.pem`, …) is that literal, and commands that name no secret cost nothing.


def env_name(c: str, stop: str) -> str:
    """.env and .env.X except the templates, over word characters `c` (the suffix holds no
    glob character: `.env.ex*` is a glob, judged by secret_glob)."""
    plain = c[:-1] + r"*?\[" + "]"
    not_template = not_words(["example", "sample", "template"], plain, stop + r"*?\[")
    return rf"\.env(\.{not_template})?"


# A copy kept next to the original is as secret as the original: `id_rsa.bak`, `config.old`.
BACKUP = r"([._-](bak|backup|old|orig|save|tmp|copy|swp)[0-9]*|~)?"
# Files that are secrets only in a home folder (a project's `infra/.kube/config` is a fixture).
HOME_KINDS = {
    "kube",
    "docker",
    "gh",
    "gcloud",
    "codex",
    "claude",
    "gemini",
    "copilot",
    "copilot-hosts",
    "kimi",
    "opencode",
    "pi",
    "amp",
    "amp-oauth",
    "terraform",
    "azure",
    "gnupg",
}
# Key stores that dependencies ship as test fixtures: not secrets under node_modules/ or vendor/.
NODEPS_KINDS = {"kdb", "ovpn", "keychain"}
# Names matched in any case (`CERT.P12`, `DEPLOY_KEY_RSA`); their shell patterns start `(?i)`.
CI_KINDS = {
    "named-rsa",
    "named-dsa",
    "named-ed25519",
    "pem",
    "key",
    "p12",
    "pfx",
    "pkcs12",
    "kdb",
    "ovpn",
    "jks",
    "keychain",
}


def not_pub(c: str, stop: str) -> str:
    """After a key's name: nothing, or a suffix (`.bak`, `-old`, `.copy`) that is not `.pub`."""
    return rf"([._-]({c}*([^b{stop}]|[^u{stop}]b|[^p{stop}]ub|[^.{stop}]pub))?)?"


def secret_names(c: str, stop: str) -> dict[str, str]:
    """Each kind of secret file's name over word characters `c` (its folder part included
    for the home kinds: `.kube/config`)."""
    lead = rf"([^\-{stop}]{c}*)?"  # a key's own name before `_rsa`: never an option (`--api-key`)
    return {
        "env": env_name(c, stop),
        "ssh-key": r"id_(rsa|dsa|ecdsa|ed25519)(_sk)?" + not_pub(c, stop),
        "named-rsa": rf"{lead}_rsa{BACKUP}",
        "named-dsa": rf"{lead}_(ec)?dsa{BACKUP}",
        "named-ed25519": rf"{lead}_ed25519{BACKUP}",
        # any file in an ssh folder named like a key (`~/.ssh/work_deploy_key`), and a host key
        "named-key": rf"(\.ssh/{c}*key|ssh_host_{c}*_key){BACKUP}",
        "pem": rf"{c}*\.pem{BACKUP}",
        "key": rf"{c}*\.key(store|ring|pair)?{BACKUP}",
        "p12": rf"{c}*\.p12{BACKUP}",
        "pfx": rf"{c}*\.pfx{BACKUP}",
        "pkcs12": rf"{c}*\.pkcs12{BACKUP}",
        "kdb": rf"{c}*\.kdbx?{BACKUP}",
        "ovpn": rf"{c}*\.ovpn{BACKUP}",
        "jks": rf"{c}*\.jks{BACKUP}",
        "keychain": rf"{c}*\.keychain(-db)?{BACKUP}",
        "netrc": rf"\.netrc{BACKUP}",
        "pgpass": rf"\.pgpass{BACKUP}",
        "git-credentials": rf"\.git-credentials{BACKUP}",
        "pypirc": rf"\.pypirc{BACKUP}",
        "npmrc": rf"\.npmrc{BACKUP}",
        "credentials": rf"\.(aws|gem|cargo)/credentials(\.toml)?{BACKUP}",
        "credentials-copy": r"credentials[._-](bak|backup|old|orig|save|tmp|copy)[0-9]*",
        "codex-home": r"\$\{?CODEX_HOME\}?/(auth|\.credentials)\.json",
        "kube": rf"\.kube/config{BACKUP}",
        "docker": rf"\.docker/config\.json{BACKUP}",
        "gh": rf"\.config/gh/hosts\.yml{BACKUP}",
        "gcloud": (
            r"\.config/gcloud/(application_default_credentials\.json|credentials\.db"
            rf"|access_tokens\.db|legacy_credentials(/{c}+)+)"
        ),
        "codex": r"\.codex/(auth|\.credentials)\.json",
        "claude": r"\.claude/\.credentials\.json",
        "gemini": (
            r"\.gemini/(oauth_creds|mcp-oauth-tokens|a2a-oauth-tokens|google_accounts"
            r"|gemini-credentials)\.json"
        ),
        "copilot": rf"\.copilot/mcp-oauth-config/{c}+",
        "copilot-hosts": r"\.config/github-copilot/(hosts|apps)\.json",
        "kimi": rf"\.kimi(-code)?/(credentials(/{c}+)+|mcp-oauth/{c}+|server\.token)",
        "opencode": r"\.local/share/opencode/(mcp-)?auth\.json",
        "pi": r"\.pi/agent/auth\.json",
        "amp": r"\.local/share/amp/secrets\.json",
        "amp-oauth": rf"\.amp/oauth/{c}+",
        "terraform": r"\.terraform\.d/credentials\.tfrc\.json",
        "azure": r"\.azure/(accessTokens\.json|msal_token_cache\.(json|bin))",
        "gnupg": rf"\.gnupg/(private-keys-v1\.d/{c}+|secring\.gpg)",
    }


def ci(kind: str, name: str) -> str:
    """`name` matched without case where its kind says so, inside a larger pattern."""
    return f"(?i:{name})" if kind in CI_KINDS else name


def located(c: str, stop: str, anywhere: str, home: str, lead: str = "") -> dict[str, str]:
    """Each kind's name with the folder part it may have: `anywhere` (a path prefix, or
    nothing) for most kinds, `home` (the home folder) for the home kinds, and `lead` then any
    folders but node_modules/ and vendor/ for the key stores dependencies ship."""
    deps = not_words(["node_modules", "vendor"], c, stop)
    out = {}
    for kind, name in secret_names(c, stop).items():
        if kind in HOME_KINDS:
            out[kind] = home + name
        elif kind in NODEPS_KINDS:
            out[kind] = lead + f"({deps}/)*" + name
        else:
            out[kind] = anywhere + name
    return out


def any_secret(
    c: str, stop: str, anywhere: str, home: str, lead: str = "", but: frozenset[str] = frozenset()
) -> str:
    """Every kind in one alternation, as `located` places them, the shared folder parts
    spelled once (the patterns stay small)."""
    bare = {k: v for k, v in secret_names(c, stop).items() if k not in but}
    deps = not_words(["node_modules", "vendor"], c, stop)
    groups = [
        (anywhere, [ci(k, v) for k, v in bare.items() if k not in HOME_KINDS | NODEPS_KINDS]),
        (home, [v for k, v in bare.items() if k in HOME_KINDS]),
        (lead + f"({deps}/)*", [ci(k, v) for k, v in bare.items() if k in NODEPS_KINDS]),
    ]
    return alt(*(prefix + alt(*names) for prefix, names in groups if names))


def secret_name(c: str, stop: str) -> str:
    """Every kind but the home ones (a folder name alone does not say where it is)."""
    return alt(*(ci(k, v) for k, v in secret_names(c, stop).items() if k not in HOME_KINDS))


def secret_glob(c: str) -> str:
    """A glob (holding *, ? or [..]) whose matches may include .env or an env variant.

    Without `*`: the three letters of env, at least one of them wild (`.en?`, `.[e]nv`), maybe
    a suffix (`.e?v.local`). With `*`: letters of the env-file names only (`.e*`, `.*`,
    `.env.*`, `.e*.local`), so `.env.ex*` (the example alone) stays out. A leading dot is
    literal: the shell's `*` never matches it.
    """
    wild = rf"(\?|\[[^]{c[3:-1]}]*\])"
    letters = "[envlocaprdutisg.]"
    three = (
        f"({wild}(n|{wild})(v|{wild})|e({wild}(v|{wild})|n{wild}))"
        rf"((\.|{wild})({letters}|{wild})+)?"
    )
    star = rf"({letters}|{wild})*\*({letters}|{wild}|\*)*"
    return rf"\.({three}|{star})"


def key_glob(c: str, stop: str) -> str:
    """A glob naming SSH keys: `id_*`, or any glob in a .ssh folder but `*.pub`."""
    not_pub = rf"({c}*([^b{stop}]|[^u{stop}]b|[^p{stop}]ub|[^.{stop}]pub))?"
    return alt(rf"id_{c}*[*?\[]{c}*", rf"\.ssh/{c}*[*?\[]{not_pub}")


WORD_C, WORD_STOP = r"[^/\s]", r"/\s"
# How a secret can sit inside a word: curl's @file and field=@file, dd's if= and of=, wget's
# --post-file=, git's REV:path and scp's host:path. A URL (`https://host/.env`) names a remote
# file, not a local one: the folder part holds no colon, and after `host:` it never starts `//`.
LEAD = r"(@|\S*=@|[io]f=|--(post|body|upload)-file=)?"
HOST = r"[^\s:/]*:"
HOME_DIR = r"(~[^/\s]*|\$HOME|\$\{HOME\}|/home/[^/\s]+|/Users/[^/\s]+|/root)/"
ANYWHERE = alt(LEAD + r"([^\s:]*/)?", HOST + r"(/?[^\s:/][^\s:]*/|/)?")
NAMES = located(WORD_C, WORD_STOP, ANYWHERE, alt(LEAD, HOST) + HOME_DIR, LEAD)
GLOBS = alt(secret_glob(WORD_C), key_glob(WORD_C, WORD_STOP))
SECRET_WORD = alt(
    any_secret(WORD_C, WORD_STOP, ANYWHERE, alt(LEAD, HOST) + HOME_DIR, LEAD), ANYWHERE + GLOBS
)
# The ssh folder itself, for the tools that search a folder they are given (rg, grep -r).
SSH_DIR = ANYWHERE + r"\.ssh/?"
# For the patterns that run on every call of a common tool (grep, rg, git): the names alone, in
# their case, so that the evaluator tests the names' literals before the regex and a search
# that names no secret costs nothing (a glob operand is expanded by the analysis when it
# matches a file of the project).
_PLAIN = {k: v for k, v in secret_names(WORD_C, WORD_STOP).items()}
NAMED_WORD = alt(
    ANYWHERE + alt(*(v for k, v in _PLAIN.items() if k not in HOME_KINDS | NODEPS_KINDS)),
    alt(LEAD, HOST) + HOME_DIR + alt(*(v for k, v in _PLAIN.items() if k in HOME_KINDS)),
    LEAD + alt(*(NAMES[k][len(LEAD) :] for k in sorted(NODEPS_KINDS))),
)
NAMES_ENV = env_name(WORD_C, WORD_STOP)


# ---------------------------------------------------------------------------------------------
# guard-secrets

# Commands that take a secret's name without printing or copying its content: listing,
# metadata, digests, deleting, loading it into a program (--env-file, dotenv), using a key
# (ssh, ssh-add), and the wrappers and shells whose inner command is an element of its own.
# grep and git have rules of their own. Every other command with a secret word is a reader.
NON_READERS = sorted(
    [
        "ls",
        "stat",
        "test",
        "[",
        "[[",
        "touch",
        "rm",
        "unlink",
        "chmod",
        "chown",
        "wc",
        "du",
        "file",
        "echo",
        "printf",
        "mkdir",
        "find",
        "cd",
        "export",
        "realpath",
        "readlink",
        "basename",
        "dirname",
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "md5sum",
        "shasum",
        "git",
        "grep",
        "egrep",
        "fgrep",
        "zgrep",
        "rg",
        "ag",
        "ack",
        "docker",
        "podman",
        "ssh",
        "ssh-add",
        "ssh-keygen",
        "dotenv",
        "env-cmd",
        "npx",
        "sudo",
        "env",
        "nice",
        "nohup",
        "timeout",
        "time",
        "command",
        "exec",
        "bash",
        "sh",
        "zsh",
    ]
)
READER = r"^(\S*/)?" + not_words(NON_READERS, WORD_C, WORD_STOP)
# A secret named right after one of these flags is used, not read: --env-file .env,
# ssh -i KEY, curl --key KEY --cert CERT, kubectl --kubeconfig FILE. And a guard's `explain`
# describes the command after it without running it: `cc-safety-net explain 'cat .env'` (the
# words of that one argument come after `explain`); `explain .env` itself still names the file.
USE_FLAGS = ["--env-file", "-i", "--identity-file", "--key", "--cert", "--cacert", "--kubeconfig"]
NOT_EXPLAIN = not_words(["explain"])
BEFORE = rf"{READER}(( {NOT_EXPLAIN})* ({not_words([*USE_FLAGS, 'explain'])}|explain))? "
# Three patterns, so that the evaluator tests a literal or a set of literals first (the names:
# `.env`, `id_`, `.kube/config`, …): .env (the most common), the other names in their case, and
# those matched in any case under `(?i)`.
pattern("secret-read-env", BEFORE + NAMES["env"] + "( |$)")
pattern(
    "secret-read",
    BEFORE + alt(*(v for k, v in NAMES.items() if k not in CI_KINDS | {"env"})) + "( |$)",
)
pattern(
    "secret-read-keys",
    "(?i)" + BEFORE + alt(*(v for k, v in NAMES.items() if k in CI_KINDS)) + "( |$)",
)
# Globs have no literal to test first, so this one pattern runs on every command: it names the
# usual readers instead of complementing the harmless ones, to stay small.
GLOB_READERS = (
    "cat|tac|nl|less|more|most|head|tail|bat|batcat|strings|od|xxd|hexdump|base64|base32"
    "|awk|gawk|sed|cut|sort|uniq|paste|column|rev|diff|cmp|tar|zip|cp|mv|scp|rsync|ln"
    "|source|\\.|vi|vim|nvim|nano|emacs|code|grep|egrep|fgrep|rg|jq|python3?|node|ruby|perl"
)
pattern("secret-read-glob", rf"^(\S*/)?({GLOB_READERS})( \S+)* (\S*/)?{GLOBS}( |$)")


# Search tools: the first operand is the pattern and the rest are files searched, unless a
# pattern comes from -e/--regexp or a pattern file from -f/--file (then every operand is a
# file). An option that takes a value takes the next word (`rg -C 3 id_rsa src/`: 3 is the
# value, id_rsa the pattern); a cluster takes it when its last letter does (`grep -rf .env`).
def search_option(valued: str, longs: list[str]) -> str:
    """One option word, or a valued option with its value: a cluster whose last letter is
    one of `valued` takes the next word, as does an exact `--LONG` of `longs`."""
    return alt(
        rf"-[a-zA-Z0-9]*[{valued}] \S+",
        rf"--({'|'.join(longs)}) \S+",
        rf"-[a-zA-Z0-9]*[^{valued}\s\-]",
        "--" + not_words(longs),
        "--",
    )


def not_valued(valued: str, longs: list[str]) -> str:
    """A word that does not take the next one as its value: an operand, or another option."""
    return alt(r"[^-\s]\S*", rf"-[a-zA-Z0-9]*[^{valued}\s\-]", "--" + not_words(longs), "--")


CONTEXT_LONGS = ["after-context", "before-context", "context", "max-count", "regexp", "file"]
SEARCHERS = {
    # GNU grep: -A -B -C -D -d -e -f -m take a value
    "[ezf]?grep": (
        "ABCDdefm",
        [
            *CONTEXT_LONGS,
            *("include", "exclude", "exclude-dir", "exclude-from", "label", "binary-files"),
            *("devices", "directories", "group-separator"),
        ],
    ),
    # ripgrep: -A -B -C -E -e -f -g -j -M -m -r -T -t -d take a value
    "rg": (
        "ABCEefgjMmrTtd",
        [
            *CONTEXT_LONGS,
            *("glob", "iglob", "type", "type-not", "type-add", "max-depth", "max-filesize"),
            *("max-columns", "replace", "threads", "encoding", "engine", "sort", "sortr", "pre"),
            *("pre-glob", "ignore-file", "color", "colors", "path-separator"),
        ],
    ),
    "ag": ("ABCGgm", ["after", "before", "context", "max-count", "ignore", "file-search-regex"]),
    "ack": ("ABCm", ["after-context", "before-context", "context", "max-count", "type"]),
}
SEARCHED = alt(NAMED_WORD, SSH_DIR)
for _tool, (_valued, _longs) in SEARCHERS.items():
    _name = "secret-search" + ("" if _tool.endswith("grep") else f"-{_tool}")
    _opt = search_option(_valued, _longs)
    _head = rf"^(\S*/)?{_tool}"
    # the first operand is the pattern, a secret after it is a file searched
    pattern(_name, rf"{_head} ({_opt} )*[^-\s]\S*( \S+)* {SEARCHED}( |$)")
    if _tool in ("[ezf]?grep", "rg"):
        _prev = not_valued(_valued, _longs)
        _e = r"(-[a-zA-Z0-9]*[ef] ?\S+|--(regexp|file)[= ]\S+)"
        # a pattern file is read: -f .env, -rf .env, -f.env, --file=.env
        pattern(
            f"{_name}-pattern-file",
            rf"{_head} (\S+ )*(-[a-zA-Z0-9]*f ?|--file[= ]){NAMED_WORD}( |$)",
        )
        # with -e/-f every operand is a file: after the option, or before it
        pattern(
            f"{_name}-after-e",
            rf"{_head} (\S+ )*{_e}(( \S+)* {_prev})? {SEARCHED}( |$)",
        )
        pattern(
            f"{_name}-before-e",
            rf"{_head} ({_opt} )*{SEARCHED}( \S+)* (-[a-zA-Z0-9]*[ef]|--(regexp|file)[= ])",
        )
GIT_READERS = "show|cat-file|diff|difftool|log|whatchanged|blame|annotate|grep|archive|format-patch"
# plain `git` here, so that "git" is the literal tested first (the readers are alternatives)
pattern(
    "secret-git",
    "^git" + GIT[len("^[Gg][Ii][Tt]") :] + f" ({GIT_READERS}) (.* )?{NAMED_WORD}( |$)",
)
# find -exec runs a reader on what find found: a secret by name, or anything in ~/.ssh. The
# search tools read the file they are given here ({} is a file, not a pattern).
FIND_READER = not_words(
    [w for w in NON_READERS if w not in ("grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack")],
    WORD_C,
    WORD_STOP,
)
FOUND = (
    r"-(i?name|i?path|i?wholename|i?regex) \S*(\.env|id_|_rsa|_dsa|_ed25519|\.npmrc|credentials"
    r"|\.(pem|key|p12|pfx|kdbx?|ovpn|keystore|netrc|pgpass|git-credentials|pypirc))\S*"
)
pattern(
    "secret-find-exec",
    rf"^find (.* )?({FOUND}|{SSH_DIR})( .*)? -(exec|execdir|ok|okdir) (\S*/)?{FIND_READER}( |$)",
)
# find's -fprint/-fls write their listing into the file they are given
pattern("secret-find-write", rf"^find (.* )?-(fprint0?|fprintf|fls) {SECRET_WORD}( |$)")
# A recursive search of the whole project (or the home, or /) for a secret-looking term reads
# .env with the rest: grep -r walks hidden files, rg only with --hidden / -uu / -.
SECRET_TERM = (
    r"(\S*(?i:secret|passw|passphrase|credential|private[_-]?key|access[_-]?key|api[_-]?key"
    r"|auth[_-]?token|bearer|database_url|dsn|stripe|aws_)\S*"
    r"|(\S*[^a-zA-Z\s])?(?i:key|token|pwd)([^a-zA-Z\s]\S*)?)"
)
ROOTS = r"( (\.|\./|\.\.|\.\./|~|~/|/|\$HOME|\$\{HOME\}|\$PWD|\*))*"
SEARCH_OPT = "-" + not_prefixed(["-include", "-exclude", "-glob", "-type", "g", "t"])


def whole_tree_search(command: str, flag: str) -> str:
    """`command` searching the whole project (or more) for a secret-looking term, with `flag`
    (the option that makes it reach .env) before the term, between it and the folders, or last."""
    o1, o2, term = f"({SEARCH_OPT} )*", f"( {SEARCH_OPT})*", f"(-e )?{SECRET_TERM}"
    return (
        rf"^(\S*/)?{command} {o1}({flag}{o2} {term}{o2}{ROOTS}{o2}"
        f"|{term}{o2} {flag}{o2}{ROOTS}{o2}|{term}{o2}{ROOTS}{o2} {flag}{o2})$"
    )


pattern(
    "secret-grep-tree",
    whole_tree_search("[ef]?grep", "(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive|--dereference-recursive)"),
)
pattern(
    "secret-rg-hidden",
    whole_tree_search("rg", r"(--hidden|-[a-zA-Z]*u[a-zA-Z]*u[a-zA-Z]*|-[a-zA-Z]*\.[a-zA-Z]*)"),
)
# A redirection from or into a secret: `cat < .env`, `exec 3< .env`, `echo X >> .env`
# (the analysis records a command's file redirections after its words).
REDIRECT_OP = r"(^| )[0-9]*(<|>|>>|>\||<>|&>|&>>) "
pattern("secret-redirect-env", rf"{REDIRECT_OP}(\S*/)?{NAMES_ENV}( |$)")
pattern(
    "secret-redirect-other",
    REDIRECT_OP
    + any_secret(WORD_C, WORD_STOP, r"(\S*/)?", HOME_DIR, but=frozenset({"env"}) | CI_KINDS)
    + "( |$)",
)
pattern(
    "secret-redirect-keys",
    "(?i)"
    + REDIRECT_OP
    + alt(*(v for k, v in located(WORD_C, WORD_STOP, r"(\S*/)?", "").items() if k in CI_KINDS))
    + "( |$)",
)
pattern(
    "mentions-secret",
    r"\.env|\.e[*?\[]|id_(rsa|dsa|ecdsa|ed25519)|\.(pem|key|p12|pfx)\b|\.netrc|\.pgpass"
    r"|\.git-credentials|\.pypirc|\.aws/credentials|\.npmrc|\.kube/config|\.docker/config"
    r"|\.ssh/|(?i:\.(kdbx?|ovpn|keystore|jks|pkcs12)\b|_(rsa|ec)?dsa\b|_ed25519\b|_rsa\b)"
    r"|\.(codex|gemini|kimi[-a-z]*|copilot|amp|azure|gnupg)/|\.claude/\.credentials|CODEX_HOME",
)
CODE_STR = "[\"'`]"
CODE_NAME_C, CODE_NAME_STOP = "[^/\"'`\\s]", "/\"'`\\s"
CODE_HOME = "(~[^/\"'`\\s]*|/home/[^/\"'`\\s]+|/Users/[^/\"'`\\s]+|/root)/"
CODE_PATH = any_secret(CODE_NAME_C, CODE_NAME_STOP, "([^\"'`\\s]*/)?", CODE_HOME)
READ_CALL = alt(
    "open",
    "read_text",
    "read_bytes",
    "write_text",
    "Path",
    "dotenv_values",
    "copy2?",
    "copyfile",
    "copytree",
    "move",
    "rename",
    "readFileSync",
    "readFile",
    "createReadStream",
    "copyFileSync",
    "copyFile",
    "writeFileSync",
    "writeFile",
    "appendFileSync",
    "appendFile",
    r"Bun\.file",
    r"Deno\.readTextFile(Sync)?",
    r"File\.(read|open|readlines|foreach|write|binread)",
    r"IO\.(read|readlines)",
    "fopen",
    "file_get_contents",
    "file_put_contents",
    "readfile",
)
SECRET_STR = f"{CODE_STR}{CODE_PATH}{CODE_STR}"
pattern(
    "secret-in-code",
    # the name in the call, or held by a variable the code then opens (`p = ".env"; open(p)`),
    # or awk's `getline < ".env"`; and a name decoded from base64 then opened by a variable
    # (`p = b64decode('LmVudg=='); open(p)`): a file name nobody hides without a reason
    rf"\b{READ_CALL}[ \t]*\([^)]*{SECRET_STR}|[=:][ \t]*{SECRET_STR}.*\b{READ_CALL}[ \t]*\("
    rf"|\bgetline\b[^<]*<[ \t]*{SECRET_STR}"
    rf"|(b64decode|decode64|Buffer\.from\([^)]*base64|\batob)\b.*\b{READ_CALL}[ \t]*\("
    r"[ \t]*[A-Za-z_$][\w$]*[ \t]*[,)]",
)
PATH_C, PATH_STOP = "[^/]", "/"
PATH_HOME = "(~[^/]*|/home/[^/]+|/Users/[^/]+|/root)/"
# as for the shell: the names in their case, and those in any case under `(?i)`, so that each
# pattern has a set of literals the evaluator tests first
PATH_NAMES = located(PATH_C, PATH_STOP, "(.*/)?", PATH_HOME)
pattern("secret-path", "^" + alt(*(v for k, v in PATH_NAMES.items() if k not in CI_KINDS)) + "$")
pattern(
    "secret-path-keys", "(?i)^" + alt(*(v for k, v in PATH_NAMES.items() if k in CI_KINDS)) + "$"
)
GLOB_C, GLOB_STOP = r"[^/{},\s]", r"/{},\s"
GLOB_NAMES = secret_names(GLOB_C, GLOB_STOP)
GLOB_START, GLOB_END = "(^|[/{,])", "([/},]|$)"
pattern(
    "secret-glob",
    GLOB_START + alt(secret_glob(GLOB_C), key_glob(GLOB_C, GLOB_STOP)) + GLOB_END,
)
pattern(
    "secret-glob-names",
    GLOB_START
    + alt(*(v for k, v in GLOB_NAMES.items() if k not in CI_KINDS | HOME_KINDS))
    + GLOB_END,
)
pattern(
    "secret-glob-keys",
    "(?i)" + GLOB_START + alt(*(v for k, v in GLOB_NAMES.items() if k in CI_KINDS)) + GLOB_END,
)

# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------

# A tool's global options before its subcommand, each maybe with a separate value
# (`--context prod`, `-H ssh://host`): the subcommand stays the literal.
GLOBAL_OPTS = r"( -\S+( [^-\s]\S*)?)*"
HELP = ["--help", "-h"]
NOT_HELP = not_words(HELP)


def after(head: str, safe: list[str]) -> str:
    """`head` then words none of which is in `safe` (a help or dry-run flag) to the end."""
    return rf"{head}( {not_words(safe)})*$"


def with_word(head: str, trigger: str, safe: list[str]) -> str:
    """`head`, then some word matching `trigger` among words none of which is in `safe`."""
    w = not_words(safe)
    return rf"{head}( {w})* {trigger}( {w})*$"


# ---------------------------------------------------------------------------------------------
# The marked lines of the packages.


def marked_files() -> list[Path]:
    return sorted(LIBRARY.glob("*/STYLE.yaml"))


def marked_lines() -> list[tuple[Path, int, str, str]]:
    """(file, line number, pattern name, the pattern as written) of every `# gen:` line."""
    found = []
    for path in marked_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            m = MARK.match(line)
            if m:
                found.append((path, number, m["name"], m["body"].replace("''", "'")))
    return found


def differences() -> list[str]:
    out = []
    for path, number, name, body in marked_lines():
        wanted = PATTERNS.get(name)
        if wanted is None:
            out.append(f"{path.name}:{number}: no pattern named `{name}`")
        elif body != wanted:
            out.append(f"{path.parent.name}/{path.name}:{number}: `{name}` differs")
    return out


def write() -> int:
    changed = 0
    for path in marked_files():
        lines = path.read_text(encoding="utf-8").split("\n")
        for i, line in enumerate(lines):
            m = MARK.match(line)
            if m and m["name"] in PATTERNS:
                body = PATTERNS[m["name"]].replace("'", "''")
                new = f"{m['head']}'{body}'{m['tail']}"
                if new != line:
                    lines[i] = new
                    changed += 1
        path.write_text("\n".join(lines), encoding="utf-8")
    return changed


def main(argv: list[str]) -> int:
    if "--write" in argv:
        print(f"{write()} pattern line(s) rewritten")
        return 0
    problems = differences()
    print("\n".join(problems) if problems else "every marked pattern is up to date")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
