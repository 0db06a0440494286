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
BRACED = r"(\{[^}\s]*\}|%)"  # an xargs/parallel placeholder: {}, {.}, {/}, %

PATTERNS: dict[str, str] = {}


def pattern(name: str, text: str) -> None:
    assert name not in PATTERNS, name
    PATTERNS[name] = text


# ---------------------------------------------------------------------------------------------
# guard-destructive


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
HELP_FREE = f"( {not_words(['--help', '-h'])})*$"  # the rest of the words, none a help flag
PUBLISHERS = "(npm|pnpm|bun|poetry|uv|hatch|flit|pdm|rye|deno|yarn( npm)?)"
pattern("publish", rf"^{PUBLISHERS} publish( {NOT_DRY_RUN})*$")
pattern(
    "publish-through-runner",
    rf"^(npx|pnpx|bunx|corepack)( -\S+)* (npm|pnpm|yarn|bun|jsr)(@\S+)? publish"
    rf"( {NOT_DRY_RUN})*$",
)
pattern(
    "publish-in-container",
    r"^(docker|podman) (container )?run (.* )?(npm|pnpm|yarn|bun|cargo|poetry|uv|hatch|flit)"
    rf" publish( {NOT_DRY_RUN})*$",
)
# Maven uploads in its deploy phase (deploy, or any later phase: none follows it) and in the
# goals that upload: deploy:deploy(-file), release:perform (it runs deploy), staging releases.
pattern(
    "maven-deploy",
    r"^mvn[wd]?( \S+)* (deploy|\S*:deploy(-file)?|release:perform"
    r"|nexus-staging:(deploy|release)|jreleaser:(deploy|release|full-release))( |$)",
)
# Gradle's publish tasks (publish, publishToMavenCentral, :lib:publishAllPublicationsTo…,
# publishPlugins), not the local repository (publishToMavenLocal); a dry run (-m, --dry-run),
# `help --task publish`, `tasks` and an excluded task (-x publish) run nothing.
GRADLE_WORD = not_words(["help", "tasks", "--task", "-m", "--dry-run", "-x", "--exclude-task"])
pattern(
    "gradle-publish",
    rf"^(gradle|gradlew)( {GRADLE_WORD})* (\S*:)?publish({not_words(['ToMavenLocal'])})?"
    rf"( {GRADLE_WORD})*$",
)
NOT_DRY_OR_HELP = not_words(["--dry-run", "-n", "--help", "-h"])
pattern("pub-publish", rf"^(dart|flutter) pub publish( {NOT_DRY_OR_HELP})*$")
pattern("hex-publish", rf"^mix hex\.publish( {NOT_DRY_OR_HELP})*$")
pattern("helm-push", rf"^helm (push|cm-push){HELP_FREE}")
pattern(
    "deploy-in-container",
    r"^(docker|podman) (container )?run (.* )?(mvn|mvnw|gradle|gradlew|\./mvnw|\./gradlew)"
    r" (.* )?(deploy|publish)( |$)",
)
# Public changes to what a registry serves: deprecations, dist-tags and owners removed.
pattern("npm-deprecate", rf"^(npm|pnpm) deprecate{HELP_FREE}")
pattern("hex-retire", rf"^mix hex\.retire( {not_words(['--unretire', '--help', '-h'])})*$")
pattern(
    "mentions-one-way-door",
    r"\b(publish|unpublish|yank|deprecate|dist-tag|deploy)\b|\b(gh|glab)\s+(\S+\s+){1,2}delete"
    r"|\brepo\s+archive|--visibility|twine\s+upload|gem\s+push|helm\s+push"
    r"|(?i:-X\s*DELETE|--method[= ]DELETE)",
)
pattern("npm-unpublish", rf"^npm unpublish( {not_words(['--help', '-h'])})*$")
# gh/glab NOUN [NOUN] delete: every deletion the forge CLIs offer is remote (issues, gists,
# secrets, variables, labels, runs, caches, codespaces, projects, keys, releases, repos), but
# `gh alias delete` (a local alias); `gh search issues delete` and help pages run nothing.
pattern(
    "forge-delete",
    r"^(gh|glab) "
    + not_words(["alias", "api", "search", "help", "extension"])
    + rf"( [a-z][-a-z]*)? (item-|field-)?delete(-asset)?{HELP_FREE}",
)
# gh repo archive makes a repository read-only for everyone (glab repo archive downloads one)
pattern("gh-repo-archive", rf"^gh repo archive{HELP_FREE}")
# DELETE through gh api / glab api, on any path but the reversible ones of the user's own
# account (unstar, unfollow, unwatch, a notification marked): a path word is any word that does
# not start with `-` (a header value taken for one errs toward asking).
REVERSIBLE = ["user/starred", "user/following", "user/subscriptions", "notifications"]
API_PATH = not_prefixed(["-"] + REVERSIBLE + ["/" + p for p in REVERSIBLE])
API_DELETE = r"(-X ?|--method[= ])(?i:DELETE)"
pattern("api-delete", rf"^(gh|glab) api (.* )?{API_DELETE} (.* )?{API_PATH}( |$)")
pattern("api-path-delete", rf"^(gh|glab) api (.* )?{API_PATH} (.* )?{API_DELETE}( |$)")
FORGE_API = r"https?://(api\.github\.com|\S+/api/v4)/"
pattern(
    "curl-delete-forge",
    rf"^curl (.* )?(-X ?|--request[= ]|--request )(?i:DELETE) (.* )?{FORGE_API}",
)
pattern(
    "curl-forge-delete",
    rf"^curl (.* )?{FORGE_API}\S* (.* )?(-X ?|--request[= ]|--request )(?i:DELETE)( |$)",
)

# ---------------------------------------------------------------------------------------------
# guard-git: code git runs from its settings and environment, and history it destroys.


def setting_key(key: str) -> str:
    """A git setting's key, without case (section and key names are case-insensitive)."""
    return "(?i:" + key + ")"


