"""One diagnostic model: what went wrong, where, and how bad; rendered as text or JSON."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

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

    def hinted(self, hint: str | None) -> Diagnostic:
        """This diagnostic with `hint` (a "did you mean" or "quote it") ending its message and
        kept as its `help`: text output is one line, JSON readers get the hint on its own."""
        if not hint:
            return self
        return replace(self, message=f"{self.message}; {hint}", help=hint)

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


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
    neighbours each cost 1 (`acton` → `action` is 1, `actoin` → `action` is 1)."""
    if a == b:
        return 0
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[-1]


def closest(word: str, candidates: Sequence[str]) -> str | None:
    """The candidate `word` most likely misspells, or None when none is close.

    Close means a case-insensitive match, or an edit distance of at most a third of the last
    dotted segment (at least 1): `pth` → `path` in `event.file.pth`, while `harness.foo` does
    not become `harness.cwd`. Ties go to the earlier candidate, so callers order by relevance.
    Failing that, a candidate that is the only one to start `word` or be started by it.
    """
    if not word:
        return None
    lowered = word.lower()
    best: tuple[int, str] | None = None
    limit = max(len(word.rsplit(".", 1)[-1]), 3) // 3
    for cand in candidates:
        if cand == word:
            return None
        if cand.lower() == lowered:
            return cand
        d = edit_distance(lowered, cand.lower())
        if d <= limit and d < len(word) and (best is None or d < best[0]):
            best = (d, cand)
    if best is not None:
        return best[1]
    # An abbreviation or a longer spelling of exactly one candidate (`operator` for `op`).
    pool = [c for c in candidates if min(len(c), len(word)) >= 2]
    related = [c for c in pool if c.lower().startswith(lowered) or lowered.startswith(c.lower())]
    return related[0] if len(related) == 1 else None


def suggestion(match: str | None) -> str | None:
    """`did you mean `x`?`: the one phrasing every code uses for a likely misspelling."""
    return f"did you mean `{match}`?" if match else None


def did_you_mean(word: object, candidates: Sequence[str]) -> str | None:
    """The suggestion for `word` among `candidates`, if one is close."""
    return suggestion(closest(word, candidates)) if isinstance(word, str) else None


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
