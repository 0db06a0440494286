-- Session facts of the recorded events (schema 006; evaluator/evaluate.py facts_of). Parameters: a
-- list per column of `session_facts` (evaluator/records.py FactRow), each named as the column it
-- fills: $harness, $session_id, $event_id, $kind, $value (already redacted and cut), $failed.
INSERT INTO session_facts BY NAME
SELECT unnest($harness) AS harness, unnest($session_id) AS session_id,
       unnest($event_id) AS event_id, unnest($kind) AS kind, unnest($value) AS value,
       unnest($failed) AS failed;
