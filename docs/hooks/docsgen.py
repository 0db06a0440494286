"""MkDocs hook: the parts of the documentation that the code already states, generated at build.

A page asks for a generated part with a line of its own, `<!-- docsgen: NAME [ARG] -->`; the
build replaces it with markdown made from the code's registries (the diagnostic codes, the
command line, the harness capability tables, the bundled library). Nothing generated is
committed, so a page cannot go stale: a code, option or capability that changes in the code
changes in the next build. An unknown NAME or ARG raises, which fails `mkdocs build`.

`tests/test_docs.py` and `tests/test_codes_docs.py` import this module to read the pages as
the build renders them.
"""

from __future__ import annotations

import enum
import re
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentstyle.harnesses.facts import HarnessSpec
    from agentstyle.harnesses.protocol import HarnessAdapter

MARKER = re.compile(r"^<!-- docsgen: (?P<name>[a-z-]+)(?: (?P<arg>[^>]*?))? -->[ \t]*$", re.M)
DOCS = Path(__file__).resolve().parent.parent
REPO = DOCS.parent

# -- markdown helpers ---------------------------------------------------------------------------

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_INLINE_SPECIAL = re.compile(r"([\\*_<\[\]])")
_LINE_START = re.compile(r"^(\s*)([#>+-]|\d+\.)(?=\s)", re.M)


