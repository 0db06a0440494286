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
