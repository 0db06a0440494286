-- The installed plan, as `style doctor` compares it with the hook configs. No parameters.
-- Result: rule_id, harness, point, native_event, matcher, status, reason, effective_action,
-- effective_repeat, capability, fail_closed.
SELECT en.rule_id, en.harness, en.point, en.native_event, en.matcher, en.status, en.reason,
       en.effective_action, en.effective_repeat, en.capability,
       coalesce(r.fail = 'closed', false) AS fail_closed
FROM entries en
LEFT JOIN rules r ON r.rule_id = en.rule_id
ORDER BY en.harness, en.rule_id, en.point;
