"""Regular expressions checked by the RE2 that will run them: DuckDB's `regexp_matches`."""

from __future__ import annotations

import duckdb

from agentstyle.sql import statement


def regex_errors(patterns: list[str]) -> dict[str, str]:
    """RE2 errors of `patterns`, compiled by DuckDB exactly as evaluation will compile them."""
    conn = duckdb.connect(":memory:")
    errors: dict[str, str] = {}
    try:
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
