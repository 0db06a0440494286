"""The output of commands the command text fixes, and the decoders that hide code.

`echo`, `printf`, `cat` of known input, and the decoders (`base64 -d`, `xxd -r -p`, `rev`, `tr`,
`gunzip`).

This is how `printf 'rm -rf /\\n' | sh`, `echo cm0gLXJmIC8= | base64 -d | bash` and
`$(echo rm) -rf /` show what they run. Text is `str`; bytes that are not UTF-8 travel as
surrogate escapes, so a decoder's binary output reaches the next decoder intact.
"""

from __future__ import annotations

import re

from agentstyle.shell.lex import ANSI_C_SIMPLE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


MAX_OUTPUT = 1 << 20  # characters of computed output kept; more is not followed

# Producers whose output is fetched from elsewhere: code from them is a download.
DOWNLOADERS = frozenset(
    {
        "curl",
        "wget",
        "fetch",
        "aria2c",
        "http",
        "https",
        "xh",
        "httpie",
        "lwp-request",
        "GET",
        "nc",
        "ncat",
        "socat",
        "ftp",
        "tftp",
        "scp",
        "rsync",
        "gh",
        "aws",
        "gsutil",
        "az",
    }
)
# Commands that turn encoded text into other text: code from them was hidden on purpose.
# Filters `transform` computes the output of; they turn encoded text into other text.
_CODECS = frozenset(
    {
        "base64",
        "gbase64",
        "base32",
        "basenc",
        "openssl",
        "xxd",
        "rev",
        "tr",
        "gunzip",
        "zcat",
        "gzip",
        "bzcat",
        "bunzip2",
        "bzip2",
        "xzcat",
        "unxz",
        "xz",
    }
)
FILTERS = _CODECS | {"cat", "tee"}
# Commands that turn text into other text: code from them was hidden on purpose.
DECODERS = _CODECS | {
    "zstd",
    "unzstd",
    "uudecode",
    "od",
    "hexdump",
    "iconv",
    "sed",
    "awk",
    "perl",
    "python",
    "python3",
    "node",
    "ruby",
    "jq",
    "yq",
}


_ECHO_OPTION = re.compile(r"-[neE]+")


def echo(args: Sequence[str]) -> str:
    words = list(args)
    newline = True
    escapes = False
    while words and _ECHO_OPTION.fullmatch(words[0]):
        flags = words.pop(0)[1:]
        newline = newline and "n" not in flags
        if "e" in flags:
            escapes = True
        if "E" in flags:
            escapes = False
    text = " ".join(words)
    if escapes:
        text, stop = _escapes(text, echo=True)
        if stop:
            return text
    return text + ("\n" if newline else "")


_ESCAPE = re.compile(
    r"\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|"
    r"0([0-7]{0,3})|([0-7]{1,3})|(.))",
    re.S,
)
# The one-letter escapes of `$'…'`, and the quotes and `?` echo -e and printf also take.
_SIMPLE = {**ANSI_C_SIMPLE, "\\": "\\", '"': '"', "'": "'", "?": "?"}


def _escapes(text: str, echo: bool) -> tuple[str, bool]:
    """Backslash escapes as `echo -e` / `printf` read them; True when `\\c` stopped the output."""
    out: list[str] = []
    pos = 0
    for m in _ESCAPE.finditer(text):
        out.append(text[pos : m.start()])
        pos = m.end()
        hex2, hex4, hex8, zero_octal, octal, other = m.groups()
        if hex2 or hex4 or hex8:
            code = int(hex2 or hex4 or hex8, 16)
            out.append(chr(code) if code < 0x110000 else "\ufffd")
        elif zero_octal is not None:
            out.append(chr(int(zero_octal or "0", 8) & 0xFF))
        elif octal is not None:
            if echo:
                out.append("\\" + octal)  # `echo -e` needs the leading 0
            else:
                out.append(chr(int(octal, 8) & 0xFF))
        elif other == "c":
            return "".join(out), True
        else:
            out.append(_SIMPLE.get(other, "\\" + other))
    out.append(text[pos:])
    return "".join(out), False


