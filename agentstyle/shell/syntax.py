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

from agentstyle.shell.lex import (
    ASSIGN,
    BLANKS,
    CASE_OPS,
    CLOSERS,
    MAX_SYNTAX_DEPTH,
    META,
    STARTERS,
    Lexer,
    TooLate,
    arith_end,
)
from agentstyle.shell.tree import (
    AndOr,
    ArithCmd,
    Assign,
    Case,
    Compound,
    Cond,
    Coproc,
    For,
    FuncDef,
    Group,
    Heredoc,
    If,
    Lit,
    Loop,
    Node,
    Opaque,
    Part,
    Pipeline,
    ProcSub,
    Redir,
    Seq,
    Simple,
    Sub,
    Subshell,
    Word,
    is_array,
    literal,
    plain,
)


class Parsed:
    __slots__ = ("issues", "tree")

    def __init__(self, tree: Seq, issues: list[str]) -> None:
        self.tree = tree
        self.issues = issues


def parse(text: str, deadline: float | None = None, depth: int = 0) -> Parsed:
    """The syntax tree of `text` and the repairs it needed (empty: it parsed as bash does)."""
    parser = _Parser(text, [], deadline, depth)
    return Parsed(parser.program(), parser.issues)


def expansion_parts(text: str, deadline: float | None, depth: int) -> list[Part]:
    """`text` read as bash reads a prompt string (`${x@P}`) or an unquoted heredoc body:
    `$…`, `$(…)`, backticks and `$((…))` expand, the rest is literal."""
    return _Parser(text, [], deadline, depth)._heredoc_parts()


class _Parser(Lexer):
    def _cmdsub(self, quoted: bool) -> Sub:
        body, text = self._substitution()
        return Sub(body, quoted, text)

    def _procsub(self) -> ProcSub:
        writes = self.s[self.pos] == ">"
        body, text = self._substitution()
        return ProcSub(body, text, writes)

    def _substitution(self) -> tuple[Seq | None, tuple[str, int, int]]:
        """The statements of the `$(…)`, `<(…)` or `>(…)` at `pos` and the text it spans; no
        statements past the nesting limit (its text is skipped whole)."""
        start = self.pos
        self.pos += 2
        if self.depth >= MAX_SYNTAX_DEPTH:
            end = self._balanced_end(start + 1)
            self.issue("nesting-limit", start)
            self.pos = end
            return None, (self.s, start, end)
        body = self._nested_seq(")")
        if self.peek()[0] == "o" and self.peek()[1] == ")":
            self.take()
        else:
            self.issue("unterminated-substitution", start)
        return body, (self.s, start, self.pos)

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

    # -- grammar -------------------------------------------------------------------------------

    def program(self) -> Seq:
        try:
            seq = self._seq(frozenset(), frozenset())
        except TooLate:
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
                if op in (";", "&") or op in CASE_OPS or op == ")":
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
                if name in CLOSERS:
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
            return tok[1] in (";", "&", ")", "&&", "||", "|", "|&") or tok[1] in CASE_OPS
        if tok[0] == "w" and isinstance(tok[1], Word):
            return plain(tok[1]) in CLOSERS
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
                if name in STARTERS:
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
        if tok[0] == "w" and isinstance(tok[1], Word) and plain(tok[1]) in STARTERS:
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
            end = arith_end(self.s, start)
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
            end = arith_end(self.s, tok[2])
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
            body = self._seq(frozenset({"esac"}), CASE_OPS)
            arms.append((patterns, body))
            tok = self.peek()
            if tok[0] == "o" and tok[1] in CASE_OPS:
                self.take()
        return Case(subject, arms)

    def _cond(self, start: int) -> Cond:
        """`[[ … ]]`: words up to `]]`; `<`, `>`, `(`, `)` are operators, not redirections."""
        words: list[Word] = []
        s = self.s
        regex_next = False
        while True:
            m = BLANKS.match(s, self.pos)
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
            if s.startswith("]]", at) and (at + 2 >= self.n or s[at + 2] in META):
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
        elif tok[0] == "w" and isinstance(tok[1], Word) and plain(tok[1]) in STARTERS:
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
            if name in STARTERS:
                assert name is not None
                return Coproc(None, self._redirected(self._compound(name)))
            self.take()
            after = self.peek()
            after_word = plain(after[1]) if after[0] == "w" and isinstance(after[1], Word) else None
            if (after[0] == "o" and after[1] == "(") or after_word in STARTERS:
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


def _assignment(word: Word) -> Assign | None:
    """`word` as an assignment when it starts with unquoted `NAME=` (or `NAME+=`, `NAME[i]=`)."""
    parts = word.parts
    if not parts:
        return None
    first = parts[0]
    if not isinstance(first, Lit) or first.quoted:
        return None
    m = ASSIGN.match(first.text)
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
