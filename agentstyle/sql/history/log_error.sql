-- Record a handler error on an event row that could not be evaluated (ids follow the last one:
-- every writer holds the OS lock).
-- Parameters: $1 time, $2 harness, $3 native event, $4 point, $5 session, $6 verdict, $7 error.
INSERT INTO events (event_id, ts, harness, native_event, point, session_id, verdict, error)
VALUES ((SELECT coalesce(max(event_id), 0) + 1 FROM events), $1, $2, $3, $4, $5, $6, $7);
