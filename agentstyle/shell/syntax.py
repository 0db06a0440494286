"""Parse bash text into a syntax tree; it never fails: what it cannot take becomes an issue.

A hand-written recursive-descent parser over a bash-faithful lexer. It is written for
matching what the shell will run, so it is tolerant where bash refuses: an unterminated quote
runs to the end of the text, a missing `fi` closes at the end, a stray `)` is skipped. Each
such repair is recorded in `Parsed.issues` (`"unterminated-quote@12"`), which the caller turns
into `shell.incomplete`. Nesting deeper than MAX_SYNTAX_DEPTH is not structured: its text is
kept as an `Opaque` node (or a `Sub` without a body) for the lexical fallback, so no input
reaches Python's recursion limit and nothing is dropped.
"""

from __future__ import annotations

import re
import time

MAX_SYNTAX_DEPTH = 60  # constructs nested in each other (`$(`, `(`, `{`, `if`, …), strings included
_CHECK_EVERY = 512  # tokens between two looks at the clock

# -- the tree ------------------------------------------------------------------------------------
# Plain slotted classes, not dataclasses: this module is imported on the hook path, and building
# dataclasses costs about a millisecond at import.


class Lit:
    """Literal text of a word; `quoted` text takes no brace expansion, splitting or globbing."""

    __slots__ = ("quoted", "text")

    def __init__(self, text: str, quoted: bool) -> None:
        self.text = text
        self.quoted = quoted


class _Span:
    """A node's place in the source text: `raw` is sliced only when asked for, so nested
    nodes do not each hold a copy of the text around them."""

    __slots__ = ("end", "src", "start")

    def __init__(self, src: str, start: int, end: int) -> None:
        self.src = src
        self.start = start
        self.end = end

    @property
    def raw(self) -> str:
        return self.src[self.start : self.end]


class Param(_Span):
    """`$x`, `${x}`, `${x:-word}`, `${#x}`, `$1`, `$@`: `op` is "" for a plain reference."""

    __slots__ = ("arg", "arg2", "index", "name", "op", "quoted")

    def __init__(
        self,
        name: str,
        op: str,
        arg: Word | None,
        quoted: bool,
        span: tuple[str, int, int],
        index: str | None = None,
        arg2: Word | None = None,
    ) -> None:
        super().__init__(*span)
        self.name = name
        self.op = op
        self.arg = arg
        self.arg2 = arg2  # the replacement of `${x/pattern/replacement}`
        self.index = index  # `${a[1]}`, `${a[@]}`
        self.quoted = quoted


class Sub(_Span):
    """`$(…)` or backticks; `body` is None when nested too deep (then `inner` is all there is)."""

    __slots__ = ("_inner", "body", "quoted")

    def __init__(
        self, body: Seq | None, quoted: bool, span: tuple[str, int, int], inner: str | None = None
    ) -> None:
        super().__init__(*span)
        self.body = body
        self.quoted = quoted
        self._inner = inner  # backticks: the text after their own unescaping

    @property
    def inner(self) -> str:
        if self._inner is not None:
            return self._inner
        return self.src[self.start + 2 : max(self.start + 2, self.end - 1)]


class ProcSub(_Span):
    """`<(…)` / `>(…)`: a command whose output (or input) is a file name in the word."""

    __slots__ = ("body", "writes")

    def __init__(self, body: Seq | None, span: tuple[str, int, int], writes: bool) -> None:
        super().__init__(*span)
        self.body = body
        self.writes = writes

    @property
    def inner(self) -> str:
        return self.src[self.start + 2 : max(self.start + 2, self.end - 1)]


class Arith(_Span):
    """`$((…))`: kept as written; its `parts` hold the substitutions inside it."""

    __slots__ = ("parts", "quoted")

    def __init__(self, parts: list[Part], quoted: bool, span: tuple[str, int, int]) -> None:
        super().__init__(*span)
        self.parts = parts
        self.quoted = quoted


Part = Lit | Param | Sub | ProcSub | Arith


class Word(_Span):
    __slots__ = ("parts",)

    def __init__(self, parts: list[Part], src: str, start: int, end: int) -> None:
        super().__init__(src, start, end)
        self.parts = parts


class Assign:
    """`NAME=value`, `NAME+=value`, `NAME=(a b)`, `NAME[i]=v`."""

    __slots__ = ("append", "array", "index", "name", "raw", "value")

    def __init__(
        self,
        name: str,
        append: bool,
        index: str | None,
        value: Word | None,
        array: list[Word] | None,
        raw: str,
    ) -> None:
        self.name = name
        self.append = append
        self.index = index
        self.value = value
        self.array = array
        self.raw = raw


class Heredoc:
    __slots__ = ("body", "delim", "parts", "quoted", "strip", "terminated")

    def __init__(self, delim: str, quoted: bool, strip: bool) -> None:
        self.delim = delim
        self.quoted = quoted
        self.strip = strip
        self.body = ""
        self.parts: list[Part] = []
        self.terminated = False


class Redir:
    """`[fd]op target`; a heredoc's body is read at the end of its line."""

    __slots__ = ("fd", "heredoc", "op", "target")

    def __init__(
        self, fd: str | None, op: str, target: Word | None, heredoc: Heredoc | None
    ) -> None:
        self.fd = fd
        self.op = op
        self.target = target
        self.heredoc = heredoc


class Simple:
    __slots__ = ("assigns", "redirs", "start", "words")

    def __init__(self, assigns: list[Assign], words: list[Word], redirs: list[Redir], start: int):
        self.assigns = assigns
        self.words = words
        self.redirs = redirs
        self.start = start


class Pipeline:
    __slots__ = ("cmds", "negated")

    def __init__(self, cmds: list[Node], negated: bool) -> None:
        self.cmds = cmds
        self.negated = negated


class AndOr:
    __slots__ = ("items", "ops")

    def __init__(self, items: list[Node], ops: list[str]) -> None:
        self.items = items
        self.ops = ops


class Seq:
    """Statements in order; `background[i]` when statement i ends with `&`."""

    __slots__ = ("background", "items")

    def __init__(self, items: list[Node], background: list[bool]) -> None:
        self.items = items
        self.background = background


class Compound:
    """Base of the compound commands: each may carry redirections."""

    __slots__ = ("redirs",)

    def __init__(self) -> None:
        self.redirs: list[Redir] = []


class Subshell(Compound):
    __slots__ = ("body",)

    def __init__(self, body: Seq) -> None:
        super().__init__()
        self.body = body


