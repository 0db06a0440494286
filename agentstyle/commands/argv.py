"""Read one simple command's words the way its program does (docs/design/commands.md#reading).

With a grammar: subcommand words, options in one canonical spelling (clusters split,
abbreviations resolved where the program accepts them, `--opt=value`, `-ovalue` and `-o value`
read as the option with its value, every spelling of an option as its first long name) and
operands with their roles. Without one, a generic split that still tells options from operands:
`--name=value` and `--name`, clusters both whole and split, and a next word that may be an
option's value kept as an operand too (the rule sees both readings).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentstyle.commands.grammar import Grammar, Node, Option

# Values that turn an option off: `--dry-run=none` (kubectl) runs for real.
_NOT_SET = frozenset({"none", "false", "0", "no", "off"})
# A flag given one of these (`--all=false`, `--volumes=f`: Go's pflag reads a boolean flag's
# attached value with strconv.ParseBool) is not set. A program that takes no value for a flag
# refuses the word and runs nothing, so reading it as not set is right there too.
_FALSE = _NOT_SET | frozenset({"f"})
# Leading words of a program without a grammar that may be its subcommand (`deploy.sh prod`).
GENERIC_HEAD_WORDS = 3


@dataclass(slots=True)
class Parsed:
    """What one command's words are, as its program reads them."""

    words: list[str]  # the program and its canonical subcommand words: ["git", "clean"]
    heads: list[str]  # the command names a rule may use: "git", "git clean"
    options: list[tuple[str, str | None]] = field(default_factory=list)  # canonical, value
    operands: list[tuple[str, str]] = field(default_factory=list)  # (word, role)
    option_values: list[tuple[str, str, str]] = field(default_factory=list)  # name, value, role
    does_nothing: list[str] = field(default_factory=list)  # options that make it do nothing
    grammar: str | None = None  # the family file read, or None (the generic split)
    ambiguous: list[str] = field(default_factory=list)  # abbreviations of several options
    flags: set[str] = field(default_factory=set)  # attributes of the options given (`listen`)
    program_from_stdin: bool = False  # it runs the program its stdin gives (`bash`, `python -`)
    saves_urls: bool = False  # it saves each URL to a file named after it (`curl -O`, `wget`)
    # it reads the files under the folders it reads (`grep -r`, `rg`), hidden ones too or not,
    # and the file globs that narrow which
    recursive: bool = False
    hidden: bool = True
    includes: list[str] = field(default_factory=list)
    excludes: list[str] = field(default_factory=list)
    hostpaths: bool = False  # its paths may be on another machine (`host:path`: rsync, scp)
    into: str | None = None  # its sources land in a destination folder (grammar key `into`)
    unfollowed: bool = False  # a link it deletes is the link itself (grammar key `unfollowed`)
    targeted: bool = False  # a `target` option names the destination folder (`cp -t DIR`)
    appended: str = "path"  # the role of a word added after its operands (what xargs appends)


def read_words(program: str, args: list[str], grammar: Grammar | None) -> Parsed:
    """`args` are the words after the program name."""
    if grammar is None:
        return _generic(program, args)
    return _Reader(program, args, grammar).read()


