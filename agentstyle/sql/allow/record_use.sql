-- Record one use of an allowance (evaluator/records.py AllowanceUse). Parameters, each named as
-- the column it fills: $allowance_id, $event_id, $rule_id.
INSERT INTO allowance_uses BY NAME
SELECT $allowance_id AS allowance_id, $event_id AS event_id, $rule_id AS rule_id;
