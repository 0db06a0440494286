"""Reading package files within docs/packages.md#file-limits: inside the package, small, UTF-8."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agentstyle import codes
from agentstyle.diagnostics import Diagnostic
from agentstyle.source import Span

MAX_FILE_BYTES = 256 * 1024
MAX_RULE_FILES = 10_000


@dataclass(frozen=True, slots=True)
class PackageFile:
    rel: str  # path relative to the package root, `/`-separated
    display: str  # path as shown in diagnostics
    text: str
    raw: bytes


def display_path(root_display: str, rel: str) -> str:
    return rel if root_display in ("", ".") else f"{root_display.rstrip('/')}/{rel}"


def inside(root: Path, path: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def decode(
    raw: bytes, display: str, rel: str | None = None
) -> tuple[str | None, Diagnostic | None]:
    """UTF-8 text with a BOM dropped and CRLF normalized, or a `bad-encoding` diagnostic.

    The diagnostic points at the first offending byte (`display` is the file's path as shown,
    `rel` its path in the package, used in the message).
    """
    name = rel or display
    nul = raw.find(b"\x00")
    if nul >= 0:
        return None, Diagnostic.make(
            codes.BAD_ENCODING,
            f"`{name}` is binary (NUL byte); package files are UTF-8 text",
            _byte_span(raw, nul, display),
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, Diagnostic.make(
            codes.BAD_ENCODING,
            f"`{name}` is not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
            _byte_span(raw, exc.start, display),
        )
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n"), None


def _byte_span(raw: bytes, index: int, display: str) -> Span:
    """Line and column (in characters, as editors count them) of byte `index`."""
    start = raw.rfind(b"\n", 0, index) + 1
    line = raw.count(b"\n", 0, index) + 1
    prefix = raw[start:index]
    if prefix.startswith(b"\xef\xbb\xbf") and start == 0:
        prefix = prefix[3:]
    column = len(prefix.decode("utf-8", errors="replace").rstrip("\r")) + 1
    return Span(display, line, column)


def read_package_file(
    root: Path, rel: str, root_display: str, at: Span
) -> tuple[PackageFile | None, Diagnostic | None]:
    """Read `rel` under `root`; `at` is where the reference was written (for errors)."""
    display = display_path(root_display, rel)
    if os.path.isabs(rel) or rel.startswith("~"):
        return None, Diagnostic.make(codes.PATH_ESCAPE, f"`{rel}` is not a relative path", at)
    real_root = root.resolve()
    candidate = root / rel
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError):
        return None, Diagnostic.make(
            codes.FILE_NOT_FOUND, f"cannot resolve `{rel}` (a loop of symbolic links)", at
        )
    if not inside(real_root, resolved):
        return None, Diagnostic.make(
            codes.PATH_ESCAPE, f"`{rel}` resolves outside the package folder", at
        )
    try:
        st = os.stat(resolved)
    except FileNotFoundError:
        return None, Diagnostic.make(codes.FILE_NOT_FOUND, f"file `{rel}` does not exist", at)
    except OSError as exc:
        return None, Diagnostic.make(
            codes.FILE_NOT_FOUND, f"cannot read `{rel}`: {exc.strerror}", at
        )
    if not stat.S_ISREG(st.st_mode):
        return None, Diagnostic.make(codes.FILE_TOO_LARGE, f"`{rel}` is not a regular file", at)
    if st.st_size > MAX_FILE_BYTES:
        return None, Diagnostic.make(
            codes.FILE_TOO_LARGE, f"`{rel}` is {st.st_size} bytes, over the 256 KiB limit", at
        )
    try:
        with open(resolved, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        reason = (exc.strerror or str(exc)).lower()
        return None, Diagnostic.make(codes.FILE_NOT_FOUND, f"cannot read `{rel}`: {reason}", at)
    if len(raw) > MAX_FILE_BYTES:
        return None, Diagnostic.make(codes.FILE_TOO_LARGE, f"`{rel}` is over the 256 KiB limit", at)
    text, problem = decode(raw, display, rel)
    if text is None:
        return None, problem
    return PackageFile(rel, display, text, raw), None


def list_rule_files(root: Path) -> list[str]:
    """Every `*.md` under `rules/`, `/`-separated and sorted; symlinks are listed, not followed."""
    base = root / "rules"
    if not base.is_dir():
        return []
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames.sort()
        for name in filenames:
            if name.endswith(".md"):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                found.append(rel.replace(os.sep, "/"))
    return sorted(found)
