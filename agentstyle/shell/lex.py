"""The lexer of the shell parser: tokens, words with their quotes and expansions, heredocs.

`syntax.py` builds the grammar on top of it (`_Parser` is a `Lexer`); the substitutions that
hold whole programs (`$(…)`, `<(…)`, backticks) are the parser's, declared here.
"""

from __future__ import annotations

import re
import time

from agentstyle.shell.tree import Arith, ArrayLit, Heredoc, Lit, Param, Part, ProcSub, Sub, Word

MAX_SYNTAX_DEPTH = 60  # constructs nested in each other (`$(`, `(`, `{`, `if`, …), strings included
_CHECK_EVERY = 512  # tokens between two looks at the clock

# -- lexing ------------------------------------------------------------------------------------

BLANKS = re.compile(r"(?:[ \t\r\f\v]|\\\n)+")
_PLAIN = re.compile(r"[^\s;&|()<>'\"\\$`]+")
# A word of plain characters only, ended by a blank or an operator (not `(`: `a=(`, `@(`).
_SIMPLE_WORD = re.compile(r"[^\s;&|()<>'\"\\$`]+(?=[\s;&|)<>]|\Z)")
_OPERATOR = re.compile(r";;&|;;|;&|&&|\|\||\|&|[;&|()]")
_DQ_PLAIN = re.compile(r'[^"\\$`]+')
_HEREDOC_PLAIN = re.compile(r"[^\\$`]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?(\+?)=")
_FD = re.compile(r"[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\}")
_SPECIAL_PARAMS = frozenset("@*#?-$!0123456789")
# Blanks include CR: a command pasted with CRLF line ends reads as the shell user meant it.
META = frozenset(" \t\r\f\v\n;&|()<>")
_EXTGLOB = frozenset("@!?*+")
_REDIRS = ("<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">&", ">|", ">")
_PARAM_OPS = (":-", ":=", ":?", ":+", "-", "=", "?", "+", "##", "#", "%%", "%", "//", "/#", "/%")
CASE_OPS = frozenset({";;", ";&", ";;&"})
STARTERS = frozenset({"if", "while", "until", "for", "select", "case", "{", "[[", "function"})
CLOSERS = frozenset({"then", "else", "elif", "fi", "do", "done", "esac", "}"})
_DQ_ESCAPES = frozenset('$`"\\\n')
_HEREDOC_ESCAPES = frozenset("$`\\\n")

# A token: (kind, value, start). kind: "w" word (value Word), "o" operator (value str),
# "r" redirection (value (fd, op)), "n" newline, "e" end of text.
Token = tuple[str, object, int]
_EOF: Token = ("e", None, -1)


class TooLate(Exception):
    """The parse ran past its deadline."""


class Lexer:
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
            raise TooLate
        s = self.s
        while True:
            m = BLANKS.match(s, self.pos)
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
            if c in META:
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
            lit = self._expanding(parts, lit, _DQ_ESCAPES, _DQ_PLAIN)
        if lit or len(parts) == count:  # `""` is an empty word, not no word
            parts.append(Lit("".join(lit), True))

    def _expanding(
        self, parts: list[Part], lit: list[str], escapes: frozenset[str], plain: re.Pattern[str]
    ) -> list[str]:
        """One step through text where `$…` and backticks expand and `\\` escapes only the
        characters of `escapes` (a backslash-newline joins the lines): the inside of double
        quotes, an unquoted heredoc body. `plain` matches a run of text with nothing to do."""
        s = self.s
        c = s[self.pos]
        if c == "\\":
            nxt = s[self.pos + 1 : self.pos + 2]
            if nxt in escapes:
                if nxt != "\n":
                    lit.append(nxt)
                self.pos += 2
            else:
                lit.append("\\")
                self.pos += 1
        elif c == "$" or c == "`":
            lit = self._expansion(parts, lit, True)
        else:
            m = plain.match(s, self.pos)
            assert m is not None
            lit.append(m.group())
            self.pos = m.end()
        return lit

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
                end = arith_end(s, start + 1)
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
        return ArrayLit(raw)

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
            sub = type(self)(body, self.issues, self.deadline, self.depth + 1)
            doc.parts = sub._heredoc_parts()

    def _heredoc_parts(self) -> list[Part]:
        """An unquoted heredoc body: `$…` and backticks expand, `\\` escapes only `$`, `` ` ``,
        `\\` and newline."""
        parts: list[Part] = []
        lit: list[str] = []
        while self.pos < self.n:
            lit = self._expanding(parts, lit, _HEREDOC_ESCAPES, _HEREDOC_PLAIN)
        if lit:
            parts.append(Lit("".join(lit), True))
        return parts

    def _unterminated_heredocs(self) -> None:
        for doc in self.pending:
            self.issue("unterminated-heredoc", self.n)
            doc.parts = []
        self.pending = []

    # -- the parser's: substitutions that hold a program ----------------------------------------

    def _cmdsub(self, quoted: bool) -> Sub:
        raise NotImplementedError

    def _procsub(self) -> ProcSub:
        raise NotImplementedError

    def _backtick(self, quoted: bool) -> Sub:
        raise NotImplementedError


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
    m = ASSIGN.match(text)
    return m is not None and m.end() == len(text)


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


def arith_end(s: str, open_at: int, limit: int = 1 << 16) -> int:
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
