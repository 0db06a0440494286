-- Drop the session facts `style doctor`'s synthetic events left.
-- Parameters: $prefix, the session ids' prefix.
DELETE FROM session_facts WHERE starts_with(session_id, $prefix);
