-- Record a handler error on an event row that could not be evaluated, under the next id of the
-- counter (schema 010), advanced in this statement.
-- Parameters: $1 time, $2 harness, $3 native event, $4 point, $5 session, $6 verdict, $7 error.
WITH ids AS (UPDATE event_counter SET last_id = last_id + 1 RETURNING last_id)
INSERT INTO events (event_id, ts, harness, native_event, point, session_id, verdict, error)
SELECT ids.last_id, $1, $2, $3, $4, $5, $6, $7
FROM ids;
