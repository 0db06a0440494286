-- The command conditions that hold on a batch's shell calls (docs/design/commands.md#evaluation):
-- each simple command's rows (evaluator/commandrows.py) meet the conditions its names select in
-- command_match_rows; a condition holds on an event when every literal of one of its clauses
-- holds on one of its commands. Its result is a field row the rule's condition reads like any
-- other (`command#<rule>#<node>`), added to the event's rows for match.sql.
-- Parameters: lists of the command rows $c_seq (the event), $c_cmd (the command), $c_kind
-- (head | sub | opt | arg | nargs | path | text | remote | nothing | env | socket | runs | net),
-- $c_key (opt: the canonical name; path: its role), $c_value, $c_tags (path: its places),
-- $c_forms (path: the spellings a glob is tried on).
-- Result: seq, lookup_key — one row per event and condition that holds.
WITH c AS (
    SELECT unnest($c_seq) AS seq, unnest($c_cmd) AS cmd, unnest($c_kind) AS kind,
           unnest($c_key) AS key, unnest($c_value) AS value, unnest($c_tags) AS tags,
           unnest($c_forms) AS forms
),
lits AS (
    -- each literal of the conditions a command's names select, on that command
    SELECT h.seq, h.cmd, r.*
    FROM c h
    JOIN command_match_rows r ON r.head = h.value
    WHERE h.kind = 'head'
),
clauses AS (
    SELECT l.seq, l.cmd, l.clause_key, any_value(l.lookup_key) AS lookup_key,
           bool_and((x.seq IS NOT NULL) <> l.negated) AS holds
    FROM lits l
    LEFT JOIN c x
      ON x.seq = l.seq AND x.cmd = l.cmd AND x.kind = l.kind
     AND (l.keys IS NULL OR list_contains(l.keys, x.key))
     AND CASE
          WHEN l.kind = 'path' THEN list_bool_and(list_transform(l.path_tests, lambda t:
              ((t.role IS NULL OR x.key = t.role OR x.key = 'path')
               AND (t.tag IS NULL OR list_contains(x.tags, t.tag))
               AND (t.regex IS NULL
                    OR list_bool_or(list_transform(x.forms, lambda f: regexp_matches(f, t.regex)))))
              <> t.neg))
          WHEN l.regex IS NOT NULL THEN regexp_matches(x.value, l.regex)
          WHEN l.equals IS NOT NULL
              THEN x.value = l.equals OR TRY_CAST(x.value AS DOUBLE) = l.equals_num
          WHEN l.one_of IS NOT NULL THEN list_contains(l.one_of, x.value)
          WHEN l.num_signs IS NOT NULL
              THEN list_contains(l.num_signs, sign(TRY_CAST(x.value AS DOUBLE) - l.num))
          ELSE true
      END
    GROUP BY l.seq, l.cmd, l.clause_key
)
SELECT DISTINCT seq, lookup_key
FROM clauses
WHERE holds;
