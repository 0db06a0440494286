"""Regular expressions checked by the RE2 that will run them: DuckDB's `regexp_matches`."""

from __future__ import annotations

import duckdb

from agentstyle.sql import statement


def regex_errors(patterns: list[str]) -> dict[str, str]:
    """RE2 errors of `patterns`, compiled by DuckDB exactly as evaluation will compile them."""
    conn = duckdb.connect(":memory:")
    errors: dict[str, str] = {}
    try:
        # Nearly always every pattern is valid: one statement compiles them all (an install's
        # self-protection has ~70, some of 10 kB; one statement each cost 2.5 times as much).
        # Only when one fails are they compiled one by one, to say which and why.
        try:
            conn.execute(statement("policy/check_regexes"), [patterns]).fetchone()
            return errors
        except duckdb.Error:
            pass
        for pattern in patterns:
            try:
                conn.execute(statement("policy/check_regex"), [pattern]).fetchone()
            except duckdb.Error as exc:
                message = str(exc).split("Error:", 1)[-1].strip()
                errors[pattern] = message or "invalid regular expression"
    finally:
        conn.close()
    return errors


def rewrite_errors(pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """RE2 errors of (pattern, replacement) pairs as `regexp_replace` applies a rule's fix."""
    conn = duckdb.connect(":memory:")
    errors: dict[tuple[str, str], str] = {}
    try:
        for pattern, replacement in pairs:
            try:
                conn.execute(statement("policy/check_rewrite"), [pattern, replacement]).fetchone()
            except duckdb.Error as exc:
                message = str(exc).split("Error:", 1)[-1].strip()
                message = message.removeprefix("Invalid replacement string for regexp_replace: ")
                errors[(pattern, replacement)] = message or "invalid replacement"
    finally:
        conn.close()
    return errors
