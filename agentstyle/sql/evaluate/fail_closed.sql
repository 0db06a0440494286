-- Whether any installed entry with `fail: closed` exists for a native event
-- (docs/design/runtime.md#handler-failure). Parameters: $harness, $native_event. Result: one
-- row: closed (whether one exists).
SELECT count(*) > 0 AS closed
FROM entries en
JOIN rules r ON r.rule_id = en.rule_id
WHERE en.harness = $harness AND en.native_event = $native_event AND r.fail = 'closed' AND r.enabled
  AND en.status IN ('native', 'partial', 'degraded');
