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


def git(sub: str) -> str:
    return f"{GIT} {sub}"


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
# template is a shell string (`parallel bash -c 'rm -rf {}' ::: /`).
pattern(
    "parallel-rm-outside",
    f"^parallel (.* )?(\\S*/)?rm (.* )?{RECURSIVE} (.* )?::: (.* )?{OUTSIDE}( |$)",
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
pattern(
    "find-everything",
    f"{FIND_HEAD}( \\./?)?( -(type|mindepth|maxdepth) \\S+| -depth| -xdev| -mount| -print0?)*"
    f" (-delete|-(exec|execdir) {EXEC_WRAPPERS}(\\S*/)?rm (.* )?{RECURSIVE}"
    f" (.* )?\\{{\\}}( \\+| ;)?)( |$)",
)


# guard-destructive's git rules also read a lone `--` that ends git's own options
# (`git -- reset --hard`): older git refuses it, newer git may run the command after it.
def dgit(sub: str) -> str:
    return f"{GIT}( --)? {sub}"


F = alt(cluster("f"), long_opt("force", 1))
# --merge too: it resets the index, so staged changes to the files it moves are lost
pattern(
    "git-reset-hard",
    dgit(f"reset (.* )?{alt(long_opt('hard', 1), long_opt('merge', 1))}( |$)"),
)
# Any word but a lone `--` (after it git reads paths, not options: `git switch -- -f`).
NOT_DDASH = r"( ([^-\s]\S*|-[^-\s]\S*|--\S+))*"
# A dry run wins over --force (`git clean -nf` only lists): a cluster holding n, or --dry-run
# and its abbreviations (`--dry-r`), anywhere before `--` makes the clean a listing.
NOT_DRY = (
    r"( ([^-\s]\S*|-[^-\sn]*|-e \S+|--"
    + not_words([f"d{p}" for p in ["", "r", "ry", "ry-", "ry-r", "ry-ru", "ry-run"]])
    + "))*"
)
CLEAN_F = alt("-[a-mo-zA-Z0-9]*f[a-mo-zA-Z0-9]*", long_opt("force", 1))
pattern("git-clean-force", dgit(f"clean{NOT_DRY} {CLEAN_F}{NOT_DRY}( -- .*)?$"))


# In a short cluster a letter that takes a value ends it: `-bfeature` names a branch.
def cluster_before(letter: str, valued: str) -> str:
    return f"-[a-zA-Z0-9]*{letter}[a-zA-Z0-9]*".replace("-[a-zA-Z0-9]*", f"-[^-{valued}\\s]*", 1)


CHECKOUT_F = alt(cluster_before("f", "bB"), long_opt("force", 1))
pattern(
    "git-checkout-discard",
    dgit(
        f"checkout (.* )?(-- \\S|\\.( |$)|{CHECKOUT_F}( |$)"
        f"|--{prefixes('pathspec-from-file', 11)}( |=|$))"
    ),
)
# `git checkout REF PATH…` (two operands, no -b/-B/--orphan) overwrites the paths from REF.
# Options whose value is the next word are read with it (`--conflict merge`, `--unified 3`).
# --track and --recurse-submodules take a value only attached (`--track=direct`); a next word
# that is one of their values is read as one too (`--track direct main` names no path), any
# other next word is the REF (`--track main file.txt`).
CHECKOUT_VALUED = ["conflict", "unified", "inter-hunk-context"]
OPTARG_VALUES = ["direct", "inherit", "yes", "no", "on-demand", "check", "only"]
# (a word that is no such value, nor an option: `--track -q main` names no path)
NOT_OPTARG_VALUE = not_words(OPTARG_VALUES, stop=r"\s\-")
CHECKOUT_OPT = (
    r"( (-[^-bB\s]\S*|--(conflict|unified|inter-hunk-context) \S+"
    r"|--(track|recurse-submodules) ("
    + "|".join(OPTARG_VALUES)
    + ")|--"
    + not_words(["orphan", "track", "recurse-submodules", *CHECKOUT_VALUED])
    + "))"
)
# an operand: never a redirection the analysis appended (`git checkout main > log`), nor a
# piece of a substitution left as written (`$(git merge-base HEAD main)` is several words)
OPERAND = r"([^-0-9<>&\s()$`][^\s()$`]*|[0-9]+([^0-9<>\s()$`][^\s()$`]*)?)"
pattern(
    "git-checkout-paths",
    dgit(
        f"checkout{CHECKOUT_OPT}*( --(track|recurse-submodules){CHECKOUT_OPT}*"
        f" {NOT_OPTARG_VALUE}|{CHECKOUT_OPT}* {OPERAND})"
        f"{CHECKOUT_OPT}* {OPERAND}"
    ),
)


# git restore puts back the work tree unless the call names only the index: it does when
# -W/--worktree is given, or when neither side is named (no -S/--staged, and no
# --no-staged/--no-worktree, which leave git with nothing to restore), and a path is given
# (an operand, a path after `--`, --pathspec-from-file, or -p choosing hunks). Options whose
# value is the next word take it (`--source --staged f`: the source is "--staged"); -h, --help
# and --version make git print and stop.
def abbrevs(word: str, shortest: int) -> list[str]:
    return [word[:n] for n in range(shortest, len(word) + 1)]


RESTORE_VALUED = (
    abbrevs("source", 2)
    + abbrevs("conflict", 1)
    + abbrevs("unified", 1)
    + abbrevs("inter-hunk-context", 2)
    + abbrevs("pathspec-from-file", 10)
)
RESTORE_STOPS = [
    "s",
    "version",
    "help-all",
    *abbrevs("help", 1),
    *abbrevs("no-worktree", 4),
    *RESTORE_VALUED,
]
RESTORE_VALUE = "--(" + "|".join(esc(w) for w in RESTORE_VALUED) + r") \S+"


def restore_option(letters: str, excluded: list[str]) -> str:
    """An option of git restore that neither stops git nor (when `letters` excludes S/W) names
    a side: a short cluster (with -s/-U and their value), a long option with or without a value."""
    short = f"-[^-\\s{letters}hsU]"
    return alt(
        f"{short}+",
        f"{short}*[sU](\\S+| \\S+)",
        RESTORE_VALUE,
        "--" + not_words(excluded),
    )


RESTORE_ANY = restore_option("", RESTORE_STOPS)
RESTORE_SIDES = abbrevs("staged", 2) + abbrevs("worktree", 1) + abbrevs("no-staged", 4)
RESTORE_UNNAMED = restore_option("SW", RESTORE_STOPS + RESTORE_SIDES)
RESTORE_UNPATCHED = restore_option("SW", RESTORE_STOPS + RESTORE_SIDES + abbrevs("no-patch", 4))
RESTORE_PATH = alt(r"[^-\s]\S*", "-", f"--{prefixes('pathspec-from-file', 10)}(=| )\\S+")
RESTORE_PATCH = alt(r"-[^-\sSWhsU]*p[^-\sSWhsU]*", "--" + prefixes("patch", 4))
WORKTREE = alt(r"-[^-\shsU]*W[^-\shsU]*", long_opt("worktree", 1))
AFTER = r"( --( .*)?)?$"
pattern(
    "git-restore-unstaged",
    dgit(
        f"restore( {RESTORE_UNNAMED})*( {RESTORE_PATH}( {RESTORE_UNNAMED}| {RESTORE_PATH})*{AFTER}"
        f"| --( \\S+)+$)"
    ),
)
# -p alone picks hunks from every changed file; --no-patch after it takes that back
pattern(
    "git-restore-patch",
    dgit(f"restore( {RESTORE_UNNAMED})* {RESTORE_PATCH}( {RESTORE_UNPATCHED})*$"),
)
pattern(
    "git-restore-worktree",
    dgit(
        f"restore( {RESTORE_ANY})*(( {WORKTREE}( {RESTORE_ANY})* {RESTORE_PATH}"
        f"| {RESTORE_PATH}( {RESTORE_ANY}| {RESTORE_PATH})* {WORKTREE})"
        f"( {RESTORE_ANY}| {RESTORE_PATH})*{AFTER}"
        f"| {WORKTREE}( {RESTORE_ANY})* --( \\S+)+$)"
    ),
)
SWITCH_F = alt(cluster_before("f", "cC"), long_opt("force", 1), long_opt("discard-changes", 2))
pattern("git-switch-discard", dgit(f"switch{NOT_DDASH} {SWITCH_F}( |$)"))
pattern("git-stash-drop", dgit("stash (drop|clear)( |$)"))
D = alt(cluster("d"), long_opt("delete", 2))
pattern(
    "git-branch-force-delete",
    dgit(
        f"branch (.* )?({cluster('D')}|-[a-zA-Z]*(d[a-zA-Z]*f|f[a-zA-Z]*d)[a-zA-Z]*"
        f"|{D} (.* )?{F}|{F} (.* )?{D})( |$)"
    ),
)
pattern("git-worktree-force-remove", dgit(f"worktree remove{NOT_DDASH} {F}( |$)"))

# Force pushes. PROTECTED is the package's `protected_branches` setting (a list of branch
# regexes), filled in at install: `--set protected_branches=trunk` changes what is refused.
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

DESTRUCTIVE_GIT = (
    r"!?((\S*/)?git )?(push (.* )?(" + FORCE + r"|--mi\S*|\+\S+)|reset (.* )?--h\S*"
    rf"|clean (.* )?({cluster('f')}|--f\S*)|checkout (.* )?(--|\.|{cluster('f')})|restore( |$)"
    rf"|stash (drop|clear)|branch (.* )?{cluster('D')}|worktree remove (.* )?{F})"
)
pattern("git-inline-alias", rf"^[Gg][Ii][Tt] (.* )?-c alias\.[^=\s]+={DESTRUCTIVE_GIT}")
pattern("git-env-alias", r"^[Gg][Ii][Tt] (.* )?--config-env[= ]alias\.")
pattern("git-config-alias", git(rf"config (.* )?alias\.\S+ (.* )?{DESTRUCTIVE_GIT}"))
pattern("git-env-config-alias", rf"^GIT_CONFIG_VALUE_[0-9]+={DESTRUCTIVE_GIT}")
pattern("git-rebase-exec", git(rf"rebase (.* )?(-x|--exec)[= ]{DESTRUCTIVE_GIT}"))
# A command the analysis could not take whole, that mentions what this package guards.
pattern(
    "mentions-destructive",
    r"\brm\b[^\n]*-[a-zA-Z]*[rR]|--recursive|\bfind\b[^\n]*-(delete|exec)"
    r"|\bgit\b[^\n]*\b(reset|clean|push|checkout|restore|switch|stash|branch|worktree)\b"
    r"|(?i:drop\s+(table|database|schema)|truncate\s|dropdb|flushall|flushdb)"
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
pattern("delete-api-outside", rf"{DELETE_API}[ \t]*\([ \t]*{CODE_OUTSIDE}")


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


def secret_names(c: str, stop: str) -> dict[str, str]:
    """Each kind of secret file's name over word characters `c`."""
    return {
        "env": env_name(c, stop),
        "ssh-key": r"id_(rsa|dsa|ecdsa|ed25519)(_sk)?",
        "pem": rf"{c}*\.pem",
        "key": rf"{c}*\.key",
        "p12": rf"{c}*\.p12",
        "pfx": rf"{c}*\.pfx",
        "netrc": r"\.netrc",
        "pgpass": r"\.pgpass",
        "git-credentials": r"\.git-credentials",
        "pypirc": r"\.pypirc",
        "aws": r"\.aws/credentials",
    }


def secret_name(c: str, stop: str) -> str:
    return alt(*secret_names(c, stop).values())


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
NAMES = secret_names(WORD_C, WORD_STOP)
# How a secret can sit inside a word: curl's @file and field=@file, dd's if=, wget's
# --post-file=, git's REV:path and scp's host:path.
INSIDE = alt(r"@|\S*=@|if=|--(post|body|upload)-file=|[^\s:/]*:", "") + r"(\S*/)?"
GLOBS = alt(secret_glob(WORD_C), key_glob(WORD_C, WORD_STOP))
SECRET_WORD = INSIDE + alt(*NAMES.values(), GLOBS)


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
# ssh -i KEY, curl --key KEY --cert CERT.
USE_FLAGS = ["--env-file", "-i", "--identity-file", "--key", "--cert", "--cacert"]
BEFORE = rf"{READER}(( \S+)* {not_words(USE_FLAGS)})? {INSIDE}"
for _kind, _name in NAMES.items():
    pattern(f"secret-read-{_kind}", rf"{BEFORE}{_name}( |$)")
# Globs have no literal to test first, so this one pattern runs on every command: it names the
# usual readers instead of complementing the harmless ones, to stay small.
GLOB_READERS = (
    "cat|tac|nl|less|more|most|head|tail|bat|batcat|strings|od|xxd|hexdump|base64|base32"
    "|awk|gawk|sed|cut|sort|uniq|paste|column|rev|diff|cmp|tar|zip|cp|mv|scp|rsync|ln"
    "|source|\\.|vi|vim|nvim|nano|emacs|code|grep|egrep|fgrep|rg|jq|python3?|node|ruby|perl"
)
pattern("secret-read-glob", rf"^(\S*/)?({GLOB_READERS})( \S+)* (\S*/)?{GLOBS}( |$)")
# the first operand is the pattern: a secret named after it is a file searched
pattern("secret-search", rf"^(\S*/)?[ezf]?grep (\S+ )*[^-\s]\S*( \S+)* {SECRET_WORD}( |$)")
for _tool in ("rg", "ag", "ack"):
    pattern(
        f"secret-search-{_tool}",
        rf"^(\S*/)?{_tool} (\S+ )*[^-\s]\S*( \S+)* {SECRET_WORD}( |$)",
    )
GIT_READERS = "show|cat-file|diff|difftool|log|whatchanged|blame|annotate|grep|archive|format-patch"
# plain `git` here, so that "git" is the literal tested first (the readers are alternatives)
pattern(
    "secret-git",
    "^git" + GIT[len("^[Gg][Ii][Tt]") :] + f" ({GIT_READERS}) (.* )?{SECRET_WORD}( |$)",
)
pattern(
    "secret-find-exec",
    r"^find (.* )?-(i?name|i?path|i?wholename|i?regex) \S*(\.env|id_"
    r"|\.(pem|key|p12|pfx|netrc|pgpass|git-credentials|pypirc))\S*( .*)?"
    rf" -(exec|execdir|ok|okdir) {READER[1:]}( |$)",
)
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
REDIRECT_OP = r"(^| )[0-9]*(<|>|>>|>\||<>|&>|&>>) (\S*/)?"
pattern("secret-redirect-env", rf"{REDIRECT_OP}{NAMES['env']}( |$)")
pattern(
    "secret-redirect-other",
    REDIRECT_OP + alt(*(v for k, v in NAMES.items() if k != "env")) + "( |$)",
)
pattern(
    "mentions-secret",
    r"\.env|\.e[*?\[]|id_(rsa|dsa|ecdsa|ed25519)|\.(pem|key|p12|pfx)\b|\.netrc|\.pgpass"
    r"|\.git-credentials|\.pypirc|\.aws/credentials",
)
CODE_STR = "[\"'`]"
CODE_NAME_C, CODE_NAME_STOP = "[^/\"'`\\s]", "/\"'`\\s"
CODE_PATH = "([^\"'`\\s]*/)?" + secret_name(CODE_NAME_C, CODE_NAME_STOP)
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
    r"File\.(read|open|readlines|foreach|write|binread)",
    r"IO\.(read|readlines)",
    "fopen",
    "file_get_contents",
    "file_put_contents",
    "readfile",
)
pattern("secret-in-code", rf"\b{READ_CALL}[ \t]*\([^)]*{CODE_STR}{CODE_PATH}{CODE_STR}")
PATH_C, PATH_STOP = "[^/]", "/"
pattern("secret-path", f"^(.*/)?{secret_name(PATH_C, PATH_STOP)}$")
GLOB_C, GLOB_STOP = r"[^/{},\s]", r"/{},\s"
pattern(
    "secret-glob",
    "(^|[/{,])"
    + alt(secret_name(GLOB_C, GLOB_STOP), secret_glob(GLOB_C), key_glob(GLOB_C, GLOB_STOP))
    + "([/},]|$)",
)

# ---------------------------------------------------------------------------------------------
# guard-git-identity: the default of `forbidden_email`, spelled out (settings do not reach
# conditions yet). `(?i)` first, so the address is the literal tested first, in any case.

ADDR = r"bad@example\.com"
IDENTITY_KEY = r"(user|author|committer)\.email"
pattern("identity-config", "(?i)" + git(f"config (.* )?{IDENTITY_KEY} (.* )?<?{ADDR}>?( |$)"))
pattern("identity-git-c", rf"(?i)^git (.* )?-c {IDENTITY_KEY}=\S*{ADDR}")
pattern("identity-config-env", rf"(?i)^git (.* )?--config-env[= ]{IDENTITY_KEY}=")
pattern(
    "identity-variable",
    rf"(?i)^(GIT_AUTHOR_EMAIL|GIT_COMMITTER_EMAIL|EMAIL|GIT_CONFIG_VALUE_[0-9]+)=\S*{ADDR}",
)
pattern(
    "identity-author",
    "(?i)" + git(f"commit (.* )?--{prefixes('author', 2)}[= ]([^<]*<)?{ADDR}"),
)
pattern("identity-rewrite", "(?i)" + git(rf"(rebase|filter-branch|filter-repo) (.* )?\S*{ADDR}"))
pattern(
    "identity-config-file",
    rf"(?i)^(sed|perl) (.* )?-i\S* (.* )?\S*{ADDR}\S*( .*)? (\S*/)?(\.git/config|\.gitconfig)( |$)",
)
pattern(
    "identity-config-redirect",
    rf"(?i){ADDR}.* [0-9]*(>|>>|>\|) (\S*/)?(\.git/config|\.gitconfig|\.config/git/config)( |$)",
)
pattern(
    "mentions-identity",
    rf"(?i)\b(config|commit|rebase|filter-branch)\b[^\n]*{ADDR}|(GIT_AUTHOR_EMAIL|GIT_COMMITTER_EMAIL"
    rf"|EMAIL|GIT_CONFIG_VALUE_[0-9]+)=\S*{ADDR}",
)
pattern("identity-config-path", r"(^|/)(\.git/config|\.gitconfig|\.config/git/config)$")
pattern("identity-address", f"(?i){ADDR}")


# ---------------------------------------------------------------------------------------------
# guard-one-way-doors

NOT_DRY_RUN = not_words(["--dry-run"])
pattern(
    "publish",
    rf"^(npm|pnpm|bun|poetry|uv|hatch|flit|yarn( npm)?) publish( {NOT_DRY_RUN})*$",
)
pattern(
    "publish-through-runner",
    rf"^(npx|pnpx|bunx|corepack)( -\S+)* (npm|pnpm|yarn|bun)(@\S+)? publish( {NOT_DRY_RUN})*$",
)
pattern(
    "publish-in-container",
    r"^(docker|podman) (container )?run (.* )?(npm|pnpm|yarn|bun|cargo|poetry|uv|hatch|flit)"
    rf" publish( {NOT_DRY_RUN})*$",
)
pattern(
    "mentions-one-way-door",
    r"\b(publish|unpublish|yank)\b|\bgh\s+(release|repo)\s+delete|--visibility"
    r"|twine\s+upload|gem\s+push|(?i:-X\s*DELETE|--method[= ]DELETE)",
)
pattern("npm-unpublish", rf"^npm unpublish( {not_words(['--help', '-h'])})*$")
pattern(
    "curl-delete-repos",
    r"^curl (.* )?(-X ?|--request[= ]|--request )(?i:DELETE) (.* )?https?://api\.github\.com/repos/",
)
pattern(
    "curl-repos-delete",
    r"^curl (.* )?https?://api\.github\.com/repos/\S* (.* )?(-X ?|--request[= ]|--request )"
    r"(?i:DELETE)( |$)",
)

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
