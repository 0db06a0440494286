"""Render bodies from template rows: runtime variables filled, event content fenced."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentstyle.vocabulary import (
    CHECK_OUTPUT_TAIL_CHARS,
    CHECK_OUTPUT_VARS,
    EVENT_VAR_MAX_CHARS,
    RUNTIME_VAR_WORST_TOKENS,
    STATE_LIST_VARS,
    STATE_VAR_MAX_CHARS,
    estimate_tokens,
)

RUNTIME_VAR_MAX_CHARS = RUNTIME_VAR_WORST_TOKENS * 4

# (kind, text, var, default) as stored in the `templates` table.
SegmentRow = tuple[str, str | None, str | None, str | None]
Lookup = Callable[[str], list[str]]


# Escaped inside a fence: `<`, `>`, `&` (no value can close its fence), and the characters
# JSON leaves raw that still break a line (U+0085, U+2028, U+2029), so a value stays one line.
_FENCE_ESCAPES = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x85: "\\u0085",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}
FENCE_OPEN = "<style-untrusted-event"
FENCE_CLOSE = "</style-untrusted-event>"


def fence(field: str, value: str, limit: int = EVENT_VAR_MAX_CHARS) -> str:
    """Untrusted event content as one escaped JSON line no value can break out of
    (docs/design/runtime.md#render)."""
    truncated = len(value) > limit
    encoded = json.dumps(value[:limit], ensure_ascii=False)
    encoded = encoded.translate(_FENCE_ESCAPES)
    return (
        f'<style-untrusted-event field="{field}" truncated="{str(truncated).lower()}">'
        f"{encoded}</style-untrusted-event>"
    )


def render(segments: Sequence[SegmentRow], lookup: Lookup) -> str:
    parts: list[str] = []
    for kind, text, var, default in segments:
        if kind == "text":
            parts.append(text or "")
            continue
        assert var is not None
        if var.startswith("event."):
            values = lookup(var[len("event.") :])
            if values and var in STATE_LIST_VARS:
                parts.append(fence(var, ", ".join(values), STATE_VAR_MAX_CHARS))
            elif values:
                parts.append(fence(var, "\n".join(values)))
            else:
                parts.append(default or "")
        elif var in CHECK_OUTPUT_VARS:
            # a check's output: what the project's command printed, fenced as event content
            values = lookup(var)
            tail = values[0][-CHECK_OUTPUT_TAIL_CHARS:] if values else ""
            parts.append(fence(var, tail, CHECK_OUTPUT_TAIL_CHARS) if tail else (default or ""))
        else:
            values = lookup(var)
            # Runtime values come from the payload too (a model id, a permission mode): one
            # line, and no longer than validation's worst case of 16 tokens assumes.
            value = " ".join(values[0].split())[:RUNTIME_VAR_MAX_CHARS] if values else ""
            parts.append(value if value and value != "unknown" else (default or value))
    return "".join(parts)


def first_sentence(text: str) -> str:
    """A warn's default model text: the body's first sentence (docs/rules.md#model_text)."""
    for i, ch in enumerate(text):
        if ch == "\n":
            return text[:i].strip()
        if ch in ".!?" and (i + 1 == len(text) or text[i + 1] in " \n"):
            return text[: i + 1].strip()
    return text.strip()


def truncate(text: str, max_tokens: int) -> tuple[str, bool]:
    """Cut text to `max_tokens` estimated tokens, ending with `…` (docs/design/runtime.md#cuts)."""
    if estimate_tokens(text) <= max_tokens:
        return text, False
    budget = max(0, max_tokens * 4 - len("…".encode()))
    cut = text.encode()[:budget].decode("utf-8", errors="ignore")
    # Never leave a fence open: a cut inside untrusted event content drops that fenced value
    # whole, so whatever follows the output can never be read as part of it.
    start = cut.rfind(FENCE_OPEN)
    if start >= 0 and cut.find(FENCE_CLOSE, start) < 0:
        cut = cut[:start]
    return cut.rstrip() + "…", True


@dataclass(slots=True)
class Rendered:
    text: str
    model_text: str | None
    tokens: int
    truncated: bool
    hash: str


def render_rule(
    action: str,
    body: Sequence[SegmentRow],
    model_text: Sequence[SegmentRow] | None,
    max_tokens: int,
    lookup: Lookup,
) -> Rendered:
    text = render(body, lookup)
    mt: str | None = None
    truncated = False
    if action == "warn":
        mt = render(model_text, lookup) if model_text else first_sentence(text)
        mt, truncated = truncate(mt, max_tokens)
        tokens = estimate_tokens(mt)
    elif action == "inject":
        text, truncated = truncate(text, max_tokens)
        tokens = estimate_tokens(text)
    else:
        tokens = estimate_tokens(text)
    digest = hashlib.sha256((text + "\0" + (mt or "")).encode()).hexdigest()[:32]
    return Rendered(text, mt, tokens, truncated, digest)
