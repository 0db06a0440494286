-- Migration 005: the evaluation index, derived from the policy tables whenever a policy is
-- stored (sql/policy/index_*.sql, run by store.index_policy; this migration's caller runs them
-- once for a database that already holds a policy). It holds what evaluation used to work out
-- per event and does not depend on the event, so an event costs a few small statements:
-- which rules an event can reach (a route key instead of a tool glob per event), each rule's
-- condition as flat (clause, literal) rows with the test its operator needs, the facts
-- outcomes read, and per point which optional statements (state.*, field wildcards) apply.

-- One row per running entry (status native/partial/degraded, rule enabled): the rule's facts
-- at that harness and point, so evaluation joins one table instead of entries, rules and
-- packages.
CREATE TABLE placed (
    harness VARCHAR NOT NULL,
    point VARCHAR NOT NULL,
    rule_id VARCHAR NOT NULL,
    rule_order INTEGER NOT NULL,
    pkg_order INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    action VARCHAR NOT NULL,         -- the entry's effective action
    repeat VARCHAR,                  -- the entry's effective repeat
    status VARCHAR NOT NULL,
    refresh INTEGER NOT NULL,
    reinject BOOLEAN NOT NULL,
    fail VARCHAR NOT NULL,
    per_event INTEGER NOT NULL,      -- the package's per-event budget
    uses_rule_state BOOLEAN NOT NULL
);

-- One row per (route, rule, DNF clause, literal). `route` is `harness|point|key`, the key an
-- event carries (evaluator/evaluate.py route_keys): `*` (any event at the point), `source=S`
-- (session.start with that source), `tool=T` (normalized tool, the rule's tool globs matched
-- against the vocabulary here), `native=N`, `mcp-native=N` (native tool names), `mcp`, `skill`
-- (then `name_regex`, the server or skill glob, is tested on the event's server or skill).
-- A rule without a condition is one clause whose one literal can never be found, negated, so
-- it always holds.
CREATE TABLE match_rows (
    route VARCHAR NOT NULL,
    name_regex VARCHAR,
    clause_key INTEGER NOT NULL,     -- (harness, point, rule, clause) as a number: grouping by it
                                     -- is cheaper than by the rule's text columns
    rule_id VARCHAR NOT NULL,
    rule_order INTEGER NOT NULL,
    action VARCHAR NOT NULL,
    repeat VARCHAR,
    status VARCHAR NOT NULL,
    clause_id INTEGER NOT NULL,
    clause_size INTEGER NOT NULL,    -- literals in the clause (1: no need to aggregate them)
    negated BOOLEAN NOT NULL,        -- the literal holds when no field row passes the test
    lookup_key VARCHAR,              -- the field row name: a field, a wildcard path's regex, or
                                     -- `state.rule_hits@<rule>` for per-rule state
    literal VARCHAR,                 -- a substring every passing value contains (tested first)
    literal_ci BOOLEAN NOT NULL,     -- the literal is lower case and compared case-insensitively
    regex VARCHAR,                   -- RE2 (regex, glob, starts_with, ends_with)
    equals VARCHAR,                  -- exact text (equals), or a number in `equals_num`
    equals_num DOUBLE,
    one_of VARCHAR[],                -- `in`
    num DOUBLE,                      -- gt/gte/lt/lte: sign(value - num) is one of `num_signs`
    num_signs TINYINT[],
    any_literals VARCHAR[]           -- instead of `literal`: every passing value contains one of
                                     -- these (policy/prefilter.py any_literal)
);

-- Every required run of literal characters of a regex predicate (policy/prefilter.py
-- required_runs; `literal` is the longest): the index tests the one fewest patterns share.
ALTER TABLE conditions ADD COLUMN literals VARCHAR[];

-- Per harness and point: which optional statements evaluation runs for its events.
CREATE TABLE point_flags (
    harness VARCHAR NOT NULL,
    point VARCHAR NOT NULL,
    session_state BOOLEAN NOT NULL,  -- a condition reads state.turns/tool_calls/failures
    rule_state BOOLEAN NOT NULL,     -- a condition reads state.rule_hits/since_last_s
    wildcards BOOLEAN NOT NULL,      -- a condition reads a field path with `*` segments
    reads_model BOOLEAN NOT NULL,    -- a condition reads `model` or `provider` (known only
                                     -- once the session row is read: book.sql)
    lookup_keys VARCHAR[] NOT NULL   -- the field rows its conditions read (match_rows): an
                                     -- event's other fields are not sent to `match`
);

-- The regexes of the field paths with `*` segments, matched against an event's field names
-- by evaluate/wild_fields.sql.
CREATE TABLE field_patterns (
    pattern VARCHAR NOT NULL
);
