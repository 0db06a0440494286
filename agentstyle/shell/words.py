"""Expand one word the way bash does, as far as the command text tells: the fields it becomes.

Brace expansion (`{a,b}`, `{1..3}`), parameter expansion with the values the same command
assigned (`d=/; rm -rf $d`), `${IFS}` as a separator, quote removal, field splitting, and the
output of substitutions whose output is known. What is only known at run time stays as
written (`$HOME`, `$(date)`), so a pattern can still see it. A variable may hold several
values (assigned in two branches, a `for` list): the word then has several expansions.
"""

from __future__ import annotations

import re

from agentstyle.shell.tree import Arith, Lit, Param, Part, ProcSub, Sub, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


MAX_BRACE = 1024  # fields one brace expansion may produce
MAX_ALTERNATIVES = 64  # expansions of one word (or one command) from multi-valued variables


class Unknown:
    """A variable whose value is only known at run time (`x=$(date)`, `read x`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()


class Symbolic(str):
    """A value only known at run time, held as it reads (`R=${HOME}` holds `$HOME`): it
    expands to that text, flagged as unknown, so `rm -rf $R` reads `rm -rf $HOME`."""

    __slots__ = ()


# A variable's value: text, an array, or unknown; a variable holds one or more of them.
class Unset(str):
    """A variable `unset` removed: it expands to nothing, and `${X-word}` (`=`, `+`), which
    tell unset from empty, read it as unset."""

    __slots__ = ()


UNSET = Unset("")

Value = str | tuple[str, ...] | Unknown  # a str may be Symbolic or Unset

# Field flags: where the text of a field came from.
F_VAR = 1  # a variable whose value is not known
F_SUB = 2  # a command substitution whose output is not known
F_PROCSUB = 4  # a process substitution (a file name at run time)
F_EXPANDED = 8  # a known value replaced an expansion
F_POSITIONAL = 16  # a positional parameter ($0, $1, "$@") with a known value
F_GLOB = 32  # unquoted `*`, `?` or `[`: the shell matches it against file names
_GLOB_CHARS = re.compile(r"[*?[]")

# Variables the environment of an agent's shell has set: `${HOME:-x}` is $HOME, not x.
ENVIRONMENT = frozenset(
    {
        "HOME",
        "PWD",
        "OLDPWD",
        "USER",
        "LOGNAME",
        "SHELL",
        "PATH",
        "TMPDIR",
        "TERM",
        "LANG",
        "HOSTNAME",
        "EDITOR",
        "PAGER",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_CACHE_HOME",
        "XDG_RUNTIME_DIR",
    }
)
_DEFAULT_IFS = " \t\n"


class Scope:
    """What expansion asks of the walker: variable values and the output of substitutions."""

    __slots__ = ()

    def values(self, name: str) -> tuple[Value, ...] | None:  # pragma: no cover - interface
        raise NotImplementedError

    def positional(self) -> list[str] | None:  # pragma: no cover - interface
        raise NotImplementedError

    def substitution(self, sub: Sub) -> str | None:  # pragma: no cover - interface
        """Run `sub` (its commands are recorded) and return its output when known."""
        raise NotImplementedError

    def process_substitution(self, sub: ProcSub) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def prompt(self, text: str) -> str | None:  # pragma: no cover - interface
        """`text` expanded as a prompt string (`${x@P}`), its substitutions run; None when
        it cannot be."""
        raise NotImplementedError

    def flag(self, text: str, flags: int) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def overflow(self, what: str) -> None:  # pragma: no cover - interface
        raise NotImplementedError


# A chunk of expanded text: (text, how): 0 literal, 1 split on IFS, 2 a field break ("$@").
_LITERAL, _SPLIT, _BREAK = 0, 1, 2
Chunk = tuple[str, int]


def expand(word: Word, scope: Scope, braces: bool = True) -> list[list[str]]:
    """The fields `word` becomes, once per combination of the values its variables hold."""
    parts = word.parts
    first = parts[0] if parts else None
    tilde = isinstance(first, Lit) and not first.quoted and braces
    if tilde and isinstance(first, Lit) and (first.text == "~" or first.text.startswith("~/")):
        home = scope.values("HOME")
        if home is not None and len(home) == 1 and isinstance(home[0], str):
            # `HOME=/; rm -rf ~`: the tilde is the shell's HOME, set in this command line
            parts = [Lit(home[0] + first.text[1:], False), *parts[1:]]
    if len(parts) == 1 and isinstance(parts[0], Lit):
        text = parts[0].text
        if parts[0].quoted or not braces:
            return [[text]]
        if braces and _GLOB_CHARS.search(text):
            scope.flag(text, F_GLOB)
        if "{" not in text:
            return [[text]]
    glob = braces and any(
        isinstance(p, Lit) and not p.quoted and _GLOB_CHARS.search(p.text) for p in parts
    )
    # Brace expansion makes more words of one command (`{rm,-rf,/}` is `rm -rf /`); variables
    # with several values make more commands: each combination is one alternative.
    combined: list[list[str]] = [[]]
    for variant in _braced(parts, scope) if braces else [parts]:
        options: list[list[str]] = []
        seen: set[tuple[str, ...]] = set()
        for chunks, flags in _chunk_alternatives(variant, scope):
            if glob:
                flags |= F_GLOB
            fields = _split(chunks, scope)
            key = tuple(fields)
            if key in seen:
                continue
            seen.add(key)
            if flags:
                for f in fields:
                    scope.flag(f, flags)
            options.append(fields)
        if len(options) == 1:
            for alt in combined:
                alt.extend(options[0])
            continue
        combined = [[*alt, *o] for alt in combined for o in options]
        if len(combined) > MAX_ALTERNATIVES:
            scope.overflow("alternatives-limit")
            combined = combined[:MAX_ALTERNATIVES]
    return combined


def expand_text(parts: Sequence[Part], scope: Scope) -> list[str]:
    """Heredoc bodies and assignment values: expansions without splitting or braces."""
    out: list[str] = []
    for chunks, flags in _chunk_alternatives(list(parts), scope):
        text = "".join(t for t, how in chunks if how != _BREAK)
        if flags:
            scope.flag(text, flags)
        if text not in out:
            out.append(text)
    return out or [""]


def rendered(parts: Sequence[Part]) -> str:
    """The parts as written, quotes removed: how a word reads with nothing expanded."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, Lit):
            out.append(part.text)
        else:
            out.append(_as_written(part))
    return "".join(out)


