-- Allowances that still let this call through: same harness, session and call key; a `once`
-- allowance only until it was used. Parameters: $1 harness, $2 session id, $3 call key.
-- Result: allowance_id, rule_ids, scope — oldest first.
SELECT allowance_id, rule_ids, scope
FROM allowances
WHERE harness = $1 AND session_id = $2 AND call_key = $3
  AND (scope = 'session' OR uses = 0)
ORDER BY allowance_id;
