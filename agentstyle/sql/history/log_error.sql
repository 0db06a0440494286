-- Record a handler error on an event row that could not be evaluated, under the next id of the
-- counter (schema 010), advanced in this statement.
-- Parameters, each named as the column it fills: $ts, $harness, $native_event, $point,
-- $session_id, $verdict, $error.
WITH ids AS (UPDATE event_counter SET last_id = last_id + 1 RETURNING last_id)
INSERT INTO events (event_id, ts, harness, native_event, point, session_id, verdict, error)
SELECT ids.last_id, $ts, $harness, $native_event, $point, $session_id, $verdict, $error
FROM ids;
