-- A refusal the person allowed: the rule's hit of this event becomes `user-allowed`.
-- Parameters: $1 event id, $2 rule id.
UPDATE hits SET outcome = 'user-allowed' WHERE event_id = $1 AND rule_id = $2;