# The settings whose value git runs as a program (alias: as a shell line after `!`).
# core.sshCommand is apart: it runs only when git talks to a remote over ssh.
EXEC_KEYS = setting_key(
    r"core\.(pager|editor|askpass|gitproxy)|pager\.[^=\s]+|sequence\.editor|diff\.external"
    r"|(diff|merge|filter)\.[^=\s]+\.(command|textconv|driver|clean|smudge|process)"
    r"|credential\.([^=\s]+\.)?helper|gpg(\.[^=\s]+)?\.program|interactive\.difffilter"
    r"|uploadpack\.packobjectshook|web\.browser|browser\.[^=\s]+\.cmd|man\.[^=\s]+\.cmd"
    r"|remote\.[^=\s]+\.(uploadpack|receivepack)"
)
SSH_KEY = setting_key(r"core\.sshcommand")
# A program value no one sets by accident: a shell, an interpreter, a downloader or a deleter,
# or a script by path (in the project, relative, or in a scratch folder); `!` before it is a
# credential helper's or an alias's shell. A program installed on PATH (less, delta,
# `code --wait`, `sed -i …`, `ssh -i key`) passes: it is already on the machine.
PROGRAMS = (
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox",
    "python", "python2", "python3", "perl", "ruby", "node", "php", "lua", "osascript",
    "curl", "wget", "nc", "ncat", "socat", "rm", "shred", "dd", "eval", "exec",
)  # fmt: skip
BAD_PROGRAM = "!?" + alt(
    rf"({'|'.join(PROGRAMS)})(\.exe)?( |$)",
    r"\.\.?/\S*",
    r"/(tmp|var/tmp|dev/shm|private/tmp)/\S*",
    r"[^-/\s~$!'\"][^\s/]*/\S*",
)
# core.fsmonitor is a boolean (the built-in daemon) or a hook program: only booleans pass.
NOT_BOOL = not_words(["true", "false", "yes", "no", "on", "off", "1", "0"]) + "( |$)"
FSMONITOR = setting_key(r"core\.fsmonitor")
# hooks and included configuration from outside the project: an absolute path, ~, $VAR, ..
HOOKS = setting_key(r"core\.hookspath")
HOOKS_OUTSIDE = r"(/|~|\$|\.\./)"
INCLUDE = setting_key(r"include(if\.[^=\s]+)?\.path")
INCLUDE_OUTSIDE = r"(/|\.\./)"
EXT = setting_key(r"protocol(\.ext)?\.allow")
ALIAS = setting_key(r"alias\.[^=\s]+")
# a remote over ssh: the subcommands that run core.sshCommand / GIT_SSH
NETWORK = (
    r"(fetch|pull|push|clone|ls-remote|remote (.* )?update|archive (.* )?--remote\S*"
    r"|submodule (.* )?(update|sync)|fetch-pack|send-pack)( |$)"
)


def setting(sep: str) -> str:
    """KEY{sep}VALUE for every setting that runs code; sep is `=` (-c) or ` ` (git config)."""
    return alt(
        f"{EXEC_KEYS}{sep}{BAD_PROGRAM}",
        f"{FSMONITOR}{sep}{NOT_BOOL}",
        f"{HOOKS}{sep}{HOOKS_OUTSIDE}",
        f"{INCLUDE}{sep}{INCLUDE_OUTSIDE}",
        f"{EXT}{sep}(always|user)( |$)",
        f"{ALIAS}{sep}!",
    )


# on the command line: `-c KEY=VALUE`, `-cKEY=VALUE` (the value may hold spaces); ` -c` is the
# literal the evaluator tests first
INLINE = r"^[Gg][Ii][Tt]( .*)? -c ?"
pattern("git-inline-exec", INLINE + setting("="))
pattern("git-inline-ssh", f"{INLINE}{SSH_KEY}={BAD_PROGRAM}(.* )?{NETWORK}")
# --config-env KEY=VAR takes the value from a variable the command does not show
pattern(
    "git-config-env-exec",
    r"^[Gg][Ii][Tt] (.* )?--config-env[= ]"
    + alt(EXEC_KEYS, SSH_KEY, FSMONITOR, HOOKS, INCLUDE, ALIAS)
    + "=",
)
# persisted for every later call: `git config [--global] [set|--add] KEY VALUE`
pattern("git-config-exec", git(f"config (.* )?{alt(setting(' '), f'{SSH_KEY} {BAD_PROGRAM}')}"))
# the same settings through the environment (GIT_CONFIG_PARAMETERS holds 'KEY=VALUE' words)
pattern(
    "git-parameters-exec",
    r"^GIT_CONFIG_PARAMETERS=(.* )?'?" + alt(setting("="), f"{SSH_KEY}={BAD_PROGRAM}"),
)
ENV_KEYS = alt(EXEC_KEYS, SSH_KEY, FSMONITOR, HOOKS, INCLUDE, EXT, ALIAS)
pattern("git-env-key", rf"^GIT_CONFIG_KEY_[0-9]+={ENV_KEYS}$")
pattern("git-env-value", rf"^GIT_CONFIG_VALUE_[0-9]+={alt(BAD_PROGRAM, '/', '~')}")
# variables git runs as programs
pattern(
    "git-env-program",
    r"^GIT_(PAGER|EDITOR|SEQUENCE_EDITOR|EXTERNAL_DIFF|ASKPASS|PROXY_COMMAND)=" + BAD_PROGRAM,
)
pattern("git-env-ssh", rf"^GIT_SSH(_COMMAND)?={BAD_PROGRAM}")
# the raw text names a network subcommand (one test per call, not per simple command)
pattern(
    "mentions-git-network",
    r"\bgit\b[^\n;&|]*\b(fetch|pull|push|clone|ls-remote|update|archive\b[^\n;&|]*--remote"
    r"|fetch-pack|send-pack)\b",
)
# --upload-pack/--receive-pack run a program (on the remote; for a local remote, here); git's
# own pack programs pass. The ext:: transport runs its URL as a command.
PACK = not_words(["git-upload-pack", "git-receive-pack", "git"]) + "( |$)"
pattern(
    "git-pack-program",
    git(rf"(clone|fetch|pull|push|ls-remote|archive) (.* )?--(upload|receive)-pack[= ]{PACK}"),
)
pattern("git-ext-transport", git(r"(clone|fetch|pull|push|ls-remote|remote|submodule) (.* )?ext::"))
# rebase --exec CMD runs CMD after each commit; refused when CMD is a suspicious program
# (guard-destructive's git-alias-destructive refuses a destructive git command there)
pattern("git-rebase-exec-program", git(rf"rebase (.* )?(-x ?|--exec[= ]){BAD_PROGRAM}"))

