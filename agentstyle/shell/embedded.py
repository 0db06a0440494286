"""Shell commands inside interpreter code: what its calls that run a shell are given.

What `os.system`, `subprocess.run`, `execSync`, Perl/Ruby `system` and backticks, PHP
`shell_exec`, awk `system()`, … are given.

`shell_calls(family, code)` tokenizes the code (strings decoded, comments dropped), finds the
calls of the APIs that run commands, and reads their literal arguments: a string is a shell
command, a list is an argument vector. A name assigned a literal earlier in the code is
resolved (`cmd = "rm -rf /"; os.system(cmd)`); an argument that is not literal is reported as
dynamic, with what is known of it kept in place (`rm -rf $path`).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator


MAX_CALLS = 256  # calls read from one piece of code

# A found call: ("sh", text) a shell command string, ("argv", words) an argument vector.
Call = tuple[str, str | list[str]]


class Found:
    __slots__ = ("calls", "dynamic", "scanned")

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.dynamic = False  # some call's command is only known at run time
        self.scanned = 0  # characters tokenized (code with no trigger word is not)


# Words that must appear for a family's code to be tokenized at all (a cheap pre-filter).
_TRIGGERS = {
    "python": ("system", "popen", "subprocess", "exec", "spawn", "getoutput", "pexpect", "pty"),
    "node": ("child_process", "exec", "spawn", "Bun", "Deno", "$`", "execa", "shelljs"),
    "perl": ("system", "exec", "`", "qx", "readpipe", "open"),
    "ruby": ("system", "exec", "spawn", "`", "%x", "popen", "Open3", "PTY"),
    "php": ("system", "exec", "shell_exec", "passthru", "popen", "proc_open", "`"),
    "lua": ("execute", "popen"),
    "awk": ("system", "getline", "|"),
    "r": ("system", "shell"),
    "osascript": ("shell script",),
}

_PY_SHELL = frozenset(
    {
        "os.system",
        "os.popen",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "commands.getoutput",
        "commands.getstatusoutput",
        "asyncio.create_subprocess_shell",
        "pexpect.spawn",
        "pexpect.run",
        "popen2.popen2",
        "popen2.popen3",
        "os.popen2",
        "os.popen3",
        "os.popen4",
    }
)
_PY_EITHER = frozenset(
    {
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.Popen",
        "pty.spawn",
    }
)
_PY_VARARGS = frozenset(
    {
        "asyncio.create_subprocess_exec",
        "os.execl",
        "os.execle",
        "os.execlp",
        "os.execlpe",
        "os.spawnl",
        "os.spawnle",
        "os.spawnlp",
        "os.spawnlpe",
    }
)
_PY_VECTOR = frozenset(
    {
        "os.execv",
        "os.execve",
        "os.execvp",
        "os.execvpe",
        "os.spawnv",
        "os.spawnve",
        "os.spawnvp",
        "os.spawnvpe",
        "os.posix_spawn",
        "os.posix_spawnp",
    }
)
_NODE_SHELL = frozenset({"exec", "execSync", "execaCommand", "execaCommandSync"})
_NODE_FILE = frozenset({"execFile", "execFileSync", "spawn", "spawnSync", "execa", "execaSync"})
_PERL = frozenset({"system", "exec", "readpipe"})
_RUBY = frozenset(
    {
        "system",
        "exec",
        "spawn",
        "Kernel.system",
        "Kernel.exec",
        "Kernel.spawn",
        "Process.spawn",
        "Process.exec",
        "IO.popen",
        "Open3.capture2",
        "Open3.capture2e",
        "Open3.capture3",
        "Open3.popen2",
        "Open3.popen2e",
        "Open3.popen3",
        "Open3.pipeline",
        "Open3.pipeline_r",
        "Open3.pipeline_w",
        "Open3.pipeline_rw",
        "PTY.spawn",
        "Kernel.`",
        "IO.read",
    }
)
_PHP = frozenset({"system", "exec", "shell_exec", "passthru", "popen", "proc_open", "pcntl_exec"})


def shell_calls(family: str, code: str) -> Found:
    """The shell commands `code` (in language `family`) hands to the system."""
    found = Found()
    if family == "sql":
        _sql(code, found)
        return found
    triggers = _TRIGGERS.get(family)
    if not triggers or not any(t in code for t in triggers):
        return found
    found.scanned = len(code)
    if family == "osascript":
        for m in re.finditer(r'do\s+shell\s+script\s+"((?:[^"\\]|\\.)*)"', code):
            found.calls.append(("sh", _unescape_c(m.group(1))))
        return found
    tokens = list(_tokens(family, code))
    names = _assignments(tokens)
    if family == "python":
        _python(tokens, names, code, found)
    elif family == "node":
        _node(tokens, names, code, found)
    elif family in ("perl", "ruby", "php"):
        _system_like(family, tokens, names, found)
    elif family == "lua":
        _simple_api(tokens, names, frozenset({"os.execute", "io.popen"}), found)
    elif family == "r":
        _simple_api(tokens, names, frozenset({"system", "shell", "system2"}), found)
    elif family == "awk":
        _awk(tokens, names, found)
    del found.calls[MAX_CALLS:]
    return found


# -- tokens ----------------------------------------------------------------------------------------
# A token: (kind, value): "s" string (decoded), "t" string with interpolation (dynamic parts
# kept as written), "x" a shell literal (backticks, %x, qx), "w" a word list (%w, qw),
# "i" identifier (dotted), "p" punctuation, "n" number.

Token = tuple[str, object]

_IDENT = r"[A-Za-z_$@][\w$]*(?:\s*(?:\.|::|->|\?\.)\s*[A-Za-z_$][\w$]*)*"
# What every language's tokenizer ends with: identifiers, numbers, any other character.
_TAIL = r"|(?P<i>" + _IDENT + r")|(?P<n>\d[\w.]*)|(?P<p>\S)"
_COMMON = {
    "python": re.compile(
        r"(?P<c>#[^\n]*)"
        r"|(?P<s>(?:[rRbBuUfF]{1,2})?(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\""
        r"|'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"))" + _TAIL,
        re.S,
    ),
    "node": re.compile(
        r"(?P<c>//[^\n]*|/\*.*?\*/)"
        r"|(?P<s>'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"|`(?:\\.|[^`\\])*`)" + _TAIL,
        re.S,
    ),
    "perl": re.compile(
        r"(?P<c>#[^\n]*)"
        r"|(?P<q>\b(?:qq|qx|qw|q)\s*(?:\((?:\\.|[^)\\])*\)|\{(?:\\.|[^}\\])*\}|\[(?:\\.|[^\]\\])*\]"
        r"|<(?:\\.|[^>\\])*>|(?P<qd>[^\w\s])(?:\\.|(?!(?P=qd)).)*(?P=qd)))"
        r"|(?P<s>'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`(?:\\.|[^`\\])*`)" + _TAIL,
        re.S,
    ),
    "ruby": re.compile(
        r"(?P<c>#(?!\{)[^\n]*)"
        r"|(?P<q>%[qQwWxiI]?(?:\((?:\\.|[^)\\])*\)|\{(?:\\.|[^}\\])*\}|\[(?:\\.|[^\]\\])*\]"
        r"|<(?:\\.|[^>\\])*>|\|(?:\\.|[^|\\])*\||!(?:\\.|[^!\\])*!))"
        r"|(?P<s>'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`(?:\\.|[^`\\])*`)" + _TAIL,
        re.S,
    ),
    "php": re.compile(
        r"(?P<c>//[^\n]*|#[^\n]*|/\*.*?\*/)"
        r"|(?P<s>'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`(?:\\.|[^`\\])*`)" + _TAIL,
        re.S,
    ),
    "lua": re.compile(
        r"(?P<c>--\[\[.*?\]\]|--[^\n]*)"
        r"|(?P<s>'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"|\[\[.*?\]\])" + _TAIL,
        re.S,
    ),
    "awk": re.compile(
        r"(?P<c>#[^\n]*)|(?P<s>\"(?:\\.|[^\"\\\n])*\")" + _TAIL,
        re.S,
    ),
    "r": re.compile(
        r"(?P<c>#[^\n]*)|(?P<s>'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\")"
        r"|(?P<i>[A-Za-z_.][\w.]*)|(?P<n>\d[\w.]*)|(?P<p>\S)",
        re.S,
    ),
}


def _tokens(family: str, code: str) -> Iterator[Token]:
    rx = _COMMON[family]
    for m in rx.finditer(code):
        kind = m.lastgroup
        text = m.group()
        if kind == "c":
            continue
        if kind == "s":
            yield _string(family, text)
        elif kind == "q":
            yield _quote_like(family, text)
        elif kind == "i":
            yield ("i", re.sub(r"\s+", "", text).replace("?.", ".").replace("->", "."))
        elif kind == "n":
            yield ("n", text)
        else:
            yield ("p", text)


def _string(family: str, text: str) -> Token:
    prefix = ""
    while text[0] not in "'\"`[":
        prefix += text[0].lower()
        text = text[1:]
    if text.startswith(("'''", '"""')):
        body = text[3:-3]
    elif text.startswith("[["):
        return ("s", text[2:-2])
    else:
        body = text[1:-1]
    quote = text[0]
    if quote == "`":
        if family == "node":
            return ("t", body) if "${" in body else ("s", body)
        return ("x", body)
    interpolating = (
        (family == "python" and "f" in prefix)
        or (family in ("ruby",) and quote == '"' and "#{" in body)
        or (family in ("perl", "php") and quote == '"' and re.search(r"[$@][\w{]", body))
    )
    if "r" not in prefix and (quote == '"' or family not in ("perl", "php", "ruby")):
        body = _unescape_c(body)
    elif quote == "'":
        body = body.replace("\\'", "'").replace("\\\\", "\\")
    return ("t", body) if interpolating else ("s", body)


