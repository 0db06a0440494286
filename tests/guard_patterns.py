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
BRACED = r"(\{[^}\s]*\}|%)"  # an xargs/parallel placeholder: {}, {.}, {/}, %

PATTERNS: dict[str, str] = {}


def pattern(name: str, text: str) -> None:
    assert name not in PATTERNS, name
    PATTERNS[name] = text


# ---------------------------------------------------------------------------------------------
# guard-destructive


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
