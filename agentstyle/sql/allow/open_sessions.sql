-- The sessions that hold an allowance still to be used (a `session` one, or a `once` one not
-- used yet), read once by the resident engine: while it runs no allowance is granted (`style
-- allow` stops it first), so a refused call of any other session has none to look up.
-- No parameters. Result: harness, session_id.
SELECT DISTINCT harness, session_id
FROM allowances
WHERE scope = 'session' OR uses = 0;
