-- Drop the session facts `style doctor`'s synthetic events left. Parameters: $1 session id prefix.
DELETE FROM session_facts WHERE starts_with(session_id, $1);
