-- Which optional statements each point's events need (the evaluation index's point_flags),
-- read once by a connection that evaluates many events of one policy (the resident engine).
-- No parameters. Result: harness, point, session_state, rule_state, wildcards, reads_model,
-- lookup_keys, history, command_keys (the event fields a simple command's own events carry).
SELECT harness, point, session_state, rule_state, wildcards, reads_model, lookup_keys, history,
       coalesce(command_keys, []) AS command_keys
FROM point_flags;