# History and refs. A dry run passes (-n/--dry-run); the help passes (`--help` is git's man page).
NOT_HELP = "( " + not_words(["--help", "-h"]) + ")*$"
NOT_DRY = (
    "( "
    + alt(
        r"[^-\s]\S*",
        r"-[^-n\s][^n\s]*",
        "--" + not_words(["d", "dr", "dry", "dry-", "dry-r", "dry-ru", "dry-run", "help"]),
    )
    + ")*"
)
# reflog expire with a time that drops entries now (now, all, 0, a date); never/false keep them
pattern(
    "git-reflog-expire",
    git(
        rf"reflog expire{NOT_DRY} --expire(-unreachable)?[= ]"
        + not_words(["never", "false"])
        + rf"{NOT_DRY}$"
    ),
)
pattern("git-reflog-delete", git(rf"reflog delete{NOT_DRY}$"))
pattern("git-gc-prune-now", git(r"gc (.* )?--prune=(now|all|0)( |$)"))
pattern("git-prune", git(rf"prune{NOT_DRY}$"))
pattern(
    "git-ref-delete",
    git(rf"(update|symbolic)-ref (.* )?({cluster('d')}|{long_opt('delete', 2)})( |$)"),
)
# `git update-ref --stdin` reading `delete REF` lines from a pipe, a herestring or a heredoc:
# the stdin text is not a field, so the command's text is read (also for-each-ref's --format)
pattern("git-ref-delete-stdin", git(r"update-ref (.* )?--stdin( |$)"))
pattern("delete-lines", r"(?i)(^|[\n'\"\s=])delete\s+(refs/|HEAD|%\()")
pattern("git-tag-delete", git(rf"tag (.* )?({cluster('d')}|{long_opt('delete', 1)})( |$)"))
pattern("git-abort", git(rf"(merge|rebase) (.* )?{long_opt('abort', 2)}( |$)"))

# A forced `git rm` removes the files from the work tree even with changes git cannot restore.
# The last of --force/--no-force wins, and so does the last of the flags that keep the files
# (--cached, -n/--dry-run) against their --no- forms; options end at `--`. The short options
# are f, n, r, q (clusters: -rf, -nrf). The keep flags are one class here ("keep"): a
# --no-dry-run after --cached counts as turning keeping off (a refusal, never a quiet pass).
# Token kinds and the classes they set: F (force on/off), K (keep on/off).
RM_LONG = {
    "F+": ["force"],
    "F-": ["no-force"],
    "K+": ["cached", "dry-run"],
    "K-": ["no-cached", "no-dry-run"],
}


def rm_longs(kind: str) -> list[str]:
    """Every spelling git accepts for the long options of `kind` (unambiguous prefixes)."""
    out = []
    for word in RM_LONG[kind]:
        start = len("no-") + 1 if word.startswith("no-") else 1
        out += [word[:i] for i in range(start, len(word) + 1)]
    return out


RM_KINDS: dict[str, tuple[str, frozenset[str]]] = {
    # short clusters: f sets F+, n sets K+ (dry run)
    "short-f": (r"-[^-n\s]*f[^n\s]*", frozenset({"F+"})),
    "short-n": (r"-[^-f\s]*n[^f\s]*", frozenset({"K+"})),
    "short-fn": (r"-[^-\s]*(f\S*n|n\S*f)\S*", frozenset({"F+", "K+"})),
    "short": (r"-[^-fn\s][^fn\s]*", frozenset()),
    "word": (r"([^-\s]\S*|-)", frozenset()),
    "long": ("--" + not_words([w for k in RM_LONG for w in rm_longs(k)]), frozenset()),
}
for _kind, _words in RM_LONG.items():
    _spelled = [prefixes(w, len("no-") + 1 if w.startswith("no-") else 1) for w in _words]
    RM_KINDS["long" + _kind] = ("--" + alt(*_spelled), frozenset({_kind}))


def rm_tokens(excluded: set[str], need: str | None = None) -> str:
    """One ` TOKEN` whose classes avoid `excluded` (F, K) and, with `need`, that sets it."""
    parts = []
    for text, sets in RM_KINDS.values():
        if any(k[0] in excluded for k in sets):
            continue
        if need is not None and need not in sets:
            continue
        parts.append(text)
    return " " + alt(*parts)


def rm_forced() -> str:
    """Option words of `git rm` whose effect is: force on, keep off."""
    terms = [
        # no keep flag at all: anything without K, a force, then nothing of F or K
        f"({rm_tokens({'K'})})*{rm_tokens({'K'}, 'F+')}({rm_tokens({'F', 'K'})})*",
        # keep turned off, then the last force
        f"({rm_tokens(set())})*{rm_tokens(set(), 'K-')}({rm_tokens({'K'})})*"
        f"{rm_tokens({'K'}, 'F+')}({rm_tokens({'F', 'K'})})*",
        # the last force, then keep turned off
        f"({rm_tokens(set())})*{rm_tokens(set(), 'F+')}({rm_tokens({'F'})})*"
        f"{rm_tokens({'F'}, 'K-')}({rm_tokens({'F', 'K'})})*",
    ]
    return alt(*terms)


pattern("git-rm-force", git(f"rm{rm_forced()}( --( .*)?)?$"))
# A command the analysis could not take whole, that mentions what guard-git guards.
pattern(
    "mentions-guard-git",
    r"\bgit\b[^\n]*(\b(filter-branch|filter-repo|reflog|prune|update-ref|symbolic-ref)\b"
    r"|\b(rm|tag)\s+[^\n]*-[a-zA-Z]*[fd]|--abort|-c\s*\S*=|\bconfig\b)|\bGIT_(SSH|CONFIG|PAGER"
    r"|EDITOR|EXTERNAL_DIFF|ASKPASS)",
)


