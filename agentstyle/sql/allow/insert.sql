-- A new allowance. Parameters: $1 created (UTC), $2 harness, $3 session id, $4 refused event
-- id, $5 rule ids, $6 native tool, $7 call key, $8 scope (once | session).
-- Result: the allowance id.
INSERT INTO allowances
VALUES (nextval('allowance_ids'), $1, $2, $3, $4, $5, $6, $7, $8, 0)
RETURNING allowance_id;
