-- The allowance already granted for a refused event, if any (`style allow` grants one per
-- refusal: asking twice must not give two passes). Parameters: $event_id, the refused event.
-- Result: allowance_id, scope, uses — the first granted.
SELECT allowance_id, scope, uses
FROM allowances
WHERE event_id = $event_id
ORDER BY allowance_id
LIMIT 1;
