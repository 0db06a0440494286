"""The evaluation index's text tests, run by a resident engine with its patterns held.

docs/design/runtime.md#tests-held.

match.sql tests every field row against the rows of its event's route keys: the literals first,
then the regex, which DuckDB compiles again for every row it tests (a pattern held in a column
is no constant). For a tool's output under guard-secrets-output that was some forty long
patterns compiled per call, and each row's literals scanned the whole output once each. A
resident engine evaluates many events of one policy, so it holds the rows of the route keys it
has seen and, per field row:

- finds every literal of those rows in one pass (an RE2 set of literals, case-sensitive and
  not), so a row's literal test is a set lookup;
- runs the regexes whose literals were found, each compiled once (RE2, the engine DuckDB runs:
  google-re2), and hands match.sql the ones that hold (`hits`);
- tells whether any rule's clause can still hold: a clause fails when one of its rows that
  must be found is not (its field row is missing, a literal or the regex fails). When no clause
  of any event can hold, the call's answer is "nothing matched" without match.sql at all: most
  tool outputs and most commands.

What this cannot decide it leaves to match.sql, as it was: `equals`, `in` and number tests,
negated rows, a pattern this RE2 would not compile (that field row's `hits` is NULL, and DuckDB
tests it), and every event without an engine.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agentstyle.evaluator.records import IndexRow
from agentstyle.evaluator.statements import read_rows
from agentstyle.evaluator.store import Connection

# A row that must be found for its clause to hold: (field, literal, any_literals, literal_ci,
# regex, other). `other`: an equals/in/number test this module leaves to match.sql.
Must = tuple[str | None, str | None, tuple[str, ...] | None, bool, str | None, bool]
# A route key's clauses (exceptions left out: they only take a match away), each its rule's
# order and the rows it must find; None for a clause with none (only negated rows: it may hold
# whatever is found).
Clauses = list[tuple[int, list[Must] | None]]
_BROKEN = object()  # a pattern this RE2 would not compile: DuckDB tests its field rows


class Found:
    """What the tests found in one field row: its literals and the regexes that hold."""

    __slots__ = ("folded", "hits", "literals")

    def __init__(self, literals: set[str], folded: set[str], hits: list[str] | None) -> None:
        self.literals = literals  # the case-sensitive literals in the value
        self.folded = folded  # the case-insensitive literals in it (stored lower case)
        self.hits = hits  # the regexes that hold; None: left to match.sql

    def passes(self, must: Must) -> bool:
        """Whether the row may be found in this field row (True where unsure)."""
        regex, other = must[4], must[5]
        if other:
            return True
        if not self.has_literals(must):
            return False
        return regex is None or self.hits is None or regex in self.hits

    def has_literals(self, must: Must) -> bool:
        """Whether the value holds the row's literals, the test before its regex."""
        _field, literal, anyof, ci, _regex, _other = must
        found = self.folded if ci else self.literals
        if literal is not None and literal not in found:
            return False
        return anyof is None or any(lit in found for lit in anyof)


class _FieldPlan:
    """The tests of one field row under one set of route keys: its literal sets and regexes."""

    def __init__(self, musts: list[Must]) -> None:
        import re2

        exact: set[str] = set()
        folded: set[str] = set()
        tests: dict[str, Must] = {}
        for must in musts:
            _field, literal, anyof, ci, regex, _other = must
            into = folded if ci else exact
            into.update(anyof or ())
            if literal is not None:
                into.add(literal)
            if regex is not None:
                tests.setdefault(regex, must)
        self.exact = _literal_set(re2, sorted(exact), case_sensitive=True)
        self.folded = _literal_set(re2, sorted(folded), case_sensitive=False)
        self.tests = list(tests.values())


def _literal_set(re2: Any, literals: list[str], case_sensitive: bool) -> tuple[Any, list[str]]:
    if not literals:
        return None, literals
    options = re2.Options()
    options.literal = True
    options.case_sensitive = case_sensitive
    options.max_mem = 64 << 20  # a set of literals is small; room for its DFA on long outputs
    found = re2.Set.SearchSet(options)
    for lit in literals:
        found.Add(lit.encode())
    found.Compile()
    return found, literals


def _in(literal_set: tuple[Any, list[str]], text: bytes) -> set[str]:
    found, literals = literal_set
    if found is None:
        return set()
    return {literals[i] for i in found.Match(text) or ()}


