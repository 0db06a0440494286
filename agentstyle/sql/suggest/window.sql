-- The history `style suggest` read (docs/audit.md#suggest). No parameters.
-- Result: events, sessions, first_ts, last_ts, bare (events stored without their fields),
-- asks (tool calls a rule asked about), post_entries (installed entries placed after a tool
-- call: without one the hooks never see the post event that says an ask was approved).
SELECT count(*) AS events,
       count(DISTINCT (harness, session_id)) AS sessions,
       min(ts) AS first_ts,
       max(ts) AS last_ts,
       count(*) FILTER (WHERE NOT EXISTS (
           SELECT 1 FROM event_fields f WHERE f.event_id = e.event_id)) AS bare,
       count(*) FILTER (WHERE e.verdict = 'ask' AND e.point = 'tool.pre') AS asks,
       (SELECT count(*) FROM entries en
         WHERE en.point = 'tool.post' AND en.status IN ('native', 'partial', 'degraded'))
           AS post_entries
FROM events e;
