-- Allowances that still let the batch's refused calls through: same harness, session and
-- call key; a `once` allowance only until it was used.
-- Parameters: lists of $seq, $harness, $session_id, $call_key (a row per refused call).
-- Result: seq, allowance_id, rule_ids, scope — per call, oldest first.
SELECT c.seq, a.allowance_id, a.rule_ids, a.scope
FROM (SELECT unnest($seq) AS seq, unnest($harness) AS harness,
             unnest($session_id) AS session_id, unnest($call_key) AS call_key) c
JOIN allowances a
  ON a.harness = c.harness AND a.session_id = c.session_id AND a.call_key = c.call_key
WHERE a.scope = 'session' OR a.uses = 0
ORDER BY c.seq, a.allowance_id;
