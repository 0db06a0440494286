"""The shell syntax tree: the nodes the parser (`syntax.py`) builds and the walker reads."""

from __future__ import annotations

from agentstyle.slotted import Slotted

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


class Assign(metaclass=Slotted):
    """`NAME=value`, `NAME+=value`, `NAME=(a b)`, `NAME[i]=v`."""

    name: str
    append: bool
    index: str | None
    value: Word | None
    array: list[Word] | None
    raw: str


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


class ArrayLit(Lit):
    """The raw `(a b c)` of an array assignment (a Lit, so words stay a list of parts)."""

    __slots__ = ()

    def __init__(self, raw: str) -> None:
        super().__init__(raw, True)


def is_array(part: Part) -> bool:
    return isinstance(part, ArrayLit)


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