class _Reader:
    def __init__(self, program: str, args: list[str], grammar: Grammar) -> None:
        self.args = args
        self.i = 0
        self.node: Node = grammar.root
        self.persistent: dict[str, Option] = {}
        self.out = Parsed(words=[program], heads=[program], grammar=grammar.family)
        self.operand_words: list[tuple[str, bool]] = []  # (word, after `--`)
        self.generic_left = grammar.root.depth
        self.generic = False  # a subcommand word the grammar does not list was taken
        self.targeted = False

    def read(self) -> Parsed:
        args = self.args
        ended = False  # after `--`, or after the first operand of a program that stops there
        while self.i < len(args):
            word = args[self.i]
            self.i += 1
            if ended:
                self.operand_words.append((word, True))
                continue
            if word == "--":
                following = args[self.i] if self.i < len(args) else None
                if not self.operand_words and following in self.node.subcommands:
                    # `systemctl -- reboot`, `git -- reset --hard`: `--` ends the options
                    # before the subcommand, which the program still reads (with its own)
                    continue
                ended = True
                continue
            if self.i == 1 and self.node.oldstyle and self._oldstyle(word):
                self._short("-" + word)  # `tar czf x.tgz src`: the options without their dash
            elif word.startswith("--") and len(word) > 2:
                self._long(word)
            elif word.startswith("-") and len(word) > 1:
                self._short(word)
            elif self._keyword(word):
                continue
            elif not self.operand_words and not self.generic and word in self.node.subcommands:
                self._descend(self.node.subcommands[word])
            elif not self.operand_words and self.generic_left > 0:
                # an unlisted subcommand: its own subcommands are unknown, so a later word that
                # spells one of this node's (`terraform output destroy`) is not one
                self.generic = True
                self.generic_left -= 1
                self.out.words.append(word)
                self.out.heads.append(" ".join(self.out.words))
            else:
                self.operand_words.append((word, False))
                if not self.node.permute:
                    ended = True
        if self.node.negations:
            self._last_wins()
        self._roles(ended)
        runs_given = any(r in ("runs", "code") for _w, r in self.out.operands) or any(
            r in ("runs", "code") for _n, _v, r in self.out.option_values
        )
        stdin_operand = any(w in ("-", "/dev/stdin") for w, _r in self.out.operands)
        # an option that names what it runs instead of a script (`python -m json.tool`)
        runs_given = runs_given or self.targeted
        self.out.program_from_stdin = self.node.stdin_code and (not runs_given or stdin_operand)
        named = any(r == "writes" for _n, _v, r in self.out.option_values)
        self.out.saves_urls = "saves" in self.out.flags or (self.node.saves_urls and not named)
        self.out.recursive = (
            "recursive" in self.out.flags or self.node.recursive is not None
        ) and "flat" not in self.out.flags
        self.out.hidden = self.node.recursive != "unhidden" or "hidden" in self.out.flags
        return self.out

    def _last_wins(self) -> None:
        """`--no-NAME` turns off an earlier `--NAME`, and `--NAME` an earlier `--no-NAME` (git's
        parse-options): of an option and its negation only the last one given stays."""
        later: set[str] = set()  # the names given after the option looked at
        kept: list[tuple[str, str | None]] = []
        for name, value in reversed(self.out.options):
            if name.startswith("--no-"):
                found = self._find("--" + name[5:])
                undone = {"--" + name[5:], found.canonical if found else ""}
                later.add("--no-" + found.canonical[2:] if found else name)
            elif name.startswith("--"):
                undone = {"--no-" + name[2:]}
            else:
                undone = set()
            if not undone & later:
                kept.append((name, value))
            later.add(name)
        kept.reverse()
        names = {n for n, _v in kept}
        pairs = set(kept)
        self.out.options = kept
        self.out.does_nothing = [n for n in self.out.does_nothing if n in names]
        self.out.option_values = [t for t in self.out.option_values if (t[0], t[1]) in pairs]

    def _descend(self, child: Node) -> None:
        for name, option in self.node.options.items():
            if "persistent" in option.flags:
                self.persistent[name] = option
        self.node = child
        self.out.words.append(child.words[-1])
        self.out.heads.append(" ".join(self.out.words))
        self.generic_left = child.depth

    def _find(self, name: str) -> Option | None:
        return self.node.options.get(name) or self.persistent.get(name)

    def _long(self, word: str) -> None:
        name, eq, value = word.partition("=")
        option = self._find(name)
        if option is None and self.node.abbreviations:
            found = self._abbreviated(name, value if eq else None)
            if found is False:
                return
            option = found if isinstance(found, Option) else None
        if option is None:
            # not in the grammar: kept as written, a value only when attached
            self._add(name, value if eq else None, None)
            return
        if option.value in ("required", "until") and not eq:
            self._add(option.canonical, self._take(option), option)
        else:
            self._add(option.canonical, value if eq else None, option)

    def _abbreviated(self, name: str, value: str | None) -> Option | bool | None:
        """A unique prefix of one option's long names (getopt_long, git's parse-options). A
        prefix of several is an error to the program, which then runs nothing; it is read as
        every option it may mean (flags only, so it takes no word), which a rule refusing any of
        them refuses, none of them making the command one that does nothing (git does not
        abbreviate `--help`: `git reset --h` is `--hard`): False says they were added."""
        if len(name) < 3:
            return None
        found = {
            id(o): o
            for spelled, o in [*self.node.options.items(), *self.persistent.items()]
            if spelled.startswith(name) and spelled.startswith("--")
        }
        if len(found) == 1:
            return next(iter(found.values()))
        if not found:
            return None
        self.out.ambiguous.append(name)
        idle = list(self.out.does_nothing)
        for option in found.values():
            self._add(option.canonical, value, option)
        # and not as a help or dry-run among them: `git reset --h` resets --hard to a rule
        self.out.does_nothing = idle
        return False

    def _short(self, word: str) -> None:
        exact = self._find(word.partition("=")[0]) if "=" in word else self._find(word)
        if exact is not None and (len(word) > 2 or not self.node.clusters):
            # a single-dash long name (`find -delete`, `-name x`), or `-f` itself
            _name, eq, value = word.partition("=")
            if exact.value in ("required", "until") and not eq:
                self._add(exact.canonical, self._take(exact), exact)
            else:
                self._add(exact.canonical, value if eq else None, exact)
            return
        if not self.node.clusters:
            self._add(word, None, None)
            return
        for k in range(1, len(word)):
            option = self._find("-" + word[k])
            if option is None:
                self._add("-" + word[k], None, None)
                continue
            rest = word[k + 1 :]
            if option.value == "required":
                self._add(option.canonical, rest if rest else self._take(option), option)
                return
            if option.value == "optional":
                self._add(option.canonical, rest or None, option)
                return
            if option.value == "until":
                self._add(option.canonical, self._take(option), option)
                return
            self._add(option.canonical, None, option)

    def _oldstyle(self, word: str) -> bool:
        return word.isalpha() and all(self._find("-" + c) is not None for c in word)

    def _keyword(self, word: str) -> bool:
        """`of=/dev/sda`: a keyword operand the grammar names (`dd`)."""
        key, eq, value = word.partition("=")
        if not eq:
            return False
        option = self._find(key + "=")
        if option is None:
            return False
        self._add(option.canonical.removesuffix("="), value, option)
        return True

    def _take(self, option: Option) -> str | None:
        """The value in the next word(s): one word, or every word up to a terminator."""
        args = self.args
        if option.value == "until":
            start = self.i
            while self.i < len(args) and args[self.i] not in option.until:
                self.i += 1
            value = " ".join(args[start : self.i])
            if self.i < len(args):
                self.i += 1  # the terminator
            return value
        if self.i < len(args):
            self.i += 1
            value = args[self.i - 1]
            self.i = min(self.i + option.extra, len(args))  # `-fprintf FILE FORMAT`
            return value
        return None

    def _add(self, name: str, value: str | None, option: Option | None) -> None:
        flag = option is not None and not option.value
        if flag and value is not None and value.lower() in _FALSE:
            return  # `--all=false`: the flag is off
        self.out.options.append((name, value))
        if option is None:
            return
        if option.does_nothing and (value is None or value.lower() not in _NOT_SET):
            self.out.does_nothing.append(name)
        if "target" in option.flags:
            self.targeted = True
        flags = option.flags
        if "inplace" in flags and value is not None and not _names_inplace(value):
            flags = flags - {"inplace"}  # `gawk -i lib.awk`: a library, not the in-place one
        self.out.flags |= flags
        if value is not None and "include" in option.flags:
            (self.out.excludes if value.startswith("!") else self.out.includes).append(
                value.removeprefix("!")
            )
        if value is not None and "exclude" in option.flags:
            self.out.excludes.append(value)
        if value is not None and option.role is not None:
            self.out.option_values.append((name, value, option.role))

    def _roles(self, ended: bool) -> None:
        node = self.node
        self.out.hostpaths = node.hostpaths
        self.out.into = node.into
        self.out.unfollowed = node.unfollowed
        self.out.targeted = self.targeted
        words = self.operand_words
        pattern = node.operands
        if self.targeted:  # `cp -t DIR a b`: every operand is a source
            pattern = tuple(r for r in pattern if r.endswith("...")) or pattern
        roles = _assign(pattern, len(words))
        for (word, after), role in zip(words, roles, strict=True):
            if after and node.dashdash is not None:
                role = node.dashdash
            self.out.operands.append((word, role))
        # a word xargs appends is one more operand (`find /etc | xargs file` reads each file)
        self.out.appended = _assign(pattern, len(words) + 1)[-1].removesuffix("...")
        if ended and node.dashdash is not None:
            self.out.appended = node.dashdash


