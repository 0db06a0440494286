-- Allowances that still let the batch's refused calls through: same harness, session and
-- call key; a `once` allowance only until it was used.
-- Parameters: lists of $1 seq, $2 harness, $3 session id, $4 call key (a row per refused call).
-- Result: seq, allowance_id, rule_ids, scope — per call, oldest first.
SELECT c.seq, a.allowance_id, a.rule_ids, a.scope
FROM (SELECT unnest($1) AS seq, unnest($2) AS harness, unnest($3) AS session_id,
             unnest($4) AS call_key) c
JOIN allowances a
  ON a.harness = c.harness AND a.session_id = c.session_id AND a.call_key = c.call_key
WHERE a.scope = 'session' OR a.uses = 0
ORDER BY c.seq, a.allowance_id;