class Group(Compound):
    __slots__ = ("body",)

    def __init__(self, body: Seq) -> None:
        super().__init__()
        self.body = body


class If(Compound):
    __slots__ = ("arms", "orelse")

    def __init__(self, arms: list[tuple[Seq, Seq]], orelse: Seq | None) -> None:
        super().__init__()
        self.arms = arms
        self.orelse = orelse


class Loop(Compound):
    """`while`/`until`."""

    __slots__ = ("body", "cond", "until")

    def __init__(self, until: bool, cond: Seq, body: Seq) -> None:
        super().__init__()
        self.until = until
        self.cond = cond
        self.body = body


class For(Compound):
    """`for/select NAME [in WORDS]; do …; done` (items None: the positional parameters), or the
    arithmetic `for ((…))` (`arith` set, `name` empty)."""

    __slots__ = ("arith", "body", "items", "name")

    def __init__(self, name: str, items: list[Word] | None, body: Seq, arith: Arith | None):
        super().__init__()
        self.name = name
        self.items = items
        self.body = body
        self.arith = arith


class Case(Compound):
    __slots__ = ("arms", "subject")

    def __init__(self, subject: Word | None, arms: list[tuple[list[Word], Seq]]) -> None:
        super().__init__()
        self.subject = subject
        self.arms = arms


class FuncDef(Compound):
    __slots__ = ("body", "name")

    def __init__(self, name: str, body: Node) -> None:
        super().__init__()
        self.name = name
        self.body = body


class Coproc(Compound):
    __slots__ = ("body", "name")

    def __init__(self, name: str | None, body: Node) -> None:
        super().__init__()
        self.name = name
        self.body = body


class Cond(Compound):
    """`[[ … ]]`: its words in order, operators included."""

    __slots__ = ("words",)

    def __init__(self, words: list[Word]) -> None:
        super().__init__()
        self.words = words


class ArithCmd(Compound):
    __slots__ = ("arith",)

    def __init__(self, arith: Arith) -> None:
        super().__init__()
        self.arith = arith


class Opaque(Compound):
    """Text the parser did not structure (nested too deep, out of time): split lexically."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


Node = Simple | Pipeline | AndOr | Seq | Compound


class Parsed:
    __slots__ = ("issues", "tree")

    def __init__(self, tree: Seq, issues: list[str]) -> None:
        self.tree = tree
        self.issues = issues


def parse(text: str, deadline: float | None = None, depth: int = 0) -> Parsed:
    """The syntax tree of `text` and the repairs it needed (empty: it parsed as bash does)."""
    parser = _Parser(text, [], deadline, depth)
    return Parsed(parser.program(), parser.issues)


def plain(word: Word) -> str | None:
    """The word's text when it is unquoted literal text only (how reserved words are spelled)."""
    parts = word.parts
    if len(parts) == 1:
        part = parts[0]
        return part.text if isinstance(part, Lit) and not part.quoted else None
    if not parts:
        return None
    out = []
    for part in parts:
        if not isinstance(part, Lit) or part.quoted:
            return None
        out.append(part.text)
    return "".join(out)


def literal(word: Word) -> str | None:
    """The word after quote removal when it has no expansion at all."""
    out = []
    for part in word.parts:
        if not isinstance(part, Lit):
            return None
        out.append(part.text)
    return "".join(out)


# -- lexing ------------------------------------------------------------------------------------

