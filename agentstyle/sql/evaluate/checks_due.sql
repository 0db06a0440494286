-- The checks of these rules (docs/observers.md#checks): the command each runs in the project,
-- its timeout and its cooldown in seconds. Parameters: $rule_ids.
-- Result: rule_id, run, timeout_s, cooldown_s.
SELECT rule_id, check_run AS run, check_timeout_s AS timeout_s, check_cooldown_s AS cooldown_s
FROM rules
WHERE check_run IS NOT NULL AND list_contains($rule_ids, rule_id)
ORDER BY rule_order;
