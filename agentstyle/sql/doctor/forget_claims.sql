-- Drop what `style doctor`'s synthetic events left in claims.
-- Parameters: $prefix, the session ids' prefix.
DELETE FROM claims WHERE event_id IN (
    SELECT event_id FROM events WHERE starts_with(coalesce(session_id, ''), $prefix)
);
