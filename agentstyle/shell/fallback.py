"""Split shell text into simple commands by its operators alone (the lexical fallback).

For text the parser did not structure (nested deeper than it follows, past its deadline): every
command still becomes an element. One pass over the text with an explicit stack of open
substitutions and subshells, so it is linear in the text at any nesting depth. The result is
approximate (reserved words are dropped, a substitution reads as `$(…)` in the word that holds
it, a heredoc body is skipped), which is why the caller flags the analysis incomplete.
"""

from __future__ import annotations

import re

_PLAIN = re.compile(r"[^\s;&|()<>'\"\\$`]+")
_BLANKS = re.compile(r"[ \t\r\f\v]+")
_REDIRECT = re.compile(
    r"(?:[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\})?(?:<<<|<<-|<<|<>|<&|>>|>&|>\||[<>])|&>>|&>"
)
_DQ_PLAIN = re.compile(r'[^"\\$`]+')
_RESERVED = frozenset(
    {
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "do",
        "done",
        "while",
        "until",
        "{",
        "}",
        "!",
        "time",
        "coproc",
        "function",
        "[[",
        "]]",
        "esac",
    }
)
_HEADERS = frozenset({"for", "select", "case", "in"})  # the words after them are no command
_PLACEHOLDER = {"$(": "$(…)", "`": "`…`", "<(": "<(…)", ">(": ">(…)", "(": ""}


class _Level:
    """One open context: the top level, `$(`, backticks, `<(`, a subshell, a double quote."""

    __slots__ = ("kind", "segment", "word", "word_started")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.segment: list[str] = []
        self.word: list[str] = []
        self.word_started = False


def flat_commands(text: str, limit: int) -> tuple[list[list[str]], bool]:
    """The simple commands of `text` and of every substitution in it; True when cut at `limit`."""
    return _Splitter(text, limit).split()


