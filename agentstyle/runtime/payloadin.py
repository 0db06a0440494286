"""The payload as the hook reads it: from stdin, bounded, and the few strings it needs first.

Bounded in size and time, and the few top-level strings the hook needs before it decodes anything
(where the project is, which session).

A harness normally closes stdin after the payload; one that does not must not hold the hook:
stdin is read as it comes (`select`, `os.read`), and once it holds one complete JSON object and
nothing more arrives for STALL_S, reading stops; at the deadline it stops in any case. Standard
library only, and `json` only when the cheap scan cannot be sure: the fast path reads this.
Usually the harness has written the whole payload and closed stdin before the interpreter is up,
so what is there is read first without waiting, and `select` (an extension module to load) is
needed only where input is still to come.
"""

from __future__ import annotations

import os
import time

# `typing` is no import of the hook's fast path: mypy reads this name as typing's.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# With a complete-looking object read and stdin still open, wait this long for more.
STALL_S = 0.02
_SPACE = b" \t\r\n"
# The cheap scan looks for a key this far into the payload at most (harnesses put `cwd` and
# `session_id` in the first few hundred bytes); past it `json` decides, for a payload up to
# DECODE_LIMIT (a larger one is decoded by the evaluation, if at all).
SCAN_LIMIT = 8192
DECODE_LIMIT = 1 << 20


def read(fd: int, deadline: float, limit: int) -> tuple[bytes, bool]:
    """(up to `limit` bytes of `fd`, whether the deadline passed before the payload ended).

    The payload ends at end of input, at `limit` bytes, or when what was read is one complete
    JSON object and stdin stays quiet for STALL_S. No stdin, or one that cannot be read, is
    empty input."""
    chunks: list[bytes] = []
    if _read_available(fd, limit, chunks):
        return b"".join(chunks), False
    import select

    size = sum(len(c) for c in chunks)
    while size <= limit:
        left = deadline - time.monotonic()
        if left <= 0:
            return b"".join(chunks), True
        looks_done = size > 0 and chunks[-1].rstrip(_SPACE).endswith(b"}")
        try:
            ready, _, _ = select.select([fd], [], [], min(left, STALL_S) if looks_done else left)
        except (OSError, ValueError):
            return _read_blocking(fd, limit - size, chunks), False
        if not ready:
            if looks_done and _complete(b"".join(chunks)):
                break
            continue
        try:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        except BlockingIOError:
            continue
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


def _read_available(fd: int, limit: int, chunks: list[bytes]) -> bool:
    """Read what `fd` holds now, without waiting, into `chunks`: whether the input ended (end
    of input, `limit` passed, or an error the waiting loop would meet too). The descriptor is
    non-blocking only meanwhile, as its status flags are shared with whoever else holds it."""
    try:
        was_blocking = os.get_blocking(fd)
        os.set_blocking(fd, False)
    except OSError:
        return False  # the waiting loop decides what this stdin is
    size = 0
    try:
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                return True
            chunks.append(chunk)
            size += len(chunk)
        return True
    except OSError:  # nothing yet (BlockingIOError), or left to the waiting loop
        return False
    finally:
        try:  # noqa: SIM105 (`contextlib` is no import of the hook's fast path)
            os.set_blocking(fd, was_blocking)
        except OSError:
            pass


def _read_blocking(fd: int, left: int, chunks: list[bytes]) -> bytes:
    """Where `select` cannot watch stdin: read it as it is (the watchdog bounds the time)."""
    try:
        while left >= 0:
            chunk = os.read(fd, min(1 << 20, left + 1))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        pass
    return b"".join(chunks)


def _complete(data: bytes) -> bool:
    import json

    try:
        return isinstance(json.loads(data.decode("utf-8", "replace")), dict)
    except (ValueError, RecursionError):
        return False


def payload_cwd(data: bytes) -> str | None:
    """The folder the payload names as the call's (runtime/hookrun.py `_cwd`): `cwd`, else the
    first of the workspace's folders where a harness lists them (`harnesses.ROOTS_KEYS`)."""
    cwd = top_string(data, "cwd")
    if cwd is not None or len(data) > DECODE_LIMIT:
        return cwd
    from agentstyle.harnesses import ROOTS_KEYS

    keys = [key for key in ROOTS_KEYS if f'"{key}"'.encode() in data]
    if not keys:
        return None
    import json

    try:
        payload = json.loads(data.decode("utf-8", "replace"))
        return first_root(payload, keys)
    except (ValueError, RecursionError, AttributeError):
        return None


def first_root(payload: dict[str, Any], keys: tuple[str, ...] | list[str]) -> str | None:
    """The first folder of the first of `keys` that lists the workspace's folders."""
    for key in keys:
        roots = payload.get(key)
        if isinstance(roots, list) and roots and isinstance(roots[0], str):
            return roots[0]
    return None


class Unsure(Exception):
    """The cheap scan cannot tell: decode the payload."""


def top_string(data: bytes, key: str) -> str | None:
    """The string value of the top-level `key` of a JSON object, None when it has none.

    Scanned without decoding where it is plain (the key once, at the top level, its value
    without escapes, early in the payload); else decoded with `json`. A payload that is no
    JSON object has no such value."""
    try:
        return _scan(data, key)
    except Unsure:
        if len(data) > DECODE_LIMIT:
            return None
    import json

    try:
        obj = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else None


def _scan(data: bytes, key: str) -> str | None:
    needle = b'"' + key.encode() + b'"'
    at = data.find(needle)
    if at < 0:
        if data.find(b"\\u") >= 0:
            raise Unsure  # the key may be written with escapes
        return None
    if at > SCAN_LIMIT or data.find(needle, at + 1) >= 0 or not _at_top(data, at):
        raise Unsure
    rest = data[at + len(needle) : at + len(needle) + 4096].lstrip(_SPACE)
    if not rest.startswith(b":"):
        raise Unsure
    rest = rest[1:].lstrip(_SPACE)
    if not rest.startswith(b'"'):
        return None  # not a string
    end = rest.find(b'"', 1)
    value = rest[1:end]
    if end < 0 or b"\\" in value:
        raise Unsure
    return value.decode("utf-8", "replace")


def _at_top(data: bytes, at: int) -> bool:
    """Whether offset `at` (a key's opening quote) is directly inside the outermost object."""
    depth = 0
    in_string = escaped = False
    for byte in data[:at]:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x7B, 0x5B):  # { [
            depth += 1
        elif byte in (0x7D, 0x5D):
            depth -= 1
    return depth == 1 and not in_string
