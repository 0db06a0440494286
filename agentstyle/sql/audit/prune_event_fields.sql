-- Prune: delete the stored field rows of events older than the cutoff (before prune_events).
-- Parameters: $cutoff (TIMESTAMP). Result: the number of rows deleted.
DELETE FROM event_fields
WHERE event_id IN (SELECT event_id FROM events WHERE ts < $cutoff);
