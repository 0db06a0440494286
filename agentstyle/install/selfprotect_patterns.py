"""The regular expressions of the self-protection rules, built from readable parts.

They run as RE2 (DuckDB's `regexp_matches`) on the shell analysis's fields (docs/design/shell.md):
`shell.commands` holds one element per simple command, quotes removed and words joined by one
space, redirections kept after the words (`echo {} > .claude/settings.json`); `shell.code` the
program text handed to interpreters; `file.path` a normalized path, relative to the session's
folder when inside it. RE2 has no look-around, and a condition on a list field holds when any
element matches, so "a command other than cat" is spelled as the complement of a word list
(`not_words`), never as a second, negated condition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agentstyle.harnesses import HARNESSES
from agentstyle.install.protected import Item


def _words(text: str) -> list[str]:
    return text.split()


# A shell word, and the characters of one path component in it.
WORD = r"\S"
COMP = r"[^/\s]"
# Between two components of a path as written: `/`, `//`, `/./`.
SEP = r"/+(\./+)*"
# A word that names a path ends at a space or the element's end (a substitution written as is,
# `$(which style-hook)`, ends in `)`; `\x22`/`\x27` are quotes left in code-like words).
END = r"[)\x22\x27]*( |$)"
# What may stand in front of a path in one word: `of=`, `--file=`, `UNIX-CONNECT:`, `@`.
LEAD = r"(\S*[=:@])?"
# A quote, a backquote or a bracket: where a string literal starts or ends in code.
QUOTE = r"[\x22\x27\x60]"
# A variable naming the project folder in a harness's hooks (`$CLAUDE_PROJECT_DIR`).
PROJECT_VARIABLE = (
    r"\$\{?("
    + "|".join(h.project_dir_env for h in HARNESSES.values() if h.project_dir_env)
    + r")\}?"
)

# Programs that never write the files they name (or whose writing forms have their own
# pattern below: `sed -i`, `sort -o`, `find -delete`, a copy's destination, git's subcommands,
# STYLE's own commands). Everything else that names a guarded path is refused: an unknown
# program is assumed to write.
READERS = _words(
    "cat tac head tail less more most bat batcat nl od hexdump hd strings wc file stat ls dir "
    "vdir exa eza lsd tree du readlink realpath basename dirname test [ [[ echo printf grep "
    "egrep fgrep zgrep rg ag ack diff diff3 cmp comm sdiff colordiff icdiff delta jq gron "
    "md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum shasum md5 sort cut "
    "paste column fold fmt expand unexpand join tr rev pr look awk gawk mawk nawk sed gsed find "
    "cd pushd popd source . type which whereis lsattr getfacl namei lsof true false : "
    # copies: only the destination is written (COPIERS)
    "cp gcp rsync scp install ditto "
    # git and STYLE: their own patterns
    "git style agentstyle style-hook "
    # wrappers: the command they run is an element of its own, judged by itself
    "sudo doas env nice nohup timeout time stdbuf ionice setsid taskset chrt xargs parallel "
    "strace ltrace exec builtin command busybox bash sh zsh dash ksh mksh ash fish eval su "
    "runuser sg npx uvx uv poetry pipx bundle pnpm yarn watch tmux ssh nix-shell hyperfine"
)
# Interpreters, named with any version (`python3.12`): their `-m agentstyle` is STYLE's own
# command line, their code is judged in `shell.code`; a script given a guarded path is not.
VERSIONED = ("python",)
COPIERS = "(cp|gcp|rsync|scp|install|ditto)"
# git subcommands that never change the working tree or the index's files.
GIT_READERS = _words(
    "status diff log show blame annotate add commit grep ls-files ls-tree cat-file rev-parse "
    "describe shortlog check-ignore check-attr whatchanged show-ref for-each-ref branch tag "
    "fetch push remote diff-tree diff-files diff-index name-rev reflog range-diff help version"
)
GIT_OPTS = r"( -[Cc] \S+| --[a-z][-a-z]*=\S+| --[a-z][-a-z]*| -[^Cc\s]\S*)*"
# Options whose value is a file the command writes.
OUTPUT_OPTIONS = (
    r"(-o|-O|-t|-out|--out|--output|--output-file|--output-document|--into|--log-file"
    r"|--target-directory)"
)
# Interpreter code that writes, moves, deletes, locks or connects to what it names.
WRITE_API = (
    r"(\.write(_text|_bytes|lines)?\s*\(|\bwriteFile(Sync)?\b|\bappendFile(Sync)?\b"
    r"|\bcreateWriteStream\b|\bfwrite\b|\bfile_put_contents\b|\bFile\.(write|delete|rename)\b"
    r"|\bIO\.write\b|\bFileUtils\b|\bos\.(remove|unlink|rmdir|removedirs|rename|renames|replace"
    r"|truncate|chmod|chown|symlink|link|mkdir|makedirs|kill)\b|\.unlink\s*\(|\bunlinkSync\b"
    r"|\brmtree\b|\brmSync\b|\bfs\.(rm|cp|rename|unlink|truncate|symlink|chmod|mkdir)\w*"
    r"|\.rename\s*\(|\.(symlink_to|hardlink_to|touch|mkdir|rmdir|chmod)\s*\(|\btruncateSync\b"
    r"|\bshutil\.(copy\w*|move|rmtree|chown)\b|\bcopyfile\b|\bcopytree\b|\bflock\b|\blockf\b"
    r"|\bfcntl\b|\.connect\s*\(|\bsqlite3\b|\bduckdb\b|\bunlink\b|\bos\.(system|popen|exec\w*"
    r"|spawn\w*)\b|\bPopen\b|\bsystem\s*\("
    # a mode string that opens for writing: 'w', "a+", 'wb', "r+"; Perl's '>' and '>>'
    rf"|{QUOTE}[rbt]*[wax+][rwxabt+]*{QUOTE}|{QUOTE}\+?>>?)"
)


def esc(text: str) -> str:
    """A literal for RE2 (only what needs escaping, so the patterns stay readable)."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


