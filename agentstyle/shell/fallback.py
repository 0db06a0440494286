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
    out: list[list[str]] = []
    seen: set[str] = set()
    stack = [_Level("")]
    pos = 0
    n = len(text)
    skip_target = False
    heredocs: list[tuple[str, bool]] = []
    pending_delimiter = False

    def end_word() -> None:
        nonlocal skip_target, pending_delimiter
        level = stack[-1]
        if not level.word_started:
            return
        word = "".join(level.word)
        level.word = []
        level.word_started = False
        if pending_delimiter:
            heredocs.append((word.strip("'\"").replace("\\", ""), heredocs_strip[0]))
            pending_delimiter = False
            return
        if skip_target:
            skip_target = False
            return
        level.segment.append(word)

    def end_segment() -> bool:
        end_word()
        level = stack[-1]
        words = level.segment
        level.segment = []
        while words and words[0] in _RESERVED:
            words.pop(0)
        if words and words[0] not in _HEADERS:
            key = " ".join(words)
            if key not in seen:  # the limit counts distinct commands
                seen.add(key)
                out.append(words)
        return len(out) >= limit

    heredocs_strip = [False]
    while pos < n:
        level = stack[-1]
        c = text[pos]
        if level.kind == '"':
            if c == '"':
                stack.pop()
                pos += 1
                continue
            if c == "\\" and pos + 1 < n:
                _holder(stack).word.append(text[pos + 1])
                pos += 2
                continue
            if c == "$" and text.startswith("$(", pos):
                stack.append(_Level("$("))
                pos += 2
                continue
            if c == "`":
                stack.append(_Level("`"))
                pos += 1
                continue
            m = _DQ_PLAIN.match(text, pos)
            chunk = m.group() if m else c
            _holder(stack).word.append(chunk)
            pos += len(chunk)
            continue
        m = _PLAIN.match(text, pos)
        if m is not None and not (c == "#" and not level.word_started) and c not in "0123456789{":
            level.word.append(m.group())
            level.word_started = True
            pos = m.end()
            continue
        m = _BLANKS.match(text, pos)
        if m is not None:
            end_word()
            pos = m.end()
            continue
        if c == "\\":
            if text.startswith("\n", pos + 1):
                pos += 2
                continue
            level.word.append(text[pos + 1 : pos + 2])
            level.word_started = True
            pos += 2
            continue
        if c == "\n":
            if end_segment():
                return out, True
            pos += 1
            for delim, strip in heredocs:
                pos = _skip_heredoc(text, pos, delim, strip)
            heredocs = []
            continue
        if c == "#" and not level.word_started:
            end = text.find("\n", pos)
            pos = n if end < 0 else end
            continue
        if c == "'":
            end = text.find("'", pos + 1)
            end = n if end < 0 else end
            level.word.append(text[pos + 1 : end])
            level.word_started = True
            pos = end + 1
            continue
        if c == '"':
            level.word_started = True
            stack.append(_Level('"'))
            pos += 1
            continue
        if text.startswith(("$(", "<(", ">("), pos) and not text.startswith("$((", pos):
            if c != "$":
                end_word()
            level.word_started = True
            stack.append(_Level(text[pos : pos + 2]))
            pos += 2
            continue
        if c == "`":
            if level.kind == "`":
                if end_segment():
                    return out, True
                stack.pop()
                _holder(stack).word.append(_PLACEHOLDER["`"])
                pos += 1
                continue
            level.word_started = True
            stack.append(_Level("`"))
            pos += 1
            continue
        if c == ")":
            if end_segment():
                return out, True
            if len(stack) > 1 and level.kind in ("$(", "<(", ">(", "("):
                stack.pop()
                if level.kind != "(":
                    holder = _holder(stack)
                    holder.word.append(_PLACEHOLDER[level.kind])
                    holder.word_started = True
            pos += 1
            continue
        if c == "(":
            if end_segment():
                return out, True
            stack.append(_Level("("))
            pos += 1
            continue
        if c in "<>" or (not level.word_started and c in "0123456789{&"):
            m = _REDIRECT.match(text, pos)
            if m is not None:
                end_word()
                op = m.group()
                pos = m.end()
                if op.endswith(("<<", "<<-")):
                    pending_delimiter = True
                    heredocs_strip[0] = op.endswith("-")
                elif op != "<<<":
                    skip_target = True
                continue
        if c in ";&|":
            if end_segment():
                return out, True
            pos += 1
            continue
        if text.startswith("${", pos):
            end = text.find("}", pos)
            end = n if end < 0 else end + 1
            level.word.append(text[pos:end])
            level.word_started = True
            pos = end
            continue
        m = _PLAIN.match(text, pos)
        chunk = m.group() if m else c
        level.word.append(chunk)
        level.word_started = True
        pos += len(chunk)
    while stack:
        if stack[-1].kind == '"':
            stack.pop()
            continue
        if end_segment():
            return out, True
        stack.pop()
    return out, False


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
