-- Allowances of this project, newest first. No parameters.
-- Result: allowance_id, created, harness, session_id, event_id, rule_ids, native_tool, scope,
-- uses.
SELECT allowance_id, created, harness, session_id, event_id, rule_ids, native_tool, scope, uses
FROM allowances
ORDER BY allowance_id DESC
LIMIT 50;
