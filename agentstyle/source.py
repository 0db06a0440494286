"""Source positions: where in which file a value was written."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A 1-based line and column in a file, as shown to the user (`file:line:col`)."""

    file: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def shifted(self, text: str, offset: int) -> Span:
        """The span of character `offset` inside `text` when `text` starts at this span.

        Used for errors inside a one-line scalar; multi-line scalars are mapped by the
        YAML loader, which knows their layout.
        """
        before = text[:offset]
        newlines = before.count("\n")
        if newlines == 0:
            return Span(self.file, self.line, self.column + offset)
        return Span(self.file, self.line + newlines, offset - before.rfind("\n"))