def alt(parts: Iterable[str]) -> str:
    items = list(dict.fromkeys(parts))
    return items[0] if len(items) == 1 else "(" + "|".join(items) + ")"


def not_words(words: Iterable[str], versioned: Sequence[str] = (), char: str = COMP) -> str:
    """A command name (one or more `[^/\\s]`) that is none of `words`, nor one of
    `versioned` followed by digits and dots only: the complement, built from a trie.

    "Differs at some letter, or stops early, or goes on after the whole word": for {ab} it is
    `([^a/\\s][^/\\s]*|a([^b/\\s][^/\\s]*|b[^/\\s]+)?)`.
    """
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    loops: set[int] = set()
    for word in [*words, *versioned]:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
        if word in versioned:
            loops.add(id(node))
    star, plus = char + "*", char + "+"
    stop = "/\\s" if char == COMP else "\\s"

    def differs(letters: list[str]) -> str:
        excluded = "".join("\\" + ch if ch in "]\\^-[" else ch for ch in letters)
        return f"[^{excluded}{stop}]{star}"

    def below(node: dict) -> str:  # type: ignore[type-arg]
        letters = sorted(k for k in node if k)
        if id(node) in loops:
            assert not letters, "a versioned word must not begin another word"
            return f"([0-9.]*[^0-9.{stop}]{star})"  # python3.12 is in the set, python3x is not
        terminal = "" in node
        if not letters:
            return plus
        branches = [differs(letters)] + [esc(ch) + below(node[ch]) for ch in letters]
        body = "(" + "|".join(branches) + ")"
        return body if terminal else body + "?"

    letters = sorted(k for k in trie if k)
    return "(" + "|".join([differs(letters)] + [esc(ch) + below(trie[ch]) for ch in letters]) + ")"


NOT_READER = not_words(READERS, VERSIONED)
# What `find -exec` may run on a guarded path: a short list keeps the package small.
NOT_FIND_READER = not_words(
    _words("cat head tail grep egrep fgrep rg ls stat wc file md5sum sha256sum sha1sum jq echo")
)
NOT_GIT_READER = not_words(GIT_READERS)
# The command name of an element, by path or not (`/usr/bin/rm` is also recorded as `rm`).
NAME = r"^(\S*/)?"


# ---------------------------------------------------------------------------------------------
# Paths.


def component(part: str, char: str = COMP) -> str:
    """One path component; `*` in an item's path stands for any characters of one component."""
    return f"{char}*".join(esc(p) for p in part.split("*"))


def absolute(path: str, sep: str = SEP) -> str:
    """An absolute path as written: any number of `/` (and `/./`) between its components."""
    parts = [component(p) for p in path.split("/") if p]
    return "/+" + sep.join(parts) if parts else "/+"


class Places:
    """How the install root and the home folder may be written in front of a relative path."""

    def __init__(self, roots: Sequence[str], home: str) -> None:
        self.roots = list(roots)
        self.home = home

    def root_prefix(self) -> str:
        """In front of a project-relative path: nothing, `./`, `$PWD/`, the project's absolute
        path, `~/…` when it is under the home folder, or any path through `..`."""
        forms = [absolute(r) for r in self.roots]
        forms += [r"\$\{?PWD\}?", r"\$\(pwd\)", PROJECT_VARIABLE]
        for r in self.roots:
            rel = _under(r, self.home)
            if rel:
                forms.append(r"(~|\$\{?HOME\}?)/+" + SEP.join(component(p) for p in rel))
        return rf"(\./+)*({alt(forms)}{SEP}|\S*/\.\./+)?"

    def home_forms(self, path: str) -> list[str]:
        rel = _under(path, self.home)
        return [r"(~|\$\{?HOME\}?)/+" + SEP.join(component(p) for p in rel)] if rel else []


