"""The command line's conventions, the same under every Typer the package allows.

- Help pages are plain text laid out here, not by Typer: readable metavars (`PKG`, `HARNESS`),
  one line of help per option, no colour, no boxes. Typer's own layout changed from release to
  release (Click's `TEXT`, Rich panels, `<bool>` placeholders since 0.26).
- A usage error (unknown option or command, missing argument, bad value, conflicting options) is
  one `style: …` line on stderr and exit 2; an error of the user's situation (`StyleError`, a
  path that cannot be written) is one line and exit 1.

Typer's Click (its own copy since 0.26, the Click package before) is reached only through
Typer's public names and the attributes both copies share.
"""

from __future__ import annotations

import difflib
import enum
import errno
import inspect
import os
import re
import shutil
import sys
import textwrap
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from agentstyle.diagnostics import StyleError

# Narrower than this, help pages wrap too often to read; wider, lines get hard to follow.
MIN_WIDTH, MAX_WIDTH = 60, 80
# A left column (option names and metavar) wider than this puts its help on the next line.
LEFT_MAX = 30
USAGE_EXIT = 2


def _click_class(name: str) -> type[Exception]:
    """A class of the Click that this Typer runs on, found through the public `BadParameter`."""
    for klass in typer.BadParameter.__mro__:
        if klass.__name__ == name:
            return klass
    raise ImportError(f"typer.BadParameter does not derive from Click's `{name}`")


CLICK_EXCEPTION = _click_class("ClickException")
USAGE_ERROR = _click_class("UsageError")

# Options Typer adds itself: their help in the house style.
OWN_HELP = {
    "--help": "show this help and exit",
    "--install-completion": "install shell completion for `style` (bash, zsh, fish, powershell)",
    "--show-completion": "print the completion script, to install it by hand",
}


class _NoCommand(Exception):
    """A group called without a command: its help goes to stderr as a usage error."""

    def __init__(self, ctx: Any) -> None:
        super().__init__("no command given")
        self.ctx = ctx


# -- help pages ------------------------------------------------------------------------------------


def help_width() -> int:
    return max(MIN_WIDTH, min(shutil.get_terminal_size((MAX_WIDTH, 24)).columns, MAX_WIDTH))


def summary(command: Any) -> str:
    """A command's one-line summary: its short help, else the first line of its help."""
    text = inspect.cleandoc(command.short_help or command.help or "")
    return text.split("\n\n", 1)[0].split("\n", 1)[0].strip()


def _metavar(param: Any) -> str:
    name: str = param.metavar or (param.name or "value").upper()
    if param.param_type_name == "argument" and param.nargs == -1 and not name.endswith("..."):
        name += "..."
    return name


def _is_help(param: Any, ctx: Any) -> bool:
    return bool(param.opts) and set(param.opts) <= set(ctx.help_option_names)


def _is_flag(param: Any) -> bool:
    return bool(getattr(param, "is_flag", False) or getattr(param, "count", False))


def _default(param: Any, ctx: Any) -> str | None:
    """The default shown after an option's help, or None when there is nothing to show."""
    if param.required:
        return None
    shown = getattr(param, "show_default", True)
    if isinstance(shown, str):
        return str(shown)
    if shown is False:
        return None
    value = param.default
    if _is_flag(param):
        # `--fire/--no-fire`: the spelling that is in force; a lone flag is off unless given.
        if param.secondary_opts and isinstance(value, bool):
            names: list[str] = param.opts if value else param.secondary_opts
            return max(names, key=len)
        return None
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or callable(value) or value in ((), [], ""):
        return None
    if type(value).__name__.lower().endswith("sentinel"):  # Click's `UNSET`
        return None
    return str(value)


def _option_names(param: Any) -> str:
    names = ", ".join(sorted(param.opts, key=len))
    if param.secondary_opts:
        names += " / " + ", ".join(sorted(param.secondary_opts, key=len))
    if not _is_flag(param):
        names += " " + _metavar(param)
    return names


def _declared_help(command: Any, name: str) -> str:
    """An argument's help as the command declares it. Typer 0.25 and older keep it on a Click
    attribute that Click 8.3 and later reset, so it is read from the annotation instead."""
    callback = getattr(command, "callback", None)
    if callback is None:
        return ""
    try:
        hints = typing.get_type_hints(inspect.unwrap(callback), include_extras=True)
    except Exception:  # an annotation that does not evaluate: no help rather than no page
        return ""
    for meta in getattr(hints.get(name), "__metadata__", ()):
        text = getattr(meta, "help", None)
        if isinstance(text, str):
            return text
    return ""


