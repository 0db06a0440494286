-- The history `style suggest` read (docs/audit.md#suggest). No parameters.
-- Result: events, sessions, first_ts, last_ts, bare (events stored without their fields).
SELECT count(*) AS events,
       count(DISTINCT (harness, session_id)) AS sessions,
       min(ts) AS first_ts,
       max(ts) AS last_ts,
       count(*) FILTER (WHERE NOT EXISTS (
           SELECT 1 FROM event_fields f WHERE f.event_id = e.event_id)) AS bare
FROM events e;
