"""A compiled policy in a private in-memory database, for explain, test and replay."""

from __future__ import annotations

from agentstyle.diagnostics import StyleError, render_text
from agentstyle.evaluator.store import Connection, memory_store, replace_policy
from agentstyle.policy.compile import Compiled, compile_policy, load_and_validate


class PolicyErrors(StyleError):
    """The packages have errors; `diagnostics` holds the rendered lines."""

    def __init__(self, compiled: Compiled) -> None:
        errors = [d for d in compiled.diagnostics if d.level == "error"]
        super().__init__(f"{len(errors)} error(s) in the packages; run `style validate`")
        self.compiled = compiled
        self.rendered = render_text(errors)


def compile_checked(paths: list[str], harnesses: list[str]) -> Compiled:
    compiled = compile_policy(load_and_validate(paths), harnesses)
    if not compiled.ok:
        raise PolicyErrors(compiled)
    return compiled


def memory_policy(paths: list[str], harness: str) -> tuple[Connection, Compiled]:
    compiled = compile_checked(paths, [harness])
    conn = memory_store()
    replace_policy(conn, compiled.rows)
    return conn, compiled
