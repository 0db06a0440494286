-- Prune: delete the candidate outcomes of events older than the cutoff (before prune_events).
-- Parameters: $cutoff (TIMESTAMP). Result: the number of rows deleted.
DELETE FROM hits
WHERE event_id IN (SELECT event_id FROM events WHERE ts < $cutoff);
