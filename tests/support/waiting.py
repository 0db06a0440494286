"""Waiting for what a background process does: `poll` asks until the answer is there or the
deadline has passed, so a test waits as long as the work takes on a busy machine and no longer."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def poll(what: str, done: Callable[[], T], deadline_s: float, every_s: float = 0.1) -> T:
    """`done()` once it is truthy, asked every `every_s` until `deadline_s` has passed
    (AssertionError naming `what`)."""
    until = time.monotonic() + deadline_s
    while True:
        value = done()
        if value:
            return value
        if time.monotonic() > until:
            raise AssertionError(f"not within {deadline_s:g} s: {what}")
        time.sleep(every_s)
