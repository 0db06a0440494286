-- Candidate entries of every batch event and whether each one's condition holds
-- (docs/design/runtime.md#candidates, #conditions), over the evaluation index (schema 005).
-- Parameters: lists of $route_seq, $route (`harness|point|key`, a row per route key of an
-- event: evaluator/evaluate.py route_keys), $route_name (the MCP server or skill the key
-- `mcp`/`skill` tests); lists of the field rows $seq, $field, $value (with any state.* and
-- wildcard rows) and $hits (each row's regexes that hold, or NULL: below); $orders, the
-- only rules to read (a resident engine's, whose own tests left the rest out), or NULL for
-- all; $trace true to return every candidate (explain's trace), false for the
-- matched ones.
-- Result: seq, rule_order, matched, excepted — one row per candidate, in no order (`excepted`:
-- the rule's condition as written holds, its exceptions took it out: schema 013's `shadow`
-- clauses). A rule's order names
-- it (rules.rule_order is unique); the caller reads the entry's rule id, action, repeat and
-- status from `placed` (candidates.sql, or once for a resident engine) and sorts by the
-- order: carrying those columns through both aggregates here cost an eighth of the plan.
--
-- A literal's field rows are joined only where they pass its test, so a literal is either
-- found (one row or more) or missing (one row of NULLs): a clause holds when each of its rows
-- is found exactly where the literal is not negated, whatever the duplicates. A clause of one
-- literal holds where any of its rows does, so only those rows are kept for the grouping (a
-- batch's candidates mostly fail: most rows go before the aggregate). The required literal (or
-- a set of literals one of which every match holds) is tested before any regex, which DuckDB
-- compiles per row.
WITH ev AS (
    SELECT unnest($route_seq) AS seq, unnest($route) AS route, unnest($route_name) AS name
),
-- `folded`: the value in lower case, made once per row for every case-insensitive literal that
-- reads it (a long tool output was lowered once per such literal)
-- `hits`: the regexes that hold on the row, where a resident engine tested them itself with each
-- pattern compiled once (evaluator/regexhits.py); NULL: tested here
f AS (
    SELECT seq, field, value, lower(value) AS folded, hits
    FROM (SELECT unnest($seq) AS seq, unnest($field) AS field, unnest($value) AS value,
                 unnest($hits::VARCHAR[][]) AS hits)
),
clauses AS (
    SELECT e.seq, r.clause_key, any_value(r.rule_order) AS rule_order,
           any_value(r.shadow) AS shadow, bool_and((f.seq IS NOT NULL) <> r.negated) AS holds
    FROM ev e
    JOIN match_rows r
      ON r.route = e.route AND (r.name_regex IS NULL OR regexp_matches(e.name, r.name_regex))
     AND ($orders IS NULL OR r.rule_order IN (SELECT unnest($orders::INTEGER[])))
    LEFT JOIN f
      ON f.seq = e.seq AND f.field = r.lookup_key AND CASE
          WHEN r.regex IS NOT NULL AND f.hits IS NOT NULL THEN list_contains(f.hits, r.regex)
          WHEN r.literal IS NOT NULL AND NOT contains(
                   CASE WHEN r.literal_ci THEN f.folded ELSE f.value END, r.literal)
              THEN false
          WHEN r.any_literals IS NOT NULL AND NOT list_bool_or(list_transform(r.any_literals,
                   lambda l: contains(CASE WHEN r.literal_ci THEN f.folded ELSE f.value END, l)))
              THEN false
          WHEN r.regex IS NOT NULL THEN regexp_matches(f.value, r.regex)
          WHEN r.equals IS NOT NULL
              THEN f.value = r.equals OR TRY_CAST(f.value AS DOUBLE) = r.equals_num
          WHEN r.one_of IS NOT NULL THEN list_contains(r.one_of, f.value)
          WHEN r.num_signs IS NOT NULL
              THEN list_contains(r.num_signs, sign(TRY_CAST(f.value AS DOUBLE) - r.num))
          ELSE true
      END
    WHERE $trace OR r.clause_size > 1 OR (f.seq IS NOT NULL) <> r.negated
    GROUP BY e.seq, r.clause_key
)
-- a rule matches when one of its clauses holds; without a trace only those clauses are kept
SELECT seq, rule_order,
       coalesce(bool_or(holds) FILTER (WHERE NOT shadow), false) AS matched,
       coalesce(bool_or(holds) FILTER (WHERE shadow), false)
           AND NOT coalesce(bool_or(holds) FILTER (WHERE NOT shadow), false) AS excepted
FROM clauses
WHERE $trace OR holds
GROUP BY seq, rule_order;
