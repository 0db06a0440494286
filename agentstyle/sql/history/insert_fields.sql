-- Stored field rows of events with a hit (values already cut and redacted). Parameters: a list
-- per column of `event_fields` (evaluator/records.py FieldRow), each named as the column it fills:
-- $event_id, $field, $idx, $value.
INSERT INTO event_fields BY NAME
SELECT unnest($event_id) AS event_id, unnest($field) AS field, unnest($idx) AS idx,
       unnest($value) AS value;
