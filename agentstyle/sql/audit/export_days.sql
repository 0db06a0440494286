-- Export: the UTC days that hold history in the window (events by time, sessions by last seen),
-- each with the first and last id of its events, so each day's files read only that span.
-- Parameters: $since, $until (TIMESTAMP or NULL).
-- Result: day (DATE), first_id, last_id (NULL for a day with sessions but no events), ascending.
WITH ev AS (
    SELECT CAST(ts AS DATE) AS day, min(event_id) AS first_id, max(event_id) AS last_id
    FROM events
    WHERE ($since IS NULL OR ts >= $since) AND ($until IS NULL OR ts < $until)
    GROUP BY ALL
),
se AS (
    SELECT DISTINCT CAST(last_seen AS DATE) AS day
    FROM sessions
    WHERE ($since IS NULL OR last_seen >= $since) AND ($until IS NULL OR last_seen < $until)
)
SELECT day, ev.first_id, ev.last_id
FROM ev
FULL JOIN se USING (day)
ORDER BY day;
