-- Dedup keys claimed. Parameters: a list per column of `claims` (evaluator/records.py ClaimRow),
-- each named as the column it fills: $claim_key, $harness, $session_id, $rule_id, $event_id,
-- $prompt_count.
INSERT INTO claims BY NAME
SELECT unnest($claim_key) AS claim_key, unnest($harness) AS harness,
       unnest($session_id) AS session_id, unnest($rule_id) AS rule_id,
       unnest($event_id) AS event_id, unnest($prompt_count) AS prompt_count;
