-- The installed plan, as `style doctor` compares it with the hook configs. No parameters.
-- Result: rule_id, harness, point, native_event, matcher, status, reason, effective_action,
-- effective_repeat, capability.
SELECT rule_id, harness, point, native_event, matcher, status, reason, effective_action,
       effective_repeat, capability
FROM entries
ORDER BY harness, rule_id, point;
