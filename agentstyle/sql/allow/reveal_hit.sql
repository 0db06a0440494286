-- An ask that a now-allowed block had suppressed stands again: its hit becomes `asked`.
-- Parameters: $1 event id, $2 rule id.
UPDATE hits SET outcome = 'asked' WHERE event_id = $1 AND rule_id = $2;