# guard-cloud. A cloud CLI call is `TOOL [global options] SERVICE/GROUP… OPERATION [args]`:
# the operation word is the literal, and the words after it are the complement of what makes
# the call not run (a dry run, a help page), so `--dry-run` anywhere in the call lets it pass.

HELP = ["--help", "-h", "help"]
# aws: global options (each with at most one value) before the service; every operation
# that deletes or terminates, under any service but s3/s3api (guard-remote-storage's).
AWS_HEAD = r"^aws( -\S+( [^-\s]\S*)?)*"
AWS_RUNS = not_words(["--dry-run", "--generate-cli-skeleton", *HELP])
pattern(
    "cloud-aws-delete",
    f"{AWS_HEAD} {not_words(['s3', 's3api'])}"
    f" (delete-\\S+|batch-delete-\\S+|terminate-\\S+|schedule-key-deletion|purge-queue)"
    f"( {AWS_RUNS})*$",
)
# gcloud/az: the command path is positional words (flags may come first); the operation
# word ends it. `storage` is guard-remote-storage's group.
GCLOUD_HEAD = r"^gcloud( -\S+( [^-\s]\S*)?)*( (alpha|beta|preview))?"
NOT_HELP = not_words(HELP)
PATH_WORDS = r"( [^-\s]\S*)*"
pattern(
    "cloud-gcloud-delete",
    f"{GCLOUD_HEAD} {not_words(['storage', 'alpha', 'beta', 'preview', 'help'])}{PATH_WORDS}"
    f" delete( {NOT_HELP})*$",
)
AZ_HEAD = r"^az( -\S+( [^-\s]\S*)?)*"
pattern(
    "cloud-az-delete",
    f"{AZ_HEAD} {not_words(['storage', 'help'])}{PATH_WORDS} (delete|purge|untag)( {NOT_HELP})*$",
)
# the platforms' own CLIs: doctl (`d`, `rm` are delete's aliases), flyctl, heroku, vercel,
# netlify
pattern(
    "cloud-paas-delete",
    r"^(doctl( \S+)+ (delete|d|rm)|(fly|flyctl)( [^-\s]\S*)* (destroy|remove|rm)"
    r"|heroku (apps:destroy|destroy|apps:delete|addons:destroy|addons:remove|pg:reset)"
    r"|vercel( \S+)* (remove|rm)|netlify (sites:delete|sites:remove))"
    f"( {NOT_HELP})*$",
)
# SDK code: a boto3 client or resource call that deletes or terminates
pattern(
    "cloud-sdk-delete",
    r"(?s)\bboto3\b.*\.(terminate_[a-z_]+|delete_[a-z0-9_]+|batch_delete_[a-z_]+"
    r"|schedule_key_deletion|purge_queue)\(",
)
# an argument list run as a process: subprocess.run(["aws", "ec2", "terminate-instances", …])
pattern(
    "cloud-argv-delete",
    r"[\"'](aws|gcloud|az)[\"'][ \t]*,[^\]\n]*[\"'](delete(-[a-z0-9-]+)?|batch-delete-[a-z-]+"
    r"|terminate-[a-z-]+|schedule-key-deletion|purge)[\"']",
)
pattern(
    "mentions-cloud-delete",
    r"\b(aws|gcloud|az|doctl|fly|flyctl|heroku|vercel|netlify)\b[^\n]*(\b(delete|destroy|purge"
    r"|untag|remove|rm)\b|delete-|terminate-|schedule-key-deletion|apps:destroy|sites:delete)",
)

# ---------------------------------------------------------------------------------------------
# guard-remote-storage. Deletes of remote or object storage, and syncs that delete what the
# source lacks. A local copy with --delete into the project is ordinary and passes.