def _under(path: str, folder: str) -> list[str] | None:
    folder = folder.rstrip("/")
    if folder and path.startswith(folder + "/"):
        return [p for p in path[len(folder) + 1 :].split("/") if p]
    return None


def _kind_end(kind: str) -> str:
    """After a path in a shell word: the folder itself may end in `/` or `/.`; a folder that is
    only guarded as a whole is also named through `..` (`.claude/x/../settings.json`); a tree
    covers everything below it."""
    if kind == "file":
        return ""
    if kind == "folder":
        return r"((/+\.?)*|/\S*/\.\.(/\S*)?)"
    return r"(/\S*)?"


def word(item: Item, places: Places) -> str:
    """One shell word naming `item` (without the word's start and end)."""
    tail = SEP.join(component(p) for p in item.parts)
    if item.anchor == "loose":
        head = r"(\S*/)?"
    elif item.anchor == "root":
        head = places.root_prefix()
    else:
        forms = [absolute(item.path), *places.home_forms(item.path)]
        return LEAD + alt(forms) + _kind_end(item.kind)
    return LEAD + head + tail + _kind_end(item.kind)


def words(items: Sequence[Item], places: Places) -> str:
    """A word naming any of `items`, from its start: ` WORD` follows a space or starts an
    element."""
    return alt(word(i, places) for i in items)


def file_path(items: Sequence[Item], places: Places) -> str:
    """`file.path` (normalized: no `./`, `//` or `..`) naming any of `items`."""
    forms = []
    roots = alt(esc(r) for r in places.roots)
    for item in items:
        tail = "/".join(component(p, "[^/]") for p in item.parts)
        end = {"file": "", "folder": "/?", "tree": "(/.*)?"}[item.kind]
        if item.anchor == "loose":
            forms.append(f"(.*/)?{tail}{end}")
        elif item.anchor == "root":
            forms.append(f"({roots}/)?{tail}{end}")
        else:
            forms.append("/".join(component(p, "[^/]") for p in item.path.split("/")) + end)
    return "^" + alt(forms) + "$"


def code_path(items: Sequence[Item], places: Places) -> str:
    """A guarded path as it appears in program text: in a string literal, or built from
    literals (`os.path.join('.claude', 'settings.json')`, `Path('.style') / 'style.duckdb'`)."""
    sep = rf"(/+|{QUOTE}\)?\s*[,/+]\s*(Path\()?{QUOTE}/*)"
    forms = []
    for item in items:
        if item.anchor == "abs":
            forms.append(absolute(item.path, sep).replace(COMP, r"[^/\s\x22\x27\x60]"))
            continue
        tail = sep.join(component(p, r"[^/\s\x22\x27\x60]") for p in item.parts)
        if item.anchor == "loose":
            forms.append(rf"(^|[^\w.-]){tail}")
        else:
            forms.append(rf"({QUOTE}|\./|{alt(esc(r) for r in places.roots)}/){tail}")
    end = r"([\x22\x27\x60\s),;/]|$)"
    return alt(forms) + end


# ---------------------------------------------------------------------------------------------
# Shell elements that write what a word names.


def writes(target: str) -> list[tuple[str, str]]:
    """(what it catches, regex over one `shell.commands` element) for every way a command
    writes the paths `target` (a word regex, see `words`) names."""
    t = f"{target}{END}"
    sed_i = r"(-[a-zA-Z]*i\S*|--in-place\S*)"
    awk_i = r"(-i inplace|--inplace\S*)"
    action = rf"-(delete|fprint0?|fprintf|fls|(exec|execdir|ok|okdir) (\S*/)?{NOT_FIND_READER})"
    # Alternatives that end in the same target share one regex (the package stays small).
    return [
        (
            "a program other than a reader names it, a redirection or an output option",
            rf"({NAME}{NOT_READER}( \S+)* |(^| )[0-9]*(>|>>|>\||<>|&>|&>>) "
            rf"|(^| ){OUTPUT_OPTIONS}(=| )?){t}",
        ),
        ("a copy's destination", rf"{NAME}{COPIERS}( \S+)* {target}[)\x22\x27]*$"),
        (
            "sed -i, awk -i inplace",
            rf"{NAME}(g?sed( \S+)* {sed_i}|[gmn]?awk( \S+)* {awk_i})( \S+)* {t}"
            rf"|{NAME}(g?sed|[gmn]?awk)( \S+)* {target}( \S+)* ({sed_i}|{awk_i})( |$)",
        ),
        ("find -delete or -exec", rf"{NAME}find( \S+)* {target}( \S+)* {action}( |$)"),
        (
            "git that changes files, or git -C into it",
            rf"{NAME}git{GIT_OPTS} ({NOT_GIT_READER}( \S+)* {t}"
            rf"|-C {target}{GIT_OPTS} {NOT_GIT_READER}( |$))",
        ),
    ]


