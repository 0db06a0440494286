-- What replay needs to know of each rule to cut its batches exactly (audit/replay.py):
-- its `refresh` and whether a condition reads its own state (`state.rule_hits`,
-- `state.since_last_s`). No parameters. Result: rule_id, refresh, uses_rule_state.
SELECT rule_id, refresh, uses_rule_state
FROM rules
ORDER BY rule_order;