# An operand that is another host or outside the project: `[user@]host:path`, `host::module`,
# `rsync://…`, an rclone remote `name:path`, or an absolute/home/`..` path (OUTSIDE).
REMOTE = r"([^-/\s:][^/\s:]*:\S*|[a-z]+://\S*)"
ELSEWHERE = alt(REMOTE, OUTSIDE)
pattern(
    "storage-aws-s3-delete",
    f"{AWS_HEAD}( s3 rm| s3 rb)( {not_words(['--dryrun', *HELP])})*$",
)
pattern(
    "storage-aws-s3-sync-delete",
    f"{AWS_HEAD} s3 sync( {not_words(['--dryrun', *HELP])})* --delete"
    f"( {not_words(['--dryrun', *HELP])})*$",
)
pattern(
    "storage-aws-s3api-delete",
    f"{AWS_HEAD} s3api delete-\\S+( {not_words(['--generate-cli-skeleton', *HELP])})*$",
)
GSUTIL_HEAD = r"^gsutil( -\S+( [^-\s]\S*)?)*"
pattern(
    "storage-gsutil-delete",
    f"{GSUTIL_HEAD} (rm|del|delete|remove|rb|deletebucket|removebucket|rd)( |$)",
)
# rsync -d deletes what the source lacks; -n is a dry run (in any cluster)
NO_N = alt(r"[^-\s]\S*", r"-[^-\sn][^\sn]*", "--" + opt(not_words(["dry-run", "help"])))
pattern(
    "storage-gsutil-rsync-delete",
    f"{GSUTIL_HEAD} rsync( {NO_N})* -[a-mo-zA-Z]*d[a-mo-zA-Z]*( {NO_N})*$",
)
pattern(
    "storage-gcloud-delete",
    f"{GCLOUD_HEAD} storage{PATH_WORDS} (rm|delete)( {NOT_HELP})*$",
)
pattern(
    "storage-gcloud-rsync-delete",
    f"{GCLOUD_HEAD} storage rsync( {not_words(['--dry-run', *HELP])})*"
    f" --delete-unmatched-destination-objects( {not_words(['--dry-run', *HELP])})*$",
)
pattern(
    "storage-az-delete",
    f"{AZ_HEAD} storage{PATH_WORDS} (delete|delete-batch|remove|purge)"
    f"( {not_words(['--dryrun', *HELP])})*$",
)
AZCOPY_RUNS = not_words(["--dry-run", *HELP])
pattern(
    "storage-azcopy-delete",
    f"^azcopy (rm|remove|sync( {AZCOPY_RUNS})* --delete-destination(=| )(?i:true))"
    f"( {AZCOPY_RUNS})*$",
)
RCLONE_RUNS = not_words(["--dry-run", "-n", "--interactive", "-i", *HELP])
pattern(
    "storage-rclone-delete",
    f"^rclone( {RCLONE_RUNS})* (purge|delete|deletefile|rmdirs?|cleanup)( {RCLONE_RUNS})*"
    f" {ELSEWHERE}( {RCLONE_RUNS})*$",
)
# rclone sync makes the destination (its second operand) match the source: files the source
# lacks are deleted there
pattern(
    "storage-rclone-sync",
    f"^rclone( {RCLONE_RUNS})* sync( {RCLONE_RUNS})* [^-\\s]\\S*( -\\S+)* {ELSEWHERE}"
    f"( {RCLONE_RUNS})*$",
)
MC_RUNS = not_words(["--dry-run", *HELP])
pattern(
    "storage-mc-delete",
    r"^mc( -\S+)* (rm|rb|admin \S+ (delete|remove|rm)|mirror"
    f"( {MC_RUNS})* --remove)( {MC_RUNS})*$",
)
S3CMD_RUNS = not_words(["--dry-run", "-n", *HELP])
pattern(
    "storage-s3cmd-delete",
    f"^s3cmd( {S3CMD_RUNS})* (del|rm|rb|delete|sync( {S3CMD_RUNS})* --delete-removed)"
    f"( {S3CMD_RUNS})*$",
)
# rsync: a delete flag (--delete, --delete-WHEN, --del, --remove-source-files) with the
# destination (the last operand) on another host or outside the project. When the flag
# follows the operands, the destination is the operand followed only by options.
RSYNC_OPTS = alt(r"-[^-\sn][^\sn]*", "--" + opt(not_words(["dry-run", "list-only"])))
RSYNC_RUNS = alt(r"[^-\s]\S*", RSYNC_OPTS)
# options after the destination, each with at most one value
RSYNC_TRAILING = f"( {RSYNC_OPTS}( [^-\\s]\\S*)?)*"
# Two patterns for each order, so that ` --del` and ` --remove-` are the literals the evaluator
# tests first (an alternation would share only ` --`).
for flag, deletes in (
    ("delete", r" --del(ete(-\S+)?)?"),
    ("remove", r" --remove-(source|sent)-files"),
):
    pattern(
        f"storage-rsync-{flag}",
        f"^rsync( {RSYNC_RUNS})*{deletes}( {RSYNC_RUNS})* {ELSEWHERE}{RSYNC_TRAILING}$",
    )
    pattern(
        f"storage-rsync-{flag}-after",
        f"^rsync( {RSYNC_RUNS})* {ELSEWHERE}{RSYNC_TRAILING}{deletes}( {RSYNC_RUNS})*$",
    )
pattern(
    "storage-sdk-delete",
    r"(?s)(\bboto3\b.*(\.delete_(bucket|objects?)\(|\.(objects|object_versions)\.(all|filter)"
    r"\([^)]*\)\.delete\(|\.Bucket\([^)]*\)\.delete\()|\bstorage\.Client\b.*\.(delete_blobs?"
    r"|delete)\()",
)
pattern(
    "storage-argv-delete",
    r"[\"'](aws|gsutil|gcloud|mc|s3cmd|azcopy)[\"'][ \t]*,[^\]\n]*[\"']"
    r"(rm|rb|delete-[a-z-]+|--delete)[\"']|[\"']rclone[\"'][ \t]*,[ \t]*[\"'](purge|delete)[\"']",
)
pattern(
    "mentions-storage-delete",
    r"\b(aws|gsutil|gcloud|az|azcopy|rclone|mc|s3cmd|rsync)\b[^\n]*(\b(rm|rb|del|delete|purge"
    r"|remove|sync|rsync)\b|--del|--remove|delete-)",
)


# ---------------------------------------------------------------------------------------------
# guard-containers, guard-kubernetes, guard-infrastructure

# A tool's global options before its subcommand, each maybe with a separate value
# (`--context prod`, `-H ssh://host`, `-chdir=infra`): the subcommand stays the literal.
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


ENGINE = rf"^(docker|podman|nerdctl){GLOBAL_OPTS}"
pattern(
    "containers-prune", after(rf"{ENGINE} (system|volume|container|image|network|pod) prune", HELP)
)
pattern("containers-volume-rm", after(rf"{ENGINE} volume (rm|remove)", HELP))
pattern("containers-reset", after(rf"^podman{GLOBAL_OPTS} system reset", HELP))
# compose takes --dry-run among its own options (`docker compose --dry-run down -v`)
COMPOSE_SAFE = ["--dry-run", "--help", "-h"]
COMPOSE_OPTS = rf"( -{not_words(['-dry-run', '-help', 'h'])}( [^-\s]\S*)?)*"
COMPOSE = (
    rf"^(docker{GLOBAL_OPTS} compose|docker-compose|podman{GLOBAL_OPTS} compose|podman-compose"
    rf"|nerdctl{GLOBAL_OPTS} compose){COMPOSE_OPTS}"
)
pattern(
    "compose-down-volumes",
    with_word(
        f"{COMPOSE} down", r"(-[a-zA-Z]*v[a-zA-Z]*|--volumes(=true)?|--rmi(=| )all)", COMPOSE_SAFE
    ),
)
pattern(
    "compose-rm-volumes",
    with_word(f"{COMPOSE} rm", r"(-[a-zA-Z]*v[a-zA-Z]*|--volumes(=true)?)", COMPOSE_SAFE),
)
CONTAINER_VERB = r"(container |image |pod )?(rm|rmi|kill|stop)"
ENGINE_NAME = r"(sudo )?(docker|podman|nerdctl)"
pattern(
    "containers-every",
    rf"{ENGINE} {CONTAINER_VERB} (.* )?(\$\(|`){ENGINE_NAME} ",
)
pattern(
    "containers-stdin",
    rf"{ENGINE} {CONTAINER_VERB}( -{not_words(['-help', 'h'])})*( {BRACED})?$",
)
pattern(
    "containers-all-flag",
    rf"^(podman|nerdctl){GLOBAL_OPTS} {CONTAINER_VERB} (.* )?(-[a-zA-Z]*a[a-zA-Z]*|--all)( |$)",
)
pattern(
    "mentions-containers",
    r"\b(prune|volume\s+(rm|remove)|system\s+reset)\b|\bdown\b[^\n]*(\s-[a-z]*v|--volumes|--rmi)"
    r"|\b(rm|kill|stop)\b[^\n]*(\$\(|`)\s*(docker|podman|nerdctl)\s",
)