def _quote_like(family: str, text: str) -> Token:
    """Perl `q()`, `qq{}`, `qx//`, `qw()`; Ruby `%q()`, `%Q[]`, `%w()`, `%x{}`."""
    if family == "perl":
        m = re.match(r"(qq|qx|qw|q)\s*", text)
        assert m is not None
        op = m.group(1)
        body = text[m.end() + 1 : -1]
    else:
        op = text[1] if len(text) > 2 and text[1].isalpha() else "Q"
        body = text[(3 if text[1].isalpha() else 2) : -1]
    if op in ("qx", "x"):
        return ("x", body)
    if op in ("qw", "w", "W", "i", "I"):
        return ("w", body.split())
    return ("s", body)


_C_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|[0-7]{1,3}|.)", re.S)
_C_SIMPLE = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
    "\n": "",
}


def _unescape_c(body: str) -> str:
    def one(m: re.Match[str]) -> str:
        esc = m.group(1)
        if esc[0] in "xu" and len(esc) > 1:
            return chr(int(esc[1:], 16))
        if esc[0] in "01234567" and esc != "0":
            return chr(int(esc, 8) & 0xFF)
        return _C_SIMPLE.get(esc, esc)

    return _C_ESCAPE.sub(one, body)


# -- arguments -------------------------------------------------------------------------------------