_BLANKS = re.compile(r"(?:[ \t\r\f\v]|\\\n)+")
_PLAIN = re.compile(r"[^\s;&|()<>'\"\\$`]+")
# A word of plain characters only, ended by a blank or an operator (not `(`: `a=(`, `@(`).
_SIMPLE_WORD = re.compile(r"[^\s;&|()<>'\"\\$`]+(?=[\s;&|)<>]|\Z)")
_OPERATOR = re.compile(r";;&|;;|;&|&&|\|\||\|&|[;&|()]")
_DQ_PLAIN = re.compile(r'[^"\\$`]+')
_HEREDOC_PLAIN = re.compile(r"[^\\$`]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?)=")
_FD = re.compile(r"[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\}")
_SPECIAL_PARAMS = frozenset("@*#?-$!0123456789")
# Blanks include CR: a command pasted with CRLF line ends reads as the shell user meant it.
_META = frozenset(" \t\r\f\v\n;&|()<>")
_EXTGLOB = frozenset("@!?*+")
_REDIRS = ("<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">&", ">|", ">")
_PARAM_OPS = (":-", ":=", ":?", ":+", "-", "=", "?", "+", "##", "#", "%%", "%", "//", "/#", "/%")
_CASE_OPS = frozenset({";;", ";&", ";;&"})
_STARTERS = frozenset({"if", "while", "until", "for", "select", "case", "{", "[[", "function"})
_CLOSERS = frozenset({"then", "else", "elif", "fi", "do", "done", "esac", "}"})
_DQ_ESCAPES = frozenset('$`"\\\n')

# A token: (kind, value, start). kind: "w" word (value Word), "o" operator (value str),
# "r" redirection (value (fd, op)), "n" newline, "e" end of text.
Token = tuple[str, object, int]
_EOF: Token = ("e", None, -1)


class _TooLate(Exception):
    """The parse ran past its deadline."""


class _Parser:
    def __init__(self, text: str, issues: list[str], deadline: float | None, depth: int) -> None:
        self.s = text
        self.n = len(text)
        self.pos = 0
        self.issues = issues
        self.deadline = deadline
        self.depth = depth
        self.peeked: Token | None = None
        self.pending: list[Heredoc] = []
        self.tokens = 0

    def issue(self, what: str, at: int | None = None) -> None:
        if len(self.issues) < 64:
            self.issues.append(f"{what}@{self.pos if at is None else at}")

    # -- tokens --------------------------------------------------------------------------------

    def peek(self) -> Token:
        if self.peeked is None:
            self.peeked = self._lex()
        return self.peeked

    def take(self) -> Token:
        tok = self.peek()
        self.peeked = None
        return tok

    def _lex(self) -> Token:
        self.tokens += 1
        deadline = self.deadline
        if (
            deadline is not None
            and self.tokens % _CHECK_EVERY == 0
            and time.thread_time() > deadline
        ):
            raise _TooLate
        s = self.s
        while True:
            m = _BLANKS.match(s, self.pos)
            if m:
                self.pos = m.end()
            if self.pos < self.n and s[self.pos] == "#":
                end = s.find("\n", self.pos)
                self.pos = self.n if end < 0 else end
                continue
            break
        start = self.pos
        if start >= self.n:
            if self.pending:
                self._unterminated_heredocs()
            return ("e", None, start)
        c = s[start]
        if c == "\n":
            self.pos += 1
            if self.pending:
                self._read_heredocs()
            return ("n", None, start)
        if c in ";&|()":
            if s.startswith("&>", start):
                op = "&>>" if s.startswith("&>>", start) else "&>"
                self.pos += len(op)
                return ("r", (None, op), start)
            m = _OPERATOR.match(s, start)
            assert m is not None
            self.pos = m.end()
            return ("o", m.group(), start)
        if c in "<>" and not s.startswith("(", start + 1):
            return self._redir(None, start)
        m = _SIMPLE_WORD.match(s, start)
        if m is not None:
            self.pos = end = m.end()
            text = m.group()
            word = Word([Lit(text, False)], s, start, end)
            if (
                end < self.n
                and s[end] in "<>"
                and not s.startswith("(", end + 1)
                and _FD.fullmatch(text)
            ):
                return self._redir(text, start)
            return ("w", word, start)
        word = self._word()
        if self.pos < self.n and s[self.pos] in "<>" and not s.startswith("(", self.pos + 1):
            fd = word.raw
            if _FD.fullmatch(fd):
                return self._redir(fd, start)
        return ("w", word, start)

    def _redir(self, fd: str | None, start: int) -> Token:
        for op in _REDIRS:
            if self.s.startswith(op, self.pos):
                self.pos += len(op)
                return ("r", (fd, op), start)
        raise AssertionError("not a redirection")  # pragma: no cover - callers check `<`/`>`

    # -- words ---------------------------------------------------------------------------------

    def _word(self) -> Word:
        """One word at `pos` (the caller knows it is not an operator or blank)."""
        s = self.s
        n = self.n
        start = self.pos
        parts: list[Part] = []
        lit: list[str] = []

        def flush() -> None:
            if lit:
                parts.append(Lit("".join(lit), False))
                lit.clear()

        while self.pos < n:
            c = s[self.pos]
            if c in _META:
                if c == "(" and lit and lit[-1] and lit[-1][-1] in _EXTGLOB and not parts:
                    # extglob `@(a|b)`, `!(x)`: the group is part of the word
                    end = self._balanced_end(self.pos)
                    lit.append(s[self.pos : end])
                    self.pos = end
                    continue
                if c == "(" and lit and _assign_prefix("".join(lit)) and not parts:
                    flush()
                    parts.append(self._array())
                    continue
                if c in "<>" and self.pos == start and s.startswith("(", self.pos + 1):
                    parts.append(self._procsub())
                    continue
                break
            if c == "\\":
                if s.startswith("\n", self.pos + 1):
                    self.pos += 2  # a line continuation, even inside a word
                elif self.pos + 1 < n:
                    flush()
                    parts.append(Lit(s[self.pos + 1], True))
                    self.pos += 2
                else:
                    lit.append("\\")
                    self.pos += 1
            elif c == "'":
                flush()
                end = s.find("'", self.pos + 1)
                if end < 0:
                    self.issue("unterminated-quote")
                    end = n
                parts.append(Lit(s[self.pos + 1 : end], True))
                self.pos = end + 1
            elif c == '"':
                flush()
                self._double(parts)
            elif c == "$":
                flush()
                parts.append(self._dollar(False))
            elif c == "`":
                flush()
                parts.append(self._backtick(False))
            else:
                m = _PLAIN.match(s, self.pos)
                if m is None:  # pragma: no cover - every other character is plain
                    lit.append(c)
                    self.pos += 1
                else:
                    lit.append(m.group())
                    self.pos = m.end()
        flush()
        self.pos = min(self.pos, n)
        return Word(parts, s, start, self.pos)

    def _double(self, parts: list[Part]) -> None:
        """A double-quoted string at `pos`: literal text and the expansions inside it."""
        s = self.s
        self.pos += 1
        lit: list[str] = []
        count = len(parts)
        while True:
            if self.pos >= self.n:
                self.issue("unterminated-quote")
                break
            c = s[self.pos]
            if c == '"':
                self.pos += 1
                break
            if c == "\\":
                nxt = s[self.pos + 1 : self.pos + 2]
                if nxt in _DQ_ESCAPES and nxt:
                    if nxt != "\n":
                        lit.append(nxt)
                    self.pos += 2
                else:
                    lit.append("\\")
                    self.pos += 1
            elif c == "$" or c == "`":
                lit = self._expansion(parts, lit, True)
            else:
                m = _DQ_PLAIN.match(s, self.pos)
                assert m is not None
                lit.append(m.group())
                self.pos = m.end()
        if lit or len(parts) == count:  # `""` is an empty word, not no word
            parts.append(Lit("".join(lit), True))

    def _expansion(self, parts: list[Part], lit: list[str], quoted: bool) -> list[str]:
        """The literal text so far into `parts`, then the `$…` or backquote expansion at `pos`;
        returns the emptied literal buffer."""
        if lit:
            parts.append(Lit("".join(lit), quoted))
        parts.append(self._dollar(quoted) if self.s[self.pos] == "$" else self._backtick(quoted))
        return []

    def _dollar(self, quoted: bool) -> Part:
        s = self.s
        start = self.pos
        nxt = s[start + 1 : start + 2]
        if nxt == "(":
            if s.startswith("((", start + 1):
                end = _arith_end(s, start + 1)
                if end > 0:
                    return self._arith(start, start + 3, end - 2, end, quoted)
            return self._cmdsub(quoted)
        if nxt == "{":
            return self._brace_param(quoted)
        if nxt == "'" and not quoted:
            return self._ansi_c()
        if nxt == '"' and not quoted:
            # `$"…"` (a translated string) is a double-quoted string: the caller reads it next.
            self.pos += 1
            return Lit("", True)
        m = _NAME.match(s, start + 1)
        if m:
            self.pos = m.end()
            return Param(m.group(), "", None, quoted, (s, start, self.pos))
        if nxt and nxt in _SPECIAL_PARAMS:
            self.pos = start + 2
            return Param(nxt, "", None, quoted, (s, start, self.pos))
        self.pos = start + 1
        return Lit("$", quoted)

    def _ansi_c(self) -> Lit:
        s = self.s
        i = self.pos + 2
        while i < self.n and s[i] != "'":
            i += 2 if s[i] == "\\" else 1
        if i >= self.n:
            self.issue("unterminated-quote")
        body = s[self.pos + 2 : min(i, self.n)]
        self.pos = min(i + 1, self.n)
        return Lit(re.sub(_ANSI_C, _ansi_c_char, body, flags=re.DOTALL), True)

    def _cmdsub(self, quoted: bool) -> Sub:
        start = self.pos
        self.pos += 2
        if self.depth >= MAX_SYNTAX_DEPTH:
            end = self._balanced_end(start + 1)
            self.issue("nesting-limit", start)
            self.pos = end
            return Sub(None, quoted, (self.s, start, end))
        body = self._nested_seq(")")
        if self.peek()[0] == "o" and self.peek()[1] == ")":
            self.take()
        else:
            self.issue("unterminated-substitution", start)
        end = self.pos
        return Sub(body, quoted, (self.s, start, end))

    def _procsub(self) -> ProcSub:
        start = self.pos
        writes = self.s[start] == ">"
        self.pos += 2
        if self.depth >= MAX_SYNTAX_DEPTH:
            end = self._balanced_end(start + 1)
            self.issue("nesting-limit", start)
            self.pos = end
            return ProcSub(None, (self.s, start, end), writes)
        body = self._nested_seq(")")
        if self.peek()[0] == "o" and self.peek()[1] == ")":
            self.take()
        else:
            self.issue("unterminated-substitution", start)
        end = self.pos
        return ProcSub(body, (self.s, start, end), writes)

    def _nested_seq(self, close: str) -> Seq:
        """Statements up to the closing `close` operator, one level deeper."""
        saved_peek = self.peeked
        assert saved_peek is None, "a word is lexed with nothing peeked"
        self.depth += 1
        try:
            return self._seq(frozenset(), frozenset({close}))
        finally:
            self.depth -= 1

    def _backtick(self, quoted: bool) -> Sub:
        s = self.s
        start = self.pos
        i = start + 1
        out: list[str] = []
        while i < self.n and s[i] != "`":
            if s[i] == "\\" and i + 1 < self.n and s[i + 1] in ("`$\\" + ('"' if quoted else "")):
                out.append(s[i + 1])
                i += 2
            elif s[i] == "\\" and s.startswith("\n", i + 1):
                i += 2
            else:
                out.append(s[i])
                i += 1
        if i >= self.n:
            self.issue("unterminated-substitution", start)
        self.pos = min(i + 1, self.n)
        inner = "".join(out)
        if self.depth >= MAX_SYNTAX_DEPTH:
            self.issue("nesting-limit", start)
            return Sub(None, quoted, (s, start, self.pos), inner)
        sub = _Parser(inner, self.issues, self.deadline, self.depth + 1)
        return Sub(sub.program(), quoted, (s, start, self.pos), inner)

    def _arith(self, start: int, a: int, b: int, end: int, quoted: bool) -> Arith:
        """`$((…))` / `((…))` from `start` to `end`, the expression between `a` and `b`."""
        parts = self._parts_between(a, b)
        self.pos = end
        return Arith(parts, quoted, (self.s, start, end))

    def _parts_between(self, a: int, b: int) -> list[Part]:
        """Literal text and expansions of `s[a:b]` (arithmetic, heredoc-like contexts)."""
        s = self.s
        saved_n = self.n
        self.n = b
        self.pos = a
        parts: list[Part] = []
        lit: list[str] = []
        try:
            while self.pos < b:
                c = s[self.pos]
                if c == "$" or c == "`":
                    lit = self._expansion(parts, lit, False)
                else:
                    lit.append(c)
                    self.pos += 1
        finally:
            self.n = saved_n
        if lit:
            parts.append(Lit("".join(lit), False))
        return parts

    def _brace_param(self, quoted: bool) -> Part:
        """`${…}` at `pos`."""
        s = self.s
        start = self.pos
        i = start + 2
        op = ""
        if s.startswith("#", i) and not s.startswith("}", i + 1):
            op = "len"
            i += 1
        elif s.startswith("!", i) and not s.startswith("}", i + 1):
            op = "indirect"
            i += 1
        m = _NAME.match(s, i)
        if m:
            name = m.group()
            i = m.end()
        elif i < self.n and s[i] in _SPECIAL_PARAMS:
            name = s[i]
            i += 1
            while name.isdigit() and i < self.n and s[i].isdigit():
                name += s[i]
                i += 1
        else:
            name = ""
        index: str | None = None
        if s.startswith("[", i):
            close = s.find("]", i)
            if close > 0:
                index = s[i + 1 : close]
                i = close + 1
        arg: Word | None = None
        arg2: Word | None = None
        param_op = ""
        if op == "indirect" and s.startswith(("*}", "@}"), i):
            i += 1  # `${!prefix*}`: names, not values
        if i < self.n and s[i] != "}":
            for candidate in _PARAM_OPS:
                if s.startswith(candidate, i):
                    param_op = candidate
                    i += len(candidate)
                    break
            else:
                if s[i] == "/":
                    param_op = "/"
                    i += 1
                elif s[i] in "^,:@":
                    param_op = s[i]
                    i += 1
                    if i < self.n and s[i] == param_op and param_op in "^,":
                        param_op += s[i]
                        i += 1
            self.pos = i
            if param_op in ("/", "//", "/#", "/%"):
                arg = self._param_word("/}", quoted)
                if self.pos < self.n and s[self.pos] == "/":
                    self.pos += 1
                    arg2 = self._param_word("}", quoted)
            else:
                arg = self._param_word("}", quoted)
            i = self.pos
        if i < self.n and s[i] == "}":
            i += 1
        else:
            self.issue("unterminated-expansion", start)
            i = self.n
        self.pos = i
        full_op = op or param_op
        if op and param_op:
            full_op = op + param_op
        return Param(name, full_op, arg, quoted, (s, start, i), index, arg2)

    def _param_word(self, stops: str, quoted: bool) -> Word:
        """The word argument inside `${…}`: blanks are literal, `stops` end it."""
        s = self.s
        start = self.pos
        parts: list[Part] = []
        lit: list[str] = []
        depth = 0
        while self.pos < self.n:
            c = s[self.pos]
            if c in stops and depth == 0:
                break
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            if c == "\\" and self.pos + 1 < self.n:
                lit.append(s[self.pos + 1])
                self.pos += 2
            elif c == "'" and not quoted:
                end = s.find("'", self.pos + 1)
                if end < 0:
                    self.issue("unterminated-quote")
                    end = self.n
                lit.append(s[self.pos + 1 : end])
                self.pos = end + 1
            elif c == '"':
                if lit:
                    parts.append(Lit("".join(lit), quoted))
                    lit = []
                self._double(parts)
            elif c == "$" or c == "`":
                lit = self._expansion(parts, lit, quoted)
            else:
                lit.append(c)
                self.pos += 1
        if lit:
            parts.append(Lit("".join(lit), quoted))
        self.pos = min(self.pos, self.n)
        return Word(parts, s, start, self.pos)

    def _array(self) -> Lit:
        """`NAME=(a b c)`: the words are re-lexed by the walker from the raw text."""
        end = self._balanced_end(self.pos)
        raw = self.s[self.pos : end]
        self.pos = end
        return _ArrayLit(raw)

    def _balanced_end(self, open_at: int) -> int:
        """Index after the `)` closing the `(` at `open_at`, skipping quoted text (lexically)."""
        end = balanced_end(self.s, open_at)
        if end < 0:
            self.issue("unterminated-substitution", open_at)
            return self.n
        return end

    # -- heredocs ------------------------------------------------------------------------------

    def _read_heredocs(self) -> None:
        pending, self.pending = self.pending, []
        for doc in pending:
            self._read_heredoc(doc)

    def _read_heredoc(self, doc: Heredoc) -> None:
        s = self.s
        start = self.pos
        found = _terminator(s, start, doc.delim, doc.strip)
        if found is None:
            self.issue("unterminated-heredoc", start)
            body = s[start:]
            self.pos = self.n
        else:
            line_start, line_end = found
            body = s[start:line_start]
            doc.terminated = True
            self.pos = min(line_end + 1, self.n)
        if doc.strip:
            body = re.sub(r"(?m)^\t+", "", body)
        doc.body = body
        if doc.quoted:
            doc.parts = [Lit(body, True)]
        else:
            sub = _Parser(body, self.issues, self.deadline, self.depth + 1)
            doc.parts = sub._heredoc_parts()

    def _heredoc_parts(self) -> list[Part]:
        """An unquoted heredoc body: `$…` and backticks expand, `\\` escapes only `$`, `` ` ``,
        `\\` and newline."""
        s = self.s
        parts: list[Part] = []
        lit: list[str] = []
        while self.pos < self.n:
            c = s[self.pos]
            if c == "\\":
                nxt = s[self.pos + 1 : self.pos + 2]
                if nxt in ("$", "`", "\\"):
                    lit.append(nxt)
                    self.pos += 2
                elif nxt == "\n":
                    self.pos += 2
                else:
                    lit.append("\\")
                    self.pos += 1
            elif c == "$" or c == "`":
                lit = self._expansion(parts, lit, True)
            else:
                m = _HEREDOC_PLAIN.match(s, self.pos)
                assert m is not None
                lit.append(m.group())
                self.pos = m.end()
        if lit:
            parts.append(Lit("".join(lit), True))
        return parts

    def _unterminated_heredocs(self) -> None:
        for doc in self.pending:
            self.issue("unterminated-heredoc", self.n)
            doc.parts = []
        self.pending = []

    # -- grammar -------------------------------------------------------------------------------

    def program(self) -> Seq:
        try:
            seq = self._seq(frozenset(), frozenset())
        except _TooLate:
            self.issue("deadline")
            rest = self.s[self.pos :]
            seq = Seq([Opaque(rest)] if rest.strip() else [], [False])
        except RecursionError:
            self.issue("nesting-limit")
            return Seq([Opaque(self.s)], [False])
        if self.pending:
            self._unterminated_heredocs()
        return seq

    def _seq(self, words: frozenset[str], ops: frozenset[str]) -> Seq:
        """Statements until a reserved word in `words`, an operator in `ops`, or the end."""
        items: list[Node] = []
        background: list[bool] = []
        while True:
            tok = self.peek()
            kind = tok[0]
            if kind == "e":
                break
            if kind == "n":
                self.take()
                continue
            if kind == "o":
                op = tok[1]
                assert isinstance(op, str)
                if op in ops:
                    break
                if op in (";", "&") or op in _CASE_OPS or op == ")":
                    self.issue(f"unexpected-{op}", tok[2])
                    self.take()
                    continue
                if op in ("&&", "||", "|", "|&"):
                    self.issue(f"unexpected-{op}", tok[2])
                    self.take()
                    continue
            if kind == "w":
                word = tok[1]
                assert isinstance(word, Word)
                name = plain(word)
                if name is not None and name in words:
                    break
                if name in _CLOSERS:
                    self.issue(f"unexpected-{name}", tok[2])
                    self.take()
                    continue
            items.append(self._and_or())
            background.append(False)
            tok = self.peek()
            if tok[0] == "o" and tok[1] in (";", "&"):
                self.take()
                background[-1] = tok[1] == "&"
            elif tok[0] == "n":
                self.take()
        return Seq(items, background)

    def _and_or(self) -> Node:
        first = self._pipeline()
        tok = self.peek()
        if tok[0] != "o" or tok[1] not in ("&&", "||"):
            return first
        items = [first]
        ops: list[str] = []
        while tok[0] == "o" and tok[1] in ("&&", "||"):
            self.take()
            ops.append(str(tok[1]))
            self._skip_newlines()
            if self._at_end_of_statement():
                self.issue(f"dangling-{tok[1]}", tok[2])
                break
            items.append(self._pipeline())
            tok = self.peek()
        return AndOr(items, ops)

    def _pipeline(self) -> Node:
        negated = False
        while True:
            tok = self.peek()
            if tok[0] == "w" and isinstance(tok[1], Word) and plain(tok[1]) == "!":
                self.take()
                negated = not negated
                continue
            break
        first = self._command()
        tok = self.peek()
        if tok[0] != "o" or tok[1] not in ("|", "|&"):
            return Pipeline([first], True) if negated else first
        cmds = [first]
        while tok[0] == "o" and tok[1] in ("|", "|&"):
            self.take()
            self._skip_newlines()
            if self._at_end_of_statement():
                self.issue("dangling-|", tok[2])
                break
            cmds.append(self._command())
            tok = self.peek()
        return Pipeline(cmds, negated)

    def _skip_newlines(self) -> None:
        while self.peek()[0] == "n":
            self.take()

    def _at_end_of_statement(self) -> bool:
        tok = self.peek()
        if tok[0] == "e":
            return True
        if tok[0] == "o":
            return tok[1] in (";", "&", ")", "&&", "||", "|", "|&") or tok[1] in _CASE_OPS
        if tok[0] == "w" and isinstance(tok[1], Word):
            return plain(tok[1]) in _CLOSERS
        return False

    def _command(self) -> Node:
        tok = self.peek()
        if tok[0] == "o" and tok[1] == "(":
            return self._redirected(self._paren())
        if tok[0] == "w":
            word = tok[1]
            assert isinstance(word, Word)
            name = plain(word)
            if name is not None:
                if name in _STARTERS:
                    return self._redirected(self._compound(name))
                if name == "coproc":
                    return self._coproc()
                if name == "time" and self._time_prefix():
                    return self._command()
        return self._simple(None)

    def _time_prefix(self) -> bool:
        """`time` before a compound command is the reserved word (dropped); else a command."""
        saved = (self.pos, self.peeked)
        self.take()
        tok = self.peek()
        while tok[0] == "w" and isinstance(tok[1], Word) and plain(tok[1]) == "-p":
            self.take()
            tok = self.peek()
        if tok[0] == "o" and tok[1] == "(":
            return True
        if tok[0] == "w" and isinstance(tok[1], Word) and plain(tok[1]) in _STARTERS:
            return True
        self.pos, self.peeked = saved  # `time make`: the `time` command (a wrapper)
        return False

    def _redirected(self, node: Compound) -> Compound:
        while self.peek()[0] == "r":
            redir = self._redirection()
            if redir is not None:
                node.redirs.append(redir)
        return node

    def _enter(self) -> bool:
        if self.depth >= MAX_SYNTAX_DEPTH:
            return False
        self.depth += 1
        return True

    def _paren(self) -> Compound:
        tok = self.take()
        start = tok[2]
        if self.s.startswith("(", start + 1):
            end = _arith_end(self.s, start)
            if end > 0:
                self.peeked = None
                return ArithCmd(self._arith(start, start + 2, end - 2, end, False))
        if not self._enter():
            return self._opaque_parens(start)
        try:
            body = self._seq(frozenset(), frozenset({")"}))
        finally:
            self.depth -= 1
        self._expect_op(")", start)
        return Subshell(body)

    def _opaque_parens(self, start: int) -> Opaque:
        self.issue("nesting-limit", start)
        self.peeked = None
        end = self._balanced_end(start)
        self.pos = end
        return Opaque(self.s[start + 1 : max(start + 1, end - 1)])

    def _expect_op(self, op: str, start: int) -> None:
        tok = self.peek()
        if tok[0] == "o" and tok[1] == op:
            self.take()
        else:
            self.issue(f"missing-{op}", start)

    def _expect_word(self, word: str, start: int) -> bool:
        tok = self.peek()
        if tok[0] == "w" and isinstance(tok[1], Word) and plain(tok[1]) == word:
            self.take()
            return True
        self.issue(f"missing-{word}", start)
        return False

    def _compound(self, name: str) -> Compound:
        tok = self.take()
        start = tok[2]
        if not self._enter():
            return self._opaque_keywords(name, start)
        try:
            if name == "{":
                body = self._seq(frozenset({"}"}), frozenset())
                self._expect_word("}", start)
                return Group(body)
            if name == "if":
                return self._if(start)
            if name in ("while", "until"):
                cond = self._seq(frozenset({"do"}), frozenset())
                return Loop(name == "until", cond, self._do_body(start))
            if name in ("for", "select"):
                return self._for(start)
            if name == "case":
                return self._case(start)
            if name == "[[":
                return self._cond(start)
            return self._function(start)
        finally:
            self.depth -= 1

    def _if(self, start: int) -> If:
        arms: list[tuple[Seq, Seq]] = []
        orelse: Seq | None = None
        while True:
            cond = self._seq(frozenset({"then"}), frozenset())
            self._expect_word("then", start)
            body = self._seq(frozenset({"elif", "else", "fi"}), frozenset())
            arms.append((cond, body))
            tok = self.peek()
            word = plain(tok[1]) if tok[0] == "w" and isinstance(tok[1], Word) else None
            if word == "elif":
                self.take()
                continue
            if word == "else":
                self.take()
                orelse = self._seq(frozenset({"fi"}), frozenset())
            self._expect_word("fi", start)
            return If(arms, orelse)

    def _do_body(self, start: int) -> Seq:
        self._skip_separators()
        tok = self.peek()
        word = plain(tok[1]) if tok[0] == "w" and isinstance(tok[1], Word) else None
        if word == "{":  # `for x in a; { …; }`: bash takes a group as the loop body
            self.take()
            body = self._seq(frozenset({"}"}), frozenset())
            self._expect_word("}", start)
            return body
        self._expect_word("do", start)
        body = self._seq(frozenset({"done"}), frozenset())
        self._expect_word("done", start)
        return body

    def _skip_separators(self) -> None:
        while True:
            tok = self.peek()
            if tok[0] == "n" or (tok[0] == "o" and tok[1] == ";"):
                self.take()
                continue
            return

    def _for(self, start: int) -> For:
        tok = self.peek()
        if tok[0] == "o" and tok[1] == "(" and self.s.startswith("(", tok[2] + 1):
            end = _arith_end(self.s, tok[2])
            if end > 0:
                self.peeked = None
                arith = self._arith(tok[2], tok[2] + 2, end - 2, end, False)
                return For("", [], self._do_body(start), arith)
        name = ""
        if tok[0] == "w" and isinstance(tok[1], Word):
            self.take()
            name = tok[1].raw
        else:
            self.issue("missing-name", start)
        self._skip_newlines()
        items: list[Word] | None = None
        tok = self.peek()
        if tok[0] == "w" and isinstance(tok[1], Word) and plain(tok[1]) == "in":
            self.take()
            items = []
            while True:
                tok = self.peek()
                if tok[0] != "w":
                    break
                word = self.take()[1]
                assert isinstance(word, Word)
                items.append(word)
        return For(name, items, self._do_body(start), None)

    def _case(self, start: int) -> Case:
        tok = self.peek()
        subject: Word | None = None
        if tok[0] == "w" and isinstance(tok[1], Word):
            self.take()
            subject = tok[1]
        self._skip_newlines()
        self._expect_word("in", start)
        arms: list[tuple[list[Word], Seq]] = []
        while True:
            self._skip_newlines()
            tok = self.peek()
            if tok[0] == "e":
                self.issue("missing-esac", start)
                break
            if tok[0] == "w" and isinstance(tok[1], Word) and plain(tok[1]) == "esac":
                self.take()
                break
            if tok[0] == "o" and tok[1] == "(":
                self.take()
            patterns: list[Word] = []
            while True:
                tok = self.peek()
                if tok[0] == "w" and isinstance(tok[1], Word):
                    self.take()
                    patterns.append(tok[1])
                    tok = self.peek()
                if tok[0] == "o" and tok[1] == "|":
                    self.take()
                    continue
                break
            if not (tok[0] == "o" and tok[1] == ")"):
                self.issue("missing-)", tok[2])
                if tok[0] != "w":
                    self.take()  # never loop on a token the arm cannot use
                continue
            self.take()
            body = self._seq(frozenset({"esac"}), _CASE_OPS)
            arms.append((patterns, body))
            tok = self.peek()
            if tok[0] == "o" and tok[1] in _CASE_OPS:
                self.take()
        return Case(subject, arms)

    def _cond(self, start: int) -> Cond:
        """`[[ … ]]`: words up to `]]`; `<`, `>`, `(`, `)` are operators, not redirections."""
        words: list[Word] = []
        s = self.s
        regex_next = False
        while True:
            m = _BLANKS.match(s, self.pos)
            if m:
                self.pos = m.end()
            if self.pos >= self.n:
                self.issue("missing-]]", start)
                break
            c = s[self.pos]
            if c == "\n":
                self.pos += 1
                continue
            at = self.pos
            if s.startswith("]]", at) and (at + 2 >= self.n or s[at + 2] in _META):
                self.pos += 2
                break
            if regex_next:
                words.append(self._regex_word())
                regex_next = False
                continue
            for op in ("&&", "||", "(", ")", "<", ">", "!"):
                if s.startswith(op, at) and (op != "!" or s[at + 1 : at + 2] in (" ", "\t")):
                    self.pos += len(op)
                    words.append(Word([Lit(op, False)], s, at, at + len(op)))
                    break
            else:
                if c in ";&|":
                    self.issue("unexpected-" + c, at)
                    self.pos += 1
                    continue
                word = self._word()
                words.append(word)
                regex_next = word.raw == "=~"
        return Cond(words)

    def _regex_word(self) -> Word:
        """The right side of `=~`: parentheses and `|` belong to the regex."""
        s = self.s
        start = self.pos
        parts: list[Part] = []
        depth = 0
        while self.pos < self.n:
            c = s[self.pos]
            if c in " \t\n" and depth == 0:
                break
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
            if c in "'\"$`\\":
                sub = self._word_piece()
                parts.extend(sub)
                continue
            parts.append(Lit(c, False))
            self.pos += 1
        return Word(parts, s, start, self.pos)

    def _word_piece(self) -> list[Part]:
        """One quoted or expanded piece at `pos` (inside a regex word)."""
        s = self.s
        c = s[self.pos]
        if c == "'":
            end = s.find("'", self.pos + 1)
            end = self.n if end < 0 else end
            text = s[self.pos + 1 : end]
            self.pos = end + 1
            return [Lit(text, True)]
        if c == '"':
            parts: list[Part] = []
            self._double(parts)
            return parts
        if c == "\\":
            text = s[self.pos + 1 : self.pos + 2]
            self.pos += 2
            return [Lit(text, True)]
        return [self._dollar(False) if c == "$" else self._backtick(False)]

    def _function(self, start: int) -> Compound:
        tok = self.peek()
        if tok[0] != "w" or not isinstance(tok[1], Word):
            self.issue("missing-name", start)
            return Group(Seq([], []))
        self.take()
        name = tok[1].raw
        tok = self.peek()
        if tok[0] == "o" and tok[1] == "(":
            self.take()
            self._expect_op(")", start)
        return self._function_body(name, start)

    def _function_body(self, name: str, start: int) -> Compound:
        self._skip_newlines()
        tok = self.peek()
        if tok[0] == "o" and tok[1] == "(":
            body: Node = self._redirected(self._paren())
        elif tok[0] == "w" and isinstance(tok[1], Word) and plain(tok[1]) in _STARTERS:
            name_word = plain(tok[1])
            assert name_word is not None
            body = self._redirected(self._compound(name_word))
        else:
            self.issue("missing-function-body", start)
            body = self._simple(None)
        return FuncDef(name, body)

    def _coproc(self) -> Node:
        tok = self.take()
        start = tok[2]
        nxt = self.peek()
        if nxt[0] == "o" and nxt[1] == "(":
            return Coproc(None, self._redirected(self._paren()))
        if nxt[0] == "w" and isinstance(nxt[1], Word):
            word = nxt[1]
            name = plain(word)
            if name in _STARTERS:
                assert name is not None
                return Coproc(None, self._redirected(self._compound(name)))
            self.take()
            after = self.peek()
            after_word = plain(after[1]) if after[0] == "w" and isinstance(after[1], Word) else None
            if (after[0] == "o" and after[1] == "(") or after_word in _STARTERS:
                body = self._command()
                return Coproc(word.raw, body)
            return Coproc(None, self._simple(word))
        self.issue("missing-command", start)
        return Coproc(None, Seq([], []))

    def _simple(self, first: Word | None) -> Node:
        assigns: list[Assign] = []
        words: list[Word] = []
        redirs: list[Redir] = []
        start = self.peek()[2] if first is None else first.start
        if first is not None:
            words.append(first)
        while True:
            tok = self.peek()
            kind = tok[0]
            if kind == "w":
                word = tok[1]
                assert isinstance(word, Word)
                self.take()
                if not words:
                    assign = _assignment(word)
                    if assign is not None:
                        assigns.append(assign)
                        continue
                words.append(word)
                if len(words) == 1 and not assigns:
                    nxt = self.peek()
                    if nxt[0] == "o" and nxt[1] == "(" and plain(word) is not None:
                        return self._function_def(word)
            elif kind == "r":
                redir = self._redirection()
                if redir is not None:
                    redirs.append(redir)
            else:
                break
        if not (assigns or words or redirs):
            tok = self.peek()
            self.issue("missing-command", tok[2])
            if tok[0] != "e":
                self.take()  # the parser never stands still on a token it cannot use
        return Simple(assigns, words, redirs, start)

    def _function_def(self, name: Word) -> Node:
        """`name () body`; `name (` without `)` is a syntax error, kept as a call."""
        saved = (self.pos, self.peeked)
        self.take()
        tok = self.peek()
        if tok[0] == "o" and tok[1] == ")":
            self.take()
            if not self._enter():
                return self._opaque_keywords("function", name.start)
            try:
                return self._function_body(name.raw, name.start)
            finally:
                self.depth -= 1
        self.pos, self.peeked = saved
        self.issue("unexpected-(", saved[1][2] if saved[1] else self.pos)
        return Simple([], [name], [], name.start)

    def _redirection(self) -> Redir | None:
        tok = self.take()
        value = tok[1]
        assert isinstance(value, tuple)
        fd: str | None = value[0]
        op: str = value[1]
        target_tok = self.peek()
        if target_tok[0] != "w":
            self.issue("missing-redirect-target", tok[2])
            return None
        self.take()
        word = target_tok[1]
        assert isinstance(word, Word)
        if op in ("<<", "<<-"):
            delim = literal(word)
            quoted = any(not (isinstance(p, Lit) and not p.quoted) for p in word.parts)
            if delim is None:  # `<<$x`: bash takes the word as written
                delim = word.raw
            doc = Heredoc(delim, quoted, op == "<<-")
            self.pending.append(doc)
            return Redir(fd, op, word, doc)
        return Redir(fd, op, word, None)

    def words_only(self) -> list[Word]:
        """Every word of the text, operators and newlines skipped (the inside of `NAME=(…)`)."""
        words: list[Word] = []
        while True:
            tok = self.take()
            if tok[0] == "e":
                return words
            if tok[0] == "w" and isinstance(tok[1], Word):
                words.append(tok[1])

    def _opaque_keywords(self, name: str, start: int) -> Opaque:
        """A compound command nested too deep: its text up to the matching closer, unparsed."""
        self.issue("nesting-limit", start)
        opens = {"if", "case", "{", "for", "while", "until", "select"}
        depth = 1
        position = True  # the next word is in command position
        while depth > 0:
            tok = self.take()
            kind = tok[0]
            if kind == "e":
                break
            if kind in ("n", "o"):
                position = True
                continue
            if kind == "w" and isinstance(tok[1], Word):
                word = plain(tok[1])
                if position and word in opens:
                    depth += 1
                elif position and word in ("fi", "esac", "}", "done", "]]"):
                    depth -= 1
                position = word in ("then", "do", "else", "elif", "{", "!", "in") or (
                    position and word in opens
                )
            else:
                position = False
        return Opaque(self.s[start : self.pos])


class _ArrayLit(Lit):
    """The raw `(a b c)` of an array assignment (a Lit, so words stay a list of parts)."""

    __slots__ = ()

    def __init__(self, raw: str) -> None:
        super().__init__(raw, True)


def is_array(part: Part) -> bool:
    return isinstance(part, _ArrayLit)


def _terminator(s: str, start: int, delim: str, strip: bool) -> tuple[int, int] | None:
    """(start, end) of the first line from `start` that is `delim` (after tabs with `<<-`)."""
    i = start
    size = len(delim)
    while True:
        j = s.find(delim, i)
        if j < 0:
            return None
        line_start = s.rfind("\n", start, j) + 1 if j > start else start
        line_start = max(line_start, start)
        lead = s[line_start:j]
        end = j + size
        if (not lead or (strip and lead.strip("\t") == "")) and (end == len(s) or s[end] == "\n"):
            return line_start, end
        i = j + 1


def _assign_prefix(text: str) -> bool:
    m = _ASSIGN.match(text)
    return m is not None and m.end() == len(text)


def _assignment(word: Word) -> Assign | None:
    """`word` as an assignment when it starts with unquoted `NAME=` (or `NAME+=`, `NAME[i]=`)."""
    parts = word.parts
    if not parts:
        return None
    first = parts[0]
    if not isinstance(first, Lit) or first.quoted:
        return None
    m = _ASSIGN.match(first.text)
    if m is None:
        return None
    name, index, plus = m.group(1), m.group(2), m.group(3)
    rest_text = first.text[m.end() :]
    rest: list[Part] = ([Lit(rest_text, False)] if rest_text else []) + parts[1:]
    array: list[Word] | None = None
    value: Word | None = None
    if len(rest) == 1 and is_array(rest[0]):
        raw = rest[0].text  # type: ignore[union-attr]
        inner = _Parser(raw[1:-1] if raw.endswith(")") else raw[1:], [], None, MAX_SYNTAX_DEPTH - 1)
        array = inner.words_only()
    else:
        value = Word(rest, word.src, word.start + m.end(), word.end)
    return Assign(name, plus == "+", index[1:-1] if index else None, value, array, word.raw)


# -- lexical helpers shared with the fallback ------------------------------------------------------

_BALANCE = r"[()'\"\\`]"  # compiled at first use: only nesting limits and extglobs need it


def balanced_end(s: str, open_at: int) -> int:
    """Index after the `)` closing the `(` at `open_at`, skipping quotes; -1 if unbalanced."""
    depth = 0
    i = open_at
    n = len(s)
    while i < n:
        m = re.compile(_BALANCE).search(s, i)  # re caches the compiled pattern
        if m is None:
            return -1
        i = m.start()
        c = s[i]
        if c == "(":
            depth += 1
            i += 1
        elif c == ")":
            depth -= 1
            i += 1
            if depth == 0:
                return i
        elif c == "\\":
            i += 2
        elif c == "'":
            if i > 0 and s[i - 1] == "$":
                j = i + 1
                while j < n and s[j] != "'":
                    j += 2 if s[j] == "\\" else 1
                i = j + 1
            else:
                end = s.find("'", i + 1)
                i = n if end < 0 else end + 1
        elif c == "`":
            end = s.find("`", i + 1)
            i = n if end < 0 else end + 1
        else:  # '"'
            j = i + 1
            while j < n and s[j] != '"':
                j += 2 if s[j] == "\\" else 1
            i = j + 1
    return -1


def _arith_end(s: str, open_at: int, limit: int = 1 << 16) -> int:
    """Index after `))` when the `((` at `open_at` closes as arithmetic; else -1."""
    depth = 0
    i = open_at + 2
    stop = min(len(s), open_at + limit)
    while i < stop:
        c = s[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return i + 2 if s.startswith(")", i + 1) else -1
            depth -= 1
        elif c in "'\"":
            end = s.find(c, i + 1)
            if end < 0:
                return -1
            i = end
        elif c == "\\":
            i += 1
        i += 1
    return -1


# Compiled at the first `$'…'` (re caches it): most commands have none.
_ANSI_C = r"\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})|c(.)|(.))"
ANSI_C_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}


def _ansi_c_char(m: re.Match[str]) -> str:
    hex2, hex4, hex8, octal, ctrl, other = m.groups()
    if hex2 or hex4 or hex8:
        code = int(hex2 or hex4 or hex8, 16)
    elif octal:
        code = int(octal, 8) & 0xFF
    elif ctrl:
        code = ord(ctrl.upper()) ^ 0x40
    else:
        return ANSI_C_SIMPLE.get(other, other)
    return chr(code) if code < 0x110000 else "\ufffd"