def _row(param: Any, ctx: Any) -> tuple[str, str]:
    if param.param_type_name == "argument":
        left = _metavar(param)
        text = param.help or _declared_help(ctx.command, param.name)
    else:
        left = _option_names(param)
        text = OWN_HELP.get(max(param.opts, key=len), "") or param.help or ""
    text = " ".join(inspect.cleandoc(text).split())
    extras = []
    if param.required and param.param_type_name == "option":
        extras.append("required")
    default = _default(param, ctx)
    if default is not None:
        extras.append(f"default: {default}")
    if getattr(param, "multiple", False):
        extras.append("repeatable")
    if extras:
        text = f"{text} [{'; '.join(extras)}]".strip()
    return left, text


def _table(rows: Sequence[tuple[str, str]], width: int) -> list[str]:
    # a name too long for the column goes on a line of its own instead of widening it
    left_width = max((len(left) for left, _ in rows if len(left) <= LEFT_MAX), default=LEFT_MAX)
    right_width = max(width - left_width - 4, 20)
    lines = []
    for left, right in rows:
        wrapped = textwrap.wrap(right, right_width, break_on_hyphens=False) or [""]
        if len(left) > left_width:
            lines.append(f"  {left}")
        else:
            lines.append(f"  {left:<{left_width}}  {wrapped.pop(0)}".rstrip())
        lines.extend(f"  {'':<{left_width}}  {line}" for line in wrapped)
    return lines


def _paragraphs(text: str, width: int) -> list[str]:
    """The help text: prose paragraphs rewrapped; indented or listed lines kept as written."""
    lines: list[str] = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        rows = paragraph.splitlines()
        if any(row.startswith((" ", "-", "$")) for row in rows):
            lines.extend(f"  {row}".rstrip() for row in rows)
        else:
            prose = " ".join(paragraph.split())
            rows = textwrap.wrap(prose, width - 2, break_on_hyphens=False)
            lines.extend(f"  {row}" for row in rows)
        lines.append("")
    return lines


def usage_line(command: Any, ctx: Any) -> str:
    params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    pieces = [ctx.command_path]
    if any(p.param_type_name == "option" for p in params):
        pieces.append("[OPTIONS]")
    for p in params:
        if p.param_type_name == "argument":
            name = _metavar(p)
            if p.required:
                pieces.append(name)
            else:
                bare = name.removesuffix("...")
                pieces.append(f"[{bare}]..." if name.endswith("...") else f"[{name}]")
    if isinstance(command, TyperGroup):
        optional = getattr(command, "invoke_without_command", False)
        pieces.append("[COMMAND] [ARGS]..." if optional else "COMMAND [ARGS]...")
    return "usage: " + " ".join(pieces)


def render_help(command: Any, ctx: Any) -> str:
    width = help_width()
    lines = [usage_line(command, ctx), ""]
    if command.help:
        lines.extend(_paragraphs(command.help, width))
    params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    arguments = [_row(p, ctx) for p in params if p.param_type_name == "argument"]
    # the help option last, where every reader looks for it
    options = [_row(p, ctx) for p in params if p.param_type_name == "option"]
    helps = [_row(p, ctx) for p in params if p.param_type_name == "option" and _is_help(p, ctx)]
    options = [o for o in options if o not in helps] + helps
    sections: list[tuple[str, list[tuple[str, str]]]] = [
        ("arguments", arguments),
        ("options", options),
    ]
    if isinstance(command, TyperGroup):
        commands = []
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                commands.append((name, summary(sub)))
        sections.append(("commands", commands))
    for title, rows in sections:
        if rows:
            lines.append(f"{title}:")
            lines.extend(_table(rows, width))
            lines.append("")
    if command.epilog:
        lines.extend(_paragraphs(command.epilog, width))
    return "\n".join(lines).rstrip("\n") + "\n"


# -- usage errors ----------------------------------------------------------------------------------


def _param_name(param: Any) -> str:
    if param.param_type_name == "argument":
        return _metavar(param)
    return str(max(param.opts, key=len)) if param.opts else str(param.name)


def _sentence(text: str) -> str:
    """Click's message as a house-style fragment: lowercase start, no closing period."""
    text = " ".join(str(text).split()).rstrip(".")
    return text[:1].lower() + text[1:] if text[1:2].islower() or len(text) < 2 else text


