-- The placed entries match.sql names by rule order: what a candidate is
-- (docs/design/runtime.md#candidates). A resident engine reads every row once; a batch asks for the
-- orders its match returned. Parameters: $orders, the rule orders, or NULL for every entry.
-- Result: harness, point, rule_order, rule_id, action, repeat, status, fails_closed.
SELECT harness, point, rule_order, rule_id, action, repeat, status,
       fail = 'closed' AS fails_closed
FROM placed
WHERE $orders IS NULL OR list_contains($orders, rule_order);