class _Truth:
    """Whether a row may be found among an event's field rows, each row decided once (many
    clauses of many rules share a row)."""

    __slots__ = ("found", "known")

    def __init__(self, found: dict[str, list[Found]]) -> None:
        self.found = found
        self.known: dict[Must, bool] = {}

    def __call__(self, must: Must) -> bool:
        known = self.known.get(must)
        if known is None:
            known = self.known[must] = any(
                f.passes(must) for f in self.found.get(must[0] or "", ())
            )
        return known


def held_index() -> HeldIndex | None:
    """A resident engine's index, or None where google-re2 is not installed (an interpreter
    it has no wheel for: pyproject.toml): `match.sql` then tests everything itself, as it does
    for a hook without an engine."""
    try:
        import re2  # noqa: F401 — the engine's own import: a hook without one never loads it
    except ImportError:
        return None
    return HeldIndex()


class HeldIndex:
    """The rows of the route keys seen so far, their field plans and compiled patterns."""

    def __init__(self) -> None:
        self._clauses: dict[str, Clauses] = {}
        self._musts: dict[str, dict[str, list[Must]]] = {}  # route → field → its rows' tests
        self._plans: dict[tuple[tuple[str, ...], str], _FieldPlan] = {}
        self._compiled: dict[str, Any] = {}

    def _load(self, conn: Connection, routes: set[str]) -> None:
        missing = sorted(routes - self._clauses.keys())
        if not missing:
            return
        clauses: dict[str, dict[int, tuple[int, list[Must] | None]]] = {r: {} for r in missing}
        musts: dict[str, dict[str, list[Must]]] = {r: defaultdict(list) for r in missing}
        for row in read_rows(conn, "evaluate/index_rows", IndexRow, {"routes": missing}):
            must: Must = (
                row.lookup_key,
                row.literal,
                tuple(row.any_literals) if row.any_literals is not None else None,
                bool(row.literal_ci),
                row.regex,
                bool(row.other),
            )
            if row.lookup_key is not None:
                musts[row.route][row.lookup_key].append(must)
            if row.shadow:
                continue
            order, rows = clauses[row.route].setdefault(row.clause_key, (row.rule_order, None))
            if not row.negated:
                clauses[row.route][row.clause_key] = (order, [*(rows or ()), must])
        for route in missing:
            self._clauses[route] = list(clauses[route].values())
            self._musts[route] = dict(musts[route])

    def test(
        self,
        conn: Connection,
        routes: dict[int, list[str]],
        fields: dict[str, list[Any]],
    ) -> tuple[list[list[str] | None], set[int]]:
        """Per field row, the regexes that hold (None: left to match.sql), and the orders of
        the rules one clause of which may hold on some event (none: nothing can match)."""
        self._load(conn, {route for keys in routes.values() for route in keys})
        found: dict[int, dict[str, list[Found]]] = defaultdict(lambda: defaultdict(list))
        hits: list[list[str] | None] = []
        for seq, name, value in zip(fields["seq"], fields["field"], fields["value"], strict=True):
            keys = tuple(routes.get(seq, ()))
            plan = self._plan(keys, name)
            if plan is None:
                hits.append([])
                continue
            tested = self._found(plan, value)
            found[seq][name].append(tested)
            hits.append(tested.hits)
        orders: set[int] = set()
        for seq, seq_routes in routes.items():
            truth = _Truth(found.get(seq, {}))
            for route in seq_routes:
                orders.update(
                    order
                    for order, musts in self._clauses[route]
                    if order not in orders and (musts is None or all(map(truth, musts)))
                )
        return hits, orders

    def _plan(self, keys: tuple[str, ...], name: str) -> _FieldPlan | None:
        plan = self._plans.get((keys, name))
        if plan is None:
            musts = [m for route in keys for m in self._musts[route].get(name, ())]
            if not musts:
                return None
            plan = self._plans[(keys, name)] = _FieldPlan(musts)
        return plan

    def _found(self, plan: _FieldPlan, value: str) -> Found:
        text = value.encode()
        tested = Found(_in(plan.exact, text), _in(plan.folded, text), [])
        for must in plan.tests:
            regex = must[4]
            assert regex is not None
            if not tested.has_literals(must):
                continue
            pattern = self._pattern(regex)
            if pattern is _BROKEN:
                tested.hits = None
                return tested
            if pattern.search(text) is not None:
                assert tested.hits is not None
                tested.hits.append(regex)
        return tested

    def _pattern(self, regex: str) -> Any:
        pattern = self._compiled.get(regex)
        if pattern is None:
            import re2

            try:
                pattern = re2.compile(regex.encode())
            except re2.error:
                pattern = _BROKEN
            self._compiled[regex] = pattern
        return pattern