KUBE = rf"^(kubectl|oc|kubecolor|microk8s kubectl|k3s kubectl){GLOBAL_OPTS}"
KUBE_SAFE = ["--dry-run", "--dry-run=client", "--dry-run=server", "--help", "-h"]
# kinds whose deletion loses data or takes many things with it; a pod, a job, a service or a
# config map by name is routine (recreated from its manifest or controller)
KIND = alt(
    "ns",
    "namespaces?",
    "projects?",
    "all",
    "deploy",
    "deployments?",
    "sts",
    "statefulsets?",
    "ds",
    "daemonsets?",
    "cj",
    "cronjobs?",
    "pvc",
    "persistentvolumeclaims?",
    "pv",
    "persistentvolumes?",
    "secrets?",
    "crds?",
    "customresourcedefinitions?",
    "no",
    "nodes?",
    "sc",
    "storageclass(es)?",
)
KIND_WORD = rf"(\S*,)?{KIND}(\.[a-z0-9.]*)?(,\S*)?(/\S*)?"
KUBE_WIDE = (
    r"(-[AfkR]\S*|--filename(=\S*)?|--kustomize(=\S*)?|--recursive(=true)?|--all(=true)?"
    r"|--all-namespaces(=true)?|--raw(=\S*)?|--force(=true)?)"
)
pattern("kubectl-delete", with_word(f"{KUBE} delete", alt(KIND_WORD, KUBE_WIDE), KUBE_SAFE))
pattern(
    "kubectl-delete-stdin",
    rf"{KUBE} delete( -{not_words([s[1:] for s in KUBE_SAFE])})*$",
)
pattern("kubectl-drain", after(f"{KUBE} drain", KUBE_SAFE))
pattern("kubectl-scale-zero", with_word(f"{KUBE} scale", r"--replicas(=| )0", KUBE_SAFE))
pattern("kubectl-replace-force", with_word(f"{KUBE} replace", r"--force(=true)?", KUBE_SAFE))
pattern("kubectl-apply-prune", with_word(f"{KUBE} apply", r"--prune(=true)?", KUBE_SAFE))
pattern("kubectl-taint-noexecute", rf"{KUBE} taint (.* )?\S*:NoExecute( |$)")
HELM_SAFE = ["--dry-run", "--dry-run=client", "--dry-run=server", "--help", "-h"]
pattern("helm-uninstall", after(rf"^helm{GLOBAL_OPTS} (uninstall|delete|del|un)", HELM_SAFE))
pattern("helmfile-destroy", after(rf"^helmfile{GLOBAL_OPTS} (destroy|delete)", HELM_SAFE))
pattern("cluster-delete", after(rf"^(minikube|k3d cluster){GLOBAL_OPTS} delete", HELP))
pattern("cluster-delete-named", after(rf"^(kind|eksctl){GLOBAL_OPTS} delete clusters?", HELP))
pattern(
    "mentions-kubernetes",
    r"\b(kubectl|oc|helm|helmfile)\b[^\n]*"
    r"\b(delete|drain|uninstall|destroy|--replicas[= ]0|--prune|NoExecute)\b"
    r"|\b(minikube|kind|k3d|eksctl)\b[^\n]*\bdelete\b",
)

TF = rf"^(terraform|tofu|terragrunt|atmos (terraform|tf)){GLOBAL_OPTS}"
TF_RUN = r"( run-all| run( -\S+)*( --)?)?"  # terragrunt's run-all / run --all [--] COMMAND
TF_HELP = ["-help", "--help", "-h"]
pattern("terraform-destroy", after(f"{TF}{TF_RUN} (destroy|destroy-all)", TF_HELP))
pattern("terraform-apply-destroy", with_word(f"{TF}{TF_RUN} apply", r"--?destroy(=true)?", TF_HELP))
pattern(
    "terraform-auto-approve",
    with_word(f"{TF}{TF_RUN} (apply|deploy)", r"--?auto-approve(=true)?", TF_HELP),
)
pattern("atmos-deploy", after(rf"^atmos (terraform|tf){GLOBAL_OPTS} deploy", TF_HELP))
pattern(
    "terragrunt-non-interactive",
    r"^terragrunt (.* )?apply( .*)? --(terragrunt-)?non-interactive(=true)?( |$)"
    r"|^terragrunt (.* )?--(terragrunt-)?non-interactive(=true)? (.* )?apply( |$)",
)
TF_STATE_SAFE = ["-dry-run", "--dry-run", *TF_HELP]
pattern("terraform-state-rm", after(f"{TF} state (rm|remove)", TF_STATE_SAFE))
pattern("terraform-workspace-delete", after(f"{TF} workspace delete", TF_HELP))
pattern("terraform-apply", r"^(terraform|tofu|terragrunt)( \S+)* apply( |$)")
# an approval the command supplies itself: TF_CLI_ARGS[_apply] holding -auto-approve, or a
# `yes` piped in (the assignment and the pipe's left side are elements of their own)
pattern(
    "approval-supplied",
    r"^(TF_CLI_ARGS(_apply)?=(.* )?--?auto-approve(=true)?"
    r"|yes|(echo|printf)( -\S+)* (yes|y)(\\n)?)( |$)",
)
PULUMI = rf"^pulumi{GLOBAL_OPTS}"
pattern(
    "pulumi-destroy",
    after(f"{PULUMI} (destroy|down)", [*HELP, "--preview-only", "--preview-only=true"]),
)
pattern(
    "pulumi-up-yes",
    with_word(f"{PULUMI} (up|update)", r"(--yes(=true)?|-[a-zA-Z]*y[a-zA-Z]*)", HELP),
)
pattern("pulumi-stack-rm", after(f"{PULUMI} stack (rm|remove)", HELP))
pattern("pulumi-state-delete", after(f"{PULUMI} state (delete|rm)", HELP))
pattern("cdk-destroy", after(rf"^(cdk|cdktf){GLOBAL_OPTS} destroy", HELP))
pattern(
    "cdk-deploy-unapproved",
    with_word(rf"^cdk{GLOBAL_OPTS} deploy", r"--require-approval(=| )never", HELP),
)
pattern(
    "cdktf-auto-approve",
    with_word(rf"^cdktf{GLOBAL_OPTS} (deploy|apply)", r"--auto-approve(=true)?", HELP),
)
pattern("serverless-remove", after(rf"^(serverless|sls){GLOBAL_OPTS} remove", HELP))
pattern("sam-delete", after(rf"^sam{GLOBAL_OPTS} delete", HELP))
pattern(
    "mentions-infrastructure",
    r"\b(destroy|auto-approve|destroy-all)\b|\bstate\s+(rm|remove|delete)\b|\bworkspace\s+delete\b"
    r"|\bstack\s+(rm|remove)\b|--require-approval[= ]never|\b(serverless|sls)\b[^\n]*\bremove\b"
    r"|\bsam\b[^\n]*\bdelete\b|TF_CLI_ARGS",
)

