-- Session facts of the recorded events (schema 006; engine/evaluate.py facts_of): lists of
-- $1 harness, $2 session_id, $3 event_id, $4 kind, $5 value (already redacted and cut),
-- $6 failed.
INSERT INTO session_facts
SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5), unnest($6);