def _assignments(tokens: list[Token]) -> dict[str, object]:
    """`name = "literal"` / `name = [..]` bindings anywhere in the code (last one wins)."""
    names: dict[str, object] = {}
    for k in range(len(tokens) - 2):
        kind, value = tokens[k]
        if kind != "i" or tokens[k + 1] != ("p", "=") or tokens[k + 2] == ("p", "="):
            continue
        if k > 0 and tokens[k - 1] in (("p", "="), ("p", "!"), ("p", "<"), ("p", ">")):
            continue
        arg, _ = _value(tokens, k + 2, {})
        if arg is not None:
            name = str(value).rsplit(".", 1)[-1] if str(value).startswith("self.") else str(value)
            names[name] = arg
    return names


def _value(tokens: list[Token], k: int, names: dict[str, object]) -> tuple[object, int]:
    """The literal at `k` (string, concatenation, list), or None; and the index after it."""
    out: list[object] = []
    dynamic = False
    while k < len(tokens):
        kind, value = tokens[k]
        string = False
        if kind == "s":
            out.append(value)
            string = True
        elif kind == "t":
            out.append(_placeholders(str(value)))
            dynamic = string = True
        elif kind == "w":
            return list(value), k + 1  # type: ignore[call-overload]
        elif kind == "i" and k + 1 < len(tokens) and tokens[k + 1] in (("p", "("), ("p", "[")):
            # A call or a subscript: its value is only known at run time.
            out.append(_Unknown(str(value)))
            dynamic = True
            k = _skip_balanced(tokens, k + 1) - 1
        elif kind == "i" and str(value) in names:
            out.append(names[str(value)])
        elif kind == "i" and not out:
            out.append(_Unknown(str(value)))
            dynamic = True
        elif kind == "p" and value in ("[", "(") and not out:
            items, k = _list(tokens, k, names)
            if items is None:
                return None, k
            return items, k
        else:
            break
        k += 1
        if k < len(tokens) and tokens[k] in (("p", "+"), ("p", ".")):
            k += 1  # `"a" + "b"`, Perl/PHP `"a" . "b"`
            continue
        if string and k < len(tokens) and tokens[k][0] in ("s", "t"):
            continue  # Python/C adjacent literals `"a" "b"`
        break
    if not out:
        return None, k
    if len(out) == 1 and isinstance(out[0], list):
        return out[0], k
    text = "".join(_text(v) for v in out)
    return (
        _Dynamic(text) if dynamic or any(isinstance(v, (_Unknown, _Dynamic)) for v in out) else text
    ), k


