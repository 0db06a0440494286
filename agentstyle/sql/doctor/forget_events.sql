-- Drop `style doctor`'s synthetic events.
-- Parameters: $prefix, the session ids' prefix.
DELETE FROM events WHERE starts_with(coalesce(session_id, ''), $prefix);