def _assign(pattern: tuple[str, ...], count: int) -> list[str]:
    """Each operand's role from a pattern like (reads..., writes): the repeating role fills
    what the fixed roles before and after it leave."""
    repeat = next((k for k, r in enumerate(pattern) if r.endswith("...")), None)
    if repeat is None:
        fixed = list(pattern[:count])
        return fixed + ["word"] * (count - len(fixed))
    before, after = list(pattern[:repeat]), list(pattern[repeat + 1 :])
    middle = pattern[repeat].removesuffix("...")
    if count <= len(before):
        return before[:count]
    tail = after[-(count - len(before)) :] if count - len(before) < len(after) else after
    fill = count - len(before) - len(tail)
    return before + [middle] * fill + tail


def _generic(program: str, args: list[str]) -> Parsed:
    out = Parsed(words=[program], heads=[program])
    ended = False
    leading: list[str] = []
    for k, word in enumerate(args):
        if ended or word == "-" or not word.startswith("-"):
            if word == "--" and not ended:
                ended = True
                continue
            out.operands.append((word, "path"))
            if len(leading) < GENERIC_HEAD_WORDS and not ended:
                leading.append(word)
            continue
        if word == "--":
            ended = True
            continue
        nxt = args[k + 1] if k + 1 < len(args) else None
        maybe_value = nxt if nxt is not None and not nxt.startswith("-") else None
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            out.options.append((name, value if eq else maybe_value))
            continue
        out.options.append((word, maybe_value))
        if len(word) > 2:
            out.options.extend(("-" + ch, None) for ch in word[1:])
    for n in range(1, len(leading) + 1):
        out.heads.append(" ".join([program, *leading[:n]]))
    return out


def _names_inplace(value: str) -> bool:
    """Whether an `inplace` option's value names the in-place library (gawk's `-i inplace`,
    `--include=inplace.awk`, by a folder too); a flag marked so is always one."""
    return value.rsplit("/", 1)[-1].removesuffix(".awk") == "inplace"