def _skip_balanced(tokens: list[Token], k: int) -> int:
    """Index after the bracket group opening at `k`."""
    depth = 0
    while k < len(tokens):
        kind, value = tokens[k]
        if kind == "p" and value in ("(", "[", "{"):
            depth += 1
        elif kind == "p" and value in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return k + 1
        k += 1
    return k


_PLACEHOLDER = re.compile(r"\$?\{([^{}]*)\}")


def _placeholders(text: str) -> str:
    """An f-string's or template's `{expr}` / `${expr}` as a shell variable (`$expr`), so the
    shell command around it keeps its shape: `f"rm -rf {quoted(p)}"` reads `rm -rf $quoted`."""

    def name(m: re.Match[str]) -> str:
        ident = re.match(r"\s*([A-Za-z_]\w*)", m.group(1))
        return "$" + (ident.group(1) if ident else "EXPR")

    return _PLACEHOLDER.sub(name, text)


def _list(tokens: list[Token], k: int, names: dict[str, object]) -> tuple[list[object] | None, int]:
    close = "]" if tokens[k][1] == "[" else ")"
    k += 1
    items: list[object] = []
    while k < len(tokens):
        if tokens[k] == ("p", close):
            return items, k + 1
        if tokens[k] == ("p", ","):
            k += 1
            continue
        value, nk = _value(tokens, k, names)
        if value is None:
            return None, nk
        items.append(value)
        k = max(nk, k + 1)
    return None, k


class _Unknown:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class _Dynamic(str):
    """Text with parts only known at run time (an f-string, a concatenated variable)."""

    __slots__ = ()


def _text(value: object) -> str:
    if isinstance(value, _Unknown):
        return "$" + value.name.rsplit(".", 1)[-1]
    if isinstance(value, list):
        return " ".join(_text(v) for v in value)
    return str(value)