_CONVERSION = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([sbcdiouxXfeEgGq%])")


def printf(args: Sequence[str]) -> str | None:
    """`printf FORMAT [ARGS…]`'s output; None for a form not modelled (`-v` is the caller's)."""
    if not args:
        return None
    fmt, rest = args[0], list(args[1:])
    if fmt == "--" and rest:
        fmt, rest = rest[0], rest[1:]
    out: list[str] = []
    rounds = 0
    while True:
        used = 0  # arguments this round took: the format repeats while some are left
        pos = 0
        for m in _CONVERSION.finditer(fmt):
            text, stop = _escapes(fmt[pos : m.start()], echo=False)
            out.append(text)
            if stop:
                return "".join(out)
            pos = m.end()
            flags, width, precision, conv = m.groups()
            if conv == "%":
                out.append("%")
                continue
            if width == "*":
                width = rest.pop(0) if rest else "0"
                used += 1
            if precision == "*":
                precision = rest.pop(0) if rest else "0"
                used += 1
            if rest:
                used += 1
            arg = rest.pop(0) if rest else ""
            out.append(_convert(conv, flags, width, precision, arg))
        text, stop = _escapes(fmt[pos:], echo=False)
        out.append(text)
        rounds += 1
        if stop or not rest or not used or rounds > 256:
            break
    return "".join(out)[:MAX_OUTPUT]


def _convert(conv: str, flags: str, width: str | None, precision: str | None, arg: str) -> str:
    if conv == "b":
        text = _escapes(arg, echo=True)[0]
    elif conv == "q":
        text = arg
    elif conv == "c":
        text = arg[:1]
    elif conv in "diouxX":
        try:
            number = int(arg, 0) if arg.strip() else 0
        except ValueError:
            number = ord(arg[1]) if arg[:1] in "'\"" and len(arg) > 1 else 0
        text = format(number, {"d": "d", "i": "d", "u": "d", "o": "o", "x": "x", "X": "X"}[conv])
    elif conv in "feEgG":
        try:
            text = format(float(arg or 0), conv)
        except ValueError:
            text = "0"
    else:
        text = arg
    if precision is not None and conv in "sbq" and precision.isdigit():
        text = text[: int(precision)]
    if width and width.lstrip("-").isdigit():
        size = int(width)
        text = text.ljust(size) if "-" in flags or size < 0 else text.rjust(size)
    return text


def transform(name: str, argv: Sequence[str], text: str) -> str | None:
    """The output of `argv` (named `name`) reading `text` on stdin, when it is a known filter."""
    args = list(argv[1:])
    if name in ("cat", "tee") and all(
        a == "-" or (name == "tee" and a.startswith("-")) for a in args
    ):
        return text
    if name in ("base64", "gbase64", "base32") and _has_flag(args, "d", ("--decode",), "D"):
        return _base_decode(text, name)
    if name == "basenc" and "--base64" in args and _has_flag(args, "d", ("--decode",)):
        return _base_decode(text, "base64")
    if (
        name == "openssl"
        and "-d" in args
        and (
            args[:1] == ["base64"] or (args[:1] == ["enc"] and ("-base64" in args or "-a" in args))
        )
    ):
        return _base_decode(text, "base64")
    if (
        name == "xxd"
        and _has_flag(args, "r", ("--revert",))
        and _has_flag(args, "p", ("-ps", "-plain", "--plain", "-postscript"))
    ):
        return _hex_decode(text)
    if name == "rev" and not [a for a in args if not a.startswith("-")]:
        return "".join(line[::-1] + nl for line, nl in _lines(text))
    if name == "tr":
        return _tr(args, text)
    if name in ("gunzip", "zcat") or (name == "gzip" and _has_flag(args, "d", ("--decompress",))):
        return _decompress(text, "gzip")
    if name in ("bzcat", "bunzip2") or (
        name == "bzip2" and _has_flag(args, "d", ("--decompress",))
    ):
        return _decompress(text, "bz2")
    if name in ("xzcat", "unxz") or (name == "xz" and _has_flag(args, "d", ("--decompress",))):
        return _decompress(text, "lzma")
    return None