class _Splitter:
    """One lexical split: the open contexts, the words and commands found so far. Each step
    reads from `pos` and moves it on; a step that ends a command returns True when that
    command reached the limit."""

    def __init__(self, text: str, limit: int) -> None:
        self.text = text
        self.n = len(text)
        self.limit = limit
        self.out: list[list[str]] = []
        self.seen: set[str] = set()
        self.stack = [_Level("")]
        self.pos = 0
        self.skip_target = False  # the next word is a redirection's target, no command word
        self.heredocs: list[tuple[str, bool]] = []  # (delimiter, strip tabs) read on this line
        self.pending_delimiter = False  # the next word is a heredoc's delimiter
        self.heredoc_strip = False  # …of `<<-`

    def split(self) -> tuple[list[list[str]], bool]:
        while self.pos < self.n:
            level = self.stack[-1]
            c = self.text[self.pos]
            if level.kind == '"':
                self._double_quoted(c)
                continue
            cut = self._word_part(level, c)
            if cut is None:
                cut = self._operator(level, c)
            if cut is None:
                self._other(level, c)
            elif cut:
                return self.out, True
        stack = self.stack
        while stack:
            if stack[-1].kind == '"':
                stack.pop()
                continue
            if self.end_segment():
                return self.out, True
            stack.pop()
        return self.out, False

    def end_word(self) -> None:
        level = self.stack[-1]
        if not level.word_started:
            return
        word = "".join(level.word)
        level.word = []
        level.word_started = False
        if self.pending_delimiter:
            self.heredocs.append((word.strip("'\"").replace("\\", ""), self.heredoc_strip))
            self.pending_delimiter = False
            return
        if self.skip_target:
            self.skip_target = False
            return
        level.segment.append(word)

    def end_segment(self) -> bool:
        self.end_word()
        level = self.stack[-1]
        words = level.segment
        level.segment = []
        while words and words[0] in _RESERVED:
            words.pop(0)
        if words and words[0] not in _HEADERS:
            key = " ".join(words)
            if key not in self.seen:  # the limit counts distinct commands
                self.seen.add(key)
                self.out.append(words)
        return len(self.out) >= self.limit

    def _double_quoted(self, c: str) -> None:
        text, pos, stack = self.text, self.pos, self.stack
        if c == '"':
            stack.pop()
            self.pos += 1
        elif c == "\\" and pos + 1 < self.n:
            _holder(stack).word.append(text[pos + 1])
            self.pos += 2
        elif c == "$" and text.startswith("$(", pos):
            stack.append(_Level("$("))
            self.pos += 2
        elif c == "`":
            stack.append(_Level("`"))
            self.pos += 1
        else:
            m = _DQ_PLAIN.match(text, pos)
            chunk = m.group() if m else c
            _holder(stack).word.append(chunk)
            self.pos += len(chunk)

    def _word_part(self, level: _Level, c: str) -> bool | None:
        """Plain text, blanks, escapes, line ends, comments and quotes; None: not one of them."""
        text, pos, n = self.text, self.pos, self.n
        m = _PLAIN.match(text, pos)
        if m is not None and not (c == "#" and not level.word_started) and c not in "0123456789{":
            level.word.append(m.group())
            level.word_started = True
            self.pos = m.end()
            return False
        m = _BLANKS.match(text, pos)
        if m is not None:
            self.end_word()
            self.pos = m.end()
            return False
        if c == "\\":
            if text.startswith("\n", pos + 1):
                self.pos += 2
                return False
            level.word.append(text[pos + 1 : pos + 2])
            level.word_started = True
            self.pos += 2
            return False
        if c == "\n":
            if self.end_segment():
                return True
            self.pos += 1
            for delim, strip in self.heredocs:
                self.pos = _skip_heredoc(text, self.pos, delim, strip)
            self.heredocs = []
            return False
        if c == "#" and not level.word_started:
            end = text.find("\n", pos)
            self.pos = n if end < 0 else end
            return False
        if c == "'":
            end = text.find("'", pos + 1)
            end = n if end < 0 else end
            level.word.append(text[pos + 1 : end])
            level.word_started = True
            self.pos = end + 1
            return False
        if c == '"':
            level.word_started = True
            self.stack.append(_Level('"'))
            self.pos += 1
            return False
        return None

    def _operator(self, level: _Level, c: str) -> bool | None:
        """Substitutions, subshells, redirections, separators and `${…}`; None: not one."""
        text, pos = self.text, self.pos
        if text.startswith(("$(", "<(", ">("), pos) and not text.startswith("$((", pos):
            if c != "$":
                self.end_word()
            level.word_started = True
            self.stack.append(_Level(text[pos : pos + 2]))
            self.pos += 2
            return False
        if c == "`":
            return self._backtick(level)
        if c == ")":
            return self._close(level)
        if c == "(":
            if self.end_segment():
                return True
            self.stack.append(_Level("("))
            self.pos += 1
            return False
        if (c in "<>" or (not level.word_started and c in "0123456789{&")) and self._redirect():
            return False
        if c in ";&|":
            if self.end_segment():
                return True
            self.pos += 1
            return False
        if text.startswith("${", pos):
            end = text.find("}", pos)
            end = self.n if end < 0 else end + 1
            level.word.append(text[pos:end])
            level.word_started = True
            self.pos = end
            return False
        return None

    def _backtick(self, level: _Level) -> bool:
        if level.kind == "`":
            if self.end_segment():
                return True
            self.stack.pop()
            _holder(self.stack).word.append(_PLACEHOLDER["`"])
            self.pos += 1
            return False
        level.word_started = True
        self.stack.append(_Level("`"))
        self.pos += 1
        return False

    def _close(self, level: _Level) -> bool:
        if self.end_segment():
            return True
        stack = self.stack
        if len(stack) > 1 and level.kind in ("$(", "<(", ">(", "("):
            stack.pop()
            if level.kind != "(":
                holder = _holder(stack)
                holder.word.append(_PLACEHOLDER[level.kind])
                holder.word_started = True
        self.pos += 1
        return False

    def _redirect(self) -> bool:
        """A redirection operator at `pos`, read (its target or delimiter is the next word)."""
        m = _REDIRECT.match(self.text, self.pos)
        if m is None:
            return False
        self.end_word()
        op = m.group()
        self.pos = m.end()
        if op.endswith(("<<", "<<-")):
            self.pending_delimiter = True
            self.heredoc_strip = op.endswith("-")
        elif op != "<<<":
            self.skip_target = True
        return True

    def _other(self, level: _Level, c: str) -> None:
        m = _PLAIN.match(self.text, self.pos)
        chunk = m.group() if m else c
        level.word.append(chunk)
        level.word_started = True
        self.pos += len(chunk)


def _holder(stack: list[_Level]) -> _Level:
    """The level whose word receives text: the innermost one that is not a double quote."""
    k = len(stack) - 1
    while k > 0 and stack[k].kind == '"':
        k -= 1
    return stack[k]


def _skip_heredoc(s: str, pos: int, delim: str, strip: bool) -> int:
    while pos < len(s):
        end = s.find("\n", pos)
        line = s[pos:] if end < 0 else s[pos:end]
        if (line.lstrip("\t") if strip else line) == delim:
            return len(s) if end < 0 else end + 1
        if end < 0:
            return len(s)
        pos = end + 1
    return pos
