-- Every placed entry with `fail: closed`, read once by a connection that evaluates many events
-- of one policy (the resident engine), for outcomes_blocked.sql. No parameters.
-- Result: harness, point, rule_id.
SELECT harness, point, rule_id FROM placed WHERE fail = 'closed';
