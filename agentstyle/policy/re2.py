"""Regular expressions checked by the RE2 that will run them: DuckDB's `regexp_matches`."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from agentstyle.duck import duckdb
from agentstyle.sql import statement

_CHECKING = threading.Lock()
# Patterns RE2 compiled in this process: most of the built-in policy's ~110 kB is the same on
# every install and rebuild (40 ms of compiling each time), so only what is new is compiled.
_VALID: set[str] = set()
_MAX_REMEMBERED = 10_000


@cache
def _checker() -> duckdb.DuckDBPyConnection:
    """One in-memory database for every check in this process: opening one costs 10-20 ms,
    several times what compiling a package's patterns does (an install checks twice, and a
    process that installs or rebuilds again checks again)."""
    return duckdb.connect(":memory:")


@contextmanager
def _checking() -> Iterator[duckdb.DuckDBPyConnection]:
    # a connection is not for two threads at once (an engine rebuilds while a command checks)
    with _CHECKING:
        yield _checker()


def _message(exc: duckdb.Error, fallback: str) -> str:
    return str(exc).split("Error:", 1)[-1].strip() or fallback


def regex_errors(patterns: list[str]) -> dict[str, str]:
    """RE2 errors of `patterns`, compiled by DuckDB exactly as evaluation will compile them."""
    new = [p for p in dict.fromkeys(patterns) if p not in _VALID]
    errors: dict[str, str] = {}
    if not new:
        return errors
    with _checking() as conn:
        # Nearly always every pattern is valid: one statement compiles them all (an install's
        # self-protection has ~70, some of 10 kB; one statement each cost 2.5 times as much).
        # Only when one fails are they compiled one by one, to say which and why.
        try:
            conn.execute(statement("policy/check_regexes"), {"patterns": new}).fetchone()
            _remember(new)
            return errors
        except duckdb.Error:
            pass
        for pattern in new:
            try:
                conn.execute(statement("policy/check_regex"), {"pattern": pattern}).fetchone()
            except duckdb.Error as exc:
                errors[pattern] = _message(exc, "invalid regular expression")
        _remember([p for p in new if p not in errors])
    return errors


def _remember(valid: list[str]) -> None:
    if len(_VALID) + len(valid) > _MAX_REMEMBERED:
        _VALID.clear()
    _VALID.update(valid)


def rewrite_errors(pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """RE2 errors of (pattern, replacement) pairs as `regexp_replace` applies a rule's fix."""
    errors: dict[tuple[str, str], str] = {}
    with _checking() as conn:
        for pattern, replacement in pairs:
            try:
                pair = {"pattern": pattern, "replacement": replacement}
                conn.execute(statement("policy/check_rewrite"), pair).fetchone()
            except duckdb.Error as exc:
                message = _message(exc, "invalid replacement")
                message = message.removeprefix("Invalid replacement string for regexp_replace: ")
                errors[(pattern, replacement)] = message or "invalid replacement"
    return errors


# A leading `(?flags)` of one pattern of a list (`(?i)secret`), set for that pattern alone.
_LEADING_FLAGS = re.compile(r"\(\?([imsU]+)\)")


def any_of(patterns: list[str]) -> str:
    """One RE2 pattern that matches where any of `patterns` does: a `regex` list
    (docs/conditions.md#a-list-of-patterns). They are joined with `|`, the loosest binding, so
    each stays whole; a leading `(?i)` shared by all of them is said once in front (the
    prefilter reads it there: policy/prefilter.py), and where they differ each keeps its own,
    as `(?i:…)`, so it does not reach the patterns after it."""
    if len(patterns) == 1:
        return patterns[0]
    # a `(?i)` further in sets the flag to the end of the enclosing group: a group of its own
    patterns = [_own_group(p) for p in patterns]
    leads = [_LEADING_FLAGS.match(p) for p in patterns]
    flags = {m.group(1) if m else "" for m in leads}
    if len(flags) == 1:
        shared = flags.pop()
        cut = len(f"(?{shared})") if shared else 0
        return (f"(?{shared})" if shared else "") + "|".join(p[cut:] for p in patterns)
    return "|".join(
        f"(?{m.group(1)}:{p[m.end() :]})" if m else p for p, m in zip(patterns, leads, strict=True)
    )


def _own_group(pattern: str) -> str:
    lead = _LEADING_FLAGS.match(pattern)
    rest = pattern[lead.end() :] if lead else pattern
    if not _LEADING_FLAGS.search(rest):
        return pattern
    return (lead.group(0) if lead else "") + f"(?:{rest})"