def _has_flag(args: Sequence[str], letter: str, longs: Sequence[str], alt: str = "") -> bool:
    for a in args:
        if a in longs:
            return True
        if (
            a.startswith("-")
            and not a.startswith("--")
            and (letter in a[1:] or (alt and alt in a[1:]))
        ):
            return True
    return False


def _lines(text: str) -> list[tuple[str, str]]:
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        out.append((body, line[len(body) :]))
    return out


def _base_decode(text: str, kind: str) -> str | None:
    import base64
    import binascii

    data = re.sub(r"\s+", "", text).encode("ascii", "ignore")
    try:
        if kind == "base32":
            raw = base64.b32decode(data + b"=" * (-len(data) % 8))
        else:
            raw = base64.b64decode(data + b"=" * (-len(data) % 4), altchars=None)
    except (binascii.Error, ValueError):
        return None
    return raw[:MAX_OUTPUT].decode("utf-8", "surrogateescape")


def _hex_decode(text: str) -> str | None:
    digits = re.sub(r"[^0-9A-Fa-f]", "", text)
    try:
        raw = bytes.fromhex(digits[: len(digits) // 2 * 2])
    except ValueError:
        return None
    return raw[:MAX_OUTPUT].decode("utf-8", "surrogateescape")


def _decompress(text: str, kind: str) -> str | None:
    raw = text.encode("utf-8", "surrogateescape")
    try:
        if kind == "gzip":
            import zlib

            out = zlib.decompressobj(wbits=47).decompress(raw, MAX_OUTPUT)
        elif kind == "bz2":
            import bz2

            out = bz2.BZ2Decompressor().decompress(raw, MAX_OUTPUT)
        else:
            import lzma

            out = lzma.LZMADecompressor().decompress(raw, MAX_OUTPUT)
    except (OSError, ValueError, EOFError, Exception):
        return None
    return out.decode("utf-8", "surrogateescape")


_TR_CLASSES = {
    "[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "[:lower:]": "abcdefghijklmnopqrstuvwxyz",
    "[:digit:]": "0123456789",
    "[:space:]": " \t\n\r\f\v",
    "[:blank:]": " \t",
}


def _tr_set(spec: str) -> str:
    for name, chars in _TR_CLASSES.items():
        spec = spec.replace(name, chars)
    spec = _escapes(spec, echo=False)[0]
    out: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            a, b = ord(spec[i]), ord(spec[i + 2])
            if a <= b and b - a < 0x400:
                out.extend(chr(c) for c in range(a, b + 1))
                i += 3
                continue
        out.append(spec[i])
        i += 1
    return "".join(out)


def _tr(args: list[str], text: str) -> str | None:
    flags = [a for a in args if a.startswith("-") and len(a) > 1]
    sets = [a for a in args if not (a.startswith("-") and len(a) > 1)]
    if any(set(f[1:]) - {"d", "s"} for f in flags):
        return None  # complements and the like are not modelled
    delete = any("d" in f for f in flags)
    squeeze = any("s" in f for f in flags)
    if delete and sets:
        gone = set(_tr_set(sets[0]))
        return "".join(c for c in text if c not in gone)
    if len(sets) != 2:
        return None if not squeeze else text
    a, b = _tr_set(sets[0]), _tr_set(sets[1])
    if not b:
        return None
    b = b + b[-1] * max(0, len(a) - len(b))
    table = {ord(x): y for x, y in zip(a, b, strict=False)}
    out = text.translate(table)
    if squeeze:
        out = re.sub(r"(.)\1+", r"\1", out) if len(set(b)) else out
    return out