# ---------------------------------------------------------------------------------------------
# guard-databases

# What a client is about to run, read from the start of its SQL (shell.code) or of the
# command (shell.commands): a statement keyword counts only outside a '…' string literal.
# Servers disagree on whether a backslash escapes a quote (MySQL yes, PostgreSQL no), so a
# keyword counts when it is outside a literal under either reading; `EXECUTE 'DROP …'` and
# `EXECUTE format('DROP …')` run their literal, so a literal after EXECUTE is read as SQL.
SQL_OUTSIDE = alt(r"([^']|'[^']*')*", r"([^']|'([^'\\]|\\.)*')*")
SQL_EXECUTE = opt(r"\bexec(ute)?(\s+immediate)?\s*\(?\s*(format\s*\(\s*)?[eE]?'\s*")
SQL_PREFIX = SQL_OUTSIDE + SQL_EXECUTE
# Objects whose DROP loses rows or what holds them (a role drops its grants and what it
# owns); a view, index, function or sequence is a definition a migration recreates.
SQL_DROP = r"\bdrop\s+(table|database|schema|keyspace|user|role|owned)\b"
SQL_DROP_CASCADE = r"\bdrop\s+[a-z]+(\s+[a-z]+)?\s+[^;]*\bcascade\b"
SQL_TRUNCATE = r"\btruncate\s+[a-z_\"`\[]"


def avoiding(word: str, extra: str = "") -> str:
    """Text (none of the characters in `extra`) that does not contain `word`: a loop over
    the automaton that spots `word`, for a word no proper prefix of which is also a suffix
    and whose first letter does not come back (`where`)."""
    first = word[0]
    assert first not in word[1:], word
    back = alt(*[word[1:i] + first for i in range(1, len(word))])  # back to "seen the 1st"
    out = alt(*[word[1:i] + f"[^{word[i]}{first}{extra}]" for i in range(1, len(word))])
    loop = alt(f"[^{first}{extra}]", f"{first}{back}*{out}")
    tail = opt(first + back + "*" + opt(alt(*[word[1:i] for i in range(2, len(word))])))
    return f"{loop}*{tail}"


# DELETE FROM t with no WHERE before the statement ends (`;` or the end), or WHERE true.
SQL_DELETE_ALL = alt(
    r"\bdelete\s+from\s+[^;\s]+" + avoiding("where", ";") + "(;|$)",
    r"\bdelete\s+from\s+[^;\s]+[^;]*\bwhere\s+(1\s*=\s*1|true)\s*(;|$)",
)
SQL_CLIENTS_READ = r"^(psql|mysql|mariadb|sqlite3|duckdb)( |$)"  # shell.code holds their SQL
SQL_CLIENTS_OTHER = (
    r"^(\S*/)?(pgcli|mycli|mysqlsh|litecli|sqlite|usql|ysqlsh|cockroach( .*)? sql|clickhouse-client"
    r"|clickhouse( client| local)?|chdb|cqlsh|sqlcmd|snowsql|trino|presto|spark-sql|beeline"
    r"|hive|impala-shell|vsql|isql|bq( .*)? query|wrangler( .*)? d1 execute|turso( .*)? db shell)"
)
pattern("sql-code-drop", f"(?i)^{SQL_PREFIX}{SQL_DROP}")
pattern("sql-code-drop-cascade", f"(?i)^{SQL_PREFIX}{SQL_DROP_CASCADE}")
pattern("sql-code-truncate", f"(?i)^{SQL_PREFIX}{SQL_TRUNCATE}")
pattern("sql-code-delete-all", f"(?i)^{SQL_PREFIX}{SQL_DELETE_ALL}")
pattern("sql-clients-read", SQL_CLIENTS_READ)
pattern("sql-other-drop", f"(?i){SQL_CLIENTS_OTHER} {SQL_PREFIX}{SQL_DROP}")
pattern("sql-other-drop-cascade", f"(?i){SQL_CLIENTS_OTHER} {SQL_PREFIX}{SQL_DROP_CASCADE}")
pattern("sql-other-truncate", f"(?i){SQL_CLIENTS_OTHER} {SQL_PREFIX}{SQL_TRUNCATE}")
pattern("sql-other-delete-all", f"(?i){SQL_CLIENTS_OTHER} {SQL_PREFIX}{SQL_DELETE_ALL}")
pattern("sql-other-client", SQL_CLIENTS_OTHER + "( |$)")
# Their stdin is not analysed: the raw text, when it feeds a heredoc, herestring or pipe.
pattern(
    "sql-other-stdin-drop",
    r"(?i)\b(drop\s+(table|database|schema|keyspace)\b|truncate\s+[a-z_\"`\[])",
)

