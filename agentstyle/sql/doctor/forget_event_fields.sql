-- Drop what `style doctor`'s synthetic events left in event_fields.
-- Parameters: $prefix, the session ids' prefix.
DELETE FROM event_fields WHERE event_id IN (
    SELECT event_id FROM events WHERE starts_with(coalesce(session_id, ''), $prefix)
);
