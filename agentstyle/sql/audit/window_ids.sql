-- The first and last event id of a report's window (report.py window_params), read through the
-- zone maps of `events.ts`: the reports then read `hits` and `event_fields`, appended in event
-- order, in that id range only, so their cost follows the window, not the whole history.
-- Parameters: $since, $until (TIMESTAMP or NULL), $session, $harness (exact or NULL).
-- Result: one row: first_id, last_id (NULL for an empty window).
SELECT min(e.event_id) AS first_id, max(e.event_id) AS last_id
FROM window_events($since, $until, $session, $harness) e;
