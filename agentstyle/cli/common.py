"""Shared CLI plumbing: one-line errors, choice options, output formats, colour, package paths."""

from __future__ import annotations

import enum
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from agentstyle.diagnostics import StyleError
from agentstyle.harnesses import SUPPORTED


class Format(enum.StrEnum):
    text = "text"
    json = "json"


SCOPES = ("project", "local", "user", "managed")


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one clear line on stderr and return the exit to raise."""
    typer.echo(f"style: {message}", err=True)
    return typer.Exit(code)


def usage_error(message: str) -> typer.BadParameter:
    """A usage error to raise: one `style:` line on stderr, exit 2."""
    return typer.BadParameter(message)


def packages_or_cwd(packages: list[str] | None) -> list[str]:
    """The package paths a command works on: the current folder when none is given, and a
    bundled package's folder for its name (`style plan guard-destructive`)."""
    from pathlib import Path

    from agentstyle.install.library import bundled_path

    out = []
    for given in packages or ["."]:
        folder = None if Path(given).exists() else bundled_path(given)
        out.append(str(folder) if folder is not None else given)
    return out


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def use_color(stream: Any = None) -> bool:
    """Colour only on a terminal, and never with NO_COLOR set (https://no-color.org)."""
    stream = sys.stdout if stream is None else stream
    return bool(stream.isatty()) and not os.environ.get("NO_COLOR")


def _one_of(values: Sequence[str]) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if item is not None and item not in values:
                raise typer.BadParameter(f"`{item}` is not one of {', '.join(values)}")
        return value

    return check


def _completer(values: Sequence[str]) -> Callable[[str], list[str]]:
    def complete(incomplete: str) -> list[str]:
        return [v for v in values if v.startswith(incomplete)]

    return complete


def choice(*decls: str, values: Sequence[str], metavar: str, help: str, **kw: Any) -> Any:
    """An option taking one of `values`: anything else is a usage error listing them; the shell
    completes them. (Checked here, not by Click, so the message is the same under every Typer.)"""
    return typer.Option(
        *decls,
        metavar=metavar,
        help=help,
        callback=_one_of(values),
        autocompletion=_completer(values),
        **kw,
    )


def choice_argument(*, values: Sequence[str], metavar: str, help: str) -> Any:
    return typer.Argument(
        metavar=metavar,
        help=help,
        callback=_one_of(values),
        autocompletion=_completer(values),
    )


def _or(values: Sequence[str]) -> str:
    return ", ".join(values[:-1]) + " or " + values[-1]


HARNESS_HELP = f"the harness: {_or(SUPPORTED)}"
HarnessOpt = Annotated[
    str, choice("--harness", values=SUPPORTED, metavar="HARNESS", help=HARNESS_HELP)
]
FormatOpt = Annotated[
    str,
    choice(
        "--format",
        values=tuple(f.value for f in Format),
        metavar="FORMAT",
        help="text, or json (one JSON document on stdout, keys below)",
    ),
]


def packages_argument(default: str, help: str = "package folders or NAME.md files") -> Any:
    return typer.Argument(metavar="PKG...", help=help, show_default=default)


PackagesArg = Annotated[list[str] | None, packages_argument("the current folder")]


def _reason(exc: OSError) -> str:
    if isinstance(exc, (FileExistsError, NotADirectoryError)) and exc.filename:
        return f"`{exc.filename}` is a file, not a folder"
    text = exc.strerror or str(exc) or type(exc).__name__
    text = re.sub(r" \(os error \d+\).*$", "", text)  # Rust's tail (polars): the path again
    return text[:1].lower() + text[1:]


def file_in_the_way(path: Path) -> Path | None:
    """The file that stands where a folder of `path` must be, if any."""
    for parent in path.parents:
        if parent.exists():
            return None if parent.is_dir() else parent
    return None


def output_file(path: Path) -> None:
    """Check before any work that `path` can be a file: no folder there, no file in its way."""
    if path.is_dir():
        raise StyleError(f"cannot write `{path}`: it is a folder")
    blocker = file_in_the_way(path)
    if blocker is not None:
        raise StyleError(f"cannot write `{path}`: `{blocker}` is a file, not a folder")


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Write to `path` (its folder made if missing); a failure is one line naming it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        yield
    except OSError as exc:
        raise StyleError(f"cannot write `{path}`: {_reason(exc)}") from None


class ProgressBar:
    """A progress bar on stderr (docs/design/cli.md#progress-bars), drawn once `after_s` has
    passed with the work not yet done (0: from the first step)."""

    def __init__(self, label: str, after_s: float = 0.0) -> None:
        self.label = label
        self.after_s = after_s
        self.bar: Any = None
        self.done = 0
        self.started = time.monotonic()

    def __call__(self, done: int, total: int, step: str = "") -> None:
        if self.bar is None:
            if self.after_s and (done >= total or time.monotonic() - self.started < self.after_s):
                return
            self.bar = typer.progressbar(length=total, label=self.label, file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.done)
        self.done = done
        if done >= total:
            self.bar.__exit__(None, None, None)


def progress_bar(label: str, after_s: float = 0.0) -> ProgressBar | None:
    """A `ProgressBar` where stderr is a terminal (None elsewhere: no bar in a log)."""
    return ProgressBar(label, after_s) if sys.stderr.isatty() else None
