-- Whether any installed entry with `fail: closed` exists for a native event
-- (docs/design/runtime.md#handler-failure). Parameters: $1 harness, $2 native event. Result: one
-- row, one boolean.
SELECT count(*) > 0
FROM entries en
JOIN rules r ON r.rule_id = en.rule_id
WHERE en.harness = $1 AND en.native_event = $2 AND r.fail = 'closed' AND r.enabled
  AND en.status IN ('native', 'partial', 'degraded');