def usage_message(exc: Any) -> str:
    """One line for a usage error of any kind Click raises (or the commands raise)."""
    kind = type(exc).__name__
    param = getattr(exc, "param", None)
    message = str(getattr(exc, "message", "") or "")
    if kind == "NoSuchOption":
        text = f"no such option `{exc.option_name}`"
        close = sorted(getattr(exc, "possibilities", None) or [])
        if close:
            text += f" (did you mean `{close[0]}`?)"
        return text
    if kind == "MissingParameter" and param is not None:
        what = "argument" if param.param_type_name == "argument" else "option"
        shown = _metavar(param) if what == "argument" else _option_names(param)
        return f"missing {what} `{shown}`"
    if kind == "BadOptionUsage" and "requires" in message:
        return f"option `{exc.option_name}` needs a value"
    if isinstance(exc, typer.BadParameter):
        hint = getattr(exc, "param_hint", None)
        if isinstance(hint, (list, tuple)):
            hint = " / ".join(hint)
        if hint is None and param is not None:
            hint = _param_name(param)
        text = _sentence(message)
        return f"invalid value for `{hint}`: {text}" if hint else text
    extra = re.match(r"got unexpected extra arguments?(?:\(s\))? \((.*)\)", message, re.I)
    if extra:
        return f"unexpected argument `{extra.group(1)}`"
    return _sentence(message or exc.format_message())


def usage_error_line(exc: Any) -> str:
    ctx = getattr(exc, "ctx", None)
    where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
    return f"style: {usage_message(exc)}{where}\n"


def error_lines(exc: StyleError) -> str:
    """A StyleError as the user sees it: the diagnostics it carries, then its one line."""
    rendered = getattr(exc, "rendered", "")
    hint = exc.hint
    return f"{rendered}style: {exc}{'; ' + hint if hint else ''}\n"


# Failures of the machine, not of STYLE: full disk, quota, read-only file system, I/O error.
ENVIRONMENT_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO}


def os_error_line(exc: OSError) -> str | None:
    """A file the command could not read or write, named with the system's reason; None for
    an OSError that names no file and is not a failure of the machine (a bug: shown as one)."""
    reason = _sentence(exc.strerror or type(exc).__name__)
    if exc.filename is not None:
        if isinstance(exc, (NotADirectoryError, FileExistsError)):
            # a folder was to be made or entered where a file is: name that file
            path = Path(os.fsdecode(exc.filename))
            for part in (path, *path.parents):
                if part.exists():
                    if not part.is_dir():
                        return f"style: `{part}` is a file where a folder is needed\n"
                    break
        return f"style: `{exc.filename}`: {reason}\n"
    if exc.errno in ENVIRONMENT_ERRNOS:
        return f"style: cannot write: {reason}\n"
    return None


# -- the classes every command and group is made of ------------------------------------------------


class StyleCommand(TyperCommand):
    """A command whose help page is laid out by `render_help`."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        formatter.write(render_help(self, ctx))


class StyleGroup(TyperGroup):
    """A group with `render_help` pages; as the program's root it turns errors into one line."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        formatter.write(render_help(self, ctx))

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        # Click answers a bare group with its help and exit 0 (8.1) or 2 (8.2 on): one rule here.
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            raise _NoCommand(ctx)
        rest: list[str] = super().parse_args(ctx, args)
        return rest

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            hint = f" (did you mean `{close[0]}`?)" if close else ""
            raise typer.BadParameter(f"no such command `{name}`{hint}", ctx=ctx)
        return super().resolve_command(ctx, args)

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if os.environ.get("NO_COLOR"):  # what Click itself colours (e.g. completion's notes)
            extra.setdefault("color", False)

        def run() -> Any:
            return super(StyleGroup, self).main(
                args=args,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )

        if not standalone_mode:
            return run()
        try:
            code = run()
        except _NoCommand as exc:
            sys.stderr.write(exc.ctx.get_help().rstrip("\n") + "\n")
            sys.exit(USAGE_EXIT)
        except USAGE_ERROR as exc:
            sys.stderr.write(usage_error_line(exc))
            sys.exit(USAGE_EXIT)
        except CLICK_EXCEPTION as exc:  # a file Click could not open, and the like
            sys.stderr.write(f"style: {_sentence(exc.format_message())}\n")  # type: ignore[attr-defined]
            sys.exit(getattr(exc, "exit_code", 1))
        except StyleError as exc:
            sys.stderr.write(error_lines(exc))
            sys.exit(1)
        except typer.Abort:
            sys.stderr.write("style: aborted\n")
            sys.exit(130)
        except OSError as exc:
            line = os_error_line(exc)
            if line is None:
                raise
            sys.stderr.write(line)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)
