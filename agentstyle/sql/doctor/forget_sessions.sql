-- Drop `style doctor`'s synthetic sessions.
-- Parameters: $prefix, the session ids' prefix.
DELETE FROM sessions WHERE starts_with(session_id, $prefix);
