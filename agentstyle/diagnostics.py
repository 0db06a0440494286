"""One diagnostic model: what went wrong, where, and how bad; rendered as text or JSON."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from agentstyle.codes import Level, level_of
from agentstyle.source import Span


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span | None = None
    rule: str | None = None
    help: str | None = None
    level: Level = field(default="error")

    @staticmethod
    def make(
        code: str,
        message: str,
        span: Span | None = None,
        *,
        rule: str | None = None,
        help: str | None = None,
    ) -> Diagnostic:
        """A diagnostic whose level comes from the code registry."""
        return Diagnostic(code, message, span, rule, help, level_of(code))

    def sort_key(self) -> tuple[str, int, int, str, str]:
        s = self.span
        return (
            s.file if s else "",
            s.line if s else 0,
            s.column if s else 0,
            self.code,
            self.message,
        )

    def render(self) -> str:
        where = f"{self.span}: " if self.span else ""
        return f"{where}{self.level} {self.code}: {self.message}"

    def to_json(self) -> dict[str, object]:
        s = self.span
        return {
            "code": self.code,
            "level": self.level,
            "message": self.message,
            "file": s.file if s else None,
            "line": s.line if s else None,
            "column": s.column if s else None,
            "rule": self.rule,
            "help": self.help,
        }


def sort_diagnostics(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Sorted by file and position, duplicates removed (two passes may see one problem)."""
    unique = {(d.sort_key(), d.rule): d for d in diags}
    return sorted(unique.values(), key=lambda d: d.sort_key())


def has_errors(diags: Iterable[Diagnostic], *, strict: bool = False) -> bool:
    return any(d.level == "error" or strict for d in diags)


def render_text(diags: Iterable[Diagnostic]) -> str:
    return "".join(d.render() + "\n" for d in diags)


class StyleError(Exception):
    """A failure the user must see as one clear line (no traceback).

    `hint`, when given, is what the user can do about it: the command line adds it to the line.
    """

    def __init__(self, message: str = "", *, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint
