-- Drop `style doctor`'s synthetic events. Parameters: $1 session id prefix.
DELETE FROM events WHERE starts_with(coalesce(session_id, ''), $1);
