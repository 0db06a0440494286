-- Evaluation index (schema 004): per harness and point, which optional statements its events
-- need: state.* over the history, per-rule state, field paths with `*` segments, the
-- session's model before matching.
-- No parameters. Run after index_placed.sql.
INSERT INTO point_flags
SELECT p.harness, p.point,
       coalesce(bool_or(c.lookup_field IN ('state.turns', 'state.tool_calls', 'state.failures')),
                false),
       bool_or(p.uses_rule_state),
       coalesce(bool_or(c.field_regex IS NOT NULL), false),
       coalesce(bool_or(c.lookup_field IN ('model', 'provider')), false)
FROM placed p
LEFT JOIN conditions c ON c.rule_id = p.rule_id AND c.kind = 'pred'
GROUP BY p.harness, p.point;