def _args(
    tokens: list[Token], k: int, names: dict[str, object]
) -> tuple[list[object], dict[str, object], int]:
    """Positional and keyword arguments of the call whose `(` is at `k`."""
    positional: list[object] = []
    keywords: dict[str, object] = {}
    k += 1
    depth = 0
    while k < len(tokens):
        kind, value = tokens[k]
        if kind == "p" and value in (")", "]", "}") and depth == 0:
            return positional, keywords, k + 1
        if kind == "p" and value == ",":
            k += 1
            continue
        keyword = kind == "i" and k + 1 < len(tokens) and tokens[k + 1] in (("p", "="), ("p", ":"))
        if keyword and not (k + 2 < len(tokens) and tokens[k + 2] == ("p", "=")):
            item, nk = _value(tokens, k + 2, names)
            keywords[str(value)] = item if item is not None else _Unknown(str(value))
            k = _skip_arg(tokens, max(nk, k + 3))
            continue
        if kind == "p" and value == "{":
            obj, nk = _object(tokens, k, names)
            positional.append(obj)
            k = nk
            continue
        item, nk = _value(tokens, k, names)
        positional.append(item if item is not None else _Unknown("arg"))
        k = _skip_arg(tokens, max(nk, k + 1))
    return positional, keywords, k


def _skip_arg(tokens: list[Token], k: int) -> int:
    """Index of the `,` or closing bracket that ends the argument containing `k`."""
    depth = 0
    while k < len(tokens):
        kind, value = tokens[k]
        if kind == "p":
            if value in ("(", "[", "{"):
                depth += 1
            elif value in (")", "]", "}"):
                if depth == 0:
                    return k
                depth -= 1
            elif value == "," and depth == 0:
                return k
        k += 1
    return k


def _object(tokens: list[Token], k: int, names: dict[str, object]) -> tuple[dict[str, object], int]:
    """A `{key: value, …}` literal (JS options, Deno.Command), shallow."""
    out: dict[str, object] = {}
    k += 1
    while k < len(tokens) and tokens[k] != ("p", "}"):
        kind, value = tokens[k]
        if kind in ("i", "s") and k + 1 < len(tokens) and tokens[k + 1] in (("p", ":"), ("p", "=")):
            item, nk = _value(tokens, k + 2, names)
            out[str(value)] = item
            k = _skip_arg(tokens, max(nk, k + 3))
            continue
        k += 1
    return out, k + 1


def _emit_string(found: Found, value: object) -> None:
    if isinstance(value, _Unknown) or value is None:
        found.dynamic = True
        return
    if isinstance(value, list):
        _emit_vector(found, value)
        return
    if isinstance(value, _Dynamic):
        found.dynamic = True
    text = str(value)
    if text.strip():
        found.calls.append(("sh", text))


def _emit_vector(found: Found, items: list[object]) -> None:
    words = [_text(v) for v in items]
    if any(isinstance(v, (_Unknown, _Dynamic, list)) for v in items):
        found.dynamic = True
    if words and words[0].strip():
        found.calls.append(("argv", words))


# -- the languages ---------------------------------------------------------------------------------


def _python(tokens: list[Token], names: dict[str, object], code: str, found: Found) -> None:
    aliases = _python_aliases(code)
    tokens = _dunder_imports(tokens)
    for k, (kind, value) in enumerate(tokens):
        if kind != "i" or k + 1 >= len(tokens) or tokens[k + 1] != ("p", "("):
            continue
        name = _python_name(str(value), aliases)
        if (
            name not in _PY_SHELL
            and name not in _PY_EITHER
            and name not in _PY_VARARGS
            and name not in _PY_VECTOR
        ):
            continue
        args, keywords, _ = _args(tokens, k + 1, names)
        first = args[0] if args else keywords.get("args")
        if name in _PY_SHELL or name in _PY_EITHER:
            if isinstance(first, list) and "shell" not in keywords:
                _emit_vector(found, first)
            else:
                _emit_string(found, first)
        elif name in _PY_VARARGS:
            skip = 1 if name.startswith("os.exec") else 2 if name.startswith("os.spawn") else 0
            rest = args[skip:]
            if name.startswith(("os.execl", "os.spawnl")) and rest:
                rest = [args[skip - 1], *rest[1:]] if skip else rest  # argv0 is the path's name
            if rest:
                _emit_vector(found, rest)
        else:
            vector = (
                args[2]
                if name.startswith("os.spawn") and len(args) > 2
                else args[1]
                if len(args) > 1
                else None
            )
            if isinstance(vector, list):
                _emit_vector(found, vector)
            else:
                found.dynamic = True