# A shell call that only reads: one simple command of a short list, no operator, redirection
# or substitution (`cat settings.json`, `ls -la`).
PLAIN_READ = (
    r"^\s*(\S*/)?(cat|head|tail|less|more|ls|stat|wc|file|grep|egrep|fgrep|rg|jq|diff|du|tree"
    r"|pwd|echo|printf|readlink|realpath|md5sum|sha1sum|sha256sum)( [^;&|<>\x60$()\n]*)?\s*$"
)


def raw_redirect(target: str) -> str:
    """A redirection in the raw command text (a bare `> FILE` runs no command, so no element
    records it)."""
    return rf"(^|[\s;&|(){{}}])[0-9]*(>|>>|>\||&>)\s*{target}([\s;&|)]|$)"


def holder(folders: Sequence[str], places: Places) -> str:
    """A word naming the project folder, the home folder or a folder above them: `.`, `..`,
    `./`, `~`, `$HOME`, `$PWD`, `/`, their absolute paths, `../proj`."""
    tail = r"(/+\.)*/*"
    forms = [r"\.\.?(/+\.\.?)*", r"~", r"\$\{?HOME\}?", r"\$\{?PWD\}?", r"\$\(pwd\)", ""]
    forms.append(PROJECT_VARIABLE)
    forms += [absolute(folder) for folder in folders]
    for r in places.roots:
        parts = [p for p in r.split("/") if p]
        for k in range(1, len(parts) + 1):
            forms.append(r"(\.\./+)+" + SEP.join(component(p) for p in parts[-k:]))
        rel = _under(r, places.home)
        if rel:
            for k in range(1, len(rel) + 1):
                forms.append(r"(~|\$\{?HOME\}?)/+" + SEP.join(component(p) for p in rel[:k]))
    return LEAD + alt(f for f in forms if f) + tail if forms else LEAD + tail


def glob_may_match(names: Sequence[str]) -> str:
    """A `find -name` pattern that matches one of `names`: the name, `*`, `*SUFFIX`,
    `PREFIX*`."""
    forms = [r"\*+"]
    for name in names:
        forms.append(esc(name))
        forms += [r"\*+" + esc(name[i:]) for i in range(1, len(name))]
        forms += [esc(name[:i]) + r"\*+" for i in range(1, len(name))]
    return alt(forms)


def holder_writes(
    folder: str, top_names: Sequence[str], basenames: Sequence[str]
) -> list[tuple[str, str]]:
    """Elements that delete, move or overwrite a folder holding guarded files."""
    f = f"{folder}{END}"
    tops = alt(esc(n) for n in top_names)
    contents = r"\S*/(\.|\*|\.\*|\.\[\S*)"
    tests = not_words(
        ["-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"],
        char=WORD,
    )
    action = rf"-(delete|(exec|execdir|ok|okdir) (\S*/)?{NOT_FIND_READER})"
    names = glob_may_match(basenames)
    return [
        (
            "removed or made unreadable",
            rf"{NAME}(rm|rmdir|unlink|shred|srm|trash|trash-put|chmod|chown|chgrp|chattr|setfacl)"
            rf"( \S+)* {f}",
        ),
        ("moved away", rf"{NAME}mv( \S+)* {folder}( \S+)+$"),
        (
            "overwritten by a copy of a folder's contents",
            rf"{NAME}({COPIERS}|mv|ln)( \S+)* ({contents}|(\S*/)?{tops}/*)( \S+)* {folder}$",
        ),
        ("overwritten by rsync of a folder", rf"{NAME}rsync( \S+)* \S*/( \S+)* {folder}$"),
        ("emptied by find", rf"{NAME}find( \S+)* {folder}( {tests})* {action}( |$)"),
        (
            "guarded names deleted by find",
            rf"{NAME}find( \S+)* {folder}( \S+)* -(i?name|i?path|i?wholename) (\S*/)?{names}"
            rf"( \S+)* {action}( |$)",
        ),
    ]