NOT_HELP = not_words(["--help", "-h"])
OPERAND_NOT_OPTION = r"(.* )?[^-\s]\S*( |$)"  # a database named: `dropdb --help` is not one
pattern("dropdb", rf"^dropdb {OPERAND_NOT_OPTION}")
pattern("dropuser", rf"^dropuser {OPERAND_NOT_OPTION}")
pattern("pg-dropcluster", rf"^pg_dropcluster {OPERAND_NOT_OPTION}")
pattern("mysqladmin-drop", r"^mysqladmin (.* )?drop( |$)")
pattern("mongorestore-drop", r"^mongorestore (.* )?--drop( |$)")
PG_CLEAN = r"(-c|-cC|-Cc|--clean)"
PG_DB = r"(-d\S*|--dbname\S*)"
pattern(
    "pg-restore-clean",
    rf"^pg_restore (.* )?({PG_CLEAN} (.* )?{PG_DB}|{PG_DB} (.* )?{PG_CLEAN})( |$)",
)
pattern("mongo-client", r"^(\S*/)?mongo(sh)?( |$)")
pattern(
    "mongo-drop",
    r"dropDatabase\(|dropCollection\(|\.drop\(\s*\)|\.(deleteMany|remove)\(\s*(\{\s*\})?\s*\)",
)
pattern("redis-client", r"^(\S*/)?(redis|valkey|keydb)-cli( |$)")
pattern("redis-flush", r"(?i)\bflush(all|db)\b")

# Framework tasks that drop, wipe or recreate a database (their own docs say so).
pattern(
    "rails-db-drop",
    r"^(\S*/)?(rails|rake) (.* )?db:(drop|reset|purge|truncate_all|schema:load|structure:load"
    rf"|migrate:reset|seed:replant)(:\S+)?( {NOT_HELP})*$",
)
pattern(
    "django-flush",
    r"^((\S*/)?python[0-9.]* (-m django|(\S*/)?manage\.py)|(\S*/)?manage\.py|(\S*/)?django-admin)"
    rf" (.* )?(flush|reset_db|migrate \S+ zero)( {NOT_HELP})*$",
)
pattern(
    "js-migrate-reset",
    # `yarn prisma …`, `pnpm knex …`, `bun x …` run the project's bin (npx is unwrapped)
    r"^(\S*/)?((yarn|pnpm|bun)( run| exec| x)? )?"
    r"(prisma (.* )?(migrate reset|db push (.* )?(--force-reset|--accept-data-loss))"
    r"|knex (.* )?migrate:rollback (.* )?--all|sequelize(-cli)? (.* )?db:(drop|migrate:undo:all)"
    rf"|typeorm\S* (.* )?schema:drop)( {NOT_HELP})*$",
)
pattern(
    "other-migrate-reset",
    r"^(\S*/)?(php (\S*/)?artisan (.* )?(migrate:fresh|migrate:reset|migrate:refresh|db:wipe)"
    r"|php (\S*/)?(bin/)?console (.* )?doctrine:(database|schema):drop (.* )?(--force|-f)"
    r"|(alembic|flask db) (.* )?downgrade base"
    r"|mix (ecto\.drop|ecto\.reset|ecto\.rollback (.* )?--all)"
    r"|supabase (.* )?db reset|dotnet ef (.* )?database (drop|update 0)|flyway (.* )?clean"
    rf"|liquibase (.* )?(drop-all|dropAll)|goose (.* )?reset|dbmate (.* )?drop)( {NOT_HELP})*$",
)
# Interpreter code (shell.code) that runs a drop: a SQL string handed to a driver (also through
# SQLAlchemy text(), Prisma $executeRaw, Ruby's paren-less calls), or an API that drops or
# empties: a table (drop_all, dropTable, drop_table), a database or collection (pymongo,
# mongoose), every key (flushall), every row (deleteMany({}), objects.all().delete(),
# query(M).delete(), Model.delete_all, sync({force: true}), truncate: true).
DRIVER_CALL = (
    r"\.\$?(execute|executescript|executemany|exec|query|run|raw|sql|unsafe|prepare"
    r"|executeRaw|executeRawUnsafe|queryRaw|queryRawUnsafe)\s*\(?\s*((sa\.|sqlalchemy\.)?text\(\s*)?"
    r"[rbuf]?[\"'`]\s*"
)
SQL_IN_STRING = (
    r"(?i:drop\s+(table|database|schema)\b|truncate\s+[a-z_\"`]"
    r"|delete\s+from\s+[\w.\"`]+\s*;?\s*[\"'`]\s*[,)])"
)
DROP_API = alt(
    r"\b(drop_all|drop_database|drop_collection|drop_table|dropDatabase|dropCollection"
    r"|dropAllTables|dropTable|dropTableIfExists)\s*[(\s]",
    r"\.(?i:flushall|flushdb)\(",
    r"\.(delete_many|deleteMany|remove)\(\s*\{\s*\}\s*\)|\.deleteMany\(\s*\)|\.drop\(\s*\)",
    r"\b[A-Z]\w*\.objects\.all\(\)\.delete\(\)|\.query\([^()]*\)\.delete\(\)",
    r"\b[A-Z]\w*\.(delete_all|destroy_all)\b",
    r"\.sync\(\s*\{\s*force\s*:\s*true|\btruncate\s*:\s*true",
)
pattern("drop-in-code", DRIVER_CALL + SQL_IN_STRING + "|" + DROP_API)
pattern(
    "mentions-database",
    r"(?i)drop\s+(table|database|schema)|truncate\s|\bdelete\s+from\b|dropdb|flushall|flushdb"
    r"|dropDatabase|db:drop|migrate reset",
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
