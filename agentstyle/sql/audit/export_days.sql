-- Export: the UTC days that hold history in the window (events by time, sessions by last seen).
-- Parameters: $since, $until (TIMESTAMP or NULL). Result: day (DATE), ascending.
SELECT DISTINCT day
FROM (
    SELECT CAST(ts AS DATE) AS day FROM events
    WHERE ($since IS NULL OR ts >= $since) AND ($until IS NULL OR ts < $until)
    UNION
    SELECT CAST(last_seen AS DATE) FROM sessions
    WHERE ($since IS NULL OR last_seen >= $since) AND ($until IS NULL OR last_seen < $until)
)
ORDER BY day;
