-- Drop `style doctor`'s synthetic sessions. Parameters: $1 session id prefix.
DELETE FROM sessions WHERE starts_with(session_id, $1);