# Import statements, at a line start or after `;` (one-liners: `import os; os.system(…)`).
def _dunder_imports(tokens: list[Token]) -> list[Token]:
    """`__import__("os").system` is `os.system`; `importlib.import_module("os").system` too."""
    return _loaded_members(tokens, ("__import__", "importlib.import_module"))


def _loaded_members(tokens: list[Token], loaders: tuple[str, ...], scheme: str = "") -> list[Token]:
    """The tokens with each `LOADER("module").name` as the one name `module.name`, for the
    loaders named (`__import__`, `require`); `scheme` is a prefix of a module's name that names
    the same module (node's `node:`)."""
    out: list[Token] = []
    k = 0
    while k < len(tokens):
        kind, value = tokens[k]
        if (
            kind == "i"
            and value in loaders
            and k + 5 < len(tokens)
            and tokens[k + 1] == ("p", "(")
            and tokens[k + 2][0] == "s"
            and tokens[k + 3] == ("p", ")")
            and tokens[k + 4] == ("p", ".")
            and tokens[k + 5][0] == "i"
        ):
            module = str(tokens[k + 2][1]).removeprefix(scheme)
            out.append(("i", f"{module}.{tokens[k + 5][1]}"))
            k += 6
            continue
        out.append(tokens[k])
        k += 1
    return out


_PY_FROM = re.compile(
    r"(?:^|;)\s*from\s+(os|subprocess|asyncio|pty|commands|pexpect)\s+import\s+([^\n#;]+)",
    re.M,
)
_PY_IMPORT = re.compile(r"(?:^|;)\s*import\s+([^\n#;]+)", re.M)


def _python_aliases(code: str) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for m in _PY_FROM.finditer(code):
        for item in m.group(2).strip("() \\").split(","):
            parts = item.split()
            if not parts:
                continue
            real = parts[0]
            alias = parts[2] if len(parts) == 3 and parts[1] == "as" else real
            aliases[alias] = m.group(1) + "." + real
    for m in _PY_IMPORT.finditer(code):
        for item in m.group(1).split(","):
            parts = item.split()
            if len(parts) == 3 and parts[1] == "as":
                aliases[parts[2]] = parts[0]
    return aliases


def _python_name(name: str, aliases: dict[str, str]) -> str:
    head, _, rest = name.partition(".")
    if head in aliases:
        return aliases[head] + ("." + rest if rest else "")
    return name


_JS_MODULES = r"""['"](?:node:)?(?:child_process|shelljs|execa|zx)['"]"""
_JS_BOUND = re.compile(
    r"(?:const|let|var)\s+([\w$]+)\s*=\s*require\(\s*" + _JS_MODULES + r"\s*\)"
    r"|import\s+(?:\*\s+as\s+)?([\w$]+)\s+from\s+" + _JS_MODULES
)
_JS_DESTRUCTURED = re.compile(
    r"(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\(\s*" + _JS_MODULES + r"\s*\)"
    r"|import\s*\{([^}]*)\}\s*from\s*" + _JS_MODULES
)


def _node_bindings(code: str) -> tuple[set[str], dict[str, str]]:
    """Names bound to child_process-like modules, and functions imported from them by name."""
    modules: set[str] = set()
    functions: dict[str, str] = {}
    for m in _JS_BOUND.finditer(code):
        modules.add(m.group(1) or m.group(2))
    for m in _JS_DESTRUCTURED.finditer(code):
        for item in (m.group(1) or m.group(2) or "").split(","):
            real, _, alias = item.replace(" as ", ":").partition(":")
            if real.strip():
                functions[(alias or real).strip()] = real.strip()
    return modules, functions


def _required(tokens: list[Token]) -> list[Token]:
    """`require("child_process").execSync` is `child_process.execSync`."""
    return _loaded_members(tokens, ("require",), "node:")


