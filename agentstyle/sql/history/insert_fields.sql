-- Stored field rows of events with a hit (values already cut and redacted):
-- lists of event_id, field, idx, value.
INSERT INTO event_fields SELECT unnest($1), unnest($2), unnest($3), unnest($4);
