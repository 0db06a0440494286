-- Evaluation index (schema 005): per harness and point, which optional statements its events
-- need: state.* over the history, per-rule state, field paths with `*` segments, the
-- session's model before matching; the field rows its conditions read; state over the
-- session's facts (schema 006); the event fields a simple command's own events carry (013).
-- No parameters. Run after index_match_rows.sql.
INSERT INTO point_flags
WITH read_keys AS (
    SELECT split_part(route, '|', 1) AS harness, split_part(route, '|', 2) AS point,
           list(DISTINCT lookup_key ORDER BY lookup_key) AS lookup_keys,
           -- the event's fields the inlined command conditions read beside the command's own
           -- (a simple command's events carry a copy: evaluator/commandrows.py)
           list(DISTINCT lookup_key ORDER BY lookup_key) FILTER (
               WHERE split_part(route, '|', 3) LIKE 'cmd%=%'
                 AND NOT starts_with(lookup_key, 'command.')
           ) AS command_keys
    FROM match_rows
    WHERE lookup_key IS NOT NULL
    GROUP BY 1, 2
)
SELECT p.harness, p.point,
       coalesce(bool_or(c.lookup_field IN ('state.turns', 'state.tool_calls', 'state.failures')),
                false),
       bool_or(p.uses_rule_state),
       coalesce(bool_or(c.field_regex IS NOT NULL), false),
       coalesce(bool_or(c.lookup_field IN ('model', 'provider')), false),
       coalesce(any_value(k.lookup_keys), []),
       coalesce(bool_or(c.lookup_field IN ('state.commands_since_edit', 'state.files_edited',
                                           'state.commands_failed')), false),
       coalesce(any_value(k.command_keys), [])
FROM placed p
LEFT JOIN conditions c ON c.rule_id = p.rule_id AND c.kind = 'pred'
LEFT JOIN read_keys k ON k.harness = p.harness AND k.point = p.point
GROUP BY p.harness, p.point;
