"""What may be stored: values cut to 4 KiB and known secret shapes redacted.

See docs/audit.md#privacy-and-pruning."""

from __future__ import annotations

import re

STORED_VALUE_CHARS = 4096
SECRET_SHAPES = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
    r"|\bAKIA[0-9A-Z]{16}\b"
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}\b"
    r"|\bsk-[A-Za-z0-9_-]{16,}"
    r"|\bsk_(?:live|test)_[A-Za-z0-9]{8,}"
    r"|\bxox[bpas]-[A-Za-z0-9-]{10,}"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/=-]{16,}"
    # user:password in a URL (`postgres://app:hunter2@db/...`)
    r"|(?<=://)[^\s/:@]+:[^\s/@]+(?=@)"
)


def redact(value: str) -> str:
    return SECRET_SHAPES.sub("[redacted]", value)


def stored_value(value: str) -> str:
    """Redact first (a cut could split a secret and leave half of it), then cut."""
    return redact(value)[:STORED_VALUE_CHARS]
