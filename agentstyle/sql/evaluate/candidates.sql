-- The placed entries match.sql names by rule order: what a candidate is
-- (docs/design/runtime.md#candidates). A resident engine reads every row once; a batch asks for the
-- orders its match returned. Parameters: $1 the rule orders, or NULL for every entry.
-- Result: harness, point, rule_order, rule_id, action, repeat, status, fails_closed.
SELECT harness, point, rule_order, rule_id, action, repeat, status, fail = 'closed'
FROM placed
WHERE $1 IS NULL OR list_contains($1, rule_order);
