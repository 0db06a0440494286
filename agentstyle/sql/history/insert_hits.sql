-- Candidate outcomes of events. Parameters: a list per column of `hits` (evaluator/records.py
-- HitRow), each named as the column it fills: $event_id, $rule_id, $point, $outcome, $tokens,
-- $detail.
INSERT INTO hits BY NAME
SELECT unnest($event_id) AS event_id, unnest($rule_id) AS rule_id, unnest($point) AS point,
       unnest($outcome) AS outcome, unnest($tokens) AS tokens, unnest($detail) AS detail;
