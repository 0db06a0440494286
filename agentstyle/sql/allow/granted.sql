-- The allowance already granted for a refused event, if any (`style allow` grants one per
-- refusal: asking twice must not give two passes). Parameters: $1 the refused event id.
-- Result: allowance_id, scope, uses — the first granted.
SELECT allowance_id, scope, uses
FROM allowances
WHERE event_id = $1
ORDER BY allowance_id
LIMIT 1;
