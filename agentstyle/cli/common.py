"""Shared CLI plumbing: one-line errors, output formats, package path defaults."""

from __future__ import annotations

import enum
import json
import sys
from typing import Any

import typer

from agentstyle.diagnostics import StyleError


class Format(enum.StrEnum):
    text = "text"
    json = "json"


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print one clear line on stderr and return the exit to raise."""
    typer.echo(f"style: {message}", err=True)
    return typer.Exit(code)


def packages_or_cwd(packages: list[str] | None) -> list[str]:
    return list(packages) if packages else ["."]


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def harness_option_check(harness: str) -> None:
    from agentstyle.harnesses import SUPPORTED

    if harness not in SUPPORTED:
        raise StyleError(f"unknown harness `{harness}` (supported: {', '.join(SUPPORTED)})")
