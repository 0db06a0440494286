-- Drop what `style doctor`'s synthetic events left in hits.
-- Parameters: $prefix, the session ids' prefix.
DELETE FROM hits WHERE event_id IN (
    SELECT event_id FROM events WHERE starts_with(coalesce(session_id, ''), $prefix)
);
