-- Candidate outcomes of events: lists of event_id, rule_id, point, outcome, tokens, detail.
INSERT INTO hits SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5), unnest($6);