# -- braces ------------------------------------------------------------------------------------

_MARK = 0xE000  # private-use code points stand for the parts brace expansion leaves alone


def _braced(parts: list[Part], scope: Scope) -> list[list[Part]]:
    if not any(isinstance(p, Lit) and not p.quoted and "{" in p.text for p in parts):
        return [parts]
    template: list[str] = []
    for i, part in enumerate(parts):
        if isinstance(part, Lit) and not part.quoted:
            template.append(part.text)
        else:
            template.append(chr(_MARK + i))
    results = brace_expand("".join(template))
    if results is None:
        scope.overflow("brace-limit")
        return [parts]
    if len(results) == 1:
        return [parts]
    variants: list[list[Part]] = []
    for text in results:
        variant: list[Part] = []
        lit: list[str] = []
        for ch in text:
            code = ord(ch) - _MARK
            if 0 <= code < len(parts) and not (
                isinstance(parts[code], Lit) and not parts[code].quoted  # type: ignore[union-attr]
            ):
                if lit:
                    variant.append(Lit("".join(lit), False))
                    lit = []
                variant.append(parts[code])
            else:
                lit.append(ch)
        if lit:
            variant.append(Lit("".join(lit), False))
        variants.append(variant)
    return variants


_SEQUENCE = re.compile(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?")


def brace_expand(text: str, limit: int = MAX_BRACE) -> list[str] | None:
    """Bash brace expansion of `text`; None when it would give more than `limit` words."""
    i = 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return [text]
        if i > 0 and text[i - 1] == "$":
            i += 1
            continue
        found = _brace_group(text, i)
        if found is None:
            i += 1
            continue
        end, alternatives = found
        prefix, suffix = text[:i], text[end:]
        rest = brace_expand(suffix, limit)
        if rest is None:
            return None
        out: list[str] = []
        for alt in alternatives:
            expanded = brace_expand(alt, limit)
            if expanded is None:
                return None
            for a in expanded:
                for r in rest:
                    out.append(prefix + a + r)
                    if len(out) > limit:
                        return None
        return out


def _brace_group(text: str, start: int) -> tuple[int, list[str]] | None:
    """(index after `}`, alternatives) of a brace group at `start`, or None if it is literal."""
    depth = 0
    commas: list[int] = []
    i = start
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                inner = text[start + 1 : i]
                if commas:
                    cuts = [start, *commas, i]
                    return i + 1, [text[cuts[k] + 1 : cuts[k + 1]] for k in range(len(cuts) - 1)]
                seq = _sequence(inner)
                return None if seq is None else (i + 1, seq)
        elif c == "," and depth == 1:
            commas.append(i)
        i += 1
    return None


def _sequence(inner: str) -> list[str] | None:
    m = _SEQUENCE.fullmatch(inner)
    if m is None:
        return None
    a, b, step_text = m.groups()
    step = abs(int(step_text)) if step_text else 1
    step = step or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        x, y = int(a), int(b)
        width = (
            max(len(a), len(b))
            if (a.lstrip("-").startswith("0") and len(a.lstrip("-")) > 1)
            or (b.lstrip("-").startswith("0") and len(b.lstrip("-")) > 1)
            else 0
        )
        if abs(y - x) // step > MAX_BRACE:
            return [inner]  # left as written; the overflow is reported by the caller's limit
        rng = range(x, y + (1 if y >= x else -1), step if y >= x else -step)
        return [str(v).zfill(width) if width else str(v) for v in rng]
    if a.isalpha() and b.isalpha():
        x, y = ord(a), ord(b)
        rng = range(x, y + (1 if y >= x else -1), step if y >= x else -step)
        return [chr(v) for v in rng]
    return None


# -- parameters and substitutions ------------------------------------------------------------------


def _chunk_alternatives(parts: list[Part], scope: Scope) -> list[tuple[list[Chunk], int]]:
    """Each combination of values: the chunks of the word and the flags of where they came from."""
    alternatives: list[tuple[list[Chunk], int]] = [([], 0)]
    for part in parts:
        options = _part_options(part, scope)
        if len(options) == 1:
            chunks, flags = options[0]
            for alt in alternatives:
                alt[0].extend(chunks)
            if flags:
                alternatives = [(c, f | flags) for c, f in alternatives]
            continue
        combined: list[tuple[list[Chunk], int]] = []
        for chunks0, flags0 in alternatives:
            for chunks, flags in options:
                combined.append((chunks0 + chunks, flags0 | flags))
                if len(combined) >= MAX_ALTERNATIVES:
                    scope.overflow("alternatives-limit")
                    break
            if len(combined) >= MAX_ALTERNATIVES:
                break
        alternatives = combined
    return alternatives


def _part_options(part: Part, scope: Scope) -> list[tuple[list[Chunk], int]]:
    if isinstance(part, Lit):
        return [([(part.text, _LITERAL)], 0)]
    if isinstance(part, Param):
        return _param(part, scope)
    if isinstance(part, Sub):
        out = scope.substitution(part)
        if out is None:
            return [([(shown(part), _LITERAL)], F_SUB)]
        text = out.rstrip("\n")
        return [([(text, _LITERAL if part.quoted else _SPLIT)], F_EXPANDED)]
    if isinstance(part, ProcSub):
        scope.process_substitution(part)
        return [([(shown(part), _LITERAL)], F_PROCSUB)]
    assert isinstance(part, Arith)
    texts: list[str] = []
    for inner in part.parts:
        if isinstance(inner, Lit):
            texts.append(inner.text)
        else:  # substitutions inside arithmetic still run
            texts += ["".join(t for t, _ in chunks) for chunks, _ in _part_options(inner, scope)]
    arith_values(" ".join(texts), scope)
    return [([(shown(part), _LITERAL)], 0)]


_ARITH_NAME = re.compile(r"[A-Za-z_]\w*")
_SUBSCRIPT = re.compile(r"\[(.*)\]", re.S)
MAX_ARITH_DEPTH = 3  # values read as expressions in turn (`x=y; y='a[$(cmd)]'; $((x))`)


def arith_values(expression: str, scope: Scope, depth: int = 0) -> None:
    """Arithmetic reads a variable's value as an expression in turn, and expands an array
    subscript in it like a word: `x='a[$(cmd)]'; echo $((x))` runs cmd."""
    for subscript in _SUBSCRIPT.findall(expression):
        if "$" in subscript or "`" in subscript:
            scope.prompt(subscript)
    if depth >= MAX_ARITH_DEPTH:
        return
    for name in dict.fromkeys(_ARITH_NAME.findall(expression)):
        for value in scope.values(name) or ():
            if isinstance(value, str) and not isinstance(value, Symbolic) and value != expression:
                arith_values(value, scope, depth + 1)


def _param(p: Param, scope: Scope) -> list[tuple[list[Chunk], int]]:
    how = _LITERAL if p.quoted else _SPLIT
    name = p.name
    if name in ("@", "*") and not p.op:
        args = scope.positional()
        if args is None:
            return [([(p.raw, _LITERAL)], F_VAR)]
        args = args[1:]
        if name == "@" and p.quoted:
            chunks: list[Chunk] = []
            for i, a in enumerate(args):
                if i:
                    chunks.append(("", _BREAK))
                chunks.append((a, _LITERAL))
            return [(chunks, F_POSITIONAL)]
        return [([(" ".join(args), how)], F_POSITIONAL)]
    if name.isdigit() or (name == "#" and not p.op):
        args = scope.positional()
        if args is None:
            return [([(_unknown(p), _LITERAL)], F_VAR)]
        if name == "#":
            return [([(str(max(0, len(args) - 1)), _LITERAL)], F_POSITIONAL)]
        k = int(name)
        return _apply(p, (args[k] if k < len(args) else "",), scope, how, F_POSITIONAL)
    if name == "IFS" and not p.op:
        known = scope.values("IFS")
        value = known[0] if known and isinstance(known[0], str) else _DEFAULT_IFS
        return [([(value, how)], 0)]
    if not name or name in "?-$!":
        return [([(p.raw, _LITERAL)], F_VAR)]
    return _apply(p, scope.values(name), scope, how, F_EXPANDED)


def _apply(
    p: Param, values: tuple[Value, ...] | None, scope: Scope, how: int, known_flag: int
) -> list[tuple[list[Chunk], int]]:
    """The expansions of `p` for each value the variable may hold."""
    if values is None:
        return _unknown_options(p, scope, how)
    out: list[tuple[list[Chunk], int]] = []
    for value in values:
        if isinstance(value, Unknown):
            out.extend(_unknown_options(p, scope, how))
            continue
        if isinstance(value, Symbolic):
            # Its text, unsplit (it stands for one run-time value); operators not applied.
            text = value if not p.op else _unknown(p).replace("$" + p.name, value, 1)
            out.append(([(text, _LITERAL)], F_VAR))
            continue
        chunks = _operate(p, value, scope, how)
        if chunks is None:
            out.append(([(_unknown(p), _LITERAL)], F_VAR))
        else:
            out.append((chunks, known_flag))
    return out or [([(_unknown(p), _LITERAL)], F_VAR)]


def _unknown_options(p: Param, scope: Scope, how: int) -> list[tuple[list[Chunk], int]]:
    op = p.op
    environment = p.name in ENVIRONMENT
    if op in (":-", "-", ":=", "=") and not environment and p.arg is not None:
        # An agent's shell seldom has an unexplained variable set: the default is what runs.
        return [(_word_chunks(p.arg, scope, how), 0)]
    if op in (":+", "+") and not environment:
        return [([], 0)]
    if op in (":+", "+") and p.arg is not None:
        return [(_word_chunks(p.arg, scope, how), 0)]
    return [([(_unknown(p), _LITERAL)], F_VAR)]


def _unknown(p: Param) -> str:
    """An expansion with no known value, as a pattern should see it: `${HOME:?}` is `$HOME`."""
    if p.op in ("len", "indirect") or p.op.startswith(("len", "indirect")):
        return p.raw
    if p.name.isdigit() and len(p.name) > 1:
        return "${" + p.name + "}"
    if p.index is not None:
        return "${" + p.name + "[" + p.index + "]}"
    return "$" + p.name if p.name else p.raw


def _word_chunks(word: Word, scope: Scope, how: int) -> list[Chunk]:
    texts = expand_text(word.parts, scope)
    return [(texts[0], how)]


def _operate(p: Param, value: str | tuple[str, ...], scope: Scope, how: int) -> list[Chunk] | None:
    """`p` applied to a known value; None when the operation is beyond what is modelled."""
    if isinstance(value, tuple):
        if p.index in ("@", "*"):
            if p.op == "len":
                return [(str(len(value)), _LITERAL)]
            if p.op:
                return None
            if p.index == "@" and p.quoted:
                chunks: list[Chunk] = []
                for i, v in enumerate(value):
                    if i:
                        chunks.append(("", _BREAK))
                    chunks.append((v, _LITERAL))
                return chunks
            return [(" ".join(value), how)]
        index = p.index or "0"
        if not index.lstrip("-").isdigit():
            return None
        k = int(index)
        text = value[k] if -len(value) <= k < len(value) else ""
    else:
        if p.index not in (None, "0", "@", "*"):
            return [("", how)] if p.index and p.index.isdigit() else None
        text = value
    op = p.op
    if not op:
        return [(text, how)]
    if op == "len":
        return [(str(len(text)), _LITERAL)]
    arg = expand_text(p.arg.parts, scope)[0] if p.arg is not None else ""
    unset = isinstance(value, Unset)
    if op in (":-", ":=") or (op in ("-", "=") and unset):
        return [(text or arg, how)]
    if op in ("-", "=", "?", ":?"):
        return [(text, how)]
    if op == ":+":
        return [(arg if text else "", how)]
    if op == "+":
        return [("" if unset else arg, how)]
    if op in ("#", "##", "%", "%%"):
        return [(_strip(text, arg, op), how)]
    if op in ("/", "//", "/#", "/%"):
        replacement = expand_text(p.arg2.parts, scope)[0] if p.arg2 is not None else ""
        return [(_replace(text, arg, replacement, op), how)]
    if op in ("^^", "^"):
        return [(text.upper() if op == "^^" else text[:1].upper() + text[1:], how)]
    if op in (",,", ","):
        return [(text.lower() if op == ",," else text[:1].lower() + text[1:], how)]
    if op == ":":
        return _substring(text, arg, how)
    if op == "@" and arg == "P":
        # a prompt string: the value's own `$(…)` and backticks run (`x='$(cmd)'; ${x@P}`)
        expanded = scope.prompt(text)
        return None if expanded is None else [(expanded, how)]
    return None


def _substring(text: str, spec: str, how: int) -> list[Chunk] | None:
    offset, _, length = spec.partition(":")
    try:
        start = int(offset.strip() or "0")
        if length.strip():
            count = int(length.strip())
            end = start + count if count >= 0 else len(text) + count
            return [(text[start:end] if start >= 0 else text[len(text) + start : end], how)]
        return [(text[start:], how)]
    except ValueError:
        return None


def glob_regex(pattern: str) -> str:
    """A shell glob as a regular expression (no anchors): `*`, `?`, `[…]`, the rest literal."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _strip(text: str, pattern: str, op: str) -> str:
    try:
        rx = re.compile(glob_regex(pattern), re.S)
    except re.error:
        return text
    sizes = range(len(text) + 1)
    if op in ("#", "##"):
        order = sizes if op == "#" else reversed(sizes)
        for k in order:
            if rx.fullmatch(text, 0, k):
                return text[k:]
        return text
    order = reversed(sizes) if op == "%" else sizes
    for k in order:
        if rx.fullmatch(text, k):
            return text[:k]
    return text


def _replace(text: str, pattern: str, replacement: str, op: str) -> str:
    if not pattern:
        return text
    try:
        body = glob_regex(pattern)
        if op == "/#":
            body = "^(?:" + body + ")"
        elif op == "/%":
            body = "(?:" + body + ")$"
        rx = re.compile(body, re.S)
    except re.error:
        return text
    return rx.sub(replacement.replace("\\", "\\\\"), text, count=0 if op == "//" else 1)


MAX_RENDERED = 1024  # characters of a substitution shown as written inside a word


def _as_written(part: Part) -> str:
    if isinstance(part, Param):
        return _unknown(part)
    return shown(part)  # type: ignore[arg-type]


def shown(part: Sub | ProcSub | Arith) -> str:
    """A substitution as written; a long one is cut (its commands are elements of their own)."""
    if part.end - part.start <= MAX_RENDERED:
        return part.raw
    return part.src[part.start : part.start + MAX_RENDERED - 2] + "…)"


# -- splitting -----------------------------------------------------------------------------------


def _split(chunks: list[Chunk], scope: Scope) -> list[str]:
    """Fields from chunks: literal text joins the current field, split text cuts on IFS."""
    fields: list[str] = []
    current: list[str] = []
    started = False  # a field is open (quoted-empty text still makes one)
    separator: re.Pattern[str] | None = None
    for text, how in chunks:
        if how == _LITERAL:
            current.append(text)
            started = True
        elif how == _BREAK:
            fields.append("".join(current))
            current = []
            started = True
        elif text:
            if separator is None:
                known = scope.values("IFS")
                ifs = known[0] if known and isinstance(known[0], str) else _DEFAULT_IFS
                separator = _separator(ifs)
            for k, piece in enumerate(separator.split(text)):
                if k and started:
                    fields.append("".join(current))
                    current = []
                    started = False
                if piece:
                    current.append(piece)
                    started = True
    if started:
        fields.append("".join(current))
    return fields


def _separator(ifs: str) -> re.Pattern[str]:
    """What separates fields: runs of IFS blanks, or one other IFS character with blanks."""
    if not ifs:
        return re.compile(r"(?!)")
    blank = re.escape("".join(c for c in ifs if c in " \t\n"))
    other = re.escape("".join(c for c in ifs if c not in " \t\n"))
    if not other:
        return re.compile(f"[{blank}]+")
    if not blank:
        return re.compile(f"[{other}]")
    return re.compile(f"[{blank}]*[{other}][{blank}]*|[{blank}]+")