def prose(text: str) -> str:
    """Registry prose (plain text with `code spans`) as markdown that renders it literally."""
    out: list[str] = []
    last = 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_INLINE_SPECIAL.sub(r"\\\1", text[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_INLINE_SPECIAL.sub(r"\\\1", text[last:]))
    return _LINE_START.sub(r"\1\\\2", "".join(out))


def cell(text: str) -> str:
    """One table cell: one line, `|` escaped outside code spans (the table extension leaves a
    `|` inside a code span alone, and would show a backslash there)."""
    out: list[str] = []
    last = 0
    text = " ".join(prose(text).split())
    for m in _CODE_SPAN.finditer(text):
        out.append(text[last : m.start()].replace("|", "\\|"))
        out.append(m.group(0))
        last = m.end()
    out.append(text[last:].replace("|", "\\|"))
    return "".join(out)


def code(text: str) -> str:
    """`text` as a code span, whatever backticks it holds."""
    ticks = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def fence(text: str, lang: str = "text") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


# -- diagnostics: agentstyle/codes.py, codes.yaml ----------------------------------------------


def anchor(code_name: str) -> str:
    """The id of a code's section: the code itself (`bad-name`, `T005`)."""
    return code_name


def diagnostics(arg: str | None) -> str:
    """Every code of the registry: level, summary, what, why, example, fix."""
    from agentstyle.codes import CODES

    if arg:
        raise ValueError(f"docsgen diagnostics takes no argument, got `{arg}`")
    levels = {"error": [], "warning": []}  # type: dict[str, list[str]]
    for c in CODES.values():
        levels[c.level].append(f"[`{c.name}`](#{anchor(c.name)})")
    parts = [
        f"{len(CODES)} codes: {len(levels['error'])} errors, {len(levels['warning'])} warnings.",
        "",
        table(
            ["code", "level", "summary"],
            [
                [f"[`{c.name}`](#{anchor(c.name)})", c.level, cell(c.summary)]
                for c in CODES.values()
            ],
        ),
    ]
    for c in CODES.values():
        parts += ["", f"## `{c.name}` {{ #{anchor(c.name)} }}", ""]
        parts += [f"**{c.level}** — {prose(c.summary)}"]
        for title, body in (("What", c.what), ("Why", c.why)):
            if body.strip():
                parts += ["", f"**{title}.** {prose(body.strip())}"]
        if c.example.strip():
            source, _, rendered = c.example.partition("\n\n")
            parts += ["", "**Example.**", "", fence(source, "yaml")]
            if rendered.strip():
                parts += ["", "`style validate` prints:", "", fence(rendered)]
        if c.fix.strip():
            parts += ["", f"**Fix.** {prose(c.fix.strip())}"]
    return "\n".join(parts)


# -- the command line: agentstyle/cli/app.py ----------------------------------------------------


def _root_command() -> Any:
    import typer

    from agentstyle.cli.app import app

    return typer.main.get_command(app)


def commands() -> Iterator[tuple[str, Any]]:
    """(path, command) of every visible command below `style`: `init`, `audit sql`, …"""

    def walk(cmd: Any, path: str) -> Iterator[tuple[str, Any]]:
        subs = getattr(cmd, "commands", None)
        if path:
            yield path, cmd
        if isinstance(subs, dict):
            for name, sub in subs.items():
                if not getattr(sub, "hidden", False):
                    yield from walk(sub, f"{path} {name}".strip())

    yield from walk(_root_command(), "")


def _annotation(param: Any) -> Any:
    descriptor = getattr(param, "type_descriptor", None)
    return getattr(descriptor, "annotation", None)


def _choices(param: Any) -> list[str]:
    ptype = getattr(param, "type", None)
    if ptype is not None and getattr(ptype, "choices", None):
        return [str(getattr(c, "value", c)) for c in ptype.choices]
    ann = _annotation(param)
    for candidate in (ann, *typing.get_args(ann)):
        if isinstance(candidate, type) and issubclass(candidate, enum.Enum):
            return [str(m.value) for m in candidate]
    return []


def _kind(param: Any) -> str:
    """What an option takes, in words: a choice, a number, a path, text."""
    choices = _choices(param)
    if choices:
        return " \\| ".join(f"`{c}`" for c in choices)
    ptype = getattr(param, "type", None)
    name = str(getattr(ptype, "name", "")).lower() if ptype is not None else ""
    ann = _annotation(param)
    args = typing.get_args(ann)
    base = args[0] if args else ann
    if "int" in name or base is int:
        low = getattr(param, "min", None)
        if low is None and ptype is not None:
            low = getattr(ptype, "min", None)
        return "integer" + (f" ≥ {low}" if low is not None else "")
    if name == "path" or base is Path:
        return "path"
    return "text"


def _default(param: Any) -> str:
    value = getattr(param, "default", None)
    if callable(value) or value is None or value == () or value == []:
        return ""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        if not value:
            return ""
        names = getattr(param, "opts", [])
        return f"`{names[0]}`" if names else "on"
    return f"`{value}`"


def _is_flag(param: Any) -> bool:
    if getattr(param, "is_flag", False):
        return True
    return _annotation(param) is bool


def _is_argument(param: Any) -> bool:
    return type(param).__name__.endswith("Argument") or getattr(param, "param_type_name", "") == (
        "argument"
    )


def _metavar(param: Any) -> str:
    name = str(getattr(param, "metavar", None) or param.name).upper()
    name = name.removesuffix("...")
    ann = _annotation(param)
    many = getattr(param, "nargs", 1) == -1 or typing.get_origin(ann) is list
    return f"{name}..." if many else name


def cli(arg: str | None) -> str:
    """Usage line and the table of arguments and options of one command (`install`, `audit sql`)."""
    if not arg:
        raise ValueError("docsgen cli needs a command, e.g. `<!-- docsgen: cli install -->`")
    found = dict(commands())
    if arg not in found:
        raise ValueError(f"docsgen cli: `style {arg}` is not a command ({', '.join(found)})")
    cmd = found[arg]
    params = [p for p in cmd.params if not getattr(p, "hidden", False)]
    usage = ["style", arg]
    arguments = [p for p in params if _is_argument(p)]
    options = [p for p in params if not _is_argument(p)]
    if options:
        usage.append("[OPTIONS]")
    if getattr(cmd, "commands", None):
        usage.append("COMMAND [ARGS]...")
    for p in arguments:
        shown = _metavar(p)
        usage.append(shown if getattr(p, "required", False) else f"[{shown}]")
    rows: list[list[str]] = []
    for p in arguments:
        what = cell(getattr(p, "help", None) or "")
        choices = _choices(p)
        if choices:
            what = (what + "; " if what else "") + "one of " + _kind(p)
        rows.append([f"`{_metavar(p)}`", "required" if p.required else "optional", what, ""])
    for p in options:
        names = ", ".join(f"`{o}`" for o in [*p.opts, *getattr(p, "secondary_opts", [])])
        takes = "" if _is_flag(p) else _kind(p)
        if getattr(p, "multiple", False):
            takes += " (repeatable)"
        if getattr(p, "required", False):
            takes += " (required)"
        what = cell(getattr(p, "help", None) or "")
        rows.append([names, takes.strip() or "flag", what, _default(p)])
    rows.append(["`-h`, `--help`" if _has_short_help() else "`--help`", "flag", "show help", ""])
    parts = [fence(" ".join(usage), "sh")]
    if rows:
        parts += ["", table(["argument / option", "takes", "meaning", "default"], rows)]
    subs = getattr(cmd, "commands", None)
    if isinstance(subs, dict) and subs:
        parts += [
            "",
            table(
                ["subcommand", "does"],
                [
                    [f"`style {arg} {n}`", cell(_summary(s))]
                    for n, s in subs.items()
                    if not getattr(s, "hidden", False)
                ],
            ),
        ]
    return "\n".join(parts)


def _has_short_help() -> bool:
    settings = getattr(_root_command(), "context_settings", None) or {}
    return "-h" in settings.get("help_option_names", [])


def _summary(cmd: Any) -> str:
    text = str(getattr(cmd, "short_help", None) or getattr(cmd, "help", None) or "")
    return " ".join(text.strip().split("\n\n")[0].split())


def cli_commands(arg: str | None) -> str:
    """The table of every command with its one-line summary."""
    if arg:
        raise ValueError("docsgen cli-commands takes no argument")
    return table(
        ["command", "does"],
        [
            [f"[`style {path}`](#{_slug('style ' + path)})", cell(_summary(c))]
            for path, c in commands()
        ],
    )


def _slug(heading: str) -> str:
    """The id MkDocs' toc gives a heading (`style audit sql` → `style-audit-sql`)."""
    return re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", heading).strip().lower())


# -- harnesses: agentstyle/harnesses/facts/*.py --------------------------------------------------

CAPS = ("context", "message", "deny", "ask", "allow", "replace-output")
MATCHER_STYLES = {
    "regex": "an anchored regex",
    "list": "a `|` list of names (an anchored regex where the names need one)",
}


def _harness(name: str) -> tuple[HarnessSpec, HarnessAdapter]:
    from agentstyle.harnesses import adapter_for
    from agentstyle.harnesses.facts import SUPPORTED, spec_for

    if name not in SUPPORTED:
        raise ValueError(f"docsgen harness: `{name}` is not one of {', '.join(SUPPORTED)}")
    return spec_for(name), adapter_for(name)


def _deadline(timeout_s: float) -> str:
    from agentstyle.limits import DEADLINE_S, DEADLINE_SHARE

    return f"{min(DEADLINE_SHARE * timeout_s, DEADLINE_S):g} s"


def _caps(caps: frozenset[str]) -> str:
    shown = [c for c in CAPS if c in caps]
    return ", ".join(shown) if shown else "observe only"


def harness(arg: str | None) -> str:
    """One harness's capability table, tool names, config files and fixed facts."""
    from agentstyle.vocabulary import EVENTS

    spec, adapter = _harness(arg or "")
    rows: list[list[str]] = []
    for point in EVENTS:
        ps = spec.points.get(point)
        for route in spec.routes.get(point, ()):
            keys = ", ".join(sorted(route.keys))
            rows.append(
                [
                    f"`{point}` ({keys} calls)",
                    f"`{route.spec.native_event}`",
                    _caps(route.spec.capabilities),
                    f"{route.spec.timeout_s:g} s",
                    _deadline(route.spec.timeout_s),
                ]
            )
        if ps is None:
            rows.append([f"`{point}`", "—", "not offered", "", ""])
            continue
        label = f"`{point}` (other calls)" if spec.routes.get(point) else f"`{point}`"
        rows.append(
            [
                label,
                f"`{ps.native_event}`",
                _caps(ps.capabilities),
                f"{ps.timeout_s:g} s",
                _deadline(ps.timeout_s),
            ]
        )
    extra = [
        f"`{native}` → `{point}`" for native, point in sorted(spec.extra_native_events.items())
    ]
    tools = [
        [f"`{tool}`", ", ".join(f"`{n}`" for n in names)] for tool, names in spec.tool_names.items()
    ]
    mcp = (
        ", ".join(f"`{n}`" for n in spec.mcp_names)
        if spec.mcp_names is not None
        else "`mcp__<server>__<tool>`"
    )
    parts = [
        "**Points and capabilities.** What each STYLE point is called here and what an answer "
        "can do there. The timeout is the one STYLE writes on the handler, a little above the "
        "hook's 2 s budget; STYLE's internal deadline is 90% of it, at most 1.5 s.",
        "",
        table(["point", "native event", "capabilities", "timeout", "deadline"], rows),
    ]
    if extra:
        parts += [
            "",
            "Also read when they arrive (never installed by STYLE): " + ", ".join(extra) + ".",
        ]
    parts += [
        "",
        "**Tool names.** The normalized tools and the native names they cover (a rule's `tool` "
        "narrows the installed matcher to these names; `names` adds native names).",
        "",
        table(["tool", "native names"], tools),
        "",
        f"MCP calls reach a matcher as {mcp}."
        + (
            f" Skills: {', '.join(f'`{n}`' for n in spec.skill_names)}." if spec.skill_names else ""
        ),
        "",
        "**Files.**",
        "",
        table(["scope", "hook config", "instruction file (static rules)"], _files(adapter)),
        "",
        "**Fixed facts.**",
        "",
        f"- Always installed, as the session clock: {_names(spec.bookkeeping)}.",
        f"- Gate handlers (`--fail-closed`, `fail: closed`): {_names(spec.gate_events)}.",
        "- Turn ids: "
        + (
            "native (the harness names each turn)."
            if spec.native_turn_ids
            else "none; `repeat: turn` and `refresh` count submitted prompts instead."
        ),
        f"- Matcher syntax: {MATCHER_STYLES[spec.matcher_style]}.",
    ]
    return "\n".join(parts)


def _names(items: tuple[str, ...]) -> str:
    return ", ".join(f"`{i}`" for i in items) if items else "none"


def _files(adapter: HarnessAdapter) -> list[list[str]]:
    rows = []
    marker = Path("/PROJECT")
    for scope in adapter.scopes:
        config = _shown_path(adapter.config_path(marker, scope), marker)
        static = adapter.static_path(marker, scope)
        shown = "— (not placed)" if static is None else _shown_path(static, marker)
        rows.append([f"`{scope}`", config, shown])
    return rows


def _shown_path(path: Path, project: Path) -> str:
    try:
        return f"`./{path.relative_to(project).as_posix()}`"
    except ValueError:
        try:
            return f"`~/{path.relative_to(Path.home()).as_posix()}`"
        except ValueError:
            return f"`{path.as_posix()}`"


def capabilities(arg: str | None) -> str:
    """The matrix of every point on every harness."""
    from agentstyle.harnesses.facts import SUPPORTED, spec_for
    from agentstyle.vocabulary import EVENTS

    if arg:
        raise ValueError("docsgen capabilities takes no argument")
    rows = []
    for point in EVENTS:
        row = [f"`{point}`"]
        for name in SUPPORTED:
            spec = spec_for(name)
            ps = spec.points.get(point)
            bits = [
                f"{_caps(r.spec.capabilities)} ({'/'.join(sorted(r.keys))})"
                for r in spec.routes.get(point, ())
            ]
            if ps is None:
                bits.append("—")
            else:
                bits.append(_caps(ps.capabilities) + (" (other)" if bits else ""))
            row.append("; ".join(bits))
        rows.append(row)
    return table(["point", *SUPPORTED], rows)


# -- rule fields and condition fields: agentstyle/vocabulary.py ---------------------------------


def _field_type(ftype: Any) -> str:
    if ftype.kind == "enum":
        return " \\| ".join(f"`{v}`" for v in ftype.values)
    if ftype.kind == "int":
        low, high = ftype.minimum, ftype.maximum
        if low is not None and high is not None:
            return f"integer {low}–{high:,}"
        return f"integer ≥ {low}" if low is not None else "integer"
    if ftype.kind == "list" and ftype.item_values:
        return "list of " + ", ".join(f"`{v}`" for v in ftype.item_values)
    words: dict[str, str] = {
        "str": "string",
        "bool": "`true` \\| `false`",
        "list": "list of strings",
        "str-or-list": "string or list",
        "when": "string or mapping",
        "mapping": "mapping",
    }
    return words.get(ftype.kind, str(ftype.kind))


def rule_fields(arg: str | None) -> str:
    """The table of every rule field: type, whether `defaults` may set it, one-line meaning."""
    from agentstyle.vocabulary import DEFAULTABLE_FIELDS, INLINE_ONLY_FIELDS, RULE_FIELDS

    if arg:
        raise ValueError("docsgen rule-fields takes no argument")
    rows = []
    for name, ftype in RULE_FIELDS.items():
        where = []
        if name in DEFAULTABLE_FIELDS:
            where.append("`defaults`")
        if name in INLINE_ONLY_FIELDS:
            where.append("inline only")
        rows.append(
            [
                f"[`{name}`](#{_slug(name)})",
                _field_type(ftype),
                cell(ftype.description),
                ", ".join(where),
            ]
        )
    return table(["field", "type", "meaning", "notes"], rows)


def package_fields(arg: str | None) -> str:
    from agentstyle.vocabulary import PACKAGE_FIELDS, REQUIRED_PACKAGE_FIELDS

    if arg:
        raise ValueError("docsgen package-fields takes no argument")
    rows = [
        [
            f"[`{name}`](#{_slug(name)})",
            _field_type(ftype),
            "yes" if name in REQUIRED_PACKAGE_FIELDS else "",
            cell(ftype.description),
        ]
        for name, ftype in PACKAGE_FIELDS.items()
    ]
    return table(["field", "type", "required", "meaning"], rows)


def field_availability(arg: str | None) -> str:
    """Where each condition field can have a value (what `field-unavailable` checks)."""
    from agentstyle.vocabulary import ALL_POINTS, CONDITION_FIELDS, EVENTS, PATH_FIELDS

    if arg:
        raise ValueError("docsgen field-availability takes no argument")
    rows = []
    for name, avail in CONDITION_FIELDS.items():
        shown = f"`{name}`, `{name}.<path>`" if name in PATH_FIELDS else f"`{name}`"
        if avail.points == ALL_POINTS:
            points = "every point"
        else:
            points = ", ".join(f"`{p}`" for p in EVENTS if p in avail.points)
        calls = "any call"
        if avail.mcp_only:
            calls = "MCP calls"
        elif avail.skill_only:
            calls = "skill calls"
        elif avail.tools is not None:
            calls = ", ".join(f"`{t}`" for t in sorted(avail.tools))
        if not (avail.points & {"tool.pre", "tool.post", "tool.failed"}):
            calls = ""
        rows.append([shown, points, calls])
    return table(["field", "points", "at tool points, only for"], rows)


# -- the bundled library: agentstyle/library/ ---------------------------------------------------


def _library() -> Path:
    import agentstyle

    return Path(agentstyle.__file__).resolve().parent / "library"


def library(arg: str | None) -> str:
    """Every bundled package: description, settings, rules with their placement fields."""
    from agentstyle.policy.load import load_package
    from agentstyle.policy.rules import effective, points

    if arg:
        raise ValueError("docsgen library takes no argument")
    parts: list[str] = []
    folders = sorted(p for p in _library().iterdir() if (p / "STYLE.yaml").is_file())
    overview = []
    for folder in folders:
        result = load_package(folder)
        pkg = result.package
        if pkg is None:
            raise ValueError(f"docsgen library: {folder.name} does not load")
        overview.append(
            [f"[`{pkg.name}`](#{_slug(pkg.name)})", str(len(pkg.rules)), cell(pkg.description)]
        )
        parts += ["", f"### {pkg.name}", "", f"{prose(pkg.description)} (version {pkg.version})"]
        if pkg.settings:
            parts += [
                "",
                table(
                    ["setting", "default", "meaning"],
                    [
                        [
                            f"`{s.name}`",
                            code(str(s.default)) if s.has_default else "— (required)",
                            cell(s.description),
                        ]
                        for s in pkg.settings
                    ],
                ),
            ]
        rows = []
        for rule in pkg.rules:
            eff = effective(rule, pkg)
            what = eff.get("tool") or eff.get("event") or eff.get("mcp") or eff.get("skill")
            if isinstance(what, list):
                what = ", ".join(what)
            reason = rule.fields.get("reason")
            fix = rule.fields.get("fix")
            fixed = fix.value if fix is not None and isinstance(fix.value, dict) else None
            rows.append(
                [
                    f"`{rule.id}`",
                    eff["action"] + (" (`fail: closed`)" if eff["fail"] == "closed" else ""),
                    ", ".join(f"`{p}`" for p in points(eff)),
                    f"`{eff['target']}`" + (f" {code(str(what))}" if what else ""),
                    cell(str(reason.value)) if reason is not None else "",
                    (
                        f"{code(str(fixed.get('replace')))} → {code(str(fixed.get('with')))}"
                        if fixed
                        else "—"
                    ),
                ]
            )
        header = ["rule", "action", "point", "target", "what it matches, what passes on purpose"]
        parts += ["", table([*header, "fix"], rows)]
        tests = sorted((folder / "tests").glob("*.yaml")) if (folder / "tests").is_dir() else []
        if tests:
            cases = sum(_case_count(t) for t in tests)
            parts += ["", f"Fixtures: {cases} cases in `tests/` (`style test`)."]
    head = table(["package", "rules", "description"], overview)
    return "\n".join([head, *parts])


def _case_count(path: Path) -> int:
    import yaml

    doc = yaml.safe_load(path.read_text("utf-8")) or {}
    return len(doc.get("cases") or []) if isinstance(doc, dict) else 0


def library_readme(arg: str | None) -> str:
    """The library's README (agentstyle/library/README.md) below its title, one level down."""
    if arg:
        raise ValueError("docsgen library-readme takes no argument")
    text = (_library() / "README.md").read_text("utf-8")
    lines = text.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    out = []
    in_fence = False
    for line in lines:
        if line.startswith("```"):
            in_fence = not in_fence
        if not in_fence and re.match(r"#+ ", line):
            line = "#" + line
        if not in_fence:
            # a package's own README is on this page too (library-package-readmes)
            line = re.sub(r"\]\(([a-z0-9-]+)/README\.md\)", r"](#\1-readme)", line)
        out.append(line)
    return "\n".join(out).strip("\n")


def library_package_readmes(arg: str | None) -> str:
    """Each bundled package's README (what it covers, what it does not), under
    `### NAME README`, its own headings three levels down."""
    if arg:
        raise ValueError("docsgen library-package-readmes takes no argument")
    parts = []
    for folder in sorted(p for p in _library().iterdir() if (p / "README.md").is_file()):
        lines = (folder / "README.md").read_text("utf-8").splitlines()
        if lines and lines[0].startswith("# "):
            lines = lines[1:]
        body, in_fence = [], False
        for line in lines:
            if line.startswith("```"):
                in_fence = not in_fence
            if not in_fence and re.match(r"#+ ", line):
                line = "###" + line
            body.append(line)
        parts.append(f"### {folder.name} README\n\n" + "\n".join(body).strip("\n"))
    return "\n\n".join(parts)


# -- the hook -----------------------------------------------------------------------------------

GENERATORS: dict[str, Callable[[str | None], str]] = {
    "diagnostics": diagnostics,
    "cli": cli,
    "cli-commands": cli_commands,
    "harness": harness,
    "capabilities": capabilities,
    "rule-fields": rule_fields,
    "package-fields": package_fields,
    "field-availability": field_availability,
    "library": library,
    "library-readme": library_readme,
    "library-package-readmes": library_package_readmes,
}


def expand(markdown: str, where: str = "page") -> str:
    """`markdown` with every `<!-- docsgen: … -->` line replaced by its generated part."""

    def one(m: re.Match[str]) -> str:
        name, arg = m.group("name"), m.group("arg")
        generator = GENERATORS.get(name)
        if generator is None:
            known = ", ".join(GENERATORS)
            raise ValueError(f"{where}: unknown docsgen part `{name}` (known: {known})")
        return generator(arg.strip() if arg else None)

    return MARKER.sub(one, markdown)


def rendered_pages() -> dict[str, str]:
    """Every page of docs/ (path relative to docs/) as the build renders its markdown."""
    return {
        p.relative_to(DOCS).as_posix(): expand(p.read_text("utf-8"), p.name)
        for p in sorted(DOCS.rglob("*.md"))
    }


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any, **_: Any) -> str:
    return expand(markdown, page.file.src_uri)
