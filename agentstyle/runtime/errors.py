"""The hook's one error type, light enough for the stdlib-only hook path to import."""

from __future__ import annotations


class HandlerError(Exception):
    """Anything that stops STYLE from evaluating reliably (docs/design/runtime.md#handler-failure);
    `cause` is short."""
