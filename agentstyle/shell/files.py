"""Read a file a command runs, never leaving the project and never blocking the hook."""

from __future__ import annotations

import os
import stat

MAX_SCRIPT_BYTES = 256 * 1024  # a local script larger than this is not read

_O_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the stat must not block the hook
    | getattr(os, "O_NOFOLLOW", 0)  # nor a symlink swapped in after realpath
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)

# Why a file was not read: only "large" means code was there and went unseen.
OK, OUTSIDE, MISSING, LARGE, BINARY = "ok", "outside", "missing", "large", "binary"


def read_project_file(path: str, root: str) -> tuple[str, str, str]:
    """`(status, real path, text)` of a regular file under `root` of at most MAX_SCRIPT_BYTES.

    Devices, FIFOs, directories and anything outside `root` (after symlinks) are never opened.
    """
    try:
        real = os.path.realpath(path)
        if os.path.commonpath((real, root)) != root:
            return OUTSIDE, real, ""
        st = os.stat(real)
        if not stat.S_ISREG(st.st_mode):
            return MISSING, real, ""
        if st.st_size > MAX_SCRIPT_BYTES:
            return LARGE, real, ""
        fd = os.open(real, _O_FLAGS)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return MISSING, real, ""
            if st.st_size > MAX_SCRIPT_BYTES:
                return LARGE, real, ""
            chunks: list[bytes] = []
            size = 0
            while size <= MAX_SCRIPT_BYTES:
                chunk = os.read(fd, MAX_SCRIPT_BYTES + 1 - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return MISSING, path, ""
    data = b"".join(chunks)
    if len(data) > MAX_SCRIPT_BYTES:
        return LARGE, real, ""  # grew since the stat
    if b"\0" in data:
        return BINARY, real, ""  # a compiled binary: no code to match
    return OK, real, data.decode("utf-8", "replace")