def _node(tokens: list[Token], names: dict[str, object], code: str, found: Found) -> None:
    modules, functions = _node_bindings(code)
    modules |= (
        {"child_process", "shelljs", "execa", "zx", "shell"}
        if "shelljs" in code
        else {"child_process", "execa", "zx"}
    )
    tokens = _required(tokens)
    for k, (kind, value) in enumerate(tokens):
        if kind == "i" and str(value).endswith("$") and k + 1 < len(tokens):
            nxt = tokens[k + 1]
            if nxt[0] in ("s", "t") and str(value).rsplit(".", 1)[-1] == "$":
                found.calls.append(("sh", str(nxt[1])))  # zx / Bun shell `` $`rm -rf x` ``
                if nxt[0] == "t":
                    found.dynamic = True
            continue
        if kind != "i" or k + 1 >= len(tokens) or tokens[k + 1] != ("p", "("):
            continue
        name = str(value)
        last = name.rsplit(".", 1)[-1]
        if name in ("Bun.spawn", "Bun.spawnSync"):
            args, _, _ = _args(tokens, k + 1, names)
            first = args[0] if args else None
            if isinstance(first, dict):
                first = first.get("cmd")
            if isinstance(first, list):
                _emit_vector(found, first)
            else:
                found.dynamic = True
            continue
        if name in ("Deno.Command", "Deno.run"):
            args, _, _ = _args(tokens, k + 1, names)
            if name == "Deno.run" and args and isinstance(args[0], dict):
                cmd = args[0].get("cmd")
                if isinstance(cmd, list):
                    _emit_vector(found, cmd)
                continue
            if args and isinstance(args[0], str):
                options = args[1] if len(args) > 1 and isinstance(args[1], dict) else {}
                extra = options.get("args")
                _emit_vector(found, [args[0], *(extra if isinstance(extra, list) else [])])
            continue
        head, _, _ = name.rpartition(".")
        if head:
            if head not in modules:
                continue  # `/re/.exec(…)`, `db.exec(…)`: not a process
        elif name in functions:
            last = functions[name]  # `const { execSync: run } = require("child_process")`
        elif name not in ("execa", "execaSync", "execaCommand", "execaCommandSync"):
            continue
        if last in _NODE_SHELL:
            args, _, _ = _args(tokens, k + 1, names)
            _emit_string(found, args[0] if args else None)
        elif last in _NODE_FILE:
            args, _, _ = _args(tokens, k + 1, names)
            if not args:
                continue
            vector = args[1] if len(args) > 1 and isinstance(args[1], list) else []
            options = next((a for a in args[1:] if isinstance(a, dict)), {})
            if isinstance(args[0], list):
                _emit_vector(found, args[0])
            elif options.get("shell") not in (None, "false") or (
                not vector and " " in str(args[0])
            ):
                _emit_string(found, " ".join([_text(args[0]), *(_text(v) for v in vector)]))
            else:
                _emit_vector(found, [args[0], *vector])


def _system_like(family: str, tokens: list[Token], names: dict[str, object], found: Found) -> None:
    apis = _PERL if family == "perl" else _RUBY if family == "ruby" else _PHP
    for k, (kind, value) in enumerate(tokens):
        if kind == "x":
            found.calls.append(("sh", str(value)))
            if re.search(r"[$@][\w{]|#\{", str(value)):
                found.dynamic = True
            continue
        if kind != "i":
            continue
        name = str(value)
        if family == "php":
            name = name.lstrip("\\")
        if name not in apis and not (family == "perl" and name == "open"):
            continue
        if k > 0 and tokens[k - 1] in (("p", "."), ("p", "$")) and family != "ruby":
            continue
        if k + 1 >= len(tokens):
            continue
        nxt = tokens[k + 1]
        if nxt == ("p", "("):
            args, _, _ = _args(tokens, k + 1, names)
        elif nxt[0] in ("s", "t", "i", "w") and family in ("perl", "ruby"):
            args = _bare_args(tokens, k + 1, names)  # `system "cmd"`, `system 'rm', '-rf', x`
        else:
            continue
        if family == "perl" and name == "open":
            _perl_open(args, found)
            continue
        if args and isinstance(args[0], dict):
            args = args[1:]  # Ruby's env hash
        if name in ("pcntl_exec",):
            vector = args[1] if len(args) > 1 and isinstance(args[1], list) else []
            if args:
                _emit_vector(found, [args[0], *vector])
            continue
        if name in ("IO.read",):
            if args and isinstance(args[0], str) and args[0].startswith("|"):
                _emit_string(found, args[0][1:])
            continue
        if len(args) == 1 or name in ("shell_exec", "passthru", "popen", "readpipe"):
            _emit_string(found, args[0] if args else None)
        elif args and name != "proc_open":
            _emit_vector(found, args)
        elif args:
            _emit_string(found, args[0])


