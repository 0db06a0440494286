-- A new allowance (evaluator/records.py AllowanceRow), its id drawn here and no use yet.
-- Parameters, each named as the column it fills: $created (UTC), $harness, $session_id,
-- $event_id (the refused event), $rule_ids, $native_tool, $call_key, $scope (once | session).
-- Result: the allowance id.
INSERT INTO allowances BY NAME
SELECT nextval('allowance_ids') AS allowance_id, $created AS created, $harness AS harness,
       $session_id AS session_id, $event_id AS event_id, $rule_ids AS rule_ids,
       $native_tool AS native_tool, $call_key AS call_key, $scope AS scope
RETURNING allowance_id;