def _bare_args(tokens: list[Token], k: int, names: dict[str, object]) -> list[object]:
    out: list[object] = []
    while k < len(tokens):
        value, nk = _value(tokens, k, names)
        if value is None:
            break
        out.append(value)
        k = nk
        if k < len(tokens) and tokens[k] == ("p", ","):
            k += 1
            continue
        break
    return out


def _perl_open(args: list[object], found: Found) -> None:
    """`open(FH, "cmd |")`, `open(FH, "| cmd")`, `open(my $fh, "-|", "cmd", @args)`."""
    if len(args) >= 3 and args[1] in ("-|", "|-"):
        rest = args[2:]
        if len(rest) == 1:
            _emit_string(found, rest[0])
        else:
            _emit_vector(found, rest)
    elif len(args) == 2 and isinstance(args[1], str):
        mode = args[1].strip()
        if mode.endswith("|"):
            _emit_string(found, mode[:-1])
        elif mode.startswith("|"):
            _emit_string(found, mode[1:])


def _simple_api(
    tokens: list[Token], names: dict[str, object], apis: frozenset[str], found: Found
) -> None:
    for k, (kind, value) in enumerate(tokens):
        if kind != "i" or str(value) not in apis or k + 1 >= len(tokens):
            continue
        if tokens[k + 1] != ("p", "("):
            continue
        args, keywords, _ = _args(tokens, k + 1, names)
        if str(value) == "system2" and args:
            rest = keywords.get("args")
            extra = rest if isinstance(rest, list) else [rest] if isinstance(rest, str) else []
            _emit_string(found, " ".join([_text(args[0]), *(_text(v) for v in extra)]))
        else:
            _emit_string(found, args[0] if args else keywords.get("command"))


def _awk(tokens: list[Token], names: dict[str, object], found: Found) -> None:
    for k, (kind, value) in enumerate(tokens):
        if (
            kind == "i"
            and value == "system"
            and k + 1 < len(tokens)
            and tokens[k + 1] == ("p", "(")
        ):
            args, _, _ = _args(tokens, k + 1, names)
            _emit_string(found, args[0] if args else None)
        elif kind == "s" and k + 2 < len(tokens) and tokens[k + 1] == ("p", "|"):
            if tokens[k + 2] in (("i", "getline"), ("p", "&")):
                _emit_string(found, value)  # `"cmd" | getline`
        elif kind == "p" and value == "|" and k + 1 < len(tokens):
            nxt = tokens[k + 1]
            if nxt[0] == "p" and nxt[1] == "&" and k + 2 < len(tokens):
                nxt = tokens[k + 2]
            if nxt[0] == "s":
                _emit_string(found, nxt[1])  # `print x | "cmd"`


def _sql(code: str, found: Found) -> None:
    """psql `\\! cmd`, sqlite3/duckdb `.shell cmd` / `.system cmd`: SQL clients run shells."""
    for m in re.finditer(r"(?m)^\s*(?:\\!|\.shell\b|\.system\b)[ \t]*(.*)$", code):
        if m.group(1).strip():
            found.calls.append(("sh", m.group(1)))
